"""Advanced indexing: integer arrays and boolean masks in __getitem__ and __setitem__.

The rules are numpy's vectorized indexing (the standard's integer-array indexing is a subset of
it): once any array is in the key, Python integers index as 0-D arrays too; all of them
broadcast to one shape B; B's axes replace the indexed axes where the advanced indices sit next
to each other in the key, and lead the result otherwise. Slices and None apply first as a lazy
basic index (the "region"); one gather (read) or scatter (write) then picks points of it.

A k-D boolean mask stands for the k integer arrays of its nonzero(). Their length is the number
of True values: one sync. On one CPU device it reads the mask itself (host memory there) and
numpy numbers the True elements, so the positions are a host leaf; elsewhere it reads one
scalar and the positions are computed on the device. A write
whose value does not depend on that number (`x[mask] = 0`, `x[:, mask] = column`) needs no sync:
it is a lazy select.

Bounds: Python integers are checked at the call. Integer arrays cannot be checked without a
sync: by default XLA clamps out-of-range gather indices into range and skips out-of-range
scatter updates (the standard leaves out-of-bounds behaviour unspecified); in checked mode
(`_checks`) each index array records a bounds check that raises IndexError at the read.
"""
from __future__ import annotations

import math
import operator
import weakref

import numpy as np

from . import _checks, _config
from . import _dtypes as dt
from . import _engine
from . import _ops as ops
from ._array_object import Array
from ._basic_indexing import basic_axis, check_assignable, read_basic, write_basic
from ._graph import bind as _bind, leaf_from_host
from ._helpers import broadcast_shapes


# ---------------------------------------------------------------- True positions of a mask

# mask node -> (positions node, count): nodes never change meaning, so a mask used again (a
# loop's x[m]) needs no second sync. Weak keys: an entry lives as long as its mask node.
_positions = weakref.WeakKeyDictionary()


def true_positions(mask, device, cause):
    """Row-major flat positions (int64, shape (count,)) of the True elements of a bool node, and
    count. count needs a sync of one scalar; the positions stay lazy: an inclusive cumsum gives
    each True its slot, and a scatter of the flat iota into count+1 slots (the last one collects
    the False elements) writes them."""
    n = math.prod(mask.shape)
    if n == 0:
        return ops.constant(0, dt.int64, (0,)), 0
    known = _positions.get(mask)
    if known is None:
        known = _positions[mask] = _true_positions(mask, n, device, cause)
    return known


def _true_positions(mask, n, device, cause):
    if device.platform == "cpu" and device.mesh is None:
        return _host_positions(mask, device, cause)
    flat = ops.reshape(mask, (n,))
    ranks = ops.cumulative(ops.convert(flat, dt.int64), 0, "add")
    total = ops.slice_(ranks, (n - 1,), (n,))
    _engine.realize([ranks, total], device, cause)  # ranks stays on the device for the scatter
    count = int(_engine.to_numpy(total, device, cause)[0])
    slot = ops.select(flat, ops.SUBTRACT(ranks, ops.constant(1, dt.int64)),
                      ops.constant(count, dt.int64))
    slots = ops.scatter_points(ops.constant(0, dt.int64, (count + 1,)), ops.reshape(slot, (n, 1)),
                               ops.iota((n,), 0, dt.int64), (0,))
    return ops.slice_(slots, (0,), (count,)), count


def _host_positions(mask, device, cause):
    """`_true_positions` on one CPU device, where a device buffer is host memory: the mask's
    values read at once (the one sync the count needs; the cumulative sum, scatter and slice
    the device path records, and its second engine call, cost ~0.1-0.2 ms on a small mask in
    the interpreter) and numbered by numpy: the same row-major positions, as a host leaf.
    The negation of a computed host-readable mask (array-api-extra's `apply_where` reads
    `x[cond]`, then `x[~cond]`) is negated here by numpy, with no sync: NOT of bool is exact."""
    values = None
    if mask.op is _NOT:
        operand = host_value(mask.args[0], device)
        if operand is not None:
            values = np.logical_not(operand)
    if values is None:
        values = _engine.to_numpy(mask, device, cause)
    flat = np.flatnonzero(values).astype(np.int64, copy=False)  # (a fresh array: the leaf's own)
    return leaf_from_host(flat, flat.shape, dt.int64), flat.size


