"""The standard's `linalg` extension (2025.12), lazily.

Each function validates its arguments at the call and builds nodes. The decompositions (LU,
Cholesky, QR, eigh, eig, SVD) are the only borrowed lowerings (see _linalg_ops / _runtime_lapack);
everything else is composed from our primitives: det/slogdet from LU's diagonal and pivots,
solve/inv from LU and triangular solves, pinv/matrix_rank/2-norms from the SVD, and norms,
trace, diagonal, cross, outer and matrix_power (repeated squaring) from plain StableHLO.

Decompositions need a floating-point input (TypeError otherwise). Where numpy raises LinAlgError
for a value (a singular matrix in solve/inv, a matrix that is not positive definite in
cholesky) we cannot know it without computing: by default the result holds inf/NaN instead; in
checked mode (`_checks`) the read raises `LinAlgError` (a numpy.linalg.LinAlgError) naming the
line of the call.
"""
from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

from . import _checks, _config
from ._checks import LinAlgError  # noqa: F401  (numpy's LinAlgError, raised by checked mode)
from . import _dtypes as dt
from . import _linalg_ops as la
from . import _ops as ops
from . import _views
from ._array_object import Array, make_view
from ._helpers import broadcast_shapes, check_array, normalize_axes
from ._linear_algebra_functions import matmul, tensordot, vecdot
from ._manipulation_functions import matrix_transpose
from ._typing import Axis, DType, Literal

__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
           "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm"]

E = ops.elementwise


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# ---------------------------------------------------------------- argument checks

def _floating(x, fname):
    check_array(x)
    if x.dtype.kind not in "fc":
        raise TypeError(f"linalg.{fname}: expected a floating-point array, got {x.dtype}")
    if x.dtype is dt.float16:  # (numpy's linalg refuses it too)
        raise TypeError(f"linalg.{fname}: float16 is not supported (LAPACK has no half "
                        "precision); cast to float32 first")
    return x._node


def _matrices(x, fname):
    node = _floating(x, fname)
    if x.ndim < 2:
        raise ValueError(f"linalg.{fname}: expected a matrix or a stack of matrices, got shape {x.shape}")
    return node


def _square(x, fname):
    node = _matrices(x, fname)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.{fname}: expected square matrices, got shape {x.shape}")
    return node


def _pair(x1, x2, fname, category):
    check_array(x1, "x1")
    check_array(x2, "x2")
    if x1._device != x2._device:
        raise ValueError(f"linalg.{fname}: arrays on different devices ({x1._device} and {x2._device})")
    allowed = dt.CATEGORIES[category]
    if x1.dtype not in allowed or x2.dtype not in allowed:
        raise TypeError(f"linalg.{fname}: expected {category} arrays, got {x1.dtype} and {x2.dtype}")
    dtype = dt.result_type_pair(x1.dtype, x2.dtype)
    return ops.convert(x1._node, dtype), ops.convert(x2._node, dtype)


def _wrap(node, x):
    return Array._wrap(node, x._device)


def _kernel(name, node, x, *params):
    return la.kernel(name, node, x._device.platform, *params)


def _rtol(rtol, x, fname):
    """rtol as a real node broadcastable against x's stack shape (a graph parameter when given
    as a number, so varying it does not recompile)."""
    rdt = dt.real_of(x.dtype)
    m, n = x.shape[-2:]
    if rtol is None:
        return ops.scalar(max(m, n) * float(np.finfo(rdt.np).eps), rdt)
    if isinstance(rtol, Array):
        if rtol.dtype.kind != "f":
            raise TypeError(f"linalg.{fname}: rtol must have a real floating-point dtype, got {rtol.dtype}")
        broadcast_shapes(x.shape[:-2], rtol.shape)  # raises ValueError when incompatible
        return ops.convert(rtol._node, dt.result_type_pair(rdt, rtol.dtype))
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"linalg.{fname}: rtol must be a float or an array, got {type(rtol).__name__}")
    return ops.scalar(float(rtol), rdt)


def _largest_kept(s, tol_node):
    """s > tol * max(s): the singular values kept, with tol broadcast over the stack."""
    batch = broadcast_shapes(s.shape[:-1], tol_node.shape)
    s = ops.broadcast_to(ops.convert(s, tol_node.dtype), batch + s.shape[-1:])
    smax = la.reduce_last(s, "max")
    cutoff = ops.MULTIPLY(smax, ops.broadcast_to(tol_node, batch))
    cutoff = ops.broadcast_in_dim(cutoff, s.shape, tuple(range(len(batch))))
    return s, ops.compare(s, cutoff, "GT")


# ---------------------------------------------------------------- decompositions

