"""Session 14: the interpreter's first run reads a Python int leaf (a start index, most often) as
the shared read-only value `HostProgram.run` reads (`_interpret.int_value`): values as before, and
an output that is such a value, or a view of it, is handed out as its own writeable copy."""
import numpy as np

from lazyarray import _dtypes as dt
from lazyarray import _interpret
from lazyarray import _ops as ops
from lazyarray._graph import Plan, leaf_from_host


def _run(node):
    plan = Plan([node])
    return _interpret.interpret(plan.order, plan.leaves, [node], plan)[0]


def test_int_leaves_as_start_indices():
    x = np.arange(40.0).reshape(10, 4)
    xl = leaf_from_host(x.copy(), x.shape, dt.float64)
    for i, j in [(1, 2), (9, 3), (-5, 0), (100, -100)]:
        n = ops.dynamic_slice(xl, [leaf_from_host(i, (), dt.int64), leaf_from_host(j, (), dt.int64)], (3, 2))
        lo_i, lo_j = min(max(i, 0), 7), min(max(j, 0), 2)
        np.testing.assert_array_equal(_run(n), x[lo_i:lo_i + 3, lo_j:lo_j + 2])


def test_outputs_made_of_an_int_leaf_are_owned_and_writeable():
    for d in (dt.int64, dt.int32, dt.uint8, dt.float64):
        for node in (ops.reshape(leaf_from_host(7, (), d), (1,)), ops.convert(leaf_from_host(7, (), d), d),
                     ops.broadcast_in_dim(leaf_from_host(7, (), d), (3,), ())):
            got = _run(node)
            assert got.flags.writeable and got.flags.owndata
            np.testing.assert_array_equal(got, np.full(node.shape, 7, d.np))
            got[...] = 1  # (the user's copy: the shared value stays 7)
        again = _run(ops.reshape(leaf_from_host(7, (), d), (1,)))
        assert again[0] == 7
    assert not _interpret.int_value(leaf_from_host(7, (), dt.int64)).flags.writeable
