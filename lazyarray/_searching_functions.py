"""Searching functions of the standard: argmax, argmin, count_nonzero, nonzero, searchsorted,
where. All lazy except nonzero, whose output length is the number of nonzero elements (one
scalar sync)."""
from __future__ import annotations

from . import _dtypes as dt
from ._bounded import keep
from . import _ops as ops
from ._advanced_indexing import true_positions, unravel
from ._array_object import Array
from ._graph import bind as _bind
from ._ops.reduce import ARGREDUCE as _ARGREDUCE
from ._helpers import (
    _scalar, binary_operands, check_array, is_scalar, normalize_axes, normalize_axis, pair_broadcast,
)
from ._typing import ArrayOrScalar, Axis, Literal


# ---------------------------------------------------------------- argmax / argmin

# (shape, dtype, axis, kind) -> (attributes, shape) of the one argreduce node the general path
# below bound for an int axis without keepdims (emptied at _ARG_PLANS entries): its next call
# binds that node at once. Only a call that passed every check is kept.
_arg_plans = {}
_ARG_PLANS = 1024


def _arg_extreme(x, axis, keepdims, kind, fname):
    if type(axis) is int and not keepdims and isinstance(x, Array):
        node = x._node
        hit = _arg_plans.get((node.shape, node.dtype, axis, kind))
        if hit is not None:
            return Array._wrap(_bind(_ARGREDUCE, (node,), hit[0], hit[1], dt.int64), x._device)
    check_array(x)
    if x.dtype not in dt.CATEGORIES["real numeric"] and x.dtype is not dt.bool:
        raise TypeError(f"{fname}: expected a real numeric array, got {x.dtype}")
    node = x._node
    if node.dtype is dt.bool:
        node = ops.convert(node, dt.uint8)
    # (a float is reduced by its order key, inside argreduce's one node: NaN wins, as in numpy)
    if axis is None:
        node = ops.reshape(node, (x.size,))
        ax = 0
    else:
        ax = normalize_axis(axis, x.ndim)
    if node.shape[ax] == 0:
        raise ValueError(f"{fname}: attempt to get the {kind} of an empty sequence")
    out = ops.argreduce(node, ax, kind)
    if keepdims:
        out = ops.reshape(out, (1,) * x.ndim if axis is None else
                          tuple(1 if i == ax else n for i, n in enumerate(x.shape)))
    elif type(axis) is int and out.args[0] is x._node:
        keep(_arg_plans, (node.shape, node.dtype, axis, kind), (out.attrs, out.shape), _ARG_PLANS)
    return Array._wrap(out, x._device)


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return _arg_extreme(x, axis, keepdims, "max", "argmax")


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return _arg_extreme(x, axis, keepdims, "min", "argmin")


# ---------------------------------------------------------------- counting and positions