def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    node = _square(x, "cholesky")
    lower = _kernel("cholesky", node, x)[0]
    if _config.checks and x.size:
        _checks.cholesky_succeeded(lower, lower, node, f"cholesky of an array of shape {x.shape}")
    return _wrap(la.adjoint(lower) if upper else lower, x)


def eigh(x: Array, /) -> EighResult:
    vectors, values = _kernel("eigh", _square(x, "eigh"), x)
    return EighResult(_wrap(values, x), _wrap(vectors, x))


def eigvalsh(x: Array, /) -> Array:
    return _wrap(_kernel("eigh", _square(x, "eigvalsh"), x)[1], x)


def eig(x: Array, /) -> EigResult:
    values, vectors = _kernel("eig", _square(x, "eig"), x)
    return EigResult(_wrap(values, x), _wrap(vectors, x))


def eigvals(x: Array, /) -> Array:
    return _wrap(_kernel("eig", _square(x, "eigvals"), x)[0], x)


def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    node = _matrices(x, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = _kernel("qr", node, x, mode == "complete")
    return QRResult(_wrap(q, x), _wrap(r, x))


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    u, s, vh = _kernel("svd", _matrices(x, "svd"), x, bool(full_matrices))
    return SVDResult(_wrap(u, x), _wrap(s, x), _wrap(vh, x))


def svdvals(x: Array, /) -> Array:
    return _wrap(_kernel("svdvals", _matrices(x, "svdvals"), x)[0], x)


# ---------------------------------------------------------------- from LU

def det(x: Array, /) -> Array:
    lu, pivots, _ = _kernel("lu", _square(x, "det"), x)
    d = la.diagonal(lu)
    d = ops.select(la.pivot_signs(pivots), ops.NEGATE(d), d)
    return _wrap(la.reduce_last(d, "mul"), x)


def slogdet(x: Array, /) -> SlogdetResult:
    lu, pivots, _ = _kernel("lu", _square(x, "slogdet"), x)
    d = la.diagonal(lu)
    mag = la.absolute(d)
    logabsdet = la.reduce_last(ops.LOG(mag), "add")  # -inf when singular
    if d.dtype.kind == "c":
        zero = ops.compare(mag, ops.full(0, mag), "EQ")
        safe = ops.select(zero, ops.full(1, mag), mag)
        unit = ops.DIVIDE(d, ops.convert(safe, d.dtype))
        phase = ops.select(zero, ops.full(0, d), unit)
    else:
        phase = ops.SIGN(d)  # 0 on a zero pivot: the sign of a singular matrix is 0
    phase = ops.select(la.pivot_signs(pivots), ops.NEGATE(phase), phase)
    return SlogdetResult(_wrap(la.reduce_last(phase, "mul"), x), _wrap(logabsdet, x))


def solve(x1: Array, x2: Array, /) -> Array:
    if isinstance(x1, Array) and isinstance(x2, Array):
        a, b = x1._node, x2._node
        sa, sb = a.shape, b.shape
        if (len(sa) == 2 and len(sb) == 2 and sa[0] == sa[1] == sb[0] and sa[0] and sb[1]
                and a.dtype is b.dtype and a.dtype in _LU_SOLVE_DTYPES and x1._device is x2._device
                and x1._device.platform == "cpu" and not _config.checks):
            # the common case: a matrix a and a matrix b of one floating dtype on one CPU device,
            # nonempty, unchecked: the one node the general path below records (`la.solve`),
            # bound without its conversions, broadcasts and the rule's checks made here
            return Array._wrap(la.lu_solve_node(a, b, "cpu", checked=True), x1._device)
    a, b = _pair(x1, x2, "solve", "floating")
    if x1.ndim < 2 or x1.shape[-1] != x1.shape[-2]:
        raise ValueError(f"linalg.solve: x1 must be square matrices, got shape {x1.shape}")
    m = x1.shape[-1]
    if x2.ndim == 0 or x2.shape[-1 if x2.ndim == 1 else -2] != m:
        raise ValueError(f"linalg.solve: x2 of shape {x2.shape} does not match x1 of shape {x1.shape} "
                         f"(expected ({m},) or (..., {m}, K))")
    vector = x2.ndim == 1
    if vector:
        b = ops.reshape(b, (m, 1))
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    platform = x1._device.platform
    if not _config.checks and a.shape[:-2] == batch:  # (no factors to check, none to broadcast)
        out = la.solve(a, ops.broadcast_to(b, batch + b.shape[-2:]), platform)
        return _wrap(ops.reshape(out, batch + (m,)) if vector else out, x1)
    factors, _, perm = la.kernel("lu", a, platform)
    lu = ops.broadcast_to(factors, batch + factors.shape[-2:])
    perm = ops.broadcast_to(perm, batch + perm.shape[-1:])
    out = la.lu_solve(lu, perm, ops.broadcast_to(b, batch + b.shape[-2:]))
    if _config.checks and x1.size and x2.size:
        _checks.nonzero_pivots(out, la.diagonal(factors), f"solve with x1 of shape {x1.shape}")
    return _wrap(ops.reshape(out, batch + (m,)) if vector else out, x1)


_LU_SOLVE_DTYPES = (dt.float32, dt.float64, dt.complex64, dt.complex128)  # (`solve`'s fast path)


def inv(x: Array, /) -> Array:
    node = _square(x, "inv")
    identity = la.eye(x.shape[:-2], x.shape[-1], x.dtype)
    if not _config.checks:
        return _wrap(la.solve(node, identity, x._device.platform), x)
    lu, _, perm = _kernel("lu", node, x)
    out = la.lu_solve(lu, perm, identity)
    if _config.checks and x.size:
        _checks.nonzero_pivots(out, la.diagonal(lu), f"inv of an array of shape {x.shape}")
    return _wrap(out, x)


def matrix_power(x: Array, n: int, /) -> Array:
    check_array(x)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"linalg.matrix_power: n must be an integer, got {type(n).__name__}") from None
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.matrix_power: expected square matrices, got shape {x.shape}")
    if x.dtype not in dt.CATEGORIES["numeric"]:
        raise TypeError(f"linalg.matrix_power: expected a numeric array, got {x.dtype}")
    if n == 0:
        return _wrap(la.eye(x.shape[:-2], x.shape[-1], x.dtype), x)
    base = x._node
    if n < 0:
        base, n = inv(x)._node, -n  # inv raises the TypeError for non-floating x
    result = None
    while n:  # repeated squaring: about 2 log2(n) products
        if n & 1:
            result = base if result is None else la.matmul(result, base)
        n >>= 1
        if n:
            base = la.matmul(base, base)
    return _wrap(result, x)


