"""The compiled float32 exp (`real_math._exp32`): within 1 ulp of the exact value over evenly
spaced bit patterns of its whole finite range, exact overflow and underflow bounds, NaN kept as
given, and the scaling by 2^-64 below x = -86.5 exact where the result is normal.

The reference is numpy's float64 exp (within 1 float64 ulp: far below a float32 ulp). XLA's CPU
flushes subnormal results to zero; where a device keeps them, they may be a rounding of the
exact value instead."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray._ops import real_math


@pytest.fixture(autouse=True)
def _compiled(monkeypatch):
    monkeypatch.setattr(xp.config, "interpret_first", 0)


def _exp(x):
    return np.asarray(xp.exp(xp.asarray(np.asarray(x, np.float32))))


def _error_in_ulp(got, x):
    """|got - e^x| in float32 ulps of e^x (normal results only)."""
    e = np.exp(x.astype(np.float64))
    ulp = np.ldexp(1.0, np.frexp(e)[1] - 24)
    return np.abs(got.astype(np.float64) - e) / ulp


def _bit_range(lo, hi, count):
    """`count` float32 values evenly spaced in bit pattern from lo to hi (same sign)."""
    a, b = (int(np.float32(v).view(np.uint32)) for v in (lo, hi))
    return np.unique(np.linspace(a, b, count).astype(np.uint32)).view(np.float32)


@pytest.mark.parametrize("lo,hi", [(1e-30, 88.72283172607422), (-1e-30, -87.33654)])
def test_within_one_ulp_of_exact(lo, hi):
    x = _bit_range(lo, hi, 400_000)
    err = _error_in_ulp(_exp(x), x)
    assert err.max() < 1.0, (err.max(), x[np.argmax(err)])
    # correctly rounded almost everywhere (98% of a 1/16 sweep of every float32: as the earlier formula)
    assert np.mean(err <= 0.5) > 0.95


def test_dense_near_the_reduction_points():
    """Around multiples of ln 2 / 2, where k changes and r is at its extremes."""
    k = np.arange(-250, 256)
    centre = (k + 0.5) * np.log(2.0) / 1.0
    centre = centre[(centre > -87.3) & (centre < 88.7)]
    x = (centre[:, None] + np.linspace(-1e-4, 1e-4, 201)[None, :]).astype(np.float32).ravel()
    assert _error_in_ulp(_exp(x), x).max() < 1.0


def test_overflow_bound_is_exact():
    top = np.float32(88.72283172607422)  # the largest float32 with a finite e^x
    above = np.nextafter(top, np.float32(np.inf))
    got = _exp([top, above, np.inf, 1e30, np.finfo(np.float32).max])
    assert np.isfinite(got[0]) and got[0] == np.float32(np.exp(np.float64(top)))
    assert np.all(got[1:] == np.inf)


def test_small_results():
    """Below x = -86.5 the exponent is scaled in two steps: exact where the result is normal, 0
    (flushed) or a rounding of the exact subnormal below, 0 at and below -104 and at -inf."""
    x = _bit_range(-86.5, -87.33654, 20_000)
    assert _error_in_ulp(_exp(x), x).max() < 1.0
    tiny = np.linspace(-87.34, -103.9, 5_000).astype(np.float32)
    got = _exp(tiny)
    exact = np.exp(tiny.astype(np.float64))
    keep = got != 0
    assert np.all(np.abs(got[keep] - exact[keep]) <= 2.0 ** -149)  # one subnormal step
    assert np.all(got >= 0)
    assert np.all(_exp([-104.0, -105.0, -1e30, -np.inf, -np.finfo(np.float32).max]) == 0)


def test_nan_is_the_input():
    bits = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FC001FF, 0xFFFFFFFF, 0x7F800001], np.uint32)
    x = bits.view(np.float32)
    got = _exp(x)
    assert np.all(np.isnan(got))
    assert np.array_equal(got.view(np.uint32) & 0xFFBFFFFF, bits & 0xFFBFFFFF)  # payload and sign kept


def test_exact_points():
    assert np.array_equal(_exp([0.0, -0.0, 1e-45, -1e-45]), np.ones(4, np.float32))
    got = _exp(np.arange(-80, 81, dtype=np.float32))
    want = np.exp(np.arange(-80, 81, dtype=np.float64)).astype(np.float32)
    assert np.max(np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32))) <= 1


def test_float32_formula_is_its_own():
    """float32 exp lowers to the float32 formula (no float64 widening, no stablehlo.exponential)."""
    text = xp.stablehlo(xp.exp(xp.asarray(np.linspace(-5, 5, 64, dtype=np.float32))))
    assert "f64" not in text and "stablehlo.exponential" not in text
    assert real_math.F32_OWN["exp"] is real_math._exp32


def test_every_float32_report():
    """benchmarks.precision's every-input sweep (its report's figure), on a sample of its chunks."""
    from benchmarks import precision as P
    out = P.every_float32("exp", step=4096, chunk=1 << 14)
    assert out["inputs"] > 10_000
    assert out["max ulp"] < 1.0 and out["ulp distances 0/1/2/>2"][2:] == [0, 0]


class _NumpyFloat32:
    """`real_math._Builder`'s calls that `_exp32` makes, on numpy arrays (IEEE float32, no flush of
    subnormals, no fused multiply-add): the formula itself run where subnormal results are kept,
    as on a device that does not flush them."""

    def __init__(self, x):
        self.dtype = x.dtype

    @staticmethod
    def _np(dtype):
        return dtype.np if hasattr(dtype, "np") else np.dtype(dtype)

    def c(self, value, dtype=None, use="mul"):
        return self._np(dtype or self.dtype).type(value)

    def _v(self, a, like):
        return like.dtype.type(a) if isinstance(a, (int, float)) else a

    def op(self, op, *args, dtype=None):
        first = next(a for a in args if not isinstance(a, (int, float)))
        args = [self._v(a, first) for a in args]
        from lazyarray._ops.elementwise import MAXIMUM, SHIFT_LEFT
        if op is MAXIMUM:
            return np.maximum(*args)
        if op is SHIFT_LEFT:
            return np.left_shift(*args)
        raise AssertionError(op)

    def add(self, a, b):
        return np.add(*self._pair(a, b))

    def sub(self, a, b):
        return np.subtract(*self._pair(a, b))

    def mul(self, a, b):
        return np.multiply(*self._pair(a, b))

    def neg(self, a):
        return np.negative(a)

    def _pair(self, a, b):
        like = a if not isinstance(a, (int, float)) else b
        return self._v(a, like), self._v(b, like)

    def poly(self, x, coeffs, dtype):
        acc = self.c(coeffs[-1], dtype)
        for c in reversed(coeffs[:-1]):
            acc = self.add(self.mul(acc, x), c)
        return acc

    def bitcast(self, a, dtype):
        return a.view(self._np(dtype))

    def cmp(self, a, b, direction):
        a, b = self._pair(a, b)
        return {"LT": np.less, "GT": np.greater, "NE": np.not_equal}[direction](a, b)

    def select(self, p, a, b):
        like = a if not isinstance(a, (int, float)) else b
        return np.where(p, self._v(a, like), self._v(b, like))


def _formula_in_numpy(x):
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        return real_math._exp32(_NumpyFloat32(x), x)


def test_formula_keeps_subnormals_where_not_flushed():
    """Below x = -86.5 the formula scales in two steps: where subnormals are kept (numpy here, a GPU
    without flush-to-zero), results below 2^-126 are the exact value rounded to the subnormal
    grid (within one step of it), 0 below e^x = 2^-150, and normal results stay within 1 ulp."""
    x = np.linspace(-103.9, -86.0, 200_001).astype(np.float32)
    got = _formula_in_numpy(x)
    exact = np.exp(x.astype(np.float64))
    tiny = exact < 2.0 ** -126
    assert np.all(np.abs(got[tiny].astype(np.float64) - exact[tiny]) <= 2.0 ** -149)
    assert np.count_nonzero(got[tiny]) > 0.9 * np.count_nonzero(exact[tiny] >= 2.0 ** -149)
    assert _error_in_ulp(got[~tiny], x[~tiny]).max() < 1.0
    assert np.all(_formula_in_numpy([-104.0, -1e30, -np.inf]) == 0)


def test_formula_in_numpy_matches_the_compiled_tier():
    """The numpy run of the formula (no fused multiply-add) and the compiled program agree within
    1 ulp over the normal range: the transcription above is the formula the program runs."""
    x = np.concatenate([_bit_range(-1e-30, -87.3, 100_000), _bit_range(1e-30, 88.72283172607422, 100_000),
                        np.float32([88.72283935546875, np.inf, np.nan, 0.0, -0.0])])
    a, b = _formula_in_numpy(x), _exp(x)
    assert np.max(np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32))) <= 1
    assert np.array_equal(np.isinf(a), np.isinf(b)) and np.array_equal(np.isnan(a), np.isnan(b))
