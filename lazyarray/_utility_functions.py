"""Utility functions of the standard: all, any, diff."""
from __future__ import annotations

import operator

from . import _dtypes as dt
from . import _ops as ops
from ._array_object import Array
from ._elementwise_functions import not_equal, subtract
from ._helpers import check_array, normalize_axes, normalize_axis
from ._manipulation_functions import concat
from ._graph import Node as _Node, bind as _bind
from ._ops.core import memo
from ._ops.reduce import REDUCE
from ._typing import Axis


def _truth(x, axis, keepdims, kind):
    if axis is None and not keepdims and isinstance(x, Array):
        # (the common call, `any(x)`: every axis) the general path's nodes, with
        # the conversion's attributes and the reduction's built once
        node = x._node
        shape = node.shape
        if not shape and node.op is None and node.dtype is not dt.bool:
            # a 0-D host value (the is_lazy_array probe's element, read when indexed): its truth
            # now, as a 0-D host leaf (the convert's host evaluation, `_ops.elementwise._convert`:
            # x != 0; NaN is true, -0.0 false, a complex value true when either part is nonzero)
            v = node.host
            if type(v) is node.dtype.np.type:
                r = _new(Array)  # (`Array._wrap` of a leaf, inline: nothing to register)
                r._node = _Node(None, (), (), (), dt.bool, v != 0)  # (`leaf_from_host`, a call less)
                r._device = x._device
                return r
        if node.dtype is not dt.bool:  # (the rules' results: an elementwise convert keeps the shape)
            node = _bind(ops.CONVERT, (node,), _TO_BOOL, shape, dt.bool)
        if shape:  # (every axis reduced: a 0-D result)
            node = _bind(REDUCE, (node,), memo(_every_axis, (kind, len(shape)), _every_axis_attrs), (), dt.bool)
        return Array._wrap(node, x._device)
    check_array(x)
    axes = normalize_axes(axis, x.ndim)
    node = ops.convert(x._node, dt.bool)
    out = ops.reduce(node, axes, kind)
    if keepdims:
        out = ops.reshape(out, tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return Array._wrap(out, x.device)


_new = object.__new__
_TO_BOOL = ops.CONVERT.Attrs(dt.bool)  # (ops.convert(node, dt.bool)'s attributes)

# (kind, ndim) -> the attributes of ops.reduce(node, range(ndim), kind) (`core.memo`)
_every_axis = {}


def _every_axis_attrs(kind, ndim):
    return REDUCE.Attrs(kind, tuple(range(ndim)))


def all(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    return _truth(x, axis, keepdims, "and")


def any(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    if axis is None and type(x) is Array:
        # (array-api-compat's is_lazy_array probe, `any` of the 0-D host value `y[0]` read when
        # indexed: `_truth`'s first case, inline, a call less)
        node = x._node
        if not node.shape and node.op is None and node.dtype is not dt.bool and not keepdims:
            v = node.host
            if type(v) is node.dtype.np.type:
                r = _new(Array)
                r._node = _Node(None, (), (), (), dt.bool, v != 0)  # (`leaf_from_host`)
                r._device = x._device
                return r
    return _truth(x, axis, keepdims, "or")


def diff(x: Array, /, *, axis: int = -1, n: int = 1, prepend: Array | None = None,
         append: Array | None = None) -> Array:
    check_array(x)
    if x.ndim == 0:
        raise ValueError("diff needs at least one dimension")
    axis = normalize_axis(axis, x.ndim)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    for _ in range(n):
        m = x.shape[axis]
        if m == 0:
            break
        hi = tuple(m if i == axis else s for i, s in enumerate(x.shape))
        lo1 = tuple(1 if i == axis else 0 for i in range(x.ndim))
        hi1 = tuple(m - 1 if i == axis else s for i, s in enumerate(x.shape))
        a = Array._wrap(ops.slice_(x._node, lo1, hi), x.device)
        b = Array._wrap(ops.slice_(x._node, (0,) * x.ndim, hi1), x.device)
        x = not_equal(a, b) if x.dtype is dt.bool else subtract(a, b)
    return x
