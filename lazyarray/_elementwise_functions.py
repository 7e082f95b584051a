"""Elementwise functions of the standard, table-driven.

Each entry names the dtype category the standard allows, and either a StableHLO/CHLO op that
already has the standard's meaning or a composition of primitives where StableHLO differs
(integer floor division and remainder, rounding half to even, ...).
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _complex_math as cx
from . import _dtypes as dt
from . import _ops as ops
from . import _real_math
from ._array_object import Array
from ._helpers import binary_operands, broadcast_shapes, check_array

E = ops.elementwise


def _c(value, like):
    """A 0-D structural constant of node `like`'s dtype: elementwise primitives broadcast 0-D
    operands when lowered, so an operand needs no broadcast node."""
    return ops.constant(value, like.dtype)


def _not(x):
    return E("stablehlo.not", x)


def _isnan(x):
    if x.dtype.kind == "c":
        re, im = _real(x), _imag(x)
        return E("stablehlo.or", _isnan(re), _isnan(im))
    if x.dtype.kind != "f":
        return ops.constant(False, dt.bool, x.shape)
    return ops.compare(x, x, "NE")


def _isinf(x):
    if x.dtype.kind == "c":
        return E("stablehlo.or", _isinf(_real(x)), _isinf(_imag(x)))
    if x.dtype.kind != "f":
        return ops.constant(False, dt.bool, x.shape)
    return ops.compare(E("stablehlo.abs", x), _c(np.inf, x), "EQ")


def _isfinite(x):
    if x.dtype.kind == "c":
        return E("stablehlo.and", _isfinite(_real(x)), _isfinite(_imag(x)))
    if x.dtype.kind != "f":
        return ops.constant(True, dt.bool, x.shape)
    return E("stablehlo.is_finite", x, dtype=dt.bool)


def _real(x):
    if x.dtype.kind != "c":
        return x
    return E("stablehlo.real", x, dtype=dt.real_of(x.dtype))


def _imag(x):
    if x.dtype.kind != "c":
        return ops.constant(0, x.dtype, x.shape)
    return E("stablehlo.imag", x, dtype=dt.real_of(x.dtype))


def _complex(re, im):
    return E("stablehlo.complex", re, im, dtype=dt.complex_of(re.dtype))


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
    return E("stablehlo.round_nearest_even", x)


def _trunc(x):
    if x.dtype.kind != "f":
        return x
    neg = ops.compare(x, _c(0, x), "LT")
    return ops.select(neg, E("stablehlo.ceil", x), E("stablehlo.floor", x))


def _sign(x):
    if x.dtype.kind == "c":
        mag = E("stablehlo.abs", x, dtype=dt.real_of(x.dtype))
        zero = ops.compare(mag, _c(0, mag), "EQ")
        safe = ops.select(zero, _c(1, mag), mag)
        q = E("stablehlo.divide", x, _complex(safe, _c(0, safe)))
        return ops.select(zero, _c(0, x), q)
    if x.dtype.kind == "u":
        return ops.convert(ops.compare(x, _c(0, x), "NE"), x.dtype)
    if x.dtype.kind == "f":
        # sign(±0) is +0 (the standard); XLA folds x + 0.0 into x, so select instead
        return ops.select(ops.compare(x, _c(0, x), "EQ"), _c(0, x), E("stablehlo.sign", x))
    return E("stablehlo.sign", x)


def _accurate(name, native=None, complex_fn=None):
    """Our own formula where XLA's real kernel is not within 1 ulp of numpy's (`_real_math`),
    XLA's kernel where it is; complex operands go to complex_fn."""
    def lower(x):
        if x.dtype.kind == "c":
            return complex_fn(x)
        if native is None or _real_math.uses_formula(name, x.dtype):
            return ops.math_function(name, x)
        return E(native, x)
    return lower


def _square(x):
    return E("stablehlo.multiply", x, x)


def _reciprocal(x):
    return E("stablehlo.divide", _c(1, x), x)


