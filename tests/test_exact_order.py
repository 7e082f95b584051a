"""Answers that must be exact where XLA's CPU backend is not: min/max reductions keep NaN (XLA
drops it from about 4096 elements on), and searchsorted, argmax, argmin and count_nonzero tell
subnormals from zero (XLA's float compares treat subnormal inputs as 0). Both tiers, against
numpy."""
import numpy as np
import pytest

import lazyarray as xp


pytestmark = pytest.mark.usefixtures("both_tiers")  # (tests/conftest.py)


def _np(x):
    return np.asarray(x)



@pytest.mark.parametrize("n", [5, 4096, 10001])
@pytest.mark.parametrize("where", ["first", "middle", "last", "none"])
def test_min_max_propagate_nan_at_every_size(n, where):
    """XLA's CPU reduction drops NaN from 4096 elements on."""
    a = np.arange(n, dtype=np.float64)[::-1].copy()
    if where != "none":
        a[{"first": 0, "middle": n // 2, "last": n - 1}[where]] = np.nan
    x = xp.asarray(a)
    for f in ("min", "max"):
        np.testing.assert_array_equal(_np(getattr(xp, f)(x)), getattr(np, f)(a))
        b = np.stack([a, a[::-1]])
        np.testing.assert_array_equal(_np(getattr(xp, f)(xp.asarray(b), axis=1)), getattr(np, f)(b, axis=1))


def _neighbours(dtype):
    """Sorted keys with both zeros, infinities and NaN; queries at each key and its neighbours
    (subnormal ones around 0), plus the smallest subnormals and a negative NaN."""
    x = np.asarray([-np.inf, -1, -0.0, 0, 1, 2, np.inf, np.nan], dtype)
    tiny = np.finfo(dtype).smallest_subnormal
    y = np.concatenate([np.nextafter(x, -np.inf), x, np.nextafter(x, np.inf), [tiny, -tiny, -np.nan]])
    return x, y.astype(dtype), tiny


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_tells_subnormals_from_zero(dtype, side):
    x, y, tiny = _neighbours(dtype)
    np.testing.assert_array_equal(_np(xp.searchsorted(xp.asarray(x), xp.asarray(y), side=side)),
                                  np.searchsorted(x, y, side=side))
    for v in (tiny, -tiny, 0.0, -0.0, np.nan, 1.5):
        assert int(xp.searchsorted(xp.asarray(x), float(v), side=side)) == np.searchsorted(x, dtype(v), side=side)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_argmax_argmin_count_nonzero_tell_subnormals_from_zero(dtype):
    _, y, tiny = _neighbours(dtype)
    cases = [np.asarray(v, dtype) for v in ([0, tiny, 0], [0, -tiny, 0], [-0.0, 0.0], [1, np.nan, 2, np.nan],
                                            [np.inf, -np.inf], [tiny, 2 * tiny, tiny])] + [y]
    for a in cases:
        x = xp.asarray(a)
        assert int(xp.argmax(x)) == np.argmax(a) and int(xp.argmin(x)) == np.argmin(a), a
        assert int(xp.count_nonzero(x)) == np.count_nonzero(a), a
    b = np.random.default_rng(3).random((4, 5)).astype(dtype)
    b[1, 2], b[2] = np.nan, tiny
    np.testing.assert_array_equal(_np(xp.argmax(xp.asarray(b), axis=1)), np.argmax(b, axis=1))
    np.testing.assert_array_equal(_np(xp.argmin(xp.asarray(b), axis=0, keepdims=True)),
                                  np.argmin(b, axis=0, keepdims=True))
    np.testing.assert_array_equal(_np(xp.count_nonzero(xp.asarray(b), axis=0)), np.count_nonzero(b, axis=0))
