"""Session 14: a small read of a window (slice, dynamic slice, gather) of a large leaf held on the
host (SciPy's `Z[:, :2]` of a (19, 4) linkage matrix) is computed on the host from the leaf's
value, instead of pushing each element's index down (24 ops at most: it fell back to the engine
after spending them). Values against numpy, in both tiers (the compiled tier never takes this
path)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _host_sync

pytestmark = pytest.mark.usefixtures("both_tiers")

rng = np.random.default_rng(14)

WINDOWS = [
    lambda a: a[:, :2],
    lambda a: a[3:9, 1:3],
    lambda a: a[::3, ::-2],
    lambda a: a[-8:, 3],
]


@pytest.mark.parametrize("window", range(len(WINDOWS)))
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex64, np.bool_])
def test_window_of_a_large_host_leaf(window, dtype, both_tiers):
    v = (rng.standard_normal((19, 4)) * 10).astype(dtype)
    x = xp.asarray(v)
    before = xp.metrics.host_syncs
    got = np.asarray(WINDOWS[window](x))
    np.testing.assert_array_equal(got, WINDOWS[window](v))
    assert got.dtype == v.dtype
    if both_tiers == "interpreted":
        assert xp.metrics.host_syncs == before + 1  # (computed here, not by the engine)


def test_dynamic_window_and_gather_of_a_large_host_leaf(both_tiers):
    v = rng.standard_normal((30, 5))
    x = xp.asarray(v)
    i = xp.asarray(7)                       # a traced start: a dynamic slice
    np.testing.assert_array_equal(np.asarray(x[i:i + 4, 1:]), v[7:11, 1:])
    idx = xp.asarray(np.array([0, 29, 3, 3]))
    np.testing.assert_array_equal(np.asarray(xp.take(x, idx, axis=0)), v[[0, 29, 3, 3]])
    np.testing.assert_array_equal(np.asarray(x[i]), v[7])


def test_window_then_more_ops_and_a_large_pending_operand(both_tiers):
    v = rng.standard_normal((20, 6))
    x = xp.asarray(v)
    w = x[:, :2] * 2.0 + 1.0                # the window, then exact ops on it
    np.testing.assert_array_equal(np.asarray(w), v[:, :2] * 2.0 + 1.0)
    y = x * 3.0                             # a large pending operand: not a host leaf
    np.testing.assert_array_equal(np.asarray(y[:, :2]), (v * 3.0)[:, :2])
    np.testing.assert_array_equal(np.asarray(y), v * 3.0)


def test_host_leaves_of():
    small = xp.asarray(np.ones(3))._node
    big = xp.asarray(np.ones((20, 5)))._node
    pending = (xp.asarray(np.ones((20, 5))) + 1.0)._node
    assert _host_sync._host_leaves_of((big, small), _host_sync.SMALL)
    assert not _host_sync._host_leaves_of((pending, small), _host_sync.SMALL)
    assert _host_sync._host_leaves_of((small,), _host_sync.SMALL)
