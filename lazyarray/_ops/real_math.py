"""Real elementwise functions lowered as our own formulas, where XLA's kernels are not within
1 ulp of numpy's (issue 9, item 8; tests/test_precision.py, benchmarks/precision.py).

Measured on XLA CPU (jaxlib 0.10): log10(1000.0) = 2.9999999999999996 (log(x) / ln 10 rounds
twice), log2 inexact at powers of two, atanh up to 127 ulp, sinh/cosh up to 495 ulp (float64),
log1p 103 ulp (float64, near -0.41), expm1 3-4 ulp, tanh 7, acosh 3, float32 exp/log/acos 2-3.
So, for these functions:

- float32 goes through XLA's float64 kernel and rounds once (its float64 error, even hundreds of
  float64 ulp, is far below half a float32 ulp), except exp, which has its own float32 formula
  (hot in models: as fast as XLA's float32 kernel, which is 2-3 ulp off, instead of ~5x its time
  through float64), and log, whose float32 kernel is already within 1 ulp;
- float64 uses formulas built from the kernels XLA gets right (log and sqrt correctly rounded,
  the four operations) and our own exp (Cody-Waite reduction and a polynomial, ~0.6 ulp; XLA's
  is within 1 ulp, which formulas on it would double) that avoid cancellation: log1p with a
  correction term, expm1/sinh/tanh/asinh/acosh with Taylor series near 0, atanh/asinh/acosh
  from log1p, log2/log10 from the exponent plus the log of a mantissa near 1 with the constant
  split in two (exact at every power of 2, and of 10 where numpy is), hypot by power-of-two
  scaling.

Each function is one primitive (`math.<name>`) so the graph stays small and the interpreter tier
evaluates it with numpy's own function. Formulas are emitted with the `_Builder` below.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtypes as dt
from .elementwise import (ABS, ACOS, ACOSH, ADD, AND, ASIN, ASINH, ATANH, BITCAST, CLAMP, CONVERT, COSH,
                          DIVIDE, EXP, EXPM1, FLOOR, IS_FINITE, LOG, LOG1P, MAXIMUM, MULTIPLY, NEGATE, NOT,
                          OR, REMAINDER, ROUND_EVEN,
                          SHIFT_LEFT, SHIFT_RIGHT_ARITHMETIC, SHIFT_RIGHT_LOGICAL, SINH, SQRT, SUBTRACT,
                          TANH, Elementwise, emit_compare, emit_select)

# the constants split in two floats (hi + lo) from 50-digit values
_INV_LN2 = (1.4426950408889634, 2.0355273740931033e-17)
_INV_LN10 = (0.4342944819032518, 1.098319650216765e-17)
_LN2 = (0.6931471805599453, 2.3190468138462996e-17)
_LOG10_2 = (0.30102999566361177, 3.694239077158931e-13)  # hi has 40 bits: e * hi is exact
_SQRT2 = math.sqrt(2.0)
_LN2_CW = (0.6931471805598903, 5.497923018708371e-14)  # hi has 42 bits: k * hi is exact


_BARRIER_ALL = False  # True: a barrier on every float constant (the earlier lowering; tests compare)


def _foldable(value, use):
    """0, +-inf, NaN, and the powers of two as a factor or divisor (`use` "mul"): the constants
    some fold treats as special."""
    value = float(value)
    return not math.isfinite(value) or value == 0.0 or use == "mul" and abs(math.frexp(value)[0]) == 0.5


class _Builder:
    """Elementwise StableHLO on one shape: float64 arithmetic with readable calls."""

    def __init__(self, e, shape):
        self.e, self.shape = e, shape

    def c(self, value, dtype=dt.float64, use="mul"):
        """A constant broadcast to the shape. A float one that a fold could take for an identity
        goes behind an optimization barrier, opaque to the StableHLO -> HLO conversion's folds
        (x + 0.0 => x, ...) and to LLVM's: zero and non-finite values in any arithmetic, powers
        of two as a factor or divisor (`use` "mul", the default; x * 1 => x, x * 2 => x + x,
        x / 2^k => x * 2^-k change NaN bits or what LLVM contracts into a multiply-add). Other
        values, and the constants of comparisons, selects and clamps (`use` None), need none
        (tests/test_barrier_constants.py: the same bits as a barrier on every constant); a
        barrier on each cost logreg's loop program, 17 of them, ~1% of its CPU."""
        v = self.e.constant(value, (), dtype)
        if dtype.kind == "f" and (_BARRIER_ALL or use is not None and _foldable(value, use)):
            v = self.e.op("stablehlo.optimization_barrier", (v,), (), dtype)
        if self.shape:
            v, = self.e.broadcast_scalars((v,), self.shape)
        return v

    def _v(self, x, like, use="mul"):
        if not isinstance(x, (int, float)):
            return x
        return self.c(float(x) if like.dtype.kind == "f" else x, like.dtype, use)

    def op(self, op, *args, dtype=None):
        first = next(a for a in args if not isinstance(a, (int, float)))
        use = None if op is CLAMP else "add" if op in (ADD, SUBTRACT) else "mul"
        args = [self._v(a, first, use) for a in args]
        return self.e.op(op.hlo, args, self.shape, dtype or first.dtype)

    def add(self, a, b):
        return self.op(ADD, a, b)

    def sub(self, a, b):
        return self.op(SUBTRACT, a, b)

    def mul(self, a, b):
        return self.op(MULTIPLY, a, b)

    def div(self, a, b):
        return self.op(DIVIDE, a, b)

    def neg(self, a):
        return self.op(NEGATE, a)

    def abs(self, a):
        return self.op(ABS, a)

    def exp(self, a):
        return self.op(EXP, a)

    def log(self, a):
        return self.op(LOG, a)

    def sqrt(self, a):
        return self.op(SQRT, a)

    def cmp(self, a, b, direction):
        first = a if not isinstance(a, (int, float)) else b
        a, b = self._v(a, first, None), self._v(b, first, None)
        return emit_compare(self.e, a, b, direction)

    def select(self, p, a, b):
        like = a if not isinstance(a, (int, float)) else b
        return emit_select(self.e, p, self._v(a, like, None), self._v(b, like, None))

    def and_(self, a, b):
        return AND.emit(self.e, a, b)

    def or_(self, a, b):
        return OR.emit(self.e, a, b)

    def convert(self, a, dtype):
        return self.e.op(CONVERT.hlo, (a,), self.shape, dtype)

    def bitcast(self, a, dtype):
        return self.e.op(BITCAST.hlo, (a,), self.shape, dtype)

    def mul_split(self, a, const):
        """a * (hi + lo) for a constant split in two: one rounding more precise than a * c."""
        return self.add(self.mul(a, const[0]), self.mul(a, const[1]))

    def poly(self, x, coeffs, dtype=dt.float64):
        """c0 + x * (c1 + x * (c2 + ...)) (Horner)."""
        acc = self.c(coeffs[-1], dtype)
        for c in reversed(coeffs[:-1]):
            acc = self.add(self.mul(acc, x), c)
        return acc

    def isfinite(self, a):
        return self.cmp(self.abs(a), math.inf, "LT")


