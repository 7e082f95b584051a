"""Linear algebra functions of the main namespace: matmul, tensordot, vecdot (matrix_transpose
lives with the manipulation functions)."""
from __future__ import annotations

import operator
from collections.abc import Sequence

from . import _dtypes as dt
from ._bounded import keep
from . import _ops as ops
from ._array_object import Array, _View
from ._graph import bind as _bind
from ._helpers import broadcast_shapes, check_array, normalize_axis
from ._manipulation_functions import unbound_transpose


def _numeric_pair(x1, x2, fname):
    check_array(x1, "x1")
    check_array(x2, "x2")
    dtype = dt.result_type_pair(x1.dtype, x2.dtype)
    if dtype not in dt.CATEGORIES["numeric"]:
        raise TypeError(f"{fname}: expected numeric arrays, got {x1.dtype} and {x2.dtype}")
    if x1.device != x2.device:
        raise ValueError(f"{fname}: arrays on different devices ({x1.device} and {x2.device})")
    return ops.convert(x1._node, dtype), ops.convert(x2._node, dtype), dtype


_TRANSPOSE, _DOT_GENERAL = ops.TRANSPOSE, ops.DOT_GENERAL
# (lhs shape, rhs shape, lhs contracted axis, rhs contracted axis, dtype) -> (attributes, result
# shape) of `_product`'s node: matmul's few shapes of a program (emptied at _PRODUCTS entries)
_products = {}
_PRODUCTS = 4096


def _product(a, b):
    """`ops.dot_general(a, b, (), (), (len(a.shape) - 1,), (0,))` for two matrices or vectors of
    one dtype whose sizes agree, its one node bound at once: the builder's fold of a pending 2-D
    transpose into the contracted axis (`X.T @ r`, `X @ C.T`) and its X^T v as v^T X, with the
    node's attributes and shape (from dot_general's rule) kept per shapes. None where the
    builder does more (a column's reshapes, a transpose met again after the swap): the caller
    then calls the builder."""
    x, lc = _untransposed(a, len(a.shape) - 1)
    y, rc = _untransposed(b, 0)
    if x is None or y is None:
        return None
    return _folded(x, lc, y, rc)


def _untransposed(node, axis):
    """(the operand, the contracted axis) `_product` takes for `node` contracted on `axis`: a
    bound 2-D transpose's matrix and the axis it came from, else the node itself; (None, None)
    for a transpose of more axes (the builder then)."""
    if node.op is not _TRANSPOSE:
        return node, axis
    perm = node.attrs.perm
    if len(perm) != 2:
        return None, None
    return node.args[0], perm[axis]


def _folded(x, lc, y, rc):
    """`_product`'s node of x contracted on its axis lc with y on its axis rc, the transposes
    folded (x, y: the transposes' operands); None where the builder does more."""
    if lc == 0 and rc == 0 and len(x.shape) == 2:
        if len(y.shape) == 1:
            if x.op is _TRANSPOSE or y.op is _TRANSPOSE:
                return None
            x, y = y, x  # (the builder's dot_general(y, x, (), (), (0,), (0,)))
        elif y.shape[1] == 1:
            return None
    dtype = x.dtype
    key = (x.shape, y.shape, lc, rc, dtype)
    hit = _products.get(key)
    if hit is None:
        attrs = _DOT_GENERAL.Attrs((), (), (lc,), (rc,))
        hit = keep(_products, key, (attrs, _DOT_GENERAL.rule((x, y), attrs)[0]), _PRODUCTS)
    return _bind(_DOT_GENERAL, (x, y), hit[0], hit[1], dtype)


def _unbound_product(x1, x2, ta, tb):
    """x1 @ x2 where x1 or x2 is an `x.T` whose transpose is not bound yet (ta, tb: the matrices
    they transpose, else None): `_product`'s node of the transposes it would have met, without
    binding them; None where `_product` would not serve (the caller binds them then)."""
    if ta is not None:
        x, lc = ta, 0  # (the contracted axis 1 of the transpose: axis 0 of its operand)
        sa = (ta.shape[1], ta.shape[0])
    else:
        node = x1._node  # (read once: a view's node property checks its base)
        sa = node.shape
        x, lc = _untransposed(node, len(sa) - 1)
    if tb is not None:
        y, rc = tb, 1  # (the contracted axis 0 of the transpose: axis 1 of its operand)
        sb = (tb.shape[1], tb.shape[0])
    else:
        node = x2._node  # (read once: a view's node property checks its base)
        sb = node.shape
        y, rc = _untransposed(node, 0)
    if x is None or y is None:
        return None
    if (0 < len(sa) <= 2 and 0 < len(sb) <= 2 and x.dtype is y.dtype and x.dtype.kind in "iufc"
            and x1._device is x2._device and sa[-1] == sb[0]):
        return _folded(x, lc, y, rc)
    return None


