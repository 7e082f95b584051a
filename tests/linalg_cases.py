"""Inputs and output specs for the host decomposition tests (test_linalg_host_path,
test_linalg_one_copy)."""
import numpy as np

from lazyarray import _dtypes as dt
from lazyarray._ops import linalg as L


def decomposition_input(name, shape, dtype, seed):
    """A random matrix (stack) of `shape`; Hermitian positive definite for cholesky and eigh."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype)
    if name in ("cholesky", "eigh"):
        n = shape[-1]
        a = a @ np.swapaxes(a.conj(), -1, -2) + n * np.eye(n, dtype=dtype)
    return a


def output_specs(name, x, params):
    """[(shape, numpy dtype)] of the kernel's outputs for input x."""
    return [(s, d.np) for s, d in L._outputs(name, x.shape, dt.from_numpy(x.dtype), params)]


# (name, params, shape): one matrix and stacks of each decomposition
DECOMPOSITION_CASES = [
    ("svd", (False,), (60, 7)), ("svd", (True,), (7, 12)), ("svdvals", (), (3, 9, 5)),
    ("qr", (False,), (30, 6)), ("qr", (True,), (2, 8, 5)), ("lu", (), (9, 9)),
    ("lu", (), (2, 6, 6)), ("cholesky", (), (8, 8)), ("eigh", (), (3, 7, 7)), ("eig", (), (6, 6))]


def stacked_reference(name, params, x, specs):
    """Each matrix through the host kernel on its own Fortran copy, outputs stacked."""
    from lazyarray._ops import lapack_host
    outs = [np.empty(s, d) for s, d in specs]
    for index in np.ndindex(*x.shape[:-2]):
        for out, value in zip(outs, lapack_host.KERNELS[name](np.array(x[index], order="F"), *params)):
            out[index] = value
    return outs
