"""The C library through ctypes when it is glibc (Linux's usual C library), else None.

Two heap policies ask it: `_heap_trim` (malloc_trim after compiles) and `_heap_threshold`
(one malloc and free at import). Both are glibc's behaviour (its arenas, its dynamic
thresholds), so elsewhere (macOS, Windows, musl) both do nothing. Resolved once per process.
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