def _identity(x):
    return x


def _abs(x):
    if x.dtype.kind == "c":
        return cx.abs_(x)
    if x.dtype.kind == "u" or x.dtype.kind == "b":
        return x
    return E("stablehlo.abs", x)


def _op(name, complex_fn=None):
    """A StableHLO/CHLO op for real operands; complex ones go to complex_fn when given (the
    C99 special values XLA's complex kernels miss, see _complex_math)."""
    if complex_fn is None:
        return lambda x: E(name, x)
    return lambda x: complex_fn(x) if x.dtype.kind == "c" else E(name, x)


def _floor_ceil(name):
    return lambda x: E(name, x) if x.dtype.kind == "f" else x


def _conj(x):
    if x.dtype.kind != "c":
        return x
    return _complex(_real(x), E("stablehlo.negate", _imag(x)))


# name: (category, lowering, result dtype rule: None = same as input, or a function)
UNARY = {
    "abs": ("numeric", _abs, dt.real_of),
    "acos": ("floating", _accurate("acos", "chlo.acos", cx.acos), None),
    "acosh": ("floating", _accurate("acosh", "chlo.acosh", cx.acosh), None),
    "asin": ("floating", _accurate("asin", "chlo.asin", cx.asin), None),
    "asinh": ("floating", _accurate("asinh", "chlo.asinh", cx.asinh), None),
    "atan": ("floating", _op("chlo.atan", cx.atan), None),
    "atanh": ("floating", _accurate("atanh", "chlo.atanh", cx.atanh), None),
    "bitwise_invert": ("integer or boolean", _not, None),
    "ceil": ("real numeric", _floor_ceil("stablehlo.ceil"), None),
    "conj": ("numeric", _conj, None),
    "cos": ("floating", _op("stablehlo.cosine", cx.cos), None),
    "cosh": ("floating", _accurate("cosh", "chlo.cosh", cx.cosh), None),
    "exp": ("floating", _accurate("exp", "stablehlo.exponential", cx.exp), None),
    "expm1": ("floating", _accurate("expm1", "stablehlo.exponential_minus_one", cx.expm1), None),
    "floor": ("real numeric", _floor_ceil("stablehlo.floor"), None),
    "imag": ("numeric", _imag, dt.real_of),
    "isfinite": ("numeric", _isfinite, lambda d: dt.bool),
    "isinf": ("numeric", _isinf, lambda d: dt.bool),
    "isnan": ("numeric", _isnan, lambda d: dt.bool),
    "log": ("floating", _accurate("log", "stablehlo.log", cx.log), None),
    "log1p": ("floating", _accurate("log1p", "stablehlo.log_plus_one", cx.log1p), None),
    "log2": ("floating", _accurate("log2", complex_fn=lambda x: cx.log_base(x, 2)), None),
    "log10": ("floating", _accurate("log10", complex_fn=lambda x: cx.log_base(x, 10)), None),
    "logical_not": ("bool", _not, None),
    "negative": ("numeric", _op("stablehlo.negate"), None),
    "positive": ("numeric", _identity, None),
    "real": ("numeric", _real, dt.real_of),
    "reciprocal": ("floating", _reciprocal, None),
    "round": ("numeric", _round, None),
    "sign": ("numeric", _sign, None),
    "signbit": ("real floating", _signbit, lambda d: dt.bool),
    "sin": ("floating", _op("stablehlo.sine", cx.sin), None),
    "sinh": ("floating", _accurate("sinh", "chlo.sinh", cx.sinh), None),
    "sqrt": ("floating", _op("stablehlo.sqrt", cx.sqrt), None),
    "square": ("numeric", _square, None),
    "tan": ("floating", _op("stablehlo.tan", cx.tan), None),
    "tanh": ("floating", _accurate("tanh", "stablehlo.tanh", cx.tanh), None),
    "trunc": ("real numeric", _trunc, None),
}


