"""Elementwise functions of the standard, table-driven.

Each entry names the dtype category the standard allows, and either a StableHLO/CHLO op that
already has the standard's meaning or a composition of primitives where StableHLO differs
(integer floor division and remainder, rounding half to even, ...).
"""
from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

import numpy as np

from . import _complex_math as cx
from . import _dtypes as dt
from . import _ops as ops
from ._ops import real_math as _real_math
from ._array_object import Array
from ._graph import bind as _bind, bind_pair as _bind_pair, scalar_leaf as _scalar_leaf
from ._ops.elementwise import Elementwise
from ._helpers import binary_operands, broadcast_shapes, check_array
from ._typing import ArrayOrScalar, Scalar


def _c(value, like):
    """A 0-D structural constant of node `like`'s dtype: elementwise primitives broadcast 0-D
    operands when lowered, so an operand needs no broadcast node."""
    return ops.constant(value, like.dtype)


def _not(x):
    return ops.NOT(x)


def _isnan(x):
    if x.dtype.kind == "c":
        re, im = _real(x), _imag(x)
        return ops.OR(_isnan(re), _isnan(im))
    if x.dtype.kind != "f":
        return ops.constant(False, dt.bool, x.shape)
    return ops.compare(x, x, "NE")


def _isinf(x):
    if x.dtype.kind == "c":
        return ops.OR(_isinf(_real(x)), _isinf(_imag(x)))
    if x.dtype.kind != "f":
        return ops.constant(False, dt.bool, x.shape)
    return ops.compare(ops.ABS(x), _c(np.inf, x), "EQ")


def _isfinite(x):
    if x.dtype.kind == "c":
        return ops.AND(_isfinite(_real(x)), _isfinite(_imag(x)))
    if x.dtype.kind != "f":
        return ops.constant(True, dt.bool, x.shape)
    return ops.IS_FINITE(x)


def _real(x):
    if x.dtype.kind != "c":
        return x
    return ops.REAL(x)


def _imag(x):
    if x.dtype.kind != "c":
        return ops.constant(0, x.dtype, x.shape)
    return ops.IMAG(x)


def _complex(re, im):
    return ops.COMPLEX(re, im)


def _is_zero(x):
    """x == 0 on the bits (XLA's CPU float compare calls subnormals zero)."""
    _, magnitude = ops.float_bits(x)
    return ops.compare(magnitude, _c(0, magnitude), "EQ")


def _signbit(x):
    bits, _ = ops.float_bits(x)
    return ops.compare(bits, _c(0, bits), "LT")


def _round(x):
    if x.dtype.kind == "c":
        return _complex(_round(_real(x)), _round(_imag(x)))
    if x.dtype.kind != "f":
        return x
    return ops.ROUND_EVEN(x)


def _trunc(x):
    if x.dtype.kind != "f":
        return x
    neg = ops.compare(x, _c(0, x), "LT")
    return ops.select(neg, ops.CEIL(x), ops.FLOOR(x))


def _sign(x):
    if x.dtype.kind == "c":
        mag = ops.ABS(x)
        zero = ops.compare(mag, _c(0, mag), "EQ")
        safe = ops.select(zero, _c(1, mag), mag)
        q = ops.DIVIDE(x, _complex(safe, _c(0, safe)))
        return ops.select(zero, _c(0, x), q)
    if x.dtype.kind == "u":
        return ops.convert(ops.compare(x, _c(0, x), "NE"), x.dtype)
    if x.dtype.kind == "f":
        # sign(±0) is +0 (the standard); XLA folds x + 0.0 into x, so select instead
        return ops.select(ops.compare(x, _c(0, x), "EQ"), _c(0, x), ops.SIGN(x))
    return ops.SIGN(x)


def _accurate(name, native=None, complex_fn=None):
    """Our own formula where XLA's real kernel is not within 1 ulp of numpy's (`_real_math`),
    XLA's kernel where it is; complex operands go to complex_fn."""
    def lower(x):
        if x.dtype.kind == "c":
            return complex_fn(x)
        if native is None or _real_math.uses_formula(name, x.dtype):
            return ops.math_function(name, x)
        return native(x)
    # (see `_single`: a real operand gets one node of the formula's primitive or the kernel's)
    lower.single = lambda d: None if d.kind == "c" else (
        _real_math.MATH[name] if native is None or _real_math.uses_formula(name, d) else native)
    return lower


def _square(x):
    return ops.MULTIPLY(x, x)


def _reciprocal(x):
    return ops.DIVIDE(_c(1, x), x)


