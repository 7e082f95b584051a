"""Elementwise primitives: one line each where StableHLO already has numpy's meaning, a short
host evaluation above the line where it does not.

Each constant (ADD, SIN, ...) is an `Elementwise` OpDef: call it on nodes (`ADD(x, y)`) to
trace, `emit` it on emitter values inside another lowering. Operands share one dtype and one
shape, or have shape () and are broadcast when lowered. The result dtype is the operands'
(`same`), bool, their real counterpart (abs, real, imag of complex) or their complex one.

Host evaluations reproduce the compiled program, op by op, in plain IEEE arithmetic: the
compiled tier runs without XLA's algebraic simplifier (_runtime.compile_options) and with float
constants opaque to the StableHLO folds (shape.CONSTANT), so no rewrite such as x / c =>
x * (1 / c), log(exp(x)) => x or x + 0.0 => x changes a compiled value. Where StableHLO differs
from numpy the evaluation says so: integer division by zero gives -1, shifts past the bit width
give 0, maximum/minimum order -0.0 below +0.0, float -> int conversion saturates.
"""
from __future__ import annotations

import operator
from math import copysign

import numpy as np

from .. import _dtypes as dt
from .._graph import bind_pair as _bind_pair
from .core import OpDef, kinds, memo, prepared, same_shape, typed
from .shape import BROADCAST_IN_DIM, CONSTANT, constant


def _same(d, attrs):
    return d


def _bool(d, attrs):
    return dt.bool


def _real(d, attrs):
    return dt.real_of(d) if d.kind == "c" else d


def _complex(d, attrs):
    return dt.complex_of(d)


def _given(d, attrs):
    return attrs[0]


class Elementwise(OpDef):
    __slots__ = ("hlo", "out")

    def __init__(self, name, hlo, *, out=_same, evaluate=None, covers=None, attrs=None, lower=None):
        self.hlo, self.out = hlo, out
        super().__init__(name, rule=self._rule, lower=lower or self._lower, evaluate=evaluate,
                         covers=covers, attrs=attrs)

    def _rule(self, args, attrs):
        d = args[0].dtype
        for a in args:
            if a.dtype is not d:
                raise AssertionError(f"{self.name}: operands of dtypes {[a.dtype.name for a in args]}")
        return same_shape(args), self.out(d, attrs)

    def _lower(self, e, node, *args):
        return e.op(self.hlo, e.broadcast_scalars(args, node.shape), node.shape, node.dtype)

    def __call__(self, *args):
        if len(args) == 2:  # (`bind` with `_rule` inline: most elementwise nodes are binary)
            a, b = args
            d = a.dtype
            if b.dtype is d:
                sa, sb = a.shape, b.shape
                if sa == sb or not sb or not sa:
                    out = self.out
                    return _bind_pair(self, a, b, (), sa or sb, d if out is _same else out(d, ()))
        return self.bind(args)

    def emit(self, e, *values):
        """This op on emitter values, inside another primitive's lowering."""
        shape = same_shape(values)
        return e.op(self.hlo, e.broadcast_scalars(values, shape), shape, self.out(values[0].dtype, ()))


def _numpy(fn):
    """An evaluation that is numpy's function of the operand values (prepared: that function
    itself, so a graph interpreted again calls the ufunc with no frame of ours around it)."""
    return prepared(lambda node: fn)(lambda node, *xs: fn(*xs))


def _not_bool(node):
    return node.args[0].dtype.kind != "b"


# ---------------------------------------------------------------- arithmetic

ADD = Elementwise("add", "stablehlo.add", evaluate=_numpy(np.add), covers=_not_bool)
SUBTRACT = Elementwise("subtract", "stablehlo.subtract", evaluate=_numpy(np.subtract), covers=_not_bool)
# Complex: numpy's (ac - bd) + (ad + bc)i is XLA's formula too (special values included); LLVM may
# fuse one product into the subtraction (FMA), so the tiers can differ in the last bits of a part
# that cancels (README, "Values do not depend on where you read"). Covered so that fft
# convolutions (SciPy's oaconvolve, fftconvolve) never wait for a compile at first sight.
MULTIPLY = Elementwise("multiply", "stablehlo.multiply", evaluate=_numpy(np.multiply), covers=kinds("iufc"))


