"""Element-wise functions and operators (standard: "Element-wise Functions", "Operators").

For every function: the result dtype (the input's, bool, or the real dtype of the same
precision), the result shape (broadcast), and the values against numpy on domains where
numpy and the standard agree. Special cases (NaN, signed zeros, infinities) of a
representative set of functions are restated from the standard below, case by case.
"""

import math
import operator
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from ._support import (
    ALL, BOOL, COMPLEX, FLOATING, INTEGRAL, NUMERIC, REAL, REAL_FLOAT, REAL_OF, SIGNED,
    UNSIGNED, _representable, asx, assert_close, assert_dtype, assert_equal, assert_shape,
    elements, only, to_np, xp,
)

# ---------------------------------------------------------------------------------------------
# Tables. A domain gives the elements() keywords per dtype kind: "int", "float", "complex".


def _imax(name):
    return int(np.iinfo(np.dtype(name)).max)


def _imin(name):
    return int(np.iinfo(np.dtype(name)).min)


@dataclass
class Fn:
    dtypes: tuple
    oracle: Callable
    domain: dict = field(default_factory=dict)   # kind -> kw, or kind -> callable(name) -> kw
    result: str = "same"                         # "same", "bool", "real"
    exact: bool = False                          # compare bit-exactly (else with tolerance)
    transcendental: bool = False


def _kw(domain, name):
    kind = ("int" if name in INTEGRAL else "float" if name in REAL_FLOAT
            else "complex" if name in COMPLEX else "bool")
    d = domain.get(kind, {})
    return d(name) if callable(d) else dict(d)


NOZERO_IMAG = {"lo": -8, "hi": 8}          # complex inputs kept off the branch cuts (below)
SMALL_C = {"lo": -4, "hi": 4}

UNARY = {
    # abs of a complex number is a hypot: not exactly rounded, so compared within tolerance
    "abs": Fn(NUMERIC, np.abs, {"int": lambda n: {"lo": _imin(n) + 1}}, "real"),
    "acos": Fn(FLOATING, np.arccos, {"float": {"lo": -1, "hi": 1}, "complex": NOZERO_IMAG},
               transcendental=True),
    "acosh": Fn(FLOATING, np.arccosh, {"float": {"lo": 1, "hi": 1e3}, "complex": NOZERO_IMAG},
                transcendental=True),
    "asin": Fn(FLOATING, np.arcsin, {"float": {"lo": -1, "hi": 1}, "complex": NOZERO_IMAG},
               transcendental=True),
    "asinh": Fn(FLOATING, np.arcsinh, {"complex": NOZERO_IMAG}, transcendental=True),
    "atan": Fn(FLOATING, np.arctan, {"complex": NOZERO_IMAG}, transcendental=True),
    "atanh": Fn(FLOATING, np.arctanh, {"float": {"lo": -0.99, "hi": 0.99},
                                       "complex": NOZERO_IMAG}, transcendental=True),
    "bitwise_invert": Fn(INTEGRAL + BOOL, np.invert, exact=True),
    "ceil": Fn(REAL, np.ceil, exact=True),
    "conj": Fn(NUMERIC, np.conj, exact=True),
    "cos": Fn(FLOATING, np.cos, {"float": {"lo": -20, "hi": 20}, "complex": SMALL_C},
              transcendental=True),
    "cosh": Fn(FLOATING, np.cosh, {"float": {"lo": -40, "hi": 40}, "complex": SMALL_C},
               transcendental=True),
    "exp": Fn(FLOATING, np.exp, {"float": {"lo": -40, "hi": 40}, "complex": SMALL_C},
              transcendental=True),
    "expm1": Fn(FLOATING, np.expm1, {"float": {"lo": -40, "hi": 40}, "complex": SMALL_C},
                transcendental=True),
    "floor": Fn(REAL, np.floor, exact=True),
    "imag": Fn(COMPLEX, np.imag, result="real", exact=True),
    "isfinite": Fn(NUMERIC, np.isfinite, {"float": {"allow_nan": True, "allow_inf": True},
                                          "complex": {"allow_nan": True, "allow_inf": True}},
                   "bool", exact=True),
    "isinf": Fn(NUMERIC, np.isinf, {"float": {"allow_nan": True, "allow_inf": True},
                                    "complex": {"allow_nan": True, "allow_inf": True}},
                "bool", exact=True),
    "isnan": Fn(NUMERIC, np.isnan, {"float": {"allow_nan": True, "allow_inf": True},
                                    "complex": {"allow_nan": True, "allow_inf": True}},
                "bool", exact=True),
    "log": Fn(FLOATING, np.log, {"float": {"lo": 0, "hi": 1e4}, "complex": NOZERO_IMAG},
              transcendental=True),
    "log1p": Fn(FLOATING, np.log1p, {"float": {"lo": -0.99, "hi": 1e4},
                                     "complex": NOZERO_IMAG}, transcendental=True),
    "log2": Fn(FLOATING, np.log2, {"float": {"lo": 0, "hi": 1e4}, "complex": NOZERO_IMAG},
               transcendental=True),
    "log10": Fn(FLOATING, np.log10, {"float": {"lo": 0, "hi": 1e4}, "complex": NOZERO_IMAG},
                transcendental=True),
    "logical_not": Fn(BOOL, np.logical_not, result="bool", exact=True),
    "negative": Fn(NUMERIC, np.negative, {"int": lambda n: {"lo": _imin(n) + 1}}, exact=True),
    "positive": Fn(NUMERIC, np.positive, exact=True),
    "real": Fn(FLOATING, np.real, result="real", exact=True),
    "reciprocal": Fn(FLOATING, np.reciprocal, {"float": {"lo": -1e3, "hi": 1e3}}),
    "round": Fn(NUMERIC, np.round, {"float": {"lo": -1e3, "hi": 1e3}}, exact=True),
    "sign": Fn(NUMERIC, np.sign, {"int": lambda n: {"lo": max(_imin(n), -100)}}),
    "signbit": Fn(REAL_FLOAT, np.signbit, {"float": {"allow_inf": True}}, "bool", exact=True),
    "sin": Fn(FLOATING, np.sin, {"float": {"lo": -20, "hi": 20}, "complex": SMALL_C},
              transcendental=True),
    "sinh": Fn(FLOATING, np.sinh, {"float": {"lo": -40, "hi": 40}, "complex": SMALL_C},
               transcendental=True),
    "square": Fn(NUMERIC, np.square,
                 {"int": lambda n: {"lo": -math.isqrt(_imax(n)) if n in SIGNED else 0,
                                    "hi": math.isqrt(_imax(n))}}),
    "sqrt": Fn(FLOATING, np.sqrt, {"float": {"lo": 0, "hi": 1e4}, "complex": NOZERO_IMAG},
               transcendental=True),
    "tan": Fn(FLOATING, np.tan, {"float": {"lo": -1.4, "hi": 1.4}, "complex": SMALL_C},
              transcendental=True),
    "tanh": Fn(FLOATING, np.tanh, {"complex": SMALL_C}, transcendental=True),
    "trunc": Fn(REAL, np.trunc, exact=True),
}

