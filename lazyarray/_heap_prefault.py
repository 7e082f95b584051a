"""Heap pages a command's last run faulted in while it worked, faulted in ahead, off the caller's thread.

A process whose first call works on megabytes of numpy temporaries grows glibc's main heap, and
each fresh page faults in at its first write: ~1,100 minor faults (~4 MB) in the first call of a
5000x50 scikit-learn Ridge (its SVD's column-major copy, U, the products), ~1.3 ms of its thread
CPU that its second call does not pay (glibc reuses the freed blocks: `_heap_threshold` keeps
blocks under 4 MiB on the heap). How much a run grows the heap once its work starts is a
property of the command, so `_prefetch` records it beside the command's manifest, and the next
run of the command, at import:

1. `hold`s that much heap (1 MiB blocks, malloc'd and kept; nothing written but glibc's headers),
2. has the compile thread fault the blocks in (`populate_held`: `madvise(MADV_POPULATE_WRITE)`,
   which maps each page writable as a write would, without writing), beside the caller's own
   imports and data set-up (which allocate above the held blocks, as they would have anyway),
3. and gives them back (`release`) when the work starts (the first graph's first sight, or the
   first program lookup): free blocks in the heap, resident, which the first call's arrays then
   reuse instead of growing the heap.

`grown_since_work` (at exit) is how far the heap grew after the release, plus what was released
(a run that reused it all grew that much less), so each run records what its work needed.
Bounded: at most `MAX_BYTES` held (under the 8 MiB trim threshold `_heap_threshold` sets), only
when `_heap_threshold` raised the thresholds (so 1 MiB blocks come from the heap, not from mmap),
no more than a run of the command grew the heap (counting the released blocks as grown: the
record stays put while the need does not grow); a `malloc_trim` (`_heap_trim`) may give the free pages back
as before. Only glibc on Linux 5.14+ (MADV_POPULATE_WRITE): elsewhere nothing is held, or the
blocks are held unfaulted and given back at the release.
"""
from __future__ import annotations

import ctypes
import os
import threading

from . import _heap_threshold, _libc

MADV_POPULATE_WRITE = 23           # Linux 5.14+ (<linux/mman.h>)
CHUNK = 1 << 20                    # one held block: under the raised mmap threshold
MAX_BYTES = 6 << 20                # under the trim threshold `_heap_threshold` leaves (8 MiB)
MIN_BYTES = 1 << 20                # a smaller growth is not recorded
_UNRESOLVED = object()
_fns = _UNRESOLVED
_lock = threading.Lock()           # a block is faulted in or freed, never both at once
held = []                          # addresses of the held blocks (empty: nothing held)
_work_break = None                 # the heap's end at the release (None: no release yet)
_released = 0                      # bytes released then
populated = 0                      # bytes faulted in ahead in this process (tests read it)


def _glibc():
    """(sbrk, malloc, free, madvise) of glibc, or None (resolved once)."""
    global _fns
    if _fns is _UNRESOLVED:
        fns = (_libc.function("sbrk", ctypes.c_void_p, ctypes.c_ssize_t),
               _libc.function("malloc", ctypes.c_void_p, ctypes.c_size_t),
               _libc.function("free", None, ctypes.c_void_p),
               _libc.function("madvise", ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int))
        _fns = None if None in fns else fns  # (not glibc, or a C library without them)
    return _fns


def hold(nbytes) -> bool:
    """Hold `nbytes` (at most MAX_BYTES, in CHUNK blocks) of heap for the work to come; whether
    any is held (not: not glibc, thresholds not raised, fewer than MIN_BYTES asked, held already)."""
    fns = _glibc()
    if fns is None or not _heap_threshold.raised or nbytes < MIN_BYTES or held:
        return False
    malloc = fns[1]
    with _lock:
        for _ in range(-(-min(nbytes, MAX_BYTES) // CHUNK)):
            p = malloc(CHUNK)
            if p:
                held.append(p)
    return bool(held)


def populate_held():
    """(On the compile thread.) Fault the held blocks in, writable, without writing them; a
    block released meanwhile is skipped. Returns the bytes faulted in."""
    global populated
    fns = _glibc()
    done = 0
    for p in list(held):
        with _lock:
            if p not in held:
                continue
            start = -(-p // 4096) * 4096  # (a block starts 16 bytes into a page: its whole pages)
            if fns[3](start, p + CHUNK - start - (p + CHUNK) % 4096, MADV_POPULATE_WRITE) != 0:
                return done  # (an old kernel: nothing to gain from the rest)
            done += CHUNK
    populated += done
    return done


def release():
    """Give the held blocks back to the heap (free, resident: the work's arrays reuse them) and
    note where the heap ends now (`grown_since_work`). Cheap when nothing is held."""
    global _work_break, _released
    if not held:
        if _work_break is None and _fns is not None and _fns is not _UNRESOLVED:
            _work_break = _fns[0](0)  # (nothing held: the work's start is still noted, once)
        return
    fns = _glibc()
    with _lock:
        blocks = list(held)
        held.clear()
        for p in reversed(blocks):
            fns[2](p)
        _released = len(blocks) * CHUNK
        _work_break = fns[0](0)


def _after_fork_in_child():
    """A fork while the compile thread faulted a block in leaves the lock held in the child, where
    that thread does not exist: the child takes a new one."""
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def work_started():
    """Whether the work has started (`release` was called); None when not glibc."""
    return None if not _glibc() else _work_break is not None


def heap_break():
    """The main heap's end (the program break) as an integer address, or None (not glibc)."""
    fns = _glibc()
    return None if fns is None else fns[0](0)


def grown_since_work(start):
    """How far the heap grew since `start` (a `heap_break` at import) or, when blocks were held
    and released, since that release plus what was released (the work's need either way)."""
    end = heap_break()
    if end is None:
        return 0
    if _work_break is not None:
        return max(0, end - _work_break) + _released
    return max(0, end - start)