def _make_unary(name, category, lower):
    allowed = dt.CATEGORIES[category]

    def fn(x, /):
        check_array(x)
        if x.dtype not in allowed:
            raise TypeError(f"{name}: expected an array of {category} dtype, got {x.dtype}")
        return Array._wrap(lower(x._node), x._device)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The standard's `{name}` (dtype category: {category})."
    return fn


# ---------------------------------------------------------------- binary

def _int_floor_divide(a, b):
    zero = _c(0, a)
    bz = ops.compare(b, zero, "EQ")
    safe_b = ops.select(bz, _c(1, b), b)
    q = E("stablehlo.divide", a, safe_b)  # truncates
    if a.dtype.kind == "i":
        r = E("stablehlo.remainder", a, safe_b)
        adjust = E("stablehlo.and", ops.compare(r, zero, "NE"),
                   ops.compare(ops.compare(r, zero, "LT"), ops.compare(safe_b, zero, "LT"), "NE"))
        q = ops.select(adjust, E("stablehlo.subtract", q, _c(1, q)), q)
    return ops.select(bz, zero, q)


def _float_floor_divide(a, b):
    # numpy's algorithm: from fmod, so that floor_divide(a, b) * b + remainder(a, b) == a
    mod = E("stablehlo.remainder", a, b)
    div = E("stablehlo.divide", E("stablehlo.subtract", a, mod), b)
    zero = _c(0, a)
    fix = E("stablehlo.and", ops.compare(mod, zero, "NE"),
            ops.compare(ops.compare(b, zero, "LT"), ops.compare(mod, zero, "LT"), "NE"))
    div = ops.select(fix, E("stablehlo.subtract", div, _c(1, div)), div)
    fl = E("stablehlo.floor", div)
    gt_half = ops.compare(E("stablehlo.subtract", div, fl), _c(0.5, div), "GT")
    fl = ops.select(gt_half, E("stablehlo.add", fl, _c(1, fl)), fl)
    div_zero = ops.compare(div, zero, "EQ")
    signed_zero = E("stablehlo.multiply", zero, E("stablehlo.divide", a, b))  # copysign(0, a/b)
    out = ops.select(div_zero, signed_zero, fl)
    # b == 0 or a non-finite operand: floor(a / b) is a / b itself (±inf, NaN, or the signed
    # zero of finite / ±inf), as the standard's special cases say (numpy gives -1 for -1 // inf)
    plain = E("stablehlo.or", ops.compare(b, zero, "EQ"),
              _not(E("stablehlo.and", _isfinite(a), _isfinite(b))))
    return ops.select(plain, E("stablehlo.divide", a, b), out)


def _floor_divide(a, b):
    if a.dtype.kind in "iu":
        return _int_floor_divide(a, b)
    return _float_floor_divide(a, b)


def _remainder(a, b):
    zero = _c(0, a)
    if a.dtype.kind in "iu":
        bz = ops.compare(b, zero, "EQ")
        safe_b = ops.select(bz, _c(1, b), b)
        r = E("stablehlo.remainder", a, safe_b)
        if a.dtype.kind == "i":
            fix = E("stablehlo.and", ops.compare(r, zero, "NE"),
                    ops.compare(ops.compare(r, zero, "LT"), ops.compare(safe_b, zero, "LT"), "NE"))
            r = ops.select(fix, E("stablehlo.add", r, safe_b), r)
        return ops.select(bz, zero, r)
    r = E("stablehlo.remainder", a, b)
    fix = E("stablehlo.and", ops.compare(r, zero, "NE"),
            ops.compare(ops.compare(r, zero, "LT"), ops.compare(b, zero, "LT"), "NE"))
    r = ops.select(fix, E("stablehlo.add", r, b), r)
    # a zero result takes the divisor's sign (±0 % ±inf too); a finite non-zero a with an
    # infinite divisor is a when their signs agree, else the divisor
    rz = ops.compare(r, zero, "EQ")
    r = ops.select(rz, _copysign(zero, b), r)
    binf = E("stablehlo.and", E("stablehlo.and", _isinf(b), _isfinite(a)), ops.compare(a, zero, "NE"))
    same = ops.compare(ops.compare(a, zero, "LT"), ops.compare(b, zero, "LT"), "EQ")
    return ops.select(binf, ops.select(same, a, b), r)


