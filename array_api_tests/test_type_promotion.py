"""Type promotion (standard: "Type Promotion Rules").

The tables below restate the standard's four promotion tables (signed, unsigned, mixed
signed/unsigned, floating-point); pairs not in them (mixed kinds, uint64 with a signed
integer) are unspecified and not tested here. Python scalars follow "Mixing arrays with
Python scalars": the scalar takes the array's dtype, and a complex scalar with a real
floating-point array gives the complex dtype of the same precision.
"""

import itertools
import operator

import numpy as np
import pytest
from hypothesis import given, strategies as st

from ._support import (
    ALL, BOOL, COMPLEX_OF, FLOATING, INTEGRAL, NUMERIC, REAL_FLOAT, SIGNED, UNSIGNED, asx,
    assert_dtype, dt, name_of, only, to_np, xp, assert_close, assert_equal, elements,
)

_CODES = {"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
          "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
          "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128"}


def _table(text):
    """Rows 'row: r1 r2 ...' against a header 'cols: c1 c2 ...' -> {(row, col): result}."""
    lines = [ln.split() for ln in text.strip().splitlines()]
    cols = lines[0]
    out = {}
    for row, *results in lines[1:]:
        for col, res in zip(cols, results):
            out[(_CODES[row], _CODES[col])] = _CODES[res]
            out[(_CODES[col], _CODES[row])] = _CODES[res]
    return out


PROMOTION = {}
PROMOTION.update(_table("""
    i1 i2 i4 i8
i1  i1 i2 i4 i8
i2  i2 i2 i4 i8
i4  i4 i4 i4 i8
i8  i8 i8 i8 i8
"""))
PROMOTION.update(_table("""
    u1 u2 u4 u8
u1  u1 u2 u4 u8
u2  u2 u2 u4 u8
u4  u4 u4 u4 u8
u8  u8 u8 u8 u8
"""))
PROMOTION.update(_table("""
    u1 u2 u4
i1  i2 i4 i8
i2  i2 i4 i8
i4  i4 i4 i8
i8  i8 i8 i8
"""))
PROMOTION.update(_table("""
     f4  f8  c8 c16
f4   f4  f8  c8 c16
f8   f8  f8 c16 c16
c8   c8 c16  c8 c16
c16 c16 c16 c16 c16
"""))
PROMOTION[("bool", "bool")] = "bool"

PAIRS = sorted(k for k in PROMOTION if k[0] in only(ALL) and k[1] in only(ALL))
NUMERIC_PAIRS = [p for p in PAIRS if p[0] != "bool"]
INT_PAIRS = [p for p in PAIRS if p[0] in INTEGRAL]
FLOAT_PAIRS = [p for p in PAIRS if p[0] in FLOATING]
REAL_FLOAT_PAIRS = [p for p in FLOAT_PAIRS if p[0] in REAL_FLOAT and p[1] in REAL_FLOAT]


def test_tables_are_symmetric_and_complete():
    # a check on the transcription: 16 signed/unsigned pairs each, 24 mixed, 16 floating
    assert sum(1 for a, b in PROMOTION if a in SIGNED and b in SIGNED) == 16
    assert sum(1 for a, b in PROMOTION if a in UNSIGNED and b in UNSIGNED) == 16
    assert sum(1 for a, b in PROMOTION if a in SIGNED and b in UNSIGNED) == 12
    assert sum(1 for a, b in PROMOTION if a in FLOATING and b in FLOATING) == 16
    for (a, b), r in PROMOTION.items():
        assert PROMOTION[(b, a)] == r


# Functions by the dtypes they accept, each with the promoted result or bool.
ARITH = ["add", "subtract", "multiply"]
FLOAT_ONLY = ["divide", "pow"]
INT_ONLY = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
            "bitwise_right_shift", "floor_divide", "remainder"]
REAL_ONLY = ["maximum", "minimum"]
REAL_FLOAT_ONLY = ["atan2", "copysign", "hypot", "logaddexp", "nextafter"]
COMPARE = ["equal", "not_equal"]
ORDER = ["less", "less_equal", "greater", "greater_equal"]


def _cases():
    for f in ARITH:
        for p in NUMERIC_PAIRS:
            yield f, p
    for f in FLOAT_ONLY:
        for p in FLOAT_PAIRS:
            yield f, p
    for f in INT_ONLY:
        for p in INT_PAIRS:
            yield f, p
    for f in REAL_ONLY + ["floor_divide", "remainder"]:
        for p in REAL_FLOAT_PAIRS:
            yield f, p
    for f in REAL_ONLY:
        for p in INT_PAIRS:
            yield f, p
    for f in REAL_FLOAT_ONLY:
        for p in REAL_FLOAT_PAIRS:
            yield f, p
    for f in COMPARE:
        for p in PAIRS:
            yield f, p
    for f in ORDER:
        for p in INT_PAIRS + REAL_FLOAT_PAIRS:
            yield f, p
    for f in ["bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or",
              "logical_xor"]:
        yield f, ("bool", "bool")


