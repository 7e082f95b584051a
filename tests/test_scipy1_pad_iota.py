"""Session 14: the interpreter's pad without interior padding copies one window of its operand
into one window of the result (edge padding, cropping, both, on every axis), and a 1-D iota is
numpy's arange as it is; both against the compiled program (tier_check.check) and numpy."""
import numpy as np
import pytest

from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from tier_check import check, compile_always, leaf  # noqa: F401

pytestmark = pytest.mark.usefixtures("compile_always")

EDGES = [
    ((2,), (3,)), ((0,), (0,)), ((-2,), (1,)), ((3,), (-4,)), ((-6,), (0,)), ((0,), (-6,)),
    ((-3,), (-3,)), ((-7,), (2,)), ((8,), (-9,)),
]


@pytest.mark.parametrize("low,high", EDGES)
@pytest.mark.parametrize("d", [dt.bool, dt.int32, dt.float64, dt.complex64], ids=str)
def test_edge_pad_1d(low, high, d):
    x = (np.arange(6) % 5 + 1).astype(d.np)
    check(ops.pad(leaf(x), leaf(np.asarray(x[2])), low, high))
    if min(low + high) >= 0:  # (numpy's pad for the growing cases)
        got = ops.PAD.evaluate(ops.pad(leaf(x), leaf(np.asarray(x[0])), low, high), x, np.asarray(x[0]))
        np.testing.assert_array_equal(got, np.pad(x, (low[0], high[0]), constant_values=x[0]))


@pytest.mark.parametrize("low,high", [((1, -1, 2), (-1, 2, 0)), ((0, 0, -4), (0, 0, 0)),
                                      ((-1, -2, -3), (-1, -1, -1)), ((2, 0, 1), (0, 3, 1)),
                                      ((0, -2, 0), (0, -1, 0))])
def test_edge_pad_3d(low, high):
    x = np.arange(24.0).reshape(2, 3, 4) - 7.5
    check(ops.pad(leaf(x), leaf(np.asarray(-0.0)), low, high))


def test_interior_pad_still_general():
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    check(ops.pad(leaf(x), leaf(np.asarray(np.int16(9))), (1, -1), (0, 2), (1, 0)))
    check(ops.pad(leaf(x), leaf(np.asarray(np.int16(9))), (0, 0), (0, 0), (0, 2)))


@pytest.mark.parametrize("n", [0, 1, 7, 300])
@pytest.mark.parametrize("d", [dt.int32, dt.int64, dt.uint8, dt.float32, dt.float64, dt.complex128], ids=str)
def test_iota(n, d):
    check(ops.iota((n,), 0, d))
    check(ops.iota((3, n), 1, d))
    got = ops.IOTA.evaluate(ops.iota((n,), 0, d))
    assert got.dtype == d.np and got.flags.c_contiguous and got.flags.writeable
    np.testing.assert_array_equal(got, np.arange(n).astype(d.np))
