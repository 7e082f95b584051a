"""Giving the C heap's free memory back to the system once an XLA compile is over.

XLA's compiler (its HLO passes and LLVM) allocates tens of megabytes of short-lived heap while it
compiles a program and frees it when the compile ends. glibc's malloc keeps freed memory in its
arenas for reuse instead of returning it (only a free block at the very top of the main heap goes
back by itself), so a process that compiled once stays that much larger for good: in the memory
benchmark's cold run (500 steps of logistic regression, 10000x100 float64, one compile) ~16 MB
of free heap was still resident after the compile, ~20 MB by the loop's end (issue 11, target 8).
`malloc_trim(0)` returns the free pages of every arena (and the top of each heap) to the system.

So a compile's end queues one trim on the background compile thread (given as its `submit`), at
once when no trim was queued in the last `DELAY_SECONDS`, else when compiles have paused that
long (a small timer thread waits for the deadline, which each compile moves on): a lone compile
is trimmed right after it, before the program's first run allocates its buffers (in the memory
benchmark that lowers the peak, too), and a burst of compiles (a scikit-learn Pipeline's first
call compiling 17 graphs at first sight, ~80 ms apart) costs two trims, its first and its last,
instead of one per compile whose freed heap the next compile would fault in again (measured:
~6 ms of CPU per compile when each compile trimmed). The trim runs on the compile thread, never
in the caller's time, and the tier trial leaves out a run the compile thread overlapped, so it
never counts as a program's cost. One trim costs ~3-4 ms of CPU after a compile (~0.1-0.2 ms
when there is nothing to give back); a compile costs 50 ms to seconds. `flush` trims at once
when one is due (a benchmark reading a baseline).

Only glibc has `malloc_trim` (Linux's usual C library): elsewhere (macOS, Windows, musl) this
does nothing. `LAZYARRAY_HEAP_TRIM=0` (`xp.config.heap_trim = False`) turns it off.
"""
from __future__ import annotations

import ctypes
import os
import threading
import time

from . import _config, _libc

DELAY_SECONDS = 0.25      # a trim queued this recently: the next waits for compiles to pause this long
_UNRESOLVED = object()
_trim = _UNRESOLVED       # glibc's malloc_trim (None where the C library has none)
_cond = threading.Condition()
_due = None               # monotonic time at which the trim is queued (None: none wanted)
_submit = None            # the compile thread's submit, as the last compile gave it
_last_queued = float("-inf")  # monotonic time the last trim was queued
_timer = None             # the thread that waits for the deadline
trims = 0                 # trims run in this process (tests read it)


def _malloc_trim():
    """glibc's malloc_trim, or None (resolved once)."""
    global _trim
    if _trim is _UNRESOLVED:
        _trim = _libc.function("malloc_trim", ctypes.c_int, ctypes.c_size_t)
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


def after_compile(submit) -> bool:
    """A compile just ended: queue a trim through `submit` (the compile thread's) now, or, when one
    was queued less than `DELAY_SECONDS` ago, (re)set the deadline of the one that follows the
    burst. Returns whether a trim is queued or due (not when trimming is off or the C library
    cannot)."""
    global _due, _submit, _timer, _last_queued
    if not _config.heap_trim or not available():
        return False
    now = time.monotonic()
    with _cond:
        _submit = submit
        at_once = _due is None and now - _last_queued >= DELAY_SECONDS
        if at_once:
            _last_queued = now
        else:
            _due = now + DELAY_SECONDS
            if _timer is None:
                _timer = threading.Thread(target=_queue_when_due, name="lazyarray-heap-trim", daemon=True)
                _timer.start()
            _cond.notify()
    if at_once:
        try:
            submit(trim)
        except RuntimeError:  # the executor is shut down (the interpreter is exiting)
            return False
    return True


def _queue_when_due():
    """(The timer thread.) Wait for a deadline to pass with no compile since, then queue the trim."""
    global _due, _timer, _last_queued
    while True:
        with _cond:
            while _due is None:
                _cond.wait()
            left = _due - time.monotonic()
            if left > 0:
                _cond.wait(left)
                continue
            _due = None
            _last_queued = time.monotonic()
            submit = _submit
        try:
            submit(trim)
        except RuntimeError:  # the executor is shut down (the interpreter is exiting)
            with _cond:
                _timer = None
            return


def due() -> bool:
    """Whether a trim is waiting for compiles to pause."""
    return _due is not None


def flush() -> bool:
    """Trim now, in the caller, when a trim is due (and cancel the queued one). Returns whether
    it trimmed."""
    global _due
    with _cond:
        if _due is None:
            return False
        _due = None
    return trim()


def _forget_after_fork():
    """A forked child has no timer thread (nor its parent's compile thread): start afresh."""
    global _cond, _due, _timer, _last_queued
    _cond = threading.Condition()
    _due = None
    _timer = None
    _last_queued = float("-inf")


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
