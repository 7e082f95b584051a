"""Giving the C heap's free memory back to the system once an XLA compile is over.

XLA's compiler (its HLO passes and LLVM) allocates tens of megabytes of short-lived heap while it
compiles a program and frees it when the compile ends. glibc's malloc keeps freed memory in its
arenas for reuse instead of returning it (only a free block at the very top of the main heap goes
back by itself), so a process that compiled once stays that much larger for good: in the memory
benchmark's cold run (500 steps of logistic regression, 10000x100 float64, one compile) ~16 MB
of free heap was still resident after the compile, ~20 MB by the loop's end (issue 11, target 8).
`malloc_trim(0)` returns the free pages of every arena (and the top of each heap) to the system.

So, after a compile, a trim is queued on the background compile thread (`after_compile`, given
that thread's `submit`): it runs once the compiles queued before it are done, so a burst of
compiles costs one trim (later requests while one is queued are dropped), and never in the
caller's time. One trim costs ~3-4 ms of CPU after a compile (~0.1-0.2 ms when there is nothing
to give back); a compile costs 50 ms to seconds. The memory given back is re-faulted when used
again, which costs what a first touch of fresh memory costs.

Only glibc has `malloc_trim` (Linux's usual C library): elsewhere (macOS, Windows, musl) this
does nothing. `LAZYARRAY_HEAP_TRIM=0` (`xp.config.heap_trim = False`) turns it off.
"""
from __future__ import annotations

import ctypes
import os
import threading

from . import _config

_UNRESOLVED = object()
_trim = _UNRESOLVED       # glibc's malloc_trim (None where the C library has none)
_queued = False           # a trim is waiting on the compile thread
_lock = threading.Lock()
trims = 0                 # trims run in this process (tests read it)


def _malloc_trim():
    """The C library's malloc_trim, or None (resolved once)."""
    global _trim
    if _trim is _UNRESOLVED:
        fn = None
        if os.name == "posix":
            try:
                fn = getattr(ctypes.CDLL(None), "malloc_trim", None)
            except OSError:
                fn = None
            if fn is not None:
                fn.argtypes = (ctypes.c_size_t,)
                fn.restype = ctypes.c_int
        _trim = fn
    return _trim


def available() -> bool:
    """Whether this process's C library can give free heap back (glibc)."""
    return _malloc_trim() is not None


def trim() -> bool:
    """Return the free memory of every malloc arena to the system now. Returns whether it ran."""
    global trims
    fn = _malloc_trim()
    if fn is None:
        return False
    fn(0)
    trims += 1
    return True


def _queued_trim():
    global _queued
    with _lock:
        _queued = False
    trim()


def after_compile(submit) -> bool:
    """A compile just ended: queue one trim through `submit` (the compile thread's), unless one
    is queued already or trimming is off. Returns whether it queued one."""
    global _queued
    if not _config.heap_trim or not available():
        return False
    with _lock:
        if _queued:
            return False
        _queued = True
    try:
        submit(_queued_trim)
    except RuntimeError:  # the executor is shut down (the interpreter is exiting): nothing to keep small
        with _lock:
            _queued = False
        return False
    return True


def _forget_queued():
    """After a fork the child has no compile thread: a trim its parent had queued never runs there."""
    global _queued
    _queued = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_queued)
