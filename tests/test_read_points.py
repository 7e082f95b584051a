"""A value must not depend on where the user reads it (issue 9, item 2).

Each program runs three ways: lazily with one read at the end (the whole program is one fused
graph), lazily with a read after every step (one small graph per step), and on numpy. Both lazy
runs go through each tier: compiled (`interpret_first = 0`) and the numpy interpreter (it never
compiles a graph it has a rule for). All three must agree bit for bit (NaN as a class, sign of
zero included): overflow, NaN and infinity behaviour, comparisons, integer ops and conversions.
The only licence is the rounding of a multiply-add that XLA contracts into one FMA (last test).

The inputs are chosen so that the rewrites XLA's algebraic simplifier makes (it is off:
_runtime.compile_options) and the folds of the StableHLO -> HLO conversion (float constants are
opaque to them: _ops._lower_constant) would each change a result.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine


@pytest.fixture(params=["compiled", "interpreted"])
def tier(request, monkeypatch):
    monkeypatch.setattr(_config, "interpret_first", 0 if request.param == "compiled" else 10 ** 9)
    xp.clear_cache()
    xp.metrics.reset()
    yield request.param
    _engine.wait_for_compiles()
    xp.clear_cache()


def _ordinal(v):
    """Floats as integers in the order of the reals (adjacent floats differ by 1)."""
    it = {4: np.int32, 8: np.int64}[v.dtype.itemsize]
    i = v.view(it).astype(np.int64)
    return np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)


def _bits_equal(got, want, what, ulps=0):
    """Bit for bit (NaN as a class, sign of zero too); with `ulps`, finite values may differ by
    that many units in the last place (transcendental functions: XLA's are not numpy's)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    if got.dtype.kind in "fc":
        for g, w in ((got.real, want.real), (got.imag, want.imag)) if got.dtype.kind == "c" else ((got, want),):
            nan = np.isnan(w)
            np.testing.assert_array_equal(np.isnan(g), nan, err_msg=f"{what}: NaN positions")
            g, w = g[~nan], w[~nan]
            same = (g == w) & (np.signbit(g) == np.signbit(w))
            if ulps:
                same |= np.isfinite(g) & np.isfinite(w) & (np.abs(_ordinal(g) - _ordinal(w)) <= ulps)
            assert same.all(), f"{what}: {g[~same].tolist()} where numpy gives {w[~same].tolist()}"
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _run(program, inputs):
    """(read at the end, read every step, numpy): every value the program returns."""
    def lazy(read_every_step):
        arrays = [xp.asarray(a) for a in inputs]
        step = (lambda a: (np.asarray(a), a)[1]) if read_every_step else (lambda a: a)
        return [np.asarray(r) for r in program(xp, step, *arrays)]
    with np.errstate(all="ignore"):
        want = [np.asarray(r) for r in program(np, lambda a: a, *[np.array(a) for a in inputs])]
    return lazy(False), lazy(True), want


def check(program, *inputs, numpy=True, ulps=0):
    """Read at the end and every step agree bit for bit; both agree with numpy, to `ulps` where
    the program has transcendental functions (XLA's exp, log, ... are within 1-2 ulp of numpy's;
    tests/test_precision.py bounds them). Inputs and results stay clear of subnormals, which XLA
    CPU flushes to zero (documented)."""
    at_end, every_step, want = _run(program, inputs)
    for k, (a, b) in enumerate(zip(at_end, every_step)):
        _bits_equal(a, b, f"result {k}: read at the end vs every step")
        if numpy:
            _bits_equal(a, want[k], f"result {k}: lazyarray vs numpy", ulps)
            _bits_equal(b, want[k], f"result {k}: lazyarray read every step vs numpy", ulps)


F64 = np.float64
BIG64 = np.array([1.5, 2.0, 0.5, -1.5, 1.0, 0.0, -0.0, np.inf, -np.inf, np.nan], F64)


# ---------------------------------------------------------------- the programs

def p_issue(xp, step, v3):
    """The issue's fuzzer find: log2(pow(x, y)) is not y * log2(x) when pow overflows."""
    v3 = step(v3 ** 178176.0)
    v7 = step(xp.log2(v3))
    return [step(v3 - v7), v7]


def p_pow_log(xp, step, x, y):
    p = step(x ** y)
    return [step(xp.log(p)), step(xp.log10(p)), step(xp.log(xp.abs(p)))]


