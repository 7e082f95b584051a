"""Argument handling shared by the namespace modules: arrays vs scalars, broadcasting, promotion,
axis normalisation. Every error here is raised at the user's call."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from . import _dtypes as dt
from . import _ops as ops
from ._array_object import Array
from ._graph import bind as _bind, scalar_leaf
from ._ops.core import memo


def broadcast_shapes(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        size = 1
        for s in shapes:
            k = i - (ndim - len(s))
            if k < 0:
                continue
            n = s[k]
            if n == 1:
                continue
            if size != 1 and n != size:
                raise ValueError(f"shapes {', '.join(map(str, shapes))} cannot be broadcast together "
                                 f"(axis {i - ndim}: {size} vs {n})")
            size = n
        out.append(size)
    return tuple(out)


def is_scalar(x):
    return isinstance(x, (builtins.bool, int, float, complex))


def check_array(x, name="x"):
    if not isinstance(x, Array):
        raise TypeError(f"{name} must be a lazyarray array, got {type(x).__name__}")
    return x


def binary_operands(x1, x2, fname):
    """Two operands (arrays or one Python scalar) -> (node1, node2, dtype, shape, device), with
    the standard's promotion and broadcasting applied."""
    a1, a2 = type(x1) is Array or isinstance(x1, Array), type(x2) is Array or isinstance(x2, Array)
    if a1 and a2:
        device = x1._device
        if x2._device is not device and x2._device != device:
            raise ValueError(f"{fname}: arrays on different devices ({x1._device} and {x2._device})")
        n1, n2 = x1._node, x2._node
        dtype = n1.dtype if n1.dtype is n2.dtype else dt.result_type_pair(n1.dtype, n2.dtype)
    elif a1 and is_scalar(x2):
        dtype = dt.scalar_dtype_for(x2, x1.dtype)
        n1, n2, device = x1._node, _scalar(x2, dtype, fname), x1._device
    elif a2 and is_scalar(x1):
        dtype = dt.scalar_dtype_for(x1, x2.dtype)
        n1, n2, device = _scalar(x1, dtype, fname), x2._node, x2._device
    else:
        numeric = (np.bool_, np.number)
        if isinstance(x1, numeric) or isinstance(x2, numeric):
            # numpy scalars act as Python scalars of their kind (off the hot path)
            return binary_operands(*(v.item() if isinstance(v, numeric) else v for v in (x1, x2)), fname)
        bad = x2 if a1 else x1
        raise TypeError(f"{fname}: expected arrays or Python scalars, got {type(bad).__name__}")
    if n1.dtype is not dtype:
        n1 = ops.convert(n1, dtype)
    if n2.dtype is not dtype:
        n2 = ops.convert(n2, dtype)
    s1, s2 = n1.shape, n2.shape
    # 0-D operands stay 0-D: elementwise primitives broadcast them when lowered
    if s1 == s2 or not s2:
        return n1, n2, dtype, s1, device
    if not s1:
        return n1, n2, dtype, s2, device
    shape, plan1, plan2 = pair_broadcast(s1, s2)
    if plan1 is not None:
        n1 = _apply_broadcast(n1, plan1)
    if plan2 is not None:
        n2 = _apply_broadcast(n2, plan2)
    return n1, n2, dtype, shape, device


# (s1, s2) -> (shape, plan1, plan2) for two nonempty shapes that differ (`_ops.core.memo`).
# Shapes that do not broadcast raise at every call and are never stored.
_pair_broadcasts = {}


def pair_broadcast(s1, s2):
    """The broadcast shape of s1 and s2 and, for each, how to reach it (`_broadcast_plan`)."""
    return memo(_pair_broadcasts, (s1, s2), _pair_broadcast)


def _pair_broadcast(s1, s2):
    shape = broadcast_shapes(s1, s2)
    return shape, _broadcast_plan(s1, shape), _broadcast_plan(s2, shape)


def _broadcast_plan(s, shape):
    """None when s is already `shape`, else (the shape without its stretched unit axes, or None
    when it has none, the broadcast_in_dim dimensions from it, those from s itself): what
    `ops.broadcast_to` builds, and the one broadcast that stretches the unit axes in place."""
    if s == shape:
        return None
    lead = len(shape) - len(s)
    keep = tuple(i for i, n in enumerate(s) if n == shape[lead + i])
    squeezed = tuple(s[i] for i in keep) if len(keep) != len(s) else None
    dims, in_place = tuple(lead + i for i in keep), tuple(range(lead, len(shape)))
    # (with the attributes of each broadcast: those `ops.broadcast_in_dim` would make)
    return (squeezed, shape, dims, in_place,
            ops.BROADCAST_IN_DIM.Attrs(shape, dims), ops.BROADCAST_IN_DIM.Attrs(shape, in_place))


def _apply_broadcast(node, plan):
    """One broadcast_in_dim node. An operand with unit axes to stretch is broadcast as it is
    (StableHLO's broadcast_in_dim stretches a unit axis), except a pending reshape that only
    added them (`x[:, None]`): its own operand is broadcast, so the reshape costs no node.
    The node is bound at once (`ops.broadcast_in_dim`'s, whose rule holds by the plan's
    construction for an operand of the shape it was made for; never an identity: the shapes
    differ)."""
    squeezed, shape, dims, in_place, by_dims, by_place = plan
    if squeezed is None:
        return _bind(_BROADCAST_IN_DIM, (node,), by_dims, shape, node.dtype)
    if node.op is ops.RESHAPE:
        x = node.args[0]
        if x.shape == squeezed:
            return _bind(_BROADCAST_IN_DIM, (x,), by_dims, shape, x.dtype)
    return _bind(_BROADCAST_IN_DIM, (node,), by_place, shape, node.dtype)


_BROADCAST_IN_DIM = ops.BROADCAST_IN_DIM


def _scalar(value, dtype, fname):
    if dtype.kind in "iu" and not isinstance(value, (builtins.bool, float, complex)):
        info = np.iinfo(dtype.np)
        if not info.min <= value <= info.max:
            raise OverflowError(f"{fname}: Python int {value} does not fit in {dtype}")
    if isinstance(value, complex) and dtype.kind != "c":
        raise TypeError(f"{fname}: complex scalar with an array of {dtype}")
    return scalar_leaf(value, dtype)  # (`ops.scalar` at shape (): a loop's constant shares one leaf)


def normalize_axis(axis, ndim, fname="axis"):
    if type(axis) is int and -ndim <= axis < ndim:  # (the common case: no operator.index)
        return axis % ndim
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{fname} must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        # numpy's wording (SciPy's tests match it); numpy's AxisError is also an IndexError
        raise IndexError(f"{fname} {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def normalize_axes(axis, ndim, fname="axis"):
    """None -> every axis; int or tuple -> sorted unique non-negative axes."""
    if type(axis) is int and -ndim <= axis < ndim:  # (the common case first)
        return (axis % ndim,)
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        axes = tuple(normalize_axis(a, ndim, fname) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fname}: repeated axis in {axis}")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim, fname),)


def wrap(node, device):
    return Array._wrap(node, device)
