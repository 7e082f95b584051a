"""Statistical functions (standard: "Statistical Functions")."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from ._support import (
    BITS, COMPLEX, FLOATING, NUMERIC, REAL, REAL_FLOAT, SIGNED, UNSIGNED, arrays, asx,
    assert_close, assert_dtype, assert_equal, default_name, dt, only, shapes, to_np, xp,
)


def accumulator_dtype(name):
    """sum/prod/cumulative_*/trace with dtype=None: integers narrower than the default
    integer widen to it (unsigned ones to the unsigned type of the same width)."""
    dflt = default_name("integral")
    if name in SIGNED and BITS[name] < BITS[dflt]:
        return dflt
    if name in UNSIGNED and BITS[name] < BITS[dflt]:
        return f"uint{BITS[dflt]}"
    return name


@st.composite
def axes(draw, ndim, allow_none=True):
    options = [st.integers(-ndim, ndim - 1)] if ndim else []
    options.append(st.lists(st.integers(0, max(ndim - 1, 0)), unique=True,
                            max_size=ndim).map(tuple))
    if allow_none:
        options.append(st.none())
    return draw(st.one_of(*options))


def _compare(out, expected, name):
    if name in FLOATING:
        assert_close(to_np(out), np.asarray(expected).astype(name), name)
    else:
        assert_equal(to_np(out), np.asarray(expected).astype(name))


@pytest.mark.parametrize("fname", ["max", "min"])
@given(st.sampled_from(only(REAL)), st.booleans(), st.data())
def test_max_min(fname, name, keepdims, data):
    a = data.draw(arrays(name, shapes(max_dims=3, min_side=1, max_side=4)))
    axis = data.draw(axes(a.ndim))
    out = getattr(xp, fname)(asx(a), axis=axis, keepdims=keepdims)
    assert_dtype(out, name)
    assert_equal(to_np(out), getattr(np, fname)(a, axis=axis, keepdims=keepdims))


def test_max_min_nan_propagates():
    x = asx(np.array([1.0, np.nan, 3.0]))
    assert math.isnan(float(xp.max(x)))
    assert math.isnan(float(xp.min(x)))


@given(st.sampled_from(only(NUMERIC)), st.booleans(), st.data())
def test_sum(name, keepdims, data):
    a = data.draw(arrays(name, shapes(max_dims=3, max_side=4), lo=-50, hi=50))
    axis = data.draw(axes(a.ndim))
    out = xp.sum(asx(a), axis=axis, keepdims=keepdims)
    want = accumulator_dtype(name)
    assert_dtype(out, want)
    _compare(out, np.sum(a.astype(want), axis=axis, keepdims=keepdims), want)


@given(st.sampled_from(only(NUMERIC)), st.booleans(), st.data())
def test_prod(name, keepdims, data):
    a = data.draw(arrays(name, shapes(max_dims=2, max_side=3), lo=-2, hi=2))
    axis = data.draw(axes(a.ndim))
    out = xp.prod(asx(a), axis=axis, keepdims=keepdims)
    want = accumulator_dtype(name)
    assert_dtype(out, want)
    _compare(out, np.prod(a.astype(want), axis=axis, keepdims=keepdims), want)


@pytest.mark.parametrize("fname", ["sum", "prod"])
def test_sum_prod_dtype_keyword_and_empty(fname):
    f = getattr(xp, fname)
    x = asx(np.array([[1, 2], [3, 4]], dtype=np.int8))
    for target in only(("int16", "int64", "float32", "float64")):
        out = f(x, dtype=dt(target))
        assert_dtype(out, target)
        assert float(out) == (10 if fname == "sum" else 24)
    empty = xp.zeros((0, 3), dtype=xp.float32)
    assert to_np(f(empty, axis=0)).tolist() == [0.0 if fname == "sum" else 1.0] * 3


@given(st.sampled_from(only(FLOATING)), st.booleans(), st.data())
def test_mean(name, keepdims, data):
    a = data.draw(arrays(name, shapes(max_dims=3, min_side=1, max_side=4)))
    axis = data.draw(axes(a.ndim))
    out = xp.mean(asx(a), axis=axis, keepdims=keepdims)
    assert_dtype(out, name)
    _compare(out, np.mean(a.astype("complex128" if name in COMPLEX else "float64"),
                          axis=axis, keepdims=keepdims), name)


def test_mean_empty_is_nan():
    assert math.isnan(float(xp.mean(xp.zeros((0,), dtype=xp.float64))))


@pytest.mark.parametrize("fname", ["std", "var"])
@given(st.sampled_from(only(REAL_FLOAT)), st.booleans(),
       st.sampled_from([0, 1, 0.5, 0.0]), st.data())
def test_std_var(fname, name, keepdims, correction, data):
    a = data.draw(arrays(name, shapes(max_dims=3, min_side=1, max_side=4), lo=-100, hi=100))
    axis = data.draw(axes(a.ndim))
    n = a.size if axis is None else math.prod(
        a.shape[i] for i in ((axis,) if isinstance(axis, int) else axis))
    assume(n - correction > 0)
    out = getattr(xp, fname)(asx(a), axis=axis, correction=correction, keepdims=keepdims)
    assert_dtype(out, name)
    expected = getattr(np, fname)(a.astype("float64"), axis=axis, ddof=correction,
                                  keepdims=keepdims)
    assert_close(to_np(out), np.asarray(expected).astype(name), name,
                 atol=1e-3 if name == "float32" else 1e-9)


@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
@given(st.sampled_from(only(NUMERIC)), st.booleans(), st.data())
def test_cumulative(fname, name, include_initial, data):
    lo, hi = (-50, 50) if fname == "cumulative_sum" else (-2, 2)
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=2, max_side=4), lo=lo, hi=hi))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    kw = {"axis": axis} if a.ndim > 1 or data.draw(st.booleans()) else {}
    out = getattr(xp, fname)(asx(a), include_initial=include_initial, **kw)
    want = accumulator_dtype(name)
    assert_dtype(out, want)
    ax = axis if kw else 0
    b = a.astype(want)
    expected = np.cumsum(b, axis=ax) if fname == "cumulative_sum" else np.cumprod(b, axis=ax)
    if include_initial:
        shape = list(a.shape)
        shape[ax] = 1
        first = np.zeros(shape, want) if fname == "cumulative_sum" else np.ones(shape, want)
        expected = np.concatenate([first, expected], axis=ax)
    _compare(out, expected, want)


def test_cumulative_dtype_keyword():
    x = asx(np.array([100, 100, 100], dtype=np.int8))
    out = xp.cumulative_sum(x, dtype=xp.int32)
    assert_dtype(out, "int32")
    assert to_np(out).tolist() == [100, 200, 300]
