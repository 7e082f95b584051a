"""Searching functions against numpy: argmax/argmin (first occurrence, NaN wins), nonzero,
count_nonzero, searchsorted (both sides, sorter, NaN, scalars) and where (with scalars)."""
import numpy as np
import pytest

import lazyarray as xp

F = np.array([[1.0, np.nan, 3, 3, np.nan], [5, 2, 2, -np.inf, -np.inf], [0.0, -0.0, 7, 7, 1]])
I8 = np.array([[1, 7, 7, -3], [0, 0, -3, -3]], dtype=np.int8)


@pytest.mark.parametrize("fname", ["argmax", "argmin"])
@pytest.mark.parametrize("a", [F, I8, I8.astype(np.uint32), F[1:]], ids=["nan", "int8", "uint32", "inf"])
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin(fname, a, axis, keepdims):
    out = getattr(xp, fname)(xp.asarray(a), axis=axis, keepdims=keepdims)
    expected = getattr(np, fname)(a, axis=axis, keepdims=keepdims)
    assert out.dtype == xp.int64
    assert out.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_argmax_bool_and_errors():
    assert int(xp.argmax(xp.asarray([False, True, True]))) == 1
    assert int(xp.argmin(xp.asarray([True, False, False]))) == 1
    with pytest.raises(ValueError):
        xp.argmax(xp.zeros((2, 0)), axis=1)
    with pytest.raises(TypeError):
        xp.argmax(xp.asarray([1j]))


@pytest.mark.parametrize("a", [I8, F, np.array([0, 1j, 0, 2 + 0j]), np.array([[True, False], [True, True]])],
                         ids=["int8", "float", "complex", "bool"])
def test_nonzero(a):
    out = xp.nonzero(xp.asarray(a))
    expected = np.nonzero(a)
    assert isinstance(out, tuple) and len(out) == a.ndim
    for o, e in zip(out, expected):
        assert o.dtype == xp.int64
        np.testing.assert_array_equal(np.asarray(o), e)


def test_nonzero_empty_and_zero_dim():
    out = xp.nonzero(xp.zeros((3, 2)))
    assert [o.shape for o in out] == [(0,), (0,)]
    with pytest.raises(ValueError):
        xp.nonzero(xp.asarray(1.0))


@pytest.mark.parametrize("axis", [None, 0, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_count_nonzero(axis, keepdims):
    for a in (F, I8, np.array([[0, 1j], [0, 0]])):
        out = xp.count_nonzero(xp.asarray(a), axis=axis, keepdims=keepdims)
        expected = np.count_nonzero(a, axis=axis, keepdims=keepdims)
        assert out.dtype == xp.int64
        np.testing.assert_array_equal(np.asarray(out), expected)


S = np.array([-1.0, 2, 2, 3, 5, np.nan])
V = np.array([[-5.0, 2, 2.5], [5, 9, np.nan]])


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("n", [1, 2, 5, 6])
def test_searchsorted(side, n):
    out = xp.searchsorted(xp.asarray(S[:n]), xp.asarray(V), side=side)
    assert out.dtype == xp.int64 and out.shape == V.shape
    np.testing.assert_array_equal(np.asarray(out), np.searchsorted(S[:n], V, side=side))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_sorter_and_scalars(side, rng):
    x1 = rng.permutation(np.arange(20, dtype=np.int32) * 3)
    sorter = np.argsort(x1)
    for v in (0, 7, 9, 100, -1, 9.5):
        out = xp.searchsorted(xp.asarray(x1), v, side=side, sorter=xp.asarray(sorter))
        assert out.shape == ()
        assert int(out) == np.searchsorted(x1, v, side=side, sorter=sorter)


def test_searchsorted_errors():
    with pytest.raises(ValueError):
        xp.searchsorted(xp.zeros((2, 2)), xp.zeros(3))
    with pytest.raises(ValueError):
        xp.searchsorted(xp.zeros(2), xp.zeros(3), side="middle")


def test_where_arrays_and_scalars():
    c = np.array([[True, False, True]])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = xp.where(xp.asarray(c), xp.asarray(a), -1.5)
    assert out.dtype == xp.float32 and out.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(out), np.where(c, a, np.float32(-1.5)))
    out = xp.where(xp.asarray(c), 2, xp.asarray(a[:, :1].astype(np.int16)))
    assert out.dtype == xp.int16
    np.testing.assert_array_equal(np.asarray(out), np.where(c, 2, a[:, :1].astype(np.int16)))
    # two Python scalars: an extension (tests/test_extensions.py), numpy's result
    np.testing.assert_array_equal(np.asarray(xp.where(xp.asarray(c), 1, 2)), np.where(c, 1, 2))
    with pytest.raises(TypeError):
        xp.where(xp.asarray([1, 0]), xp.asarray([1, 2]), 0)
    with pytest.raises(ValueError):
        xp.where(xp.asarray([True, False]), xp.zeros(3), 0.0)


def test_searching_stays_lazy(fresh, rng):
    for _ in range(3):
        x = xp.asarray(rng.standard_normal((8, 5)))
        r = [xp.argmax(x, axis=0), xp.count_nonzero(x > 0), xp.where(x > 0, x, 0.0),
             xp.searchsorted(xp.asarray(np.sort(rng.standard_normal(9))), x)]
        assert all(a._node.op is not None for a in r)  # nothing ran yet
        xp.evaluate(*r)
    assert fresh.compiles == 1 and sum(fresh.syncs.values()) == 3
