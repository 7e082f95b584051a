"""The C library through ctypes when it is glibc (Linux's usual C library), else None.

Three heap policies ask it: `_heap_trim` (malloc_trim after compiles), `_heap_threshold` (one
malloc and free at import) and `_heap_prefault` (sbrk, malloc, free, madvise). All are glibc's
behaviour (its arenas, its dynamic thresholds), so elsewhere (macOS, Windows, musl) they do
nothing. Resolved once per process; `function` gives one of its functions with its C types set.
"""
from __future__ import annotations

import ctypes
import os

_UNRESOLVED = object()
_lib = _UNRESOLVED


def glibc():
    """ctypes' handle on this process's C library when it is glibc, else None."""
    global _lib
    if _lib is _UNRESOLVED:
        lib = None
        try:
            if os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
                lib = ctypes.CDLL(None)
        except (AttributeError, ValueError, OSError):  # no confstr (Windows), or not a GNU C library
            lib = None
        _lib = lib
    return _lib


def function(name, restype, *argtypes):
    """glibc's function `name` with its result and argument C types set, or None (not glibc, or a
    C library without it)."""
    lib = glibc()
    fn = getattr(lib, name, None) if lib is not None else None
    if fn is not None:
        fn.argtypes, fn.restype = argtypes, restype
    return fn
