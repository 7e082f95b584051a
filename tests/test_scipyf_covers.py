"""`covers` of the dynamic window ops (`_ops.shape._starts_signed`): signed integer starts only,
and the interpreter's values for dynamic slices and updates against numpy in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray._graph import Node, leaf_from_host
from lazyarray._ops import shape as sh


def _node(op, operand_dtypes, first):
    x = leaf_from_host(None, (6, 4), dt.float64)
    args = [x] + ([leaf_from_host(None, (2, 4), dt.float64)] if first == 2 else [])
    args += [leaf_from_host(None, (), d) for d in operand_dtypes]
    return Node(op, tuple(args), None, (2, 4), dt.float64)


@pytest.mark.parametrize("op,first", [(sh.DYNAMIC_SLICE, 1), (sh.DYNAMIC_UPDATE_SLICE, 2)])
@pytest.mark.parametrize("starts,want", [
    ((dt.int64, dt.int64), True), ((dt.int32, dt.int8), True), ((dt.int64, dt.uint64), False),
    ((dt.uint8, dt.int64), False), ((dt.uint32, dt.uint32), False), ((dt.int16,), True), ((), True)])
def test_starts_signed(op, first, starts, want):
    assert op.covers(_node(op, starts, first)) is want


def test_dynamic_windows_in_both_tiers(both_tiers):
    a = np.arange(24.0).reshape(6, 4)
    x = xp.asarray(a)
    for i in (0, 2, 5, -3):
        np.testing.assert_array_equal(np.asarray(x[i, :]), a[i, :])
        np.testing.assert_array_equal(np.asarray(x[..., i % 4]), a[..., i % 4])
    y = xp.asarray(a)
    y[3, :] = xp.asarray(np.full(4, -1.0))
    want = a.copy()
    want[3, :] = -1.0
    np.testing.assert_array_equal(np.asarray(y), want)
