"""Contraction: dot_general (matmul, tensordot, vecdot, einsum-like batches)."""
from __future__ import annotations

import functools
import math

import numpy as np

from .. import _blas_threads
from .core import OpDef, kinds, memo, prepared
from .shape import TRANSPOSE, reshape


def _dot_rule(args, a):
    x, y = args
    if x.dtype is not y.dtype:
        raise AssertionError(f"dot_general of {x.shape} {x.dtype.name} and {y.shape} {y.dtype.name} by {a}")
    return memo(_dot_shapes, (x.shape, y.shape, a, x.dtype), _dot_shape), x.dtype


# (lhs shape, rhs shape, attrs, dtype) -> result shape (`core.memo`: a checked key only, a bad
# one raises at every call)
_dot_shapes = {}


def _dot_shape(xs, ys, a, dtype):
    if len(a.lhs_batch) != len(a.rhs_batch) or len(a.lhs_contract) != len(a.rhs_contract) \
            or any(xs[i] != ys[j] for i, j in zip(a.lhs_batch + a.lhs_contract, a.rhs_batch + a.rhs_contract)):
        raise AssertionError(f"dot_general of {xs} {dtype.name} and {ys} {dtype.name} by {a}")
    shape = tuple(xs[i] for i in a.lhs_batch)
    shape += tuple(n for i, n in enumerate(xs) if i not in a.lhs_batch and i not in a.lhs_contract)
    shape += tuple(n for i, n in enumerate(ys) if i not in a.rhs_batch and i not in a.rhs_contract)
    return shape


def _dims(values):
    return f"[{', '.join(map(str, values))}]"


def _lower_dot(e, node, x, y):
    a = node.attrs
    return e.op("stablehlo.dot_general", (x, y), node.shape, node.dtype,
                f"dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = {_dims(a.lhs_batch)}, "
                f"rhs_batching_dimensions = {_dims(a.rhs_batch)}, lhs_contracting_dimensions = {_dims(a.lhs_contract)}, "
                f"rhs_contracting_dimensions = {_dims(a.rhs_contract)}>, "
                "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]")


def _all_finite(xm, ym):
    return np.isfinite(xm).all() and np.isfinite(ym).all()


def _real_matmul(xm, ym, window, finite=_all_finite):
    """xm @ ym of real floats (b, m, k) and (b, k, n), NaN-exact: BLAS may skip zeros, losing
    the NaN of 0 * inf, so non-finite operands take plain loops. `window`: whether the product
    needs a one-thread window on numpy's BLAS (`_blas_threads.numpy_matmul_window`)."""
    if finite(xm, ym):
        return _blas_product(xm, ym, window)
    return np.einsum("bmk,bkn->bmn", xm, ym)


def _complex_matmul(xm, ym, window):
    """XLA CPU's complex contraction (Eigen's kernel): the four real products are summed apart,
    R = sum(ar br) - sum(ai bi) and I = sum(ai br) + sum(ar bi), and the sum is then scaled by
    alpha = 1 + 0j as a complex product, re = R - I*0 and im = R*0 + I, so an infinite or NaN
    part makes the other part NaN (numpy's zgemm keeps (inf, NaN) where XLA gives (NaN, NaN)).
    Measured against XLA CPU: finite values agree to rounding (bit for bit on most shapes, the
    real products being the same sums), NaN/infinity classes and zero signs equal on every
    special value whose partial products cannot overflow (tests/test_interpret_complex_dot.py)."""
    xr, xi, yr, yi = xm.real, xm.imag, ym.real, ym.imag
    with np.errstate(all="ignore"):
        re = _real_matmul(xr, yr, window) - _real_matmul(xi, yi, window)
        im = _real_matmul(xi, yr, window) + _real_matmul(xr, yi, window)
        zero = np.zeros((), re.dtype)
        out = np.empty(re.shape, xm.dtype)
        out.real = re - im * zero
        out.imag = re * zero + im
    return out


def _layout(attrs, xshape, yshape):
    """What a dot of this structure does, from shapes alone: the operands' transpositions (None
    where it is the identity), their (b, m, k) and (b, k, n) shapes, and (b, m, n, k)."""
    lb, rb, lc, rc = attrs
    lfree = [i for i in range(len(xshape)) if i not in lb and i not in lc]
    rfree = [i for i in range(len(yshape)) if i not in rb and i not in rc]
    size = lambda shape, axes: math.prod([shape[i] for i in axes])  # noqa: E731 (np.prod: ~10 us a call)
    b, m, n, k = size(xshape, lb), size(xshape, lfree), size(yshape, rfree), size(xshape, lc)
    px, py = list(lb) + lfree + list(lc), list(rb) + list(rc) + rfree
    return (None if px == sorted(px) else px, None if py == sorted(py) else py,
            (b, m, k), (b, k, n), (b, m, n, k))


