"""__getitem__ and __setitem__.

Basic indices (integers, slices, ellipsis, None) become one dynamic_slice whose start indices are
graph parameters, so `x[i]` and `x[i:i+k]` with a changing i never recompile; strides and negative
steps add a static slice/reverse. Writes are the inverse: dynamic_update_slice, with a padded
mask for strided writes. Integer-array indices gather/scatter; boolean masks that fix a shape
(reads, array-valued writes) need the number of True values: a sync.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from . import _dtypes as dt
from . import _ops as ops
from ._array_object import Array, _View


class _Axis:
    """What a basic index does to one axis of x: take [start, start+span) then stride."""
    __slots__ = ("start", "span", "step", "count", "drop")

    def __init__(self, start, span, step, count, drop):
        self.start, self.span, self.step, self.count, self.drop = start, span, step, count, drop


def _expand(key, ndim):
    """key -> list of items with the ellipsis expanded and trailing full slices added."""
    if not isinstance(key, tuple):
        key = (key,)
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can have at most one ellipsis (...)")
    # a boolean array consumes as many axes as it has (a 0-D one none); anything else but None one
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis
                 and not (isinstance(k, Array) and k.dtype is dt.bool))
    n_axes += sum(k.ndim for k in key if isinstance(k, Array) and k.dtype is dt.bool)
    if n_axes > ndim:
        raise IndexError(f"too many indices: {n_axes} for an array of {ndim} dimensions")
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (ndim - n_axes))
        else:
            out.append(k)
    if n_ell == 0:
        out.extend([slice(None)] * (ndim - n_axes))
    return out


def _basic_axis(k, n, axis):
    if isinstance(k, slice):
        start, stop, step = k.indices(n)
        rng = range(start, stop, step)
        count = len(rng)
        if count == 0:
            return _Axis(0, 0, 1, 0, False)
        lo, hi = min(rng[0], rng[-1]), max(rng[0], rng[-1])
        return _Axis(lo, hi - lo + 1, step, count, False)
    try:
        i = operator.index(k)
    except TypeError:
        raise IndexError(f"invalid index {k!r} for axis {axis}: expected an integer, slice, "
                         "ellipsis, None or an array") from None
    if isinstance(k, builtins.bool):
        raise IndexError("a Python bool is not a valid integer index")
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
    return _Axis(i % n, 1, 1, 1, True)


def _is_basic(items):
    return all(not isinstance(k, Array) for k in items)


def _plan(x, items):
    """Basic index -> (axes, out_shape with None axes, positions of None)."""
    axes, newaxes, out = [], [], []
    axis = 0
    for k in items:
        if k is None:
            newaxes.append(len(out))
            out.append(1)
            continue
        a = _basic_axis(k, x.shape[axis], axis)
        axes.append(a)
        if not a.drop:
            out.append(a.count)
        axis += 1
    return axes, tuple(out)


def _starts(axes):
    return [ops.scalar(a.start, dt.int64) for a in axes]


def _read_basic(node, axes, out_shape):
    spans = tuple(a.span for a in axes)
    if spans != node.shape:
        node = ops.dynamic_slice(node, _starts(axes), spans)
    if any(a.step != 1 for a in axes):
        node = ops.slice_(node, (0,) * len(axes), spans, tuple(abs(a.step) for a in axes))
        node = ops.reverse(node, [i for i, a in enumerate(axes) if a.step < 0])
    return ops.reshape(node, out_shape)


def _host_arrays_to_ours(key, x):
    """numpy arrays in an index act as our arrays of the same values (scikit-learn indexes with
    numpy index arrays: `y[train_indices]`)."""
    if isinstance(key, np.ndarray):
        return _from_numpy_index(key, x)
    if isinstance(key, tuple) and any(isinstance(k, np.ndarray) for k in key):
        return tuple(_from_numpy_index(k, x) if isinstance(k, np.ndarray) else k for k in key)
    return key


def _from_numpy_index(k, x):
    from ._creation_functions import asarray
    if k.dtype.kind not in "biu":
        raise IndexError(f"numpy index arrays must be integer or boolean, got {k.dtype}")
    return asarray(k, device=x.device)


def read_basic(x, key):
    """The node of x[key] for a basic key (integers, slices, ellipsis, None)."""
    axes, out_shape = _plan(x, _expand(key, x.ndim))
    if 0 in out_shape:
        return ops.constant(0, x.dtype, out_shape)
    return _read_basic(x._node, axes, out_shape)


def getitem(x, key):
    key = _host_arrays_to_ours(key, x)
    items = _expand(key, x.ndim)
    if _is_basic(items):
        return _View._make(x, key, read_basic(x, key))
    from ._advanced_indexing import getitem_advanced
    return getitem_advanced(x, items)


def _value_node(x, value):
    from ._helpers import is_scalar
    if isinstance(value, Array):
        if value.dtype.kind == "c" and x.dtype.kind != "c":
            raise TypeError(f"cannot assign a {value.dtype} value into a {x.dtype} array")
        if value._device != x._device:
            raise ValueError(f"value is on {value._device}, the array on {x._device}")
        return ops.convert(value._node, x.dtype)
    if is_scalar(value):
        if isinstance(value, complex) and x.dtype.kind != "c":
            raise TypeError(f"cannot assign a complex scalar into a {x.dtype} array")
        if isinstance(value, float) and x.dtype.kind in "biu":
            raise TypeError(f"cannot assign a float scalar into a {x.dtype} array")
        return ops.scalar(value, x.dtype)
    raise TypeError(f"cannot assign a {type(value).__name__}: expected an array or a Python scalar")


def setitem(x, key, value):
    key = _host_arrays_to_ours(key, x)
    items = _expand(key, x.ndim)
    vnode = _value_node(x, value)
    if not _is_basic(items):
        from ._advanced_indexing import setitem_advanced
        return setitem_advanced(x, items, vnode)
    axes, out_shape = _plan(x, items)
    _check_assignable(vnode.shape, out_shape)
    if 0 in out_shape:
        return
    vnode = ops.broadcast_to(vnode, out_shape)
    counts = tuple(a.count for a in axes)
    vnode = ops.reshape(vnode, counts)  # drop None axes, restore the integer-indexed ones
    vnode = ops.reverse(vnode, [i for i, a in enumerate(axes) if a.step < 0])
    spans = tuple(a.span for a in axes)
    node = x._node
    if any(a.step != 1 for a in axes):
        steps = tuple(abs(a.step) - 1 for a in axes)
        zeros = (0,) * len(axes)
        padded = ops.pad(vnode, ops.scalar(0, x.dtype), zeros, zeros, steps)
        mask = ops.pad(ops.constant(True, dt.bool, counts), ops.constant(False, dt.bool), zeros, zeros, steps)
        current = ops.dynamic_slice(node, _starts(axes), spans)
        vnode = ops.select(mask, padded, current)
    if spans == x.shape:
        x._rebind(vnode)
    else:
        x._rebind(ops.dynamic_update_slice(node, vnode, _starts(axes)))


def _check_assignable(value_shape, target_shape):
    from ._helpers import broadcast_shapes
    try:
        ok = broadcast_shapes(value_shape, target_shape) == tuple(target_shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"cannot assign a value of shape {value_shape} to a selection of shape {target_shape}")
