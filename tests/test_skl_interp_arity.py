"""The interpreter calls a step of 3, 4 or 5 operands with explicit arguments (no list built), and
one of more operands with a list: each arity gives numpy's values, node by node (a graph's first
runs) and from its built program (`HostProgram.run`), operands in their order."""
import numpy as np
import pytest

from lazyarray import _dtypes as dt
from lazyarray import _interpret
from lazyarray import _ops as ops
from lazyarray._graph import Plan, leaf_from_host


def _idx(i):
    return leaf_from_host(i, (), dt.int64)


def _cases():
    x2 = np.arange(40.0).reshape(10, 4)
    x3 = np.arange(60.0).reshape(3, 4, 5)
    x4 = np.arange(120.0).reshape(2, 3, 4, 5)
    u3 = -np.ones((1, 2, 3))
    u4 = -np.ones((1, 2, 2, 3))
    c = np.array([True, False, True])
    a, b = np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])

    def leaf(v):
        return leaf_from_host(v, v.shape, dt.from_numpy(v.dtype))

    w3 = x3.copy()
    w3[1:2, 2:4, 1:4] = u3
    w4 = x4.copy()
    w4[1:2, 1:3, 2:4, 0:3] = u4
    return [
        (3, ops.dynamic_slice(leaf(x2), [_idx(2), _idx(1)], (3, 2)), x2[2:5, 1:3]),
        (3, ops.select(leaf(c), leaf(a), leaf(b)), np.where(c, a, b)),
        (4, ops.dynamic_slice(leaf(x3), [_idx(1), _idx(2), _idx(0)], (2, 2, 3)), x3[1:3, 2:4, 0:3]),
        (5, ops.dynamic_update_slice(leaf(x3), leaf(u3), [_idx(1), _idx(2), _idx(1)]), w3),
        (6, ops.dynamic_update_slice(leaf(x4), leaf(u4), [_idx(1), _idx(1), _idx(2), _idx(0)]), w4),
    ]


@pytest.mark.parametrize("case", range(5))
def test_each_arity_node_by_node_and_built(case):
    n, node, want = _cases()[case]
    assert len(node.args) == n
    plan = Plan([node])
    got = _interpret.interpret(plan.order, plan.leaves, [node], plan)[0]  # node by node
    np.testing.assert_array_equal(got, want)
    hp = _interpret.HostProgram(plan, [node])
    hp.build(plan.sig)
    assert [len(m[1]) for m in hp.steps.meta] == [n]
    for _ in range(2):  # the built program's runs
        got = hp.run(Plan([node]), [node])[0]
        np.testing.assert_array_equal(got, want)
        assert got.flags.writeable
