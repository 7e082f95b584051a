"""Shared helpers: the namespace under test, dtype tables, strategies and assertions.

Environment:
  LAZYARRAY_TEST_NAMESPACE    module to test (default ``lazyarray``; ``array_api_strict`` works)
  LAZYARRAY_TEST_API_VERSION  spec version to hold it to (default: its ``__array_api_version__``)
  LAZYARRAY_TEST_MAX_EXAMPLES hypothesis examples per test (default 20; see conftest.py)
"""

from __future__ import annotations

import importlib
import math
import os

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

NS_NAME = os.environ.get("LAZYARRAY_TEST_NAMESPACE", "lazyarray")
xp = importlib.import_module(NS_NAME)
API_VERSION = os.environ.get("LAZYARRAY_TEST_API_VERSION") or getattr(
    xp, "__array_api_version__", "2024.12"
)
AT_LEAST_2025 = API_VERSION >= "2025.12"
# 2024.12 returns lists from meshgrid/broadcast_arrays/info.devices(); 2025.12 tuples.
SEQ_TYPE = tuple if AT_LEAST_2025 else list

# ---------------------------------------------------------------------------------------------
# Data types, by the standard's kinds.

BOOL = ("bool",)
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGRAL = SIGNED + UNSIGNED
REAL_FLOAT = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
FLOATING = REAL_FLOAT + COMPLEX
REAL = INTEGRAL + REAL_FLOAT
NUMERIC = INTEGRAL + FLOATING
ALL = BOOL + NUMERIC

BITS = {
    "bool": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
    "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
    "float32": 32, "float64": 64, "complex64": 64, "complex128": 128,
}
REAL_OF = {"complex64": "float32", "complex128": "float64", "float32": "float32",
           "float64": "float64"}
COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "complex64": "complex64",
              "complex128": "complex128"}


def info():
    return xp.__array_namespace_info__()


def _supported_names():
    try:
        names = set(info().dtypes())
    except Exception:  # no inspection API: fall back on the attributes
        names = {n for n in ALL if hasattr(xp, n)}
    return names


SUPPORTED = _supported_names()


def only(names):
    """The names among ``names`` that the namespace supports, in order."""
    return tuple(n for n in names if n in SUPPORTED)


def dt(name):
    """The namespace's dtype object for a canonical name."""
    return getattr(xp, name)


def name_of(dtype):
    """Canonical name of a dtype object of the namespace (AssertionError when unknown)."""
    for n in ALL:
        if hasattr(xp, n) and dtype == getattr(xp, n):
            return n
    raise AssertionError(f"{dtype!r} is none of the standard's dtypes")


def default_dtypes():
    return info().default_dtypes()


def default_name(kind):
    """Name of the default dtype of a kind: 'real floating', 'complex floating', 'integral',
    'indexing'."""
    return name_of(default_dtypes()[kind])


def kind_of(name):
    if name == "bool":
        return "bool"
    if name in SIGNED:
        return "signed"
    if name in UNSIGNED:
        return "unsigned"
    if name in REAL_FLOAT:
        return "real"
    return "complex"


# ---------------------------------------------------------------------------------------------
# Moving data in and out.

def asx(a, dtype=None):
    """numpy array (or python data) -> array of the namespace, keeping numpy's dtype."""
    a = np.array(a, copy=True, dtype=dtype)
    if a.dtype.name not in ALL:
        raise TypeError(f"no standard dtype for {a.dtype}")
    return xp.asarray(a, dtype=dt(a.dtype.name))


def to_np(x):
    """Array of the namespace -> numpy array through ``__array__`` (the oracle's view)."""
    assert not isinstance(x, (np.ndarray, np.generic)), "got a numpy object, not an xp array"
    a = np.asarray(x)
    assert a.shape == tuple(x.shape), f"numpy sees shape {a.shape}, array says {x.shape}"
    return a


def assert_dtype(x, name, what="result"):
    got = name_of(x.dtype)
    assert got == name, f"{what} dtype: got {got}, expected {name}"


def assert_shape(x, shape, what="result"):
    assert tuple(x.shape) == tuple(shape), f"{what} shape: got {tuple(x.shape)}, expected {tuple(shape)}"


def tolerances(name):
    name = REAL_OF.get(name, name)
    if name == "float32":
        return 1e-4, 1e-5
    return 1e-9, 1e-12


