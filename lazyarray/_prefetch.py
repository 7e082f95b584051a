"""Programs the previous run of the same command used, loaded from disk before they are asked for.

A second process finds its programs in the on-disk cache, but loading one (XLA links its object
code) costs 3-15 ms, in the foreground, at the graph's first sight: the second process's first
call of a scikit-learn Pipeline loaded 17 programs, ~100-300 ms that no later call pays (issue
11 target 2). So each process notes the entries of the programs it installed, in order (at most
`MAX_ENTRIES`), and at exit writes their names to a manifest in the cache directory, named by the
command (working directory and command line). The next run of that command, at its first disk lookup,
queues the loads of those entries on the compile thread (XLA's deserialisation releases the
GIL), and a lookup takes the loaded program from there; an entry the thread has not started yet
is taken back and loaded by the caller, so nothing waits behind a load it does not need.

The loads start at import (`start_at_import`, the package's last line) when the manifest exists and
no device was named (`LAZYARRAY_DEVICE`): the entries were then used on the default device, which
the compile thread opens itself. A program's imports and data set-up (scikit-learn's import alone
is ~0.5 s) thus cover the loads, ~3-7 ms of CPU each, which at the first lookup still fell on the
first call (issue 11 target 2: Ridge's second process, first call 58 ms against 26 ms warm). Once
every entry is loaded, each one no lookup has taken yet runs once on zeros there (`_first_run`:
XLA's CPU client builds each fusion's runtime at an executable's first run, ~15-20 ms of CPU over
the Pipeline's 17 programs that the first call paid). A command with no manifest costs one failed
open. At exit the thread stops loading (nothing would
take the programs), and after a fork the child forgets loads its parent's thread was making.

Beside the manifest, the same command's run keeps what its interpreter learnt about the graphs it
did not compile (`learnt_costs`, `write_costs`: seconds per interpreted run by entry name; the
records are made and used by `_program_cache.learnt_seconds`, which says why).
The same file names the graphs whose compiled program ran dearer than their interpretation
(`note_slower_compiled`, a line "<entry name> interpret"; `_tier_policy`'s trial): the next run
interprets those for good from their first sight instead of loading their programs.

A manifest only names entries: each is read and checked as any lookup reads it (`_disk_cache`),
so a stale, foreign or corrupt one costs a load, never a wrong program; a name that is not an
entry's (two hex digits / 64 hex digits .xla) is skipped.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import sys
import threading
from concurrent.futures import Future

from . import _blas_threads, _config, _disk_cache, _first_run, _heap_prefault, _runtime, _structural_key
from ._engine_state import state
from ._metrics import metrics

MAX_ENTRIES = 64
NOT_QUEUED = object()  # what `take` returns for an entry no prefetch holds
_ENTRY_NAME = re.compile(r"[0-9a-f]{2}/[0-9a-f]{64}\.xla\Z")

_used = {}       # cache dir -> names of the entries installed here, first use first
_queued = {}     # (path, device id) -> Future of the loaded executable (None: absent or bad)
_started = set()  # cache dirs whose manifest was read in this process
taken = 0        # lookups served by a prefetched load (tests read it)


def manifest_path(root):
    """Where the manifest of this command (working directory and command line) lives under
    `root`. The command line is the interpreter's own (`sys.orig_argv`: `python -c CODE` names
    the code, and a program that rewrites `sys.argv` keeps its name)."""
    ident = json.dumps([os.getcwd(), getattr(sys, "orig_argv", sys.argv)])
    return os.path.join(root, _disk_cache.COMMAND_FILES[0], hashlib.sha256(ident.encode()).hexdigest()[:32] + ".txt")


MAX_COSTS = 512  # records of learnt costs kept per command (and as many sent-back entries)
_costs = {}      # cache dir -> {entry name: seconds per interpreted run}, as read from disk
_slower = {}     # cache dir -> {entry name: None} of the graphs whose program ran dearer (in order)
SLOWER = "interpret"  # a costs line's value naming such a graph


def costs_path(root):
    """Where this command's learnt costs live under `root` (beside its manifest)."""
    return manifest_path(root)[:-len(".txt")] + ".costs"


def learnt_costs(root):
    """{entry name: seconds per interpreted run} that this command's earlier runs wrote under
    `root` (read once per process; empty when there is none; a malformed line is skipped)."""
    records = _costs.get(root)
    if records is None:
        records, slower = {}, {}
        try:
            with open(costs_path(root)) as f:
                lines = f.read().splitlines()
        except OSError:
            lines = ()
        for line in lines[-2 * MAX_COSTS:]:  # (the costs, then the sent-back entries)
            name, _, value = line.partition(" ")
            if value == SLOWER:
                if _ENTRY_NAME.match(name):
                    slower[name] = None
                continue
            try:
                seconds = float(value)
            except ValueError:
                continue
            if _ENTRY_NAME.match(name) and seconds >= 0.0 and seconds == seconds:
                records[name] = seconds
        # (published once complete, the first read kept: the compile thread reads them from
        # import on, `_read_ahead`, while the caller may ask)
        _slower.setdefault(root, slower)
        records = _costs.setdefault(root, records)
    return records