def _identity(x):
    return x


def _abs(x):
    if x.dtype.kind == "c":
        return cx.abs_(x)
    if x.dtype.kind == "u" or x.dtype.kind == "b":
        return x
    return ops.ABS(x)


def _op(op, complex_fn):
    """A StableHLO/CHLO op for real operands; complex ones go to complex_fn when given (the
    C99 special values XLA's complex kernels miss, see _complex_math)."""
    lower = lambda x: complex_fn(x) if x.dtype.kind == "c" else op(x)  # noqa: E731
    lower.single = lambda d: None if d.kind == "c" else op  # (see `_single`)
    return lower


def _floor_ceil(op):
    return lambda x: op(x) if x.dtype.kind == "f" else x


# name: (dtype category the standard allows, the function on nodes); result dtypes follow from
# the primitives' rules (_ops)
UNARY = {
    "abs": ("numeric", _abs),
    "acos": ("floating", _accurate("acos", ops.ACOS, cx.acos)),
    "acosh": ("floating", _accurate("acosh", ops.ACOSH, cx.acosh)),
    "asin": ("floating", _accurate("asin", ops.ASIN, cx.asin)),
    "asinh": ("floating", _accurate("asinh", ops.ASINH, cx.asinh)),
    "atan": ("floating", _op(ops.ATAN, cx.atan)),
    "atanh": ("floating", _accurate("atanh", ops.ATANH, cx.atanh)),
    "bitwise_invert": ("integer or boolean", _not),
    "ceil": ("real numeric", _floor_ceil(ops.CEIL)),
    "conj": ("numeric", ops.conj),
    "cos": ("floating", _op(ops.COS, cx.cos)),
    "cosh": ("floating", _accurate("cosh", ops.COSH, cx.cosh)),
    "exp": ("floating", _accurate("exp", ops.EXP, cx.exp)),
    "expm1": ("floating", _accurate("expm1", ops.EXPM1, cx.expm1)),
    "floor": ("real numeric", _floor_ceil(ops.FLOOR)),
    "imag": ("numeric", _imag),
    "isfinite": ("numeric", _isfinite),
    "isinf": ("numeric", _isinf),
    "isnan": ("numeric", _isnan),
    "log": ("floating", _accurate("log", ops.LOG, cx.log)),
    "log1p": ("floating", _accurate("log1p", ops.LOG1P, cx.log1p)),
    "log2": ("floating", _accurate("log2", complex_fn=lambda x: cx.log_base(x, 2))),
    "log10": ("floating", _accurate("log10", complex_fn=lambda x: cx.log_base(x, 10))),
    "logical_not": ("bool", _not),
    "negative": ("numeric", ops.NEGATE),
    "positive": ("numeric", _identity),
    "real": ("numeric", _real),
    "reciprocal": ("floating", _reciprocal),
    "round": ("numeric", _round),
    "sign": ("numeric", _sign),
    "signbit": ("real floating", _signbit),
    "sin": ("floating", _op(ops.SIN, cx.sin)),
    "sinh": ("floating", _accurate("sinh", ops.SINH, cx.sinh)),
    "sqrt": ("floating", _op(ops.SQRT, cx.sqrt)),
    "square": ("numeric", _square),
    "tan": ("floating", _op(ops.TAN, cx.tan)),
    "tanh": ("floating", _accurate("tanh", ops.TANH, cx.tanh)),
    "trunc": ("real numeric", _trunc),
}


def _float_for(d):
    """numpy's floating dtype for an integer or bool dtype (float16 -> float32, which we lack)."""
    f = np.promote_types(d.np, np.float16)
    return dt.float32 if f.itemsize <= 4 else dt.float64


def _single(lower, d):
    """The elementwise primitive that `lower` records alone on a node of dtype `d` (one node, that
    node its only operand, no attributes), or None where it records anything else: a lowering
    that is such a primitive itself, or one that says which (`_op`, `_accurate`: `.single`)."""
    if isinstance(lower, Elementwise):
        return lower
    single = getattr(lower, "single", None)
    p = single(d) if single is not None else None
    return p if isinstance(p, Elementwise) else None


