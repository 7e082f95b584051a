"""`_libc.glibc`: the one lookup of the C library that both heap policies use (`_heap_trim`'s
malloc_trim, `_heap_threshold`'s malloc and free): glibc's handle, resolved once, else None."""
import os

import pytest

from lazyarray import _heap_threshold, _heap_trim, _libc


def _is_glibc():
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


def test_glibc_is_resolved_once():
    first = _libc.glibc()
    assert (first is not None) == _is_glibc()
    assert _libc.glibc() is first


@pytest.mark.skipif(not _is_glibc(), reason="the C library is not glibc")
def test_both_heap_policies_use_it():
    assert _heap_trim.available()
    malloc, free = _heap_threshold._glibc()
    assert malloc is _libc.glibc().malloc and free is _libc.glibc().free


def test_no_glibc_no_heap_policy(monkeypatch):
    monkeypatch.setattr(_libc, "_lib", None)
    monkeypatch.setattr(_heap_trim, "_trim", _heap_trim._UNRESOLVED)
    assert _heap_threshold._glibc() is None
    assert not _heap_threshold.raise_thresholds(1 << 20)
    assert not _heap_trim.available() and not _heap_trim.trim()