def write_costs(root, records):
    """Write this command's learnt costs (the last MAX_COSTS of `records`) and the entries sent
    back to the interpreter (`slower_compiled`), atomically; errors are ignored (a missing record
    costs the next run its own timing, or a compile and its trial, nothing else)."""
    lines = [f"{name} {seconds!r}\n" for name, seconds in list(records.items())[-MAX_COSTS:]]
    lines += [f"{name} {SLOWER}\n" for name in list(_slower.get(root, ()))[-MAX_COSTS:]]
    _write_atomic(costs_path(root), "".join(lines))


def slower_compiled(root):
    """The entry names (a dict used as an ordered set) of the graphs whose compiled program ran
    dearer than their interpretation in a run of this command under `root` (this one included)."""
    if root not in _slower:
        learnt_costs(root)
    return _slower[root]


def note_slower_compiled(root, name):
    """Record that the program of entry `name` ran dearer than its graph interpreted, and write
    the command's file now (this happens once per graph and process, rarely)."""
    slower = slower_compiled(root)
    if name in slower:
        return
    slower[name] = None
    write_costs(root, learnt_costs(root))


def _write_atomic(path, text):
    """Write `text` to `path` by an atomic rename (errors ignored: a missing per-command file
    costs the next run its head start, nothing else)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def note_used(path):
    """Remember that a program stored at `path` served this process (for the next run)."""
    root = _config.cache_dir
    name = entry_name(root, path)
    if name is None:
        return
    names = _used.get(root)
    if names is None:  # (the compile thread names what it built too: setdefault keeps one list)
        names = _used.setdefault(root, [])
        if not _exit_registered:
            _register_exit()
    if len(names) < MAX_ENTRIES and name not in names:
        names.append(name)


_exit_registered = False
_exit_lock = threading.Lock()


def _register_exit():
    global _exit_registered
    with _exit_lock:
        if not _exit_registered:
            atexit.register(write_manifests)
            _exit_registered = True


def write_manifests():
    """Write each cache directory's manifest for this command (atomically; errors ignored: a
    missing manifest costs the next run its prefetch, nothing else)."""
    for root, names in list(_used.items()):
        if not names or not os.path.isdir(root):  # (a directory removed meanwhile stays removed)
            continue
        _write_atomic(manifest_path(root), "\n".join(names) + "\n")


def _manifest_names(root):
    """The entry names this command's last run wrote under `root` (None: no manifest)."""
    try:
        with open(manifest_path(root)) as f:
            return f.read().split()
    except OSError:
        return None


def start(device):
    """Once per cache directory and process: queue the loads of the entries this command's last
    run used, in their order, on the compile thread."""
    _heap_prefault.release()  # (the work starts: the first program lookup)
    root = _config.cache_dir
    if not root or root in _started:
        return
    _started.add(root)
    names = _manifest_names(root)
    if names:
        _queue(root, names, device._pjrt)


def start_at_import():
    """`start` for the default device, from import on: when this command left a manifest under the
    cache directory and no device is named, the compile thread opens the default device and
    queues the loads (the client's set-up, jax's, then runs there too, beside the caller's own
    imports). Costs a failed open otherwise. (First, the heap the command's last run grew is
    faulted in ahead: `prefault_heap`.)"""
    root = _config.cache_dir
    if root and root not in _heap_at_import:
        prefault_heap(root)
    if not root or _config.device or root in _started:
        return
    names = _manifest_names(root)
    if not names:
        _hash_sources_if_costs_learnt(root)
        return
    _started.add(root)
    state.compile_thread().submit(_queue_on_default_device, root, names)


def heap_path(root):
    """Where this command's heap record (`prefault_heap`) lives under `root` (beside its manifest)."""
    return manifest_path(root)[:-len(".txt")] + ".heap"


_heap_at_import = {}  # cache dir -> the main heap's end at import (`_heap_prefault.heap_break`)


def prefault_heap(root):
    """(At import.) Note where the main heap ends now, and when this command's last run recorded
    how far its work grew the heap, hold that much heap and have the compile thread fault it in
    (`_heap_prefault`: released at the work's start, the first call then reuses those pages
    instead of faulting fresh ones, ~1 ms of a scikit-learn Ridge's first call). At exit,
    `write_heap_records` records this run's figure."""
    start = _heap_prefault.heap_break()
    if start is None:
        return
    if not _heap_at_import:
        atexit.register(write_heap_records)
    _heap_at_import[root] = start
    try:
        with open(heap_path(root)) as f:
            recorded = int(f.read(32))
    except (OSError, ValueError):
        return
    if _heap_prefault.hold(recorded):
        state.compile_thread().submit(_heap_prefault.populate_held)


