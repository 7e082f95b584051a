"""Searching functions (standard: "Searching Functions")."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from ._support import (
    ALL, REAL, arrays, asx, assert_dtype, assert_equal, capability, default_name, only, shapes,
    to_np, xp,
)

real_dtypes = st.sampled_from(only(REAL))


def _axis(data, ndim):
    return data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1))) if ndim else None


@pytest.mark.parametrize("fname", ["argmax", "argmin"])
@given(real_dtypes, st.booleans(), st.data())
def test_argmax_argmin(fname, name, keepdims, data):
    # small value sets make ties likely: the first occurrence must win
    a = data.draw(arrays(name, shapes(min_dims=0, max_dims=3, min_side=1, max_side=4),
                         lo=-3, hi=3))
    axis = _axis(data, a.ndim)
    out = getattr(xp, fname)(asx(a), axis=axis, keepdims=keepdims)
    assert_dtype(out, default_name("indexing"))
    expected = getattr(np, fname)(a, axis=axis, keepdims=keepdims)
    assert_equal(to_np(out), np.asarray(expected))


def test_argmax_nan_and_default():
    x = asx(np.array([[1.0, 5.0, 5.0], [2.0, -1.0, 0.0]]))
    out = xp.argmax(x)
    assert out.shape == () and int(out) == 1        # flattened, first occurrence
    assert to_np(xp.argmin(x, axis=1)).tolist() == [0, 1]
    assert to_np(xp.argmax(x, axis=0, keepdims=True)).tolist() == [[1, 0, 0]]


@given(st.sampled_from(only(ALL)), st.booleans(), st.data())
def test_count_nonzero(name, keepdims, data):
    a = data.draw(arrays(name, shapes(max_dims=3), lo=-2, hi=2))
    ndim = a.ndim
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1) if ndim else st.none(),
                               st.lists(st.integers(0, max(ndim - 1, 0)), unique=True,
                                        max_size=ndim).map(tuple)))
    out = xp.count_nonzero(asx(a), axis=axis, keepdims=keepdims)
    assert_dtype(out, default_name("indexing"))
    expected = np.count_nonzero(a, axis=axis, keepdims=keepdims)
    assert_equal(to_np(out), np.asarray(expected))


@pytest.mark.skipif(not capability("data-dependent shapes"),
                    reason="namespace reports no data-dependent shapes")
@given(st.sampled_from(only(ALL)), st.data())
def test_nonzero(name, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=3), lo=-2, hi=2))
    out = xp.nonzero(asx(a))
    assert type(out) is tuple
    expected = np.nonzero(a)
    assert len(out) == len(expected) == a.ndim
    for o, e in zip(out, expected):
        assert_dtype(o, default_name("indexing"))
        assert_equal(to_np(o), e)


def test_nonzero_zero_dim_raises():
    with pytest.raises(Exception):
        xp.nonzero(xp.asarray(1))


@given(st.sampled_from(only(ALL)), st.data())
def test_where(name, data):
    bs = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
    c = data.draw(hnp.arrays(np.bool_, bs.input_shapes[0]))
    a = data.draw(arrays(name, bs.input_shapes[1]))
    b = data.draw(arrays(name, bs.input_shapes[2]))
    out = xp.where(asx(c), asx(a), asx(b))
    assert_dtype(out, name)
    assert_equal(to_np(out), np.where(c, a, b))


def test_where_promotes_and_takes_scalars():
    c = asx(np.array([True, False, True]))
    out = xp.where(c, xp.ones(3, dtype=xp.int8), xp.zeros(3, dtype=xp.int16))
    assert_dtype(out, "int16")
    out = xp.where(c, asx(np.array([1.5, 2.5, 3.5], dtype=np.float32)), 0.0)
    assert_dtype(out, "float32")
    assert to_np(out).tolist() == [1.5, 0.0, 3.5]
    out = xp.where(c, 7, asx(np.array([1, 2, 3], dtype=np.int16)))
    assert_dtype(out, "int16")
    assert to_np(out).tolist() == [7, 2, 7]


@given(st.sampled_from(only(REAL)), st.sampled_from(["left", "right"]), st.booleans(),
       st.data())
def test_searchsorted(name, side, use_sorter, data):
    a = data.draw(arrays(name, st.integers(0, 8).map(lambda n: (n,)), lo=-5, hi=5))
    v = data.draw(arrays(name, shapes(max_dims=2, max_side=4), lo=-6, hi=6))
    if use_sorter:
        sorter = np.argsort(a, kind="stable")
        out = xp.searchsorted(asx(a), asx(v), side=side, sorter=asx(sorter))
        expected = np.searchsorted(a, v, side=side, sorter=sorter)
    else:
        a = np.sort(a)
        out = xp.searchsorted(asx(a), asx(v), side=side)
        expected = np.searchsorted(a, v, side=side)
    assert_dtype(out, default_name("indexing"))
    assert_equal(to_np(out), np.asarray(expected))


def test_searchsorted_edges():
    x1 = asx(np.array([1.0, 2.0, 2.0, 3.0]))
    x2 = asx(np.array([0.0, 2.0, 4.0]))
    assert to_np(xp.searchsorted(x1, x2)).tolist() == [0, 1, 4]
    assert to_np(xp.searchsorted(x1, x2, side="right")).tolist() == [0, 3, 4]
