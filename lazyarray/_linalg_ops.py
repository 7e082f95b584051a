"""Primitives and node-level building blocks of the linalg extension.

Two primitives serve this chapter only:
- `linalg_kernel`: one output of a decomposition (LU, Cholesky, QR, eigh, eig, SVD). Its lowering
  splices the platform's borrowed kernel (see _runtime_lapack) into the module and func.calls
  it, once per module and input however many of the kernel's outputs the graph uses.
- `triangular_solve`: stablehlo.triangular_solve, which XLA compiles itself on every platform.

Everything else (det, solve, inv, pinv, norms, ...) is composed from these and _ops' primitives
by the helpers below; they take and return graph Nodes and assume checked arguments.
"""
from __future__ import annotations

import math
import weakref

from . import _dtypes as dt
from . import _ops as ops
from ._graph import bind
from ._ops import primitive

E = ops.elementwise

# ---------------------------------------------------------------- decomposition kernels


def _lu_shapes(shape):
    return [(shape, None), (shape[:-1], dt.int32), (shape[:-1], dt.int32)]


def _qr_shapes(shape, full):
    *b, m, n = shape
    b, k = tuple(b), min(m, n)
    if full:
        return [(b + (m, m), None), (b + (m, n), None)]
    return [(b + (m, k), None), (b + (k, n), None)]


def _svd_shapes(shape, full):
    *b, m, n = shape
    b, k = tuple(b), min(m, n)
    if full:
        return [(b + (m, m), None), (b + (k,), "real"), (b + (n, n), None)]
    return [(b + (m, k), None), (b + (k,), "real"), (b + (k, n), None)]


# kernel -> shape rule: (input shape, *params) -> [(shape, dtype)] with dtype None for the
# input's, "real" / "complex" for its real / complex counterpart, or a DType
_KERNEL_OUTPUTS = {
    "lu": _lu_shapes,  # (lu, pivots, permutation): a[..., perm, :] = L U
    "cholesky": lambda s: [(s, None)],
    "qr": _qr_shapes,  # (q, r)
    "eigh": lambda s: [(s, None), (s[:-1], "real")],  # (eigenvectors, eigenvalues)
    "eig": lambda s: [(s[:-1], "complex"), (s, "complex")],  # (eigenvalues, eigenvectors)
    "svd": _svd_shapes,  # (u, s, vh)
    "svdvals": lambda s: [(s[:-2] + (min(s[-2:]),), "real")],
}


def _out_dtype(rule, dtype):
    if rule is None:
        return dtype
    if isinstance(rule, dt.DType):
        return rule
    return dt.real_of(dtype) if rule == "real" else dt.complex_of(dtype)


_calls = weakref.WeakKeyDictionary()  # Emitter -> {(kernel, params, platform, input): [V]}


@primitive("linalg_kernel")
def _lower_kernel(e, node, x):
    name, params, platform, index = node.attrs
    memo = _calls.setdefault(e, {})
    key = (name, params, platform, x.name)
    outs = memo.get(key)
    if outs is None:
        from . import _runtime_lapack  # the runtime layer: jax lowers the kernel
        entry, functions, results = _runtime_lapack.kernel(name, params, x.shape, x.dtype.np.str, platform)
        for fname, text in functions:
            e.add_function(fname, text)
        specs = [(s, _out_dtype(r, x.dtype)) for s, r in _KERNEL_OUTPUTS[name](x.shape, *params)]
        if [(tuple(s), d.np.str) for s, d in specs] != [(tuple(s), d) for s, d in results]:
            raise AssertionError(f"linalg kernel {name}: expected outputs {specs}, the runtime gave {results}")
        outs = memo[key] = e.call(entry, [x], specs)
    return outs[index]


def kernel(name, x, platform, *params):
    """All outputs of decomposition `name` of node x (a stack of matrices, floating dtype) as
    nodes. A zero-size input needs no kernel: its non-empty outputs are identities."""
    specs = [(tuple(s), _out_dtype(r, x.dtype)) for s, r in _KERNEL_OUTPUTS[name](x.shape, *params)]
    if math.prod(x.shape) == 0:
        return [eye(s[:-2], s[-1], d) if math.prod(s) else zeros(s, d) for s, d in specs]
    # The outputs share one computed parent, so reading one of them computes the others that
    # are still wanted in the same program (the engine batches pending arrays sharing work).
    x = bind(_lower_operand, (x,), (), x.shape, x.dtype)
    return [bind(_lower_kernel, (x,), (name, tuple(params), platform, i), s, d)
            for i, (s, d) in enumerate(specs)]


@primitive("linalg_operand")
def _lower_operand(e, node, x):
    return x  # no code: only a node the outputs of one kernel call have in common


# ---------------------------------------------------------------- triangular solve

@primitive("triangular_solve")
def _lower_triangular_solve(e, node, a, b):
    lower, unit = ("true" if flag else "false" for flag in node.attrs)
    return e.op("stablehlo.triangular_solve", (a, b), node.shape, node.dtype,
                f"left_side = true, lower = {lower}, unit_diagonal = {unit}, "
                "transpose_a = #stablehlo<transpose NO_TRANSPOSE>")


def triangular_solve(a, b, lower, unit_diagonal=False):
    """Solve a x = b for x; a (..., M, M) triangular (the other triangle is ignored), b
    (..., M, K) with the same batch."""
    assert a.dtype is b.dtype and a.shape[:-1] == b.shape[:-1]
    if math.prod(b.shape) == 0:
        return b
    return bind(_lower_triangular_solve, (a, b), (bool(lower), bool(unit_diagonal)), b.shape, b.dtype)


# ---------------------------------------------------------------- building blocks

def zeros(shape, dtype):
    """Zeros by broadcasting a scalar (the emitter spells no literal of a zero-size array)."""
    return ops.broadcast_in_dim(ops.constant(0, dtype), shape, ())


def const(value, like):
    return ops.broadcast_in_dim(ops.constant(value, like.dtype), like.shape, ())


def absolute(x):
    return E("stablehlo.abs", x, dtype=dt.real_of(x.dtype))


def conj(x):
    if x.dtype.kind != "c":
        return x
    rdt = dt.real_of(x.dtype)
    return E("stablehlo.complex", E("stablehlo.real", x, dtype=rdt),
             E("stablehlo.negate", E("stablehlo.imag", x, dtype=rdt)), dtype=x.dtype)


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


def eye(batch, n, dtype):
    shape = tuple(batch) + (n, n)
    r = ops.iota(shape, len(shape) - 2, dt.int32)
    c = ops.iota(shape, len(shape) - 1, dt.int32)
    return ops.convert(ops.compare(r, c, "EQ"), dtype)


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


def reduce_last(x, kind, axes=1):
    nd = len(x.shape)
    return ops.reduce(x, tuple(range(nd - axes, nd)), kind)


def pivot_signs(pivots):
    """True where LAPACK's row interchange i swapped (each swap flips the determinant's sign)."""
    return ops.compare(pivots, ops.iota(pivots.shape, len(pivots.shape) - 1, dt.int32), "NE")


def scalar_like(value, like):
    """A Python number as a graph parameter broadcast to like's shape (no recompiles)."""
    return ops.broadcast_in_dim(ops.scalar(value, like.dtype), like.shape, ())