CASES = sorted(set(_cases()))


def _ones(name, shape):
    return xp.ones(shape, dtype=dt(name))


@pytest.mark.parametrize("func,pair", CASES, ids=[f"{f}-{a}-{b}" for f, (a, b) in CASES])
def test_function_promotes(func, pair):
    a, b = pair
    expected = "bool" if func in COMPARE + ORDER else PROMOTION[pair]
    # a 0-d operand promotes like any other (standard: "regardless of array dimension")
    out = getattr(xp, func)(_ones(a, (2, 1)), _ones(b, ()))
    assert_dtype(out, expected, f"{func}({a}, {b})")
    assert out.shape == (2, 1)


OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
             "&": operator.and_, "|": operator.or_, "^": operator.xor,
             "<<": operator.lshift, ">>": operator.rshift, "@": operator.matmul,
             "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
             ">": operator.gt, ">=": operator.ge}
IN_PLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul,
            "/": operator.itruediv, "//": operator.ifloordiv, "%": operator.imod,
            "**": operator.ipow, "&": operator.iand, "|": operator.ior, "^": operator.ixor,
            "<<": operator.ilshift, ">>": operator.irshift}


def _op_pairs(op):
    if op in "+-*@":
        return NUMERIC_PAIRS
    if op in ("/", "**"):
        return FLOAT_PAIRS
    if op in ("//", "%"):
        return INT_PAIRS + REAL_FLOAT_PAIRS
    if op in ("&", "|", "^"):
        return INT_PAIRS + [("bool", "bool")]
    if op in ("<<", ">>"):
        return INT_PAIRS
    if op in ("==", "!="):
        return PAIRS
    return INT_PAIRS + REAL_FLOAT_PAIRS


OP_CASES = [(op, p) for op in OPERATORS for p in _op_pairs(op)]


@pytest.mark.parametrize("op,pair", OP_CASES, ids=[f"{o}-{a}-{b}" for o, (a, b) in OP_CASES])
def test_operator_promotes(op, pair):
    a, b = pair
    shape_a, shape_b = ((3,), (3,)) if op == "@" else ((3, 2), (2,))
    out = OPERATORS[op](_ones(a, shape_a), _ones(b, shape_b))
    expected = "bool" if op in ("==", "!=", "<", "<=", ">", ">=") else PROMOTION[pair]
    assert_dtype(out, expected, f"{a} {op} {b}")


IN_PLACE_CASES = [(op, p) for op in IN_PLACE for p in _op_pairs(op)
                  if PROMOTION[p] == p[0]]


@pytest.mark.parametrize("op,pair", IN_PLACE_CASES,
                         ids=[f"{o}=-{a}-{b}" for o, (a, b) in IN_PLACE_CASES])
def test_in_place_operator_keeps_dtype(op, pair):
    # x1 op= x2 is allowed when the promoted dtype is x1's; the result keeps x1's dtype
    a, b = pair
    x = _ones(a, (2, 2))
    y = IN_PLACE[op](x, _ones(b, (2,)))
    assert_dtype(y, a, f"{a} {op}= {b}")
    assert y.shape == (2, 2)


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_result_type(pair):
    a, b = pair
    assert name_of(xp.result_type(dt(a), dt(b))) == PROMOTION[pair]
    assert name_of(xp.result_type(_ones(a, (1,)), dt(b))) == PROMOTION[pair]
    assert name_of(xp.result_type(_ones(a, ()), _ones(b, (2,)))) == PROMOTION[pair]


TRIPLES = [t for t in itertools.product(only(SIGNED + UNSIGNED + FLOATING), repeat=3)
           if (t[0], t[1]) in PROMOTION and (PROMOTION[(t[0], t[1])], t[2]) in PROMOTION
           and (t[1], t[2]) in PROMOTION and (t[0], PROMOTION[(t[1], t[2])]) in PROMOTION]


@given(st.sampled_from(TRIPLES))
def test_result_type_is_associative(triple):
    a, b, c = triple
    expected = PROMOTION[(PROMOTION[(a, b)], c)]
    assert expected == PROMOTION[(a, PROMOTION[(b, c)])]
    assert name_of(xp.result_type(dt(a), dt(b), dt(c))) == expected
    assert name_of(xp.result_type(dt(c), dt(a), dt(b))) == expected


@pytest.mark.parametrize("name", only(ALL))
def test_result_type_single_and_same(name):
    assert name_of(xp.result_type(dt(name))) == name
    assert name_of(xp.result_type(dt(name), dt(name))) == name