# complex inputs off the branch cuts: no exact zero in the imaginary part
for _f in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "log", "log1p", "log2", "log10",
           "sqrt"):
    UNARY[_f].domain["complex_nozero_imag"] = True


def _half(n):
    return {"lo": _imin(n) // 2, "hi": _imax(n) // 2}


def _root(n):
    r = math.isqrt(_imax(n))
    return {"lo": -r if n in SIGNED else 0, "hi": r}


QUARTERS = st.integers(-4000, 4000).map(lambda i: i / 4)     # exact in float32
QUARTERS_NONZERO = QUARTERS.filter(lambda v: v != 0)

BINARY = {
    "add": Fn(NUMERIC, np.add, {"int": _half}),
    "atan2": Fn(REAL_FLOAT, np.arctan2, transcendental=True),
    "bitwise_and": Fn(INTEGRAL + BOOL, np.bitwise_and, exact=True),
    "bitwise_or": Fn(INTEGRAL + BOOL, np.bitwise_or, exact=True),
    "bitwise_xor": Fn(INTEGRAL + BOOL, np.bitwise_xor, exact=True),
    "copysign": Fn(REAL_FLOAT, np.copysign, exact=True),
    "divide": Fn(FLOATING, np.divide),
    "equal": Fn(ALL, np.equal, result="bool", exact=True),
    "floor_divide": Fn(REAL, np.floor_divide, exact=True),
    "greater": Fn(REAL, np.greater, result="bool", exact=True),
    "greater_equal": Fn(REAL, np.greater_equal, result="bool", exact=True),
    "hypot": Fn(REAL_FLOAT, np.hypot),
    "less": Fn(REAL, np.less, result="bool", exact=True),
    "less_equal": Fn(REAL, np.less_equal, result="bool", exact=True),
    "logaddexp": Fn(REAL_FLOAT, np.logaddexp, transcendental=True),
    "logical_and": Fn(BOOL, np.logical_and, result="bool", exact=True),
    "logical_or": Fn(BOOL, np.logical_or, result="bool", exact=True),
    "logical_xor": Fn(BOOL, np.logical_xor, result="bool", exact=True),
    "maximum": Fn(REAL, np.maximum, {"float": {"allow_nan": True, "allow_inf": True}},
                  exact=True),
    "minimum": Fn(REAL, np.minimum, {"float": {"allow_nan": True, "allow_inf": True}},
                  exact=True),
    "multiply": Fn(NUMERIC, np.multiply, {"int": _root}),
    "nextafter": Fn(REAL_FLOAT, np.nextafter, exact=True),
    "not_equal": Fn(ALL, np.not_equal, result="bool", exact=True),
    "pow": Fn(FLOATING, np.power),
    "remainder": Fn(REAL, np.remainder),
    "subtract": Fn(NUMERIC, np.subtract, {"int": _half}),
    "bitwise_left_shift": Fn(INTEGRAL, np.left_shift, exact=True),
    "bitwise_right_shift": Fn(INTEGRAL, np.right_shift, exact=True),
}


def _value_strategies(fname, name):
    """(strategy for x1 elements, strategy for x2 elements) for a binary function."""
    fn = BINARY[fname]
    kw = _kw(fn.domain, name)
    e1 = e2 = elements(name, **kw)
    if fname == "subtract" and name in UNSIGNED:
        e1 = st.integers(_imax(name) // 2, _imax(name))
        e2 = st.integers(0, _imax(name) // 2)
    elif fname in ("floor_divide", "remainder"):
        if name in INTEGRAL:
            lo = _imin(name) + 1 if name in SIGNED else 0
            e1 = st.integers(lo, _imax(name))
            e2 = st.integers(lo, _imax(name)).filter(lambda v: v != 0)
        else:
            e1, e2 = QUARTERS, QUARTERS_NONZERO
    elif fname == "pow":
        if name in REAL_FLOAT:
            e1 = elements(name, lo=0.125, hi=16)
            e2 = elements(name, lo=-6, hi=6)
        else:
            e1 = e2 = elements(name, lo=-2, hi=2)
    elif fname == "bitwise_left_shift":
        bits = np.iinfo(np.dtype(name)).bits
        e1 = elements(name, lo=_imin(name) >> 4, hi=_imax(name) >> 4)
        e2 = st.integers(0, min(4, bits - 1))
    elif fname == "bitwise_right_shift":
        e2 = st.integers(0, np.iinfo(np.dtype(name)).bits - 1)
    elif fname == "nextafter":
        e1 = elements(name).filter(lambda v: v != 0)   # keep results out of the subnormals
    elif fname == "divide" and name in REAL_FLOAT:
        e2 = elements(name).filter(lambda v: v != 0)
    return e1, e2


def _complex_elements(name, kw, nozero_imag):
    width = 32 if name == "complex64" else 64
    lo, hi = kw.get("lo", -100), kw.get("hi", 100)
    lo, hi = _representable(lo, hi, width)
    part = st.floats(lo, hi, width=width, allow_subnormal=False).filter(
        lambda v: v == 0 or abs(v) > 1e-4)
    imag = part.filter(lambda v: v != 0) if nozero_imag else part
    return st.builds(complex, part, imag)


def _unary_elements(fname, name):
    fn = UNARY[fname]
    kw = _kw(fn.domain, name)
    if name in COMPLEX:
        extra = {k: kw[k] for k in ("allow_nan", "allow_inf") if k in kw}
        if extra:
            return elements(name, **extra)
        return _complex_elements(name, kw, fn.domain.get("complex_nozero_imag", False))
    return elements(name, **kw)


def _result_name(fn, name):
    if fn.result == "bool":
        return "bool"
    if fn.result == "real":
        return REAL_OF.get(name, name)
    return name


def _compare(fn, name, out, expected):
    want = _result_name(fn, name)
    expected = np.asarray(expected).astype(want)
    if fn.exact or want in ("bool",) + INTEGRAL:
        assert_equal(to_np(out), expected)
    else:
        rtol = None
        if fn.transcendental and name == "complex64":
            rtol = 1e-3
        assert_close(to_np(out), expected, want, rtol=rtol)


# Shapes come from small pools: the broadcasting chapter explores shapes; here the values
# matter, and a compiling namespace then compiles each function a handful of times only.
UNARY_SHAPES = [(), (0,), (1,), (5,), (2, 3), (2, 1, 3)]
BINARY_SHAPES = [((), ()), ((4,), ()), ((), (4,)), ((4,), (4,)), ((2, 3), (3,)),
                 ((2, 1), (1, 3)), ((0,), (1,)), ((1, 3), (2, 1, 3))]


def _broadcast(s1, s2):
    return np.broadcast_shapes(s1, s2)


UNARY_CASES = [(f, n) for f, fn in UNARY.items() for n in only(fn.dtypes)]
BINARY_CASES = [(f, n) for f, fn in BINARY.items() for n in only(fn.dtypes)]


@pytest.mark.parametrize("fname,name", UNARY_CASES)
@given(data=st.data())
def test_unary(fname, name, data):
    fn = UNARY[fname]
    shape = data.draw(st.sampled_from(UNARY_SHAPES))
    a = data.draw(hnp.arrays(np.dtype(name), shape, elements=_unary_elements(fname, name)))
    out = getattr(xp, fname)(asx(a))
    assert_dtype(out, _result_name(fn, name), f"{fname}({name})")
    assert_shape(out, a.shape)
    with np.errstate(all="ignore"):
        expected = fn.oracle(a)
    _compare(fn, name, out, expected)


@pytest.mark.parametrize("fname,name", BINARY_CASES)
@given(data=st.data())
def test_binary(fname, name, data):
    fn = BINARY[fname]
    s1, s2 = data.draw(st.sampled_from(BINARY_SHAPES))
    e1, e2 = _value_strategies(fname, name)
    a = data.draw(hnp.arrays(np.dtype(name), s1, elements=e1))
    b = data.draw(hnp.arrays(np.dtype(name), s2, elements=e2))
    out = getattr(xp, fname)(asx(a), asx(b))
    assert_dtype(out, _result_name(fn, name), f"{fname}({name}, {name})")
    assert_shape(out, _broadcast(s1, s2))
    with np.errstate(all="ignore"):
        expected = fn.oracle(a, b)
    _compare(fn, name, out, expected)
    if fname in OPERATOR_OF:
        # the operator spells the same function (within rounding: the two may compile apart)
        via_op = OPERATOR_OF[fname](asx(a), asx(b))
        assert_dtype(via_op, _result_name(fn, name))
        _compare(fn, name, via_op, expected)


OPERATOR_OF = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
    "divide": operator.truediv, "floor_divide": operator.floordiv, "remainder": operator.mod,
    "pow": operator.pow, "bitwise_and": operator.and_, "bitwise_or": operator.or_,
    "bitwise_xor": operator.xor, "bitwise_left_shift": operator.lshift,
    "bitwise_right_shift": operator.rshift, "equal": operator.eq, "not_equal": operator.ne,
    "less": operator.lt, "less_equal": operator.le, "greater": operator.gt,
    "greater_equal": operator.ge,
}


@pytest.mark.parametrize("name", only(NUMERIC + BOOL))
@given(data=st.data())
def test_unary_operators(name, data):
    a = data.draw(hnp.arrays(np.dtype(name), st.sampled_from(UNARY_SHAPES),
                             elements=elements(name, lo=(_imin(name) + 1) if name in SIGNED
                                               else None)))
    x = asx(a)
    if name != "bool":
        assert_equal(to_np(-x), to_np(xp.negative(x)))
        assert_equal(to_np(+x), a)
        assert_equal(to_np(abs(x)), to_np(xp.abs(x)))
        assert_dtype(-x, name)
    if name in INTEGRAL + BOOL:
        assert_equal(to_np(~x), np.invert(a))
        assert_dtype(~x, name)


@pytest.mark.parametrize("fname", ["add", "subtract", "multiply", "divide", "pow",
                                   "floor_divide", "remainder", "bitwise_and",
                                   "bitwise_left_shift"])
def test_in_place_operator_values(fname):
    name = "int16" if fname in ("floor_divide", "remainder", "bitwise_and",
                                "bitwise_left_shift") else "float32"
    a = np.array([[7, -3], [5, 2]], dtype=name)
    b = np.array([2, 3], dtype=name)
    iop = {"add": operator.iadd, "subtract": operator.isub, "multiply": operator.imul,
           "divide": operator.itruediv, "pow": operator.ipow,
           "floor_divide": operator.ifloordiv, "remainder": operator.imod,
           "bitwise_and": operator.iand, "bitwise_left_shift": operator.ilshift}[fname]
    x = asx(a)
    x = iop(x, asx(b))
    assert_dtype(x, name)
    expected = getattr(xp, fname)(asx(a), asx(b))
    assert_close(to_np(x), to_np(expected), name)
    # and with a Python scalar on the right
    y = iop(asx(a), 2)
    assert_close(to_np(y), to_np(getattr(xp, fname)(asx(a), 2)), name)


def test_integer_floor_divide_and_remainder_floor():
    # the standard floors (Python semantics), it does not truncate toward zero
    for name in only(SIGNED):
        a = asx(np.array([7, -7, 7, -7, 0, 1, -1], dtype=name))
        b = asx(np.array([2, 2, -2, -2, 3, -3, 3], dtype=name))
        assert to_np(xp.floor_divide(a, b)).tolist() == [3, -4, -4, 3, 0, -1, -1]
        assert to_np(xp.remainder(a, b)).tolist() == [1, 1, -1, -1, 0, -2, 2]


def test_round_half_to_even():
    for name in only(REAL_FLOAT):
        x = asx(np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 2.4, 2.6], dtype=name))
        assert to_np(xp.round(x)).tolist() == [0, 2, 2, 0, -2, -2, 4, 2, 3]


