"""Session 13: a reshape of a broadcast_in_dim that only adds unit axes in order reshapes the
broadcast's operand (`_ops.shape.reshape`): `broadcast_to(s, (1,))` of a scalar then stretched
by broadcast_to (which reshapes it back to () first) is one broadcast of s. Values against numpy
in both tiers; a broadcast that stretches or reorders axes keeps its node."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _ops as ops

pytestmark = pytest.mark.usefixtures("both_tiers")


def _node(a):
    return xp.asarray(a)._node


def test_unit_broadcast_reshaped_back_is_its_operand():
    s = _node(np.float64(2.5))
    one = ops.broadcast_to(s, (1,))
    assert one.op is ops.BROADCAST_IN_DIM
    assert ops.reshape(one, ()) is s
    stretched = ops.broadcast_to(one, (4,))
    assert stretched.op is ops.BROADCAST_IN_DIM and stretched.args[0] is s
    x = _node(np.arange(6.0).reshape(2, 3))
    u = ops.broadcast_in_dim(x, (2, 1, 3, 1), (0, 2))
    r = ops.reshape(u, (3, 2))
    assert r.op is ops.RESHAPE and r.args[0] is x
    np.testing.assert_array_equal(np.asarray(xp.Array._wrap(r, xp.asarray(1.0).device)),
                                  np.arange(6.0).reshape(3, 2))


def test_stretching_or_reordering_broadcasts_keep_their_node():
    x = _node(np.arange(3.0))
    b = ops.broadcast_in_dim(x, (2, 3), (1,))            # stretches: not a reshape
    assert ops.reshape(b, (6,)).args[0] is b
    y = _node(np.arange(6.0).reshape(2, 3))
    t = ops.broadcast_in_dim(y, (3, 1, 2), (2, 0))       # reorders axes: not a reshape
    r = ops.reshape(t, (6,))
    assert r.args[0] is t
    want = np.broadcast_to(np.arange(6.0).reshape(2, 3).T.reshape(3, 1, 2), (3, 1, 2)).reshape(6)
    np.testing.assert_array_equal(np.asarray(xp.Array._wrap(r, xp.asarray(1.0).device)), want)


@pytest.mark.parametrize("value", [2.5, np.float64(-1.0), "0d", "row"])
def test_masked_scalar_write_values(value):
    x = np.arange(12.0).reshape(6, 2)
    m = np.array([True, False, True, True, False, True])
    v = {"0d": np.float64(7.0), "row": np.array([[3.0, 4.0]])}.get(value, value) if isinstance(value, str) else value
    a = xp.asarray(x) + 0.0
    a[xp.asarray(m)] = xp.asarray(v) if isinstance(v, np.ndarray) else v
    want = x.copy()
    want[m] = v
    np.testing.assert_array_equal(np.asarray(a), want)
