"""Settings read once from the environment; each can be changed at run time with `lazyarray.config`.

LAZYARRAY_NODE_BUDGET      nodes traced without a sync before the pending graph is cut (default 2000)
LAZYARRAY_CACHE_DIR        directory of the on-disk compile cache (default: none)
LAZYARRAY_CACHE_SIZE       compiled programs kept in memory (default 1024)
LAZYARRAY_MAX_GRAPHS_PER_SITE  raise when one call site compiles more distinct graphs (default: off)
LAZYARRAY_EXPLAIN_MISSES   1: print why each compile missed the cache (default 0)
LAZYARRAY_DUMP_DIR         write each compiled program's StableHLO there (default: none)
LAZYARRAY_PLATFORM         XLA platform: cpu, cuda, rocm, tpu (default: the best one available)
"""
import os


def _int(name, default):
    v = os.environ.get(name)
    return int(v) if v else default


node_budget = _int("LAZYARRAY_NODE_BUDGET", 2000)
cache_dir = os.environ.get("LAZYARRAY_CACHE_DIR") or None
cache_size = _int("LAZYARRAY_CACHE_SIZE", 1024)
max_graphs_per_site = _int("LAZYARRAY_MAX_GRAPHS_PER_SITE", 0)
explain_misses = os.environ.get("LAZYARRAY_EXPLAIN_MISSES", "0") not in ("", "0")
dump_dir = os.environ.get("LAZYARRAY_DUMP_DIR") or None
platform = os.environ.get("LAZYARRAY_PLATFORM") or None
