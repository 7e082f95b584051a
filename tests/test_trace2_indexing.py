"""Basic reads that take the whole array to a new shape (`c2[None, :]`, `lab[:, None]`) bind
slice_read's one reshape at once from their memoized plan (`_indexing._whole_reshape`): the same
nodes as the general path (`slice_read` of the key's plan, with ops.reshape's rewrites of a
pending reshape or broadcast), and numpy's values in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _indexing
from lazyarray import _ops as ops
from lazyarray._array_object import Array, strides_of
from lazyarray._basic_indexing import expand, plan, slice_read

pytestmark = pytest.mark.usefixtures("both_tiers")

KEYS = {  # shape -> keys
    (5,): [(None, slice(None)), (slice(None), None), None, (None, None), (slice(None),),
           (slice(0, 5), None), (slice(None, None, 1), None)],
    (3, 4): [(slice(None), None), (None, slice(None), slice(None)), (slice(None), slice(None), None),
             (slice(None), None, slice(None)), (slice(None), slice(None))],
    (1, 4): [0, (0, slice(None)), (0, None), (slice(None), None, slice(None)), -1],
    (0, 3): [(slice(None), None), (None,)],
}


def _general(x, key):
    """What the general path reads for a basic key: slice_read of the key's plan."""
    node = x._node
    items = expand(key, len(node.shape))
    axes, out_shape, _ = plan(node.shape, items, strides_of(x))
    return Array._wrap(slice_read(node, axes, out_shape), x._device)


def _operands(a_np):
    """(array, its numpy value), left pending (a read would realize it into a leaf): a leaf, a
    pending elementwise node, a pending reshape, a pending broadcast, a transposed view."""
    yield xp.asarray(a_np), a_np
    yield xp.asarray(a_np) * 2.0, a_np * 2.0
    yield xp.reshape(xp.asarray(a_np.ravel()) + 1.0, a_np.shape), a_np + 1.0
    yield xp.broadcast_to(xp.asarray(a_np[:1]) - 1.0, a_np.shape), np.broadcast_to(a_np[:1] - 1.0, a_np.shape)
    if a_np.ndim == 2 and a_np.shape[0] > 1:
        yield (xp.asarray(np.ascontiguousarray(a_np.T)) * 3.0).T, a_np * 3.0


@pytest.mark.parametrize("shape", list(KEYS))
def test_whole_array_reads_record_the_general_nodes_and_numpy_values(shape):
    a_np = np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape) - 2.5
    for key in KEYS[shape]:
        for first in (True, False):  # a plan made at this call, then the memoized one
            if first:
                _indexing._read_plans.clear()
            for x, x_np in _operands(a_np):
                assert x._node.op is None or x._node.comp is not None  # (pending, or a leaf)
                want_np = x_np[key]
                got, ref = x[key], _general(x, key)
                assert got.shape == want_np.shape
                assert xp.graph_text(got) == xp.graph_text(ref), (shape, key)
                np.testing.assert_array_equal(np.asarray(got), want_np)


def test_whole_array_read_stays_a_view_both_ways():
    v_np = np.arange(6.0)
    v = xp.asarray(v_np) + 0.0
    col = v[:, None]
    col[2, 0] = -7.0
    v_np[2] = -7.0
    np.testing.assert_array_equal(np.asarray(v), v_np)
    v[4] = 9.0
    v_np[4] = 9.0
    np.testing.assert_array_equal(np.asarray(col), v_np[:, None])


def test_whole_array_read_of_a_reshape_chain_binds_no_new_node():
    x = xp.asarray(np.arange(4.0)) * 2.0
    col = x[:, None]
    assert x[:, None]._node.op is col._node.op
    back = col[:, 0]  # a reshape of a reshape: ops.reshape's rewrite, x's own node
    assert back._node is x._node


def test_bad_keys_keep_their_errors():
    x = xp.asarray(np.arange(4.0)) * 1.0
    with pytest.raises(IndexError):
        x[:, :, None]
    with pytest.raises(IndexError):
        x[:, :, None]  # (a key that raises is never memoized)


@pytest.mark.parametrize("key", [(0, slice(None), None), (0, None, slice(None)), (None, 0)])
def test_reads_of_a_unit_axes_broadcast_keep_the_builders_rewrite(key):
    v_np = np.arange(5.0, dtype=np.float32)
    for first in (True, False):
        if first:
            _indexing._read_plans.clear()
        u = xp.broadcast_to(xp.asarray(v_np) + 1.0, (1, 5))  # a broadcast that only adds a unit axis
        assert u._node.op is ops.BROADCAST_IN_DIM
        got, ref = u[key], _general(u, key)
        assert xp.graph_text(got) == xp.graph_text(ref)
        assert got._node.args[0] is u._node.args[0]  # (ops.reshape reads through the broadcast)
        np.testing.assert_array_equal(np.asarray(got), (v_np + 1.0)[None, :][key])