# ---------------------------------------------------------------- float64 formulas

_EXP = {  # dtype -> (Taylor terms 1/2!.., ln 2 split with k * hi exact, clamp, overflow, underflow, int, bias, mantissa bits)
    dt.float64: ([1.0 / math.factorial(k) for k in range(2, 16)], _LN2_CW, (-746.0, 710.0), 709.8, -745.2,
                 dt.int64, 1023, 52),
}


def _exp(b, x):
    """e^x within ~0.6 ulp (XLA's exp is within 1 (float64) or 3 (float32), which formulas built
    on it would double): x = k ln 2 + r with ln 2 in two parts (Cody-Waite),
    e^r = 1 + (r + r^2 (1/2 + r/6 + ...)) with r's low part kept apart, times 2^k in two exact
    steps (2^k alone may overflow). |r| <= ln 2 / 2: the first term left out is below 1e-19 of 1.
    float64 only (float32: `_exp32`)."""
    terms, ln2, (lo, hi), over, under, ity, bias, mbits = _EXP[x.dtype]
    xc = b.op(CLAMP, lo, x, hi)
    k = b.op(ROUND_EVEN, b.mul(xc, _INV_LN2[0]))
    r_hi = b.sub(xc, b.mul(k, ln2[0]))  # exact
    r_lo = b.neg(b.mul(k, ln2[1]))
    r = b.add(r_hi, r_lo)
    tail = b.add(r_lo, b.mul(b.mul(r, r), b.poly(r, terms, x.dtype)))
    p = b.add(1.0, b.add(r_hi, tail))
    ki = b.convert(k, ity)
    k1 = b.op(SHIFT_RIGHT_ARITHMETIC, ki, 1)
    k2 = b.sub(ki, k1)

    def pow2(n):
        return b.bitcast(b.op(SHIFT_LEFT, b.add(n, bias), mbits), x.dtype)
    out = b.mul(b.mul(p, pow2(k1)), pow2(k2))
    out = b.select(b.cmp(x, over, "GT"), math.inf, out)
    out = b.select(b.cmp(x, under, "LT"), 0.0, out)
    return b.select(b.cmp(x, x, "NE"), x, out)


# float32 exp (hot in models): Q of e^r = 1 + r + r^2 Q(r), minimax for the relative error on
# |r| <= 0.3473 with float32 coefficients (3.2e-9, 0.05 ulp; fit: linear programming on 4,000 points)
_EXP32_Q = [0.4999999403953552, 0.1666652113199234, 0.04166828840970993, 0.00836870539933443,
            0.0013818948063999414]
