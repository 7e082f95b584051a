"""numpy and jax on the other side: every operator, both orders, gives a lazyarray array with
numpy's values; jax takes our arrays."""
import operator

import numpy as np
import pytest

import lazyarray as xp

FLOAT_OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
             operator.floordiv, operator.mod, operator.lt, operator.le, operator.gt, operator.ge,
             operator.eq, operator.ne]
INT_OPS = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


@pytest.mark.parametrize("op", FLOAT_OPS + [operator.matmul], ids=lambda f: f.__name__)
@pytest.mark.parametrize("numpy_first", [False, True])
def test_float_operators_with_numpy_arrays(op, numpy_first):
    a = np.array([[1.5, 2.0], [3.0, -4.0]])
    n = np.array([[2.0, 0.5], [1.0, 3.0]])
    x = xp.asarray(a)
    got = op(n, x) if numpy_first else op(x, n)
    want = op(n, a) if numpy_first else op(a, n)
    assert isinstance(got, type(x))
    np.testing.assert_allclose(np.asarray(got), want)


@pytest.mark.parametrize("op", INT_OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("numpy_first", [False, True])
def test_integer_operators_with_numpy_arrays(op, numpy_first):
    a = np.array([1, 6, 3], dtype=np.int64)
    n = np.array([2, 1, 0], dtype=np.int64)
    x = xp.asarray(a)
    got = op(n, x) if numpy_first else op(x, n)
    want = op(n, a) if numpy_first else op(a, n)
    assert isinstance(got, type(x))
    np.testing.assert_array_equal(np.asarray(got), want)


def test_numpy_array_keeps_its_dtype_in_promotion():
    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    assert (x + np.ones(2, dtype=np.float64)).dtype == xp.float64
    assert (x * np.float64(2.0)).dtype == xp.float32  # numpy scalars are weak, as Python's


def test_in_place_operator_with_numpy_array():
    x = xp.zeros(3)
    x += np.arange(3.0)
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0])


def test_numpy_ufunc_on_our_array_gives_numpy():
    x = xp.asarray([0.0, 1.0])
    np.testing.assert_allclose(np.exp(x), np.exp([0.0, 1.0]))


def test_jax_takes_our_arrays():
    jnp = pytest.importorskip("jax.numpy")
    x = xp.asarray([1.0, 2.0, 3.0])
    y = jnp.asarray(x)
    np.testing.assert_array_equal(np.asarray(y), [1.0, 2.0, 3.0])
    z = xp.asarray(np.asarray(y))
    assert float(xp.sum(z)) == 6.0