def count_nonzero(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    check_array(x)
    axes = normalize_axes(axis, x.ndim)
    node = x._node
    if node.dtype.kind == "f":
        # nonzero magnitude bits: a subnormal counts (XLA's CPU compares it equal to 0)
        _, magnitude = ops.float_bits(node)
        node = ops.compare(magnitude, ops.constant(0, magnitude.dtype), "NE")
    ones = ops.convert(ops.convert(node, dt.bool), dt.int64)
    out = ops.reduce(ones, axes, "add")
    if keepdims:
        out = ops.reshape(out, tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return Array._wrap(out, x._device)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    check_array(x)
    if x.ndim == 0:
        raise ValueError("nonzero: a 0-D array has no axes to index; use x[None] or bool(x)")
    flat, _ = true_positions(ops.convert(x._node, dt.bool), x._device, "nonzero")
    return tuple(Array._wrap(c, x._device) for c in unravel(flat, x.shape))


# ---------------------------------------------------------------- searchsorted

def _total_less(a, b):
    """a < b with NaN above every number (the order sort uses)."""
    lt = ops.compare(a, b, "LT")
    if a.dtype.kind != "f":
        return lt
    anum = ops.compare(a, a, "EQ")
    bnan = ops.compare(b, b, "NE")
    return ops.OR(lt, ops.AND(anum, bnan))


def searchsorted(x1: Array, x2: ArrayOrScalar, /, *, side: Literal["left", "right"] = "left",
                 sorter: Array | None = None) -> Array:
    check_array(x1, "x1")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be one-dimensional, got shape {x1.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if isinstance(x2, Array):
        if x2._device != x1._device:
            raise ValueError(f"searchsorted: x1 is on {x1._device}, x2 on {x2._device}")
        dtype = dt.result_type_pair(x1.dtype, x2.dtype)
        values = ops.convert(x2._node, dtype)
    elif is_scalar(x2):
        dtype = dt.scalar_dtype_for(x2, x1.dtype)
        values = _scalar(x2, dtype, "searchsorted")
    else:
        raise TypeError(f"searchsorted: x2 must be an array or a Python scalar, got {type(x2).__name__}")
    if dtype.kind == "c":
        raise TypeError("searchsorted: complex values have no order")
    keys = ops.convert(x1._node, dtype)
    if dtype.kind == "f":
        # compared as order keys (see order_key): subnormal neighbours of a value stay apart
        # from it on XLA's CPU; NaN sorts above every number, as in sort
        keys, values = ops.order_key(keys), ops.order_key(values)
    n = x1.shape[0]
    if sorter is not None:
        check_array(sorter, "sorter")
        if sorter.dtype.kind not in "iu" or sorter.shape != x1.shape:
            raise TypeError(f"searchsorted: sorter must be an integer array of shape {x1.shape}, "
                            f"got {sorter.dtype} of shape {sorter.shape}")
        if n:
            keys = ops.gather_points(keys, ops.reshape(ops.convert(sorter._node, dt.int64), (n, 1)), (0,))
    shape = values.shape
    if n == 0 or 0 in shape:
        return Array._wrap(ops.constant(0, dt.int64, shape), x1._device)
    # Binary search, unrolled: n.bit_length() halvings shrink [lo, hi) to one point.
    lo, hi = ops.constant(0, dt.int64, shape), ops.constant(n, dt.int64, shape)
    one, two = ops.constant(1, dt.int64), ops.constant(2, dt.int64)  # (0-D: no broadcast nodes)
    for _ in range(n.bit_length()):
        active = ops.compare(lo, hi, "LT")
        mid = ops.DIVIDE(ops.ADD(lo, hi), two)
        probe = ops.gather_points(keys, ops.reshape(mid, shape + (1,)), (0,))  # mid == n clamps
        if side == "left":
            right = _total_less(probe, values)
        else:
            right = ops.NOT(_total_less(values, probe))
        go = ops.AND(active, right)
        stay = ops.AND(active, ops.NOT(right))
        lo = ops.select(go, ops.ADD(mid, one), lo)
        hi = ops.select(stay, mid, hi)
    return Array._wrap(lo, x1._device)


# ---------------------------------------------------------------- where

def _scalars_dtype(*values):
    kinds = {type(v) for v in values}
    if complex in kinds:
        return dt.DEFAULT_COMPLEX
    if float in kinds:
        return dt.DEFAULT_FLOAT
    if int in kinds:
        return dt.DEFAULT_INT
    return dt.bool


def _stretches(small, shape):
    """Whether `small` broadcasts to `shape` (of as many axes) by stretching unit axes only."""
    if len(small) != len(shape):
        return False
    for a, b in zip(small, shape):
        if a != b and a != 1:
            return False
    return True


def where(condition: Array, x1: ArrayOrScalar, x2: ArrayOrScalar, /) -> Array:
    if type(condition) is Array and type(x1) is Array:
        # a bool condition, x1 of its shape and x2 an array of x1's dtype and that shape (or 0-D),
        # or a Python int/float next to a floating x1, all on one device (scikit-learn's
        # `_logsumexp`: `where(isfinite(m), m, 0)`, `where(s == 0, s, s / m)`): the general
        # path's leaf (`_scalar`) and select node, bound at once (its rule holds)
        cond, n1 = condition._node, x1._node
        device = condition._device
        if cond.dtype is dt.bool and n1.shape == cond.shape and x1._device is device:
            t = type(x2)
            n2 = None
            if t is Array:
                if x2._device is device and x2._node.dtype is n1.dtype and (
                        not x2._node.shape or x2._node.shape == cond.shape):
                    n2 = x2._node
            elif (t is float or t is int) and n1.dtype.kind in "fc":
                n2 = _scalar(x2, n1.dtype, "where")
            if n2 is not None:
                return Array._wrap(_bind(_SELECT, (cond, n1, n2), (), cond.shape, n1.dtype), device)
        elif (cond.dtype is dt.bool and type(x2) is Array and x1._device is device and x2._device is device
              and x2._node.shape == n1.shape and x2._node.dtype is n1.dtype
              and _stretches(cond.shape, n1.shape)):
            # a condition with unit axes where x1 and x2 (one shape, one dtype) have longer ones
            # (SciPy's Rotation: `where(choice == 0, quat_0, quat)`, choice (n, 1)): the general
            # path's broadcast of the condition and select
            return Array._wrap(_bind(_SELECT, (ops.broadcast_to(cond, n1.shape), n1, x2._node), (), n1.shape,
                                     n1.dtype), device)
    elif type(condition) is Array and type(x2) is Array and (type(x1) is float or type(x1) is int):
        # the mirror case: a Python int/float x1 next to a floating x2 of the bool condition's
        # shape on its device (SciPy's `xp.where(mask, xp.nan, x)`, ~35 a pass of its table)
        cond, n2 = condition._node, x2._node
        device = condition._device
        if cond.dtype is dt.bool and n2.shape == cond.shape and x2._device is device and n2.dtype.kind in "fc":
            return Array._wrap(_bind(_SELECT, (cond, _scalar(x1, n2.dtype, "where"), n2), (), cond.shape, n2.dtype),
                               device)
    check_array(condition, "condition")
    if condition.dtype is not dt.bool:
        raise TypeError(f"where: condition must be a boolean array, got {condition.dtype}")
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        if not (is_scalar(x1) and is_scalar(x2)):
            raise TypeError("where: x1 and x2 must be arrays or Python scalars, got "
                            f"{type(x1).__name__} and {type(x2).__name__}")
        # An extension (numpy, PyTorch, JAX and CuPy accept two scalars; SciPy's nsum passes
        # them): the default dtype of the wider kind, as numpy's `where` gives.
        x1 = Array._wrap(ops.scalar(x1, _scalars_dtype(x1, x2)), condition._device)
    n1, n2, dtype, shape, device = binary_operands(x1, x2, "where")
    if condition._device != device:
        raise ValueError(f"where: condition is on {condition._device}, the values on {device}")
    cond = condition._node
    c_shape = cond.shape
    if c_shape != shape:  # (broadcast_shapes(c_shape, shape), its common cases first)
        shape = c_shape if not shape else shape if not c_shape else pair_broadcast(c_shape, shape)[0]
    # 0-D operands stay 0-D (select broadcasts them when lowered and evaluated): no node each
    return Array._wrap(ops.select(*[n if not n.shape or n.shape == shape else ops.broadcast_to(n, shape)
                                    for n in (cond, n1, n2)]), device)


_SELECT = ops.SELECT
