"""Session 16, issue 11 target 1 (SciPy's table): a basic read of exactly the window a chain of
dynamic_update_slices last wrote is that write's value (`_basic_indexing.last_written`), looking
through writes whose windows are disjoint from the one read (at most LOOK_BACK). SciPy's
false_discovery_control reads `ps[..., j + 1]` right after writing it, ~40 times a call: no
dynamic_slice and reshape for those reads. And a read of the node read last (a small one) by a
recipe seen then is the node bound then (`_last_read`: SciPy's rotations read `matrix[..., 1, 0]`
four times a call). Values are numpy's in both tiers; the read-plan path (`read_by_recipe`) and
the general path (`slice_read`) bind the same nodes."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _basic_indexing as bi
from lazyarray import _ops as ops

pytestmark = pytest.mark.usefixtures("both_tiers")


def _ops_of(a):
    """The op names of the pending graph of a (computed nodes only)."""
    seen, stack, out = set(), [a._node], []
    while stack:
        n = stack.pop()
        if id(n) in seen or n.op is None:
            continue
        seen.add(id(n))
        out.append(n.op.name)
        stack.extend(n.args)
    return sorted(out)


def _cummin_reverse(m, p):
    """false_discovery_control's loop for a namespace without minimum.accumulate."""
    ps = m.asarray(p) * 1.0
    n = ps.shape[-1]
    for j in range(n - 2, -1, -1):
        ps[..., j] = m.minimum(ps[..., j], ps[..., j + 1])
    return ps


def test_reverse_cumulative_minimum_values_and_nodes():
    p = np.random.default_rng(0).uniform(0, 1, 12)
    got = _cummin_reverse(xp, p)
    names = _ops_of(got)
    # each step: one minimum, one update, and one read of ps[..., j] (dynamic_slice + reshape);
    # the read of ps[..., j + 1] is the minimum written the step before
    assert names.count("minimum") == 11
    assert names.count("dynamic_update_slice") == 11
    assert names.count("dynamic_slice") == 11 + 1  # (the first step reads ps[..., n - 1] too)
    np.testing.assert_array_equal(np.asarray(got), np.minimum.accumulate(p[::-1])[::-1])


def test_the_read_is_the_written_node():
    x = xp.asarray(np.arange(6.0)) * 2.0
    v = xp.asarray(np.float64(7.5)) + 0.0
    x[3] = v
    assert x[..., 3]._node is v._node  # (x[3] of a 1-D x is `_indexing._element`'s)
    assert x[3:4]._node.op is ops.RESHAPE and x[3:4]._node.args[0] is v._node
    assert float(x[..., 3]) == 7.5
    np.testing.assert_array_equal(np.asarray(x), [0, 2, 4, 7.5, 8, 10])


def test_window_writes_2d():
    base = np.arange(20.0).reshape(4, 5)
    x = xp.asarray(base) + 0.0
    col = xp.asarray(np.array([10.0, 11.0, 12.0, 13.0])) * 1.0
    x[:, 1] = col
    x[0, 3] = xp.asarray(np.float64(-1.0)) * 1.0   # disjoint from column 1
    got = x[:, 1]
    assert got._node is col._node or (got._node.op is ops.RESHAPE and got._node.args[0] is col._node)
    expected = base.copy()
    expected[:, 1] = [10, 11, 12, 13]
    expected[0, 3] = -1
    np.testing.assert_array_equal(np.asarray(got), expected[:, 1])
    np.testing.assert_array_equal(np.asarray(x[1:3, 1]), expected[1:3, 1])   # overlapping, not equal
    np.testing.assert_array_equal(np.asarray(x), expected)


def test_overlap_is_not_forwarded():
    x = xp.asarray(np.arange(8.0)) + 0.0
    x[2:5] = xp.asarray(np.array([-1.0, -2.0, -3.0])) * 1.0
    r = x[3:6]
    assert "dynamic_slice" in _ops_of(r)
    np.testing.assert_array_equal(np.asarray(r), [-2.0, -3.0, 5.0])


def test_look_back_is_bounded():
    x = xp.asarray(np.arange(10.0)) + 0.0
    first = xp.asarray(np.float64(99.0)) + 0.0
    x[0] = first
    for i in range(1, bi.LOOK_BACK + 2):   # more disjoint writes than looked through
        x[i] = xp.asarray(np.float64(-i)) + 0.0
    r = x[0]
    assert r._node is not first._node
    assert float(r) == 99.0


