"""Leaves, constants and the primitives that move elements without computing: broadcast,
reshape, transpose, slices, concatenation, padding, reversal, iota.

Builders skip the node when it would change nothing (a reshape to the same shape, an identity
permutation, a full slice), so composition code can call them freely.
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from .._emit import i64_array
from .._graph import bind as _bind, leaf_from_host
from .core import OpDef, memo, prepared

# ---------------------------------------------------------------- leaves and constants


def scalar(value, dtype, shape=()):
    """A Python scalar as a graph parameter, broadcast to `shape`: its value is data, never part
    of the compiled program's key, so calls with other values share the program. It stays a
    Python scalar until the program runs (numpy conversion costs more than the node). The baked
    form, for structural constants (the 0 of a comparison, the fill of zeros()), is `constant`."""
    leaf = leaf_from_host(value, (), dtype)
    return broadcast_in_dim(leaf, shape, ()) if shape else leaf


def _lower_constant(e, node):
    a = node.attrs
    c = e.constant(np.frombuffer(a.value, a.dtype.np).reshape(a.shape), a.shape, a.dtype)
    if a.dtype.kind in "fc":
        # Opaque to the folds of the StableHLO -> HLO conversion, which would turn x + 0.0 into x
        # (keeping -0.0 where IEEE gives +0.0) before any XLA option applies.
        c = e.op("stablehlo.optimization_barrier", (c,), a.shape, a.dtype)
    return c


CONSTANT = OpDef("constant", attrs=("value", "shape", "dtype"),
                 rule=lambda args, a: (a.shape, a.dtype), lower=_lower_constant,
                 evaluate=lambda node: np.frombuffer(node.attrs.value, node.dtype.np).reshape(node.shape).copy())


def constant(value, dtype, shape=()):
    """A value baked into the program (and its key): only for structural constants such as the 0
    of a comparison or the fill of zeros(), never for user data. A scalar fill is one 0-D
    literal broadcast, never a host array of `shape`."""
    if type(value) is int:  # (order keys' 0 and bounds, zeros' fill: memoized attributes)
        literal = CONSTANT.bind((), memo(_int_constants, (value, dtype), _scalar_constant_attrs, bound=1024))
        return broadcast_in_dim(literal, shape, ()) if len(shape) else literal
    if type(value) is float and value != 0.0:  # (the NaN of max/min/mean; not +-0.0: equal keys)
        literal = CONSTANT.bind((), memo(_float_constants, (value, dtype), _scalar_constant_attrs, bound=1024))
        return broadcast_in_dim(literal, shape, ()) if len(shape) else literal
    value = np.asarray(value, dtype=dtype.np)
    shape = tuple(shape)
    if value.ndim == 0 and shape:
        return broadcast_in_dim(constant(value, dtype), shape, ())
    flat = np.ascontiguousarray(np.broadcast_to(value, shape)).reshape(-1)
    if flat.size == 0:  # an empty array: a broadcast of any scalar (no empty literal needed)
        return broadcast_in_dim(constant(0, dtype), shape, ())
    if flat.size > 1 and (flat.view(np.uint8).reshape(flat.size, -1) == flat.view(np.uint8)[:flat.itemsize]).all():
        return broadcast_in_dim(constant(flat[0], dtype), shape, ())
    return CONSTANT.bind((), CONSTANT.Attrs(flat.tobytes(), shape, dtype))


# (Python int, dtype) -> a 0-D constant's attributes (`core.memo`): an int the dtype cannot hold
# raises in np.asarray at every call and is never stored
_int_constants = {}
_float_constants = {}  # (Python float, dtype) -> the same, apart: 1.0 == 1 as a key


def _scalar_constant_attrs(value, dtype):
    return CONSTANT.Attrs(np.asarray(value, dtype=dtype.np).tobytes(), (), dtype)


def full(value, like):
    """A structural constant `value` broadcast to node `like`'s shape and dtype."""
    return constant(value, like.dtype, like.shape)


