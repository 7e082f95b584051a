"""where(cond, python_scalar, x): the mirror of where's fast path (SciPy's `xp.where(mask, xp.nan, x)`)
binds the general path's node: a select of the condition, a 0-D leaf of x's dtype and x."""
import math

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _searching_functions as sf

pytestmark = pytest.mark.usefixtures("both_tiers")


def _general(cond, s, x):
    """where through the general path: a 0-D array of x's dtype as x1 (no fast block takes it)."""
    return xp.where(cond, xp.asarray(s, dtype=x.dtype), x)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("scalar", [math.nan, 2.5, -3, 0])
def test_where_scalar_first(dtype, scalar):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 5)).astype(dtype)
    m = a.real > 0
    x, cond = xp.asarray(a), xp.asarray(m)
    got = xp.where(cond, scalar, x)
    node = got._node
    ref = _general(cond, scalar, x)._node
    # (before any read: a read realizes the nodes in place)
    assert node.op is ref.op and node.dtype is ref.dtype and node.shape == ref.shape
    assert [a.shape for a in node.args] == [a.shape for a in ref.args]
    assert node.args[0] is ref.args[0] and node.args[2] is ref.args[2]
    assert node.args[1].dtype is ref.args[1].dtype
    np.testing.assert_array_equal(np.asarray(node.args[1].host), np.asarray(ref.args[1].host))
    want = np.where(m, np.asarray(scalar, dtype=dtype), a)
    assert got.dtype == x.dtype and got.shape == a.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_where_scalar_first_others_unchanged():
    m = np.array([True, False, True])
    x = xp.asarray(np.array([1, 2, 3], dtype=np.int32))
    got = xp.where(xp.asarray(m), 7, x)  # an integer x: the general path
    np.testing.assert_array_equal(np.asarray(got), np.where(m, np.int32(7), np.array([1, 2, 3], np.int32)))
    assert got.dtype == xp.int32
    xf = xp.asarray(np.array([1.0, 2.0, 3.0]))
    got = xp.where(xp.asarray(m), 1.5, xf[None, :] * xp.ones((2, 1)))  # broadcast: general path
    assert got.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(got), np.where(m, 1.5, np.ones((2, 1)) * [1.0, 2.0, 3.0]))
    with pytest.raises(TypeError):
        xp.where(xp.asarray(np.array([1, 0, 1])), 1.5, xf)  # a non-bool condition
    got = xp.where(xp.asarray(m), True, xf)  # a bool scalar: the general path
    np.testing.assert_array_equal(np.asarray(got), np.where(m, 1.0, [1.0, 2.0, 3.0]))


def _same_graph(a, b):
    """The same ops, attributes, shapes and dtypes down to the same leaves."""
    if a.op is None or b.op is None:
        assert a is b
        return
    assert a.op is b.op and a.attrs == b.attrs and a.shape == b.shape and a.dtype is b.dtype
    assert len(a.args) == len(b.args)
    for p, q in zip(a.args, b.args):
        _same_graph(p, q)


@pytest.mark.parametrize("cshape,shape", [((6, 1), (6, 4)), ((1,), (4,)), ((1, 3, 1), (2, 3, 5)), ((1, 1), (0, 3))])
def test_where_stretched_condition(cshape, shape):
    """A condition with unit axes next to two arrays of one longer shape: the general path's
    broadcast of the condition and its select (compared node by node with a 0-D-free general call)."""
    rng = np.random.default_rng(2)
    m = rng.normal(size=cshape) > 0
    a, b = rng.normal(size=shape), rng.normal(size=shape)
    cond, x1, x2 = xp.asarray(m), xp.asarray(a), xp.asarray(b)
    got = xp.where(cond, x1, x2)
    node = got._node
    # the general path: x2 given as a view (not a plain Array), so no fast block takes the call
    ref = xp.where(cond, x1, x2[...])._node
    assert node.shape == shape
    if 0 not in shape:  # (an empty view reads as a new node: no common leaf to compare)
        _same_graph(node, ref)
    np.testing.assert_array_equal(np.asarray(got), np.where(m, a, b))


def test_where_stretched_condition_others():
    m = np.array([[True], [False]])
    a = np.arange(6.0).reshape(2, 3)
    # dtypes differ: the general path's promotion
    got = xp.where(xp.asarray(m), xp.asarray(a), xp.asarray(a.astype(np.float32)))
    assert got.dtype == xp.float64
    np.testing.assert_array_equal(np.asarray(got), np.where(m, a, a))
    # a condition that does not broadcast: the general path's error
    with pytest.raises(ValueError):
        xp.where(xp.asarray(np.ones((3, 1), bool)), xp.asarray(a), xp.asarray(a))
