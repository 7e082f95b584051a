"""Statistical and utility functions against numpy."""
import math

import numpy as np
import pytest

import lazyarray as xp


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "var", "std"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), ((0, 2), False), ((), False)])
def test_reductions(name, axis, keepdims, rng):
    a = rng.normal(size=(2, 3, 4))
    got = np.asarray(getattr(xp, name)(xp.asarray(a), axis=axis, keepdims=keepdims))
    want = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_accumulator_dtypes():
    assert xp.sum(xp.asarray([1, 2], dtype=xp.int8)).dtype == xp.int64
    assert xp.sum(xp.asarray([1, 2], dtype=xp.uint8)).dtype == xp.uint64
    assert xp.prod(xp.asarray([True, True])).dtype == xp.int64
    assert xp.sum(xp.asarray([1.0], dtype=xp.float32)).dtype == xp.float32
    assert xp.sum(xp.asarray([1, 2], dtype=xp.int8), dtype=xp.int8).dtype == xp.int8
    assert complex(xp.sum(xp.asarray([1j, 2.0]))) == 2 + 1j


def test_empty_reductions():
    e = xp.asarray([], dtype=xp.float64)
    assert float(xp.sum(e)) == 0.0 and float(xp.prod(e)) == 1.0
    assert math.isnan(float(xp.mean(e))) and math.isnan(float(xp.var(e)))
    with pytest.raises(ValueError):
        xp.max(e)


def test_var_correction_and_nan():
    a = np.array([1.0, 2.0, 4.0, 8.0])
    np.testing.assert_allclose(float(xp.var(xp.asarray(a), correction=1)), np.var(a, ddof=1))
    assert math.isnan(float(xp.max(xp.asarray([1.0, math.nan, 3.0]))))


def test_errors():
    with pytest.raises(TypeError):
        xp.mean(xp.asarray([1, 2]))
    with pytest.raises(ValueError):
        xp.sum(xp.ones((2, 2)), axis=(0, 0))
    with pytest.raises((IndexError, ValueError)):
        xp.sum(xp.ones((2, 2)), axis=2)


@pytest.mark.parametrize("name,ref", [("cumulative_sum", np.cumsum), ("cumulative_prod", np.cumprod)])
def test_cumulative(name, ref, rng):
    a = rng.integers(-3, 4, size=(3, 4))
    fn = getattr(xp, name)
    np.testing.assert_array_equal(np.asarray(fn(xp.asarray(a), axis=1)), ref(a, axis=1))
    got = np.asarray(fn(xp.asarray(a), axis=0, include_initial=True))
    ident = 0 if name == "cumulative_sum" else 1
    want = np.concatenate([np.full((1, 4), ident), ref(a, axis=0)])
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        fn(xp.asarray(a))  # axis is required above 1-D


def test_all_any_diff():
    a = np.array([[1, 0, 2], [3, 4, 5]])
    x = xp.asarray(a)
    assert np.asarray(xp.all(x, axis=1)).tolist() == [False, True]
    assert bool(xp.any(x))
    assert np.asarray(xp.any(xp.zeros((0,)))).tolist() is False
    np.testing.assert_array_equal(np.asarray(xp.diff(x)), np.diff(a))
    np.testing.assert_array_equal(np.asarray(xp.diff(x, axis=0, n=1)), np.diff(a, axis=0))
    np.testing.assert_array_equal(np.asarray(xp.diff(x, n=2, prepend=xp.asarray([[0], [0]]))),
                                  np.diff(a, n=2, prepend=[[0], [0]]))