def p_exp_log(xp, step, x, y):
    ex, ey = step(xp.exp(x)), step(xp.exp(y))
    return [step(xp.log(ex)), step(ex * ey), step(ex / ey), step(x / ey), step(xp.log1p(ex))]


def p_divide_by_constants(xp, step, x):
    three, ten, small = (xp.full(x.shape, c, dtype=x.dtype) for c in (3.0, 10.0, 1e-300))
    q = step(x / three)
    r = step(q / ten)
    return [q, r, step(x / small), step(xp.mean(x * 0.0 + x))]


def p_constant_chains(xp, step, x):
    big = xp.full(x.shape, 1e300, dtype=x.dtype)
    tiny = xp.full(x.shape, 1e-300, dtype=x.dtype)
    up = step(x * big)
    a = step(up * tiny)         # (x * C1) * C2 is not x * (C1 * C2) when x * C1 overflows
    off = xp.full(x.shape, 1e16, dtype=x.dtype)
    b = step((x + off) - off)   # not x + (C - C)
    two = xp.full(x.shape, 2.0, dtype=x.dtype)
    c = step(step(up * two) + step(-up * two))  # A*2 + B*2 is not (A + B) * 2: inf - inf
    return [a, b, c]


def p_zeros(xp, step, x):
    z = xp.zeros(x.shape, dtype=x.dtype)
    return [step(z + x), step(x + z), step(x - z), step(z - x), step(x * z), step(x * xp.ones(x.shape)),
            step(x * 0.0), step(x - x), step(x / x), step(xp.abs(x) - xp.abs(x)), step(x * 1.0)]


def p_sqrt_forms(xp, step, x, y):
    s = step(xp.sqrt(y))
    return [step(x / s), step(xp.sqrt(x * x)), step(s * s), step(xp.exp(xp.log(y)))]


def p_fractions(xp, step, a, b, c, d):
    return [step(step(a / b) / c), step(a / step(b / c)), step(step(a / b) / step(c / d))]


def p_compare_convert(xp, step, x):
    d = step(x - x)
    nz = step(d == 0)
    big = step(x * x)
    return [nz, step(x != x), step(big > x), step(xp.isinf(big)), step(xp.isnan(d)),
            step(xp.astype(xp.isfinite(big), xp.int32)), step(xp.sign(x * 0.0))]


def p_float32(xp, step, x):
    c = xp.full(x.shape, 1e8, dtype=x.dtype)
    return [step(step(x + c) - c), step(x * xp.full(x.shape, 3e38, dtype=x.dtype) / 3e38),
            step(xp.exp(x * 100.0) / xp.exp(x * 100.0))]


def p_integers(xp, step, v, w):
    s = step(v * v)                      # wraps
    return [s, step(s + w), step(v ** v), step(w ** 3), step(s // w), step(s % w), step(v << 3), step(-s),
            step(xp.abs(s)), step(s > w)]


def p_integer_pow_neg_bases(xp, step, b, e):
    return [step(b ** e), step(step(b * b) ** e)]


def p_float_to_int(xp, step, x):
    # float -> int of NaN / inf / out of range is unspecified (numpy: platform-dependent; ours:
    # saturating, NaN -> 0); the value only has to be the same wherever it is read
    return [step(xp.astype(step(x * 1e10), xp.int32)), step(xp.astype(x, xp.int64))]


# ---------------------------------------------------------------- the tests

def test_issue_program(tier):
    check(p_issue, np.array([1.5, 2.0, 0.5, 1.0], F64), ulps=2)


def test_pow_then_log(tier):
    x = np.array([1.5, 2.0, 10.0, 0.5, -2.0, 0.0, 1e-200, np.inf], F64)
    y = np.array([178176.0, 2000.0, 400.0, 2000.0, 3.0, 0.0, 5.0, 0.5], F64)
    check(p_pow_log, x, y, ulps=2)


def test_exp_then_log(tier):
    x = np.array([800.0, -800.0, 710.0, 1.0, -745.2, np.inf, np.nan, 0.0], F64)
    y = np.array([-800.0, 800.0, -700.0, 2.0, 1.0, 1.0, 0.0, 800.0], F64)
    check(p_exp_log, x, y, ulps=2)


def test_division_by_constants(tier):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(200) * 10
    # numbers where x / 3 != x * (1 / 3) and x / 10 / 10 != x / 100 (so the check has teeth)
    assert (x / 3.0 != x * (1 / 3.0)).any()
    check(p_divide_by_constants, np.concatenate([x, BIG64]))


def test_constant_chains(tier):
    check(p_constant_chains, np.array([1e10, 1.0, -3.0, 1e-320 * 0, 0.25, np.inf], F64))


def test_zeros_and_signed_zero(tier):
    check(p_zeros, BIG64)


def test_sqrt_forms(tier):
    x = np.array([1e200, -1e200, 3.0, 0.0, -0.0, np.inf, 2.0, 1e-200], F64)
    y = np.array([7.0, 2.0, 1e-300, 0.0, 4.0, np.inf, -1.0, 3.0], F64)
    check(p_sqrt_forms, x, y, ulps=2)


def test_fractions(tier):
    a = np.array([1e300, 1.0, 7.0, 0.0, np.inf], F64)
    b = np.array([1e-300, 3.0, 1e300, 5.0, 2.0], F64)
    c = np.array([1e300, 7.0, 1e-300, 0.0, np.inf], F64)
    d = np.array([1e-10, 11.0, 1e5, 1.0, 2.0], F64)
    check(p_fractions, a, b, c, d)


def test_comparisons_and_conversions(tier):
    check(p_compare_convert, np.array([1e200, -1e200, np.inf, -np.inf, np.nan, 0.0, -0.0, 3.0], F64))


def test_float32_rewrites(tier):
    check(p_float32, np.array([1.0, -0.0, 3.0, 0.5, 8.0, 1e30, -1e30, np.inf], np.float32), ulps=2)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64])