def _integer_operands(d, a, b):
    """Integer operands broadcast, and the divisor with 0 (and -1, for signed dtypes) replaced
    by 1: numpy then neither divides by zero nor traps at INT_MIN / -1."""
    a, b = np.broadcast_arrays(a, b)
    bad = b == 0
    if d.kind == "i":
        bad |= b == typed(-1, d.np)
    return a, b, np.where(bad, typed(1, d.np), b)


@prepared(lambda node: np.divide if node.dtype.kind in "fc" else None)
def _divide(node, a, b):
    """Integers: truncating division; x / 0 is -1 (all ones for unsigned), INT_MIN / -1 wraps."""
    d = node.dtype
    if d.kind in "fc":
        return np.divide(a, b)
    a, b, safe = _integer_operands(d, a, b)
    q = a // safe if d.kind == "u" else (a - np.fmod(a, safe)) // safe  # exact
    if d.kind == "i":
        q = np.where(b == typed(-1, d.np), np.negative(a), q)
    return np.where(b == 0, typed(-1 if d.kind == "i" else np.iinfo(d.np).max, d.np), q)


# Complex: numpy and XLA both scale the division (Smith's method) but round differently: measured
# on 2,000 random pairs, 37% bit-equal and at most 1.94 eps of the quotient's magnitude apart, and
# NaN/infinity classes equal on every pair of special values (tests/test_interpret_elementwise.py);
# covered so that first sights of complex filter and polynomial code do not wait for a compile.
DIVIDE = Elementwise("divide", "stablehlo.divide", evaluate=_divide, covers=kinds("iufc"))


def _remainder(node, a, b):
    """fmod; for integers x % 0 is x, and x % -1 is 0."""
    d = node.dtype
    if d.kind == "f":
        return np.fmod(a, b)
    a, b, safe = _integer_operands(d, a, b)
    return np.where(b == 0, a, np.fmod(a, safe))


REMAINDER = Elementwise("remainder", "stablehlo.remainder", evaluate=_remainder, covers=kinds("iuf"))


def _power(node, a, b):
    """numpy's power, except where numpy's fast path for an exponent of 0.5 (sqrt, taken by its
    loop for any exponent read with stride 0: a 0-D one, or one broadcast) breaks C's
    pow(-0.0, 0.5) = +0.0 and pow(-inf, 0.5) = +inf. A 0-D operand is passed as it is: numpy
    reads it with stride 0, as it read the broadcast view this took before (the same loop, so
    the same bits: tests/test_interp_ops_fast.py), ~3 us instead of ~25 for a small x ** 2.

    An exponent of exactly 2 (x ** 2, 0-D) is a square, np.square: the same bits as np.power's
    pow(x, 2.0) here (checked on every non-negative and negative float32 and 5e7 random float64,
    NaN payloads included: tests/test_small_host_ops.py), at a multiply's cost instead of pow's
    (5000x50 float64: ~75 vs ~95-180 us)."""
    if b.ndim == 0 and b == 2:
        return np.square(a)
    r = np.power(a, b)
    if b.ndim == 0:
        if b != 0.5:
            return r
        if a.ndim == 0:  # (a 0-D base: the two cases below tested on a Python float, exact for
            # every float dtype: ~2 us against ~6 for the compares and wheres)
            fa = float(a)
            if fa == 0.0:
                return typed(0, node.dtype.np)
            return typed(np.inf, node.dtype.np) if fa == -np.inf else r
        half = True
    else:
        half = b == 0.5
        if not half.any():
            return r
    if r.shape != a.shape:  # (a 0-D base: its tests below broadcast against the exponent's)
        a = np.broadcast_to(a, r.shape)
    r = np.where(half & (a == 0), typed(0, node.dtype.np), r)
    return np.where(half & np.isneginf(a), typed(np.inf, node.dtype.np), r)