def _copysign(a, b):
    mag = E("stablehlo.abs", a)
    return ops.select(_signbit(b), E("stablehlo.negate", mag), mag)


def _divide(a, b):
    return E("stablehlo.divide", a, b)


def _pow(a, b):
    if a.dtype.kind == "b":
        raise TypeError("pow of booleans")
    if a.dtype.kind in "iu":
        return ops.integer_power(a, b)
    p = E("stablehlo.power", a, b)
    if a.dtype.kind == "c":
        p = _complex_integral_power(a, b, p)
        # XLA's complex power is exp(b log a): NaN at a == 0, where numpy's (the limit) is 0 for
        # real(b) > 0 (1 for b == 0, which XLA gives, NaN otherwise)
        re_b = _real(b)
        zero_base = E("stablehlo.and", ops.compare(a, _c(0, a), "EQ"), ops.compare(re_b, _c(0, re_b), "GT"))
        p = ops.select(zero_base, _c(0, p), p)
    return p


def _complex_integral_power(a, b, general):
    """numpy's complex power for an integral exponent |n| < 100: binary exponentiation by
    complex products (exact where they are: (2j) ** 2 is -4 with a zero real part, where XLA's
    exp(b log a) leaves 1e-16 there, which SciPy's filter design turns into noise in
    coefficients that must cancel), then 1 / that for n < 0; `general` elsewhere."""
    re_b, im_b = _real(b), _imag(b)
    n = E("stablehlo.abs", re_b)
    integral = E("stablehlo.and", E("stablehlo.and", _is_zero(im_b),
                                    ops.compare(E("stablehlo.floor", re_b), re_b, "EQ")),
                 ops.compare(n, _c(100, n), "LT"))
    bits = ops.convert(ops.select(integral, n, _c(0, n)), dt.int64)
    one = ops.convert(_c(1, n), a.dtype)
    result, power, started = one, a, ops.constant(False, dt.bool)
    for k in range(7):  # |n| < 100 < 2**7; the first factor is taken as it is (numpy: a ** 1 is a)
        bit = E("stablehlo.and", E("stablehlo.shift_right_logical", bits, _c(k, bits)), _c(1, bits))
        take = ops.compare(bit, _c(1, bits), "EQ")
        result = ops.select(take, ops.select(started, E("stablehlo.multiply", result, power), power), result)
        started = E("stablehlo.or", started, take)
        power = E("stablehlo.multiply", power, power)
    result = ops.select(ops.compare(re_b, _c(0, re_b), "LT"), E("stablehlo.divide", one, result), result)
    return ops.select(integral, result, general)


def _shift(kind):
    # XLA shifts by >= the bit width give 0 (sign fill for arithmetic right shifts), as numpy.
    def lower(a, b):
        if kind == "left":
            return E("stablehlo.shift_left", a, b)
        if a.dtype.kind == "i":
            return E("stablehlo.shift_right_arithmetic", a, b)
        return E("stablehlo.shift_right_logical", a, b)
    return lower


def _cmp(direction):
    return lambda a, b: ops.compare(a, b, direction)


def _binop(name):
    return lambda a, b: E(name, a, b)


def _minmax(name):
    return lambda a, b: E(name, a, b)


def _nextafter(a, b):
    return E("chlo.next_after", a, b)


def _atan2(a, b):
    # Both zero: the standard's (and numpy's) signed cases, chosen explicitly. XLA's CPU atan2
    # gives NaN for atan2(0, 0) when LLVM sees the zeros as constants (the real or imaginary
    # part of a complex constant): found by the fuzzer.
    both_zero = E("stablehlo.and", _is_zero(a), _is_zero(b))
    on_zeros = _copysign(ops.select(_signbit(b), _c(np.pi, a), _c(0, a)), a)
    return ops.select(both_zero, on_zeros, E("stablehlo.atan2", a, b))