def _dot(node, x, y):
    px, py, xs, ys, bmnk = _layout(node.attrs, x.shape, y.shape)
    xm = (x if px is None else np.transpose(x, px)).reshape(xs)
    ym = (y if py is None else np.transpose(y, py)).reshape(ys)
    d = node.dtype
    if d.kind in "iu":  # wrap-around: exact in any wider ring, then truncated
        wide = np.int64 if d.kind == "i" else np.uint64
        r = np.matmul(xm.astype(wide), ym.astype(wide)).astype(d.np)
    elif d.kind == "c":
        r = _complex_matmul(xm, ym, _blas_threads.numpy_matmul_window(*bmnk))
    else:
        r = _real_matmul(xm, ym, _blas_threads.numpy_matmul_window(*bmnk))
    return r.reshape(node.shape)


def _prepare_dot(node):
    """A real floating dot's host step with its structure decided once (`core.prepared`: a graph
    interpreted again): the transpositions, reshapes and BLAS window taken from the shapes, and
    how the operands' finiteness is decided (`_finiteness`). The same numpy calls on the same
    views as `_dot`, the same path taken: the same bits. ~14 -> ~6 us for an 8x8 product."""
    if node.dtype.kind != "f":
        return None
    x, y = node.args
    px, py, xs, ys, bmnk = _layout(node.attrs, x.shape, y.shape)
    # (a partial over atoms, not a closure: one object a kept program gives the collector)
    px, py = (None if px is None else tuple(px)), (None if py is None else tuple(py))
    window, (gram, side) = _blas_threads.numpy_matmul_window(*bmnk), _finiteness(node.attrs, bmnk)
    matrices = len(x.shape) == 2 and len(y.shape) == 2 and not window and not gram and not side
    return functools.partial(_dot_step, matrices, px, py, xs, ys, window, node.shape, gram, side)


def _finiteness(attrs, bmnk):
    """How a prepared step learns that both operands are finite (BLAS's product serves only
    then: `_real_matmul`) without a pass over a large operand, where that is cheaper: a pass over
    a 5000x50 operand costs about what a matrix-vector product with it costs. BLAS may skip a
    product with a zero factor, and that is the only product it may leave out; so

    - gram: x.T @ x, x @ x.T (one array, the same axes contracted on both sides; checked at the
      call: `x is y`): a non-finite x_li puts x_li * x_li (never skipped: x_li is not zero) into
      the diagonal entry (i, i), so a finite product means finite operands;
    - side 1 / 2: when the smaller operand (x / y) is finite and has no zero, every entry of the
      larger one meets a nonzero finite factor in at least one product (the other free size is at
      least 1 where the result is not empty), which no BLAS skips, and a sum with an infinite
      or NaN term is not finite: again a finite product means finite operands.

    A non-finite product then checks the larger operand as before (a finite one: the product
    stands; else einsum's), and a smaller operand with a zero or a non-finite entry takes the
    full check: every input takes the path the full check gives it, so the bits are the same.
    Chosen only where the checks it makes are smaller than the pass it saves, and that pass is
    over at least `FINITENESS_FROM` elements (below, the checks' calls cost more than the pass:
    ~1 us each). (The product may
    now be computed of non-finite operands before einsum's replaces it: evaluations run with
    numpy's floating-point warnings off, `_interpret.numpy_errors_quiet`.)"""
    b, m, n, k = bmnk
    lb, rb, lc, rc = attrs
    xsize, ysize, rsize = b * m * k, b * k * n, b * m * n
    if max(xsize, ysize) < FINITENESS_FROM:
        return False, 0
    gram = lb == rb and lc == rc and m == n and m < k
    side = 0
    if xsize <= ysize and 2 * xsize + rsize < ysize:
        side = 1
    elif ysize < xsize and 2 * ysize + rsize < xsize:
        side = 2
    return gram, side


FINITENESS_FROM = 1 << 12


def _dot_step(matrices, px, py, xs, ys, window, shape, gram, side, x, y):
    if matrices and (_sum_finite(x) if x is y else _sum_finite(x) and _sum_finite(y)):
        # two matrices (each maybe transposed: px, py (1, 0)), finite, no window: np.matmul of
        # the 2-D views, not of their (1, m, k) and (1, k, n) reshapes (numpy's matmul loop then
        # makes the same BLAS call once, on the same memory and strides: the same bits), and no
        # reshape of the result (~0.8 of ~3.3 us for 8x8)
        return np.matmul(x if px is None else x.T, y if py is None else y.T)
    xm = (x if px is None else np.transpose(x, px)).reshape(xs)
    ym = (y if py is None else np.transpose(y, py)).reshape(ys)
    if gram and x is y:
        return _product_where_finite(xm, ym, window, x).reshape(shape)
    if side:
        small, large = (xm, ym) if side == 1 else (ym, xm)
        if np.isfinite(small).all() and small.all():
            return _product_where_finite(xm, ym, window, large).reshape(shape)
    if not window and (_sum_finite(x) if x is y else _sum_finite(x) and _sum_finite(y)):
        return np.matmul(xm, ym).reshape(shape)
    return _real_matmul(xm, ym, window).reshape(shape)