_NOT = ops.NOT


def host_value(node, device):
    """node's value as a numpy array when it is computed and host-readable (a host value of its
    dtype, or a buffer of one CPU device: host memory), else None. Read-only to the caller."""
    if node.op is not None:
        return None
    if node.buffer is None:
        host = node.host
        if type(host) is np.ndarray and host.dtype == node.dtype.np:
            return host
        return None
    if device.platform == "cpu" and device.mesh is None:
        return np.asarray(node.buffer)
    return None


def unravel(flat, shape):
    """Flat row-major positions -> one coordinate node per axis of shape."""
    if flat.shape[0] == 0:
        return [flat] * len(shape)
    host = flat.host if flat.op is None else None
    if type(host) is np.ndarray and len(shape) > 1:  # (`_host_positions`: the same integers, by numpy)
        return [leaf_from_host(c.astype(np.int64, copy=False), c.shape, dt.int64)
                for c in np.unravel_index(host, shape)]
    coords, stride = [], math.prod(shape)
    for j, n in enumerate(shape):
        stride //= n
        c = flat if stride == 1 else ops.DIVIDE(flat, ops.constant(stride, dt.int64))
        if j:  # the first coordinate is already below shape[0]
            c = ops.REMAINDER(c, ops.constant(n, dt.int64))
        coords.append(c)
    return coords


# ---------------------------------------------------------------- checks at the call

def _check_items(x, items):
    """Raise at the call for what is wrong in the key: dtypes, devices, mask shapes, Python
    integers out of range."""
    axis = 0
    for k in items:
        if k is None:
            continue
        if isinstance(k, Array):
            if k._device is not x._device and k._device != x._device:
                raise ValueError(f"index array is on {k._device}, the indexed array on {x._device}")
            if k.dtype is dt.bool:
                for j, n in enumerate(k.shape):
                    if n not in (x.shape[axis + j], 0):
                        raise IndexError(f"boolean index of shape {k.shape} does not match axes "
                                         f"{axis}..{axis + k.ndim - 1} of an array of shape {x.shape}")
                axis += k.ndim
                continue
            if k.dtype.kind not in "iu":
                raise IndexError(f"arrays used as indices must have an integer or boolean dtype, got {k.dtype}")
        else:
            basic_axis(k, x.shape[axis], axis)  # raises IndexError for a bad int or object
        axis += 1


# ---------------------------------------------------------------- the plan shared by reads and writes

class _Plan:
    """basic: the key of the region (slices and None; advanced positions become full slices).
    axes: the region axes the advanced indices pick, increasing. idx: int64 node of shape
    B + (len(axes),). out_shape: the indexing result's shape; perm: the transpose from the
    gather's layout (B first) to out_shape's, or None. merged: the region's shape when a k-D
    mask's axes were merged into one in `region`, else None."""
    __slots__ = ("basic", "axes", "idx", "batch", "out_shape", "perm", "region", "arrays", "merged")


