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
from . import _views
from ._array_object import Array, _View, check_writable, strides_of


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


def _plan(shape, items, strides=None):
    """Basic index on an array of `shape` -> (axes, out_shape, out_strides); out_strides (the
    view's element strides, None axes included) only when the base's `strides` are given."""
    axes, out, out_strides = [], [], []
    axis = 0
    for k in items:
        if k is None:
            out.append(1)
            out_strides.append(0)
            continue
        a = _basic_axis(k, shape[axis], axis)
        axes.append(a)
        if not a.drop:
            out.append(a.count)
            if strides is not None:
                out_strides.append(strides[axis] * a.step)
        axis += 1
    return axes, tuple(out), (tuple(out_strides) if strides is not None else None)


def _starts(axes):
    return [ops.scalar(a.start, dt.int64) for a in axes]


def _read_basic(node, axes, out_shape):
    if 0 in out_shape:
        return ops.constant(0, node.dtype, out_shape)
    spans = tuple(a.span for a in axes)
    if spans != node.shape:
        node = ops.dynamic_slice(node, _starts(axes), spans)
    if any(a.step != 1 for a in axes):
        node = ops.slice_(node, (0,) * len(axes), spans, tuple(abs(a.step) for a in axes))
        node = ops.reverse(node, [i for i, a in enumerate(axes) if a.step < 0])
    return ops.reshape(node, out_shape)


def _write_basic(node, axes, out_shape, vnode):
    """`node` with the selection (axes, out_shape) set to `vnode` (already of node's dtype and
    broadcastable to out_shape)."""
    if 0 in out_shape:
        return node
    vnode = ops.broadcast_to(vnode, out_shape)
    counts = tuple(a.count for a in axes)
    vnode = ops.reshape(vnode, counts)  # drop None axes, restore the integer-indexed ones
    vnode = ops.reverse(vnode, [i for i, a in enumerate(axes) if a.step < 0])
    spans = tuple(a.span for a in axes)
    if any(a.step != 1 for a in axes):
        steps = tuple(abs(a.step) - 1 for a in axes)
        zeros = (0,) * len(axes)
        padded = ops.pad(vnode, ops.scalar(0, node.dtype), zeros, zeros, steps)
        mask = ops.pad(ops.constant(True, dt.bool, counts), ops.constant(False, dt.bool), zeros, zeros, steps)
        current = ops.dynamic_slice(node, _starts(axes), spans)
        vnode = ops.select(mask, padded, current)
    if spans == node.shape:
        return vnode
    return ops.dynamic_update_slice(node, vnode, _starts(axes))


class BasicIndex(_views.Step):
    """The view step of a basic index (integers, slices, ellipsis, None)."""
    __slots__ = ("axes", "out_shape")

    def __init__(self, axes, out_shape):
        self.axes, self.out_shape = axes, out_shape

    def forward(self, base):
        return _read_basic(base, self.axes, self.out_shape)

    def inverse(self, base, node):
        return _write_basic(base, self.axes, self.out_shape, node)


def _host_arrays_to_ours(key, x):
    """numpy arrays in an index act as our arrays of the same values (scikit-learn indexes with
    numpy index arrays: `y[train_indices]`)."""
    if isinstance(key, (np.ndarray, list)):
        return _from_numpy_index(key, x)
    if isinstance(key, tuple) and any(isinstance(k, (np.ndarray, list)) for k in key):
        return tuple(_from_numpy_index(k, x) if isinstance(k, (np.ndarray, list)) else k for k in key)
    return key


def _from_numpy_index(k, x):
    from ._creation_functions import asarray
    if isinstance(k, list):
        # an index given as a list of integers or bools acts as that array, as in numpy,
        # PyTorch, JAX and CuPy (an empty list is an empty integer index)
        k = np.asarray(k) if k else np.zeros(0, np.intp)
    if k.dtype.kind not in "biu":
        raise IndexError(f"numpy index arrays must be integer or boolean, got {k.dtype}")
    return asarray(k, device=x.device)


def read_basic(x, key):
    """The node of x[key] for a basic key (integers, slices, ellipsis, None)."""
    axes, out_shape, _ = _plan(x.shape, _expand(key, x.ndim))
    return _read_basic(x._node, axes, out_shape)


def _all_integers(key, items):
    """An integer for every axis and nothing else: numpy answers with a scalar (a copy)."""
    if key is Ellipsis or (isinstance(key, tuple) and any(k is Ellipsis for k in key)):
        return False
    return all(not isinstance(k, slice) and k is not None for k in items)


def getitem(x, key):
    key = _host_arrays_to_ours(key, x)
    items = _expand(key, x.ndim)
    if _is_basic(items):
        axes, out_shape, strides = _plan(x.shape, items, strides_of(x))
        if _all_integers(key, items):
            return Array._wrap(_read_basic(x._node, axes, out_shape), x._device)
        return _View._make(x, BasicIndex(axes, out_shape), _read_basic(x._node, axes, out_shape), strides)
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
            value = _float_into(value, x.dtype)
        return ops.scalar(value, x.dtype)
    raise TypeError(f"cannot assign a {type(value).__name__}: expected an array or a Python scalar")


def _float_into(value, dtype):
    """A float scalar written into a bool or integer array, cast as numpy casts it (the standard
    leaves this open; array-api-extra's `at(x, i).set(1.1)` and numpy-style code expect it):
    truncated toward zero, OverflowError outside the dtype's range, ValueError for NaN."""
    if dtype.kind == "b":
        return builtins.bool(value)
    if value != value:
        raise ValueError(f"cannot convert float NaN to integer (assigning into a {dtype} array)")
    if value in (float("inf"), float("-inf")):
        raise OverflowError(f"cannot convert float infinity to integer (assigning into a {dtype} array)")
    value = int(value)
    info = np.iinfo(dtype.np)
    if not info.min <= value <= info.max:
        raise OverflowError(f"Python integer {value} out of bounds for {dtype.name}")
    return value


def setitem(x, key, value):
    check_writable(x)  # (also a write that selects nothing, as numpy)
    key = _host_arrays_to_ours(key, x)
    items = _expand(key, x.ndim)
    vnode = _value_node(x, value)
    if not _is_basic(items):
        from ._advanced_indexing import setitem_advanced
        with _views.write_lock:
            return setitem_advanced(x, items, vnode)
    axes, out_shape, _ = _plan(x.shape, items)
    _check_assignable(vnode.shape, out_shape)
    if 0 in out_shape:
        return
    with _views.write_lock:
        x._rebind(_write_basic(x._node, axes, out_shape, vnode))


def _check_assignable(value_shape, target_shape):
    from ._helpers import broadcast_shapes
    try:
        ok = broadcast_shapes(value_shape, target_shape) == tuple(target_shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"cannot assign a value of shape {value_shape} to a selection of shape {target_shape}")
