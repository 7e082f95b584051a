"""Every elementwise function, every real floating dtype, both tiers: within 1 ulp of numpy, and
exact wherever numpy is exact (issue 9, item 8).

The sweep (benchmarks/precision.py, which prints the table for the README) runs each function on
random inputs over its domain, special points and exact powers. Bounds:

- interpreted tier: numpy's own functions, so within 1 ulp of numpy (0 in practice);
- compiled tier: within 1 ulp of numpy where decimal gives no exact reference; where it does,
  within 1 ulp of the exact value (correctly rounded). Where numpy itself is off the exact value
  (glibc's float64 sinh/cosh/log10 by 1 ulp, numpy's float32 exp/log/log10/sinh/acosh by 2-3),
  the compiled result may be that far plus 1 from numpy's, and no further;
- logaddexp where max(x, y) < 0 and the result is near 0: the formula cancels (numpy is 13 ulp
  from exact there too); bounded at 16 ulp from exact.

Complex functions are measured by the table, not bounded here (left out: see the report).
Inputs and results below the smallest normal float are left out (XLA CPU flushes subnormals).
"""
import functools
import math

import numpy as np
import pytest

import lazyarray as xp
from benchmarks import precision as P

REAL_CASES = [(n, d) for n, d in P.cases() if d in P.REAL_DTYPES]
CANCELLING = {"logaddexp": 16}


@functools.lru_cache(maxsize=None)
def _sweep(name, dtype):
    args = P.inputs(name, dtype, n=1000)
    want = P.numpy_result(name, args)
    got = {t: P.run_tier(name, args, t) for t in P.TIERS}
    return args, want, got, P.reference(name, args, dtype)


def _comparable(name, args):
    """floor_divide of a non-finite operand follows the standard's special cases, not numpy's
    (inf // 2 is inf, numpy NaN; -5 // inf is -0.0, numpy -1.0): documented, left out here."""
    if name == "floor_divide":
        return np.isfinite(args[0]) & np.isfinite(args[1])
    return np.ones(args[0].shape, bool)


@pytest.mark.parametrize("tier", P.TIERS)
@pytest.mark.parametrize("name,dtype", REAL_CASES, ids=[f"{n}-{d}" for n, d in REAL_CASES])
def test_within_one_ulp(name, dtype, tier):
    args, want, got, ref = _sweep(name, dtype)
    keep = _comparable(name, args)
    g, w = got[tier][keep], want[keep]
    to_numpy = P.ulp_distance(g, w)
    if tier == "interpreted":
        assert to_numpy <= 1, f"{name} {dtype}: {P.worst(name, g, w, [a[keep] for a in args])}"
        return
    if ref is None:
        ref = _float32_reference(name, args, dtype)
    if ref is None:
        assert to_numpy <= 1, f"{name} {dtype}: {P.worst(name, g, w, [a[keep] for a in args])}"
        return
    to_exact = P.ulp_where_defined(got[tier], ref)
    numpy_off = P.ulp_where_defined(want, ref)
    bound = CANCELLING.get(name, 1)
    assert to_exact <= bound, f"{name} {dtype}: {to_exact} ulp from the exact value"
    assert to_numpy <= max(1, numpy_off + 1) or name in CANCELLING, (
        f"{name} {dtype}: {to_numpy} ulp from numpy, which is {numpy_off} from exact")
    # and NaN / infinity exactly where numpy has them (ulp_distance is inf otherwise)
    assert np.isfinite(to_numpy)


# float32 results of the functions decimal cannot express, from the C library's float64 ones
# (within 1 ulp of float64, so correctly rounded to float32 but for rare double roundings): the
# reference where numpy's own float32 kernels are off (its AVX-512 ones: acos, asin, tan, atan2
# 1-2 ulp from the correctly rounded value, where ours are within 1)
_MATH64 = {"acos": math.acos, "asin": math.asin, "atan": math.atan, "atan2": math.atan2,
           "sin": math.sin, "cos": math.cos, "tan": math.tan}


def _float32_reference(name, args, dtype):
    fn = _MATH64.get(name)
    if fn is None or np.dtype(dtype) != np.float32:
        return None
    out = np.full(args[0].shape, np.nan, np.float32)
    for i in range(out.size):
        vals = [float(a[i]) for a in args]
        if all(math.isfinite(v) for v in vals):
            try:
                out[i] = np.float32(fn(*vals))
            except (ValueError, OverflowError):
                pass
    return out


@pytest.fixture(params=P.TIERS)
def tier(request):
    return request.param


def _run(tier, fn, *arrays):
    from lazyarray import _config, _engine
    saved = _config.interpret_first
    _config.interpret_first = 0 if tier == "compiled" else 10 ** 9
    try:
        xp.clear_cache()
        out = np.asarray(fn(*[xp.asarray(a) for a in arrays]))
        _engine.wait_for_compiles()
        return out
    finally:
        _config.interpret_first = saved


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exact_where_numpy_is_exact(tier, dtype):
    top = 10 if dtype is np.float64 else 6
    k10 = np.arange(-top, top + 1).astype(dtype)
    p10 = np.array([10.0 ** k for k in range(-top, top + 1)], dtype)
    # The compiled tier is exact at every power of ten and two, and for integer powers of 2 and
    # 10; the interpreter calls numpy's kernels, exact there on most CPUs but not all (numpy's
    # AVX-512 ones: float32 log10(1e5) is 5.0000005, float64 10.0 ** -17 is 1 ulp low): there the
    # interpreter gives numpy's bits, no other
    numpy_exact = (np.log10(p10) == k10).all()
    want = k10 if tier == "compiled" or numpy_exact else np.log10(p10)
    np.testing.assert_array_equal(_run(tier, xp.log10, p10), want)  # log10(0.1) is -1.0, log10(1000) 3.0
    k2 = np.arange(-100, 101).astype(dtype)
    p2 = np.ldexp(1.0, np.arange(-100, 101)).astype(dtype)
    np.testing.assert_array_equal(_run(tier, xp.log2, p2), k2)
    e = np.arange(-20, 21).astype(dtype)
    for base in (2.0, 10.0):
        b = np.full(e.size, base, dtype)
        exact = np.array([base ** float(k) for k in e.tolist()], np.float64).astype(dtype)
        np.testing.assert_array_equal(_run(tier, xp.pow, b, e), exact if tier == "compiled" else np.power(b, e))
    ints = np.arange(0, 4097).astype(dtype)
    np.testing.assert_array_equal(_run(tier, xp.sqrt, ints * ints), ints)
    np.testing.assert_array_equal(_run(tier, xp.exp, np.zeros(3, dtype)), np.ones(3, dtype))
    np.testing.assert_array_equal(_run(tier, xp.log, np.ones(3, dtype)), np.zeros(3, dtype))
    np.testing.assert_array_equal(_run(tier, xp.expm1, np.zeros(1, dtype)), np.zeros(1, dtype))
    assert _run(tier, xp.log10, np.array([0.1]))[0] == -1.0


def test_the_issue_values(tier):
    assert _run(tier, xp.log10, np.array([0.1, 1000.0])).tolist() == [-1.0, 3.0]
    x = np.array([0.3, -0.7, 0.999, 1e-10, -0.5])
    got = _run(tier, xp.atanh, x)
    assert P.ulp_distance(got, np.arctanh(x)) <= 1
    y = np.array([0.5, -3.0, 20.0, 700.0, 1e-9])
    assert P.ulp_distance(_run(tier, xp.sinh, y), np.sinh(y)) <= 2
    assert P.ulp_distance(_run(tier, xp.cosh, y), np.cosh(y)) <= 2
