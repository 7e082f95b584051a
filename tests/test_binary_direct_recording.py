"""Binary elementwise functions that are one primitive on the promoted operands (add, subtract,
multiply, maximum, minimum, the bitwise and logical ones, nextafter) bind it at once for two
arrays of one dtype, shape and device, or an array and a Python float: the node must be the one
`binary_operands` and the primitive build (same op, shape, dtype, operands in order, the same
shared scalar leaf), values must equal numpy's, and everything else (other shapes, dtypes,
devices, scalar kinds, views) takes the general path with its errors."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _elementwise_functions as ef
from lazyarray._helpers import binary_operands
from lazyarray._ops.elementwise import Elementwise

DIRECT = sorted(name for name, (_, lower, rule) in ef.BINARY.items()
                if isinstance(lower, Elementwise) and rule is None)
DTYPES = [xp.bool, xp.int8, xp.int64, xp.uint16, xp.float32, xp.float64, xp.complex128]
NUMPY = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
         "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}


def _general(name, x1, x2):
    n1, n2, dtype, shape, device = binary_operands(x1, x2, name)
    return ef.BINARY[name][1](n1, n2)


def _same_node(a, b):
    return (a.op is b.op and a.attrs == b.attrs and a.shape == b.shape and a.dtype is b.dtype
            and len(a.args) == len(b.args) and all(x is y for x, y in zip(a.args, b.args)))


def test_the_direct_functions_are_the_expected_ones():
    assert {"add", "subtract", "multiply", "maximum", "minimum"} <= set(DIRECT)
    assert "divide" not in DIRECT and "less" not in DIRECT  # (a conversion rule; attributes)


@pytest.mark.parametrize("name", DIRECT)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_two_arrays_of_one_dtype_and_shape(name, dtype):
    category = ef.BINARY[name][0]
    a = np.array([[1, 0, 3], [2, 5, 0]]).astype(dtype.np)
    b = np.array([[0, 4, 3], [1, 1, 6]]).astype(dtype.np)
    x, y = xp.asarray(a), xp.asarray(b)
    fn = getattr(xp, name)
    if dtype not in dt.CATEGORIES[category]:
        with pytest.raises(TypeError, match=name):
            fn(x, y)
        return
    out = fn(x, y)
    assert _same_node(out._node, _general(name, x, y))
    assert out._node.args == (x._node, y._node)
    with np.errstate(all="ignore"):
        want = NUMPY.get(name, getattr(np, name))(a, b)
    np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("name", DIRECT)
@pytest.mark.parametrize("dtype", [xp.float32, xp.float64, xp.complex128], ids=str)
def test_an_array_and_a_python_float(name, dtype):
    category = ef.BINARY[name][0]
    a = np.array([0.5, -2.0, 3.0]).astype(dtype.np)
    x = xp.asarray(a) * xp.asarray(np.ones(3, dtype.np))  # pending
    s = 1.25
    fn = getattr(xp, name)
    if dtype not in dt.CATEGORIES[category]:
        with pytest.raises(TypeError, match=name):
            fn(x, s)
        return
    out = fn(x, s)
    general = _general(name, x, s)
    assert _same_node(out._node, general)  # the same shared scalar leaf too
    assert out._node.args[1].host is s and out._node.args[1].dtype is dtype
    want = NUMPY.get(name, getattr(np, name))(a, np.asarray(s, dtype.np))
    np.testing.assert_array_equal(np.asarray(out), want)


def test_other_operands_take_the_general_path():
    a = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(a)
    # broadcasting, promotion, a Python int, a float first, a view: values as numpy's
    np.testing.assert_array_equal(np.asarray(xp.maximum(x, xp.asarray(np.arange(3.0)))), np.maximum(a, np.arange(3.0)))
    np.testing.assert_array_equal(np.asarray(xp.add(x, xp.asarray(a, dtype=xp.float32))), a + a.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(xp.multiply(x, 3)), a * 3)
    np.testing.assert_array_equal(np.asarray(xp.subtract(2.5, x)), 2.5 - a)
    np.testing.assert_array_equal(np.asarray(xp.minimum(x[:, 1:], 2.0)), np.minimum(a[:, 1:], 2.0))
    i = xp.asarray(np.arange(3, dtype=np.int8))
    np.testing.assert_array_equal(np.asarray(xp.add(i, 1.5)), np.arange(3, dtype=np.int8) + 1.5)
    with pytest.raises(ValueError):
        xp.add(x, xp.asarray(np.ones(4)))
    with pytest.raises(TypeError):
        xp.maximum(x, 1j)
    with pytest.raises(TypeError):
        xp.add(x, "a")
