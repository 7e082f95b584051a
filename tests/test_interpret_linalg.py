"""The interpreter tier's decomposition kernels and triangular solve (`_ops.lapack_host`) against
the compiled program, bit for bit (eigenvector signs included; NaN as a class): each case puts
several kinds of matrix in one batch (random, ill-conditioned, singular, not positive definite,
with NaN or infinity, subnormal-producing), so one compile checks them all; see tier_check."""
import subprocess
import sys

import numpy as np
import pytest

from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from tier_check import DEV, check, compile_always, leaf, unsupported  # noqa: F401

pytestmark = pytest.mark.usefixtures("compile_always")

PLATFORM = DEV.platform
DTYPES = [dt.float32, dt.float64, dt.complex64, dt.complex128]


def _random(rng, shape, d):
    a = rng.standard_normal(shape)
    if d.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a


def cases(shape, d, kind="general", seed=0, inf=True):
    """A batch of matrices of `shape` (m, n): the cases one kernel is checked on. (inf=False for
    an SVD with vectors: LAPACK's gesdd never returns for some matrices with an infinite entry,
    in either tier, as in numpy.)"""
    rng = np.random.default_rng(seed)
    m, n = shape
    a = _random(rng, shape, d)
    adj = lambda x: np.conj(x.T)  # noqa: E731
    if kind == "hermitian":
        mats = [a + adj(a), (a + adj(a)) * 1e-3, np.diag(np.arange(n, dtype=float)) + 0 * a]
    elif kind == "pd":
        mats = [a @ adj(a) + n * np.eye(n), a + adj(a),  # positive definite, then (likely) not
                np.diag(np.logspace(0, -12, n)) + 0 * a]  # nearly singular
    else:
        vander = np.vander(np.linspace(0, 1, max(m, n)))[:m, :n]  # ill-conditioned
        mats = [a, vander, np.ones(shape), np.zeros(shape), a * 1e-30]  # the last: subnormal intermediates
    with_nan = a.copy()
    with_nan[0, -1] = np.nan
    mats.append(with_nan)
    if inf:
        with_inf = a.copy()
        with_inf[-1, 0] = np.inf
        mats.append(with_inf)
    return np.stack(mats).astype(d.np)


def outputs(name, x, *params):
    return ops.kernel(name, leaf(x), PLATFORM, *params)


def check_all(name, x, *params):
    for node in outputs(name, x, *params):
        check(node)


@pytest.mark.parametrize("d", DTYPES, ids=str)
def test_square_kernels(d):
    check_all("lu", cases((5, 5), d))
    check_all("cholesky", cases((5, 5), d, "pd"))
    check_all("eigh", cases((5, 5), d, "hermitian"))
    check_all("eig", cases((5, 5), d))


@pytest.mark.parametrize("d", DTYPES, ids=str)
def test_qr_and_svd(d):
    check_all("qr", cases((6, 4), d), False)
    check_all("svd", cases((4, 6), d, inf=False), False)
    check_all("svdvals", cases((6, 4), d))


@pytest.mark.parametrize("name,params,shape", [
    ("qr", (True,), (6, 4)), ("qr", (False,), (4, 6)), ("qr", (True,), (4, 6)),
    ("svd", (True,), (6, 4)), ("svd", (False,), (6, 4)), ("svdvals", (), (4, 6)),
    ("lu", (), (1, 1)), ("cholesky", (), (1, 1)), ("eigh", (), (1, 1)), ("eig", (), (1, 1)),
    ("svd", (False,), (1, 1)),
])
def test_shapes(name, params, shape):
    kind = {"cholesky": "pd", "eigh": "hermitian"}.get(name, "general")
    check_all(name, cases(shape, dt.float64, kind, seed=1, inf=name != "svd"), *params)


def test_larger_and_batched():
    """Sizes past LAPACK's block size (blocked code paths), and two batch axes."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((70, 70))
    check_all("eigh", a + a.T)
    check_all("svd", rng.standard_normal((90, 40)), False)
    check_all("lu", rng.standard_normal((2, 3, 4, 4)).astype(np.float32))


def test_eig_of_real_matrix_unpacks_conjugate_pairs():
    rot = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])  # eigenvalues +-i, 2
    w, v = (check(n) for n in outputs("eig", rot))
    np.testing.assert_allclose(sorted(w, key=lambda z: (z.real, z.imag)), [-1j, 1j, 2], atol=1e-12)
    np.testing.assert_allclose(rot @ v, v * w, atol=1e-12)


@pytest.mark.parametrize("d", DTYPES, ids=str)
def test_triangular_solve(d):
    rng = np.random.default_rng(3)
    a = np.stack([np.eye(6) + 0.5 * _random(rng, (6, 6), d) / 3, _random(rng, (6, 6), d),  # well, ill
                  np.triu(np.ones((6, 6))) - np.eye(6)])  # a zero diagonal: inf and NaN
    b = _random(rng, (3, 6, 2), d)
    a, b = leaf(a.astype(d.np)), leaf(b.astype(d.np))
    flags = [(True, False), (False, True)] if d is not dt.float64 else [(True, False), (True, True), (False, False), (False, True)]
    for lower, unit in flags:
        check(ops.triangular_solve(a, b, lower, unit, PLATFORM))


def test_other_platforms_are_not_covered():
    """Another platform's kernels (cuSOLVER, ...) have their own bits: those graphs compile."""
    x = leaf(np.eye(3))
    assert all(unsupported(n) for n in ops.kernel("svd", x, "gpu", False))
    assert unsupported(ops.triangular_solve(x, x, True))  # platform unknown: XLA's own expansion


def test_first_call_is_interpreted():
    """A fresh process's first cholesky / solve / eigh / svd read compiles nothing."""
    code = """if True:
        import numpy as np, lazyarray as xp
        rng = np.random.default_rng(0)
        a = rng.standard_normal((50, 50)); a = xp.asarray(a @ a.T + 50 * np.eye(50))
        got = [np.asarray(xp.linalg.cholesky(a)), np.asarray(xp.linalg.solve(a, a[:, :3])),
               np.asarray(xp.linalg.eigh(a).eigenvalues), np.asarray(xp.linalg.svd(a).S)]
        a = np.asarray(a)
        want = [np.linalg.cholesky(a), np.linalg.solve(a, a[:, :3]), np.linalg.eigvalsh(a),
                np.linalg.svd(a).S]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-9)
        print(xp.metrics.compiles, xp.metrics.interpreted)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    compiles, interpreted = map(int, out.stdout.split())
    assert compiles == 0 and interpreted == 4, out.stdout
