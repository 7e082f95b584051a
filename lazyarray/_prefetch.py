"""Programs the previous run of the same command used, loaded from disk before they are asked for.

A second process finds its programs in the on-disk cache, but loading one (XLA links its object
code) costs 3-15 ms, in the foreground, at the graph's first sight: the second process's first
call of a scikit-learn Pipeline loaded 17 programs, ~100-300 ms that no later call pays (issue
11 target 2). So each process notes the entries of the programs it installed, in order (at most
`MAX_ENTRIES`), and at exit writes their names to a manifest in the cache directory, named by the
command (working directory and argv). The next run of that command, at its first disk lookup,
queues the loads of those entries on the compile thread (XLA's deserialisation releases the
GIL), and a lookup takes the loaded program from there; an entry the thread has not started yet
is taken back and loaded by the caller, so nothing waits behind a load it does not need.

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
from concurrent.futures import Future

from . import _config, _runtime
from ._engine_state import state

MAX_ENTRIES = 64
NOT_QUEUED = object()  # what `take` returns for an entry no prefetch holds
_ENTRY_NAME = re.compile(r"[0-9a-f]{2}/[0-9a-f]{64}\.xla\Z")

_used = {}       # cache dir -> names of the entries installed here, first use first
_queued = {}     # (path, device id) -> Future of the loaded executable (None: absent or bad)
_started = set()  # cache dirs whose manifest was read in this process
taken = 0        # lookups served by a prefetched load (tests read it)


def manifest_path(root):
    """Where the manifest of this command (working directory and argv) lives under `root`."""
    ident = json.dumps([os.getcwd(), sys.argv])
    return os.path.join(root, "manifests", hashlib.sha256(ident.encode()).hexdigest()[:32] + ".txt")


def note_used(path):
    """Remember that a program stored at `path` served this process (for the next run)."""
    root = _config.cache_dir
    if not root or not path or not path.startswith(root + os.sep):
        return
    name = os.path.relpath(path, root).replace(os.sep, "/")
    if not _ENTRY_NAME.match(name):
        return
    names = _used.get(root)
    if names is None:
        names = _used[root] = []
        if len(_used) == 1:
            atexit.register(write_manifests)
    if len(names) < MAX_ENTRIES and name not in names:
        names.append(name)


def write_manifests():
    """Write each cache directory's manifest for this command (atomically; errors ignored: a
    missing manifest costs the next run its prefetch, nothing else)."""
    for root, names in list(_used.items()):
        if not names or not os.path.isdir(root):  # (a directory removed meanwhile stays removed)
            continue
        path = manifest_path(root)
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(tmp, "w") as f:
                f.write("\n".join(names) + "\n")
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def start(device):
    """Once per cache directory and process: queue the loads of the entries this command's last
    run used, in their order, on the compile thread."""
    root = _config.cache_dir
    if not root or root in _started:
        return
    _started.add(root)
    try:
        with open(manifest_path(root)) as f:
            names = f.read().split()
    except OSError:
        return
    items = []
    for name in names[:MAX_ENTRIES]:
        if not _ENTRY_NAME.match(name):
            continue
        key = (os.path.join(root, *name.split("/")), device.id)
        if key not in _queued:
            _queued[key] = Future()
            items.append(key)
    if items:
        state.compile_thread().submit(_load_all, items, device)


def _load_all(items, device):
    """(On the compile thread.) Load each queued entry the caller has not taken back."""
    for key in items:
        future = _queued.get(key)
        if future is None or not future.set_running_or_notify_cancel():
            continue  # taken back by a lookup that loads it itself
        try:
            future.set_result(_runtime.load_serialized(key[0], device._pjrt))
        except BaseException:  # (load_serialized returns None for a bad entry; this is a bug)
            future.set_result(None)


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