def _flush_subnormal(x):
    """x with subnormal values as signed zeros, as XLA's CPU code computes its intermediates."""
    return np.where(np.abs(x) < np.finfo(x.dtype).tiny, x * typed(0, x.dtype), x)


def _complex_power(node, z, w):
    """XLA's complex power, in polar form with subnormal intermediates flushed as its CPU code
    does: |z|^c e^(-d arg z) (cos q + i sin q), q = c arg z + d ln|z| (w = c + di), with
    z^0 = 1 and 0^c = 0 for real c > 0. numpy's own complex power (C's cpow, and repeated
    products for small integral exponents) differs beyond rounding, and in infinity/NaN classes
    on 300 of the 2,916 pairs of special values."""
    z, w = np.broadcast_arrays(z, w)
    a, b, c, d = z.real, z.imag, w.real, w.imag
    r = np.hypot(a, b)
    arg = _flush_subnormal(np.arctan2(b, a))
    coeff = _flush_subnormal(np.power(r, c)) * _flush_subnormal(np.exp(-d * arg))
    q = c * arg + d * np.log(r)
    out = np.empty(z.shape, z.dtype)
    out.real, out.imag = coeff * np.cos(q), coeff * np.sin(q)
    zero = typed(0, z.dtype)
    out = np.where((z == zero) & (c > 0) & (d == 0), zero, out)
    return np.where(w == zero, typed(1, z.dtype), out)


def _power_any(node, a, b):
    return _complex_power(node, a, b) if node.dtype.kind == "c" else _power(node, a, b)


# Complex: `_complex_power` reproduces XLA's formula; measured against XLA CPU on 26,000 random
# pairs (bases over the whole magnitude range, next to 0, 1 and -1; exponents c ~ N(0, 3),
# d 0 or ~ N(0, 1)) within 6.6 eps (complex64) and 8.1 eps (complex128) of
# |result| (1 + |q| + |c ln|z|| + |d arg z|) (the kernels' ulp, scaled by their arguments'
# size; tested with 10), and NaN/infinity classes equal on all pairs and on all 2,916 pairs of
# special values (tests/test_interpret_complex.py).
POWER = Elementwise("power", "stablehlo.power", evaluate=_power_any, covers=kinds("fc"))


def _maxmin(fn, take_neg):
    @prepared(lambda node: None if node.dtype.kind == "f" else fn)  # (zero signs: floats only)
    def evaluate(node, a, b):
        r = fn(a, b)
        if node.dtype.kind == "f" and not r.all():  # (no zero in r: no pair of zeros to fix)
            if type(r) is not np.ndarray:  # (0-D operands: a numpy scalar, its pair of zeros
                # tested on Python floats, exact for every float dtype: ~1.5 us against ~3.5)
                fa, fb = float(a), float(b)
                if fa != 0.0 or fb != 0.0:
                    return r
                sa, sb = copysign(1.0, fa) < 0.0, copysign(1.0, fb) < 0.0
                zero = typed(0, node.dtype.np)
                return -zero if ((sa or sb) if take_neg else (sa and sb)) else zero
            # IEEE: max(-0.0, +0.0) = +0.0 and min = -0.0, whichever comes first
            both = (a == 0) & (b == 0)
            if both.any():
                sa, sb = np.signbit(a), np.signbit(b)
                neg = (sa | sb) if take_neg else (sa & sb)
                zero = typed(0, node.dtype.np)
                r = np.where(both, np.where(neg, -zero, zero), r)
        return r
    return evaluate