def _iota(node):
    a = node.attrs
    line = np.arange(a.shape[a.dim], dtype=np.int64).astype(a.dtype.np, copy=False)
    if len(a.shape) == 1:
        return line  # (fresh and contiguous already)
    shape = [1] * len(a.shape)
    shape[a.dim] = a.shape[a.dim]
    return np.ascontiguousarray(np.broadcast_to(line.reshape(shape), a.shape))


IOTA = OpDef("iota", attrs=("shape", "dim", "dtype"), rule=lambda args, a: (a.shape, a.dtype),
             lower=lambda e, node: e.op("stablehlo.iota", (), node.shape, node.dtype,
                                        f"iota_dimension = {node.attrs.dim} : i64"),
             evaluate=_iota, covers=lambda node: node.dtype.kind in "iufc")


def iota(shape, dim, dtype):
    return IOTA.bind((), IOTA.Attrs(tuple(shape), dim, dtype))


# ---------------------------------------------------------------- broadcast, reshape, transpose


def _broadcast_rule(args, a):
    x, = args
    xs, shape, dims = x.shape, a.shape, a.dims
    if len(dims) != len(xs):
        raise AssertionError(f"broadcast_in_dim of {xs} to {shape} along {dims}")
    for n, d in zip(xs, dims):  # (a loop: this runs for every broadcast operand traced)
        if n != 1 and n != shape[d]:
            raise AssertionError(f"broadcast_in_dim of {xs} to {shape} along {dims}")
    return shape, x.dtype


def _prepare_broadcast(node):
    """`_broadcast`'s step with the stretched axes found once (`core.prepared`): the same view.
    A partial of `_broadcast_step` over atoms (tuples of ints), not a closure: a kept program
    holds one object per step for the garbage collector to visit, not a function, its cells and
    their tuple, and no stand-in node (`_broadcast_general` reads only the attributes)."""
    shape, dims = node.attrs
    x_shape = node.args[0].shape
    if 0 in x_shape:
        return None
    strided = tuple((i, d) for i, d in enumerate(dims) if x_shape[i] != 1)
    return functools.partial(_broadcast_step, shape, dims, strided, (0,) * len(shape))


# Elements of a strided operand up to which a broadcast copies it (contiguous) and builds its view
# on the copy: a column of (300, 3) broadcast to (8, 300) (GaussianMixture's `resp[:, k] * diff.T`,
# each component) ~1.6 us against ~5-12 us for numpy's general path.
COPY_STRIDED = 4096


def _broadcast_step(shape, dims, strided, zeros, x):
    flags = x.flags
    if not (flags.c_contiguous or flags.f_contiguous):  # (a strided view: no buffer to build on;
        # asked first, the failed constructor's ValueError cost ~6 us of a ~8 us step)
        if x.size > COPY_STRIDED:
            return _broadcast_general(BROADCAST_IN_DIM.Attrs(shape, dims), x)
        x = np.ascontiguousarray(x)  # (the same elements; the view below is read-only)
    if strided:
        strides = list(zeros)
        x_strides = x.strides
        for i, d in strided:
            strides[d] = x_strides[i]
    else:
        strides = zeros
    try:
        out = np.ndarray(shape, x.dtype, x, 0, strides)
    except ValueError:  # (no buffer for another reason: numpy's general path)
        return _broadcast_general(BROADCAST_IN_DIM.Attrs(shape, dims), x)
    out.flags.writeable = False
    return out


@prepared(_prepare_broadcast)
def _broadcast(node, x):
    """x's elements seen at node's shape: a read-only view whose stretched axes have stride 0.
    Built directly on x's memory when x is contiguous (either order): ~0.5 us against ~4 us for
    np.broadcast_to, which the interpreter pays for every scalar operand of an elementwise op."""
    dims = node.attrs.dims
    if x.size:
        strides = [0] * len(node.shape)
        x_shape, x_strides = x.shape, x.strides
        for i, d in enumerate(dims):
            if x_shape[i] != 1:
                strides[d] = x_strides[i]
        try:
            out = np.ndarray(node.shape, x.dtype, x, 0, strides)
        except ValueError:  # not contiguous (a strided or reversed view): numpy's general path
            pass
        else:
            out.flags.writeable = False
            return out
    return _broadcast_general(node.attrs, x)


