"""The interpreter tier's complex contraction (`_ops.dot._complex_matmul`) against XLA's compiled
one (issue 11: SciPy's complex Procrustes and every complex `@` compiled at first sight). XLA's
CPU kernel sums the four real products apart and then scales by alpha = 1 + 0j as a complex
product, so an infinite or NaN part of a sum makes the other part NaN; numpy's own complex
matmul does not (its (inf, NaN) is XLA's (NaN, NaN)). Finite values agree to rounding, special
values in NaN/infinity class and zero sign, on every shape family of `dot_general`."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from tier_check import COMPLEX, both, compile_always, ids, leaf, specials, unsupported  # noqa: F401

pytestmark = pytest.mark.usefixtures("compile_always")

# (batch, m, k, n): matrix-matrix, matrix-vector, vector-matrix, outer (k = 1), dot (m = n = 1),
# batched, longer contractions
SHAPES = [(1, 1, 1, 1), (1, 5, 1, 5), (1, 5, 3, 5), (1, 5, 3, 1), (1, 1, 3, 5), (1, 1, 3, 1),
          (3, 4, 2, 4), (2, 1, 3, 1), (1, 6, 40, 6)]


def classes(v):
    """NaN/infinity class of each part (0 finite, 1 NaN, 2 +inf, 3 -inf)."""
    def c(p):
        return np.where(np.isnan(p), 1, np.where(np.isposinf(p), 2, np.where(np.isneginf(p), 3, 0)))
    return np.stack([c(v.real), c(v.imag)])


def no_overflow_specials(d):
    """Special values whose parts are NaN, infinite or at most 100 in magnitude: their partial
    products cannot overflow (where one does, XLA's kernels may round a part to +-inf that the
    formula gives as NaN: README's known gap of the complex product)."""
    s = specials(d)
    small = lambda p: ~np.isfinite(p) | (np.abs(p) <= 100)  # noqa: E731
    return s[small(s.real) & small(s.imag)]


def matmul_node(a, b):
    if a.shape[0] == 1:
        return ops.dot_general(leaf(a[0]), leaf(b[0]), (), (), (1,), (0,))
    return ops.dot_general(leaf(a), leaf(b), (0,), (0,), (2,), (1,))


def test_complex_dot_is_interpretable():
    a = np.array([[1 + 2j, 3 - 1j]])
    assert not unsupported(ops.dot_general(leaf(a), leaf(a.T.copy()), (), (), (1,), (0,)))
    assert not unsupported(xp.asarray(a) @ xp.asarray(a.T.copy()))
    assert not unsupported(xp.vecdot(xp.asarray(a), xp.asarray(a)))


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_complex_dot_finite_to_rounding(d, shape):
    bb, m, k, n = shape
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((bb, m, k)) + 1j * rng.standard_normal((bb, m, k))).astype(d.np)
    b = (rng.standard_normal((bb, k, n)) + 1j * rng.standard_normal((bb, k, n))).astype(d.np)
    got, want = both(matmul_node(a, b))
    # to rounding of the sum of the products' magnitudes (the float dot's bound, per part)
    eps = np.finfo(dt.real_of(d).np).eps
    scale = (np.abs(a.astype(np.complex128))[..., None] * np.abs(b.astype(np.complex128))[:, None]).sum(axis=2)
    scale = scale.reshape(got.shape)
    assert np.all(np.abs(got.real - want.real) <= 4 * k * eps * scale)
    assert np.all(np.abs(got.imag - want.imag) <= 4 * k * eps * scale)
    # and numpy's own product to the same bound (the interpreter computes the exact value's rounding)
    ref = np.matmul(a.astype(np.complex128), b.astype(np.complex128)).reshape(got.shape)
    assert np.all(np.abs(got - ref) <= 8 * k * eps * scale)


@pytest.mark.parametrize("d", COMPLEX, ids=ids(COMPLEX))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_complex_dot_special_values(d, shape):
    bb, m, k, n = shape
    s = no_overflow_specials(d)
    rng = np.random.default_rng(12)
    for _ in range(10):
        a, b = rng.choice(s, (bb, m, k)), rng.choice(s, (bb, k, n))
        got, want = both(matmul_node(a, b))
        np.testing.assert_array_equal(classes(got), classes(want))
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            zero = (g == 0) & (w == 0)
            np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]))


def test_complex_dot_differs_from_numpy_as_xla_does():
    # inf * (1 + 0j): numpy's matmul gives (inf, NaN); XLA's kernel (NaN, NaN), and so do we
    a = np.array([[np.inf + 0j]])
    b = np.array([[1 + 0j]])
    got, want = both(ops.dot_general(leaf(a), leaf(b), (), (), (1,), (0,)))
    assert np.isnan(want.real) and np.isnan(want.imag)
    assert np.isnan(got.real) and np.isnan(got.imag)
    # an overflowing real sum makes the imaginary part NaN: (1.5 * max, NaN)
    big = np.finfo(np.float64).max
    got, want = both(ops.dot_general(leaf(np.array([[1.5 + 0j]])), leaf(np.array([[big + 0j]])), (), (), (1,), (0,)))
    assert np.isposinf(got.real) and np.isnan(got.imag)
    np.testing.assert_array_equal(classes(got), classes(want))


def test_namespace_complex_matmul_interpreted_first(monkeypatch):
    # through the engine with the interpreter tier on: the first sight is interpreted (no
    # compile) and its value matches numpy's to rounding
    from lazyarray import _config
    monkeypatch.setattr(_config, "interpret_first", 2, raising=False)
    rng = np.random.default_rng(13)
    a = rng.standard_normal((7, 5)) + 1j * rng.standard_normal((7, 5))
    b = rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))
    x, y = xp.asarray(a), xp.asarray(b)
    xp.metrics.reset()
    r = np.asarray(x @ y)
    np.testing.assert_allclose(r, a @ b, rtol=1e-13, atol=1e-13)
    assert xp.metrics.compiles == 0 and xp.metrics.interpreted == 1