_EXP32_LN2 = (0.693145751953125, 1.4286067653302226e-06)  # hi has 15 bits: k * hi is exact
_ROUNDER = 12582912.0  # 1.5 * 2^23: v + it rounds v (|v| < 2^22) to an integer, kept in the low bits
_EXP32_OVER = 88.72283172607422  # the largest float32 whose e^x is finite
_EXP32_TINY = -86.5  # from here down 2^k may leave the normal exponents: the scaling takes two steps


def _exp32(b, x):
    """e^x in float32 within 0.88 ulp (XLA's float32 exp is 2-3 ulp off), as `_exp` does in float64:
    x = k ln 2 + r with ln 2 in two parts, e^r = 1 + (r_hi + (r_lo + r^2 Q(r))); fewer operations:
    k by the rounding constant (its bits hold k: no float -> int conversion), 2^k added to the
    exponent bits of e^r (exact while the result is normal; below x = -86.5 the exponent is raised
    by 64 and the product scaled by 2^-64, rounding subnormals once where the device keeps them),
    x clamped below at -104 (every result below rounds to 0) and the overflow set from the bound.
    Every float32 in [-104, 89] checked against float64 exp: max 0.876 ulp, 0.8% one ulp from the
    correctly rounded value, none two (the earlier formula: 0.844 ulp, 880 fewer one ulp off)."""
    f32, i32 = x.dtype, dt.int32
    xc = b.op(MAXIMUM, x, -104.0)
    t = b.add(b.mul(xc, _INV_LN2[0]), _ROUNDER)
    k = b.sub(t, _ROUNDER)  # exact
    r_hi = b.sub(xc, b.mul(k, _EXP32_LN2[0]))  # exact
    r_lo = b.neg(b.mul(k, _EXP32_LN2[1]))
    r = b.add(r_hi, r_lo)
    p = b.add(1.0, b.add(r_hi, b.add(r_lo, b.mul(b.mul(r, r), b.poly(r, _EXP32_Q, f32)))))
    bits = b.add(b.bitcast(p, i32), b.op(SHIFT_LEFT, b.bitcast(t, i32), 23))  # k << 23: t's high bits shift out
    # no barrier on 2^-64: nothing is added to this product, and its operand is never NaN
    tiny = b.mul(b.bitcast(b.add(bits, 64 << 23), f32), b.c(2.0 ** -64, f32, use=None))
    out = b.select(b.cmp(x, _EXP32_TINY, "LT"), tiny, b.bitcast(bits, f32))
    out = b.select(b.cmp(x, _EXP32_OVER, "GT"), math.inf, out)
    return b.select(b.cmp(x, x, "NE"), x, out)


def _log1p(b, x):
    """log(u) - ((u - 1) - x) / u with u = 1 + x: the correction puts back what rounding 1 + x
    lost (first order is enough: it is below one ulp of u)."""
    u = b.add(x, 1.0)
    corr = b.div(b.sub(b.sub(u, 1.0), x), u)
    plain = b.or_(b.cmp(u, 0.0, "EQ"), b.cmp(b.abs(x), 1e300, "GT"))  # -1, +-inf, huge: log(u)
    corr = b.select(plain, 0.0, corr)
    out = b.sub(b.log(u), corr)
    return b.select(b.cmp(x, x, "NE"), x, out)


_EXPM1_TERMS = [1.0 / math.factorial(k) for k in range(1, 26)]  # x * (1 + x/2 + x^2/6 + ...)


def _expm1(b, x):
    """Taylor polynomial for -1 < x < 1.75 (25 terms: the first left out is below 1e-18 of x),
    exp(x) - 1 beyond, where exp(x) and the result mostly share a binade (below -1 the result's
    ulp is larger than exp's), so exp's own error is not magnified."""
    small = b.add(x, b.mul(x, b.mul(x, b.poly(x, _EXPM1_TERMS[1:]))))  # x + x * (x/2 + ...)
    big = b.sub(_exp(b, x), 1.0)
    return b.select(b.and_(b.cmp(x, -1.0, "GT"), b.cmp(x, 1.75, "LT")), small, big)


_SINH_TERMS = [1.0 / math.factorial(2 * k + 1) for k in range(1, 10)]  # x^3/3! ... x^19/19!


def _sinh(b, x):
    ax = b.abs(x)
    x2 = b.mul(x, x)
    small = b.add(x, b.mul(b.mul(x, x2), b.poly(x2, _SINH_TERMS)))
    e = _exp(b, ax)
    mid = b.mul(b.sub(e, b.div(1.0, e)), 0.5)
    h = _exp(b, b.mul(ax, 0.5))  # e^|x| overflows before sinh does: (e^(|x|/2) / 2) * e^(|x|/2)
    large = b.mul(b.mul(h, 0.5), h)
    big = b.select(b.cmp(ax, 709.78, "LT"), mid, large)
    big = b.select(b.cmp(x, 0.0, "LT"), b.neg(big), big)
    return b.select(b.cmp(ax, 1.0, "LT"), small, big)