def assert_equal(actual, expected, *, signed_zeros=False, what="values"):
    """Exact comparison of numpy arrays; NaN equals NaN, optionally -0.0 differs from +0.0."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind in "fc" or expected.dtype.kind in "fc":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        if signed_zeros:
            for part in (np.real, np.imag):
                a, e = part(actual), part(expected)
                zeros = e == 0
                assert np.array_equal(np.signbit(a[zeros]), np.signbit(e[zeros])), (
                    f"{what}: signs of zeros differ: got {a[zeros]!r}, expected {e[zeros]!r}")
    else:
        assert np.array_equal(actual, expected), f"{what}: got\n{actual!r}\nexpected\n{expected!r}"


def assert_close(actual, expected, name, *, rtol=None, atol=None, what="values"):
    """Comparison within the dtype's tolerance; NaN equals NaN and infinities must match."""
    r, a = tolerances(name)
    rtol = r if rtol is None else rtol
    atol = a if atol is None else atol
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True,
                               err_msg=what)


def normalize_axis(axis, ndim):
    return axis + ndim if axis < 0 else axis


def requires(flag, reason):
    return pytest.mark.skipif(not flag, reason=reason)


def has_extension(name):
    return hasattr(xp, name)


def capability(key):
    try:
        return bool(info().capabilities().get(key, False))
    except Exception:
        return False


# ---------------------------------------------------------------------------------------------
# Strategies. Arrays are drawn as numpy arrays (the oracle's inputs) and converted with asx().

def shapes(min_dims=0, max_dims=3, min_side=0, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def _int_bounds(name):
    i = np.iinfo(np.dtype(name))
    return int(i.min), int(i.max)


def _representable(lo, hi, width):
    """Bounds rounded inward to floats of the given width (hypothesis insists on it)."""
    if width == 64:
        return float(lo), float(hi)
    f32 = np.float32
    l, h = f32(lo), f32(hi)
    if float(l) < lo:
        l = np.nextafter(l, f32(np.inf))
    if float(h) > hi:
        h = np.nextafter(h, f32(-np.inf))
    return float(l), float(h)


def _real_values(width, lo, hi, allow_nan, allow_inf):
    # No subnormals: XLA flushes them on the CPU and the standard leaves them out of scope.
    tiny = 1e-6 if width == 32 else 1e-12
    lo, hi = _representable(lo, hi, width)
    body = st.floats(min_value=lo, max_value=hi, width=width, allow_subnormal=False,
                     allow_nan=False, allow_infinity=False).filter(
        lambda v: v == 0 or abs(v) >= tiny)
    extra = []
    if allow_nan:
        extra.append(st.just(math.nan))
    if allow_inf:
        extra.extend([st.just(math.inf), st.just(-math.inf)])
    if extra:
        return st.one_of(body, *extra)
    return body


def elements(name, *, lo=None, hi=None, allow_nan=False, allow_inf=False):
    """Scalar values for a dtype. Floats default to [-1e3, 1e3] (never subnormal); ints to
    the whole range clipped to [lo, hi]; complex numbers take lo/hi for both parts."""
    if name == "bool":
        return st.booleans()
    if name in INTEGRAL:
        mn, mx = _int_bounds(name)
        lo = mn if lo is None else max(mn, int(math.ceil(lo)))
        hi = mx if hi is None else min(mx, int(math.floor(hi)))
        return st.integers(lo, hi)
    width = 32 if name in ("float32", "complex64") else 64
    lo = -1e3 if lo is None else lo
    hi = 1e3 if hi is None else hi
    part = _real_values(width, lo, hi, allow_nan, allow_inf)
    if name in REAL_FLOAT:
        return part
    return st.builds(complex, part, part)


def arrays(name, shape=None, **kw):
    """numpy arrays of a dtype; shape is a tuple or a strategy (default: shapes())."""
    if shape is None:
        shape = shapes()
    return hnp.arrays(np.dtype(name), shape, elements=elements(name, **kw))


def xp_pair(name, shape=None, **kw):
    """Strategy of (numpy array, namespace array) with equal contents."""
    return arrays(name, shape, **kw).map(lambda a: (a, asx(a)))


def scalar_of(name, value):
    """A python scalar of the kind that goes with a dtype."""
    if name == "bool":
        return bool(value)
    if name in INTEGRAL:
        return int(value)
    if name in REAL_FLOAT:
        return float(value)
    return complex(value)