def _make_unary(name, category, lower):
    allowed = dt.CATEGORIES[category]
    # dtype -> (the primitive, its result dtype) where the general path records that one node:
    # such a call binds it at once (`_graph.bind` and `Array._wrap`, ~4 calls fewer: exp of a
    # vector ~2.2 -> ~1.2 us); the same node as `lower`'s, which the tests compare
    direct = {}
    for d in allowed:
        p = _single(lower, d)
        if p is not None:
            direct[d] = (p, p.out(d, ()))
    direct_for = direct.get

    def fn(x: Array, /) -> Array:
        if type(x) is Array:
            node = x._node
            found = direct_for(node.dtype)
            if found is not None:
                return _wrap(_bind(found[0], (node,), (), node.shape, found[1]), x._device)
        else:  # (a view, or not an array: the check; an Array needs none)
            check_array(x)
        node = x._node
        d = node.dtype
        if d not in allowed:
            if category != "floating" or d.kind not in "biu":
                raise TypeError(f"{name}: expected an array of {category} dtype, got {d}")
            node = ops.convert(node, _float_for(d))  # an extension, as numpy
        return Array._wrap(lower(node), x._device)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The standard's `{name}` (dtype category: {category})."
    return fn


# ---------------------------------------------------------------- binary

def _int_floor_divide(a, b):
    zero = _c(0, a)
    bz = ops.compare(b, zero, "EQ")
    safe_b = ops.select(bz, _c(1, b), b)
    q = ops.DIVIDE(a, safe_b)  # truncates
    if a.dtype.kind == "i":
        r = ops.REMAINDER(a, safe_b)
        adjust = ops.AND(ops.compare(r, zero, "NE"),
                   ops.compare(ops.compare(r, zero, "LT"), ops.compare(safe_b, zero, "LT"), "NE"))
        q = ops.select(adjust, ops.SUBTRACT(q, _c(1, q)), q)
    return ops.select(bz, zero, q)


def _float_floor_divide(a, b):
    # numpy's algorithm: from fmod, so that floor_divide(a, b) * b + remainder(a, b) == a
    mod = ops.REMAINDER(a, b)
    div = ops.DIVIDE(ops.SUBTRACT(a, mod), b)
    zero = _c(0, a)
    fix = ops.AND(ops.compare(mod, zero, "NE"),
            ops.compare(ops.compare(b, zero, "LT"), ops.compare(mod, zero, "LT"), "NE"))
    div = ops.select(fix, ops.SUBTRACT(div, _c(1, div)), div)
    fl = ops.FLOOR(div)
    gt_half = ops.compare(ops.SUBTRACT(div, fl), _c(0.5, div), "GT")
    fl = ops.select(gt_half, ops.ADD(fl, _c(1, fl)), fl)
    div_zero = ops.compare(div, zero, "EQ")
    signed_zero = ops.MULTIPLY(zero, ops.DIVIDE(a, b))  # copysign(0, a/b)
    out = ops.select(div_zero, signed_zero, fl)
    # b == 0 or a non-finite operand: floor(a / b) is a / b itself (±inf, NaN, or the signed
    # zero of finite / ±inf), as the standard's special cases say (numpy gives -1 for -1 // inf)
    plain = ops.OR(ops.compare(b, zero, "EQ"),
              _not(ops.AND(_isfinite(a), _isfinite(b))))
    return ops.select(plain, ops.DIVIDE(a, b), out)


def _floor_divide(a, b):
    if a.dtype.kind in "iu":
        return _int_floor_divide(a, b)
    return _real_math.float_floor_divide(a, b)  # (_float_floor_divide's nodes as one: SCIPY hook)


def _remainder(a, b):
    zero = _c(0, a)
    if a.dtype.kind in "iu":
        bz = ops.compare(b, zero, "EQ")
        safe_b = ops.select(bz, _c(1, b), b)
        r = ops.REMAINDER(a, safe_b)
        if a.dtype.kind == "i":
            fix = ops.AND(ops.compare(r, zero, "NE"),
                    ops.compare(ops.compare(r, zero, "LT"), ops.compare(safe_b, zero, "LT"), "NE"))
            r = ops.select(fix, ops.ADD(r, safe_b), r)
        return ops.select(bz, zero, r)
    return _real_math.float_remainder(a, b)  # (the float formula below as one node: SCIPY hook)


def _float_remainder(a, b):
    """The float formula `_real_math.float_remainder` records as one node (tests compare them)."""
    zero = _c(0, a)
    r = ops.REMAINDER(a, b)
    fix = ops.AND(ops.compare(r, zero, "NE"),
            ops.compare(ops.compare(r, zero, "LT"), ops.compare(b, zero, "LT"), "NE"))
    r = ops.select(fix, ops.ADD(r, b), r)
    # a zero result takes the divisor's sign (±0 % ±inf too); a finite non-zero a with an
    # infinite divisor is a when their signs agree, else the divisor
    rz = ops.compare(r, zero, "EQ")
    r = ops.select(rz, _copysign(zero, b), r)
    binf = ops.AND(ops.AND(_isinf(b), _isfinite(a)), ops.compare(a, zero, "NE"))
    same = ops.compare(ops.compare(a, zero, "LT"), ops.compare(b, zero, "LT"), "EQ")
    return ops.select(binf, ops.select(same, a, b), r)