def _cosh(b, x):
    ax = b.abs(x)
    e = _exp(b, ax)
    mid = b.add(b.mul(e, 0.5), b.div(0.5, e))
    h = _exp(b, b.mul(ax, 0.5))
    large = b.mul(b.mul(h, 0.5), h)
    return b.select(b.cmp(ax, 709.78, "LT"), mid, large)


def _tanh_terms(n):
    """Taylor coefficients of tanh after x: 2^2k (2^2k - 1) B_2k / (2k)! for k = 2..n+1, from
    the Bernoulli numbers (Akiyama-Tanigawa, exact fractions)."""
    from fractions import Fraction
    m = 2 * n + 2
    a, bern = [Fraction(0)] * (m + 1), []
    for i in range(m + 1):
        a[i] = Fraction(1, i + 1)
        for j in range(i, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        bern.append(a[0])
    return [float(4 ** k * (4 ** k - 1) * bern[2 * k] / math.factorial(2 * k)) for k in range(2, n + 2)]


_TANH_TERMS = _tanh_terms(24)  # x^3 ... x^49: the first left out is below 1e-19 of x at 0.625


def _tanh(b, x):
    """Taylor series for |x| < 0.625; 1 - 2 / (e^2|x| + 1) above; +-1 past 40."""
    ax = b.abs(x)
    x2 = b.mul(ax, ax)
    small = b.add(ax, b.mul(b.mul(ax, x2), b.poly(x2, _TANH_TERMS)))
    big = b.sub(1.0, b.div(2.0, b.add(_exp(b, b.mul(ax, 2.0)), 1.0)))
    t = b.select(b.cmp(ax, 0.625, "LT"), small, big)
    t = b.select(b.cmp(ax, 40.0, "GT"), 1.0, t)
    t = b.select(b.cmp(x, 0.0, "LT"), b.neg(t), t)
    return b.select(b.cmp(x, x, "NE"), x, t)


def _atanh(b, x):
    """0.5 * log1p(2a + 2a^2 / (1 - a)) for a = |x| < 0.5, 0.5 * log1p(2a / (1 - a)) above
    (1 - a exact there); the sign put back."""
    a = b.abs(x)
    one_minus = b.sub(1.0, a)
    two_a = b.mul(a, 2.0)
    small = b.add(two_a, b.div(b.mul(two_a, a), one_minus))
    big = b.div(two_a, one_minus)
    r = b.mul(_log1p(b, b.select(b.cmp(a, 0.5, "LT"), small, big)), 0.5)
    r = b.select(b.cmp(x, 0.0, "LT"), b.neg(r), r)
    return b.select(b.cmp(a, 1e-30, "LT"), x, r)  # keeps -0.0, and tiny x


# asinh(x) = x * (1 + sum (-1)^n (2n)! / (4^n (n!)^2 (2n + 1)) x^2n)
_ASINH_TERMS = [(-1) ** n * math.factorial(2 * n) / (4 ** n * math.factorial(n) ** 2 * (2 * n + 1)) for n in range(1, 12)]


def _asinh(b, x):
    """Taylor series for |x| < 0.125, log1p(a + a^2 / (1 + sqrt(1 + a^2))) below 2, then
    log(2a + 1 / (a + sqrt(a^2 + 1))), and log(a) + ln 2 past 2^28."""
    a = b.abs(x)
    a2 = b.mul(a, a)
    series = b.add(a, b.mul(b.mul(a, a2), b.poly(a2, _ASINH_TERMS)))
    small = _log1p(b, b.add(a, b.div(a2, b.add(1.0, b.sqrt(b.add(1.0, a2))))))
    small = b.select(b.cmp(a, 0.125, "LT"), series, small)
    mid = b.log(b.add(b.mul(a, 2.0), b.div(1.0, b.add(a, b.sqrt(b.add(a2, 1.0))))))
    large = b.add(b.log(a), _LN2[0])
    r = b.select(b.cmp(a, 2.0, "LT"), small, b.select(b.cmp(a, 2.0 ** 28, "LT"), mid, large))
    r = b.select(b.cmp(x, 0.0, "LT"), b.neg(r), r)
    return b.select(b.cmp(a, 1e-30, "LT"), x, r)


# acosh(1 + t) = sqrt(2t) * sum (-1)^n (2n)! / (8^n (n!)^2 (2n + 1)) t^n
_ACOSH_TERMS = [(-1) ** n * math.factorial(2 * n) / (8 ** n * math.factorial(n) ** 2 * (2 * n + 1)) for n in range(1, 21)]


def _acosh(b, x):
    """sqrt(2t) times a series in t = x - 1 below 1.25, log1p(t + sqrt(2t + t^2)) below 2,
    log(2x - 1 / (x + sqrt(x^2 - 1))) below 2^28, log(x) + ln 2 above."""
    t = b.sub(x, 1.0)  # exact for x in [1, 2]
    series = b.mul(b.sqrt(b.mul(t, 2.0)), b.add(1.0, b.mul(t, b.poly(t, _ACOSH_TERMS))))
    small = _log1p(b, b.add(t, b.sqrt(b.add(b.mul(t, 2.0), b.mul(t, t)))))
    small = b.select(b.cmp(t, 0.25, "LT"), series, small)
    mid = b.log(b.sub(b.mul(x, 2.0), b.div(1.0, b.add(x, b.sqrt(b.sub(b.mul(x, x), 1.0))))))
    large = b.add(b.log(x), _LN2[0])
    r = b.select(b.cmp(x, 2.0, "LT"), small, b.select(b.cmp(x, 2.0 ** 28, "LT"), mid, large))
    return b.select(b.cmp(x, 1.0, "LT"), math.nan, b.select(b.cmp(x, x, "NE"), x, r))


def _split_exponent(b, x):
    """x = 2^e * m with m in [sqrt(1/2), sqrt(2)), for positive normal x (e as float64)."""
    bits = b.bitcast(x, dt.int64)
    e = b.sub(b.op(SHIFT_RIGHT_LOGICAL, bits, 52), 1023)
    mbits = b.op(OR, b.op(AND, bits, (1 << 52) - 1), 1023 << 52)
    m = b.bitcast(mbits, dt.float64)
    high = b.cmp(m, _SQRT2, "GT")
    m = b.select(high, b.mul(m, 0.5), m)
    e = b.convert(b.select(high, b.add(e, 1), e), dt.float64)
    return e, m


def _positive_normal(b, x):
    return b.and_(b.cmp(x, float(np.finfo(np.float64).tiny), "GE"), b.cmp(x, math.inf, "LT"))


def _log2(b, x):
    e, m = _split_exponent(b, x)
    r = b.add(e, b.mul_split(b.log(m), _INV_LN2))
    return b.select(_positive_normal(b, x), r, b.mul(b.log(x), _INV_LN2[0]))


def _log10(b, x):
    e, m = _split_exponent(b, x)
    small = b.add(b.mul(e, _LOG10_2[1]), b.mul_split(b.log(m), _INV_LN10))
    r = b.add(b.mul(e, _LOG10_2[0]), small)
    return b.select(_positive_normal(b, x), r, b.mul(b.log(x), _INV_LN10[0]))


def _asin(b, x):
    return b.select(b.cmp(b.abs(x), 1e-30, "LT"), x, b.op(ASIN, x))  # XLA: asin(tiny) = 0


def _native(name):
    return lambda b, x: b.op(name, x)


def _hypot(b, x, y):
    ax, ay = b.abs(x), b.abs(y)
    m = b.op(MAXIMUM, ax, ay)
    # scale by a power of two (exact) so the squares neither overflow nor lose bits
    scale = b.select(b.cmp(m, 2.0 ** 500, "GT"), 2.0 ** -600, b.select(b.cmp(m, 2.0 ** -500, "LT"), 2.0 ** 600, b.c(1.0)))
    sx, sy = b.mul(ax, scale), b.mul(ay, scale)
    r = b.div(b.sqrt(b.add(b.mul(sx, sx), b.mul(sy, sy))), scale)
    anyinf = b.or_(b.cmp(ax, math.inf, "EQ"), b.cmp(ay, math.inf, "EQ"))
    return b.select(anyinf, math.inf, r)


def _logaddexp(b, x, y):
    m = b.op(MAXIMUM, x, y)
    d = b.abs(b.sub(x, y))
    out = b.add(m, _log1p(b, _exp(b, b.neg(d))))
    same_inf = b.and_(b.cmp(b.abs(x), math.inf, "EQ"), b.cmp(x, y, "EQ"))
    return b.select(same_inf, x, out)


FORMULAS = {  # name -> (float64 formula, numpy function for the interpreter tier)
    "acos": (_native(ACOS), np.arccos),
    "acosh": (_acosh, np.arccosh),
    "asin": (_asin, np.arcsin),
    "asinh": (_asinh, np.arcsinh),
    "atanh": (_atanh, np.arctanh),
    "cosh": (_cosh, np.cosh),
    "exp": (_native(EXP), np.exp),
    "expm1": (_expm1, np.expm1),
    "log": (_native(LOG), np.log),
    "log1p": (_log1p, np.log1p),
    "log2": (_log2, np.log2),
    "log10": (_log10, np.log10),
    "sinh": (_sinh, np.sinh),
    "tanh": (_tanh, np.tanh),
    "hypot": (_hypot, np.hypot),
    "logaddexp": (_logaddexp, np.logaddexp),
}

def _f64_kernel(name):
    """XLA's float64 kernel (or a plain formula on them) for a float32 function: its float64
    error, even hundreds of float64 ulp, is far below half a float32 ulp, so the result rounds
    to within 1 float32 ulp of the exact value; much cheaper than our float64 formulas."""
    def hypot(b, x, y):
        r = b.sqrt(b.add(b.mul(x, x), b.mul(y, y)))  # no overflow from float32 inputs
        return b.select(b.or_(b.cmp(b.abs(x), math.inf, "EQ"), b.cmp(b.abs(y), math.inf, "EQ")), math.inf, r)

    def logaddexp(b, x, y):
        m = b.op(MAXIMUM, x, y)
        out = b.add(m, b.op(LOG1P, b.exp(b.neg(b.abs(b.sub(x, y))))))
        return b.select(b.and_(b.cmp(b.abs(x), math.inf, "EQ"), b.cmp(x, y, "EQ")), x, out)
    special = {
        "log2": lambda b, x: b.mul(b.log(x), _INV_LN2[0]),
        "log10": lambda b, x: b.mul(b.log(x), _INV_LN10[0]),
        "hypot": hypot, "logaddexp": logaddexp,
    }
    kernels = {"acos": ACOS, "acosh": ACOSH, "asin": ASIN, "asinh": ASINH,
               "atanh": ATANH, "cosh": COSH, "expm1": EXPM1,
               "log1p": LOG1P, "sinh": SINH, "tanh": TANH}
    return special.get(name) or _native(kernels[name])


# XLA's own kernel is within 1 ulp of the exact value for these (measured), so they keep it
NATIVE = {dt.float32: {"log"}, dt.float64: {"acos", "exp", "log"}}
F32_OWN = {"exp": _exp32}  # float32 formulas in float32 (exp is hot: 1.0x XLA's kernel, not 5x through float64)


def uses_formula(name, dtype):
    return name in FORMULAS and dtype in NATIVE and name not in NATIVE[dtype]


def _lower(name, e, shape, dtype, args):
    """Emit function `name` on StableHLO values `args` of float dtype `dtype`."""
    b = _Builder(e, shape)
    if dtype is dt.float64:
        return FORMULAS[name][0](b, *args)
    if name in F32_OWN:
        return F32_OWN[name](b, *args)
    wide = [b.convert(a, dt.float64) for a in args]
    return b.convert(_f64_kernel(name)(b, *wide), dtype)


# ---------------------------------------------------------------- the primitives


def _math_op(name):
    def lower(e, node, *values):
        return _lower(name, e, node.shape, node.dtype, e.broadcast_scalars(values, node.shape))
    fn = FORMULAS[name][1]
    return Elementwise(f"math.{name}", None, lower=lower, evaluate=lambda node, *xs: fn(*xs),
                       covers=lambda node: node.dtype in (dt.float32, dt.float64))


MATH = {name: _math_op(name) for name in FORMULAS}  # name -> its `math.<name>` primitive


def math_function(name, *args):
    """A real elementwise function lowered as our own formula: one node, whose interpreter rule
    is numpy's function."""
    assert args[0].dtype.kind == "f"
    return MATH[name](*args)


# ---------------------------------------------------------------- |z|^2 - 1 of complex log and log1p

_SPLIT_MASK = ~((1 << 27) - 1)  # clears the low 27 bits of a float64: hi keeps 26 significant bits


class _Numpy:
    """The `_Builder` calls on numpy float64 arrays: one formula, written once, that the
    interpreter evaluates op for op as the compiled program does (the same IEEE operations in
    the same order, so the tiers agree bit for bit where XLA does not contract a product into
    an addition; the formula's products are exact, but for the lowest-order square)."""

    add, sub, mul = staticmethod(np.add), staticmethod(np.subtract), staticmethod(np.multiply)

    @staticmethod
    def split(x):
        hi = (x.view(np.int64) & np.int64(_SPLIT_MASK)).view(np.float64)
        return hi, x - hi

    @staticmethod
    def c(value, like):
        return np.float64(value)


class _Emit:
    def __init__(self, b):
        self.b = b
        self.add, self.sub, self.mul = b.add, b.sub, b.mul

    def split(self, x):
        b = self.b
        bits = b.e.op(AND.hlo, (b.bitcast(x, dt.int64), b.c(_SPLIT_MASK, dt.int64)), b.shape, dt.int64)
        hi = b.bitcast(bits, dt.float64)
        return hi, b.sub(x, hi)

    def c(self, value, like):
        return self.b.c(value)


def _norm_minus_one_formula(k, a, b, two_a):
    """2a + a^2 + b^2 (`two_a`) or a^2 + b^2 - 1, with k either `_Numpy` or `_Emit`: each square
    as the exact terms hi^2 and 2 hi lo plus lo^2 (hi the upper 26 bits), the seven terms summed
    with TwoSum (additions only), carrying each addition's rounding error."""
    def square_terms(x):
        hi, lo = k.split(x)
        return [k.mul(hi, hi), k.mul(k.mul(k.c(2.0, x), hi), lo), k.mul(lo, lo)]
    (a2, a1, a0), (b2, b1, b0) = square_terms(a), square_terms(b)
    head = k.mul(k.c(2.0, a), a) if two_a else k.c(-1.0, a)
    terms = [head, a2, b2, a1, b1, a0, b0]
    total, carry = terms[0], None
    for t in terms[1:]:
        s = k.add(total, t)
        back = k.sub(s, total)
        err = k.add(k.sub(total, k.sub(s, back)), k.sub(t, back))
        carry = err if carry is None else k.add(carry, err)
        total = s
    return k.add(total, carry)


def _norm_op(two_a):
    def lower(e, node, a, b):
        a, b = e.broadcast_scalars((a, b), node.shape)
        return _norm_minus_one_formula(_Emit(_Builder(e, node.shape)), a, b, two_a)

    def evaluate(node, a, b):
        a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
        with np.errstate(all="ignore"):
            return np.asarray(_norm_minus_one_formula(_Numpy, a, b, two_a), np.float64)

    name = "math.norm_plus_2a" if two_a else "math.norm_minus_1"
    return Elementwise(name, None, lower=lower, evaluate=evaluate, covers=lambda node: node.dtype is dt.float64)


NORM_MINUS_1, NORM_PLUS_2A = _norm_op(False), _norm_op(True)


def norm_minus_one(a, b, two_a=False):
    """One node for |a + bi|^2 - 1 (or, `two_a`, 2a + a^2 + b^2 = |1 + z|^2 - 1) of float64 nodes,
    right to a few ulp where the terms cancel (next to the unit circle), instead of the ~60
    nodes of its formula: complex log and log1p graphs (SciPy's logsumexp) are recorded,
    keyed and interpreted node by node, so their size is their first call's cost."""
    return (NORM_PLUS_2A if two_a else NORM_MINUS_1)(a, b)


# ---------------------------------------------------------------- float floor_divide and remainder

class _NumpyOps:
    """The calls of `_float_remainder_formula` / `_float_floor_divide_formula` on numpy arrays:
    each the evaluation of the primitive the node-by-node formula would record (fmod for
    stablehlo.remainder, np.where for select, the sign bit read from the bits), so this tier
    computes, value for value, what interpreting those nodes one by one computed."""

    fmod, add, sub, mul, div = (staticmethod(np.fmod), staticmethod(np.add), staticmethod(np.subtract),
                                staticmethod(np.multiply), staticmethod(np.divide))
    floor, abs, neg = staticmethod(np.floor), staticmethod(np.abs), staticmethod(np.negative)
    isfinite, signbit, not_ = staticmethod(np.isfinite), staticmethod(np.signbit), staticmethod(np.invert)
    and_, or_, select = staticmethod(np.bitwise_and), staticmethod(np.bitwise_or), staticmethod(np.where)
    _CMP = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "GT": np.greater}

    def __init__(self, dtype):
        self.np = dtype.np

    def c(self, value):
        return self.np.type(value)

    def cmp(self, a, b, direction):
        return self._CMP[direction](a, b)


