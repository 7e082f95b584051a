"""`_ops.slice_` with its decision kept per (operand shape, start, limit, stride)
(`_ops.shape._slice_plan`): the node `SLICE.bind` records, the operand itself for a whole slice,
the rule's errors at every call, and numpy's values in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._graph import leaf_from_host
from lazyarray._ops.shape import SLICE, _slice_attrs
from lazyarray._ops.core import memo

CASES = [  # (shape, start, limit, stride)
    ((64,), (0,), (64,), (9,)),
    ((10,), (2,), (7,), None),
    ((10,), (5,), (3,), None),  # an empty range: limit becomes start
    ((4, 6), (1, 0), (3, 6), (1, 2)),
    ((4, 6), (0, 0), (4, 6), (1, 1)),  # whole
    ((4, 6), (0, 0), (4, 6), None),  # whole
    ((3, 0), (0, 0), (2, 0), None),
    ((5,), [np.int64(1)], [np.int64(4)], [np.int64(2)]),
]


def _reference(x, start, limit, stride):
    """`slice_` as it was: its checks, then SLICE.bind."""
    start, limit = tuple(start), tuple(limit)
    stride = tuple(stride) if stride is not None else (1,) * len(start)
    if start == (0,) * len(start) and limit == x.shape and stride == (1,) * len(start):
        return x
    limit = tuple(max(lo, hi) for lo, hi in zip(start, limit))
    return SLICE.bind((x,), memo(_slice_attrs, (start, limit, stride), SLICE.Attrs))


@pytest.mark.parametrize("shape,start,limit,stride", CASES)
def test_same_node_as_the_bind(shape, start, limit, stride):
    x = leaf_from_host(np.zeros(shape), shape, dt.float64)
    for _ in range(2):  # (the second call finds the kept plan)
        got, want = ops.slice_(x, start, limit, stride), _reference(x, start, limit, stride)
        if want is x:
            assert got is x
            continue
        assert (got.op, got.args, got.attrs, got.shape, got.dtype) == (want.op, want.args, want.attrs, want.shape, want.dtype)


@pytest.mark.parametrize("start,limit,stride", [((0,), (11,), None), ((0, 0), (2, 2), None), ((0,), (4,), (0,))])
def test_bad_slices_raise_every_time(start, limit, stride):
    x = leaf_from_host(np.zeros(10), (10,), dt.float64)
    for _ in range(2):
        with pytest.raises(AssertionError):
            ops.slice_(x, start, limit, stride)


@pytest.mark.usefixtures("both_tiers")
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex64"])
def test_values(dtype, rng):
    a_np = (rng.standard_normal((6, 7)) * 10).astype(dtype)
    a = xp.asarray(a_np) + 0
    np.testing.assert_array_equal(np.asarray(a[1:5:2, ::3]), a_np[1:5:2, ::3])
    np.testing.assert_array_equal(np.asarray(xp.linalg.diagonal(a)), np.diagonal(a_np))
    np.testing.assert_array_equal(np.asarray(xp.linalg.diagonal(a, offset=2)), np.diagonal(a_np, 2))
