"""The interpreter tier's elementwise evaluations (`_ops.elementwise`) against the compiled
program, op by op and dtype by dtype, special values included (see tier_check for how)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._graph import toposort
from tier_check import (ALL, COMPLEX, FLOATS, INTS, assert_same, both, check, check_close, compile_always, ids, leaf,  # noqa: F401
                        pairs, specials, unsupported)

pytestmark = pytest.mark.usefixtures("compile_always")


# ---------------------------------------------------------------- elementwise, binary

BINARY = {  # op -> dtypes the rule covers
    ops.ADD: INTS + FLOATS + COMPLEX,
    ops.SUBTRACT: INTS + FLOATS + COMPLEX,
    ops.MULTIPLY: INTS + FLOATS,
    ops.DIVIDE: INTS + FLOATS,
    ops.REMAINDER: INTS + FLOATS,
    ops.MAXIMUM: [dt.bool] + INTS + FLOATS,
    ops.MINIMUM: [dt.bool] + INTS + FLOATS,
    ops.AND: [dt.bool] + INTS,
    ops.OR: [dt.bool] + INTS,
    ops.XOR: [dt.bool] + INTS,
    ops.SHIFT_LEFT: INTS,
    ops.SHIFT_RIGHT_ARITHMETIC: INTS,
    ops.SHIFT_RIGHT_LOGICAL: INTS,
    ops.POWER: FLOATS,
    ops.ATAN2: FLOATS,
    ops.NEXTAFTER: FLOATS,
}
_BIN_CASES = [(op, d) for op, ds in BINARY.items() for d in ds]


@pytest.mark.parametrize("op,d", _BIN_CASES, ids=[f"{o.name}-{d.name}" for o, d in _BIN_CASES])
def test_binary(op, d):
    a, b = pairs(d)
    ulps = 4 if op in (ops.POWER, ops.ATAN2) and d.kind == "f" else 0
    check(op(leaf(a), leaf(b)), ulps)


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_multiply_within_fma_rounding(d):
    # numpy's formula is XLA's; LLVM may fuse a product into the sum (one rounding less), so the
    # parts agree to a few eps of the products' magnitude, and special values as a class except
    # where a product overflows (inf - inf is NaN, a fused product's exact value gives +-inf)
    eps = np.finfo(d.np).eps
    a, b = pairs(d)
    got, want = both(ops.MULTIPLY(leaf(a), leaf(b)))
    with np.errstate(all="ignore"):
        parts = [x.astype(np.float64) for x in (a.real, a.imag, b.real, b.imag)]
        finite = np.all([np.abs(p) <= np.finfo(d.np).max for p in parts], axis=0)
        products = np.max([np.abs(p * q) for p in parts[:2] for q in parts[2:]], axis=0)
    no_overflow = finite & (products <= np.finfo(d.np).max)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        np.testing.assert_array_equal(np.isnan(g[no_overflow]), np.isnan(w[no_overflow]))
        np.testing.assert_array_equal(np.isinf(g[no_overflow]), np.isinf(w[no_overflow]))
    rng = np.random.default_rng(3)
    ra, rb = (rng.standard_normal((2, 500)) + 1j * rng.standard_normal((2, 500))).astype(d.np)
    got, want = both(ops.MULTIPLY(leaf(ra), leaf(rb)))
    assert got.dtype == d.np
    scale = np.abs(ra) * np.abs(rb)  # the products' magnitude bounds an FMA's rounding change
    assert np.all(np.abs(got - want) <= 4 * eps * scale)


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_divide_within_rounding(d):
    # both scale the division; their roundings differ by at most ~2 eps of the quotient, and the
    # NaN/infinity classes of every pair of special values agree
    eps = np.finfo(d.np).eps
    a, b = pairs(d)
    got, want = both(ops.DIVIDE(leaf(a), leaf(b)))
    for f in (np.isnan, np.isinf):
        np.testing.assert_array_equal(f(got.real) | f(got.imag), f(want.real) | f(want.imag))
    rng = np.random.default_rng(4)
    ra, rb = (rng.standard_normal((2, 500)) + 1j * rng.standard_normal((2, 500))).astype(d.np)
    got, want = both(ops.DIVIDE(leaf(ra), leaf(rb)))
    assert got.dtype == d.np
    assert np.all(np.abs(got - want) <= 3 * eps * np.abs(want))


@pytest.mark.parametrize("op", [ops.ADD, ops.DIVIDE, ops.MAXIMUM, ops.SHIFT_LEFT])
def test_binary_zero_d_operands(op):
    # a 0-D operand next to an array (the lowering broadcasts it), and two 0-D operands
    d = dt.int32 if op == ops.SHIFT_LEFT else dt.float64
    a = np.arange(-3, 4).astype(d.np)
    check(op(leaf(a), leaf(np.asarray(2, d.np))))
    check(op(leaf(np.asarray(5, d.np)), leaf(a)))
    check(op(leaf(np.asarray(5, d.np)), leaf(np.asarray(3, d.np))))
    check(op(ops.scalar(2, d), leaf(a)))  # a Python scalar leaf


@pytest.mark.parametrize("d", INTS, ids=ids(INTS))
def test_integer_division_semantics(d):
    info = np.iinfo(d.np)
    lo = info.min
    a = np.array([7, 7, lo, lo, 0, info.max, 5], d.np)
    b = np.array([0, 2, 0, -1 if lo else 3, 0, 7, 3], d.np)
    q = check(ops.DIVIDE(leaf(a), leaf(b)))
    r = check(ops.REMAINDER(leaf(a), leaf(b)))
    assert q[0] == np.array(-1).astype(d.np) and r[0] == 7  # x / 0 = -1 (all ones), x % 0 = x
    if lo:
        assert q[3] == lo and r[3] == 0  # INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0
        n = np.array([-7, -7, 7], d.np)
        m = np.array([2, -2, -2], d.np)
        np.testing.assert_array_equal(check(ops.DIVIDE(leaf(n), leaf(m))), [-3, 3, -3])
        np.testing.assert_array_equal(check(ops.REMAINDER(leaf(n), leaf(m))), [-1, -1, 1])


@pytest.mark.parametrize("d", INTS, ids=ids(INTS))
def test_shifts_out_of_range(d):
    bits = d.bits
    a = np.array([1, 3, 5, -1 if d.kind == "i" else np.iinfo(d.np).max], d.np)
    for amount in [0, 1, bits - 1, bits, bits + 5, np.iinfo(d.np).max]:
        b = np.full(4, amount, d.np)
        left = check(ops.SHIFT_LEFT(leaf(a), leaf(b)))
        arith = check(ops.SHIFT_RIGHT_ARITHMETIC(leaf(a), leaf(b)))
        logical = check(ops.SHIFT_RIGHT_LOGICAL(leaf(a), leaf(b)))
        if amount >= bits:
            assert not left.any() and not logical.any()
            np.testing.assert_array_equal(arith, np.where(a.view(f"i{d.np.itemsize}") < 0, -1, 0).astype(d.np))
    if d.kind == "i":  # negative amounts read as huge unsigned ones
        b = np.full(4, -1, d.np)
        assert not check(ops.SHIFT_LEFT(leaf(a), leaf(b))).any()


@pytest.mark.parametrize("d", [dt.int8, dt.int32, dt.int64, dt.uint8, dt.uint64], ids=str)
def test_integer_power(d):
    info = np.iinfo(d.np)
    base = np.array([2, 2, 3, 1, 0, 0, 7, 5, 3], d.np)
    exp = np.array([3, d.bits + 2, 5, 100, 0, 3, 0, 1, info.max], d.np)
    np.testing.assert_array_equal(check(ops.INTEGER_POWER(leaf(base), leaf(exp))), base ** exp)
    if d.kind == "i":  # negative exponents: 1 -> 1, -1 -> +-1, others 0
        base = np.array([1, -1, -1, 0, 2, -2, 1], d.np)
        exp = np.array([-3, -3, -2, -1, -1, -5, info.min], d.np)
        np.testing.assert_array_equal(check(ops.INTEGER_POWER(leaf(base), leaf(exp))), [1, -1, 1, 0, 0, 0, 1])


@pytest.mark.parametrize("d", FLOATS, ids=ids(FLOATS))
def test_float_power_specials(d):
    a = np.array([-0.0, -np.inf, 2.0, 0.0, np.nan, 1.0, -8.0, 4.0], d.np)
    for e in [0.5, -0.5, 2.0, 0.0, 1.0, -1.0, 3.0, 1 / 3]:
        check(ops.POWER(leaf(a), ops.constant(e, d)), 4)  # a 0-D exponent
        check(ops.POWER(leaf(a), leaf(np.full(a.shape, e, d.np))), 4)


@pytest.mark.parametrize("d", FLOATS, ids=ids(FLOATS))
def test_max_min_signed_zeros_and_nan(d):
    a = np.array([-0.0, 0.0, -0.0, 0.0, np.nan, 1.0, np.nan, -np.inf], d.np)
    b = np.array([0.0, -0.0, -0.0, 0.0, 1.0, np.nan, np.nan, np.inf], d.np)
    mx = check(ops.MAXIMUM(leaf(a), leaf(b)))
    mn = check(ops.MINIMUM(leaf(a), leaf(b)))
    assert list(np.signbit(mx[:4])) == [False, False, True, False]
    assert list(np.signbit(mn[:4])) == [True, True, True, False]
    assert np.isnan(mx[4:7]).all() and np.isnan(mn[4:7]).all()


# ---------------------------------------------------------------- compare, select

_CMP_CASES = [(c, d) for d in ALL for c in (["EQ", "NE"] if d.kind == "c" else ["EQ", "NE", "LT", "LE", "GT", "GE"])]


@pytest.mark.parametrize("direction,d", _CMP_CASES, ids=[f"{c}-{d.name}" for c, d in _CMP_CASES])
def test_compare(direction, d):
    a, b = pairs(d)
    check(ops.compare(leaf(a), leaf(b), direction))


@pytest.mark.parametrize("d", ALL, ids=ids(ALL))
def test_select(d):
    s = specials(d)
    p = np.arange(s.size) % 3 == 0
    check(ops.select(leaf(p), leaf(s), leaf(s[::-1].copy())))
    check(ops.select(leaf(np.asarray(True)), leaf(s), leaf(s[::-1].copy())))  # 0-D predicate
    check(ops.select(leaf(p), leaf(s), leaf(np.asarray(s[0]))))  # 0-D branch


# ---------------------------------------------------------------- elementwise, unary

UNARY = {
    ops.NEGATE: INTS + FLOATS + COMPLEX,
    ops.ABS: [d for d in INTS if d.kind == "i"] + FLOATS + COMPLEX,
    ops.SIGN: [d for d in INTS if d.kind == "i"] + FLOATS,
    ops.NOT: [dt.bool] + INTS,
    ops.FLOOR: FLOATS,
    ops.CEIL: FLOATS,
    ops.ROUND_EVEN: FLOATS,
    ops.ROUND_AFZ: FLOATS,
    ops.IS_FINITE: FLOATS,
    ops.SQRT: FLOATS,
    ops.REAL: FLOATS + COMPLEX,
    ops.IMAG: FLOATS + COMPLEX,
}
_UN_CASES = [(op, d) for op, ds in UNARY.items() for d in ds]


@pytest.mark.parametrize("op,d", _UN_CASES, ids=[f"{o.name}-{d.name}" for o, d in _UN_CASES])
def test_unary(op, d):
    x = specials(d)
    if d.kind in "iu":
        x = np.concatenate([x, np.arange(-5, 6).astype(d.np)])
    elif d.kind == "f":
        with np.errstate(over="ignore"):
            x = np.concatenate([x, np.arange(-12, 13, dtype=d.np) / 4, x * 1e10])
    check(op(leaf(x)))


_TRANS = {
    ops.EXP: FLOATS, ops.LOG: FLOATS, ops.LOG1P: FLOATS,
    ops.EXPM1: [dt.float64], ops.SIN: FLOATS, ops.COS: FLOATS,
    ops.TAN: FLOATS, ops.TANH: FLOATS, ops.ACOS: FLOATS, ops.ACOSH: FLOATS,
    ops.ASIN: FLOATS, ops.ASINH: FLOATS, ops.ATAN: FLOATS, ops.ATANH: [dt.float32],
}
_TRANS_CASES = [(op, d) for op, ds in _TRANS.items() for d in ds]


@pytest.mark.parametrize("op,d", _TRANS_CASES, ids=[f"{o.name}-{d.name}" for o, d in _TRANS_CASES])
def test_transcendental(op, d):
    rng = np.random.default_rng(3)
    x = np.concatenate([specials(d), rng.standard_normal(300) * 3, rng.uniform(-1, 1, 300),
                        rng.uniform(0.9, 1.1, 100), rng.standard_normal(100) * 1e4, 10.0 ** np.arange(-20, 21)])
    x = x.astype(d.np)
    x = x[(x == 0) | ~(np.abs(x) < np.finfo(d.np).tiny * 2 ** 30)]  # intermediates would be subnormal
    # XLA's log1p (f64) differs at rare points by up to 2e-13 relative, its tanh (f64) by 7 ulp
    loose = {(ops.LOG1P, dt.float64): 1024, (ops.TANH, dt.float64): 8}
    check(op(leaf(x)), loose.get((op, d), 4))


def test_transcendental_left_to_compiler():
    # XLA's own formulas are more than a few ulp from numpy's for these (complex sqrt and power
    # are covered: tests/test_interpret_complex.py; the namespace's complex log, log1p, exp,
    # cosh, sinh, tanh use none of these kernels)
    for op, d in [(ops.ATANH, dt.float64), (ops.COSH, dt.float32), (ops.SINH, dt.float64),
                  (ops.EXPM1, dt.float32), (ops.EXP, dt.complex128),
                  (ops.LOG, dt.complex128), (ops.LOG1P, dt.complex64), (ops.TANH, dt.complex128)]:
        assert unsupported(op(leaf(np.ones(3, d.np)))), (op, d)


@pytest.mark.parametrize("d", FLOATS, ids=ids(FLOATS))
def test_complex_from_parts_and_bitcast(d):
    re, im = pairs(d, extra=False)
    check(ops.COMPLEX(leaf(re), leaf(im)))
    ity = dt.int32 if d is dt.float32 else dt.int64
    x = specials(d)
    check(ops.bitcast(leaf(x), ity))
    check(ops.bitcast(leaf(x.view(ity.np)), d))


# ---------------------------------------------------------------- convert

_CVT = [(s, t) for s in ALL for t in ALL if s is not t]


@pytest.mark.parametrize("src,dst", _CVT, ids=[f"{s.name}-{t.name}" for s, t in _CVT])
def test_convert(src, dst):
    x = specials(src)
    if src.kind == "f":  # saturation at every integer range, and rounding
        x = np.concatenate([x, np.array([127.9, 128.0, -128.9, -129.0, 255.5, 256.0, 65535.9, 65536.0,
                                         2.0 ** 31, -(2.0 ** 31), 2.0 ** 32, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64,
                                         -0.9, 1e20, 16777217.0, 1.0000001], src.np)])
    if src.kind in "iu":
        x = np.concatenate([x, np.array([2 ** 24 + 1, 2 ** 53 + 1], np.uint64).astype(src.np)])
    check(ops.convert(leaf(x), dst))


# ---------------------------------------------------------------- no simplifier rewrites

@pytest.mark.parametrize("d", INTS, ids=ids(INTS))
def test_integer_power_wraps(d):
    a, b = pairs(d)
    got = check(ops.INTEGER_POWER(leaf(a), leaf(b)))
    ok = b >= 0  # numpy raises for negative integer exponents
    np.testing.assert_array_equal(got[ok], a[ok] ** b[ok])


@pytest.mark.parametrize("d", FLOATS, ids=ids(FLOATS))
def test_no_simplifier_rewrites(d):
    """Patterns XLA's algebraic simplifier used to rewrite (it is off): both tiers compute each op
    as IEEE says, bit for bit the same as numpy op by op."""
    big = 1e30 if d is dt.float32 else 1e300
    xv = np.array([-0.0, 0.0, 1.0, -3.5, np.nan, np.inf, 1e-3, 100.0, 800.0, -800.0], d.np)
    yv = np.array([2.0, -0.0, 0.5, 3.0, 1.0, 7.0, -1e-3, 99.0, 700.0, 3.0], d.np)
    x, y = leaf(xv), leaf(yv)
    c = lambda v: ops.constant(v, d)  # noqa: E731
    k = lambda v: np.asarray(v, d.np)  # noqa: E731
    cases = [  # (graph, the same computed by numpy op by op)
        (ops.ADD(x, c(0.0)), xv + k(0.0)),  # -0.0 + 0.0 is +0.0
        (ops.SUBTRACT(x, c(-0.0)), xv - k(-0.0)),
        (ops.DIVIDE(x, c(3.0)), xv / k(3.0)),  # not x * (1 / 3)
        (ops.DIVIDE(ops.iota((10,), 0, d), c(3.0)), np.arange(10, dtype=d.np) / k(3.0)),
        (ops.LOG(ops.EXP(x)), np.log(np.exp(xv))),  # log(exp(800)) is inf
        (ops.MULTIPLY(ops.EXP(x), ops.EXP(y)),
         np.exp(xv) * np.exp(yv)),
        (ops.DIVIDE(ops.EXP(x), ops.EXP(y)),
         np.exp(xv) / np.exp(yv)),
        (ops.LOG(ops.POWER(x, y)), np.log(np.power(xv, yv))),  # not y * log(x)
        (ops.ADD(ops.ADD(x, c(1e8)), c(-1e8)), (xv + k(1e8)) + k(-1e8)),
        (ops.MULTIPLY(ops.MULTIPLY(x, c(big)), c(1 / big)), (xv * k(big)) * k(1 / big)),
        (ops.DIVIDE(ops.DIVIDE(x, y), y), (xv / yv) / yv),
        (ops.DIVIDE(x, ops.DIVIDE(y, x)), xv / (yv / xv)),
        (ops.ADD(ops.MULTIPLY(x, c(2.0)), ops.MULTIPLY(y, c(2.0))),
         xv * k(2.0) + yv * k(2.0)),
        (ops.DIVIDE(x, ops.SQRT(y)), xv / np.sqrt(yv)),  # not x * rsqrt(y)
        (ops.SUBTRACT(x, x), xv - xv),  # inf - inf is NaN
        (ops.MULTIPLY(x, c(0.0)), xv * k(0.0)),  # inf * 0 is NaN, -3.5 * 0 is -0.0
    ]
    for node, want in cases:
        ops_used = {n.op for n in toposort([node])[0]}
        ulps = 2 if ops_used & {ops.EXP, ops.LOG, ops.POWER} else 0
        got = check(node, ulps)  # XLA's exp, log and pow are within 2 ulp of numpy's
        assert_same(got, want, ulps)


def test_fma_and_reductions_close():
    rng = np.random.default_rng(11)
    a, b, c = (xp.asarray(rng.standard_normal(1000)) for _ in range(3))
    check_close(a * b + c)  # XLA contracts into an FMA: rounding apart
    check_close(xp.mean(a))
    check_close(xp.std(a * 2))
    check_close(xp.sum(xp.asarray(rng.standard_normal((30, 40)).astype(np.float32)), axis=0))