class _EmitOps:
    """The same calls on emitter values: the StableHLO the node-by-node formula lowered to."""

    def __init__(self, b, dtype):
        self.b, self.dtype = b, dtype

    def c(self, value):
        return self.b.c(value, self.dtype)

    def fmod(self, a, b): return self.b.op(REMAINDER, a, b)
    def add(self, a, b): return self.b.add(a, b)
    def sub(self, a, b): return self.b.sub(a, b)
    def mul(self, a, b): return self.b.mul(a, b)
    def div(self, a, b): return self.b.div(a, b)
    def floor(self, a): return self.b.op(FLOOR, a)
    def abs(self, a): return self.b.abs(a)
    def neg(self, a): return self.b.neg(a)
    def cmp(self, a, b, direction): return self.b.cmp(a, b, direction)
    def select(self, p, a, b): return self.b.select(p, a, b)
    def and_(self, a, b): return self.b.and_(a, b)
    def or_(self, a, b): return self.b.or_(a, b)
    def not_(self, a): return self.b.e.op(NOT.hlo, (a,), self.b.shape, dt.bool)
    def isfinite(self, a): return self.b.e.op(IS_FINITE.hlo, (a,), self.b.shape, dt.bool)

    def signbit(self, a):
        ity = dt.signed_of_bits(a.dtype.bits)
        return self.b.cmp(self.b.bitcast(a, ity), self.b.c(0, ity), "LT")


