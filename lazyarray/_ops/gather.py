"""Gather and scatter of points: `x[idx[..., 0], idx[..., 1], ...]` along some axes, whole along
the others, and its inverse (set, or combine duplicates with a reducer).

StableHLO's semantics, which both tiers keep: a gather clamps each start index into range, a
scatter drops an update whose index is out of range, and of several `set` updates to one place
the last wins (XLA's CPU scatter applies updates in order).
"""
from __future__ import annotations

import functools

import numpy as np

from .core import OpDef, prepared
from .reduce import REDUCERS


def _dims(values):
    return f"[{', '.join(map(str, values))}]"


def _points_rule(x, idx, axes):
    if idx.dtype.kind not in "iu" or not idx.shape or idx.shape[-1] != len(axes) or list(axes) != sorted(set(axes)):
        raise AssertionError(f"points of {x.shape} along {axes} with indices {idx.shape} {idx.dtype.name}")
    return idx.shape[:-1] + tuple(n for i, n in enumerate(x.shape) if i not in axes)


# ---------------------------------------------------------------- gather


def _lower_gather(e, node, x, idx):
    axes = node.attrs.axes
    batch = len(idx.shape) - 1
    rest = len(x.shape) - len(axes)
    sizes = ", ".join(str(1 if i in axes else n) for i, n in enumerate(x.shape))
    return e.op("stablehlo.gather", (x, idx), node.shape, node.dtype,
                "dimension_numbers = #stablehlo.gather<"
                f"offset_dims = {_dims(range(batch, batch + rest))}, collapsed_slice_dims = {_dims(axes)}, "
                f"start_index_map = {_dims(axes)}, index_vector_dim = {batch}>, "
                f"slice_sizes = array<i64{': ' + sizes if sizes else ''}>, indices_are_sorted = false")


def _gather(node, x, idx):
    """Start indices clamp into range: `take`'s mode "clip" (negative to 0, past the end to the
    last), on the gathered axes moved to the front (one axis: one take; several: their clipped
    flat index into those axes, flattened). ~3 us for a small one-axis gather against ~27 us
    with np.moveaxis and np.clip per axis."""
    axes = node.attrs.axes
    if 0 in node.shape:
        return np.zeros(node.shape, node.dtype.np)
    k = len(axes)
    if axes != tuple(range(k)):
        x = np.moveaxis(x, axes, range(k))
    if k == 1:
        return np.take(x, idx[..., 0], axis=0, mode="clip")
    dims = x.shape[:k]
    flat = np.ravel_multi_index(tuple(idx[..., j] for j in range(k)), dims, mode="clip")
    return np.take(x.reshape((-1,) + x.shape[k:]), flat, axis=0)


GATHER = OpDef("gather", attrs=("axes",), lower=_lower_gather, evaluate=_gather,
               rule=lambda args, a: (_points_rule(*args, a.axes), args[0].dtype),
               # an empty axis cannot hold the slice of 1 (a result with no elements needs no gather)
               covers=lambda node: (node.args[1].dtype.kind == "i" and (
                   all(node.args[0].shape[a] > 0 for a in node.attrs.axes) or 0 in node.shape)))


def gather_points(x, idx, axes):
    """x[..., idx[..., k] along axes[k], ...]: idx has shape batch + (len(axes),), each row picks
    one element along each of `axes` (sorted); the other axes of x are kept whole and follow the
    batch axes in the result."""
    return GATHER.bind((x, idx), GATHER.Attrs(tuple(axes)))


# ---------------------------------------------------------------- scatter


def _scatter_rule(args, a):
    x, idx, upd = args
    if upd.dtype is not x.dtype or upd.shape != _points_rule(x, idx, a.axes) or (
            a.mode != "set" and a.mode not in REDUCERS):
        raise AssertionError(f"scatter of {upd.shape} into {x.shape} along {a.axes}, mode {a.mode}")
    return x.shape, x.dtype


def _lower_scatter(e, node, x, idx, upd):
    axes, mode = node.attrs
    if mode == "set":
        region = e.region([x.dtype, x.dtype], lambda r, v: [v[1]])
    else:
        region = e.region([x.dtype, x.dtype], lambda r, v: [REDUCERS[mode].op.emit(r, *v)])
    batch = len(idx.shape) - 1
    rest = len(x.shape) - len(axes)
    return e.op("stablehlo.scatter", (x, idx, upd), node.shape, node.dtype,
                "scatter_dimension_numbers = #stablehlo.scatter<"
                f"update_window_dims = {_dims(range(batch, batch + rest))}, inserted_window_dims = {_dims(axes)}, "
                f"scatter_dims_to_operand_dims = {_dims(axes)}, index_vector_dim = {batch}>, "
                "indices_are_sorted = false, unique_indices = false", region)


def _increasing(col):
    """Strictly increasing (distinct places, as a mask's positions are): no duplicates to
    resolve, so no sort."""
    return bool(np.all(col[1:] > col[:-1]))