def _plan(x, items, cause):
    basic, picks = [], []  # picks: (region axis, int64 node)
    arrays = []  # checked mode: (user axis, wrapped index node, axis length) of each index array
    axis = 0
    # a k-D mask (k > 1) beside only slices and None picks its flat positions along its k axes
    # merged into one (a reshape of the region): one column of indices, no unravel into k
    merge = sum(1 for k in items if k is not None and not isinstance(k, slice)) == 1
    merged = None  # (region axis of the mask's first axis, k)
    for k in items:
        here = len(basic)
        if k is None:
            basic.append(None)
        elif isinstance(k, slice):
            basic.append(k)
            axis += 1
        elif isinstance(k, Array) and k.dtype is dt.bool:
            if k.ndim == 0:  # True adds an axis of 1, False one of 0: None, indexed by [0] or []
                count = int(bool(_engine.to_numpy(k._node, k._device, cause)))
                basic.append(None)
                picks.append((here, ops.constant(0, dt.int64, (count,))))
                continue
            flat, _ = true_positions(k._node, k._device, cause)
            if merge and k.ndim > 1:
                merged = (here, k.ndim)
                basic.extend([slice(None)] * k.ndim)
                picks.append((here, flat))
                axis += k.ndim
                continue
            for j, c in enumerate(unravel(flat, k.shape)):
                basic.append(slice(None))
                picks.append((here + j, c))
            axis += k.ndim
        elif isinstance(k, Array):
            basic.append(slice(None))
            picks.append((here, wrap_negative(k._node, x.shape[axis])))
            if _config.checks:
                arrays.append((axis, picks[-1][1], x.shape[axis]))
            axis += 1
        else:
            n = x.shape[axis]
            basic.append(slice(None))
            picks.append((here, ops.scalar(operator.index(k) % n, dt.int64)))
            axis += 1
    try:
        batch = broadcast_shapes(*(node.shape for _, node in picks))
    except ValueError as exc:
        raise IndexError(f"index arrays cannot be broadcast together: {exc}") from None
    region = read_basic(x, tuple(basic))
    p = _Plan()
    p.merged = None
    if merged is not None:  # the mask's axes as one; a write reshapes back (p.merged)
        a, k = merged
        p.merged = region.shape
        region = ops.reshape(region, region.shape[:a] + (math.prod(region.shape[a:a + k]),)
                             + region.shape[a + k:])
    axes = tuple(a for a, _ in picks)
    cols = [ops.reshape(ops.broadcast_to(node, batch), batch + (1,)) for _, node in picks]
    p.basic, p.axes, p.batch, p.region, p.arrays = tuple(basic), axes, batch, region, arrays
    p.idx = ops.concatenate(cols, len(batch))
    rest = [n for i, n in enumerate(region.shape) if i not in axes]
    adjacent = axes == tuple(range(axes[0], axes[0] + len(axes)))
    lead = axes[0] if adjacent else 0  # region axes before B in the result
    nb = len(batch)
    p.out_shape = tuple(rest[:lead]) + batch + tuple(rest[lead:])
    perm = tuple(range(nb, nb + lead)) + tuple(range(nb)) + tuple(range(nb + lead, nb + len(rest)))
    p.perm = perm if lead and nb else None
    for a in axes:
        if region.shape[a] == 0 and math.prod(batch) > 0:
            raise IndexError(f"index into axis {a} of size 0")
    return p


def wrap_negative(node, n):
    """Integer index node -> int64 with negative entries counted from the end (lazily):
    select(node < 0, node + n, node). (The compare and select, of int64 operands of node's shape
    or 0-D constants, bound at once: their rules give node's shape, bool and int64.)"""
    signed = node.dtype.kind == "i"
    node = ops.convert(node, dt.int64)
    if not signed:
        return node
    shape = node.shape
    neg = _bind(ops.COMPARE, (node, ops.constant(0, dt.int64)), _LT, shape, dt.bool)  # (0-D operands: no broadcast node)
    return _bind(ops.SELECT, (neg, ops.ADD(node, ops.constant(n, dt.int64)), node), (), shape, dt.int64)


_LT = ops.COMPARE.Attrs("LT")


# ---------------------------------------------------------------- read

