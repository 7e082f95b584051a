"""lapack_host.lu_solve's one-matrix path (getrf's factors as it returns them, b's rows gathered
once into a column-major private copy, both trsm in place) against the composition it replaces:
the LU kernel's outputs (`_factor(_lu)`), np.take of b's rows, `_solve` twice. The same routines
on the same values: the same bits, pivots and exact zero pivots included; the pivots'
permutation is shared read-only by lu_solve and copied for the LU kernel's own output."""
import numpy as np
import pytest

from lazyarray._ops import lapack_host as lh

DTYPES = ["float32", "float64", "complex64", "complex128"]


def _data(shape, dtype, seed, kind="random"):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    if kind == "zero_row":
        x[-1, :] = 0
    elif kind == "singular":
        x[-1, :] = x[0, :]
    elif kind == "tril":
        x = np.tril(x) + 4 * np.eye(shape[0])
    return x.astype(dtype)


def _reference(a, b):
    m = a.shape[0]
    specs = [((m, m), a.dtype), ((m,), np.dtype(np.int32)), ((m,), np.dtype(np.int32))]
    with lh._flush_denormals():
        lu, _, perm = lh._factor(lh._lu, (), a, specs)
        pb = np.take(b, perm, axis=0)
        return lh._solve(lu, lh._solve(lu, pb, 1, 1), 0, 0)


def _specs(m, dtype):
    return [((m, m), np.dtype(dtype)), ((m,), np.dtype(np.int32)), ((m,), np.dtype(np.int32))]


@pytest.mark.parametrize("kind", ["random", "tril", "singular", "zero_row"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k", [(1, 1), (2, 3), (5, 1), (8, 8), (17, 4)])
def test_one_matrix_path_gives_the_composition_bits(m, k, dtype, kind):
    a, b = _data((m, m), dtype, m * 7 + k, kind), _data((m, k), dtype, m * 11 + k)
    a0, b0 = a.copy(), b.copy()
    got = lh.lu_solve(a, b, _specs(m, dtype))
    want = _reference(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape == (m, k)
    np.testing.assert_array_equal(got, want)  # (NaN where NaN: assert_array_equal's rule)
    np.testing.assert_array_equal(a, a0)  # operands untouched
    np.testing.assert_array_equal(b, b0)
    if kind in ("random", "tril"):
        tol = 1e-3 if dtype in ("float32", "complex64") else 1e-9
        np.testing.assert_allclose(got, np.linalg.solve(a0, b0), rtol=tol, atol=tol)


@pytest.mark.parametrize("layout", ["fortran", "transposed_b", "strided_b"])
def test_operand_layouts(layout):
    a, b = _data((6, 6), "float64", 3), _data((6, 4), "float64", 4)
    if layout == "fortran":
        a, b = np.asfortranarray(a), np.asfortranarray(b)
    elif layout == "transposed_b":
        b = np.ascontiguousarray(b.T).T
    else:
        b = _data((6, 8), "float64", 5)[:, ::2]
    a0, b0 = a.copy(), b.copy()
    np.testing.assert_array_equal(lh.lu_solve(a, b, _specs(6, "float64")), _reference(a0, b0))
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_permutation_shared_read_only_and_lu_output_writeable():
    a = _data((7, 7), "float64", 9)
    lu, piv, perm = lh._lu(np.asfortranarray(a))
    rows = list(range(7))
    for i, p in enumerate(piv.tolist()):
        rows[i], rows[p] = rows[p], rows[i]
    np.testing.assert_array_equal(perm, np.array(rows, np.int32))
    assert perm.dtype == np.int32 and perm.flags.writeable  # (a node's value: its own memory)
    shared = lh._permutation(piv, 7)
    assert not shared.flags.writeable and shared is lh._permutation(piv.copy(), 7)
    np.testing.assert_array_equal(shared, perm)
    perm[0] = 99  # the kernel's output is a copy: the shared one is unchanged
    np.testing.assert_array_equal(lh._permutation(piv, 7), np.array(rows, np.int32))
