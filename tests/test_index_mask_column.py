"""`_mask_index`'s mask reads and count-sized writes bind the column of positions, the gather and
the scatter at once (`_mask_index._column`): the nodes `ops.reshape`, `ops.gather_points` and
`ops.scatter_points` bind (the reads and writes themselves are compared node for node with the
general path in tests/test_scipy13_mask_index.py); here the column of positions that are no host
leaf (a device's slice of scattered slots, or a reshape the builder looks through)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _mask_index
from lazyarray import _ops as ops
from lazyarray._array_object import Array

pytestmark = pytest.mark.usefixtures("both_tiers")


def _flats(count):
    """(count,) int64 position nodes of several kinds, with their values."""
    vals = np.arange(count, dtype=np.int64) * 2
    leaf = xp.asarray(vals)._node
    yield leaf, vals
    wide = xp.asarray(np.arange(2 * count + 3, dtype=np.int64) * 2)._node
    yield ops.slice_(wide, (0,), (2 * count,), (2,)), vals * 2      # (the device path's slice)
    yield ops.reshape(xp.asarray(vals.reshape(count, 1))._node, (count,)), vals  # (a reshape)
    yield ops.ADD(leaf, leaf), vals * 2


@pytest.mark.parametrize("count", [1, 3, 8])
def test_column_is_the_builders_reshape(count):
    for flat, vals in _flats(count):
        got, ref = _mask_index._column(flat, count), ops.reshape(flat, (count, 1))
        assert got.shape == (count, 1) and got.dtype is dt.int64
        assert xp.graph_text(Array._wrap(got, xp.asarray(0)._device)) == \
            xp.graph_text(Array._wrap(ref, xp.asarray(0)._device))
        np.testing.assert_array_equal(np.asarray(Array._wrap(got, xp.asarray(0)._device)),
                                      vals.reshape(count, 1))


@pytest.mark.parametrize("shape", [(6,), (6, 3), (6, 2, 2)])
def test_pending_mask_reads_and_count_writes_match_numpy(shape):
    rng = np.random.default_rng(len(shape))
    a = rng.standard_normal(shape)
    for m_np in (rng.random(6) < 0.5, np.ones(6, bool), np.eye(6, dtype=bool)[2]):
        x = xp.asarray(a) * 1.0
        m = xp.asarray(m_np) & True
        np.testing.assert_array_equal(np.asarray(x[m]), a[m_np])
        v = rng.standard_normal((int(m_np.sum()),) + shape[1:])
        x[m] = xp.asarray(v)
        want = a.copy()
        want[m_np] = v
        np.testing.assert_array_equal(np.asarray(x), want)
