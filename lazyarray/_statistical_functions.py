"""Statistical functions of the standard: reductions and cumulative scans."""
from __future__ import annotations

import numpy as np

from . import _dtypes as dt
from . import _ops as ops
from ._array_object import Array
from ._bounded import keep
from ._graph import bind as _bind, bind_pair as _bind_pair
from ._ops.reduce import REDUCE as _REDUCE
from ._helpers import check_array, normalize_axes, normalize_axis
from ._typing import Axis, DType


def _keep(node, axes, keepdims, in_shape):
    if keepdims:
        return ops.reshape(node, tuple(1 if i in axes else n for i, n in enumerate(in_shape)))
    return node


def _sum_dtype(x_dtype, dtype, fname):
    if dtype is not None:
        dtype = dt.as_dtype(dtype)
        if x_dtype.kind == "c" and dtype.kind != "c":
            raise TypeError(f"{fname}: cannot accumulate {x_dtype} in {dtype}")
        return dtype
    if x_dtype.kind == "b" or x_dtype.kind == "i":
        return dt.int64
    if x_dtype.kind == "u":
        return dt.uint64
    return x_dtype


# (shape, dtype, axis, keepdims, kind) -> (reduce attributes, its shape, reshape attributes or
# None, the kept shape): the nodes `_accumulate`'s general path bound for a floating x, an int
# axis or None and no dtype or x's own, or `_extreme`'s for an int axis or None (SciPy's table:
# ~130 `max(x)` a pass) (a reduce of x, then keepdims'
# reshape), bound at once at the next such call (emptied at _PLANS entries). Only a call that
# passed every check is kept.
_accumulations = {}
_PLANS = 1024


def _accumulate(x, axis, dtype, keepdims, kind, fname):
    if (axis is None or type(axis) is int) and isinstance(x, Array):
        node = x._node
        # (a dtype that is x's own floating dtype binds what no dtype binds: scikit-learn's
        # `_logsumexp` sums with `dtype=array.dtype`)
        hit = _accumulations.get((node.shape, node.dtype, axis, keepdims, kind)) if dtype is None or (
            dtype is node.dtype and dtype.kind in "fc") else None
        if hit is not None:
            return _replay(x, node, hit)
    check_array(x)
    node = x._node  # (read once: a view's node property checks its base)
    x_dtype, shape = node.dtype, node.shape
    if x_dtype not in _ACCUMULABLE:
        raise TypeError(f"{fname}: expected a numeric array, got {x_dtype}")
    axes = normalize_axes(axis, len(shape))
    out_dtype = x_dtype if dtype is None and x_dtype.kind in "fc" else _sum_dtype(x_dtype, dtype, fname)
    node = ops.convert(node, out_dtype)
    out = _keep(ops.reduce(node, axes, kind), axes, keepdims, shape)
    if (axis is None or type(axis) is int) and (dtype is None or (dtype is x_dtype and x_dtype.kind in "fc")):
        _keep_plan(x._node, out, axis, keepdims, kind)
    return Array._wrap(out, x._device)


def _replay(x, node, hit):
    """The nodes a kept plan names (`_keep_plan`), bound at once on x's current `node`."""
    d = node.dtype
    out = _bind(_REDUCE, (node,), hit[0], hit[1], d)
    if hit[2] is not None:
        out = _bind(_RESHAPE, (out,), hit[2], hit[3], d)
    return Array._wrap(out, x._device)


def _keep_plan(x, out, axis, keepdims, kind):
    """Keep the nodes `_accumulate` bound for x when they are the ones its fast path binds."""
    red = out.args[0] if keepdims and out.op is _RESHAPE else out
    if red.op is not _REDUCE or red.args[0] is not x or (keepdims and red is out):
        return
    if len(_accumulations) >= _PLANS:
        _accumulations.clear()
    _accumulations[(x.shape, x.dtype, axis, keepdims, kind)] = (
        red.attrs, red.shape, out.attrs if keepdims else None, out.shape)


_RESHAPE = ops.RESHAPE
_DIVIDE = ops.DIVIDE
_CONSTANT = ops.CONSTANT


_ACCUMULABLE = dt.CATEGORIES["numeric"] | {dt.bool}


def sum(x: Array, /, *, axis: Axis = None, dtype: DType | None = None, keepdims: bool = False) -> Array:
    return _accumulate(x, axis, dtype, keepdims, "add", "sum")


def prod(x: Array, /, *, axis: Axis = None, dtype: DType | None = None, keepdims: bool = False) -> Array:
    return _accumulate(x, axis, dtype, keepdims, "mul", "prod")


def _extreme(x, axis, keepdims, kind, fname):
    if (axis is None or type(axis) is int) and isinstance(x, Array):  # (a plan an earlier call kept: `_accumulate`'s)
        node = x._node
        hit = _accumulations.get((node.shape, node.dtype, axis, keepdims, kind))
        if hit is not None:
            return _replay(x, node, hit)
    check_array(x)
    node = x._node  # (read once: a view's node property checks its base)
    x_dtype, shape = node.dtype, node.shape
    if x_dtype not in _EXTREMABLE:
        raise TypeError(f"{fname}: expected a real numeric array, got {x_dtype}")
    axes = normalize_axes(axis, len(shape))
    for a in axes:
        if shape[a] == 0:
            raise ValueError(f"{fname} of an empty selection has no identity")
    reducer = kind if x_dtype is not dt.bool else "or" if kind == "max" else "and"
    # (a float max/min propagates NaN in both tiers: _ops.reduce)
    out = _keep(ops.reduce(node, axes, reducer), axes, keepdims, shape)
    if axis is None or type(axis) is int:
        _keep_plan(node, out, axis, keepdims, kind)
    return Array._wrap(out, x._device)