def _broadcast_general(attrs, x):
    """x broadcast by numpy to `attrs.shape` along `attrs.dims` (any layout)."""
    dims = attrs.dims
    if list(dims) != sorted(dims):
        perm = sorted(range(len(dims)), key=lambda i: dims[i])
        x = np.transpose(x, perm)
        dims = tuple(dims[i] for i in perm)
    shape = [1] * len(attrs.shape)
    for i, d in enumerate(dims):
        shape[d] = x.shape[i]
    return np.broadcast_to(x.reshape(shape), attrs.shape)


BROADCAST_IN_DIM = OpDef(
    "broadcast_in_dim", attrs=("shape", "dims"), rule=_broadcast_rule, evaluate=_broadcast,
    lower=lambda e, node, x: e.op("stablehlo.broadcast_in_dim", (x,), node.shape, node.dtype,
                                  f"broadcast_dimensions = {i64_array(node.attrs.dims)}"))


# one attributes object per distinct value (`core.memo`; equal attributes are interchangeable)
_broadcast_attrs, _reshape_attrs, _transpose_attrs, _slice_attrs, _dynamic_slice_attrs = {}, {}, {}, {}, {}


def broadcast_in_dim(x, shape, dims):
    shape, dims = tuple(shape), tuple(dims)
    if x.shape == shape and dims == tuple(range(len(shape))):
        return x
    return BROADCAST_IN_DIM.bind((x,), memo(_broadcast_attrs, (shape, dims), BROADCAST_IN_DIM.Attrs))


def broadcast_attrs(shape, dims):
    """The attributes `broadcast_in_dim(x, shape, dims)` binds (tuples; memoized), for a caller
    binding the node itself."""
    return memo(_broadcast_attrs, (shape, dims), BROADCAST_IN_DIM.Attrs)


def reshape_attrs(shape):
    """The attributes `reshape(x, shape)` binds (memoized), for a caller binding the node itself."""
    return memo(_reshape_attrs, (shape,), RESHAPE.Attrs)


def broadcast_to(x, shape):
    """numpy-style: trailing axes aligned. The caller has checked compatibility."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = len(shape) - len(x.shape)
    keep = [i for i, n in enumerate(x.shape) if n == shape[lead + i]]
    if len(keep) != len(x.shape):  # size-1 axes that stretch: drop them first
        x = reshape(x, tuple(x.shape[i] for i in keep))
    return broadcast_in_dim(x, shape, tuple(lead + i for i in keep))


def _reshape_rule(args, a):
    x, = args
    if math.prod(a.shape) != math.prod(x.shape):
        raise AssertionError(f"reshape of {x.shape} to {a.shape}")
    return a.shape, x.dtype


RESHAPE = OpDef("reshape", attrs=("shape",), rule=_reshape_rule,
                lower=lambda e, node, x: e.op("stablehlo.reshape", (x,), node.shape, node.dtype),
                evaluate=prepared(lambda node: lambda x, shape=node.shape: x.reshape(shape))(
                    lambda node, x: x.reshape(node.shape)))


def reshape(x, shape):
    """A reshape of a pending reshape reshapes its operand (row-major order composes), as does one
    of a broadcast that only adds unit axes, and one back to the operand's shape is the operand:
    `c2[None, :]` broadcast against a matrix adds a unit axis that the broadcast drops again,
    with no node for either."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    while x.op is RESHAPE or (x.op is BROADCAST_IN_DIM and _adds_unit_axes(x)):
        x = x.args[0]
        if x.shape == shape:
            return x
    return RESHAPE.bind((x,), memo(_reshape_attrs, (shape,), RESHAPE.Attrs))