def _float_remainder_formula(k, a, b):
    """numpy's remainder of floats (the result takes the divisor's sign) from fmod, with the
    standard's special cases: a zero result takes the divisor's sign (±0 % ±inf too); a finite
    non-zero a with an infinite divisor is a when their signs agree, else the divisor."""
    zero = k.c(0.0)
    r = k.fmod(a, b)
    fix = k.and_(k.cmp(r, zero, "NE"), k.cmp(k.cmp(r, zero, "LT"), k.cmp(b, zero, "LT"), "NE"))
    r = k.select(fix, k.add(r, b), r)
    rz = k.cmp(r, zero, "EQ")
    mag = k.abs(zero)
    r = k.select(rz, k.select(k.signbit(b), k.neg(mag), mag), r)
    binf = k.and_(k.and_(k.cmp(k.abs(b), k.c(math.inf), "EQ"), k.isfinite(a)), k.cmp(a, zero, "NE"))
    same = k.cmp(k.cmp(a, zero, "LT"), k.cmp(b, zero, "LT"), "EQ")
    return k.select(binf, k.select(same, a, b), r)


def _float_floor_divide_formula(k, a, b):
    """numpy's floor division of floats (from fmod, so that floor_divide(a, b) * b +
    remainder(a, b) == a), except that b == 0 or a non-finite operand gives a / b itself (±inf,
    NaN, or the signed zero of finite / ±inf), as the standard's special cases say."""
    mod = k.fmod(a, b)
    div = k.div(k.sub(a, mod), b)
    zero = k.c(0.0)
    fix = k.and_(k.cmp(mod, zero, "NE"), k.cmp(k.cmp(b, zero, "LT"), k.cmp(mod, zero, "LT"), "NE"))
    div = k.select(fix, k.sub(div, k.c(1.0)), div)
    fl = k.floor(div)
    gt_half = k.cmp(k.sub(div, fl), k.c(0.5), "GT")
    fl = k.select(gt_half, k.add(fl, k.c(1.0)), fl)
    div_zero = k.cmp(div, zero, "EQ")
    signed_zero = k.mul(zero, k.div(a, b))  # copysign(0, a/b)
    out = k.select(div_zero, signed_zero, fl)
    plain = k.or_(k.cmp(b, zero, "EQ"), k.not_(k.and_(k.isfinite(a), k.isfinite(b))))
    return k.select(plain, k.div(a, b), out)


