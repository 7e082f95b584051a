"""clip's 0-D bounds (Python scalars, 0-D arrays) stay 0-D operands of maximum/minimum, as binary
operands do (no broadcast node each); the values are numpy's in both tiers, NaN from either
side propagates, integer bounds out of range are no bound, and errors are unchanged."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _ops as ops

pytestmark = pytest.mark.usefixtures("both_tiers")

X = np.array([[-3.0, 0.5, np.nan], [2.0, -0.0, 7.5]])


def _np_clip(x, lo, hi):
    # the standard's clip: NaN from either side propagates (numpy's maximum/minimum do)
    out = x
    if lo is not None:
        out = np.maximum(out, lo)
    if hi is not None:
        out = np.minimum(out, hi)
    return out


@pytest.mark.parametrize("lo, hi", [(0.0, 1.0), (None, 1.0), (-1.0, None), (np.nan, None), (None, np.nan),
                                    (np.asarray(0.0), np.asarray(2.0)), (np.array([0.0, 1.0, 2.0]), 3.0),
                                    (0.0, np.array([[1.0], [5.0]]))], ids=str)
def test_values_as_numpy(lo, hi):
    def ours(b):
        return xp.asarray(b) if isinstance(b, np.ndarray) else b
    got = xp.clip(xp.asarray(X) * 1.0, ours(lo), ours(hi))
    want = _np_clip(X, lo, hi)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert got.shape == want.shape


def test_zero_d_bounds_record_no_broadcast():
    x = xp.asarray(X) * 1.0
    out = xp.clip(x, 0.0, xp.asarray(np.float64(1.0)))._node
    assert out.op is ops.MINIMUM and out.args[1].shape == ()
    inner = out.args[0]
    assert inner.op is ops.MAXIMUM and inner.args[1].shape == () and inner.args[0] is x._node


def test_zero_d_x_with_array_bounds():
    x = xp.asarray(np.float64(0.5))
    got = xp.clip(x, xp.asarray(np.array([0.0, 1.0])), 0.75)
    np.testing.assert_array_equal(np.asarray(got), [0.5, 0.75])
    assert float(xp.clip(x, 0.6, 0.7)) == 0.6


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64])
def test_integer_bounds(dtype):
    v = np.array([0, 5, 100], dtype=dtype)
    x = xp.asarray(v)
    np.testing.assert_array_equal(np.asarray(xp.clip(x, 3, 50)), np.clip(v, 3, 50))
    np.testing.assert_array_equal(np.asarray(xp.clip(x, -1000, 1000)), v)  # out of range: no bound
    with pytest.raises(TypeError):
        xp.clip(x, 1.5, None)


def test_errors_unchanged():
    with pytest.raises(TypeError):
        xp.clip(xp.asarray(np.ones(2, np.complex128)), 0.0, 1.0)
    with pytest.raises(TypeError):
        xp.clip(xp.asarray(X), True, None)
    with pytest.raises(TypeError):
        xp.clip(xp.asarray(X), xp.asarray(np.ones(2, np.int64)), None)
    with pytest.raises(ValueError):
        xp.clip(xp.asarray(X), xp.asarray(np.ones(4)), None)