_EXTREMABLE = dt.CATEGORIES["real numeric"] | {dt.bool}


def max(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    return _extreme(x, axis, keepdims, "max", "max")


def min(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    return _extreme(x, axis, keepdims, "min", "min")


def _count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def mean(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    planned = (axis is None or type(axis) is int) and isinstance(x, Array)
    if planned:  # (a plan an earlier call kept: `_keep_mean_plan`)
        node = x._node
        hit = _mean_plans.get((node.shape, node.dtype, axis, keepdims))
        if hit is not None:
            d = node.dtype
            red_attrs, red_shape, n_attrs, reshape_attrs, out_shape = hit
            out = _bind_pair(_DIVIDE, _bind(_REDUCE, (node,), red_attrs, red_shape, d),
                             _bind(_CONSTANT, (), n_attrs, (), d), (), red_shape, d)
            if reshape_attrs is not None:
                out = _bind(_RESHAPE, (out,), reshape_attrs, out_shape, d)
            return Array._wrap(out, x._device)
    check_array(x)
    node = x._node  # (read once: a view's node property checks its base)
    x_dtype, shape = node.dtype, node.shape
    if x_dtype.kind not in "fc":
        raise TypeError(f"mean: expected a floating-point array, got {x_dtype}")
    axes = normalize_axes(axis, len(shape))
    total = ops.reduce(node, axes, "add")
    n = _count(shape, axes)
    out = ops.DIVIDE(total, ops.constant(n if n else np.nan, x_dtype))
    if n == 0:
        out = ops.constant(np.nan, x_dtype, total.shape)
    out = _keep(out, axes, keepdims, shape)
    if planned:
        _keep_mean_plan(node, out, (shape, x_dtype, axis, keepdims))
    return Array._wrap(out, x._device)


# (shape, dtype, axis (None or an int), keepdims) -> (reduce attributes, its shape, the count's
# constant attributes, reshape attributes or None, the result's shape): the nodes `mean`'s
# general path bound for a floating x (a reduce of x, its division by the count, keepdims'
# reshape), bound at once at the next such call (SciPy's table: ~90 means a pass, ~20 shapes).
# Only a call that passed every check is kept.
_mean_plans = {}


def _keep_mean_plan(x, out, key):
    """Keep the nodes `mean` bound for x when they are the ones its fast path binds."""
    div = out.args[0] if out.op is _RESHAPE else out
    if div.op is not _DIVIDE or (out is not div and out.args[0] is not div):
        return
    red, n = div.args
    if red.op is not _REDUCE or red.args[0] is not x or n.op is not _CONSTANT or n.args:
        return
    keep(_mean_plans, key, (red.attrs, red.shape, n.attrs, out.attrs if out is not div else None,
                            out.shape), _PLANS)


def var(x: Array, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False) -> Array:
    check_array(x)
    if x.dtype.kind not in "f":
        raise TypeError(f"var: expected a real floating-point array, got {x.dtype}")
    axes = normalize_axes(axis, x.ndim)
    n = _count(x.shape, axes)
    node = x._node
    total = ops.reduce(node, axes, "add")
    kept = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
    m = ops.DIVIDE(total, ops.constant(n if n else 1, x.dtype))
    d = ops.SUBTRACT(node, ops.broadcast_to(ops.reshape(m, kept), x.shape))
    ss = ops.reduce(ops.MULTIPLY(d, d), axes, "add")
    denom = n - correction
    if denom <= 0:
        out = ops.constant(np.nan, x.dtype, ss.shape)
    else:
        out = ops.DIVIDE(ss, ops.scalar(denom, x.dtype))
    return Array._wrap(_keep(out, axes, keepdims, x.shape), x.device)


def std(x: Array, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False) -> Array:
    v = var(x, axis=axis, correction=correction, keepdims=keepdims)
    return Array._wrap(ops.SQRT(v._node), v.device)


def _cumulative(x, axis, dtype, include_initial, kind, fname):
    check_array(x)
    if x.dtype not in dt.CATEGORIES["numeric"] and x.dtype is not dt.bool:
        raise TypeError(f"{fname}: expected a numeric array, got {x.dtype}")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{fname}: axis is required for arrays of more than one dimension")
        axis = 0
    if x.ndim == 0:
        raise ValueError(f"{fname}: needs at least one dimension")
    axis = normalize_axis(axis, x.ndim)
    out_dtype = _sum_dtype(x.dtype, dtype, fname)
    node = ops.convert(x._node, out_dtype)
    if x.shape[axis] > 0:
        node = ops.cumulative(node, axis, kind)
    if include_initial:
        ident = 0 if kind == "add" else 1
        low = tuple(1 if i == axis else 0 for i in range(x.ndim))
        node = ops.pad(node, ops.constant(ident, out_dtype), low, (0,) * x.ndim)
    return Array._wrap(node, x.device)


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
                   include_initial: bool = False) -> Array:
    return _cumulative(x, axis, dtype, include_initial, "add", "cumulative_sum")


def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
                    include_initial: bool = False) -> Array:
    return _cumulative(x, axis, dtype, include_initial, "mul", "cumulative_prod")