def _formula_evaluate(formula, node, a, b):
    """The formula's numpy ops, one by one (what interpreting its nodes computed)."""
    with np.errstate(all="ignore"):
        return np.asarray(formula(_NumpyOps(node.dtype), a, b), node.dtype.np)


# The host evaluations below are numpy's own ufunc where it gives the formula's bits: numpy's
# remainder and floor division are computed from fmod by the same steps as the formulas (C's
# npy_divmod), so one ufunc call (~1 us) replaces the formula's ~20 (~35 us a call, in SciPy's
# table). Bit for bit against `_formula_evaluate` on every pair of special values (signed zeros,
# infinities, NaNs with payloads, the extremes, subnormals) and ~1e6 random pairs per float dtype
# (tests/test_scipyf_division.py). Where they differ, the formula's ops are kept: a NaN against a
# NaN (numpy's remainder may keep the other payload: fmod's is the formula's), floor division's
# special cases (b == 0 or a non-finite operand: a / b, the standard's, where numpy's differs),
# and float16's floor division (numpy divides in float32 and rounds once; the formula rounds
# a - mod to float16 first).

def _remainder_evaluate(node, a, b):
    with np.errstate(all="ignore"):
        r = np.remainder(a, b)
        if np.isnan(r).any():  # (a NaN result: where both operands are NaN, fmod's payload)
            both = np.isnan(a) & np.isnan(b)
            if both.any():
                r = np.where(both, np.fmod(a, b), r)
    return np.asarray(r)


