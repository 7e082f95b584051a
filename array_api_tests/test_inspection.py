"""Inspection API (standard: "Inspection", ``__array_namespace_info__``) and versioning."""

import re

import numpy as np
import pytest

from ._support import (
    ALL, AT_LEAST_2025, COMPLEX, INTEGRAL, NUMERIC, REAL_FLOAT, SEQ_TYPE, SIGNED, UNSIGNED,
    name_of, xp,
)

CANONICAL = set(ALL)


def info():
    return xp.__array_namespace_info__()


def test_version():
    v = xp.__array_api_version__
    assert isinstance(v, str) and re.fullmatch(r"\d{4}\.\d{2}", v)
    assert v >= "2024.12", f"lazyarray targets 2024.12 and 2025.12, namespace says {v}"


def test_capabilities():
    caps = info().capabilities()
    assert isinstance(caps, dict)
    for key in ("boolean indexing", "data-dependent shapes"):
        assert key in caps and isinstance(caps[key], bool), key
    assert "max dimensions" in caps
    m = caps["max dimensions"]
    assert m is None or (isinstance(m, int) and m >= 1)
    if m is not None:
        # an array of that many dimensions can be made
        assert xp.zeros((1,) * min(m, 8)).ndim == min(m, 8)


def test_devices_and_default_device():
    devices = info().devices()
    assert isinstance(devices, SEQ_TYPE), f"devices() returns {type(devices).__name__}"
    assert len(devices) >= 1
    default = info().default_device()
    if default is not None or not AT_LEAST_2025:
        assert default in devices
    x = xp.zeros((2,), dtype=xp.float32)
    assert x.device in devices
    for d in devices:
        y = xp.zeros((2,), dtype=xp.float32, device=d)
        assert y.device == d


def test_default_dtypes():
    d = info().default_dtypes()
    assert set(d) == {"real floating", "complex floating", "integral", "indexing"}
    assert name_of(d["real floating"]) in REAL_FLOAT
    assert name_of(d["complex floating"]) in COMPLEX
    assert name_of(d["integral"]) in INTEGRAL
    assert name_of(d["indexing"]) in INTEGRAL
    # the creation functions use them
    assert xp.asarray(1.0).dtype == d["real floating"]
    assert xp.asarray(1).dtype == d["integral"]
    assert xp.asarray(1j).dtype == d["complex floating"]
    assert xp.zeros(2).dtype == d["real floating"]
    assert xp.argmax(xp.asarray([1.0, 2.0])).dtype == d["indexing"]
    # complex precision matches the real default
    assert ({"float32": "complex64", "float64": "complex128"}[name_of(d["real floating"])]
            == name_of(d["complex floating"]))
    dev = info().default_device()
    assert info().default_dtypes(device=dev) == d


def test_dtypes_all():
    table = info().dtypes()
    assert isinstance(table, dict)
    assert set(table) <= CANONICAL, f"non-canonical names: {set(table) - CANONICAL}"
    assert "bool" in table
    for name, d in table.items():
        assert d == getattr(xp, name)


KIND_NAMES = {
    "bool": {"bool"}, "signed integer": set(SIGNED), "unsigned integer": set(UNSIGNED),
    "integral": set(INTEGRAL), "real floating": set(REAL_FLOAT),
    "complex floating": set(COMPLEX), "numeric": set(NUMERIC),
}


@pytest.mark.parametrize("kind", sorted(KIND_NAMES))
def test_dtypes_by_kind(kind):
    every = set(info().dtypes())
    got = info().dtypes(kind=kind)
    assert set(got) == KIND_NAMES[kind] & every
    for name, d in got.items():
        assert xp.isdtype(d, kind)


def test_dtypes_by_kind_tuple_and_device():
    every = set(info().dtypes())
    got = info().dtypes(kind=("bool", "real floating"))
    assert set(got) == ({"bool"} | set(REAL_FLOAT)) & every
    assert set(info().dtypes(device=info().default_device())) == every


def test_namespace_info_dtypes_do_what_they_say():
    # a dtype listed as supported computes at its own width (no silent narrowing)
    for name, d in info().dtypes(kind="numeric").items():
        x = xp.ones((2,), dtype=d)
        assert name_of((x + x).dtype) == name
        assert np.asarray(x + x).dtype == np.dtype(name)
    if "int64" in info().dtypes():
        big = xp.asarray([2**40], dtype=xp.int64)
        assert int((big + big)[0]) == 2**41
    if "float64" in info().dtypes():
        tiny = xp.asarray([1.0], dtype=xp.float64) + xp.asarray([1e-12], dtype=xp.float64)
        assert float(tiny[0]) == 1.0 + 1e-12
