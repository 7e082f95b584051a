"""Settings read once from the environment; each can be changed at run time with `lazyarray.config`.

LAZYARRAY_NODE_BUDGET      nodes traced without a sync before the pending graph is cut (default 1000)
LAZYARRAY_CACHE_DIR        directory of the on-disk compile cache, so a second process compiles nothing
                           (default: the per-user cache directory, `$XDG_CACHE_HOME/lazyarray` or
                           `~/.cache/lazyarray`, `%LOCALAPPDATA%\\lazyarray` on Windows; empty, 0 or off:
                           no disk cache, as `xp.config.cache_dir = None`). An unwritable one warns once.
LAZYARRAY_CACHE_BYTES      size bound of that directory: past it the least recently used entries are
                           deleted after each write (default 1 GiB; 0: unbounded)
LAZYARRAY_CACHE_SIZE       compiled programs kept in memory (default 1024)
LAZYARRAY_MAX_GRAPHS_PER_SITE  raise when one call site compiles more distinct graphs (default: off)
LAZYARRAY_EXPLAIN_MISSES   1: print why each compile missed the cache (default 0)
LAZYARRAY_DUMP_DIR         write each compiled program's StableHLO there (default: none)
LAZYARRAY_PLATFORM         XLA platform: cpu, cuda, rocm, tpu (default: the best one available)
LAZYARRAY_DEVICE           the default device: cpu, cpu:3, cuda:0 (default: the platform's first; `with dev:` overrides)
LAZYARRAY_INTERPRET_FIRST  a new graph runs in the numpy interpreter at least this many times, and until
                           interpreting it has cost its estimated compile time, before its program compiles
                           in the background (default 2; 0: compile every graph at once)
LAZYARRAY_INTERPRET_TRANSFER_BYTES  on an accelerator (GPU, TPU), a new graph runs in the interpreter only when
                           its device-resident inputs plus its outputs are at most this many bytes (they
                           cross between host and device); larger graphs compile at once (default 8 MiB;
                           0: compile every graph at once there)
LAZYARRAY_REPORT_AT_EXIT   1: print the metrics report to stderr when the process exits (default 0)
LAZYARRAY_POOL_BYTES       device memory kept from dead arrays for reuse as outputs (default 1 GiB; 0: off)
LAZYARRAY_POOL_MIN_BYTES   smallest buffer worth recycling (default 1 MiB)
LAZYARRAY_HEAP_TRIM        1: after an XLA compile (a burst of them: its first and its last), give the C heap's
                           free memory back to the system on the compile thread (glibc's malloc_trim;
                           `_heap_trim`) (default 1; 0: off)
LAZYARRAY_HEAP_THRESHOLD   bytes: at import, one block this large is malloc'd and freed, which raises glibc's
                           dynamic thresholds (blocks under it come from the heap, whose free top is kept up to
                           twice it) so the interpreter's megabyte temporaries stop faulting in fresh pages every
                           call (`_heap_threshold`) (default 4194304; 0: leave malloc alone; glibc only)
LAZYARRAY_COMPILE_PROCESS  1: CPU programs are compiled by a helper process that exits when compiles pause, so
                           XLA's compiler never grows this process (`_compile_process`) (default 0)
LAZYARRAY_CHECKS           1: out-of-bounds index arrays and failed factorisations raise at the read (default 0)
LAZYARRAY_VERIFY           1: re-check every computed node's shape/dtype rule and the graph's invariants at each
                           sync, before it runs; a broken node raises _verify.GraphError (default 0)
LAZYARRAY_DEBUG            a ladder that switches the useful sets at once (default 0), on stderr:
                           1: one line per cache miss (a graph compiled, now or in the background, or first
                              interpreted) with its size, the user's file:line and why it missed
                           2: + the graph's text (as `xp.graph_text`) of each compiled graph
                           3: + its StableHLO
                           4: + the graph verifier (as LAZYARRAY_VERIFY=1)
                           The separate variables above keep working alongside it.

At run time: `lazyarray.config.<name> = value` with the lower-case names below (e.g.
`xp.config.debug = 2`, `xp.config.verify = True`); a change applies from then on (report_at_exit
and platform only before first use).
"""
import os


def _default_cache_dir():
    """The per-user cache directory's lazyarray folder (the platform's convention)."""
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "lazyarray")


def _cache_dir_setting(value):
    """LAZYARRAY_CACHE_DIR's meaning: unset is the default directory, empty/0/off is no cache."""
    if value is None:
        return _default_cache_dir()
    if value.strip().lower() in ("", "0", "off", "false", "no", "none"):
        return None
    return os.path.expanduser(value)


def _int(name, default):
    v = os.environ.get(name)
    return int(v) if v else default


node_budget = _int("LAZYARRAY_NODE_BUDGET", 1000)
cache_dir = _cache_dir_setting(os.environ.get("LAZYARRAY_CACHE_DIR"))  # None: no disk cache
cache_max_bytes = _int("LAZYARRAY_CACHE_BYTES", 1 << 30)
cache_size = _int("LAZYARRAY_CACHE_SIZE", 1024)
max_graphs_per_site = _int("LAZYARRAY_MAX_GRAPHS_PER_SITE", 0)
explain_misses = os.environ.get("LAZYARRAY_EXPLAIN_MISSES", "0") not in ("", "0")
dump_dir = os.environ.get("LAZYARRAY_DUMP_DIR") or None
platform = os.environ.get("LAZYARRAY_PLATFORM") or None
device = os.environ.get("LAZYARRAY_DEVICE") or None  # see _devices.default_device
pool_max_bytes = _int("LAZYARRAY_POOL_BYTES", 1 << 30)
pool_min_bytes = _int("LAZYARRAY_POOL_MIN_BYTES", 1 << 20)
interpret_first = _int("LAZYARRAY_INTERPRET_FIRST", 2)
interpret_transfer_bytes = _int("LAZYARRAY_INTERPRET_TRANSFER_BYTES", 8 << 20)  # see _tier_policy
report_at_exit = os.environ.get("LAZYARRAY_REPORT_AT_EXIT", "0") not in ("", "0")
checks = os.environ.get("LAZYARRAY_CHECKS", "0") not in ("", "0")  # see _checks
verify = os.environ.get("LAZYARRAY_VERIFY", "0") not in ("", "0")  # see _verify
debug = _int("LAZYARRAY_DEBUG", 0)  # see _debug_log
heap_trim = os.environ.get("LAZYARRAY_HEAP_TRIM", "1") not in ("", "0")  # see _heap_trim
compile_process = os.environ.get("LAZYARRAY_COMPILE_PROCESS", "0") not in ("", "0")  # see _compile_process
heap_threshold = _int("LAZYARRAY_HEAP_THRESHOLD", 4 << 20)  # see _heap_threshold (at import only)
gc_freeze = os.environ.get("LAZYARRAY_GC_FREEZE", "1") not in ("", "0")  # see _gc_freeze (at import only)
gc_freeze_survivors = gc_freeze and os.environ.get("LAZYARRAY_GC_FREEZE", "1") != "import"  # see _gc_freeze (at import only)