MAXIMUM = Elementwise("maximum", "stablehlo.maximum", evaluate=_maxmin(np.maximum, False), covers=kinds("biuf"))
MINIMUM = Elementwise("minimum", "stablehlo.minimum", evaluate=_maxmin(np.minimum, True), covers=kinds("biuf"))
NEGATE = Elementwise("negate", "stablehlo.negate", evaluate=_numpy(np.negative), covers=kinds("iufc"))
# INT_MIN stays INT_MIN; complex -> hypot in the real dtype
ABS = Elementwise("abs", "stablehlo.abs", out=_real, evaluate=_numpy(np.abs), covers=kinds("ifc"))


def _sign(node, x):
    if node.dtype.kind == "i":
        return np.sign(x)
    keep = (x == 0) | np.isnan(x)  # +-0 and NaN come back as they are
    return np.where(keep, x, np.sign(x))


def _round_afz(node, x):
    t = np.trunc(x)
    frac = np.abs(x - t)  # exact
    step = np.where(x < 0, typed(-1, node.dtype.np), typed(1, node.dtype.np))
    return np.where(frac >= typed(0.5, node.dtype.np), t + step, t)


SIGN = Elementwise("sign", "stablehlo.sign", evaluate=_sign, covers=kinds("if"))
FLOOR = Elementwise("floor", "stablehlo.floor", evaluate=_numpy(np.floor), covers=kinds("f"))
CEIL = Elementwise("ceil", "stablehlo.ceil", evaluate=_numpy(np.ceil), covers=kinds("f"))
ROUND_EVEN = Elementwise("round_even", "stablehlo.round_nearest_even", evaluate=_numpy(np.rint), covers=kinds("f"))
ROUND_AFZ = Elementwise("round_afz", "stablehlo.round_nearest_afz", evaluate=_round_afz, covers=kinds("f"))
IS_FINITE = Elementwise("is_finite", "stablehlo.is_finite", out=_bool, evaluate=_numpy(np.isfinite), covers=kinds("f"))

# ---------------------------------------------------------------- bitwise and logical

AND = Elementwise("and", "stablehlo.and", evaluate=_numpy(np.bitwise_and), covers=kinds("biu"))
OR = Elementwise("or", "stablehlo.or", evaluate=_numpy(np.bitwise_or), covers=kinds("biu"))
XOR = Elementwise("xor", "stablehlo.xor", evaluate=_numpy(np.bitwise_xor), covers=kinds("biu"))
NOT = Elementwise("not", "stablehlo.not", evaluate=_numpy(np.invert), covers=kinds("biu"))
CLAMP = Elementwise("clamp", "stablehlo.clamp")  # (lo, x, hi): inside formulas only


def _shift(kind):
    def evaluate(node, a, b):
        npdt = node.dtype.np
        bits = npdt.itemsize * 8
        udt, sdt = np.dtype(f"u{npdt.itemsize}"), np.dtype(f"i{npdt.itemsize}")
        a, b = np.broadcast_arrays(a, b)
        amount = b.view(udt)  # the shift is read as unsigned: negative amounts are huge
        big = amount >= bits
        amount = np.minimum(amount, typed(bits - 1, udt))
        if kind == "arithmetic":  # sign fill, also for unsigned dtypes (the bits as signed)
            return np.right_shift(a.view(sdt), amount.astype(sdt)).view(npdt)
        r = (np.left_shift if kind == "left" else np.right_shift)(a.view(udt), amount)
        return np.where(big, typed(0, udt), r).view(npdt)
    return evaluate


SHIFT_LEFT = Elementwise("shift_left", "stablehlo.shift_left", evaluate=_shift("left"), covers=kinds("iu"))
SHIFT_RIGHT_ARITHMETIC = Elementwise("shift_right_arithmetic", "stablehlo.shift_right_arithmetic",
                                     evaluate=_shift("arithmetic"), covers=kinds("iu"))
SHIFT_RIGHT_LOGICAL = Elementwise("shift_right_logical", "stablehlo.shift_right_logical",
                                  evaluate=_shift("logical"), covers=kinds("iu"))