# ---------------------------------------------------------------------------------------------
# Arrays with Python scalars.

SCALAR_KINDS = {  # dtype kind -> python scalar types that must be accepted
    "bool": (bool,),
    "int": (int,),
    "real": (int, float),
    "complex": (int, float, complex),
}


def _scalar_cases():
    for name in only(ALL):
        kind = ("bool" if name == "bool" else "int" if name in INTEGRAL
                else "real" if name in REAL_FLOAT else "complex")
        for t in SCALAR_KINDS[kind]:
            yield name, t


SCALAR_CASES = list(_scalar_cases())
SCALAR_VALUE = {bool: True, int: 3, float: 0.5, complex: 1.5 - 2j}


def _scalar_ops(name):
    if name == "bool":
        return ["&", "|", "^", "==", "!="]
    ops = ["+", "-", "*", "==", "!="]
    if name in INTEGRAL:
        ops += ["//", "%", "&", "|", "^", "<<", ">>", "<", ">="]
    elif name in REAL_FLOAT:
        ops += ["/", "**", "//", "%", "<", ">="]
    else:
        ops += ["/", "**"]
    return ops


@pytest.mark.parametrize("name,stype", SCALAR_CASES,
                         ids=[f"{n}-{t.__name__}" for n, t in SCALAR_CASES])
def test_array_scalar_operators(name, stype):
    s = SCALAR_VALUE[stype]
    # values keep every case in range: no unsigned wrap-around, no division by zero,
    # no shift past the width
    base = np.array([[1, 2], [3, 4]]).astype(name)
    x = asx(base)
    for op in _scalar_ops(name):
        f = OPERATORS[op]
        comparison = op in ("==", "!=", "<", ">=")
        expected = "bool" if comparison else name
        for out, npout in ((f(x, s), f(base, np.asarray(s, dtype=name))),
                           (f(s, x), f(np.asarray(s, dtype=name), base))):
            assert_dtype(out, expected, f"{name} {op} {stype.__name__}")
            assert out.shape == (2, 2)
            if op == "-" and name in UNSIGNED:
                continue  # one of the two directions wraps around
            if name in FLOATING:
                assert_close(to_np(out), npout.astype(expected), name, what=f"x {op} {s!r}")
            else:
                assert_equal(to_np(out), npout.astype(expected), what=f"x {op} {s!r}")
        if op in IN_PLACE:
            y = asx(base)
            y = IN_PLACE[op](y, s)
            assert_dtype(y, name, f"{name} {op}= {stype.__name__}")


@pytest.mark.parametrize("name", only(REAL_FLOAT))
def test_complex_scalar_with_real_float_array(name):
    x = asx(np.array([1.0, -2.0], dtype=name))
    want = COMPLEX_OF[name]
    for out in (x + 1j, 1j + x, x * (2 - 1j), (2 - 1j) * x, x - 1j, x / 2j):
        assert_dtype(out, want, f"{name} with a complex scalar")
    assert_close(to_np(x + 1j), np.array([1 + 1j, -2 + 1j], dtype=want), want)


@pytest.mark.parametrize("name", only(NUMERIC))
def test_scalar_does_not_widen(name):
    # a scalar takes the array's dtype even when its value would suggest a wider one
    x = asx(np.zeros((3,), dtype=name))
    assert_dtype(x + 1, name)
    assert_dtype(1 + x, name)
    assert_dtype(x * 1, name)


@pytest.mark.parametrize("name", only(NUMERIC + BOOL))
def test_functions_accept_scalars(name):
    # 2024.12: binary elementwise functions take a Python scalar for one of x1, x2
    x = asx(np.array([1, 0, 1]).astype(name))
    s = SCALAR_VALUE[bool if name == "bool" else int]
    assert_dtype(xp.equal(x, s), "bool")
    assert_dtype(xp.equal(s, x), "bool")
    if name != "bool":
        assert_dtype(xp.add(x, s), name)
        assert_dtype(xp.add(s, x), name)
        assert_dtype(xp.multiply(s, x), name)
        assert_equal(to_np(xp.add(s, x)), to_np(xp.add(asx(np.asarray(s, dtype=name)), x)))
    else:
        assert_dtype(xp.logical_and(x, s), "bool")
        assert_dtype(xp.logical_or(s, x), "bool")


@given(st.sampled_from(only(REAL_FLOAT)), st.data())
def test_scalar_operator_values(name, data):
    vals = data.draw(st.lists(elements(name, lo=-100, hi=100), min_size=1, max_size=5))
    s = data.draw(elements("float64", lo=-100, hi=100))
    base = np.asarray(vals, dtype=name)
    x = asx(base)
    assert_close(to_np(x * s), base * np.asarray(s, dtype=name), name)
    assert_close(to_np(s - x), np.asarray(s, dtype=name) - base, name)
