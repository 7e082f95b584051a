"""Sorting functions of the standard: sort and argsort, both lazy (one stablehlo.sort each).

Order (the standard leaves NaNs and signed zeros to the implementation): NaN sorts as the
largest value, so NaNs come last ascending and first descending (numpy's ascending order; the
descending order of torch, JAX and array-api-strict). -0.0 and +0.0 are equal keys (a stable
sort keeps their order, as numpy's). Complex values sort lexicographically by (real, imag).
Descending keeps stability: the comparator is "greater than", so equal elements stay in input
order.

Real floats are sorted by integer keys made from their bits (`order_key`), with the values
carried along: XLA's CPU backend treats subnormal float compares as zero (and its single-operand
float sort compares floats natively), which would leave 5e-324 and -1e-310 unordered.
"""
from __future__ import annotations

from . import _dtypes as dt
from . import _ops as ops
from ._array_object import Array
from ._helpers import check_array, normalize_axis
from ._searching_functions import order_key


def _axis(x, axis, fname):
    check_array(x)
    if x.ndim == 0:
        raise ValueError(f"{fname}: cannot sort a 0-D array (axis {axis} needs at least one dimension)")
    return normalize_axis(axis, x.ndim)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    axis = _axis(x, axis, "sort")
    if x.shape[axis] <= 1:
        return Array._wrap(x._node, x.device)  # a new handle: mutating it leaves x alone
    if x.dtype.kind == "f":
        _, out = ops.sort([order_key(x._node), x._node], axis, descending=bool(descending), stable=bool(stable))
    else:
        out, = ops.sort([x._node], axis, descending=bool(descending), stable=bool(stable))
    return Array._wrap(out, x.device)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    axis = _axis(x, axis, "argsort")
    positions = ops.iota(x.shape, axis, dt.DEFAULT_INDEX)
    if x.shape[axis] <= 1:
        return Array._wrap(positions, x.device)
    key = order_key(x._node) if x.dtype.kind == "f" else x._node
    _, order = ops.sort([key, positions], axis, descending=bool(descending), stable=bool(stable))
    return Array._wrap(order, x.device)