# ---------------------------------------------------------------- XLA's transcendental kernels
#
# Where the lowering still emits them (sin, cos, tan, atan, atan2, sqrt, float64 exp/log/acos,
# and inside compositions such as _complex_math's). Measured against XLA CPU (jaxlib 0.10) over
# wide sweeps with special values, numpy's function agrees within 4 ulp (outside subnormals) for
# the dtypes each line covers, except log1p f64 (up to 103 ulp near -0.41) and tanh f64 (7 ulp),
# kept so that graphs using them internally stay interpretable. The standard's functions whose
# kernels are further off are `math.<name>` primitives (_ops.math) with our own formulas.

_F32_F64 = (dt.float32, dt.float64)


def _dtypes_in(*dtypes):
    return lambda node: node.args[0].dtype in dtypes


def _kernel(name, hlo, fn, dtypes=_F32_F64):
    return Elementwise(name, hlo, evaluate=_numpy(fn) if dtypes else None,
                       covers=_dtypes_in(*dtypes) if dtypes else None)


EXP, LOG = _kernel("exp", "stablehlo.exponential", np.exp), _kernel("log", "stablehlo.log", np.log)
LOG1P = _kernel("log1p", "stablehlo.log_plus_one", np.log1p)
EXPM1 = _kernel("expm1", "stablehlo.exponential_minus_one", np.expm1, (dt.float64,))
SIN, COS = _kernel("sin", "stablehlo.sine", np.sin), _kernel("cos", "stablehlo.cosine", np.cos)
TAN, TANH = _kernel("tan", "stablehlo.tan", np.tan), _kernel("tanh", "stablehlo.tanh", np.tanh)
def _sqrt(node, x):
    """numpy's sqrt; complex: XLA's kernel reads a -0.0 imaginary part as +0.0 (sqrt(-1 - 0j) is
    +1j there, C's -1j)."""
    if x.dtype.kind == "c":
        x = x + typed(0, x.dtype)  # -0.0 + 0.0 = +0.0 in each part; nothing else changes
    return np.sqrt(x)


# Complex sqrt (inside _complex_math.sqrt, which also fixes its special values): numpy's csqrt
# against XLA's kernel, measured on ~130,000 finite values (magnitudes over the whole range,
# |z| near 0 and 1, next to +-1, mixed scales): within 3 ulp per part (complex64) and 2
# (complex128); on every special value (infinite, NaN, zero, huge, tiny parts) within 1 ulp,
# NaN/infinity classes and zero signs equal (tests/test_interpret_complex.py).
SQRT = Elementwise("sqrt", "stablehlo.sqrt", evaluate=_sqrt,
                   covers=_dtypes_in(*_F32_F64, dt.complex64, dt.complex128))
ACOS, ACOSH = _kernel("acos", "chlo.acos", np.arccos), _kernel("acosh", "chlo.acosh", np.arccosh)
ASIN, ASINH = _kernel("asin", "chlo.asin", np.arcsin), _kernel("asinh", "chlo.asinh", np.arcsinh)
ATAN, ATANH = _kernel("atan", "chlo.atan", np.arctan), _kernel("atanh", "chlo.atanh", np.arctanh, (dt.float32,))
ATAN2 = _kernel("atan2", "stablehlo.atan2", np.arctan2)
NEXTAFTER = _kernel("nextafter", "chlo.next_after", np.nextafter)
# only inside complex compositions, which are compiled
SINH, COSH = _kernel("sinh", "chlo.sinh", None, ()), _kernel("cosh", "chlo.cosh", None, ())

# ---------------------------------------------------------------- complex parts


def _imag(node, x):
    return np.imag(x) if x.dtype.kind == "c" else np.zeros(x.shape, x.dtype)


def _make_complex(node, re, im):
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(node.shape, node.dtype.np)
    out.real, out.imag = re, im
    return out


