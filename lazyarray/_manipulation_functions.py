"""Manipulation functions of the standard."""
from __future__ import annotations

import math
import operator

from . import _dtypes as dt
from . import _ops as ops
from ._array_object import Array
from ._helpers import broadcast_shapes, check_array, normalize_axis


def reshape(x, /, shape, *, copy=None):
    check_array(x)
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(operator.index(s) for s in shape)
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: at most one -1 in the new shape {shape}")
    if -1 in shape:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0 or x.size % rest:
            raise ValueError(f"reshape: cannot reshape {x.shape} into {shape}")
        shape = tuple(x.size // rest if s == -1 else s for s in shape)
    if any(s < 0 for s in shape) or math.prod(shape) != x.size:
        raise ValueError(f"reshape: cannot reshape an array of shape {x.shape} into {shape}")
    if copy is False:
        pass  # a reshape never copies data here: it is a new node on the same value
    return Array._wrap(ops.reshape(x._node, shape), x.device)


def permute_dims(x, /, axes):
    check_array(x)
    axes = tuple(normalize_axis(a, x.ndim) for a in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: {axes} is not a permutation of the {x.ndim} axes")
    return Array._wrap(ops.transpose(x._node, axes), x.device)


def matrix_transpose(x, /):
    check_array(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, got shape {x.shape}")
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return Array._wrap(ops.transpose(x._node, perm), x.device)


def broadcast_to(x, /, shape):
    check_array(x)
    shape = tuple(operator.index(s) for s in shape)
    if len(shape) < x.ndim or broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"broadcast_to: cannot broadcast shape {x.shape} to {shape}")
    return Array._wrap(ops.broadcast_to(x._node, shape), x.device)


def broadcast_arrays(*arrays):
    for a in arrays:
        check_array(a)
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(Array._wrap(ops.broadcast_to(a._node, shape), a.device) for a in arrays)


def broadcast_shapes_(*shapes):
    return broadcast_shapes(*(tuple(s) for s in shapes))


def expand_dims(x, /, axis=0):
    check_array(x)
    axes = axis if isinstance(axis, tuple) else (axis,)
    n = x.ndim + len(axes)
    norm = sorted(normalize_axis(a, n) for a in axes)
    if len(set(norm)) != len(norm):
        raise ValueError(f"expand_dims: repeated axis in {axis}")
    shape = list(x.shape)
    for a in norm:
        shape.insert(a, 1)
    return Array._wrap(ops.reshape(x._node, tuple(shape)), x.device)


def squeeze(x, /, axis):
    check_array(x)
    axes = axis if isinstance(axis, tuple) else (axis,)
    axes = {normalize_axis(a, x.ndim) for a in axes}
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return Array._wrap(ops.reshape(x._node, shape), x.device)


def _common(arrays, fname):
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"{fname}: needs at least one array")
    for a in arrays:
        check_array(a)
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        dtype = dt.result_type_pair(dtype, a.dtype)
    if len({a.device for a in arrays}) > 1:
        raise ValueError(f"{fname}: arrays on different devices")
    return arrays, dtype


def concat(arrays, /, *, axis=0):
    arrays, dtype = _common(arrays, "concat")
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("concat: 0-D arrays cannot be concatenated")
    axis = normalize_axis(axis, ndim)
    for a in arrays:
        if a.ndim != ndim or any(a.shape[i] != arrays[0].shape[i] for i in range(ndim) if i != axis):
            raise ValueError(f"concat: shapes {[x.shape for x in arrays]} differ off axis {axis}")
    nodes = [ops.convert(a._node, dtype) for a in arrays]
    nodes = [n for n in nodes if n.shape[axis] > 0] or nodes[:1]
    return Array._wrap(ops.concatenate(nodes, axis), arrays[0].device)


def stack(arrays, /, *, axis=0):
    arrays, dtype = _common(arrays, "stack")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError(f"stack: shapes differ: {[a.shape for a in arrays]}")
    axis = normalize_axis(axis, len(shape) + 1)
    new = shape[:axis] + (1,) + shape[axis:]
    nodes = [ops.reshape(ops.convert(a._node, dtype), new) for a in arrays]
    return Array._wrap(ops.concatenate(nodes, axis), arrays[0].device)
