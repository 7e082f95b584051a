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


def _wrap_by_builders(node, n):
    """What wrap_negative bound through the builders before binding at once."""
    signed = node.dtype.kind == "i"
    node = ops.convert(node, dt.int64)
    if not signed:
        return node
    neg = ops.compare(node, ops.constant(0, dt.int64), "LT")
    return ops.select(neg, ops.ADD(node, ops.constant(n, dt.int64)), node)


@pytest.mark.parametrize("itype", ["int8", "int32", "int64", "uint8", "uint64"])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_wrap_negative_is_the_builders_select(itype, shape):
    from lazyarray._advanced_indexing import wrap_negative
    rng = np.random.default_rng(3)
    k_np = rng.integers(-7 if itype[0] == "i" else 0, 7, size=shape).astype(itype)
    dev = xp.asarray(0)._device
    for k in (xp.asarray(k_np), xp.asarray(k_np) + xp.asarray(np.zeros((), itype))):
        got, ref = wrap_negative(k._node, 7), _wrap_by_builders(k._node, 7)
        assert xp.graph_text(Array._wrap(got, dev)) == xp.graph_text(Array._wrap(ref, dev))
        want = np.where(k_np < 0, k_np.astype(np.int64) + 7, k_np.astype(np.int64))
        np.testing.assert_array_equal(np.asarray(Array._wrap(got, dev)), want)


@pytest.mark.parametrize("itype", ["int32", "int64", "uint16"])
def test_int_index_reads_and_writes_match_numpy(itype):
    a = np.arange(9.0) - 4.0
    k_np = np.array([0, 8, 3, 3, 5], itype) if itype[0] == "u" else np.array([-1, 0, -9, 4, 4], itype)
    for pending in (False, True):
        k = xp.asarray(k_np)
        if pending:
            k = k + xp.asarray(np.zeros((), itype))
        x = xp.asarray(a) * 1.0
        np.testing.assert_array_equal(np.asarray(x[k]), a[k_np])
        x[k] = 2.5
        x[k[:2]] = xp.asarray(np.array([-1.0, -2.0]))
        want = a.copy()
        want[k_np] = 2.5
        want[k_np[:2]] = [-1.0, -2.0]
        np.testing.assert_array_equal(np.asarray(x), want)