def _floor_divide_evaluate(node, a, b):
    if node.dtype is dt.float16:
        return _formula_evaluate(_float_floor_divide_formula, node, a, b)
    with np.errstate(all="ignore"):
        r = np.floor_divide(a, b)
        plain = (b == 0) | ~(np.isfinite(a) & np.isfinite(b))
        if plain.any():
            r = np.where(plain, a / b, r)
    return np.asarray(r)


def _division_op(name, formula, evaluate):
    def lower(e, node, a, b):
        a, b = e.broadcast_scalars((a, b), node.shape)
        return formula(_EmitOps(_Builder(e, node.shape), node.dtype), a, b)

    return Elementwise(name, None, lower=lower, evaluate=evaluate, covers=lambda node: node.dtype.kind == "f")


FLOAT_REMAINDER = _division_op("math.remainder", _float_remainder_formula, _remainder_evaluate)
FLOAT_FLOOR_DIVIDE = _division_op("math.floor_divide", _float_floor_divide_formula, _floor_divide_evaluate)


def float_remainder(a, b):
    """numpy's `a % b` of float nodes (one dtype; equal shapes or a 0-D one) as ONE node, where
    the formula is ~25 nodes (SciPy's quantile computes `jg % 1` and `jg // 1` per method): its
    lowering emits the formula's StableHLO, its interpreter rule runs the formula's numpy ops."""
    return FLOAT_REMAINDER(a, b)


def float_floor_divide(a, b):
    """numpy's `a // b` of float nodes as ONE node (the ~19 of its formula), as `float_remainder`."""
    return FLOAT_FLOOR_DIVIDE(a, b)