# ---------------------------------------------------------------- from the SVD

def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    node = _matrices(x, "matrix_rank")
    tol = _rtol(rtol, x, "matrix_rank")
    s = _kernel("svdvals", node, x)[0]
    _, kept = _largest_kept(s, tol)
    return _wrap(la.reduce_last(ops.convert(kept, dt.DEFAULT_INT), "add"), x)


def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    node = _matrices(x, "pinv")
    tol = _rtol(rtol, x, "pinv")
    u, s, vh = _kernel("svd", node, x, False)
    s, kept = _largest_kept(s, tol)
    s = ops.convert(s, dt.real_of(x.dtype))
    inv_s = ops.select(kept, ops.DIVIDE(ops.full(1, s), s), ops.full(0, s))
    batch = s.shape[:-1]
    u = ops.broadcast_to(u, batch + u.shape[-2:])
    vh = ops.broadcast_to(vh, batch + vh.shape[-2:])
    v = la.adjoint(vh)  # (..., N, K)
    scale = ops.broadcast_in_dim(ops.convert(inv_s, x.dtype), v.shape, tuple(range(len(batch))) + (len(batch) + 1,))
    return _wrap(la.matmul(ops.MULTIPLY(v, scale), la.adjoint(u)), x)


# ---------------------------------------------------------------- norms