def _copysign(a, b):
    mag = ops.ABS(a)
    return ops.select(_signbit(b), ops.NEGATE(mag), mag)


def _divide(a, b):
    return ops.DIVIDE(a, b)


def _pow(a, b):
    if a.dtype.kind == "b":
        raise TypeError("pow of booleans")
    if a.dtype.kind in "iu":
        return ops.INTEGER_POWER(a, b)
    if a.dtype.kind == "c":  # (SCIPY hook) a Python-scalar exponent: only its bits' products
        exponent = cx.recorded_exponent(b)
        if exponent is not None:
            return cx.power_by_recorded(a, b, exponent)
    p = ops.POWER(a, b)
    if a.dtype.kind == "c":
        p = _complex_integral_power(a, b, p)
        # XLA's complex power is exp(b log a): NaN at a == 0, where numpy's (the limit) is 0 for
        # real(b) > 0 (1 for b == 0, which XLA gives, NaN otherwise)
        re_b = _real(b)
        zero_base = ops.AND(ops.compare(a, _c(0, a), "EQ"), ops.compare(re_b, _c(0, re_b), "GT"))
        p = ops.select(zero_base, _c(0, p), p)
    return p


def _complex_integral_power(a, b, general):
    """numpy's complex power for an integral exponent |n| < 100: binary exponentiation by
    complex products (exact where they are: (2j) ** 2 is -4 with a zero real part, where XLA's
    exp(b log a) leaves 1e-16 there, which SciPy's filter design turns into noise in
    coefficients that must cancel), then 1 / that for n < 0; `general` elsewhere."""
    re_b, im_b = _real(b), _imag(b)
    n = ops.ABS(re_b)
    integral = ops.AND(ops.AND(_is_zero(im_b),
                                    ops.compare(ops.FLOOR(re_b), re_b, "EQ")),
                 ops.compare(n, _c(100, n), "LT"))
    bits = ops.convert(ops.select(integral, n, _c(0, n)), dt.int64)
    one = ops.convert(_c(1, n), a.dtype)
    result, power, started = one, a, ops.constant(False, dt.bool)
    for k in range(7):  # |n| < 100 < 2**7; the first factor is taken as it is (numpy: a ** 1 is a)
        bit = ops.AND(ops.SHIFT_RIGHT_LOGICAL(bits, _c(k, bits)), _c(1, bits))
        take = ops.compare(bit, _c(1, bits), "EQ")
        result = ops.select(take, ops.select(started, ops.MULTIPLY(result, power), power), result)
        started = ops.OR(started, take)
        power = ops.MULTIPLY(power, power)
    result = ops.select(ops.compare(re_b, _c(0, re_b), "LT"), ops.DIVIDE(one, result), result)
    return ops.select(integral, result, general)


def _shift(kind):
    # XLA shifts by >= the bit width give 0 (sign fill for arithmetic right shifts), as numpy.
    def lower(a, b):
        if kind == "left":
            return ops.SHIFT_LEFT(a, b)
        if a.dtype.kind == "i":
            return ops.SHIFT_RIGHT_ARITHMETIC(a, b)
        return ops.SHIFT_RIGHT_LOGICAL(a, b)
    return lower


def _cmp(direction):
    return lambda a, b: ops.compare(a, b, direction)


def _atan2(a, b):
    # Both zero: the standard's (and numpy's) signed cases, chosen explicitly. XLA's CPU atan2
    # gives NaN for atan2(0, 0) when LLVM sees the zeros as constants (the real or imaginary
    # part of a complex constant): found by the fuzzer.
    both_zero = ops.AND(_is_zero(a), _is_zero(b))
    on_zeros = _copysign(ops.select(_signbit(b), _c(np.pi, a), _c(0, a)), a)
    return ops.select(both_zero, on_zeros, ops.ATAN2(a, b))


def _to_float(d):
    """divide: integers divide as the default float (numpy's true division)."""
    return dt.DEFAULT_FLOAT if d.kind in "biu" else d


