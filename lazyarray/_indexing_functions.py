"""Indexing functions of the standard: take and take_along_axis, as gathers whose index arrays
are graph data. Negative indices count from the end (wrapped lazily). Out-of-range indices
need a sync to see: by default they are not checked and XLA clamps them into range (the
standard leaves them open); checked mode (`_checks`) raises IndexError at the read."""
from __future__ import annotations

from . import _checks, _config
from . import _dtypes as dt
from . import _ops as ops
from ._advanced_indexing import wrap_negative
from ._array_object import Array
from ._helpers import broadcast_shapes, check_array, normalize_axis


def _check_indices(x, indices, fname):
    check_array(x)
    check_array(indices, "indices")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{fname}: indices must have an integer dtype, got {indices.dtype}")
    if indices._device != x._device:
        raise ValueError(f"{fname}: x is on {x._device}, indices on {indices._device}")


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    _check_indices(x, indices, "take")
    if x.ndim == 0:
        raise ValueError("take: x must have at least one axis")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    if indices.ndim != 1:
        raise ValueError(f"take: indices must be one-dimensional, got shape {indices.shape}")
    m = indices.shape[0]
    shape = x.shape[:axis] + (m,) + x.shape[axis + 1:]
    if 0 in shape:
        return Array._wrap(ops.constant(0, x.dtype, shape), x._device)
    if x.shape[axis] == 0:
        raise IndexError(f"take: cannot take from axis {axis} of size 0")
    wrapped = wrap_negative(indices._node, x.shape[axis])
    out = ops.gather_points(x._node, ops.reshape(wrapped, (m, 1)), (axis,))  # (m,) + the other axes
    if _config.checks:
        _checks.index_in_bounds(out, wrapped, x.shape[axis], f"take's indices along axis {axis} "
                                f"of an array of shape {x.shape}")
    perm = tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, x.ndim))
    return Array._wrap(ops.transpose(out, perm), x._device)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    _check_indices(x, indices, "take_along_axis")
    if x.ndim == 0 or indices.ndim != x.ndim:
        raise ValueError(f"take_along_axis: x and indices must have the same number (>0) of "
                         f"axes, got shapes {x.shape} and {indices.shape}")
    axis = normalize_axis(axis, x.ndim)
    others = broadcast_shapes(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                              indices.shape[:axis] + (1,) + indices.shape[axis + 1:])
    shape = others[:axis] + (indices.shape[axis],) + others[axis + 1:]
    if 0 in shape:
        return Array._wrap(ops.constant(0, x.dtype, shape), x._device)
    if x.shape[axis] == 0:
        raise IndexError(f"take_along_axis: cannot take from axis {axis} of size 0")
    src = ops.broadcast_to(x._node, others[:axis] + (x.shape[axis],) + others[axis + 1:])
    wrapped = wrap_negative(indices._node, x.shape[axis])
    picked = ops.broadcast_to(wrapped, shape)
    # each output element's coordinates: its own position on every axis but `axis`
    cols = [picked if i == axis else ops.iota(shape, i, dt.int64) for i in range(x.ndim)]
    idx = ops.concatenate([ops.reshape(c, shape + (1,)) for c in cols], x.ndim)
    out = ops.gather_points(src, idx, tuple(range(x.ndim)))
    if _config.checks:
        _checks.index_in_bounds(out, wrapped, x.shape[axis], f"take_along_axis's indices along "
                                f"axis {axis} of an array of shape {x.shape}")
    return Array._wrap(out, x._device)
