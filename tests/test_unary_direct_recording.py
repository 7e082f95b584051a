"""Unary elementwise functions that record one primitive on their operand bind it at once
(`_elementwise_functions._make_unary`'s `direct` table): for every function of the standard and
every dtype, the node recorded must be the general path's (`lower` on the operand: the same
op, attributes, shape and dtype over the same operand), values must equal numpy's, and bad
dtypes must raise the same errors."""
import numpy as np
import pytest

import lazyarray as xp
from graph_compare import same_graph
from lazyarray import _dtypes as dt
from lazyarray import _elementwise_functions as ef

DTYPES = [xp.bool, xp.int8, xp.int32, xp.int64, xp.uint8, xp.uint64, xp.float32, xp.float64,
          xp.complex64, xp.complex128]


@pytest.mark.parametrize("name", sorted(ef.UNARY))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unary_records_the_general_paths_node(name, dtype):
    category, lower = ef.UNARY[name]
    fn = getattr(xp, name)
    values = np.array([[1, 0, 3], [0, 2, 5]]).astype(dtype.np)
    x = xp.asarray(values)
    if dtype not in dt.CATEGORIES[category] and not (category == "floating" and dtype.kind in "biu"):
        with pytest.raises(TypeError, match=name):
            fn(x)
        return
    out = fn(x)
    if dtype in dt.CATEGORIES[category]:
        general = lower(x._node)
        assert same_graph(out._node, general), name
        if ef._single(lower, dtype) is not None:  # the direct path: exactly one new node on x
            assert out._node.args == (x._node,) and out._node.attrs == ()
    numpy_fn = getattr(np, {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
                            "atan": "arctan", "atanh": "arctanh", "bitwise_invert": "invert",
                            "conj": "conjugate"}.get(name, name))
    got = np.asarray(out)
    with np.errstate(all="ignore"):
        if category == "floating" and dtype.kind in "biu":  # (an extension: computed in float32/64)
            expected = numpy_fn(values.astype(got.dtype))
        else:
            expected = numpy_fn(values)
    assert got.shape == expected.shape
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype in (xp.float32, xp.complex64) else 1e-12,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def test_unary_direct_path_on_a_view_and_a_realized_array():
    a = np.linspace(0.1, 2.0, 12).reshape(3, 4)
    x = xp.asarray(a)
    xp.evaluate(x)
    v = x[:, 1:3]  # a view takes the checked path
    np.testing.assert_allclose(np.asarray(xp.exp(v)), np.exp(a[:, 1:3]), rtol=1e-15)
    y = xp.exp(x)  # a realized operand: the node starts a component of its own
    assert y._node.comp is not None
    np.testing.assert_allclose(np.asarray(-y), -np.exp(a), rtol=1e-15)


def test_unary_errors_unchanged():
    with pytest.raises(TypeError):
        xp.exp(np.ones(3))
    with pytest.raises(TypeError, match="negative"):
        xp.negative(xp.asarray([True, False]))
