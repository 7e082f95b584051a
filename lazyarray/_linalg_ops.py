"""Node-level building blocks of the linalg extension.

The primitives (decomposition kernels, triangular solve) are _ops.linalg's; everything else (det,
solve, inv, pinv, norms, ...) is composed from them and the other primitives by the helpers
below; they take and return graph Nodes and assume checked arguments.
"""
from __future__ import annotations

import math

from . import _dtypes as dt
from . import _ops as ops
from ._ops import conj, eye, kernel, triangular_solve, zeros  # noqa: F401 - the chapter's vocabulary
from ._ops.linalg import lu_solve as lu_solve_node

# ---------------------------------------------------------------- building blocks

def absolute(x):
    return ops.ABS(x)


def mT(x):
    nd = len(x.shape)
    return ops.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def adjoint(x):
    return conj(mT(x))


def matmul(a, b):
    """a (..., M, K) @ b (..., K, N) with one batch shape."""
    nb = len(a.shape) - 2
    batch = tuple(range(nb))
    return ops.dot_general(a, b, batch, batch, (nb + 1,), (nb,))


def diagonal(x, offset=0):
    """x[..., i, i + offset] as (..., k): a strided slice of the flattened matrices."""
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = max(0, min(m, n - offset) if offset >= 0 else min(m + offset, n))
    if k == 0:
        return zeros(batch + (0,), x.dtype)
    start = offset if offset >= 0 else -offset * n
    flat = ops.reshape(x, batch + (m * n,))
    nb = len(batch)
    return ops.slice_(flat, (0,) * nb + (start,), batch + (start + (k - 1) * (n + 1) + 1,),
                      (1,) * nb + (n + 1,))


def gather_rows(b, perm):
    """b[..., perm[..., i], :] for b (..., M, K) and an int32 permutation perm (..., M)."""
    batch = perm.shape[:-1]
    nb = len(batch)
    shape = perm.shape + (1,)
    coords = [ops.iota(shape, d, dt.int32) for d in range(nb)]
    idx = ops.concatenate(coords + [ops.reshape(perm, shape)], nb + 1)
    return ops.gather_points(b, idx, tuple(range(nb + 1)))


def lu_solve(lu, perm, b):
    """x with a x = b from the LU factors of a (a[perm] = L U); b (..., M, K), same batch."""
    if math.prod(b.shape) == 0:
        return b
    pb = gather_rows(b, perm)
    y = triangular_solve(lu, pb, lower=True, unit_diagonal=True)
    return triangular_solve(lu, y, lower=False)


def solve(a, b, platform):
    """x with a x = b for square a (..., M, M) and b (..., M, K) of one batch: on the CPU one
    node (`_ops.linalg.lu_solve`: the LU, the row gather and both triangular solves in one host
    step, the same program compiled), elsewhere the LU kernel and `lu_solve`'s nodes."""
    if platform == "cpu" and math.prod(a.shape) and math.prod(b.shape):
        return lu_solve_node(a, b, platform)
    _, _, perm = factors = kernel("lu", a, platform)
    return lu_solve(factors[0], perm, b)


def reduce_last(x, kind, axes=1):
    nd = len(x.shape)
    return ops.reduce(x, tuple(range(nd - axes, nd)), kind)


def pivot_signs(pivots):
    """True where LAPACK's row interchange i swapped (each swap flips the determinant's sign)."""
    return ops.compare(pivots, ops.iota(pivots.shape, len(pivots.shape) - 1, dt.int32), "NE")