_add_reduce = np.add.reduce


def _sum_finite(a):
    """Whether a real float array is all finite. Below `FINITENESS_FROM` elements, known from its
    sum: a NaN or an infinity makes every sum it enters non-finite (inf + -inf is NaN), so a
    finite sum means finite elements, and a sum of finite elements that overflows answers False:
    `_real_matmul`'s exact check then finds them finite and takes the same product, so the path,
    and the bits, are those of `isfinite(a).all()`. One reduction instead of a ufunc, a bool array
    and its reduction: ~1.4 -> ~1.1 us at (300, 8), ~1.0 -> ~0.65 at (8, 8). From that size on,
    isfinite's pass is as cheap (float64) or cheaper (float32: 24 against 42 us at 5000x50)."""
    if a.size < FINITENESS_FROM:
        return math.isfinite(_add_reduce(a, None))
    return np.isfinite(a).all()


def _product_where_finite(xm, ym, window, rest):
    """BLAS's product where it is finite or `rest` (the operand the product does not vouch for,
    `_finiteness`) is; einsum's otherwise (a non-finite operand: `_real_matmul`'s rule)."""
    r = _blas_product(xm, ym, window)
    if np.isfinite(r).all() or np.isfinite(rest).all():
        return r
    return np.einsum("bmk,bkn->bmn", xm, ym)


def _blas_product(xm, ym, window):
    """np.matmul, in a one-thread window on numpy's BLAS where `window` says."""
    if not window:
        return np.matmul(xm, ym)
    with _blas_threads.numpy_one_thread():
        return np.matmul(xm, ym)


_dot = prepared(_prepare_dot)(_dot)


DOT_GENERAL = OpDef("dot_general", attrs=("lhs_batch", "rhs_batch", "lhs_contract", "rhs_contract"),
                    rule=_dot_rule, lower=_lower_dot, evaluate=_dot, covers=kinds("iufc"))


def _fold_transpose(x, batch, contract):
    """A pending transpose feeding a dot is folded into the dot's dimension numbers when that
    keeps the free axes in order: `X.T @ v` then reads X in place. XLA's CPU pipeline does not
    always do this itself, and a loop that writes `X.T` every step would copy X every step."""
    if x.op is not TRANSPOSE:
        return x, batch, contract
    perm = x.attrs.perm
    if len(perm) == 2 and not batch and len(contract) == 1 and contract[0] in (0, 1):
        # (a matrix's x.T, as `X.T @ v` writes it every step of a loop: one free axis, in order
        # by itself; the general rule below gives the same, ~3 us slower)
        return x.args[0], (), (perm[contract[0]],)
    free = [perm[i] for i in range(len(perm)) if i not in batch and i not in contract]
    if free != sorted(free):
        return x, batch, contract
    return x.args[0], tuple(perm[i] for i in batch), tuple(perm[i] for i in contract)


# (lhs_batch, rhs_batch, lhs_contract, rhs_contract) as tuples -> their DOT_GENERAL.Attrs
# (`core.memo`: a handful of distinct values, matmul's and tensordot's)
_attrs = {}


def dot_general(x, y, lhs_batch, rhs_batch, lhs_contract, rhs_contract):
    """Result axes: batch, then x's free axes, then y's free axes (StableHLO's order)."""
    if x.op is TRANSPOSE:
        x, lhs_batch, lhs_contract = _fold_transpose(x, lhs_batch, lhs_contract)
    if y.op is TRANSPOSE:
        y, rhs_batch, rhs_contract = _fold_transpose(y, rhs_batch, rhs_contract)
    if not lhs_batch and len(x.shape) == 2 and tuple(lhs_contract) == (0,) and tuple(rhs_contract) == (0,):
        # X^T v as (v^T X)^T: XLA's CPU matrix-vector product is ~3x slower when it contracts
        # X's leading axis against a column (0.43 vs 0.14 ms for 50000x32 float32). A vector v
        # swaps sides as it is (both results are X's free axis); a column (n, 1) goes through a
        # row, its transposes touching only unit axes (reshapes).
        if len(y.shape) == 1:
            return dot_general(y, x, (), (), (0,), (0,))
        if len(y.shape) == 2 and y.shape[1] == 1:
            out = dot_general(reshape(y, (1, y.shape[0])), x, (), (), (1,), (0,))
            return reshape(out, (x.shape[1], 1))
    key = (tuple(lhs_batch), tuple(rhs_batch), tuple(lhs_contract), tuple(rhs_contract))
    return DOT_GENERAL.bind((x, y), memo(_attrs, key, DOT_GENERAL.Attrs))
