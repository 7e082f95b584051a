"""glibc's malloc thresholds raised once, at import, to the size of the host tier's temporaries.

glibc serves a request at or above its mmap threshold (128 KiB at start) by a fresh `mmap`, and
gives the heap's free top back to the system (`brk` down) once it exceeds the trim threshold.
Both are dynamic: freeing an mmapped block of size S raises the mmap threshold to S and the trim
threshold to 2S (up to 32 MiB), so a process settles on thresholds near its largest freed block.
The interpreter tier keeps a few more megabytes of numpy temporaries alive at once than numpy's
own code does; with 2 MB arrays (5000x50 float64) the thresholds settle near 2 and 4 MB, and each
call of a scikit-learn Pipeline on such data grew the heap in ~2 MB steps and trimmed it back about
five times, or mmapped its 2 MB arrays afresh: every time the pages faulted in again (~512 minor
faults per 2 MB, ~2,800 per Pipeline call and ~1,450 per Ridge call against numpy's 3; a few ms of
system time each call).

So at import one block of `_config.heap_threshold` bytes (4 MiB by default) is allocated and freed
through the C library's malloc: an mmapped block freed, which moves glibc's dynamic thresholds to
4 MiB (mmap) and 8 MiB (trim), where the process would have put them itself after its first freed
4 MiB array. Nothing else changes: the thresholds stay dynamic (a larger freed block still raises
them), no page of the block is touched but its header, `malloc_trim` (`_heap_trim`) still gives
every free page back, and where the user fixed a threshold (mallopt, `MALLOC_MMAP_THRESHOLD_`,
`MALLOC_TRIM_THRESHOLD_`, `MALLOC_TOP_PAD_`) glibc no longer moves them, so this does nothing.
The cost: the heap may keep up to 8 MiB of free top resident between calls instead of 4.

Only glibc (Linux's usual C library) is asked: elsewhere (macOS, Windows, musl) this does nothing.
`LAZYARRAY_HEAP_THRESHOLD=0` leaves malloc alone; another byte count raises to that size instead.
"""
from __future__ import annotations

import ctypes

from . import _config, _libc

_MAX = 32 << 20  # glibc's ceiling for the dynamic mmap threshold on 64-bit systems
raised = False   # whether this process raised them (`_heap_prefault` grows the heap only then)


def _glibc():
    """The C library's malloc and free when it is glibc, else None."""
    malloc = _libc.function("malloc", ctypes.c_void_p, ctypes.c_size_t)
    free = _libc.function("free", None, ctypes.c_void_p)
    return None if malloc is None or free is None else (malloc, free)


def raise_thresholds(nbytes: int | None = None) -> bool:
    """Allocate and free one block of `nbytes` (default `_config.heap_threshold`) through glibc's
    malloc, so its dynamic mmap threshold becomes at least that size. Returns whether it did (not
    when off, 0, or the C library is not glibc)."""
    global raised
    n = _config.heap_threshold if nbytes is None else nbytes
    if not n or n <= 0:
        return False
    fns = _glibc()
    if fns is None:
        return False
    malloc, free = fns
    p = malloc(min(int(n), _MAX))
    if not p:
        return False
    free(p)
    raised = True
    return True