def _adds_unit_axes(node):
    """Whether a broadcast_in_dim only adds axes of 1 in order (its elements in its operand's
    row-major order: a reshape of it, which a reshape of it reshapes): `broadcast_to(s, (1,))`
    of a scalar, reshaped back to () when broadcast_to stretches it (SciPy's masked writes of a
    scalar: ~300 such pairs a pass of its call table)."""
    dims = node.attrs.dims
    return math.prod(node.shape) == math.prod(node.args[0].shape) and list(dims) == sorted(dims)


def _transpose_rule(args, a):
    x, = args
    perm = a.perm
    if perm == (1, 0) and len(x.shape) == 2:  # (x.T, the common case)
        return (x.shape[1], x.shape[0]), x.dtype
    if sorted(perm) != list(range(len(x.shape))):
        raise AssertionError(f"transpose of {x.shape} by {a.perm}")
    return tuple(x.shape[p] for p in a.perm), x.dtype


TRANSPOSE = OpDef("transpose", attrs=("perm",), rule=_transpose_rule,
                  lower=lambda e, node, x: e.op("stablehlo.transpose", (x,), node.shape, node.dtype,
                                                f"permutation = {i64_array(node.attrs.perm)}"),
                  # (prepared: the ndarray method np.transpose calls, as one methodcaller over
                  # the permutation: no stub kept by a program, no wrapper dispatch a call)
                  evaluate=prepared(lambda node: operator.methodcaller("transpose", node.attrs.perm))(
                      lambda node, x: np.transpose(x, node.attrs.perm)))


def transpose(x, perm):
    perm = tuple(perm)
    return x if perm == tuple(range(len(perm))) else TRANSPOSE.bind((x,), memo(_transpose_attrs, (perm,), TRANSPOSE.Attrs))


# ---------------------------------------------------------------- slices


