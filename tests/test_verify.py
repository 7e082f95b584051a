"""The op vocabulary (`_ops.OPS`) and the graph verifier (`_verify`): every primitive is one
complete definition, and a node that breaks its primitive's rule is caught at the sync, named."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._graph import bind, toposort
from lazyarray._ops.core import OpDef
from lazyarray._verify import GraphError, verify


def leaf(a):
    return xp.asarray(np.asarray(a))._node


def test_every_primitive_is_one_complete_definition():
    assert len(ops.OPS) >= 60
    for name, op in ops.OPS.items():
        assert op.name == name and callable(op.rule) and callable(op.lower), name
        assert op.rule.__module__.startswith("lazyarray._ops") or type(op).__module__.startswith("lazyarray._ops"), name
    with pytest.raises(AssertionError, match="defined twice"):
        OpDef("add", rule=None, lower=None)


def _graph(*nodes):
    order, leaves = toposort(list(nodes))
    return order, leaves


def test_well_formed_graphs_pass():
    x, i = leaf(np.arange(12.0).reshape(3, 4)), leaf(np.array([[2], [0]]))
    nodes = [
        ops.ADD(x, ops.constant(1.0, dt.float64)), ops.reshape(x, (4, 3)), ops.transpose(x, (1, 0)),
        ops.slice_(x, (0, 1), (3, 4), (2, 2)), ops.reduce(x, (1,), "max"), ops.cumulative(x, 0, "add"),
        ops.dot_general(x, x, (), (), (1,), (1,)), ops.sort([x, ops.iota(x.shape, 1, dt.int64)], 1)[1],
        ops.gather_points(x, i, (0,)), ops.convert(ops.compare(x, x, "LT"), dt.int8),
        ops.argreduce(x, 1, "min"), ops.pad(x, ops.constant(0.0, dt.float64), (1, 0), (0, 2)),
        ops.concatenate([x, x], 0), ops.reverse(x, (0, 1)), ops.math_function("hypot", x, x),
    ]
    verify(*_graph(*nodes))  # raises on the first bad node


@pytest.mark.parametrize("case", ["shape", "dtype", "operands", "attrs", "order"])
def test_broken_nodes_are_caught(case):
    x, y = leaf(np.ones((2, 3))), leaf(np.ones((3, 2), np.float32))
    if case == "shape":  # a reshape that changes the element count
        bad = bind(ops.RESHAPE, (x,), ops.RESHAPE.Attrs((7,)), (7,), dt.float64)
    elif case == "dtype":  # a comparison recorded as float
        bad = bind(ops.COMPARE, (x, x), ops.COMPARE.Attrs("LT"), (2, 3), dt.float64)
    elif case == "operands":  # an add of two dtypes
        bad = bind(ops.ADD, (x, ops.reshape(y, (2, 3))), (), (2, 3), dt.float64)
    elif case == "attrs":  # a contraction over axes of different lengths
        bad = bind(ops.DOT_GENERAL, (x, x), ops.DOT_GENERAL.Attrs((), (), (1,), (0,)), (2, 3), dt.float64)
    else:  # an operand the order does not hold
        inner = ops.NEGATE(x)
        bad = ops.ADD(inner, x)
        order, leaves = _graph(bad)
        with pytest.raises(GraphError, match="does not come before"):
            verify([bad], leaves)
        return
    with pytest.raises(GraphError, match=bad.op.name):
        verify(*_graph(bad))


def test_a_broken_node_fails_its_sync_and_leaves_the_array_readable(monkeypatch):
    """With the verifier on (as in these tests), a bad node raises at the read that computes it."""
    from lazyarray import _config
    if not getattr(_config, "verify", False):
        pytest.skip("the verifier hook is off in this configuration")
    x = xp.asarray(np.ones((2, 3)))
    bad = bind(ops.RESHAPE, (x._node,), ops.RESHAPE.Attrs((7,)), (7,), dt.float64)
    arr = xp.asarray(np.zeros(1))
    arr._rebind(bad)
    with pytest.raises(GraphError):
        np.asarray(arr)
    np.testing.assert_array_equal(np.asarray(x), np.ones((2, 3)))