def _logical(name):
    return lambda a, b: E(name, a, b)


def _bool_result(d):
    return dt.bool


def _to_float(d):
    """divide: integers divide as the default float (numpy's true division)."""
    return dt.DEFAULT_FLOAT if d.kind in "biu" else d


# name: (category, lowering, dtype rule for computing (None: promoted), result dtype rule)
BINARY = {
    "add": ("any", _binop("stablehlo.add"), None, None),  # bool + bool: logical or, as numpy (an extension)
    "atan2": ("real floating", _atan2, None, None),
    "bitwise_and": ("integer or boolean", _binop("stablehlo.and"), None, None),
    "bitwise_left_shift": ("integer", _shift("left"), None, None),
    "bitwise_or": ("integer or boolean", _binop("stablehlo.or"), None, None),
    "bitwise_right_shift": ("integer", _shift("right"), None, None),
    "bitwise_xor": ("integer or boolean", _binop("stablehlo.xor"), None, None),
    "copysign": ("real floating", _copysign, None, None),
    "divide": ("numeric", _divide, _to_float, None),
    "equal": ("any", _cmp("EQ"), None, _bool_result),
    "floor_divide": ("real numeric", _floor_divide, None, None),
    "greater": ("real numeric", _cmp("GT"), None, _bool_result),
    "greater_equal": ("real numeric", _cmp("GE"), None, _bool_result),
    "hypot": ("real floating", lambda a, b: ops.math_function("hypot", a, b), None, None),
    "less": ("real numeric", _cmp("LT"), None, _bool_result),
    "less_equal": ("real numeric", _cmp("LE"), None, _bool_result),
    "logaddexp": ("real floating", lambda a, b: ops.math_function("logaddexp", a, b), None, None),
    "logical_and": ("bool", _logical("stablehlo.and"), None, None),
    "logical_or": ("bool", _logical("stablehlo.or"), None, None),
    "logical_xor": ("bool", _logical("stablehlo.xor"), None, None),
    "maximum": ("real numeric", _minmax("stablehlo.maximum"), None, None),
    "minimum": ("real numeric", _minmax("stablehlo.minimum"), None, None),
    "multiply": ("numeric", _binop("stablehlo.multiply"), None, None),
    "nextafter": ("real floating", _nextafter, None, None),
    "not_equal": ("any", _cmp("NE"), None, _bool_result),
    "pow": ("numeric", _pow, None, None),
    "remainder": ("real numeric", _remainder, None, None),
    "subtract": ("numeric", _binop("stablehlo.subtract"), None, None),
}


def _make_binary(name, category, lower, compute_rule):
    allowed = dt.CATEGORIES[category]

    def fn(x1, x2, /):
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


FUNCTIONS = {}
for _name, (_cat, _lower, _res) in UNARY.items():
    FUNCTIONS[_name] = _make_unary(_name, _cat, _lower)
for _name, (_cat, _lower, _compute, _res) in BINARY.items():
    FUNCTIONS[_name] = _make_binary(_name, _cat, _lower, _compute)
globals().update(FUNCTIONS)


def clip(x, /, min=None, max=None):
    check_array(x)
    if x.dtype not in dt.CATEGORIES["real numeric"]:
        raise TypeError(f"clip: expected a real numeric array, got {x.dtype}")
    bounds = [(_clip_bound(b, x), op) for b, op in ((min, "stablehlo.maximum"), (max, "stablehlo.minimum"))
              if b is not None]
    shape = broadcast_shapes(x.shape, *(b.shape for b, _ in bounds))
    node = ops.broadcast_to(x._node, shape)
    for b, op in bounds:
        # XLA's maximum/minimum propagate NaN from either side, as the standard asks
        node = E(op, node, ops.broadcast_to(b, shape))
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