REAL = Elementwise("real", "stablehlo.real", out=_real, evaluate=_numpy(np.real))
IMAG = Elementwise("imag", "stablehlo.imag", out=_real, evaluate=_imag)
COMPLEX = Elementwise("complex", "stablehlo.complex", out=_complex, evaluate=_make_complex, covers=kinds("f"))

def conj(x):
    """The complex conjugate of node x (x itself for a real dtype)."""
    return COMPLEX(REAL(x), NEGATE(IMAG(x))) if x.dtype.kind == "c" else x


# ---------------------------------------------------------------- compare, select, convert

_COMPARE_TYPE = {"b": "UNSIGNED", "i": "SIGNED", "u": "UNSIGNED", "f": "FLOAT", "c": "FLOAT"}
_COMPARE_FN = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
               "GT": np.greater, "GE": np.greater_equal}


def emit_compare(e, a, b, direction, compare_type=None):
    """stablehlo.compare of emitter values; compare_type defaults to the one of their dtype."""
    shape = same_shape((a, b))
    a, b = e.broadcast_scalars((a, b), shape)
    return e.op("stablehlo.compare", (a, b), shape, dt.bool,
                f"comparison_direction = #stablehlo<comparison_direction {direction}>, "
                f"compare_type = #stablehlo<comparison_type {compare_type or _COMPARE_TYPE[a.dtype.kind]}>")


def _normal_literal(node):
    """Whether node is a scalar constant (broadcast or not) that is not zero or subnormal: a
    subnormal compared with it answers as the zero DAZ reads it as (no float lies between)."""
    if node.op is BROADCAST_IN_DIM:
        node = node.args[0]
    if node.op is not CONSTANT or node.attrs.shape:
        return False
    v = abs(float(np.frombuffer(node.attrs.value, node.attrs.dtype.np)[0]))
    return not v < np.finfo(node.attrs.dtype.np).tiny  # (NaN: True)


# IEEE's answer from the operands' integer keys k (the bits, a negative value's as MIN - bits:
# the value's order, -0 and +0 one key, subnormals apart) and XLA's float compare f, which is
# false on NaN and, flushing monotonically, never contradicts an ordered answer: LT = kLT & fLE
_EXACT = {"LT": ("LE", "AND"), "LE": ("LE", "AND"), "GT": ("GE", "AND"), "GE": ("GE", "AND"),
          "EQ": ("EQ", "AND"), "NE": ("NE", "OR")}


def _lower_compare(e, node, x, y):
    """A real float compare as IEEE's on every value, as numpy's (the interpreter tier): XLA's CPU
    float compare calls subnormal operands zero (DAZ), so a subnormal computed by the interpreter
    and compared by a program read as 0 (SciPy's bracket search then never converged)."""
    direction = node.attrs.direction
    a, b = node.args
    if x.dtype.kind != "f" or a is b or _normal_literal(a) or _normal_literal(b):
        return emit_compare(e, x, y, direction)  # (exact: DAZ cannot change these answers)
    ity = dt.signed_of_bits(x.dtype.bits)
    scalars = (e.constant(0, (), ity), e.constant(int(np.iinfo(ity.np).min), (), ity))
    consts = {(): scalars}
    keys = []
    for v in (x, y):  # (a 0-D operand's key: once, broadcast by the compare)
        zero, low = consts.get(v.shape) or consts.setdefault(v.shape, e.broadcast_scalars(scalars, v.shape))
        bits = e.op("stablehlo.bitcast_convert", (v,), v.shape, ity)
        keys.append(emit_select(e, emit_compare(e, bits, zero, "LT"), SUBTRACT.emit(e, low, bits), bits))
    f, join = _EXACT[direction]
    return (AND if join == "AND" else OR).emit(e, emit_compare(e, *keys, direction), emit_compare(e, x, y, f))


