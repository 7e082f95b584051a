"""Sorting functions of the standard: sort and argsort, both lazy (one stablehlo.sort each).

Order (the standard leaves NaNs and signed zeros to the implementation): NaN sorts as the
largest value, so NaNs come last ascending and first descending (numpy's ascending order; the
descending order of torch, JAX and array-api-strict). -0.0 and +0.0 are equal keys (a stable
sort keeps their order, as numpy's). Complex values sort lexicographically by (real, imag).
Descending keeps stability: the comparator is "greater than", so equal elements stay in input
order.

Sorts are always stable, also for `stable=False` (the standard allows it): an unstable sort's
tie order would be XLA's own, which the interpreter tier could not reproduce. Floats are sorted
by integer keys made from their bits (`_ops.sort.order_key`): XLA's CPU backend treats subnormal
float compares as zero, which would leave 5e-324 and -1e-310 unordered.
"""
from __future__ import annotations

from . import _dtypes as dt
from . import _ops as ops
from ._array_object import Array
from ._helpers import check_array, normalize_axis


def _axis(x, axis, fname):
    check_array(x)
    if x.ndim == 0:
        raise ValueError(f"{fname}: cannot sort a 0-D array (axis {axis} needs at least one dimension)")
    return normalize_axis(axis, x.ndim)


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    axis = _axis(x, axis, "sort")
    if x.shape[axis] <= 1:
        return Array._wrap(x._node, x.device)  # a new handle: mutating it leaves x alone
    out, = ops.sort([x._node], axis, descending=descending)
    return Array._wrap(out, x.device)


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    axis = _axis(x, axis, "argsort")
    positions = ops.iota(x.shape, axis, dt.DEFAULT_INDEX)
    if x.shape[axis] <= 1:
        return Array._wrap(positions, x.device)
    _, order = ops.sort([x._node, positions], axis, descending=descending)
    return Array._wrap(order, x.device)