def getitem_advanced(x, items):
    if len(items) == 1:
        k = items[0]
        if isinstance(k, Array) and k.ndim > 1 and k.shape == x.shape and k.dtype is dt.bool:
            out = _whole_mask_read(x, k)
            if out is not None:
                return out
    _check_items(x, items)
    p = _plan(x, items, "boolean index")
    if math.prod(p.out_shape) == 0:
        return Array._wrap(ops.constant(0, x.dtype, p.out_shape), x._device)
    out = ops.gather_points(p.region, p.idx, p.axes)
    if p.arrays:
        _check_bounds(out, p.arrays, x.shape, "read")
    if p.perm is not None:
        out = ops.transpose(out, p.perm)
    return Array._wrap(out, x._device)


# output elements up to which x[mask] of a host-readable x is computed at once (`_whole_mask_read`)
EAGER_ELEMENTS = 4096


def _whole_mask_read(x, mask):
    """x[mask] for a k-D (k > 1) bool mask of x's shape (array-api-extra's `apply_where` reads
    each broadcast argument so) on one CPU device, when x is computed and host-readable and the
    result small: the general path's gather of x's flat elements at the mask's flat positions,
    computed by numpy into a host leaf (a gather is exact: the same values; later graphs take it
    as a parameter). None (the positions, if found, kept for the general path) otherwise."""
    device = x._device
    if (mask._device is not device and mask._device != device) or device.platform != "cpu" \
            or device.mesh is not None:
        return None
    flat, count = true_positions(mask._node, device, "boolean index")
    if count > EAGER_ELEMENTS or flat.op is not None or type(flat.host) is not np.ndarray:
        return None
    node = x._node
    if count == 0:
        return Array._wrap(ops.constant(0, node.dtype, (0,)), device)
    host = host_value(node, device)
    if host is None:
        return None
    return Array._wrap(leaf_from_host(host.reshape(-1)[flat.host], (count,), node.dtype), device)


def _check_bounds(guard, arrays, shape, kind):
    for axis, wrapped, n in arrays:
        _checks.index_in_bounds(guard, wrapped, n, f"the index array of an indexing {kind} "
                                f"along axis {axis} of an array of shape {shape}")


# ---------------------------------------------------------------- write

def setitem_advanced(x, items, value):
    if len(items) == 1 and len(value.shape) == 1 and value.shape[0] != 1:
        k = items[0]
        if isinstance(k, Array) and k.ndim > 1 and k.shape == x.shape and k.dtype is dt.bool \
                and (k._device is x._device or k._device == x._device):
            return _whole_mask_scatter(x, k, value)
    _check_items(x, items)
    if _mask_select(x, items, value):
        return
    p = _plan(x, items, "boolean index")
    check_assignable(value.shape, p.out_shape)
    if math.prod(p.out_shape) == 0:
        return
    upd = ops.broadcast_to(value, p.out_shape)
    if p.perm is not None:
        inverse = tuple(sorted(range(len(p.perm)), key=p.perm.__getitem__))
        upd = ops.transpose(upd, inverse)
    region = ops.scatter_points(p.region, p.idx, upd, p.axes)
    if p.merged is not None:
        region = ops.reshape(region, p.merged)
    if p.arrays:
        _check_bounds(region, p.arrays, x.shape, "write")
    write_basic(x, p.basic, region)


def _whole_mask_scatter(x, mask, value):
    """x[mask] = value for a k-D (k > 1) bool mask of x's shape on x's device and a 1-D value
    of x's dtype whose length is not 1 (array-api-extra's `apply_where`: `at(out, cond).set(t)`):
    no select (the value's length must be the count), so the general path's nodes at once: a
    scatter of the value into x's elements merged into one axis, at the mask's flat positions,
    reshaped back. (Called with the write lock held; ValueError when the length is not the
    count, as the general path.)"""
    flat, count = true_positions(mask._node, mask._device, "boolean index")
    check_assignable(value.shape, (count,))
    if count == 0:
        return
    node = x._node  # (after the sync: `_plan` reads the region then)
    shape = node.shape
    column = ops.reshape(ops.broadcast_to(flat, (count,)), (count, 1))
    region = ops.scatter_points(ops.reshape(node, (math.prod(shape),)), column,
                                ops.broadcast_to(value, (count,)), (0,))
    write_basic(x, (slice(None),) * len(shape), ops.reshape(region, shape))