# name: (dtype category, the function on nodes, dtype the operands are computed in (None: the
# promoted dtype)); result dtypes follow from the primitives' rules (_ops)
BINARY = {
    "add": ("any", ops.ADD, None),  # bool + bool: logical or, as numpy (an extension)
    "atan2": ("real floating", _atan2, None),
    "bitwise_and": ("integer or boolean", ops.AND, None),
    "bitwise_left_shift": ("integer", _shift("left"), None),
    "bitwise_or": ("integer or boolean", ops.OR, None),
    "bitwise_right_shift": ("integer", _shift("right"), None),
    "bitwise_xor": ("integer or boolean", ops.XOR, None),
    "copysign": ("real floating", _copysign, None),
    "divide": ("numeric", _divide, _to_float),
    "equal": ("any", _cmp("EQ"), None),
    "floor_divide": ("real numeric", _floor_divide, None),
    "greater": ("real numeric", _cmp("GT"), None),
    "greater_equal": ("real numeric", _cmp("GE"), None),
    "hypot": ("real floating", lambda a, b: ops.math_function("hypot", a, b), None),
    "less": ("real numeric", _cmp("LT"), None),
    "less_equal": ("real numeric", _cmp("LE"), None),
    "logaddexp": ("real floating", lambda a, b: ops.math_function("logaddexp", a, b), None),
    "logical_and": ("bool", ops.AND, None),
    "logical_or": ("bool", ops.OR, None),
    "logical_xor": ("bool", ops.XOR, None),
    "maximum": ("real numeric", ops.MAXIMUM, None),
    "minimum": ("real numeric", ops.MINIMUM, None),
    "multiply": ("numeric", ops.MULTIPLY, None),
    "nextafter": ("real floating", ops.NEXTAFTER, None),
    "not_equal": ("any", _cmp("NE"), None),
    "pow": ("numeric", _pow, None),
    "remainder": ("real numeric", _remainder, None),
    "subtract": ("numeric", ops.SUBTRACT, None),
}


