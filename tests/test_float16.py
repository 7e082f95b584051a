"""float16, an extension dtype (numpy, PyTorch, JAX and CuPy have it; SciPy's and scikit-learn's
code takes it where a namespace has it): numpy's promotion, numpy's values within half-precision
rounding in both tiers, and clear errors where numpy has none either (linalg)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt

pytestmark = pytest.mark.usefixtures("both_tiers")


def test_promotion_is_numpys():
    for a in dt.ALL:
        r = dt.PROMOTION[(a, xp.float16)]
        assert r is not None and r.np == np.result_type(a.np, np.float16), (a, r)
    assert xp.result_type(xp.float16, xp.int8) is xp.float16
    assert xp.result_type(xp.float16, xp.int16) is xp.float32
    assert xp.result_type(xp.float16, xp.uint32) is xp.float64
    assert xp.result_type(xp.float16, xp.complex64) is xp.complex64
    assert (xp.asarray([1, 2], dtype=xp.float16) + 1.5).dtype is xp.float16
    assert (xp.asarray([1, 2], dtype=xp.float16) + 1j).dtype is xp.complex64


def test_kind_finfo_and_inspection():
    assert xp.isdtype(xp.float16, "real floating") and xp.isdtype(xp.float16, "numeric")
    assert not xp.isdtype(xp.float16, "complex floating")
    fi, nf = xp.finfo(xp.float16), np.finfo(np.float16)
    assert (fi.bits, fi.eps, fi.max, fi.smallest_normal) == (16, float(nf.eps), float(nf.max), float(nf.tiny))
    # the standard's dtypes only: float16 works, but is not listed as supported
    assert "float16" not in xp.__array_namespace_info__().dtypes()
    assert xp.asarray(np.ones(3, np.float16)).dtype is xp.float16
    assert np.asarray(xp.ones(3, dtype=xp.float16)).dtype == np.float16


def _close(got, want, ulps=2):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if got.dtype.kind == "b":
        np.testing.assert_array_equal(got, want)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(want)
    spacing = np.abs(np.spacing(want[fin].astype(np.float16))).astype(np.float64)
    assert np.all(np.abs(got[fin].astype(np.float64) - want[fin].astype(np.float64)) <= ulps * spacing)


@pytest.fixture
def data():
    rng = np.random.default_rng(16)
    a = (rng.standard_normal(40) * 3).astype(np.float16)
    b = (rng.uniform(0.5, 6, 40)).astype(np.float16)
    return a, b


@pytest.mark.parametrize("name", ["exp", "sin", "cos", "tanh", "abs", "floor", "negative", "square",
                                  "round", "sign", "expm1", "atan", "sinh"])
def test_unary_matches_numpy(data, name):
    a, _ = data
    _close(getattr(xp, name)(xp.asarray(a)), getattr(np, name)(a))


@pytest.mark.parametrize("name", ["log", "sqrt", "log1p"])
def test_unary_positive_matches_numpy(data, name):
    _, b = data
    _close(getattr(xp, name)(xp.asarray(b)), getattr(np, name)(b))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "atan2",
                                  "hypot", "remainder", "copysign", "pow", "less", "equal"])
def test_binary_matches_numpy(data, name):
    a, b = data
    want = getattr(np, {"pow": "power"}.get(name, name))(a, b)
    _close(getattr(xp, name)(xp.asarray(a), xp.asarray(b)), want)


def test_reductions_sort_and_indexing(data):
    a, _ = data
    x = xp.asarray(a)
    assert xp.sum(x).dtype is xp.float16
    np.testing.assert_allclose(float(xp.sum(x)), float(np.sum(a.astype(np.float64))), atol=0.1)
    assert float(xp.max(x)) == float(np.max(a)) and float(xp.min(x)) == float(np.min(a))
    np.testing.assert_array_equal(np.asarray(xp.sort(x)), np.sort(a))
    np.testing.assert_array_equal(np.asarray(xp.argsort(x, stable=True)), np.argsort(a, kind="stable"))
    y = xp.asarray(a)
    y[3] = 7.25
    want = a.copy()
    want[3] = 7.25
    np.testing.assert_array_equal(np.asarray(y), want)
    assert float(y[3]) == 7.25
    np.testing.assert_array_equal(np.asarray(xp.astype(x, xp.float32)), a.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(xp.astype(xp.asarray(a.astype(np.float64) / 3), xp.float16)),
                                  (a.astype(np.float64) / 3).astype(np.float16))


def test_matmul_and_fft(data):
    a, b = data
    got = xp.reshape(xp.asarray(a), (5, 8)) @ xp.reshape(xp.asarray(b), (8, 5))
    assert got.dtype is xp.float16
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               a.reshape(5, 8).astype(np.float64) @ b.reshape(8, 5), rtol=1e-2, atol=0.05)
    r = xp.fft.rfft(xp.asarray(a))  # single precision, as numpy's
    assert r.dtype is xp.complex64
    np.testing.assert_allclose(np.asarray(r), np.fft.rfft(a.astype(np.float32)), rtol=1e-5, atol=1e-4)


def test_linalg_refuses_it_at_the_call():
    a = xp.asarray(np.eye(3, dtype=np.float16))
    for fn in (xp.linalg.inv, xp.linalg.cholesky, xp.linalg.svd, xp.linalg.det):
        with pytest.raises(TypeError, match="float16"):
            fn(a)