COMPARE = Elementwise(
    "compare", "stablehlo.compare", out=_bool, attrs=("direction",),
    lower=_lower_compare,
    evaluate=prepared(lambda node: _COMPARE_FN[node.attrs.direction])(
        lambda node, a, b: _COMPARE_FN[node.attrs.direction](a, b)),
    covers=lambda node: node.args[0].dtype.kind != "c" or node.attrs.direction in ("EQ", "NE"))


def compare(x, y, direction):
    """direction: EQ, NE, LT, LE, GT, GE."""
    return COMPARE.bind((x, y), COMPARE.Attrs(direction))


def _select_rule(args, attrs):
    p, a, b = args
    if p.dtype is not dt.bool or a.dtype is not b.dtype:
        raise AssertionError(f"select: a bool predicate and two branches of one dtype, got "
                             f"{[x.dtype.name for x in args]}")
    return same_shape(args), a.dtype


def emit_select(e, p, a, b):
    """stablehlo.select of emitter values (0-D operands broadcast)."""
    shape = same_shape((p, a, b))
    p, a, b = e.broadcast_scalars((p, a, b), shape)
    return e.op("stablehlo.select", (p, a, b), shape, a.dtype)


SELECT = OpDef("select", rule=_select_rule, lower=lambda e, node, p, a, b: emit_select(e, p, a, b),
               evaluate=prepared(lambda node: np.where)(lambda node, p, a, b: np.where(p, a, b)))


def select(pred, on_true, on_false):
    return SELECT.bind((pred, on_true, on_false))


def _lower_convert(e, node, x):
    if node.dtype.kind == "b":  # "!= 0" for numbers, spelled so the meaning does not rest on XLA
        return emit_compare(e, x, e.constant(0, (), x.dtype), "NE")
    if x.dtype.kind == "c" and node.dtype.kind != "c":
        x = REAL.emit(e, x)
    return e.op("stablehlo.convert", (x,), node.shape, node.dtype)


def _int_bounds(npdt, float_dtype):
    """(the first too-large value, the lowest value or None when unsigned (below 0 is too small),
    the integer range's ends) of a float -> integer conversion (`core.memo`: np.iinfo ~1 us)."""
    info = np.iinfo(npdt)
    bits = npdt.itemsize * 8
    hi = np.asarray(2.0 ** (bits - 1 if info.min < 0 else bits), float_dtype)
    return hi, np.asarray(info.min, float_dtype) if info.min < 0 else None, info.min, info.max


_int_bounds_memo = {}  # (integer dtype, float dtype) -> `_int_bounds`


def _float_to_int(x, npdt):
    """Truncate toward zero, saturating at the integer range; NaN -> 0."""
    hi, lo, imin, imax = memo(_int_bounds_memo, (npdt, x.dtype), _int_bounds)
    big = x >= hi
    small = x <= lo if lo is not None else x < 0
    bad = big | small | np.isnan(x)
    if not bad.any():  # (every value in range: the wheres below would change nothing)
        return x.astype(npdt)
    out = np.where(bad, typed(0, x.dtype), x).astype(npdt)
    out = np.where(big, typed(imax, npdt), out)
    return np.where(small, typed(imin, npdt), out)


def _prepare_convert(node):
    """`_convert`'s plain case, a cast (`x.astype`), as one C call; the others keep their rules."""
    target, source = node.dtype.kind, node.args[0].dtype.kind
    if target == "b" or (source == "c" and target != "c") or (source == "f" and target in "iu") \
            or (source in "biu" and target == "c"):
        return None
    return operator.methodcaller("astype", node.dtype.np)


@prepared(_prepare_convert)
def _convert(node, x):
    target = node.dtype
    if target.kind == "b":
        return x != 0  # NaN -> True, -0.0 -> False; complex: either part
    if x.dtype.kind == "c" and target.kind != "c":
        x = np.real(x)
    if x.dtype.kind == "f" and target.kind in "iu":
        return _float_to_int(x, target.np)
    if x.dtype.kind in "biu" and target.kind == "c":
        return x.astype(dt.real_of(target).np).astype(target.np)
    return x.astype(target.np)


