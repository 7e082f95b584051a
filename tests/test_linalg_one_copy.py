"""The host decompositions copy each input matrix once, and only ever write that private copy.

`_ops.linalg`'s operand evaluation is a fresh view (no copy); `lapack_host.decompose` copies each
matrix to LAPACK's column-major layout and passes `overwrite_a` so SciPy's wrapper does not copy
it again; a matrix that is column-major already is the caller's, handed over with `overwrite_a`
off (the wrapper copies it). The bits are the routine's on the same column-major values, so they
must equal the kernel called on its own Fortran copy with the wrapper copying (the path before),
and the caller's arrays, read-only ones included, are never written.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _blas_threads
from lazyarray._ops import lapack_host
from lazyarray._ops import linalg as L
from linalg_cases import DECOMPOSITION_CASES, decomposition_input as _input, output_specs as _specs, stacked_reference
from tier_check import DEV, assert_same, both, compile_always  # noqa: F401


def _copied_reference(name, params, x, specs):
    """Each matrix on a Fortran copy of its own that the wrapper copies again (overwrite off), on
    the thread count and floating-point environment `decompose` sets (1 and 2 OpenBLAS threads
    give different bits for the larger calls)."""
    with _blas_threads.lapack_call(_blas_threads.decomposition_work(x.shape, x.dtype)), \
            lapack_host._flush_denormals():
        return stacked_reference(name, params, x, specs)


CASES = DECOMPOSITION_CASES + [("svd", (False,), (500, 20))]


class _Spy:
    """Records what each kernel call was handed: the matrix and the overwrite flag."""

    def __init__(self, monkeypatch, name):
        self.calls = []
        kernel = lapack_host.KERNELS[name]

        def spy(a, *params, overwrite=False):
            self.calls.append((a, overwrite, a.copy(order="K")))
            return kernel(a, *params, overwrite=overwrite)
        monkeypatch.setitem(lapack_host.KERNELS, name, spy)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "complex64"])
@pytest.mark.parametrize("name,params,shape", CASES, ids=str)
def test_one_private_copy_per_matrix_same_bits(monkeypatch, name, params, shape, dtype):
    x = _input(name, shape, dtype, seed=13)  # C-ordered: each matrix needs the copy
    kept = x.copy()
    specs = _specs(name, x, params)
    want = _copied_reference(name, params, x, specs)
    spy = _Spy(monkeypatch, name)
    got = lapack_host.decompose(name, params, L._evaluate_operand(None, x), specs)
    assert len(spy.calls) == max(1, int(np.prod(shape[:-2])))
    for (a, overwrite, _), index in zip(spy.calls, np.ndindex(*shape[:-2])):
        assert overwrite and a.flags.f_contiguous and a.flags.owndata  # its own column-major copy
        assert not np.shares_memory(a, x)
    for g, w, (s, d) in zip(got, want, specs):
        assert g.shape == s and g.dtype == d
        assert_same(g, w)
    assert np.array_equal(x, kept)


@pytest.mark.parametrize("name,params,shape", [("svd", (False,), (40, 6)), ("qr", (False,), (2, 9, 4)),
                                               ("cholesky", (), (7, 7)), ("lu", (), (6, 6))], ids=str)
def test_a_column_major_input_is_the_callers_never_written(monkeypatch, name, params, shape):
    """A Fortran-ordered (and read-only) input is handed over with overwrite off: the wrapper copies."""
    c = _input(name, shape, "float64", seed=17)
    x = np.swapaxes(np.array(np.swapaxes(c, -1, -2), order="C"), -1, -2)  # each matrix column-major
    x.flags.writeable = False
    kept = x.copy()
    specs = _specs(name, x, params)
    spy = _Spy(monkeypatch, name)
    got = lapack_host.decompose(name, params, x, specs)
    for a, overwrite, before in spy.calls:
        assert not overwrite and np.shares_memory(a, x)
    assert np.array_equal(x, kept)
    for g, w in zip(got, _copied_reference(name, params, kept, specs)):
        assert_same(g, w)


def test_the_operand_evaluation_is_a_fresh_view_each_time():
    """The kernels' memo is keyed by the operand value's identity: each evaluation a new object."""
    x = _input("svd", (20, 5), "float64", seed=1)
    a, b = L._evaluate_operand(None, x), L._evaluate_operand(None, x)
    assert a is not b and a is not x and id(a) != id(b)
    assert np.shares_memory(a, x) and np.array_equal(a, x)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("lower", [True, False])
def test_triangular_solve_in_its_private_copy_same_bits(dtype, lower):
    from scipy.linalg import blas
    rng = np.random.default_rng(5)
    a = np.tril(rng.standard_normal((3, 9, 9))).astype(dtype) + 9 * np.eye(9, dtype=dtype)
    if not lower:
        a = np.swapaxes(a, -1, -2).copy()
    b = rng.standard_normal((3, 9, 4)).astype(dtype)
    kept_a, kept_b = a.copy(), b.copy()
    got = lapack_host.triangular_solve(a, b, lower, False)
    trsm = getattr(blas, {"float64": "dtrsm", "float32": "strsm", "complex128": "ztrsm"}[dtype])
    for i in range(3):  # the wrapper copying b itself, as before (same threads and environment)
        with _blas_threads.lapack_call(_blas_threads.solve_work(a.shape, b.shape, b.dtype)), \
                lapack_host._flush_denormals():
            want = trsm(1.0, np.asfortranarray(a[i]), np.array(b[i], order="F"), side=0, lower=int(lower),
                        trans_a=0, diag=0)
        assert_same(got[i], want)
        np.testing.assert_allclose(a[i] @ got[i], b[i], rtol=1e-4 if dtype == "float32" else 1e-10)
    assert np.array_equal(a, kept_a) and np.array_equal(b, kept_b)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lazy_decompositions_leave_their_inputs_and_equal_numpy(dtype):
    """Through the namespace: the input array and a live view of it are unchanged by any number of
    decompositions of it, and the results are decompositions (numpy's, independently, to rounding)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 12)).astype(dtype)
    x = xp.asarray(a)
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    for _ in range(3):
        u, s, vt = xp.linalg.svd(x, full_matrices=False)
        q, r = xp.linalg.qr(x)
        g = xp.matrix_transpose(x) @ x
        w, v = xp.linalg.eigh(g)
        ch = xp.linalg.cholesky(g)
        xp.evaluate(u, s, vt, q, r, w, v, ch)
        np.testing.assert_array_equal(np.asarray(x), a)
        np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a, compute_uv=False), **tol)
        np.testing.assert_allclose((np.asarray(u) * np.asarray(s)) @ np.asarray(vt), a, **tol)
        np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, **tol)
        gn = np.asarray(g)
        np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh(gn), rtol=1e-4 if dtype == "float32" else 1e-10)
        np.testing.assert_allclose(np.asarray(ch), np.linalg.cholesky(gn), **tol)


@pytest.mark.usefixtures("compile_always")
@pytest.mark.parametrize("name,params,shape,dtype", [
    ("svd", (False,), (5000, 50), "float64"), ("svd", (False,), (5000, 50), "float32"),
    ("eigh", (), (50, 50), "float64"), ("qr", (False,), (3, 40, 7), "complex128"),
    ("cholesky", (), (2, 30, 30), "float32"), ("lu", (), (33, 33), "float64")], ids=str)
def test_tiers_agree_bit_for_bit_with_one_copy(name, params, shape, dtype):
    """The interpreter (one private copy, overwritten) gives the compiled program's bits
    (jaxlib's custom call) for every output, including the 5000x50 SVD the Ridge rows run."""
    a = _input(name, shape, dtype, seed=23)
    x = xp.asarray(a)
    outs = L.kernel(name, x._node, DEV.platform, *params)
    for out in outs:
        got, want = both(out)
        assert_same(got, want)
    np.testing.assert_array_equal(np.asarray(x), a)