def write_heap_records():
    """(At exit.) Record, per cache directory, how far this run's work grew the main heap
    (`_heap_prefault.grown_since_work`; from MIN_BYTES on, a smaller figure removes the record).
    A run whose work never started, or that compiled a program, keeps the last record: XLA's
    compiler grows the heap by megabytes the next run, loading its programs, does not need.
    Errors are ignored: a missing record costs the next run the faults, nothing else."""
    if not _heap_prefault.work_started() or metrics.compiles:
        return  # (XLA's compiler grew the heap far past what the work needs, and the next run loads)
    for root, start in list(_heap_at_import.items()):
        if not os.path.isdir(root):  # (a directory removed meanwhile stays removed)
            continue
        grown = _heap_prefault.grown_since_work(start)
        if grown >= _heap_prefault.MIN_BYTES:
            _write_atomic(heap_path(root), f"{grown}\n")
        else:
            try:
                os.unlink(heap_path(root))
            except OSError:
                pass


def _hash_sources_if_costs_learnt(root):
    """(LINALG's hook.) A command whose last run interpreted every graph left learnt costs but no
    programs: its first tier decision (`_program_cache.learnt_seconds`) names an entry, hashing
    lazyarray's sources there, ~5 ms of the first call's main thread (Ridge's process 2). Hash
    them on the compile thread from import on instead (`_read_ahead`)."""
    if os.path.exists(costs_path(root)):
        state.compile_thread().submit(_read_ahead, root)


def _read_ahead(root):
    """(On the compile thread, from import on, in a run of a command that ran before.) What the
    first call's first sights would otherwise read on the caller's thread: lazyarray's sources
    hashed once for the entries' names (`_structural_key.code_fingerprint`), this command's
    learnt costs (`learnt_costs`: a file read and parsed, ~0.1-0.2 ms of scikit-learn's Pipeline's
    first call), and numpy's BLAS library found for the matmul windows (`_blas_threads`: ~0.15 ms)."""
    _structural_key.code_fingerprint()
    learnt_costs(root)
    _blas_threads.numpy_one_thread()  # (finds the library; the window is not entered)


def _queue_on_default_device(root, names):
    """(On the compile thread.) Open the default device, queue the loads and start them; also
    read ahead what the first call would (`_read_ahead`: the sources' hash, which each entry's
    name needs, first)."""
    _read_ahead(root)
    _queue(root, names, _runtime.client().devices()[0], now=True)


def _queue(root, names, pjrt, now=False):
    """Queue a Future per valid entry name not queued yet (keyed by path and device id), and
    their loads on the compile thread (`now`: on this thread, which is it)."""
    items = []
    for name in names[:MAX_ENTRIES]:
        if not _ENTRY_NAME.match(name):
            continue
        key = (os.path.join(root, *name.split("/")), pjrt.id)
        if key not in _queued:
            _queued[key] = Future()
            items.append(key)
    if not items:
        return
    if now:
        _load_all(items, pjrt)
    else:
        state.compile_thread().submit(_load_all, items, pjrt)


def _load_all(items, pjrt):
    """(On the compile thread.) Load each queued entry the caller has not taken back; then run
    each loaded one no lookup has taken yet once on zeros (`_first_run`: XLA builds part of an
    executable's runtime state at its first run, which the caller's first call would pay). At
    exit (the main thread has ended) the rest are cancelled, so exiting never waits for them."""
    main = threading.main_thread()
    loaded = []
    for key in items:
        future = _queued.get(key)
        if future is None or not future.set_running_or_notify_cancel():
            continue  # taken back by a lookup that loads it itself
        if not main.is_alive():
            future.set_result(None)
            continue
        try:
            executable = _runtime.load_serialized(key[0], pjrt)
        except BaseException:  # (load_serialized returns None for a bad entry; this is a bug)
            executable = None
        future.set_result(executable)
        if executable is not None:
            loaded.append((key, executable))
    for key, executable in loaded:  # (every load first: a lookup waits for a load, never for a run)
        if not main.is_alive():
            return
        if key in _queued:  # (not taken yet: a taken one's caller runs it first anyway)
            _first_run.run_on_zeros(executable, pjrt)


def entry_name(root, path):
    """`path`'s name relative to the cache directory `root` ("ab/<64 hex>.xla"), or None when it
    is not an entry's."""
    if not root or not path or not path.startswith(root + os.sep):
        return None
    name = os.path.relpath(path, root).replace(os.sep, "/")
    return name if _ENTRY_NAME.match(name) else None


def _forget_after_fork():
    """In a forked child the parent's compile thread does not exist: its loads never finish."""
    _queued.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def take(path, device):
    """The executable prefetched for `path` on `device` (None: absent or bad), waiting for a load
    in progress; NOT_QUEUED when no prefetch holds it or its load had not started (the caller
    loads it then)."""
    global taken
    future = _queued.pop((path, device.id), None)
    if future is None or future.cancel():
        return NOT_QUEUED
    taken += 1
    return future.result()
