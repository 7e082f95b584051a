"""The commonest advanced indexing, `x[k]` and `x[k] = v` for a 1-D array k over x's first axis
(the key `k`, or `k` followed by full slices): a bool mask of that axis, or integers (outside
checked mode), bound without the general path's key parsing: what `_advanced_indexing` builds
for that key, node for node, in a few calls.

SciPy's elementwise iterative solvers (`find_minimum`, `find_root`, `derivative`, `jacobian`,
`tanhsinh`) index every work array by a mask each iteration, ~1,700 indexing calls a
`find_minimum` call: the general path's ~16 us a read and ~25-37 us a write were most of their
time. Anything else (another key, a k-D or 0-D index, a mask of another shape, another device: the
general path's errors) is left to the general path (`index_of` / `read` return None).

A read whose array is already computed in host-readable memory (a host value or a CPU buffer,
as `_indexing._element` reads one element) and whose mask's positions are a host leaf (one CPU
device: `_advanced_indexing._host_positions`) is computed at once by numpy into a host leaf, when
small (`EAGER_ELEMENTS`): a gather is exact, so the value is the gather's, and it enters later
graphs as a parameter instead of a node to interpret. So is a read by host integers that are all
within the axis (out of range, XLA's gather clamps where numpy raises: those keep the node).
"""
from __future__ import annotations

import numpy as np

from . import _config
from . import _dtypes as dt
from . import _ops as ops
from ._advanced_indexing import host_value as _host_value, true_positions, wrap_negative
from ._array_object import Array
from ._basic_indexing import check_assignable
from ._graph import bind as _bind, leaf_from_host

# output elements up to which a read of a host-readable array by a host mask is computed at once
EAGER_ELEMENTS = 4096
_CAUSE = "boolean index"  # (the general path's sync cause)
_FULL = slice(None)


def index_of(x, key):
    """The index array of a key `k` or `(k, :, ..., :)` with k a 1-D array on x's device: a bool
    mask of x's first axis, or (outside checked mode) integers; else None."""
    if type(key) is tuple:
        if not key or len(key) > len(x._node.shape):
            return None
        for k in key[1:]:
            if type(k) is not slice or k != _FULL:
                return None
        key = key[0]
    if not isinstance(key, Array):
        return None
    knode = key._node
    shape = x._node.shape
    if len(knode.shape) != 1 or not shape or (key._device is not x._device and key._device != x._device):
        return None
    if knode.dtype is dt.bool:
        return key if knode.shape[0] == shape[0] else None
    if knode.dtype.kind in "iu" and not _config.checks:  # (checked mode: the general path's checks)
        return key
    return None


def read(x, key):
    """x[key] for a key `index_of` takes, or None."""
    m = index_of(x, key)
    if m is None:
        return None
    if m._node.dtype is not dt.bool:
        return _int_read(x, m)
    node = x._node
    device = x._device
    flat, count = true_positions(m._node, m._device, _CAUSE)
    out_shape = (count,) + node.shape[1:]
    size = count
    for n in node.shape[1:]:
        size *= n
    if size == 0:
        return Array._wrap(ops.constant(0, node.dtype, out_shape), device)
    if size <= EAGER_ELEMENTS and flat.op is None and type(flat.host) is np.ndarray:
        host = _host_value(node, device)
        if host is not None:
            return Array._wrap(leaf_from_host(host[flat.host], out_shape, node.dtype), device)
    # (`_plan`: the region is x's node, one column of positions; `getitem_advanced`'s gather)
    return Array._wrap(_bind(ops.GATHER, (node, _column(flat, count)), _FIRST_AXIS, out_shape, node.dtype),
                       device)


_FIRST_AXIS = ops.GATHER.Attrs((0,))  # (`gather_points` / `scatter_points` along axis 0)
_SET_FIRST_AXIS = ops.SCATTER.Attrs((0,), "set")
_RESHAPE = ops.RESHAPE
_BROADCAST_IN_DIM = ops.BROADCAST_IN_DIM


