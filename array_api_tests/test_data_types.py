"""Data types and data type functions (standard: "Data Types", "Data Type Functions")."""

import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st

from ._support import (
    ALL, BITS, BOOL, COMPLEX, FLOATING, INTEGRAL, NUMERIC, REAL_FLOAT, REAL_OF, SIGNED,
    UNSIGNED, NS_NAME, arrays, asx, assert_dtype, assert_equal, dt, name_of, only, shapes,
    to_np, xp,
)
from .test_type_promotion import PROMOTION

KINDS = {
    "bool": set(BOOL),
    "signed integer": set(SIGNED),
    "unsigned integer": set(UNSIGNED),
    "integral": set(INTEGRAL),
    "real floating": set(REAL_FLOAT),
    "complex floating": set(COMPLEX),
    "numeric": set(NUMERIC),
}


def test_dtype_objects_compare():
    names = only(ALL)
    for a, b in itertools.product(names, repeat=2):
        assert (dt(a) == dt(b)) is (a == b), f"{a} == {b}"
        assert (dt(a) != dt(b)) is (a != b), f"{a} != {b}"
    x = asx(np.zeros(2, dtype=np.float32))
    assert x.dtype == xp.float32


@pytest.mark.parametrize("name", only(FLOATING))
def test_finfo(name):
    real = REAL_OF[name]
    ref = np.finfo(np.dtype(real))
    for arg in (dt(name), xp.zeros((1,), dtype=dt(name))):
        fi = xp.finfo(arg)
        assert fi.bits == BITS[real] and isinstance(fi.bits, int)
        for attr in ("eps", "max", "min", "smallest_normal"):
            v = getattr(fi, attr)
            assert isinstance(v, float), f"finfo.{attr} should be a float, got {type(v)}"
        assert fi.eps == float(ref.eps)
        assert fi.max == float(ref.max)
        assert fi.min == float(ref.min)
        assert fi.smallest_normal == float(ref.smallest_normal)
        assert name_of(fi.dtype) == real


@pytest.mark.parametrize("name", only(INTEGRAL))
def test_iinfo(name):
    ref = np.iinfo(np.dtype(name))
    for arg in (dt(name), xp.zeros((1,), dtype=dt(name))):
        ii = xp.iinfo(arg)
        assert ii.bits == BITS[name]
        assert ii.max == int(ref.max) and isinstance(ii.max, int)
        assert ii.min == int(ref.min) and isinstance(ii.min, int)
        assert name_of(ii.dtype) == name


CAST_PAIRS = sorted(PROMOTION)


@pytest.mark.parametrize("pair", [p for p in CAST_PAIRS if p[0] in only(ALL)
                                  and p[1] in only(ALL)],
                         ids=lambda p: f"{p[0]}-{p[1]}")
def test_can_cast_follows_promotion(pair):
    a, b = pair
    # within a kind: a casts to b exactly when promoting a with b gives b
    expected = PROMOTION[pair] == b
    assert xp.can_cast(dt(a), dt(b)) is expected
    assert xp.can_cast(xp.zeros((1,), dtype=dt(a)), dt(b)) is expected


@pytest.mark.parametrize("name", only(ALL))
def test_can_cast_to_self(name):
    assert xp.can_cast(dt(name), dt(name)) is True


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_isdtype_kinds(kind):
    for name in only(ALL):
        assert xp.isdtype(dt(name), kind) is (name in KINDS[kind]), f"isdtype({name}, {kind!r})"


def test_isdtype_dtype_and_tuple():
    for name in only(ALL):
        for other in only(ALL):
            assert xp.isdtype(dt(name), dt(other)) is (name == other)
        want = name in KINDS["bool"] | KINDS["real floating"] or name == "int8"
        got = xp.isdtype(dt(name), ("bool", "real floating", xp.int8))
        assert got is want, name


@pytest.mark.parametrize("name", only(ALL))
def test_result_type_with_python_scalars(name):
    # 2024.12: result_type takes scalars; the scalar adopts the array dtype's kind
    scalars = {"bool": [True], **{n: [1] for n in INTEGRAL}, **{n: [1, 1.5] for n in REAL_FLOAT},
               **{n: [1, 1.5, 1j] for n in COMPLEX}}[name]
    for s in scalars:
        assert name_of(xp.result_type(dt(name), s)) == name
        assert name_of(xp.result_type(s, xp.zeros((1,), dtype=dt(name)))) == name
    if name in REAL_FLOAT:
        assert name_of(xp.result_type(dt(name), 1j)) == {"float32": "complex64",
                                                         "float64": "complex128"}[name]


def _safe_casts():
    for a, b in PROMOTION:
        if PROMOTION[(a, b)] == b and a in only(ALL) and b in only(ALL):
            yield a, b
    for n in only(NUMERIC):
        yield "bool", n
        if n not in COMPLEX:
            yield n, "bool"   # complex -> bool: below


SAFE = sorted(set(_safe_casts()))


@pytest.mark.parametrize("pair", SAFE, ids=lambda p: f"{p[0]}-to-{p[1]}")
@given(data=st.data())
def test_astype(pair, data):
    a_name, b_name = pair
    lo, hi = (-100, 100) if b_name not in UNSIGNED else (0, 100)
    a = data.draw(arrays(a_name, shapes(max_dims=2), lo=lo, hi=hi))
    out = xp.astype(asx(a), dt(b_name))
    assert_dtype(out, b_name)
    assert_equal(to_np(out), a.astype(b_name))


def test_astype_copy():
    x = asx(np.array([1, 2, 3], dtype=np.int32))
    y = xp.astype(x, xp.int32, copy=True)
    x[0] = 9
    assert to_np(y).tolist() == [1, 2, 3]
    z = xp.astype(x, xp.int32, copy=False)
    assert to_np(z).tolist() == [9, 2, 3]


@pytest.mark.parametrize("name", only(COMPLEX))
@pytest.mark.xfail(NS_NAME == "array_api_strict", strict=True,
                   reason="array_api_strict refuses complex -> bool, which the standard defines")
def test_astype_complex_to_bool(name):
    # "a value of 0 + 0j must cast to False, and all other values must cast to True"
    x = asx(np.array([0j, 1j, 1 + 0j, -0.0 + 0j, complex(np.nan, 0)], dtype=name))
    assert to_np(xp.astype(x, xp.bool)).tolist() == [False, True, True, False, True]
