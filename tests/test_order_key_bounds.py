"""`_ops.sort.order_key` keeps its numpy-derived bounds (the bits of +inf, a NaN's key) per dtype:
the formula's graph (`order_key_nodes`, which `order_key`'s one node stands for and is tested
against bit for bit in tests/test_order_key_one_node.py) must be the graph the formula spelled out
with freshly derived bounds builds (the same ops, attributes and constants), and argmin/argmax/sort over NaN, infinities, zeros and subnormals must equal
numpy's in both float dtypes."""
import numpy as np
import pytest

import lazyarray as xp
from graph_compare import same_graph
from lazyarray._ops.elementwise import SUBTRACT, compare, float_bits, select
from lazyarray._ops.shape import constant
from lazyarray._ops.sort import order_key_nodes



def _spelled_out(node, nan):
    bits, magnitude = float_bits(node)
    ity = bits.dtype
    zero = constant(0, ity)
    key = select(compare(bits, zero, "LT"), SUBTRACT(zero, magnitude), magnitude)
    inf_bits = int(np.asarray(np.inf, node.dtype.np).view(ity.np))
    info = np.iinfo(ity.np)
    return select(compare(magnitude, constant(inf_bits, ity), "GT"),
                  constant(int(info.max) if nan == "high" else int(info.min), ity), key)


@pytest.mark.parametrize("dtype", [xp.float32, xp.float64])
@pytest.mark.parametrize("nan", ["high", "low"])
def test_order_key_is_the_spelled_out_formula(dtype, nan):
    x = xp.asarray(np.linspace(-2.0, 2.0, 7), dtype=dtype) * 1.0
    for _ in range(2):  # the second call takes the kept bounds
        assert same_graph(order_key_nodes(x._node, nan=nan), _spelled_out(x._node, nan))


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_arg_extremes_and_sort_over_special_values_equal_numpy(npdt):
    tiny = np.finfo(npdt).smallest_subnormal
    a = np.array([[3.0, -np.inf, tiny, -0.0, np.nan, 0.0],
                  [-tiny, np.inf, 1.0, -1.0, 2.0, np.nan],
                  [0.0, -0.0, tiny, -tiny, 5.0, -5.0]], dtype=npdt)
    x = xp.asarray(a)
    for axis in (None, 0, 1):
        assert np.array_equal(np.asarray(xp.argmin(x, axis=axis)), np.argmin(a, axis=axis))
        assert np.array_equal(np.asarray(xp.argmax(x, axis=axis)), np.argmax(a, axis=axis))
    row = a[2]  # no NaN: every order is defined, -0.0 and 0.0 tie (stable)
    np.testing.assert_array_equal(np.asarray(xp.argsort(xp.asarray(row), stable=True)),
                                  np.argsort(row, kind="stable"))
    assert int(xp.argmin(xp.asarray(row))) == int(np.argmin(row))