def _column(flat, count):
    """`ops.reshape(flat, (count, 1))` of (count,) int64 positions (`true_positions`' or
    `wrap_negative`'s), bound at once when flat is no reshape or broadcast (a host leaf on a CPU
    device, a slice elsewhere, a select: nothing for `ops.reshape`'s rewrites to look through).
    The gathers and scatters bound on it (along axis 0 of a nonempty node, their rules' shapes
    given: `read`, `write`, `_int_read`, `_int_write`) hold: int64 positions of one axis, one
    column."""
    op = flat.op
    if op is _RESHAPE or op is _BROADCAST_IN_DIM:
        return ops.reshape(flat, (count, 1))
    shape = (count, 1)
    return _bind(_RESHAPE, (flat,), ops.reshape_attrs(shape), shape, flat.dtype)


def _fits(value_shape, target):
    """Whether a value of value_shape broadcasts to target (`check_assignable` without raising)."""
    lead = len(target) - len(value_shape)
    if lead < 0:
        return False
    for i, n in enumerate(value_shape):
        if n != 1 and n != target[lead + i]:
            return False
    return True


def write(x, m, vnode):
    """x[m] = vnode (a node of x's dtype) for the index array `index_of` found in a key. The
    caller holds the write lock and has checked that x is writable."""
    if m._node.dtype is not dt.bool:
        return _int_write(x, m, vnode)
    node = x._node
    shape = node.shape
    rest = shape[1:]
    one = (1,) + rest
    if _fits(vnode.shape, one):
        # `_mask_select`: a value independent of the count is a select over x's whole node, no sync
        if 0 in shape:
            return
        # (a 0-D value into a 1-D x: the chain's one live node, broadcast_in_dim(v, shape, ()))
        upd = ops.broadcast_to(vnode if not vnode.shape and not rest else ops.broadcast_to(vnode, one), shape)
        pred = ops.broadcast_to(ops.reshape(m._node, shape[:1] + (1,) * len(rest)), shape)
        x._rebind(ops.select(pred, upd, node))
        return
    flat, count = true_positions(m._node, m._device, _CAUSE)
    node = x._node  # (after the sync: `_plan` reads the region then)
    out_shape = (count,) + rest
    check_assignable(vnode.shape, out_shape)
    if 0 in out_shape:
        return
    # (`setitem_advanced`: a scatter into the region, x's whole node, which `write_basic` binds;
    # the update of x's dtype and of the rule's shape, the points' out_shape)
    upd = ops.broadcast_to(vnode, out_shape)
    x._rebind(_bind(ops.SCATTER, (node, _column(flat, count), upd), _SET_FIRST_AXIS, node.shape, node.dtype))


# ---------------------------------------------------------------- integer arrays

def _int_positions(node, k):
    """`_plan`'s column of positions for a 1-D integer index k of node's first axis (negative
    entries counted from the end, lazily: `wrap_negative`) and the result's shape; IndexError,
    as `_plan`, when the axis is empty and k is not."""
    n = node.shape[0]
    m = k._node.shape[0]
    if n == 0 and m > 0:
        raise IndexError("index into axis 0 of size 0")
    return _column(wrap_negative(k._node, n), m), (m,) + node.shape[1:]


def _int_read(x, k):
    node = x._node
    device = x._device
    knode = k._node
    out_shape = knode.shape + node.shape[1:]
    size = 1
    for n in out_shape:
        size *= n
    if 0 < size <= EAGER_ELEMENTS and knode.op is None:
        # a host-readable x by host integers all within its axis: numpy's x[k], the gather's value
        # (out of range, XLA clamps where numpy raises: the gather's node keeps that meaning)
        idx = knode.host
        host = _host_value(node, device) if type(idx) is np.ndarray and idx.dtype == knode.dtype.np else None
        if host is not None:
            n = node.shape[0]
            if -n <= idx.min() and idx.max() < n:
                return Array._wrap(leaf_from_host(host[idx], out_shape, node.dtype), device)
    idx, out_shape = _int_positions(node, k)
    if 0 in out_shape:
        return Array._wrap(ops.constant(0, node.dtype, out_shape), device)
    return Array._wrap(_bind(ops.GATHER, (node, idx), _FIRST_AXIS, out_shape, node.dtype), device)


def _int_write(x, k, vnode):
    node = x._node
    idx, out_shape = _int_positions(node, k)
    check_assignable(vnode.shape, out_shape)
    if 0 in out_shape:
        return
    upd = ops.broadcast_to(vnode, out_shape)
    x._rebind(_bind(ops.SCATTER, (node, idx, upd), _SET_FIRST_AXIS, node.shape, node.dtype))