def _slice_rule(args, a):
    x, = args
    if not (len(a.start) == len(a.limit) == len(a.stride) == len(x.shape)) or any(
            not 0 <= lo <= hi <= n or s < 1 for lo, hi, s, n in zip(a.start, a.limit, a.stride, x.shape)):
        raise AssertionError(f"slice of {x.shape} by {a}")
    return tuple(-(-(hi - lo) // s) for lo, hi, s in zip(a.start, a.limit, a.stride)), x.dtype


SLICE = OpDef(
    "slice", attrs=("start", "limit", "stride"), rule=_slice_rule,
    lower=lambda e, node, x: e.op(
        "stablehlo.slice", (x,), node.shape, node.dtype,
        f"start_indices = {i64_array(node.attrs.start)}, limit_indices = {i64_array(node.attrs.limit)}, "
        f"strides = {i64_array(node.attrs.stride)}"),
    evaluate=lambda node, x: x[tuple(slice(*bounds) for bounds in zip(*node.attrs))])


def slice_(x, start, limit, stride=None):
    key = (x.shape, tuple(start), tuple(limit), None if stride is None else tuple(stride))
    plan = _slice_plans.get(key)
    if plan is None:
        plan = memo(_slice_plans, key, _slice_plan)
    if plan is _WHOLE:
        return x
    # (the node `SLICE.bind` records, its attributes and shape found once per key: ~4 -> ~1.5 us)
    return _bind(SLICE, (x,), plan[0], plan[1], x.dtype)


def _slice_plan(shape, start, limit, stride):
    """`slice_`'s decision for an operand of `shape`: _WHOLE (the operand itself), or the
    attributes and shape of its node (the rule's, checked here: a bad slice raises at every call,
    since `memo` stores nothing then)."""
    stride = stride if stride is not None else (1,) * len(start)
    if start == (0,) * len(start) and limit == shape and stride == (1,) * len(start):
        return _WHOLE
    limit = tuple(max(lo, hi) for lo, hi in zip(start, limit))  # an empty range: limit = start
    attrs = memo(_slice_attrs, (start, limit, stride), SLICE.Attrs)
    return attrs, _slice_rule((_ShapeOnly(shape),), attrs)[0]


class _ShapeOnly:
    """An operand stand-in for a shape rule that reads only `shape` (and `dtype`: None)."""
    __slots__ = ("shape", "dtype")

    def __init__(self, shape):
        self.shape, self.dtype = shape, None


_WHOLE = "whole"
_slice_plans = {}  # (operand shape, start, limit, stride or None) -> _WHOLE or (attrs, shape)


def _starts_signed(first):
    """The `covers` of a dynamic window: its start operands (from `first` on) are signed integers.
    (A loop, not `all()` over a generator: ~0.12 against ~0.27 us, asked for every dynamic slice
    of every first sight, small read and host program.)"""
    def covers(node):
        for a in node.args[first:]:
            if a.dtype.kind != "i":
                return False
        return True
    return covers


def _clamped_window(starts, shape, sizes):
    """The slices of a dynamic window: starts clamp so the window fits, as in StableHLO."""
    out = []
    for s, n, size in zip(starts, shape, sizes):
        lo, top = int(s), n - size
        lo = 0 if lo < 0 else top if lo > top else lo  # (min(max(lo, 0), top) without two calls:
        out.append(slice(lo, lo + size))  # a first-sight window ~0.15 us less an axis)
    return tuple(out)


def _dynamic_slice_rule(args, a):
    x, *starts = args
    ok = len(starts) == len(x.shape)
    for s in starts:  # (loops, not generators: this runs for every basic index read)
        if s.shape:
            ok = False
    for k, n in zip(a.sizes, x.shape):
        if not 0 <= k <= n:
            ok = False
    if not ok:
        raise AssertionError(f"dynamic_slice of {x.shape} to sizes {a.sizes} with {len(starts)} starts")
    return a.sizes, x.dtype


def _window_bounds(shape, sizes):
    """Each axis' (size, highest start) for `_window`: `_clamped_window`'s bounds found once."""
    return tuple(zip(sizes, [n - size for n, size in zip(shape, sizes)]))


def _window(bounds, starts):
    """`_clamped_window` with the bounds (`_window_bounds`) found beforehand."""
    out = []
    for s, (size, top) in zip(starts, bounds):
        lo = int(s)
        lo = 0 if lo < 0 else top if lo > top else lo
        out.append(slice(lo, lo + size))
    return tuple(out)


def _one_axis(bounds):
    """(axis, size, highest start, the slices before it, after it) when the window can move along
    one axis only (every other window spans its axis: its slice is the same whatever the start,
    since that start clamps to 0), else None. `x[i]`, `x[:, k]`, `c[k, :, :]`, `x[i] = v`: ~1.5
    -> ~0.5 us a window."""
    moving = [i for i, (size, top) in enumerate(bounds) if top > 0]
    if len(moving) != 1:
        return None
    i = moving[0]
    fixed = tuple([slice(0, size) for size, _ in bounds])
    return i, bounds[i][0], bounds[i][1], fixed[:i], fixed[i + 1:]


def _prepare_dynamic_slice(node):
    """`DYNAMIC_SLICE`'s step with its clamping bounds found once (`core.prepared`); a partial
    over a tuple of ints, not a closure (one object a kept program's garbage collector visits)."""
    bounds = _window_bounds(node.args[0].shape, node.attrs.sizes)
    one = _one_axis(bounds)
    if one is not None:
        return functools.partial(_dynamic_slice_one, *one)
    return functools.partial(_dynamic_slice_step, bounds)


def _dynamic_slice_step(bounds, x, *starts):
    return x[_window(bounds, starts)]


def _dynamic_slice_one(i, size, top, before, after, x, *starts):
    """`_dynamic_slice_step` of a window that moves along axis i only (`_one_axis`)."""
    lo = int(starts[i])
    lo = 0 if lo < 0 else top if lo > top else lo
    return x[before + (slice(lo, lo + size),) + after]


DYNAMIC_SLICE = OpDef(
    "dynamic_slice", attrs=("sizes",), rule=_dynamic_slice_rule,
    lower=lambda e, node, x, *starts: e.op("stablehlo.dynamic_slice", (x, *starts), node.shape, node.dtype,
                                           f"slice_sizes = {i64_array(node.attrs.sizes)}"),
    evaluate=prepared(_prepare_dynamic_slice)(
        lambda node, x, *starts: x[_clamped_window(starts, x.shape, node.attrs.sizes)]),
    covers=_starts_signed(1))


def dynamic_slice_attrs(sizes):
    """The attributes `dynamic_slice(x, starts, sizes)` binds (memoized), for a caller binding the
    node itself."""
    return memo(_dynamic_slice_attrs, (tuple(sizes),), DYNAMIC_SLICE.Attrs)


def dynamic_slice(x, starts, sizes):
    """starts: one scalar integer node per axis (clamped into range)."""
    return DYNAMIC_SLICE.bind((x, *starts), memo(_dynamic_slice_attrs, (tuple(sizes),), DYNAMIC_SLICE.Attrs))


def _dus_rule(args, a):
    x, update, *starts = args
    if (update.dtype is not x.dtype or len(starts) != len(x.shape)
            or (update.shape and len(update.shape) != len(x.shape))
            or any(u > n for u, n in zip(update.shape, x.shape))
            or (not update.shape and 0 in x.shape)):
        raise AssertionError(f"dynamic_update_slice of {update.shape} into {x.shape}")
    return x.shape, x.dtype


def _window_sizes(x_shape, update_shape):
    """The window an update fills: its shape, or one element for a 0-D update (one element
    written: no reshape node before the update, as for each element scikit-learn's
    `_add_to_diagonal` writes)."""
    return update_shape if update_shape or not x_shape else (1,) * len(x_shape)


def _prepare_dus(node):
    """`_dynamic_update_slice`'s step with its window's bounds found once (`core.prepared`); a
    partial over a tuple of ints, as `_prepare_dynamic_slice`."""
    x, update = node.args[:2]
    bounds = _window_bounds(x.shape, _window_sizes(x.shape, update.shape))
    one = _one_axis(bounds)
    if one is not None:
        return functools.partial(_dus_one, *one)
    return functools.partial(_dus_step, bounds)


def _dus_one(i, size, top, before, after, x, update, *starts):
    """`_dus_step` of a window that moves along axis i only (`_one_axis`)."""
    out = np.array(x, copy=True)
    lo = int(starts[i])
    lo = 0 if lo < 0 else top if lo > top else lo
    out[before + (slice(lo, lo + size),) + after] = update
    return out


def _dus_step(bounds, x, update, *starts):
    out = np.array(x, copy=True)
    out[_window(bounds, starts)] = update
    return out


@prepared(_prepare_dus)
def _dynamic_update_slice(node, x, update, *starts):
    out = np.array(x, copy=True)
    out[_clamped_window(starts, x.shape, _window_sizes(x.shape, update.shape))] = update
    return out


def _lower_dus(e, node, x, update, *starts):
    if len(update.shape) != len(node.shape):  # a 0-D update: one element
        update = e.op("stablehlo.reshape", (update,), (1,) * len(node.shape), node.dtype)
    return e.op("stablehlo.dynamic_update_slice", (x, update, *starts), node.shape, node.dtype)


DYNAMIC_UPDATE_SLICE = OpDef(
    "dynamic_update_slice", rule=_dus_rule, evaluate=_dynamic_update_slice, covers=_starts_signed(2),
    lower=_lower_dus)


def dynamic_update_slice(x, update, starts):
    """x with the window at `starts` (clamped so it fits) replaced by update: of x's rank, or
    0-D for one element."""
    return DYNAMIC_UPDATE_SLICE.bind((x, update, *starts))


# ---------------------------------------------------------------- concatenate, pad, reverse


def _concatenate_rule(args, a):
    first = args[0]
    for x in args:
        if x.dtype is not first.dtype or len(x.shape) != len(first.shape) or any(
                n != m for i, (n, m) in enumerate(zip(x.shape, first.shape)) if i != a.axis):
            raise AssertionError(f"concatenate of {[(x.shape, x.dtype.name) for x in args]} along {a.axis}")
    shape = list(first.shape)
    shape[a.axis] = sum(x.shape[a.axis] for x in args)
    return tuple(shape), first.dtype


CONCATENATE = OpDef(
    "concatenate", attrs=("axis",), rule=_concatenate_rule,
    lower=lambda e, node, *xs: e.op("stablehlo.concatenate", xs, node.shape, node.dtype,
                                    f"dimension = {node.attrs.axis} : i64"),
    evaluate=lambda node, *xs: np.concatenate(xs, axis=node.attrs.axis))


def concatenate(xs, axis):
    xs = tuple(xs)
    return xs[0] if len(xs) == 1 else CONCATENATE.bind(xs, CONCATENATE.Attrs(axis))


def _pad_rule(args, a):
    x, value = args
    if value.shape or value.dtype is not x.dtype or not (len(a.low) == len(a.high) == len(a.interior) == len(x.shape)):
        raise AssertionError(f"pad of {x.shape} with {a}")
    shape = tuple(lo + hi + n + max(n - 1, 0) * it for n, lo, hi, it in zip(x.shape, a.low, a.high, a.interior))
    if min(shape, default=0) < 0:
        raise AssertionError(f"pad of {x.shape} with {a} crops past the edge")
    return shape, x.dtype


def _pad(node, x, value):
    low, high, interior = node.attrs
    out = np.full(node.shape, value, node.dtype.np)
    if not node.shape or x.size == 0 or out.size == 0:
        return out if node.shape else x
    # x's element i of an axis lands at lo + i * step (step: interior + 1), an arithmetic
    # progression: what is kept is one run of i, written into a strided window of the result
    # (edge padding ~3 us, interior padding of a (5,) bool ~4 us against ~25 for index arrays)
    dst, src = [], []
    for n, lo, it, m in zip(x.shape, low, interior, node.shape):
        step = it + 1
        first = max(0, -(lo // step))  # (the first i with lo + i * step >= 0)
        last = min(n, (m - 1 - lo) // step + 1)  # (past the last i with lo + i * step < m)
        if last <= first:
            return out
        src.append(slice(first, last))
        dst.append(slice(lo + first * step, lo + (last - 1) * step + 1, step))
    out[tuple(dst)] = x[tuple(src)]
    return out


PAD = OpDef(
    "pad", attrs=("low", "high", "interior"), rule=_pad_rule, evaluate=_pad,
    lower=lambda e, node, x, value: e.op(
        "stablehlo.pad", (x, value), node.shape, node.dtype,
        f"edge_padding_low = {i64_array(node.attrs.low)}, edge_padding_high = {i64_array(node.attrs.high)}, "
        f"interior_padding = {i64_array(node.attrs.interior)}"))


def pad(x, value, low, high, interior=None):
    """value: a scalar node of x's dtype. Negative low/high crop."""
    interior = tuple(interior) if interior is not None else (0,) * len(x.shape)
    return PAD.bind((x, value), PAD.Attrs(tuple(low), tuple(high), interior))


def _reverse_rule(args, a):
    x, = args
    if any(not 0 <= d < len(x.shape) for d in a.dims):
        raise AssertionError(f"reverse of {x.shape} along {a.dims}")
    return x.shape, x.dtype


REVERSE = OpDef("reverse", attrs=("dims",), rule=_reverse_rule,
                lower=lambda e, node, x: e.op("stablehlo.reverse", (x,), node.shape, node.dtype,
                                              f"dimensions = {i64_array(node.attrs.dims)}"),
                evaluate=lambda node, x: np.flip(x, node.attrs.dims))


def reverse(x, dims):
    dims = tuple(d for d in dims if x.shape[d] > 1)
    return REVERSE.bind((x,), REVERSE.Attrs(dims)) if dims else x

