"""Basic indices: integers, slices, ellipsis and None.

A basic index becomes one dynamic_slice whose start indices are graph parameters, so `x[i]` and
`x[i:i+k]` with a changing i never recompile; strides and negative steps add a static
slice/reverse. A write is the inverse: dynamic_update_slice, with a padded mask for strided
writes. A read is a view (`BasicIndex` is its step), except an integer for every axis, which
numpy answers with a scalar (a copy). `_indexing` dispatches here; `_advanced_indexing` reads
and writes its region (the slices and None of a key) through `read_basic` and `write_basic`.
"""
from __future__ import annotations

import builtins
import operator

from . import _dtypes as dt
from . import _ops as ops
from . import _views
from ._array_object import Array
from ._graph import bind as _bind, leaf_from_host
from ._helpers import broadcast_shapes


class _Axis:
    """What a basic index does to one axis of x: take [start, start+span) then stride."""
    __slots__ = ("start", "span", "step", "count", "drop")

    def __init__(self, start, span, step, count, drop):
        self.start, self.span, self.step, self.count, self.drop = start, span, step, count, drop


def expand(key, ndim):
    """key -> list of items with the ellipsis expanded and trailing full slices added."""
    if not isinstance(key, tuple):
        key = (key,)
    # one pass: the ellipses, and the axes the key consumes (a boolean array as many as it has,
    # a 0-D one none; anything else but None one)
    n_ell = n_axes = 0
    for k in key:
        if k is Ellipsis:
            n_ell += 1
        elif k is not None:
            if isinstance(k, Array) and k.dtype is dt.bool:
                n_axes += k.ndim
            else:
                n_axes += 1
    if n_ell > 1:
        raise IndexError("an index can have at most one ellipsis (...)")
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


def basic_axis(k, n, axis):
    if type(k) is int:  # (the common case first: no operator.index, no bool check needed)
        if not -n <= k < n:
            raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
        return _Axis(k + n if k < 0 else k, 1, 1, 1, True)
    if isinstance(k, slice):
        start, stop, step = k.indices(n)
        # the length of range(start, stop, step), and its lowest and highest elements
        count = (stop - start + step - 1) // step if step > 0 else (start - stop - step - 1) // -step
        if count <= 0:
            return _Axis(0, 0, 1, 0, False)
        last = start + (count - 1) * step
        lo, hi = (start, last) if step > 0 else (last, start)
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


def is_basic(items):
    return all(not isinstance(k, Array) for k in items)


def plan(shape, items, strides=None):
    """Basic index on an array of `shape` -> (axes, out_shape, out_strides); out_strides (the
    view's element strides, None axes included) only when the base's `strides` are given."""
    axes, out, out_strides = [], [], []
    axis = 0
    for k in items:
        if k is None:
            out.append(1)
            out_strides.append(0)
            continue
        a = basic_axis(k, shape[axis], axis)
        axes.append(a)
        if not a.drop:
            out.append(a.count)
            if strides is not None:
                out_strides.append(strides[axis] * a.step)
        axis += 1
    return axes, tuple(out), (tuple(out_strides) if strides is not None else None)


def _starts(axes):
    return [ops.scalar(a.start, dt.int64) for a in axes]


def slice_read(node, axes, out_shape):
    """The selection (axes, out_shape) of `node`."""
    if 0 in out_shape:
        return ops.constant(0, node.dtype, out_shape)
    spans = tuple([a.span for a in axes])  # (lists, not generators: every basic read runs this)
    if node.op is _DUS and spans != node.shape:
        for a in axes:
            if a.step != 1:
                break
        else:
            written = last_written(node, spans, [a.start for a in axes])
            if written is not None:
                return ops.reshape(written, out_shape)
    if spans != node.shape:
        node = ops.dynamic_slice(node, _starts(axes), spans)
    steps = tuple([a.step for a in axes])
    if steps.count(1) != len(steps):
        node = ops.slice_(node, (0,) * len(axes), spans, tuple(abs(a.step) for a in axes))
        node = ops.reverse(node, [i for i, a in enumerate(axes) if a.step < 0])
    return ops.reshape(node, out_shape)