def test_integer_ops(tier, dtype):
    info = np.iinfo(dtype)
    v = np.array([info.max, info.max - 1, 3, 2, 100, 7, 1, 0], dtype)
    w = np.array([3, 5, 7, 1, 2, info.max, 9, 13], dtype)
    check(p_integers, v, w)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_pow_negative_bases(tier, dtype):
    b = np.array([-2, -3, -1, -7, 5, -128 if dtype is np.int8 else -(2 ** 20), 0, 1], dtype)
    e = np.array([7, 40, 63, 9, 100, 3, 0, 127], dtype)
    check(p_integer_pow_neg_bases, b, e)


def test_float_to_int_same_wherever_read(tier):
    x = np.array([1e300, -1e300, np.inf, -np.inf, np.nan, 2.5, -2.5, 0.3], F64)
    check(p_float_to_int, x, numpy=False)
    at_end, _, want = _run(p_float_to_int, (x,))
    finite = np.abs(x * 1e10) < 2 ** 31
    np.testing.assert_array_equal(at_end[0][finite], want[0][finite])


def test_the_tier_ran(tier):
    check(p_exp_log, np.array([1.0, 800.0]), np.array([2.0, -800.0]), ulps=2)
    if tier == "compiled":
        assert xp.metrics.as_dict()["compiles"] > 0
    else:
        assert xp.metrics.as_dict()["interpreted"] > 0


def test_multiply_add_contraction_is_the_only_licence(tier):
    """a * b + c may be one FMA when fused (one rounding instead of two): documented."""
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(500) for _ in range(3))

    def prog(xp, step, a, b, c):
        return [step(step(a * b) + c)]
    at_end, every_step, want = _run(prog, (a, b, c))
    np.testing.assert_array_equal(every_step[0], want[0])
    bound = np.finfo(F64).eps * (np.abs(a * b) + np.abs(want[0]))  # one rounding of a * b, and the sum's
    assert (np.abs(at_end[0] - want[0]) <= bound).all()


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_integer_pow_negative_exponents(tier, dtype):
    """numpy raises for negative integer exponents; a lazy call cannot (no sync at the call):
    ours gives the real result truncated toward zero, the same wherever it is read."""
    b = np.array([2, -1, -1, 1, 0, 5, -7, 3], dtype)
    e = np.array([-1, -3, -2, -5, -1, 0, 1, -128 if dtype is np.int8 else -(2 ** 15)], dtype)
    with np.errstate(all="ignore"):  # the real power, truncated; 0 ** -n (inf) gives 0
        real = np.trunc(b.astype(np.float64) ** e.astype(np.float64))
    want = np.where(np.isfinite(real), real, 0).astype(dtype)
    np.testing.assert_array_equal(np.asarray(xp.asarray(b) ** xp.asarray(e)), want)  # read at the end
    base = xp.asarray(b) * 1
    np.asarray(base)  # read the base first: a separate program for the power
    np.testing.assert_array_equal(np.asarray(base ** (xp.asarray(e) - 0)), want)