@pytest.mark.parametrize("name", only(REAL))
@given(data=st.data())
def test_clip(name, data):
    a = data.draw(hnp.arrays(np.dtype(name), st.sampled_from(UNARY_SHAPES),
                             elements=elements(name, lo=-100, hi=100)))
    lo = data.draw(st.one_of(st.none(), elements(name, lo=-100, hi=50)))
    hi = data.draw(st.one_of(st.none(), elements(name, lo=50, hi=100)))
    lo_s = None if lo is None else (int(lo) if name in INTEGRAL else float(lo))
    hi_s = None if hi is None else (int(hi) if name in INTEGRAL else float(hi))
    out = xp.clip(asx(a), lo_s, hi_s)
    assert_dtype(out, name)
    expected = a if lo is None and hi is None else np.clip(a, lo, hi)
    assert_equal(to_np(out), np.asarray(expected, dtype=name))
    # with array bounds that broadcast
    lo_a = np.full((1,) * a.ndim, -10, dtype=name) if name not in UNSIGNED else None
    if lo_a is not None:
        out = xp.clip(asx(a), asx(lo_a), asx(np.full((), 10, dtype=name)))
        assert_equal(to_np(out), np.clip(a, -10, 10).astype(name))


# ---------------------------------------------------------------------------------------------
# Special cases, restated from the standard (real-valued floating-point operands).