def _make_binary(name, category, lower, compute_rule):
    allowed = dt.CATEGORIES[category]
    # A function that is one elementwise primitive on the promoted operands binds it at once when
    # x1 is an array and x2 an array of its dtype, shape and device, or a Python float next to a
    # floating x1 (its dtype then): what `binary_operands` and the primitive build there (the
    # same node: `_graph.bind_pair`; xp.maximum(a, 1.0) ~2.7 -> ~1.4 us), which the tests compare
    prim = lower if isinstance(lower, Elementwise) and compute_rule is None else None
    direct = {d: prim.out(d, ()) for d in allowed} if prim is not None else {}
    out_for = direct.get

    def fn(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array:
        if type(x1) is Array:
            n1 = x1._node
            out = out_for(n1.dtype)
            if out is not None:
                t = type(x2)
                if t is Array:
                    n2 = x2._node
                    if n2.dtype is n1.dtype and n2.shape == n1.shape and x2._device is x1._device:
                        return _wrap(_bind_pair(prim, n1, n2, (), n1.shape, out), x1._device)
                elif t is float and n1.dtype.kind in "fc":
                    return _wrap(_bind_pair(prim, n1, _scalar_leaf(x2, n1.dtype), (), n1.shape, out), x1._device)
        n1, n2, dtype, shape, device = binary_operands(x1, x2, name)
        if dtype not in allowed:
            raise TypeError(f"{name}: expected {category} operands, got {_dtype_of(x1)} and {_dtype_of(x2)}")
        if compute_rule is not None:
            cdt = compute_rule(dtype)
            n1, n2 = ops.convert(n1, cdt), ops.convert(n2, cdt)
        return Array._wrap(lower(n1, n2), device)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The standard's `{name}` (dtype category: {category})."
    return fn


def _dtype_of(x):
    return x.dtype if isinstance(x, Array) else type(x).__name__


_wrap = Array._wrap
FUNCTIONS = {}
for _name, (_cat, _lower) in UNARY.items():
    FUNCTIONS[_name] = _make_unary(_name, _cat, _lower)
for _name, (_cat, _lower, _compute) in BINARY.items():
    FUNCTIONS[_name] = _make_binary(_name, _cat, _lower, _compute)
globals().update(FUNCTIONS)


if TYPE_CHECKING:
    # What a static checker (mypy, pyright) sees of the functions the tables above make: it cannot
    # run the loop, so each is declared here, never defined (TYPE_CHECKING is False at run time).
    # tests/test_annotations.py checks that these names are exactly UNARY's and BINARY's.
    def abs(x: Array, /) -> Array: ...
    def acos(x: Array, /) -> Array: ...
    def acosh(x: Array, /) -> Array: ...
    def asin(x: Array, /) -> Array: ...
    def asinh(x: Array, /) -> Array: ...
    def atan(x: Array, /) -> Array: ...
    def atanh(x: Array, /) -> Array: ...
    def bitwise_invert(x: Array, /) -> Array: ...
    def ceil(x: Array, /) -> Array: ...
    def conj(x: Array, /) -> Array: ...
    def cos(x: Array, /) -> Array: ...
    def cosh(x: Array, /) -> Array: ...
    def exp(x: Array, /) -> Array: ...
    def expm1(x: Array, /) -> Array: ...
    def floor(x: Array, /) -> Array: ...
    def imag(x: Array, /) -> Array: ...
    def isfinite(x: Array, /) -> Array: ...
    def isinf(x: Array, /) -> Array: ...
    def isnan(x: Array, /) -> Array: ...
    def log(x: Array, /) -> Array: ...
    def log1p(x: Array, /) -> Array: ...
    def log2(x: Array, /) -> Array: ...
    def log10(x: Array, /) -> Array: ...
    def logical_not(x: Array, /) -> Array: ...
    def negative(x: Array, /) -> Array: ...
    def positive(x: Array, /) -> Array: ...
    def real(x: Array, /) -> Array: ...
    def reciprocal(x: Array, /) -> Array: ...
    def round(x: Array, /) -> Array: ...
    def sign(x: Array, /) -> Array: ...
    def signbit(x: Array, /) -> Array: ...
    def sin(x: Array, /) -> Array: ...
    def sinh(x: Array, /) -> Array: ...
    def sqrt(x: Array, /) -> Array: ...
    def square(x: Array, /) -> Array: ...
    def tan(x: Array, /) -> Array: ...
    def tanh(x: Array, /) -> Array: ...
    def trunc(x: Array, /) -> Array: ...
    def add(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def atan2(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def bitwise_and(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def bitwise_left_shift(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def bitwise_or(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def bitwise_right_shift(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def bitwise_xor(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def copysign(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def divide(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def equal(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def floor_divide(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def greater(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def greater_equal(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def hypot(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def less(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def less_equal(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def logaddexp(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def logical_and(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def logical_or(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def logical_xor(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def maximum(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def minimum(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def multiply(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def nextafter(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def not_equal(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def pow(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def remainder(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...
    def subtract(x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array: ...


def clip(x: Array, /, min: Scalar | Array | None = None, max: Scalar | Array | None = None) -> Array:
    check_array(x)
    if x.dtype not in dt.CATEGORIES["real numeric"]:
        raise TypeError(f"clip: expected a real numeric array, got {x.dtype}")
    bounds = [(_clip_bound(b, x), op) for b, op in ((min, ops.MAXIMUM), (max, ops.MINIMUM))
              if b is not None]
    shape = broadcast_shapes(x.shape, *(b.shape for b, _ in bounds))
    node = ops.broadcast_to(x._node, shape)
    for b, op in bounds:
        # XLA's maximum/minimum propagate NaN from either side, as the standard asks. A 0-D bound
        # (a Python scalar's leaf, SciPy's 0-D arrays) stays 0-D, as binary operands do: the
        # primitives broadcast 0-D operands when lowered and evaluated (no node of its own)
        node = op(node, b if not b.shape else ops.broadcast_to(b, shape))
    return Array._wrap(node, x.device)


def _clip_bound(bound, x):
    """A bound as a node of x's dtype (the bounds do not take part in type promotion)."""
    if isinstance(bound, Array):
        if bound.device != x.device:
            raise ValueError(f"clip: bound on {bound.device}, array on {x.device}")
        if bound.dtype.kind != x.dtype.kind and not (bound.dtype.kind in "iu" and x.dtype.kind in "iu"):
            raise TypeError(f"clip: bound of dtype {bound.dtype} for an array of {x.dtype}")
        return ops.convert(bound._node, x.dtype)
    if not isinstance(bound, (int, float)) or isinstance(bound, bool):
        raise TypeError(f"clip: bounds must be arrays or real Python scalars, got {type(bound).__name__}")
    if x.dtype.kind in "iu":
        if isinstance(bound, float):
            raise TypeError("clip: float bound for an integer array")
        info = np.iinfo(x.dtype.np)
        bound = builtins.min(builtins.max(bound, int(info.min)), int(info.max))  # out of range: no bound
    return ops.scalar(bound, x.dtype)
