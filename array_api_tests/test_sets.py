"""Set functions (standard: "Set Functions"). The order of unique values is unspecified, so
results are checked for what they must be, not against numpy's order."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from ._support import (
    AT_LEAST_2025, INTEGRAL, NS_NAME, NUMERIC, arrays, asx, assert_dtype, assert_equal,
    capability, default_name, only, shapes, to_np, xp,
)

pytestmark = pytest.mark.skipif(not capability("data-dependent shapes"),
                                reason="namespace reports no data-dependent shapes")

dtypes = st.sampled_from(only(NUMERIC + ("bool",)))


def _keys(values):
    return sorted(values.tolist(), key=lambda v: (v.real, v.imag) if isinstance(v, complex)
                  else v)


@given(dtypes, st.data())
def test_unique_values(name, data):
    a = data.draw(arrays(name, shapes(max_dims=3), lo=-3, hi=3))
    out = xp.unique_values(asx(a))
    assert_dtype(out, name)
    assert out.ndim == 1
    assert _keys(to_np(out)) == _keys(np.unique(a))


@given(dtypes, st.data())
def test_unique_counts(name, data):
    a = data.draw(arrays(name, shapes(max_dims=3), lo=-3, hi=3))
    res = xp.unique_counts(asx(a))
    values, counts = res
    assert res.values is values and res.counts is counts
    assert_dtype(values, name)
    assert_dtype(counts, default_name("indexing"))
    v, c = to_np(values), to_np(counts)
    assert v.shape == c.shape
    assert int(c.sum()) == a.size
    for val, cnt in zip(v.tolist(), c.tolist()):
        assert cnt == int(np.count_nonzero(a == val))
    assert len(v) == len(np.unique(a))


@given(dtypes, st.data())
def test_unique_inverse(name, data):
    a = data.draw(arrays(name, shapes(max_dims=3), lo=-3, hi=3))
    res = xp.unique_inverse(asx(a))
    values, inverse = res
    assert res.values is values and res.inverse_indices is inverse
    assert_dtype(values, name)
    assert_dtype(inverse, default_name("indexing"))
    assert tuple(inverse.shape) == a.shape       # the input's shape (2023.12 onwards)
    v, inv = to_np(values), to_np(inverse)
    assert len(set(v.tolist())) == len(v)
    assert_equal(v[inv] if a.size else a, a)


@given(dtypes, st.data())
def test_unique_all(name, data):
    a = data.draw(arrays(name, shapes(max_dims=3), lo=-3, hi=3))
    res = xp.unique_all(asx(a))
    assert len(res) == 4
    values, indices, inverse, counts = res
    assert res.values is values and res.indices is indices
    assert res.inverse_indices is inverse and res.counts is counts
    for arr in (indices, inverse, counts):
        assert_dtype(arr, default_name("indexing"))
    v, idx, inv, cnt = (to_np(t) for t in (values, indices, inverse, counts))
    flat = a.reshape(-1)
    assert_equal(flat[idx], v)
    for val, i, c in zip(v.tolist(), idx.tolist(), cnt.tolist()):
        first = int(np.flatnonzero(flat == val)[0])
        assert i == first, f"indices must point at the first occurrence of {val!r}"
        assert c == int(np.count_nonzero(flat == val))
    assert_equal(v[inv] if a.size else a, a)


def test_unique_nans_are_distinct_and_zeros_equal():
    a = asx(np.array([np.nan, 0.0, -0.0, np.nan, 1.0]))
    v = to_np(xp.unique_values(a))
    assert int(np.isnan(v).sum()) == 2          # each NaN is its own unique value
    assert int((v == 0).sum()) == 1             # -0.0 and +0.0 are one value
    values, counts = xp.unique_counts(a)
    c = to_np(counts)[to_np(values) == 0]
    assert c.tolist() == [2]


@pytest.mark.skipif(not AT_LEAST_2025, reason="isin is 2025.12")
@given(st.sampled_from(only(INTEGRAL)), st.data())
def test_isin(name, data):
    a = data.draw(arrays(name, shapes(max_dims=3), lo=-5, hi=5))
    b = data.draw(arrays(name, shapes(max_dims=2), lo=-5, hi=5))
    out = xp.isin(asx(a), asx(b))
    assert_dtype(out, "bool")
    assert_equal(to_np(out), np.isin(a, b))


@pytest.mark.skipif(not AT_LEAST_2025, reason="isin is 2025.12")
@pytest.mark.xfail(NS_NAME == "array_api_strict", strict=True,
                   reason="array_api_strict 2.6 ignores invert= in isin")
def test_isin_invert():
    a = asx(np.array([[1, 2], [3, 4]], dtype=np.int16))
    b = asx(np.array([4, 1, 9], dtype=np.int16))
    assert to_np(xp.isin(a, b, invert=True)).tolist() == [[False, True], [True, False]]
    assert to_np(xp.isin(a, b, invert=False)).tolist() == [[True, False], [False, True]]


@pytest.mark.skipif(not AT_LEAST_2025, reason="isin is 2025.12")
def test_isin_scalar():
    a = asx(np.array([1, 2, 3, 2], dtype=np.int32))
    assert to_np(xp.isin(a, 2)).tolist() == [False, True, False, True]