def matmul(x1: Array, x2: Array, /) -> Array:
    if isinstance(x1, Array) and isinstance(x2, Array):
        if type(x1) is _View or type(x2) is _View:
            ta, tb = unbound_transpose(x1), unbound_transpose(x2)
            if ta is not None or tb is not None:
                # (`X.T @ r`: the node `_product` gives for X.T's transpose, which is not bound)
                node = _unbound_product(x1, x2, ta, tb)
                if node is not None:
                    return Array._wrap(node, x1._device)
        a, b = x1._node, x2._node
        sa, sb = a.shape, b.shape
        if (0 < len(sa) <= 2 and 0 < len(sb) <= 2 and a.dtype is b.dtype and a.dtype.kind in "iufc"
                and x1._device is x2._device and sa[-1] == sb[0]):
            # the common cases: matrices and vectors of one numeric dtype on one device, what
            # the general path below builds without its checks' conversions and broadcasts
            # a vector operand is contracted as it is (dot_general's result axes are x's free
            # axes, then y's: matmul's with the vector's axis dropped), not reshaped to a matrix
            # and back: one node instead of three (logistic regression's X @ w, X.T @ r)
            node = _product(a, b)
            if node is None:
                node = ops.dot_general(a, b, (), (), (len(sa) - 1,), (0,))
            return Array._wrap(node, x1._device)
    a, b, dtype = _numeric_pair(x1, x2, "matmul")
    if a.shape == () or b.shape == ():
        raise ValueError("matmul: 0-D operands are not allowed; use multiply")
    squeeze_a, squeeze_b = len(a.shape) == 1, len(b.shape) == 1
    if squeeze_a:
        a = ops.reshape(a, (1,) + a.shape)
    if squeeze_b:
        b = ops.reshape(b, b.shape + (1,))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: contracted dimensions differ: {x1.shape} @ {x2.shape}")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = ops.broadcast_to(a, batch + a.shape[-2:])
    b = ops.broadcast_to(b, batch + b.shape[-2:])
    nb = len(batch)
    out = ops.dot_general(a, b, tuple(range(nb)), tuple(range(nb)), (nb + 1,), (nb,))
    shape = batch + ((() if squeeze_a else (a.shape[-2],)) + (() if squeeze_b else (b.shape[-1],)))
    return Array._wrap(ops.reshape(out, shape), x1.device)


def tensordot(x1: Array, x2: Array, /, *,
              axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Array:
    a, b, dtype = _numeric_pair(x1, x2, "tensordot")
    if isinstance(axes, int) or hasattr(axes, "__index__"):
        n = operator.index(axes)
        if n < 0 or n > min(len(a.shape), len(b.shape)):
            raise ValueError(f"tensordot: axes={n} out of range for shapes {x1.shape}, {x2.shape}")
        ax1 = tuple(range(len(a.shape) - n, len(a.shape)))
        ax2 = tuple(range(n))
    else:
        ax1, ax2 = axes
        ax1 = tuple(normalize_axis(i, len(a.shape)) for i in ax1)
        ax2 = tuple(normalize_axis(i, len(b.shape)) for i in ax2)
        if len(ax1) != len(ax2):
            raise ValueError("tensordot: the two axes sequences differ in length")
    for i, j in zip(ax1, ax2):
        if a.shape[i] != b.shape[j]:
            if a.shape[i] == 1 or b.shape[j] == 1:
                raise ValueError(f"tensordot: contracted axes {i} and {j} differ ({a.shape[i]} vs {b.shape[j]})")
            raise ValueError(f"tensordot: contracted axes {i} and {j} differ ({a.shape[i]} vs {b.shape[j]})")
    return Array._wrap(ops.dot_general(a, b, (), (), ax1, ax2), x1.device)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    a, b, dtype = _numeric_pair(x1, x2, "vecdot")
    if not x1.ndim or not x2.ndim:
        raise ValueError("vecdot: operands need at least one dimension")
    shape = broadcast_shapes(a.shape, b.shape)
    axis = normalize_axis(axis, len(shape))
    if axis - len(shape) < -min(x1.ndim, x2.ndim) or x1.shape[axis - len(shape)] != x2.shape[axis - len(shape)]:
        raise ValueError(f"vecdot: axis {axis} differs in size: {x1.shape} and {x2.shape}")
    a, b = ops.broadcast_to(a, shape), ops.broadcast_to(b, shape)
    if dtype.kind == "c":
        a = ops.conj(a)
    prod = ops.MULTIPLY(a, b)
    return Array._wrap(ops.reduce(prod, (axis,), "add"), x1.device)