def _prepare_scatter(node):
    """A 'set' scatter of points over every axis of a nonempty x (`_indexing`'s run of element
    writes): `_set_elements_step` (`core.prepared`); None for any other scatter."""
    axes, mode = node.attrs
    shape = node.shape
    if (mode != "set" or not shape or axes != tuple(range(len(shape))) or 0 in shape
            or len(node.args[1].shape) != 2):
        return None
    return functools.partial(_set_elements_step, shape, axes, node.dtype)


def _set_elements_step(shape, axes, dtype, x, idx, upd):
    """`_scatter` of rows `idx` (k, rank) into every axis of x of `shape`: when the rows are
    inside and their flat positions strictly increase (distinct places: nothing dropped, no last
    update to pick), numpy's assignment at those positions, the general path's result without
    its masks and sort (~4 us for 8 elements against ~15); else the general path."""
    if idx.shape[0] and idx.dtype.kind == "i":
        try:
            flat = np.ravel_multi_index(idx.T, shape)  # (raises for a row out of range)
        except ValueError:
            flat = None
        if flat is not None and (flat.shape[0] == 1 or (flat[1:] > flat[:-1]).all()):
            out = np.array(x, copy=True, order="C")
            out.reshape(-1)[flat] = upd
            return out
    return _scatter_values(axes, "set", dtype, x, idx, upd)


@prepared(_prepare_scatter)
def _scatter(node, x, idx, upd):
    axes, mode = node.attrs
    if mode == "set" and x.ndim and idx.ndim == 2 and axes == tuple(range(x.ndim)) and x.size:
        return _set_elements_step(x.shape, axes, node.dtype, x, idx, upd)  # (`_prepare_scatter`'s step)
    return _scatter_values(axes, mode, node.dtype, x, idx, upd)


def _scatter_values(axes, mode, dtype, x, idx, upd):
    out = np.array(x, copy=True)
    k = len(axes)
    if k == 1 and mode == "set" and axes[0] == 0 and out.size:
        # (the commonest scatter, a write by a mask's or an index array's positions along the
        # first axis: strictly increasing and inside, it is numpy's out[col] = vals, what the
        # general path below ends in for it without its bounds masks, moveaxis and checks)
        col = idx.reshape(-1)
        m = col.shape[0]
        if m and col[0] >= 0 and col[m - 1] < out.shape[0] and (m == 1 or _increasing(col)):
            out[col] = upd.reshape((m,) + upd.shape[idx.ndim - 1:])
            return out
    rows = idx.reshape(-1, k)
    vals = upd.reshape((rows.shape[0],) + upd.shape[idx.ndim - 1:])
    if rows.shape[0] == 0 or out.size == 0:
        return out
    dims = [x.shape[a] for a in axes]
    inside = None
    for j, n in enumerate(dims):  # an update out of bounds is dropped, not clamped
        col = rows[:, j]
        ok = (col >= 0) & (col < n)
        inside = ok if inside is None else inside & ok
    if not inside.all():  # (the common case, all inside, copies nothing)
        rows, vals = rows[inside], vals[inside]
        if rows.shape[0] == 0:
            return out
    # a view with the scattered axes first (writes land in out); out itself when they are first
    moved = out if axes == tuple(range(k)) else np.moveaxis(out, axes, range(k))
    if mode == "set":  # of several updates to one place, the last wins
        if rows.shape[0] > 1 and not (k == 1 and _increasing(rows[:, 0])):
            flat = rows[:, 0] if k == 1 else np.ravel_multi_index(tuple(rows.T), dims)
            order = np.argsort(flat, kind="stable")  # each place's updates in their order
            ranked = flat[order]
            last = np.empty(ranked.shape[0], bool)
            last[-1] = True
            np.not_equal(ranked[1:], ranked[:-1], out=last[:-1])
            keep = order[last]  # the last update to each place: distinct places, any order
            rows, vals = rows[keep], vals[keep]
        moved[tuple(rows.T)] = vals
        return out
    REDUCERS[mode].host_ufunc(dtype).at(moved, tuple(rows.T), vals)
    if mode in ("max", "min") and dtype.kind == "f":
        # a zero result is +0.0 (max) / -0.0 (min) when any of the zeros that met there had that sign
        def wanted(v):
            return (v == 0) & (~np.signbit(v) if mode == "max" else np.signbit(v))
        flag = wanted(np.moveaxis(x, axes, range(k)))
        np.logical_or.at(flag, tuple(rows.T), wanted(vals))
        hit = flag & (moved == 0)
        zero = np.zeros((), x.dtype)
        moved[hit] = zero if mode == "max" else -zero
    return out


SCATTER = OpDef("scatter", attrs=("axes", "mode"), rule=_scatter_rule, lower=_lower_scatter, evaluate=_scatter,
                covers=lambda node: node.args[1].dtype.kind == "i" and (
                    node.attrs.mode == "set" or node.dtype.kind in REDUCERS[node.attrs.mode].kinds))


def scatter_points(x, idx, upd, axes, mode="set"):
    """The inverse of gather_points: upd has shape batch + (x's other axes); mode 'set' or a
    reducer kind ('add', ...) for duplicates."""
    return SCATTER.bind((x, idx, upd), SCATTER.Attrs(tuple(axes), mode))