def read_recipe(shape, axes, out_shape):
    """What `slice_read(node, axes, out_shape)` binds for a node of `shape` whose selection is a
    window of unit steps that is not the whole array: (the dynamic_slice's attributes, its
    window shape, its starts, the reshape's attributes or None when the window already has the
    result's shape), or None for any other selection (`slice_read` builds those). A function of
    tuples of ints, kept with a key's plan (`_indexing`), so `read_by_recipe` binds the same
    nodes without building them again from the axes."""
    if 0 in out_shape:
        return None
    spans, starts = [], []  # (one pass over the axes: a plan miss runs this, ~400 a first pass)
    for a in axes:
        if a.step != 1:
            return None
        spans.append(a.span)
        starts.append(a.start)
    spans = tuple(spans)
    if spans == shape:
        return None
    # (the builders' memoized attributes: one object per distinct value, however many plans keep it)
    reshape_attrs = None if spans == out_shape else ops.reshape_attrs(out_shape)
    return ops.dynamic_slice_attrs(spans), spans, tuple(starts), reshape_attrs


def read_by_recipe(node, recipe, out_shape):
    """`slice_read(node, axes, out_shape)` from its `read_recipe`: the same nodes (a
    dynamic_slice of int64 host starts, then its reshape), bound at once: the rules hold by
    construction (the recipe was made from a checked plan of this shape)."""
    ds_attrs, spans, starts, reshape_attrs = recipe
    dtype = node.dtype
    if node.op is _DUS:
        written = last_written(node, spans, starts)
        if written is not None:  # (slice_read's answer there too)
            return ops.reshape(written, out_shape)
    last = _last_read[0]
    if last[0] is node:
        out = last[1].get(recipe)
        if out is not None:
            return out
    int64 = dt.int64
    args = [node]
    for s in starts:
        args.append(leaf_from_host(s, (), int64))  # (`ops.scalar(s, dt.int64)`)
    out = _bind(ops.DYNAMIC_SLICE, tuple(args), ds_attrs, spans, dtype)
    if reshape_attrs is not None:
        out = _bind(ops.RESHAPE, (out,), reshape_attrs, out_shape, dtype)
    if last[0] is node:
        if len(last[1]) < READS_KEPT:
            last[1][recipe] = out
    else:
        size = 1
        for n in node.shape:
            size *= n
        if size <= SOURCE_MAX:
            _last_read[0] = (node, {recipe: out})  # (one object: a thread reads a node and its reads)
    return out


# The reads `read_by_recipe` bound lately from the one node read last, while it has at most
# SOURCE_MAX elements: a read of that node by the same recipe again is the node bound then (the
# same value: a read is a pure function of its node and window; a node never changes, a write
# rebinds the array to a new one). SciPy's rotations read `matrix[..., 1, 0]` four times in a
# call, ~100 such reads in a pass of its table: two nodes each, recorded and run, saved. Holds
# that small node and its reads alive until another node is read (a pending node also lives
# until the next sync: `_graph.recorded`).
_last_read = [(None, {})]  # [(the node read last, {recipe: the node its read bound})]
SOURCE_MAX = 4096
READS_KEPT = 64


_DUS = ops.DYNAMIC_UPDATE_SLICE
LOOK_BACK = 2  # writes `last_written` looks through at most (SciPy's table: every find within 2)


def last_written(node, spans, starts):
    """The value a chain of dynamic_update_slices ending in `node` wrote last at exactly the
    window of sizes `spans` at `starts` (Python ints, in range), or None when that is not known
    at once: a read of what code just wrote (`ps[..., j + 1]` after `ps[..., j + 1] = v`, SciPy's
    false_discovery_control, ~40 a call; a quaternion's components after `q[:, k] = ...`) is that
    value, not two nodes slicing it back out of the update. Each update's starts must be int64
    host leaves holding Python ints (as basic writes bind them); they are clamped as the update
    clamps them. An update whose window is disjoint from the one read is looked through (at
    most LOOK_BACK of them): the read does not see it. Exact: dynamic_update_slice puts the
    update's elements in the window unchanged, and a later update elsewhere leaves them so."""
    rank = len(spans)
    for _ in range(LOOK_BACK):
        if node.op is not _DUS:
            return None
        args = node.args
        update = args[1]
        ushape = update.shape or (1,) * rank  # (a 0-D update: one element)
        same = ushape == spans
        disjoint = False
        shape = node.shape
        for d in range(rank):
            leaf = args[2 + d]
            b = leaf.host if leaf.op is None else None
            if type(b) is not int:
                return None
            m = ushape[d]
            top = shape[d] - m
            b = 0 if b < 0 else top if b > top else b
            s = starts[d]
            if b != s:
                same = False
                if s + spans[d] <= b or b + m <= s:
                    disjoint = True
        if same:
            return update
        if not disjoint:
            return None
        node = args[0]
    return None


