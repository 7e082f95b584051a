"""Sorting functions (standard: "Sorting Functions")."""

import numpy as np
from hypothesis import given, strategies as st

from ._support import (
    REAL, arrays, asx, assert_dtype, assert_equal, default_name, only, shapes, to_np, xp,
)


def reference_argsort(a, axis, descending):
    """Stable argsort written from the standard: ascending or descending by value, equal
    values keep their relative order."""
    a = np.moveaxis(a, axis, -1)
    out = np.empty(a.shape, dtype=np.int64)
    for pos in np.ndindex(*a.shape[:-1]):
        row = a[pos].tolist()
        if descending:
            # by value descending, ties by position ascending
            order = sorted(range(len(row)), key=lambda i: (-_rank(row, i), i))
        else:
            order = sorted(range(len(row)), key=lambda i: row[i])  # Python's sort is stable
        out[pos] = order
    return np.moveaxis(out, -1, axis)


def _rank(row, i):
    # a total order key for the value row[i] that negates safely (also for unsigned ints)
    return sorted(set(row)).index(row[i])


@given(st.sampled_from(only(REAL)), st.booleans(), st.data())
def test_argsort_stable(name, descending, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, max_side=5), lo=-3, hi=3))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    out = xp.argsort(asx(a), axis=axis, descending=descending, stable=True)
    assert_dtype(out, default_name("indexing"))
    assert_equal(to_np(out), reference_argsort(a, axis, descending))


@given(st.sampled_from(only(REAL)), st.booleans(), st.data())
def test_sort(name, descending, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, max_side=5)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    out = xp.sort(asx(a), axis=axis, descending=descending)
    assert_dtype(out, name)
    expected = np.sort(a, axis=axis)
    if descending:
        expected = np.flip(expected, axis=axis)
    assert_equal(to_np(out), expected)


def test_defaults_last_axis_ascending_stable():
    a = np.array([[3, 1, 2, 1], [0, 0, -1, 5]], dtype=np.int32)
    assert to_np(xp.sort(asx(a))).tolist() == [[1, 1, 2, 3], [-1, 0, 0, 5]]
    assert to_np(xp.argsort(asx(a))).tolist() == [[1, 3, 2, 0], [2, 0, 1, 3]]
    assert to_np(xp.argsort(asx(a), descending=True)).tolist() == [[0, 2, 1, 3], [3, 0, 1, 2]]


@given(st.sampled_from(only(REAL)), st.data())
def test_argsort_unstable_still_sorts(name, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=2, max_side=6), lo=-3, hi=3))
    idx = to_np(xp.argsort(asx(a), stable=False))
    # a permutation along the last axis that sorts it
    assert_equal(np.sort(idx, axis=-1), np.broadcast_to(np.arange(a.shape[-1]), a.shape))
    assert_equal(np.take_along_axis(a, idx, axis=-1), np.sort(a, axis=-1))