def _mask_select(x, items, value):
    """x[mask] = value, with slices and Python integers beside the one mask, and a value that
    does not depend on the number of True values: a lazy select over the region, no sync.
    Returns False when the write needs the general (counting) path."""
    arrays = [k for k in items if isinstance(k, Array)]
    if len(arrays) != 1 or arrays[0].dtype is not dt.bool or any(k is None for k in items):
        return False
    mask = arrays[0]
    if len(items) == 1 and not value.shape and mask.shape == x.shape:
        # x[m] = v of a mask as large as x and a 0-D v (scikit-learn's `_logsumexp` writes -inf
        # where a row's maximum is, each call): the nodes `_region_select` builds for it (the
        # region is x's node, the predicate the mask's, no lead or rest axes), without parsing
        # the key twice (`read_basic`, `write_basic`): ~36 -> ~18 us
        whole_mask_write(x, mask, value)
        return True
    return _region_select(x, items, value, mask)


def whole_mask_write(x, mask, value):
    """x[mask] = value for a bool mask of x's shape and a 0-D node `value` of x's dtype (the key
    and value checked): the nodes `_region_select` builds for it (the region is x's node, the
    predicate the mask's, no lead or rest axes). Called with the write lock held."""
    shape = x.shape
    if not math.prod(shape):
        return
    if value.op is None and not value.shape and 1 not in shape:
        # (a 0-D leaf, `_logsumexp`'s -inf, into a shape without unit axes: the builders below
        # end in broadcast_in_dim(value, shape, ()) and the select, bound here at once: the
        # broadcast's rule holds for a 0-D operand, the select's for three operands of one shape)
        upd = _bind(ops.BROADCAST_IN_DIM, (value,), ops.broadcast_attrs(shape, ()), shape, value.dtype)
        x._rebind(_bind(ops.SELECT, (mask._node, upd, x._node), (), shape, value.dtype))
        return
    upd = ops.broadcast_to(ops.reshape(ops.broadcast_to(value, (1,)), (1,) * len(shape)), shape)
    x._rebind(ops.select(mask._node, upd, x._node))


def _region_select(x, items, value, mask):
    """`_mask_select` for any key it takes: a select over the region the key's slices and
    integers read, written back through them."""
    i = next(j for j, k in enumerate(items) if k is mask)
    k = mask.ndim
    a = sum(1 for j in range(i) if isinstance(items[j], slice))  # ints drop their axes
    basic = tuple(items[:i]) + (slice(None),) * k + tuple(items[i + 1:])
    region = read_basic(x, basic)
    lead, rest = region.shape[:a], region.shape[a + k:]
    # the selection's shape with its count axis as 1; numpy moves that axis first when the
    # integers and the mask are not next to each other in the key
    picked = [j for j, item in enumerate(items) if not isinstance(item, slice)]
    adjacent = picked == list(range(picked[0], picked[-1] + 1))
    one = lead + (1,) + rest if adjacent else (1,) + lead + rest
    try:
        check_assignable(value.shape, one)
    except ValueError:
        return False
    if math.prod(region.shape) == 0 or mask.size == 0:
        return True  # nothing selected
    # (the value broadcast to the region, a scalar too: see test_view_writes' masked scalar write)
    upd = ops.reshape(ops.broadcast_to(value, one), lead + (1,) * k + rest)
    upd = ops.broadcast_to(upd, region.shape)
    pred = ops.reshape(mask._node, (1,) * a + mask.shape + (1,) * len(rest))
    pred = ops.broadcast_to(pred, region.shape)
    write_basic(x, basic, ops.select(pred, upd, region))
    return True
