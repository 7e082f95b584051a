"""The interpreter tier's complex rules against the compiled program (issue 11: SciPy's complex
filter design and logsumexp no longer compile at first sight): XLA's complex power and sqrt
kernels, complex products in reductions, and the complex functions of `_complex_math`, whose
log, log1p, tanh, cosh, sinh and expm1 parts are now formulas of covered real ops. Each test states
the bound measured between the tiers over wide sweeps (magnitudes over the whole float range,
|z| next to 0, 1 and -1, mixed scales) and on every special value, where the NaN/infinity
classes of each part must agree."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._graph import toposort
from lazyarray._interpret import supports
from tier_check import COMPLEX, _flush, both, compile_always, ids, leaf, specials  # noqa: F401

pytestmark = pytest.mark.usefixtures("compile_always")


def sweep(d, n=2000, seed=0):
    """Finite complex values of dtype d with normal (or zero) parts: the whole magnitude range,
    |z| next to 1, next to 0, next to -1 and 1, mixed scales."""
    rng = np.random.default_rng(seed)
    r = dt.real_of(d).np
    lo, hi = (-37, 38) if r == np.float32 else (-307, 307)
    ang = rng.uniform(-np.pi, np.pi, n)
    small = 10.0 ** rng.uniform(-20, 0, n) * np.exp(1j * ang)
    z = np.concatenate([
        10.0 ** rng.uniform(lo, hi, n) * np.exp(1j * ang),
        (1 + 10.0 ** rng.uniform(-16, 0, n) * rng.choice([-1, 1], n)) * np.exp(1j * ang),
        small, -1 + small, 1 + small, np.exp(1j * ang) - 1,
        rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3,
        rng.standard_normal(n) + 1j * 10.0 ** rng.uniform(lo, hi, n),
        10.0 ** rng.uniform(lo, hi, n) + 1j * rng.standard_normal(n)])
    with np.errstate(over="ignore"):
        z = z.astype(d.np)
    tiny = np.finfo(r).tiny * 2 ** 30  # XLA CPU flushes subnormal intermediates
    ok = np.isfinite(z) & ((z.real == 0) | (np.abs(z.real) > tiny)) & ((z.imag == 0) | (np.abs(z.imag) > tiny))
    return z[ok]


def classes(v):
    """NaN/infinity class of each part (0 finite, 1 NaN, 2 +inf, 3 -inf)."""
    def c(p):
        return np.where(np.isnan(p), 1, np.where(np.isposinf(p), 2, np.where(np.isneginf(p), 3, 0)))
    return c(v.real), c(v.imag)


def assert_classes_equal(got, want, inputs):
    got, want = _flush(got), _flush(want)
    for g, w in zip(classes(got), classes(want)):
        bad = g != w
        assert not bad.any(), f"classes differ at {inputs[bad][:5]}: {got[bad][:5]} vs {want[bad][:5]}"


def part_ulps(got, want):
    """Per part, |got - want| in ulps of want (0 where equal or both NaN; finite parts only)."""
    got, want = _flush(got), _flush(want)
    out = []
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        fin = np.isfinite(g) & np.isfinite(w)
        unit = np.spacing(np.maximum(np.abs(w), np.finfo(w.dtype).tiny).astype(w.dtype))
        with np.errstate(invalid="ignore"):
            u = np.where(g == w, 0.0, np.abs(g.astype(np.float64) - w) / unit)
        out.append(np.where(fin, u, 0.0))
    return out


def interpretable(x):
    order, _ = toposort([x._node])
    return supports(order)


# ---------------------------------------------------------------- the functions of _complex_math

# function -> ulps per part measured between the tiers on the sweep (complex64, complex128):
# the real kernels inside agree within a few ulp (tests/test_interpret_elementwise.py).
# (complex64, complex128) bounds in ulp between the tiers, the largest measured on two CPUs: an
# AVX2 machine, and an AVX-512 one (Sapphire Rapids), where XLA's float32 log kernel rounds
# differently (complex64 log/log1p 1 -> 3 ulp, log2 2 -> 3, log10 2 -> 4, tan 5 -> 6)
FUNCTIONS = {"log": (3, 1), "log1p": (3, 1), "log2": (3, 2), "log10": (4, 2), "sqrt": (3, 2),
             "exp": (4, 4), "cosh": (4, 4), "sinh": (4, 4), "cos": (4, 4), "sin": (4, 4),
             "tanh": (5, 5), "tan": (6, 6)}


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_complex_function_sweep(name, d):
    z = sweep(d)
    if name in ("log2", "log10"):  # log|z| scaled: XLA flushes a subnormal log|z| first
        with np.errstate(divide="ignore"):
            lz = np.log(z)
            tiny = 4 * np.finfo(dt.real_of(d).np).tiny
            z = z[~(np.abs(lz.real) < tiny) & ~((np.abs(lz.imag) < tiny) & (lz.imag != 0))]
    x = getattr(xp, name)(xp.asarray(z))
    assert interpretable(x), f"{name}({d.name}) should run in the interpreter tier"
    got, want = both(x)
    assert_classes_equal(got, want, z)
    bound = FUNCTIONS[name][d is dt.complex128]
    for u in part_ulps(got, want):
        assert u.max() <= bound, f"{name}: {u.max()} ulp at {z[np.argmax(u)]!r}"


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
@pytest.mark.parametrize("name", sorted(FUNCTIONS) + ["expm1"])
def test_complex_function_specials(name, d):
    # every special value (zeros of both signs, infinities, NaN, huge, tiny): classes equal,
    # signs of zero parts equal, values within the sweep's bound (expm1: see below)
    z = specials(d)
    got, want = both(getattr(xp, name)(xp.asarray(z)))
    assert_classes_equal(got, want, z)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        zero = (_flush(w) == 0) & (_flush(g) == 0)
        assert (np.signbit(g[zero]) == np.signbit(w[zero])).all()
    bound = FUNCTIONS.get(name, (4, 4))[d is dt.complex128]
    for u in part_ulps(got, want):
        assert u.max() <= bound


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_expm1_within_its_terms(d):
    # re = expm1(a) cos(b) - 2 sin(b/2)^2 cancels; the kernels' few-ulp differences then show
    # up to (measured) 2 eps of the terms' size 1 + e^a, not of the result
    eps = np.finfo(dt.real_of(d).np).eps
    z = sweep(d)
    x = xp.expm1(xp.asarray(z))
    assert interpretable(x)
    got, want = both(x)
    assert_classes_equal(got, want, z)
    fin = np.isfinite(want.real) & np.isfinite(got.real)
    with np.errstate(over="ignore"):
        scale = 1 + np.exp(z.real.astype(np.float64))
    assert np.all(np.abs(got.real - want.real)[fin] <= 4 * eps * scale[fin])
    assert part_ulps(got, want)[1].max() <= 4


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_log_accurate(d):
    # the compiled log and log1p (our formulas, no XLA complex kernel) within 4 ulp per part of
    # numpy's log (glibc's clog), and of mpmath's log1p (numpy's own complex log1p is
    # log(1 + z), which loses a tiny z) on every 20th point of the sweep
    mpmath = pytest.importorskip("mpmath")
    z = sweep(d)
    assert max(u.max() for u in part_ulps(np.asarray(xp.log(xp.asarray(z))), np.log(z))) <= 3
    sub = z[::20]
    with mpmath.workprec(300):
        ref = np.array([complex(mpmath.log1p(mpmath.mpc(complex(v)))) for v in sub]).astype(d.np)
    got = np.asarray(xp.log1p(xp.asarray(sub)))
    assert max(u.max() for u in part_ulps(got, ref)) <= 4
    tiny = np.array([1e-30 + 1e-31j, -3e-20 + 0j, 2e-35j], d.np)
    got = np.asarray(xp.log1p(xp.asarray(tiny)))
    np.testing.assert_allclose(got, tiny - tiny * tiny / 2, rtol=2 * np.finfo(got.real.dtype).eps)


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_tanh_accurate(d):
    # Kahan's formula (_complex_math._tanh_finite) within 7 ulp per part of numpy's ctanh and
    # ctan (computed in complex128); XLA's complex tanh kernel, which it replaces, was up to 20
    z = sweep(d)
    for name in ("tanh", "tan"):
        with np.errstate(all="ignore"):
            ref = getattr(np, name)(z.astype(np.complex128)).astype(d.np)
        got = np.asarray(getattr(xp, name)(xp.asarray(z)))
        assert max(u.max() for u in part_ulps(got, ref)) <= 7, name


# ---------------------------------------------------------------- XLA's complex kernels


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_sqrt_kernel(d):
    # numpy's csqrt against XLA's kernel: within 3 ulp per part (complex64), 2 (complex128);
    # on special values classes equal and within 1 ulp
    z = sweep(d)
    got, want = both(ops.SQRT(leaf(z)))
    assert_classes_equal(got, want, z)
    assert max(u.max() for u in part_ulps(got, want)) <= (3 if d is dt.complex64 else 2)
    s = specials(d)
    got, want = both(ops.SQRT(leaf(s)))
    assert_classes_equal(got, want, s)
    assert max(u.max() for u in part_ulps(got, want)) <= 1
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        zero = (g == 0) & (w == 0)
        assert (np.signbit(g[zero]) == np.signbit(w[zero])).all()  # sqrt(-1 - 0j) is +1j in XLA


def _power_pairs(d, seed=1):
    z = sweep(d, 300)
    rng = np.random.default_rng(seed)
    n = z.size
    w = (rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * rng.choice([0, 1], n)).astype(d.np)
    return z, w


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_power_kernel(d):
    # XLA's polar formula (_ops.elementwise._complex_power) reproduced: measured within 8.1 eps
    # of |w| (1 + |q| + |c ln|z|| + |d arg z|) (the kernels' ulp scaled by their arguments'
    # size) on 26,000 pairs; tested with 10 on this smaller sweep
    eps = np.finfo(dt.real_of(d).np).eps
    z, w = _power_pairs(d)
    got, want = both(ops.POWER(leaf(z), leaf(w)))
    assert_classes_equal(got, want, z)
    c, e = w.real.astype(np.float64), w.imag.astype(np.float64)
    zz = z.astype(np.complex128)
    ln_r, arg = np.log(np.abs(zz)), np.angle(zz)
    scale = np.abs(want) * (1 + np.abs(c * arg + e * ln_r) + np.abs(c * ln_r) + np.abs(e * arg))
    g, wv = _flush(got), _flush(want)
    fin = np.isfinite(g) & np.isfinite(wv)
    # subnormal results: flushed by XLA, kept by numpy, so at most the smallest normal apart
    assert np.all(np.abs(g - wv)[fin] <= 10 * eps * scale[fin] + np.finfo(got.real.dtype).tiny)


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_power_specials(d):
    s = specials(d)
    a, b = (v.ravel() for v in np.meshgrid(s, s))
    got, want = both(ops.POWER(leaf(a), leaf(b)))
    assert_classes_equal(got, want, a)
    # and through the namespace (integral exponents take products, zero bases numpy's limit)
    got, want = both(xp.pow(xp.asarray(a), xp.asarray(b)))
    assert_classes_equal(got, want, a)


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_namespace_pow_integral_and_not(d):
    eps = np.finfo(dt.real_of(d).np).eps
    rng = np.random.default_rng(5)
    z = (rng.standard_normal(300) + 1j * rng.standard_normal(300)).astype(d.np)
    for w in (np.asarray(3, d.np), np.asarray(-2, d.np), np.asarray(0.5 + 0.25j, d.np), np.asarray(1 / 3, d.np)):
        x = xp.pow(xp.asarray(z), xp.asarray(w))
        assert interpretable(x)
        got, want = both(x)
        np.testing.assert_allclose(got, want, rtol=32 * eps)


# ---------------------------------------------------------------- complex products in reductions


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
def test_complex_prod_and_cumprod(d):
    # numpy multiplies in order, XLA in its own order: within 8 eps of the product of the
    # factors' magnitudes; rows with special values agree in class
    eps = np.finfo(dt.real_of(d).np).eps
    rng = np.random.default_rng(9)
    for n in (2, 7, 64):
        m = (rng.standard_normal((40, n)) + 1j * rng.standard_normal((40, n))).astype(d.np)
        bound = 8 * n * eps * np.prod(np.abs(m.astype(np.complex128)), axis=1)
        x = xp.prod(xp.asarray(m), axis=1)
        assert interpretable(x)
        got, want = both(x)
        assert np.all(np.abs(got - want) <= bound)
        got, want = both(xp.cumulative_prod(xp.asarray(m), axis=1))
        assert np.all(np.abs(got - want)[:, -1] <= bound)
    # special values whose products cannot overflow: where one does, XLA's FMA may give +-inf
    # where numpy's inf - inf gives NaN (the complex MULTIPLY rule's known exception)
    s = specials(d)
    s = s[~(np.abs(s) > 100) | ~np.isfinite(s)]
    rows = np.stack([s, np.roll(s, 1), np.roll(s, 7)], axis=1)
    got, want = both(xp.prod(xp.asarray(rows), axis=1))
    assert_classes_equal(got, want, s)


def test_scipy_offenders_graphs_interpretable():
    # the graphs SciPy's complex logsumexp and butter(..., output='sos') built: complex log,
    # log1p, power, sqrt and prod (they compiled at first sight before); tanh and tan too
    z = xp.asarray(np.array([1 + 2j, -0.5 + 0.1j, 3 - 1j]))
    for x in (xp.log(z), xp.log1p(z), xp.pow(z, xp.asarray(0.5 + 0j)), xp.sqrt(z), xp.prod(z),
              xp.exp(z), xp.expm1(z), xp.cosh(z), xp.sin(z), xp.tanh(z), xp.tan(z)):
        assert interpretable(x)