NAN, INF = math.nan, math.inf
PI = math.pi
# -0.0 and 0.0 are different cases here. Only what the standard states is listed: e.g. the sign
# of round(-0.5) or pow(1, NaN) are IEEE 754 matters the standard does not spell out.


UNARY_SPECIAL = {
    "abs": [(NAN, NAN), (-0.0, 0.0), (0.0, 0.0), (-INF, INF), (INF, INF), (-2.5, 2.5)],
    "sqrt": [(NAN, NAN), (-1.0, NAN), (-INF, NAN), (0.0, 0.0), (-0.0, -0.0), (INF, INF),
             (4.0, 2.0)],
    "exp": [(NAN, NAN), (0.0, 1.0), (-0.0, 1.0), (INF, INF), (-INF, 0.0)],
    "expm1": [(NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -1.0)],
    "log": [(NAN, NAN), (-1.0, NAN), (-INF, NAN), (0.0, -INF), (-0.0, -INF), (1.0, 0.0),
            (INF, INF)],
    "log1p": [(NAN, NAN), (-2.0, NAN), (-1.0, -INF), (-0.0, -0.0), (0.0, 0.0), (INF, INF)],
    "log2": [(NAN, NAN), (-1.0, NAN), (0.0, -INF), (-0.0, -INF), (1.0, 0.0), (INF, INF)],
    "log10": [(NAN, NAN), (-1.0, NAN), (0.0, -INF), (-0.0, -INF), (1.0, 0.0), (INF, INF)],
    "sin": [(NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (INF, NAN), (-INF, NAN)],
    "cos": [(NAN, NAN), (0.0, 1.0), (-0.0, 1.0), (INF, NAN), (-INF, NAN)],
    "tan": [(NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (INF, NAN), (-INF, NAN)],
    "tanh": [(NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (INF, 1.0), (-INF, -1.0)],
    "sinh": [(NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -INF)],
    "cosh": [(NAN, NAN), (0.0, 1.0), (-0.0, 1.0), (INF, INF), (-INF, INF)],
    "atanh": [(NAN, NAN), (-2.0, NAN), (2.0, NAN), (-1.0, -INF), (1.0, INF), (0.0, 0.0),
              (-0.0, -0.0)],
    "asin": [(NAN, NAN), (2.0, NAN), (-2.0, NAN), (0.0, 0.0), (-0.0, -0.0)],
    "acos": [(NAN, NAN), (2.0, NAN), (-2.0, NAN), (1.0, 0.0)],
    "acosh": [(NAN, NAN), (0.5, NAN), (1.0, 0.0), (INF, INF)],
    "atan": [(NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (INF, PI / 2), (-INF, -PI / 2)],
    "asinh": [(NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -INF)],
    "ceil": [(NAN, NAN), (INF, INF), (-INF, -INF), (0.0, 0.0), (-0.0, -0.0), (3.0, 3.0),
             (-1.5, -1.0), (1.2, 2.0)],
    "floor": [(NAN, NAN), (INF, INF), (-INF, -INF), (0.0, 0.0), (-0.0, -0.0), (-3.0, -3.0),
              (0.5, 0.0), (-1.2, -2.0)],
    "trunc": [(NAN, NAN), (INF, INF), (-INF, -INF), (0.0, 0.0), (-0.0, -0.0), (-3.0, -3.0),
              (-1.5, -1.0), (1.7, 1.0)],
    "round": [(NAN, NAN), (INF, INF), (-INF, -INF), (0.0, 0.0), (-0.0, -0.0), (2.0, 2.0),
              (1.5, 2.0), (2.5, 2.0), (-2.5, -2.0), (-3.5, -4.0)],
    "sign": [(NAN, NAN), (-0.0, 0.0), (0.0, 0.0), (-3.0, -1.0), (5.0, 1.0), (INF, 1.0),
             (-INF, -1.0)],
    "square": [(NAN, NAN), (INF, INF), (-INF, INF), (-0.0, 0.0), (-3.0, 9.0)],
    "reciprocal": [(NAN, NAN), (0.0, INF), (-0.0, -INF), (INF, 0.0), (-INF, -0.0)],
    "negative": [(0.0, -0.0), (-0.0, 0.0), (INF, -INF), (NAN, NAN)],
    "signbit": [(0.0, False), (-0.0, True), (INF, False), (-INF, True), (1.0, False),
                (-1.0, True), (NAN, False), (-NAN, True)],
    "isnan": [(NAN, True), (INF, False), (0.0, False)],
    "isinf": [(NAN, False), (INF, True), (-INF, True), (1.0, False)],
    "isfinite": [(NAN, False), (INF, False), (-INF, False), (-0.0, True), (7.0, True)],
}

BINARY_SPECIAL = {
    "add": [(NAN, 1.0, NAN), (1.0, NAN, NAN), (INF, -INF, NAN), (-INF, INF, NAN),
            (INF, INF, INF), (-INF, -INF, -INF), (INF, 2.0, INF), (-INF, 2.0, -INF),
            (2.0, INF, INF), (2.0, -INF, -INF), (-0.0, -0.0, -0.0), (-0.0, 0.0, 0.0),
            (0.0, -0.0, 0.0), (0.0, 0.0, 0.0), (-0.0, 3.0, 3.0), (3.0, -0.0, 3.0),
            (3.0, -3.0, 0.0)],
    "subtract": [(NAN, 1.0, NAN), (INF, INF, NAN), (-INF, -INF, NAN), (INF, -INF, INF),
                 (-0.0, 0.0, -0.0), (0.0, 0.0, 0.0), (3.0, 3.0, 0.0)],
    "multiply": [(NAN, 1.0, NAN), (INF, 0.0, NAN), (-0.0, INF, NAN), (2.0, -0.0, -0.0),
                 (-2.0, -0.0, 0.0), (INF, -INF, -INF), (-INF, -2.0, INF), (3.0, -INF, -INF)],
    "divide": [(NAN, 1.0, NAN), (1.0, NAN, NAN), (INF, -INF, NAN), (0.0, -0.0, NAN),
               (0.0, 2.0, 0.0), (-0.0, 2.0, -0.0), (0.0, -2.0, -0.0), (-0.0, -2.0, 0.0),
               (2.0, 0.0, INF), (2.0, -0.0, -INF), (-2.0, 0.0, -INF), (-2.0, -0.0, INF),
               (INF, 2.0, INF), (INF, -2.0, -INF), (-INF, 2.0, -INF), (-INF, -2.0, INF),
               (2.0, INF, 0.0), (2.0, -INF, -0.0), (-2.0, INF, -0.0), (-2.0, -INF, 0.0),
               (-6.0, -3.0, 2.0), (6.0, -3.0, -2.0)],
    "pow": [(2.0, NAN, NAN), (NAN, 0.0, 1.0), (NAN, -0.0, 1.0), (NAN, 2.0, NAN),
            (2.0, INF, INF), (-2.0, INF, INF), (2.0, -INF, 0.0), (1.0, INF, 1.0),
            (-1.0, INF, 1.0), (-1.0, -INF, 1.0), (1.0, 3.0, 1.0), (0.5, INF, 0.0),
            (-0.5, -INF, INF), (INF, 2.0, INF), (INF, -2.0, 0.0), (-INF, 3.0, -INF),
            (-INF, 2.0, INF), (-INF, -3.0, -0.0), (-INF, -2.0, 0.0), (0.0, 2.0, 0.0),
            (0.0, -2.0, INF), (-0.0, 3.0, -0.0), (-0.0, 2.0, 0.0), (-0.0, -3.0, -INF),
            (-0.0, -2.0, INF), (-2.0, 0.5, NAN), (2.0, 3.0, 8.0)],
    "atan2": [(NAN, 1.0, NAN), (1.0, NAN, NAN), (1.0, 0.0, PI / 2), (1.0, -0.0, PI / 2),
              (0.0, 1.0, 0.0), (0.0, 0.0, 0.0), (0.0, -0.0, PI), (0.0, -1.0, PI),
              (-0.0, 1.0, -0.0), (-0.0, 0.0, -0.0), (-0.0, -0.0, -PI), (-0.0, -1.0, -PI),
              (-1.0, 0.0, -PI / 2), (-1.0, -0.0, -PI / 2), (1.0, INF, 0.0),
              (1.0, -INF, PI), (-1.0, INF, -0.0), (-1.0, -INF, -PI), (INF, 1.0, PI / 2),
              (-INF, 1.0, -PI / 2), (INF, INF, PI / 4), (INF, -INF, 3 * PI / 4),
              (-INF, INF, -PI / 4), (-INF, -INF, -3 * PI / 4)],
    "copysign": [(3.0, -1.0, -3.0), (3.0, -0.0, -3.0), (-3.0, 0.0, 3.0), (-3.0, 2.0, 3.0),
                 (INF, -0.0, -INF), (3.0, -NAN, -3.0), (-3.0, NAN, 3.0)],
    "hypot": [(INF, NAN, INF), (NAN, -INF, INF), (0.0, -3.0, 3.0), (-4.0, -0.0, 4.0),
              (1.0, NAN, NAN), (NAN, NAN, NAN), (3.0, 4.0, 5.0)],
    "maximum": [(NAN, 1.0, NAN), (1.0, NAN, NAN), (-INF, 2.0, 2.0), (INF, 2.0, INF)],
    "minimum": [(NAN, 1.0, NAN), (1.0, NAN, NAN), (-INF, 2.0, -INF), (INF, 2.0, 2.0)],
    "logaddexp": [(NAN, 1.0, NAN), (1.0, NAN, NAN), (INF, 1.0, INF), (1.0, INF, INF),
                  (INF, -INF, INF)],
    "remainder": [(NAN, 1.0, NAN), (INF, INF, NAN), (0.0, -0.0, NAN), (0.0, 2.0, 0.0),
                  (-0.0, 2.0, 0.0), (0.0, -2.0, -0.0), (-0.0, -2.0, -0.0), (2.0, 0.0, NAN),
                  (-2.0, -0.0, NAN), (INF, 2.0, NAN), (-INF, -2.0, NAN), (2.0, INF, 2.0),
                  (-2.0, -INF, -2.0), (5.0, -3.0, -1.0), (-5.0, 3.0, 1.0)],
    "floor_divide": [(NAN, 1.0, NAN), (1.0, NAN, NAN), (INF, INF, NAN), (0.0, -0.0, NAN),
                     (2.0, 0.0, INF), (-2.0, 0.0, -INF), (7.0, 2.0, 3.0), (-7.0, 2.0, -4.0)],
    "equal": [(NAN, NAN, False), (0.0, -0.0, True), (INF, INF, True), (NAN, 1.0, False)],
    "not_equal": [(NAN, NAN, True), (0.0, -0.0, False)],
    "less": [(NAN, 1.0, False), (-0.0, 0.0, False), (-INF, 1.0, True)],
    "greater_equal": [(NAN, NAN, False), (0.0, -0.0, True), (INF, 1e30, True)],
}


def _check_special(got, cases, what, name):
    tol = 1e-6 if name == "float32" else 1e-12
    for i, case in enumerate(cases):
        *args, want = case
        g = got[i]
        label = f"{what}({', '.join(map(repr, args))}) = {g!r}, expected {want!r}"
        if isinstance(want, bool):
            assert bool(g) is want, label
        elif math.isnan(want):
            assert math.isnan(g), label
            if what.startswith("copysign"):
                assert bool(np.signbit(g)) == bool(np.signbit(want)), label + " (sign of NaN)"
        elif math.isinf(want) or want == 0:
            assert g == want and bool(np.signbit(g)) == bool(np.signbit(want)), label
        else:
            assert abs(g - want) <= tol * max(1.0, abs(want)), label


@pytest.mark.parametrize("fname", sorted(UNARY_SPECIAL))
@pytest.mark.parametrize("name", only(REAL_FLOAT))
def test_unary_special_cases(fname, name):
    cases = UNARY_SPECIAL[fname]
    x = np.array([c[0] for c in cases], dtype=name)
    got = to_np(getattr(xp, fname)(asx(x))).tolist()
    _check_special(got, cases, fname, name)


@pytest.mark.parametrize("fname", sorted(BINARY_SPECIAL))
@pytest.mark.parametrize("name", only(REAL_FLOAT))
def test_binary_special_cases(fname, name):
    cases = BINARY_SPECIAL[fname]
    x1 = np.array([c[0] for c in cases], dtype=name)
    x2 = np.array([c[1] for c in cases], dtype=name)
    got = to_np(getattr(xp, fname)(asx(x1), asx(x2))).tolist()
    _check_special(got, cases, fname, name)
    if fname in OPERATOR_OF:
        got_op = to_np(OPERATOR_OF[fname](asx(x1), asx(x2))).tolist()
        _check_special(got_op, cases, f"operator {fname}", name)


def test_special_case_tables_are_signed():
    # the tables above distinguish -0.0 from 0.0 (a typo check on the transcription)
    assert math.copysign(1.0, UNARY_SPECIAL["sqrt"][4][1]) == -1.0
    assert math.copysign(1.0, BINARY_SPECIAL["divide"][5][2]) == -1.0


COMPLEX_SPECIAL = {
    # (real, imag) -> (real, imag); the standard's complex special cases, a few of them
    "add": [((-0.0, 0.0), (-0.0, -0.0), (-0.0, 0.0))],
    "sqrt": [((0.0, 0.0), None, (0.0, 0.0)), ((INF, 1.0), None, (INF, 0.0)),
             ((3.0, INF), None, (INF, INF))],
    "exp": [((0.0, 0.0), None, (1.0, 0.0)), ((-0.0, 0.0), None, (1.0, 0.0))],
    "abs": [((INF, NAN), None, INF), ((NAN, -INF), None, INF), ((-3.0, 4.0), None, 5.0)],
    "isnan": [((NAN, 0.0), None, True), ((0.0, NAN), None, True), ((INF, 0.0), None, False)],
    "isinf": [((INF, NAN), None, True), ((NAN, 1.0), None, False)],
}


@pytest.mark.parametrize("fname", sorted(COMPLEX_SPECIAL))
@pytest.mark.parametrize("name", only(COMPLEX))
def test_complex_special_cases(fname, name):
    for a, b, want in COMPLEX_SPECIAL[fname]:
        args = [asx(np.array([complex(*a)], dtype=name))]
        if b is not None:
            args.append(asx(np.array([complex(*b)], dtype=name)))
        g = to_np(getattr(xp, fname)(*args))[0]
        label = f"{fname}{(a, b) if b else a} = {g!r}, expected {want!r}"
        if isinstance(want, bool):
            assert bool(g) is want, label
        elif isinstance(want, tuple):
            for part, w in ((g.real, want[0]), (g.imag, want[1])):
                if math.isnan(w):
                    assert math.isnan(part), label
                else:
                    assert part == w and np.signbit(part) == np.signbit(w), label
        else:
            assert float(g) == want, label