CONVERT = Elementwise("convert", "stablehlo.convert", out=_given, attrs=("dtype",),
                      lower=_lower_convert, evaluate=_convert)


def convert(x, dtype):
    return x if x.dtype is dtype else CONVERT.bind((x,), memo(_convert_attrs, (dtype,), CONVERT.Attrs))


_convert_attrs = {}  # (dtype,) -> CONVERT's attributes for it (`core.memo`: one object per dtype)


def _same_width(node):
    x = node.args[0].dtype
    return x.kind in "iuf" and node.dtype.kind in "iuf" and x.bits == node.dtype.bits


BITCAST = Elementwise("bitcast", "stablehlo.bitcast_convert", out=_given, attrs=("dtype",),
                      evaluate=lambda node, x: x.view(node.dtype.np), covers=_same_width)


def bitcast(x, dtype):
    return BITCAST.bind((x,), BITCAST.Attrs(dtype))


def float_bits(x):
    """(bits, magnitude bits) of a real floating node as signed integers of its width. Tests on
    them are exact where XLA's CPU float compares are not (they call subnormals zero)."""
    ity = dt.signed_of_bits(x.dtype.bits)
    bits = bitcast(x, ity)
    return bits, AND(bits, constant(np.iinfo(ity.np).max, ity))


# ---------------------------------------------------------------- integer power


def _lower_integer_power(e, node, x, y):
    """Repeated squaring in the integer dtype over every bit of the exponent, so the result wraps
    modulo 2^n exactly as numpy's (XLA's own integer power looks at 6 exponent bits only:
    `v ** v` for a large even int64 gave 1, numpy 0). An exponent < 0 gives the real result
    truncated toward zero: 1 for base 1, +-1 for base -1 (by parity), else 0."""
    d = node.dtype
    x, y = e.broadcast_scalars((x, y), node.shape)

    def splat(value):
        return e.broadcast_scalars((e.constant(value, (), d),), node.shape)[0]

    zero, one = splat(0), splat(1)
    steps = d.bits - 1 if d.kind == "i" else d.bits  # the sign bit of a signed exponent: below
    result, base = one, x
    for k in range(steps):
        bit = emit_compare(e, AND.emit(e, y, splat(1 << k)), zero, "NE")
        result = emit_select(e, bit, MULTIPLY.emit(e, result, base), result)
        if k + 1 < steps:
            base = MULTIPLY.emit(e, base, base)
    if d.kind == "i":
        minus_one = splat(-1)
        odd = emit_compare(e, AND.emit(e, y, one), zero, "NE")
        for_minus_one = emit_select(e, odd, minus_one, one)
        special = emit_select(e, emit_compare(e, x, minus_one, "EQ"), for_minus_one, zero)
        special = emit_select(e, emit_compare(e, x, one, "EQ"), one, special)
        result = emit_select(e, emit_compare(e, y, zero, "LT"), special, result)
    return result


def _integer_power(node, a, b):
    """numpy's wrap-around power for exponents >= 0 (repeated squaring in the dtype, as the
    lowering); an exponent < 0 gives the real result truncated toward zero: 1 for base 1,
    +-1 for base -1, else 0 (0 ** -n too), where numpy raises."""
    npdt = node.dtype.np
    a, b = np.broadcast_arrays(a, b)
    negative = b < 0
    r = np.power(a, np.where(negative, typed(0, npdt), b))
    if negative.any():
        odd = (b & typed(1, npdt)).astype(bool)
        one, minus_one, zero = typed(1, npdt), typed(-1, npdt), typed(0, npdt)
        special = np.where(a == 1, one, np.where(a == minus_one, np.where(odd, minus_one, one), zero))
        r = np.where(negative, special, r)
    return r


INTEGER_POWER = Elementwise("integer_power", "integer_power", lower=_lower_integer_power,
                            evaluate=_integer_power, covers=kinds("iu"))