def test_dynamic_starts_are_not_looked_at():
    x = xp.asarray(np.arange(5.0)) + 0.0
    node = ops.dynamic_update_slice(x._node, (xp.asarray(np.float64(9.0)) + 0.0)._node,
                                    [(xp.asarray(np.int64(2)) + 0)._node])
    assert bi.last_written(node, (1,), (2,)) is None


def test_clamped_update_start():
    x = xp.asarray(np.arange(6.0)) + 0.0
    upd = (xp.asarray(np.array([7.0, 8.0])) * 1.0)._node
    # a start past the end clamps to 4, as the update does
    node = ops.dynamic_update_slice(x._node, upd, [ops.scalar(9, xp.int64)])
    assert bi.last_written(node, (2,), (4,)) is upd
    assert bi.last_written(node, (1,), (4,)) is None


def test_views_and_both_paths_agree():
    base = np.arange(24.0).reshape(2, 3, 4)
    a = xp.asarray(base) + 0.0
    v = xp.asarray(np.array([1.5, 2.5, 3.5])) * 1.0
    a[1, :, 2] = v
    axes, out_shape, _ = bi.plan(a.shape, bi.expand((1, slice(None), 2), 3))
    general = bi.slice_read(a._node, axes, out_shape)
    recipe = bi.read_recipe(a.shape, axes, out_shape)
    fast = bi.read_by_recipe(a._node, recipe, out_shape)
    assert general is fast or (general.op is fast.op and general.args == fast.args)
    view = a[1]
    np.testing.assert_array_equal(np.asarray(view[:, 2]), [1.5, 2.5, 3.5])
    expected = base.copy()
    expected[1, :, 2] = [1.5, 2.5, 3.5]
    np.testing.assert_array_equal(np.asarray(a), expected)


# ---- reads of the node read last by a recipe seen then are the node bound then (`_last_read`)

def test_repeated_reads_are_one_node():
    m = xp.asarray(np.arange(18.0).reshape(2, 3, 3)) * 1.0
    a, b = m[..., 1, 0], m[..., 1, 0]
    assert a._node is b._node
    assert m[..., 0, 1]._node is not a._node
    s = a + b + m[..., 1, 0]
    np.testing.assert_array_equal(np.asarray(s), 3 * np.arange(18.0).reshape(2, 3, 3)[..., 1, 0])


def test_a_write_between_reads_is_seen():
    base = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(base) * 1.0
    first = x[:, 1]
    x[:, 1:3] = xp.asarray(np.full((3, 2), -5.0)) * 1.0   # overlaps: no forwarding either
    again = x[:, 1]
    assert again._node is not first._node
    np.testing.assert_array_equal(np.asarray(first), [-5.0, -5.0, -5.0])   # (a view, as numpy's)
    np.testing.assert_array_equal(np.asarray(again), [-5.0, -5.0, -5.0])


def test_writes_into_a_read_view_leave_the_other_read():
    base = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(base) * 1.0
    v1, v2 = x[:, 0:2], x[:, 0:2]   # two views, one node
    v1 += 1.0                       # a write through v1 into x
    expected = base.copy()
    expected[:, 0:2] += 1.0
    np.testing.assert_array_equal(np.asarray(v2), expected[:, 0:2])
    np.testing.assert_array_equal(np.asarray(x), expected)


def test_only_the_last_small_source_is_held():
    import gc
    import weakref
    x = xp.asarray(np.arange(6.0)) * 1.0
    r = x[1:3]
    source, result = weakref.ref(x._node), weakref.ref(r._node)
    del x, r
    other = xp.asarray(np.arange(4.0)) * 1.0
    other[1:2]                                      # another node read: the first let go
    float(xp.sum(xp.asarray(np.ones(3)) * 2.0))   # (a sync: `_graph.recorded` lets go of pending nodes)
    gc.collect()
    assert source() is None and result() is None
    big = xp.asarray(np.arange(float(bi.SOURCE_MAX + 1))) * 1.0
    assert big[1:3]._node is not big[1:3]._node     # (a large source is never held)


def test_reads_kept_stay_bounded():
    a = xp.asarray(np.arange(200.0)) * 1.0
    for i in range(bi.READS_KEPT + 20):
        a[i:i + 2]
    assert len(bi._last_read[0][1]) <= bi.READS_KEPT
    np.testing.assert_array_equal(np.asarray(a[150:152]), [150.0, 151.0])


def test_a_computed_read_is_still_the_value():
    x = xp.asarray(np.arange(9.0).reshape(3, 3)) * 1.0
    r = x[..., 1, 2]
    assert float(r) == 5.0       # r computed: the node holds its value
    again = x[..., 1, 2]
    assert float(again) == 5.0 and float(x[..., 2, 1]) == 7.0
