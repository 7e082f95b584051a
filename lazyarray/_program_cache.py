"""Compiled programs: their keys, the in-memory cache, the on-disk cache and donating variants.

A program is keyed by (device id, platform, the plan's structural key, the outputs that reuse
dead buffers); the structural key holds ops, attributes, shapes and dtypes, never data, so a
loop over new values hits. The in-memory cache (`state.programs`) drops its oldest program past
`LAZYARRAY_CACHE_SIZE`. A miss first looks in the on-disk cache (`LAZYARRAY_CACHE_DIR`, on by
default in the per-user cache directory) for the program an earlier process built for the same
structural key: the entry's name hashes the key's exact bytes (`_structural_key`) with lazyarray's
version and source, numpy's, Python's, jax/jaxlib's, XLA_FLAGS, the platform and the device kind,
and its header names jax/jaxlib/device, so an edit or an upgrade never loads a stale program. Only
when it is not there is the graph's StableHLO emitted (`_emit`; for LAPACK kernels that means
lowering through jax, tens of ms each) and compiled by XLA, now or on the background compile
thread. (A key holding a value with no exact encoding names its entry by the emitted text.) The
entries the last run of the same command used are loaded ahead, on the compile thread
(`_prefetch`). A donating variant (outputs aliased to recycled buffers, `_pool`) is never
compiled while the user waits: one on disk is loaded at its first request, otherwise it is built
in the background once its plain program exists and the graph has repeated, and the plain
program serves until then.

The tier policy's decision to compile a graph rests on measured seconds, so two runs of one
command on a busy machine decide differently; `learnt_seconds` gives it what the last run learnt
instead (below). A background compile still running when the program ends finishes and is stored
(the compile thread is joined at exit); one not started `EXIT_GRACE_SECONDS` after the end is
skipped, so exiting waits a bounded time.

Every miss leaves a line in the metrics' miss log, and the debug settings act here: the miss
explanation (`LAZYARRAY_EXPLAIN_MISSES`), the per-site graph limit, the StableHLO dump directory
and the `LAZYARRAY_DEBUG` ladder (`_debug_log`). Nothing is cached for a program XLA rejected.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import threading
import time
from concurrent.futures import Future

from . import _config, _debug_log, _heap_trim, _prefetch, _runtime, _structural_key
from ._emit import emit_module
from ._engine_state import state
from ._metrics import explain_miss, format_site, metrics
from ._sharding_rules import program_layout

COMPILE_FAILED = "compile failed"  # in place of a future: XLA rejected that program for good


class Compiled:
    """A built program: its executable and a name for it (its disk entry, or its text's hash).
    `no_window`: whether running it needs no LAPACK thread window (`_blas_threads.program_call`
    answered a null context for it: its graph has no LAPACK kernel, or there is no such library
    to set), None until first run. A property of the program's structure, so it is asked once."""
    __slots__ = ("executable", "name", "no_window")

    def __init__(self, executable, name):
        self.executable = executable
        self.name = name
        self.no_window = None


def program_key(device, skey, donated=()):
    return (device.id, device.platform, skey, donated)


def install(key, compiled):
    """Cache a built program under `key` (the oldest is dropped past the cache size)."""
    programs = state.programs
    programs[key] = compiled
    _prefetch.note_used(compiled.name)
    if len(programs) > _config.cache_size:
        evicted_key = next(iter(programs))
        evicted = programs.pop(evicted_key)
        state.replays.pop(evicted_key, None)  # (its run recipe holds the program too)
        _runtime.forget_executable(evicted.executable)
    return compiled


def compile_program(key, order, leaves, outputs, device, site, background=False):
    """Compile the graph's program and cache it under `key` (its last entry names the donated
    outputs). With `background`, only emit it here and return a future of the Compiled, built on
    the compile thread (XLA releases the GIL); the caller installs it once done. A program an
    earlier process stored under the graph's structural key is loaded without emitting anything
    (a future already done, with `background`)."""
    metrics.cache_misses += 1
    where = format_site(site)
    reason = _miss_reason(key, order, where)
    path = structural_path(device, key[2], key[3])
    if path is not None and not (_config.debug or _config.dump_dir):  # (those two want the text)
        compiled = _load(path, device)
        if compiled is not None:
            _count_graph(where, compiled.name)
            if background:
                future = Future()
                future.set_result(compiled)
                return future
            return install(key, compiled)
    text = emit_module(order, leaves, outputs, donated=key[3], layout=program_layout(device, order, leaves, outputs))
    text_hash = _text_hash(text)
    _count_graph(where, path or text_hash)
    if _config.debug:
        _debug_log.compile_started(where, order, leaves, outputs, text, reason, background)
    if _config.dump_dir:
        os.makedirs(_config.dump_dir, exist_ok=True)
        with open(os.path.join(_config.dump_dir, f"{text_hash}.mlir"), "w") as f:
            f.write(text)
    if background:
        metrics.background_compiles += 1
        future = state.compile_thread().submit(_build, text, path, device, where)
        # (named for the next run's prefetch once built, not when a later request installs it: a
        # donating variant built in the background that this process never asked for again would
        # otherwise stay out of the manifest, and the next run would load it in the foreground)
        future.add_done_callback(_note_built)
        return future
    return install(key, _build(text, path, device, where))


def _note_built(future):
    if not future.cancelled() and future.exception() is None:
        _prefetch.note_used(future.result().name)


def _count_graph(where, name):
    """Note a distinct graph built at `where`; past LAZYARRAY_MAX_GRAPHS_PER_SITE, raise."""
    if _config.max_graphs_per_site:
        graphs = metrics.graphs_per_site[where]
        graphs.add(name)
        if len(graphs) > _config.max_graphs_per_site:
            raise RuntimeError(
                f"lazyarray: {where} has produced {len(graphs)} distinct graphs (limit "
                f"LAZYARRAY_MAX_GRAPHS_PER_SITE={_config.max_graphs_per_site}); last miss: "
                f"{metrics.miss_explanations[-1]}")


def _miss_reason(key, order, where):
    """Log why `key` missed (the explanation costs a scan of recent keys: only when asked for)."""
    if _config.explain_misses or _config.max_graphs_per_site or _config.debug:
        programs = state.programs
        if key[3] and (key[0], key[1], key[2], ()) in programs:
            reason = (f"the cached program's variant whose outputs {list(key[3])} reuse dead buffers "
                      "(donation), built in the background")
        else:
            reason = explain_miss(key[2], [k[2] for k in list(programs)[-64:]])
        _note(metrics.miss_explanations, f"{where}: {reason}")
        if _config.explain_misses:
            print(f"lazyarray: cache miss at {where}: {reason}")
        return reason
    _note(metrics.miss_explanations, f"{where}: cache miss ({len(order)} ops)")
    return None


def _note(log, text):
    """Append to one of the metrics' bounded logs."""
    log.append(text)
    del log[:-100]


def note_compile_error(site, exc):
    _note(metrics.compile_errors, f"{format_site(site)}: {exc}")


def note_interpreter_error(site, exc):
    _note(metrics.interpreter_errors, f"{format_site(site)}: {type(exc).__name__}: {exc}")


def _lazyarray_version():
    try:
        from importlib.metadata import version
        return version("lazyarray")
    except Exception:  # running from a source tree that was never installed
        return "source"


_DISK_KEY_PREFIX = f"lazyarray-{_lazyarray_version()}|"


def structural_path(device, skey, donated=()):
    """Where the on-disk cache keeps the program of the graph with structural key `skey` (and
    these donated outputs), named without emitting it (`_structural_key`): None when the disk
    cache is off, for a program over a mesh, or when the key holds a value with no exact
    encoding (then the emitted text names it: `_text_path`). The name hashes lazyarray's version
    and source, numpy's, Python's, jax/jaxlib's, XLA_FLAGS, the platform and the device kind."""
    if not _config.cache_dir or device.mesh is not None:
        return None
    try:
        graph = _structural_key.digest(skey, donated)
    except _structural_key.Unkeyable:
        return None
    return _runtime.disk_path(f"{_DISK_KEY_PREFIX}structural|{_structural_key.code_fingerprint()}|"
                              f"XLA_FLAGS={os.environ.get('XLA_FLAGS', '')}|{graph}", device._pjrt)


def _text_path(text, device):
    """Where the on-disk cache keeps this program text's executable (None: disk cache off)."""
    return _runtime.disk_path(f"{_DISK_KEY_PREFIX}XLA_FLAGS={os.environ.get('XLA_FLAGS', '')}|{text}",
                              device._pjrt)


def _text_hash(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class _DiskListing:
    """Whether the on-disk cache directory holds any entry: on a first run (a fresh machine, CI, a
    benchmark's cold cache) none does, and hashing each new graph's structural key to look for
    its program (~1-3 us a node) would be wasted. Entries live in subdirectories of the root, so
    the root's mtime changes whenever one appears or goes: one stat per lookup, the listing again
    only then. (Entries' directories are named by two hex digits; `manifests/` alone, which a run
    that compiled nothing leaves, holds none.) An entry another process writes later is found at the next lookup after it (on a
    filesystem with coarse timestamps, one written in the tick of the listing may be missed until
    the root changes again: a lost disk hit, never a wrong program).

    `may_hold(root, within)` (`from_disk`'s) answers "no entry" again for `within` seconds after
    it found none, without the stat: that stat costs ~5 us at a first sight (a system call among
    cold caches; SciPy's table makes ~170 first sights in ~0.1 s, each one such stat), so an entry
    another process writes meanwhile is found up to `within` seconds later (a lost disk hit: the
    graph is interpreted, and a compile of it later loads the entry). One this process writes is
    found at once (`_build` calls `forget`)."""
    __slots__ = ("root", "mtime", "holds", "empty_root", "empty_until")

    def __init__(self):
        self.root = self.mtime = None
        self.holds = True
        self.empty_root = None  # the root the last `within` answer found empty, until `empty_until`
        self.empty_until = 0.0

    def may_hold(self, root, within=0.0):
        if within:
            if root == self.empty_root and time.monotonic() < self.empty_until:
                return False
            holds = self.may_hold(root)
            if not holds:
                self.empty_root, self.empty_until = root, time.monotonic() + within
            return holds
        try:
            mtime = os.stat(root).st_mtime_ns
        except OSError:  # not created yet: nothing to load
            return False
        if root != self.root or mtime != self.mtime:
            try:
                names = os.listdir(root)
            except OSError:
                return False
            self.holds = any(len(n) == 2 and os.path.isdir(os.path.join(root, n)) for n in names)
            self.root, self.mtime = root, mtime
        return self.holds

    def forget(self):
        """Look again at the next lookup (this process wrote an entry)."""
        self.empty_root = None


_disk_listing = _DiskListing()
EMPTY_LISTING_SECONDS = 0.05  # `from_disk`: how long an empty cache directory is not looked at again


def from_disk(skey, order, leaves, outputs, device):
    """The plain program an earlier process compiled for this graph (on-disk cache), or None.
    Named by its structural key: a graph seen for the first time costs a file lookup, not an
    emission (only a graph whose key has no exact encoding is emitted to be named), and nothing
    while the cache holds no entry at all (`_DiskListing`)."""
    if not _config.cache_dir or not _disk_listing.may_hold(_config.cache_dir, EMPTY_LISTING_SECONDS):
        return None
    path = structural_path(device, skey)
    if path is None:
        path = _text_path(emit_module(order, leaves, outputs, layout=program_layout(device, order, leaves, outputs)),
                          device)
    return _load(path, device)


def _load(path, device):
    """The program stored at `path` (taken from the prefetch when it loaded it), or None."""
    if not path:
        return None
    _prefetch.start(device)
    executable = _prefetch.take(path, device)
    if executable is _prefetch.NOT_QUEUED:
        executable = _runtime.load_serialized(path, device._pjrt)
    if executable is None:
        return None
    with metrics.lock:
        metrics.disk_hits += 1
    return Compiled(executable, path)


EXIT_GRACE_SECONDS = 2.0  # after the program's end, background compiles start this long at most
_ended_at = None          # when the compile thread first saw the main thread ended


def _too_late():
    """Whether a background compile starts too long after the program ended (see the docstring)."""
    global _ended_at
    if threading.main_thread().is_alive():
        return False
    if _ended_at is None:
        _ended_at = time.monotonic()
    return time.monotonic() - _ended_at > EXIT_GRACE_SECONDS


def _build(text, path, device, where):
    """Load or compile one program (on the compile thread too: touches no engine state). `path`
    is its structural entry, or None: then its text names its entry."""
    t0 = time.perf_counter()
    if path is None:
        path = _text_path(text, device)
    compiled = _load(path, device)
    if compiled is None:
        if _too_late():
            raise RuntimeError(f"lazyarray: the compile of the program built at {where} was skipped: "
                               f"the program ended over {EXIT_GRACE_SECONDS} s before it could start")
        try:
            executable = _runtime.compile_text(text, device._pjrt)
        except Exception as exc:
            raise RuntimeError(f"lazyarray: XLA rejected the program built at {where}: {exc}\n{text}") from exc
        with metrics.lock:
            metrics.compiles += 1
        if path:
            _runtime.store_serialized(path, executable, device._pjrt)
            _disk_listing.forget()  # (found at the next lookup: `_DiskListing`)
        _heap_trim.after_compile(state.compile_thread().submit)  # XLA's freed heap back to the system
        compiled = Compiled(executable, path or _text_hash(text))
    with metrics.lock:
        metrics.compile_seconds += time.perf_counter() - t0
    return compiled


def donating_variant(key, plan, outputs, device, site):
    """The donating variant of a cached program, or None while the plain program serves. One
    an earlier process stored is loaded at the first request; otherwise it is compiled in the
    background once requested `interpret_first` times (the repetition the tier policy asks of
    any graph before compiling it: a plain program loaded from disk at a graph's first sight has
    shown none yet, and the variant's compile would compete with the caller for the CPU), and
    used once done."""
    variants = state.variants
    entry = variants.get(key)
    if entry is None:
        if len(variants) > _config.cache_size:
            variants.clear()
        path = structural_path(device, key[2], key[3])
        compiled = _load(path, device) if path is not None else None
        if compiled is not None:
            return install(key, compiled)
        entry = 0
    if type(entry) is int:  # requests so far
        entry += 1
        if entry < _config.interpret_first:
            variants[key] = entry
            return None
        variants[key] = compile_program(key, plan.order, plan.leaves, outputs, device, site, background=True)
        return None
    if entry is not COMPILE_FAILED and entry.done():
        if entry.exception() is not None:  # (XLA rejected it: the plain program serves)
            variants[key] = COMPILE_FAILED
            return None
        del variants[key]
        return install(key, entry.result())
    return None


# ------------------------------------------------------------------ what the last run learnt

_learning = {}  # cache dir -> {device id: device} of the graphs first seen here (for the exit)
_absent_roots = set()  # cache dirs that did not exist at the first sight here (created at exit)


def learnt_seconds(skey, device):
    """Seconds per interpreted run that the last run of this command measured for this graph
    while it did not compile it, or None (no record: the tier policy times it itself). Asked
    once per graph, at its first decision (a graph seen once never pays for naming it).

    The tier policy compiles a graph once interpreting it has cost its estimated compile: timed,
    so the runs of one command decide differently on a shared machine. The demo's first process
    interpreted a graph 99 times for 106 ms against a 118 ms estimate, and the second, slower,
    compiled it; Ridge's 13-op SVD graph compiles or not by the machine's load (issue 11 target
    2). A graph the last run compiled is on disk and loaded at its first sight; for the others,
    each run writes at exit the seconds per run it measured (`_prefetch.write_costs`, per command,
    by entry name, so an edit or an upgrade forgets them), and the next run weighs runs times
    that figure against the estimate: running a graph as often as the last run did, it decides
    as that run did and compiles nothing it did not; running it more, it compiles when the
    learnt cost says so. A record is kept as first learnt, so every later run decides alike."""
    root = _config.cache_dir
    if not root or device.mesh is not None:
        return None
    seen = _learning.get(root)
    if seen is None:
        seen = _learning[root] = {}
        if not os.path.isdir(root):
            _absent_roots.add(root)
        if len(_learning) == 1:
            atexit.register(keep_learnt_costs)
    seen[device.id] = device
    records = _prefetch.learnt_costs(root)
    if not records:
        return None
    return records.get(_prefetch.entry_name(root, structural_path(device, skey)))


EXIT_RECORDS = 64  # graphs whose cost a run records at exit (naming each costs ~0.4 ms for 60 nodes)


def keep_learnt_costs():
    """(At exit.) Add to each cache directory's records of this command the seconds per run of
    the graphs this process interpreted and did not compile (nor pinned to the interpreter):
    those that reached a decision (`interpret_first` runs: they have an estimate), the
    `EXIT_RECORDS` that came nearest to their compile (most seconds against the estimate), as
    the ones the next run would most likely decide differently. A graph seen fewer times never
    decides, here or in the next run."""
    sightings = sorted(((seen.seconds / seen.estimate, key, seen) for key, seen in list(state.sightings.items())
                        if seen.estimate and seen.future is None and not seen.pinned),
                       key=lambda item: item[0])[-EXIT_RECORDS:]
    for root, devices in list(_learning.items()):
        if root != _config.cache_dir:  # (the setting changed since: its entries are named there)
            continue
        if root not in _absent_roots and not os.path.isdir(root):
            continue  # removed meanwhile: stays removed
        records = dict(_prefetch.learnt_costs(root))
        added = False
        for _, (device_id, skey), seen in sightings:
            device = devices.get(device_id)
            if device is None:
                continue
            try:
                name = _prefetch.entry_name(root, structural_path(device, skey))
            except Exception:  # (at exit: a key that cannot be named costs its record only)
                continue
            if name is not None and name not in records:
                records[name] = seen.seconds / seen.runs
                added = True
        if added:
            _prefetch.write_costs(root, records)

