"""Utility functions (standard: "Utility Functions") and the array object's conversions."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from ._support import (
    ALL, FLOATING, REAL_FLOAT, SIGNED, arrays, asx, assert_dtype, assert_equal, only, shapes,
    to_np, xp,
)


@pytest.mark.parametrize("fname", ["all", "any"])
@given(st.sampled_from(only(ALL)), st.booleans(), st.data())
def test_all_any(fname, name, keepdims, data):
    a = data.draw(arrays(name, shapes(max_dims=3), lo=-1, hi=1))
    ndim = a.ndim
    axis = data.draw(st.one_of(
        st.none(), st.integers(-ndim, ndim - 1) if ndim else st.none(),
        st.lists(st.integers(0, max(ndim - 1, 0)), unique=True, max_size=ndim).map(tuple)))
    out = getattr(xp, fname)(asx(a), axis=axis, keepdims=keepdims)
    assert_dtype(out, "bool")
    assert_equal(to_np(out), np.asarray(getattr(np, fname)(a, axis=axis, keepdims=keepdims)))


def test_all_any_edges():
    empty = xp.zeros((0,), dtype=xp.float32)
    assert bool(xp.all(empty)) is True
    assert bool(xp.any(empty)) is False
    specials = asx(np.array([np.nan, np.inf, -np.inf]))
    assert bool(xp.all(specials)) is True       # NaN and infinities are truthy
    c = asx(np.array([0j, 1j]))
    assert to_np(xp.any(c, keepdims=True)).tolist() == [True]
    assert bool(xp.all(c)) is False


@given(st.sampled_from(only(SIGNED + FLOATING)), st.data())  # unsigned differences wrap
def test_diff(name, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, max_side=4), lo=-50, hi=50))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = data.draw(st.integers(1, 3))
    kw = {}
    npkw = {}
    for side in ("prepend", "append"):
        if data.draw(st.booleans()):
            shape = list(a.shape)
            shape[axis] = data.draw(st.integers(0, 2))
            extra = data.draw(arrays(name, tuple(shape), lo=-50, hi=50))
            kw[side] = asx(extra)
            npkw[side] = extra
    total = a.shape[axis] + sum(v.shape[axis] for v in npkw.values())
    assume(n <= total)
    out = xp.diff(asx(a), axis=axis, n=n, **kw)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.diff(a, n=n, axis=axis, **npkw))


def test_diff_defaults():
    x = asx(np.array([[1, 4, 9], [0, 0, 2]], dtype=np.int32))
    assert to_np(xp.diff(x)).tolist() == [[3, 5], [0, 2]]
    assert to_np(xp.diff(x, axis=0)).tolist() == [[-1, -4, -7]]


# ---------------------------------------------------------------------------------------------
# Python conversions of 0-d arrays (array object: __bool__, __int__, __float__, ...).

def test_scalar_conversions():
    assert bool(asx(np.asarray(True))) is True
    assert bool(asx(np.asarray(0.0))) is False
    i = int(asx(np.asarray(-7, dtype=np.int16)))
    assert i == -7 and type(i) is int
    f = float(asx(np.asarray(2.5, dtype=np.float32)))
    assert f == 2.5 and type(f) is float
    c = complex(asx(np.asarray(1 + 2j, dtype=np.complex64)))
    assert c == 1 + 2j and type(c) is complex
    idx = asx(np.asarray(2, dtype=np.int64)).__index__()
    assert idx == 2 and [10, 20, 30][asx(np.asarray(2))] == 30
    assert math.isnan(float(asx(np.asarray(np.nan))))


def test_bool_of_multi_element_raises():
    with pytest.raises((TypeError, ValueError)):
        bool(xp.ones((2,)))


def test_array_namespace_and_dlpack():
    x = asx(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.__array_namespace__() is xp
    y = np.from_dlpack(x)
    assert_equal(y, np.arange(6, dtype=np.float32).reshape(2, 3))
    dev = x.__dlpack_device__()
    assert isinstance(dev, tuple) and len(dev) == 2
    assert x.to_device(x.device).device == x.device
    assert_equal(to_np(x.to_device(x.device)), y)


@pytest.mark.parametrize("name", only(REAL_FLOAT))
def test_astype_round_trip(name):
    x = asx(np.array([1.5, -2.0, 0.0], dtype=name))
    y = xp.astype(x, xp.int32)
    assert_dtype(y, "int32")
    assert to_np(y).tolist() == [1, -2, 0]
    b = xp.astype(x, xp.bool)
    assert to_np(b).tolist() == [True, True, False]
    same = xp.astype(x, x.dtype, copy=False)
    assert_dtype(same, name)