def _matrix_ord_ok(ord):
    if isinstance(ord, str):
        return ord in ("fro", "nuc")
    return isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord in (1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(x: Array, /, *, keepdims: bool = False,
                ord: int | float | Literal["fro", "nuc"] | None = "fro") -> Array:
    node = _matrices(x, "matrix_norm")
    if not _matrix_ord_ok(ord):
        raise ValueError(f"linalg.matrix_norm: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; got {ord!r}")
    m, n = x.shape[-2:]
    if ord == "fro":
        a = la.absolute(node)
        out = ops.SQRT(la.reduce_last(ops.MULTIPLY(a, a), "add", 2))
    elif ord in ("nuc", 2, -2):
        if ord != "nuc" and min(m, n) == 0:
            raise ValueError(f"linalg.matrix_norm: ord={ord} of an empty matrix ({m}x{n})")
        s = _kernel("svdvals", node, x)[0]
        out = la.reduce_last(s, {"nuc": "add", 2: "max", -2: "min"}[ord])
    else:
        summed, over = (-2, n) if abs(ord) == 1 else (-1, m)  # column sums for 1, row sums for inf
        if over == 0:
            raise ValueError(f"linalg.matrix_norm: ord={ord} of an empty matrix ({m}x{n})")
        a = la.absolute(node)
        sums = ops.reduce(a, (x.ndim + summed,), "add")
        out = la.reduce_last(sums, "max" if ord > 0 else "min")
    if keepdims:
        out = ops.reshape(out, x.shape[:-2] + (1, 1))
    return _wrap(out, x)


def vector_norm(x: Array, /, *, axis: Axis = None, keepdims: bool = False,
                ord: int | float = 2) -> Array:
    node = _floating(x, "vector_norm")
    if isinstance(ord, bool) or not isinstance(ord, (int, float)) or ord != ord:
        raise ValueError(f"linalg.vector_norm: ord must be a number (or inf, -inf), got {ord!r}")
    axes = normalize_axes(axis, x.ndim)
    a = la.absolute(node)
    if ord in (math.inf, -math.inf):
        if any(x.shape[i] == 0 for i in axes):
            raise ValueError(f"linalg.vector_norm: ord={ord} over an empty selection")
        out = ops.reduce(a, axes, "max" if ord > 0 else "min")
    elif ord == 0:
        out = ops.reduce(ops.convert(ops.compare(a, ops.full(0, a), "NE"), a.dtype), axes, "add")
    elif ord == 1:
        out = ops.reduce(a, axes, "add")
    elif ord == 2:
        out = ops.SQRT(ops.reduce(ops.MULTIPLY(a, a), axes, "add"))
    else:  # the p-norm; p is a graph parameter, so a loop over p compiles once
        p = ops.scalar(float(ord), a.dtype, a.shape)
        summed = ops.reduce(ops.POWER(a, p), axes, "add")
        out = ops.POWER(summed, ops.scalar(1.0 / ord, summed.dtype, summed.shape))
    if keepdims:
        out = ops.reshape(out, tuple(1 if i in axes else s for i, s in enumerate(x.shape)))
    return _wrap(out, x)


# ---------------------------------------------------------------- plain compositions

def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    check_array(x)
    offset = operator.index(offset)
    if x.ndim < 2:
        raise ValueError(f"linalg.diagonal: expected a matrix or a stack of matrices, got shape {x.shape}")
    # a read-only view, as numpy's: it shows later writes to x, and writing into it raises
    return make_view(x, _views.diagonal(offset, "linalg.diagonal"))


def trace(x: Array, /, *, offset: int = 0, dtype: DType | None = None) -> Array:
    check_array(x)
    offset = operator.index(offset)
    if x.dtype not in dt.CATEGORIES["numeric"]:
        raise TypeError(f"linalg.trace: expected a numeric array, got {x.dtype}")
    if x.ndim < 2:
        raise ValueError(f"linalg.trace: expected a matrix or a stack of matrices, got shape {x.shape}")
    if dtype is None:  # small integers accumulate in the default integer of their signedness
        dtype = {"i": dt.int64, "u": dt.uint64}.get(x.dtype.kind, x.dtype)
    else:
        dtype = dt.as_dtype(dtype)
        if dtype not in dt.CATEGORIES["numeric"]:
            raise TypeError(f"linalg.trace: dtype must be numeric, got {dtype}")
        if x.dtype.kind == "c" and dtype.kind != "c":
            raise TypeError(f"linalg.trace: cannot accumulate {x.dtype} in {dtype}")
    d = ops.convert(la.diagonal(x._node, offset), dtype)
    return _wrap(la.reduce_last(d, "add"), x)


def outer(x1: Array, x2: Array, /) -> Array:
    a, b = _pair(x1, x2, "outer", "numeric")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"linalg.outer: expected two 1-D arrays, got shapes {x1.shape} and {x2.shape}")
    shape = (x1.shape[0], x2.shape[0])
    return _wrap(ops.MULTIPLY(ops.broadcast_in_dim(a, shape, (0,)), ops.broadcast_in_dim(b, shape, (1,))), x1)


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    a, b = _pair(x1, x2, "cross", "numeric")
    axis = operator.index(axis)
    lowest = -min(x1.ndim, x2.ndim)
    if not lowest <= axis <= -1:
        raise ValueError(f"linalg.cross: axis must be a negative integer in [{lowest}, -1] "
                         f"for shapes {x1.shape} and {x2.shape}, got {axis}")
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"linalg.cross: the vectors along axis {axis} must have 3 elements, "
                         f"got shapes {x1.shape} and {x2.shape}")
    shape = broadcast_shapes(x1.shape, x2.shape)
    a, b = ops.broadcast_to(a, shape), ops.broadcast_to(b, shape)
    ax = len(shape) + axis

    def part(v, i):
        lo = tuple(i if d == ax else 0 for d in range(len(shape)))
        hi = tuple(i + 1 if d == ax else s for d, s in enumerate(shape))
        return ops.slice_(v, lo, hi)

    def term(i, j):  # a_i b_j - a_j b_i
        return ops.SUBTRACT(ops.MULTIPLY(part(a, i), part(b, j)),
                 ops.MULTIPLY(part(a, j), part(b, i)))

    return _wrap(ops.concatenate([term(1, 2), term(2, 0), term(0, 1)], ax), x1)