def slice_write(node, axes, out_shape, vnode):
    """`node` with the selection (axes, out_shape) set to `vnode` (already of node's dtype and
    broadcastable to out_shape)."""
    if 0 in out_shape:
        return node
    vnode = ops.broadcast_to(vnode, out_shape)
    counts = tuple(a.count for a in axes)
    if not vnode.shape and node.shape and all(a.span == 1 for a in axes):
        # one element: dynamic_update_slice takes the 0-D value as it is
        return ops.dynamic_update_slice(node, vnode, _starts(axes))
    vnode = ops.reshape(vnode, counts)  # drop None axes, restore the integer-indexed ones
    vnode = ops.reverse(vnode, [i for i, a in enumerate(axes) if a.step < 0])
    spans = tuple(a.span for a in axes)
    if any(a.step != 1 for a in axes):
        steps = tuple(abs(a.step) - 1 for a in axes)
        zeros = (0,) * len(axes)
        padded = ops.pad(vnode, ops.scalar(0, node.dtype), zeros, zeros, steps)
        # (the 1 and 0 of bool: the int path's memoized literals, the same nodes as True and False)
        mask = ops.pad(ops.constant(1, dt.bool, counts), ops.constant(0, dt.bool), zeros, zeros, steps)
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
        return slice_read(base, self.axes, self.out_shape)

    def inverse(self, base, node):
        return slice_write(base, self.axes, self.out_shape, node)


def compose(step, axes):
    """The base axes of a selection `axes` (a basic index's, with no element selected twice)
    made on the view `step` (a `BasicIndex`) shows: what writing into the view writes into its
    base. A selection with no element is the caller's to skip.

    The view's axes of size 1 (a base axis it keeps one element of, or one its None added) take
    index 0 only, so they select nothing new: the base axes the view keeps one element of stay
    as they are, and the view's longer axes are its other base axes, in order."""
    longer = iter([a for a, n in zip(axes, step.out_shape) if n != 1])
    out = []
    for v in step.axes:
        if v.count == 1:  # (dropped or kept with one element)
            out.append(_Axis(v.start, 1, 1, 1, v.drop))
            continue
        k = next(longer)
        first = (v.start if v.step > 0 else v.start + v.span - 1) + v.step * (
            k.start if k.step > 0 else k.start + k.span - 1)
        if k.count == 1:
            out.append(_Axis(first, 1, 1, 1, k.drop))
            continue
        step_ = v.step * k.step
        last = first + (k.count - 1) * step_
        out.append(_Axis(min(first, last), abs(last - first) + 1, step_, k.count, k.drop))
    return out


def read_basic(x, key):
    """The node of x[key] for a basic key (integers, slices, ellipsis, None)."""
    axes, out_shape, _ = plan(x.shape, expand(key, x.ndim))
    return slice_read(x._node, axes, out_shape)


def all_integers(key, items):
    """An integer for every axis and nothing else: numpy answers with a scalar (a copy)."""
    if key is Ellipsis:
        return False
    if isinstance(key, tuple):
        for k in key:
            if k is Ellipsis:
                return False
    for k in items:
        if k is None or isinstance(k, slice):
            return False
    return True


def write_basic(x, key, vnode):
    """x[key] = vnode for a basic key; the caller has checked that x is writable and holds the
    write lock."""
    axes, out_shape, _ = plan(x.shape, expand(key, x.ndim))
    check_assignable(vnode.shape, out_shape)
    if 0 in out_shape:
        return
    x._rebind(slice_write(x._node, axes, out_shape, vnode))


def check_assignable(value_shape, target_shape):
    if not value_shape or value_shape == target_shape:  # (the common cases first)
        return
    try:
        ok = broadcast_shapes(value_shape, target_shape) == tuple(target_shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"cannot assign a value of shape {value_shape} to a selection of shape {target_shape}")
