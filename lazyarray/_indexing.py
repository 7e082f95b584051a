"""__getitem__ and __setitem__: a key of basic indices (`_basic_indexing`) or one with arrays
in it (`_advanced_indexing`).

numpy arrays and lists in a key act as our arrays of their values; a write's value becomes a
node of x's dtype first. Both entry points are `Array`'s methods (installed by
`_array_methods`), so `x[i]` is one call to `getitem`.
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _dtypes as dt
from ._bounded import keep
from . import _ops as ops
from . import _host_sync, _mask_index, _views
from ._advanced_indexing import getitem_advanced, setitem_advanced, whole_mask_write
from ._array_object import _NODE_SLOT, Array, _View, check_writable, strides_of
from ._basic_indexing import (
    BasicIndex, _Axis, all_integers, check_assignable, compose, expand, is_basic, plan, read_by_recipe,
    read_recipe, slice_read, slice_write,
)
from ._deferred_elements import Element, Running, bound_element_write, element_nodes, element_run
from ._helpers import is_scalar
from ._graph import Node as _Node, bind as _bind, leaf_from_host
from ._host_data import numpy_leaf
from ._metrics import metrics


def _host_arrays_to_ours(key, x):
    """numpy arrays in an index act as our arrays of the same values (scikit-learn indexes with
    numpy index arrays: `y[train_indices]`)."""
    if isinstance(key, (np.ndarray, list)):
        return _from_numpy_index(key, x)
    if isinstance(key, tuple) and any(isinstance(k, (np.ndarray, list)) for k in key):
        return tuple(_from_numpy_index(k, x) if isinstance(k, (np.ndarray, list)) else k for k in key)
    return key


def _from_numpy_index(k, x):
    if isinstance(k, list):
        # an index given as a list of integers or bools acts as that array, as in numpy,
        # PyTorch, JAX and CuPy (an empty list is an empty integer index)
        k = np.asarray(k) if k else np.zeros(0, np.intp)
    if k.dtype.kind not in "biu":
        raise IndexError(f"numpy index arrays must be integer or boolean, got {k.dtype}")
    return Array._wrap(numpy_leaf(k, x._device), x._device)


# numpy's integer scalar types: in a key, each acts as the Python int of its value (numpy's
# `operator.index`), so `x[np.int64(i)]` takes the paths of `x[i]` (scikit-learn and SciPy index
# with the integers numpy hands them: argmax results, loop counters over numpy ranges)
_NUMPY_INTS = frozenset({np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                         np.uint64, np.intp, np.uintp, np.intc, np.uintc, np.longlong, np.ulonglong})


def getitem(x, key, /):
    if type(key) is not int and type(key) in _NUMPY_INTS:
        key = int(key)
    if type(key) is int:  # x[i] on a 1-D array (a view's too): the hot path of scalar code
        node = x._node
        if len(node.shape) == 1:
            return _element(x, node, key)
    pattern = _pattern(key)
    if pattern is not None:
        return _basic_read(x, key, pattern)
    out = _mask_index.read(x, key)  # (x[k] of a 1-D mask or integers: the general path's nodes, at once)
    if out is not None:
        return out
    key = _host_arrays_to_ours(key, x)
    items = expand(key, x.ndim)
    if is_basic(items):
        axes, out_shape, strides = plan(x.shape, items, strides_of(x))
        if all_integers(key, items):
            return Array._wrap(slice_read(x._node, axes, out_shape), x._device)
        return _View._make(x, BasicIndex(axes, out_shape), slice_read(x._node, axes, out_shape), strides)
    return getitem_advanced(x, items)


_FULL = ":"  # a full slice in a key's pattern


def _pattern(key):
    """A hashable image of a key made only of Python ints (or numpy integer scalars, read as
    ints), None, the ellipsis and slices of Python ints (the keys of most code: `c[k]`,
    `x[:, k]`, `c2[None, :]`, `x[..., j]`), from which the key can be rebuilt; None for any other
    key. (Slices are unhashable before Python 3.12, and True == 1 as a key.) A key with two
    ellipses has a pattern too: its plan raises, as the general path, and is never stored."""
    if type(key) is int:
        return (key,)
    if type(key) in _NUMPY_INTS:
        return (int(key),)
    if type(key) is not tuple:
        if type(key) is not slice and key is not None and key is not Ellipsis:
            return None
        key = (key,)  # (x[a:b], x[None], x[...]: a key of one item reads as that item alone)
    out = []
    for k in key:
        if k is None or type(k) is int or k is Ellipsis:
            out.append(k)
        elif type(k) in _NUMPY_INTS:
            out.append(int(k))  # (as the general path reads it: operator.index)
        elif type(k) is slice:
            start, stop, step = k.start, k.stop, k.step
            if start is None and stop is None and step is None:
                out.append(_FULL)
            elif all(v is None or type(v) is int for v in (start, stop, step)):
                out.append((start, stop, step))
            elif all(v is None or type(v) is int or type(v) in _NUMPY_INTS for v in (start, stop, step)):
                # (numpy integer bounds, `x[:, :n]` of a numpy n: slice.indices reads them as
                # these ints, as the general path does)
                out.append(tuple([None if v is None else int(v) for v in (start, stop, step)]))
            else:
                return None
        else:
            return None
    return tuple(out)


# What a basic key does to an array, memoized: a pure function of tuples of ints (the array's
# shape, a view's strides, the key's pattern), bounded by emptying. A key that raises is never
# stored, so it raises again at every call, from the same code as the general path.
_read_plans = {}   # (shape, view strides or None, pattern) -> (axes, out_shape, strides, copy, recipe, step)
_write_plans = {}  # (shape, pattern) -> (axes, out_shape)
_PLAN_CACHE = 4096


# The `_Axis` objects the kept plans hold, one per distinct value (an _Axis is never changed once
# made, and is compared by identity only as part of a key of a pure function of its values):
# SciPy's table keeps ~400 read plans with ~740 axes of ~140 distinct values, and what the caches
# keep alive, the collector scans (a full collection in its second pass when each plan kept its
# own). Bounded as the plans are (emptying only ends the sharing).
_kept_axes = {}  # (start, span, step, count, drop) -> _Axis


def _shared_axes(axes):
    """`axes` (a list of _Axis) with each replaced by the kept _Axis of its values."""
    out = []
    for a in axes:
        k = (a.start, a.span, a.step, a.count, a.drop)
        b = _kept_axes.get(k)
        if b is None:
            b = keep(_kept_axes, k, a, _PLAN_CACHE)
        out.append(b)
    return out


def _basic_read(x, key, pattern):
    """x[key] for a key with a pattern: the general path's result (a view, or a copy when an
    integer indexes every axis), with its plan looked up."""
    node = x._node
    view_strides = x._strides if type(x) is _View else None
    cache_key = (node.shape, view_strides, pattern)
    hit = _read_plans.get(cache_key)
    if hit is None:
        items = expand(key, len(node.shape))
        axes, out_shape, strides = plan(node.shape, items, strides_of(x))
        axes = _shared_axes(axes)
        copy = all_integers(key, items)
        # (the view step is kept with the plan and shared by every view made from it, as
        # reshape's: a step holds no state, only the axes and shape it reads)
        hit = (axes, out_shape, strides, copy, read_recipe(node.shape, axes, out_shape),
               None if copy else BasicIndex(axes, out_shape), _whole_reshape(node.shape, axes, out_shape))
        keep(_read_plans, cache_key, hit, _PLAN_CACHE)
    axes, out_shape, strides, copy, recipe, step, whole = hit
    if whole is not None and node.op is not _RESHAPE and node.op is not _BROADCAST_IN_DIM:
        # slice_read's one node for this key (the whole array, a new shape: `ops.reshape`,
        # whose rewrites look through only a pending reshape or broadcast), bound at once
        read = _bind(_RESHAPE, (node,), whole, out_shape, node.dtype)
    elif recipe is None:
        read = slice_read(node, axes, out_shape)
    else:
        read = read_by_recipe(node, recipe, out_shape)
    if copy:
        return Array._wrap(read, x._device)
    return _View._make(x, step, read, strides)


_RESHAPE = ops.RESHAPE
_BROADCAST_IN_DIM = ops.BROADCAST_IN_DIM


def _whole_reshape(shape, axes, out_shape):
    """The reshape attributes `slice_read` binds when a key selects the whole of an array of
    `shape` (unit steps, every axis whole: `c2[None, :]`, `lab[:, None]`) and only changes its
    shape; None for any other selection. (The same attributes object `ops.reshape` gets.)"""
    if 0 in out_shape or out_shape == shape or any(a.step != 1 for a in axes):
        return None
    if tuple([a.span for a in axes]) != shape:
        return None
    return ops.reshape_attrs(out_shape)


def _element(x, node, i):
    """x[i] for a 1-D x (its current node: `node`) and a Python int i: what the general path
    builds (one dynamic_slice; numpy's x[i] is a copy, never a view, whatever x is),
    without parsing a key. When x's value is already computed and in host-readable memory (a
    host value, or a CPU buffer, whose numpy view is free), the element is read at once into a
    0-D host leaf: a graph parameter like the index it replaces, and no op to run at the sync."""
    n = node.shape[0]
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for axis 0 with size {n}")
    if i < 0:
        i += n
    device = x._device
    if node.op is None:
        if node.buffer is None:
            host = node.host
            if type(host) is np.ndarray and (host.dtype is node.dtype.np or host.dtype == node.dtype.np):
                metrics.host_element_reads += 1
                e = _new(Array)  # (`Array._wrap` of a leaf, inline: nothing to register)
                e._node = _Node(None, (), (), (), node.dtype, host[i])  # (`leaf_from_host`, a call less)
                e._device = device
                return e
        elif device.platform == "cpu" and device.mesh is None:
            metrics.host_element_reads += 1
            return Array._wrap(leaf_from_host(np.asarray(node.buffer)[i], (), node.dtype), device)
    elif n > _host_sync.SMALL:
        # a large pending x whose element is a few exact ops on leaves (the is_lazy_array
        # probe's `reshape(y, -1)[0]`): that element computed now, x left pending (`_host_sync.
        # element_now`; None for any other graph, which records the nodes below)
        v = _host_sync.element_now(node, (i,), device)
        if v is not None:
            e = _new(Array)  # (`Array._wrap` of a leaf, inline)
            e._node = _Node(None, (), (), (), node.dtype, v)  # (`leaf_from_host`, a call less)
            e._device = device
            return e
    if n == 1:  # (the slice is the whole axis: slice_read's reshape alone)
        return Array._wrap(slice_read(node, [_Axis(i, 1, 1, 1, True)], ()), device)
    e = _new(Element)  # (its nodes bound at its first use: `_deferred_elements.Element`)
    _NODE_SLOT.__set__(e, (node, i))
    e._device = device
    return e


_new = object.__new__


def _value_node(x, dtype, value):
    """`value` as a node of `dtype` (x's) to write into x."""
    if isinstance(value, Array):
        if value.dtype.kind == "c" and dtype.kind != "c":
            raise TypeError(f"cannot assign a {value.dtype} value into a {dtype} array")
        if value._device is not x._device and value._device != x._device:  # (identity first: ~0.3 us)
            raise ValueError(f"value is on {value._device}, the array on {x._device}")
        return ops.convert(value._node, dtype)
    if is_scalar(value):
        if isinstance(value, complex) and dtype.kind != "c":
            raise TypeError(f"cannot assign a complex scalar into a {dtype} array")
        if isinstance(value, float) and dtype.kind in "biu":
            value = _float_into(value, dtype)
        return ops.scalar(value, dtype)
    raise TypeError(f"cannot assign a {type(value).__name__}: expected an array or a Python scalar")


def _float_into(value, dtype):
    """A float scalar written into a bool or integer array, cast as numpy casts it (the standard
    leaves this open; array-api-extra's `at(x, i).set(1.1)` and numpy-style code expect it):
    truncated toward zero, OverflowError outside the dtype's range, ValueError for NaN."""
    if dtype.kind == "b":
        return builtins.bool(value)
    if value != value:
        raise ValueError(f"cannot convert float NaN to integer (assigning into a {dtype} array)")
    if value in (float("inf"), float("-inf")):
        raise OverflowError(f"cannot convert float infinity to integer (assigning into a {dtype} array)")
    value = int(value)
    info = np.iinfo(dtype.np)
    if not info.min <= value <= info.max:
        raise OverflowError(f"Python integer {value} out of bounds for {dtype.name}")
    return value


def setitem(x, key, value, /):
    # (also a write that selects nothing, as numpy) `check_writable`'s answer, inline for a plain
    # array (never read-only) and a view of one (read-only when its step is): ~0.4 us a write
    tx = type(x)
    if tx is not Array and tx is not Running:
        if tx is _View and (type(x._base) is Array or type(x._base) is Running):
            if x._step.readonly:
                raise x._step.refusal()
        else:
            check_writable(x)
    if type(key) is Array and type(x) is Array and (type(value) is float or type(value) is int
                                                    or type(value) is bool):
        # x[m] = c of a bool mask of x's shape and a Python float, int or bool: with two axes or
        # more into a floating x (scikit-learn's `_logsumexp`: `array[index_max] = -xp.inf`, each
        # call), or 1-D of more than one element into any x (SciPy's elementwise solvers:
        # `x[m] = np.nan`, `done[m] = True`, ~600 a pass of SciPy's table): the general path's
        # leaf (`_value_node`) and nodes (`whole_mask_write`, whose select of a 0-D leaf's
        # broadcast is also what `_mask_index.write` binds for a 1-D mask), without parsing the key
        knode, node = key._node, x._node
        shape = node.shape
        if (knode.dtype is dt.bool and knode.shape == shape and key._device is x._device
                and (len(shape) > 1 and node.dtype.kind in "fc" or len(shape) == 1 and shape[0] != 1)):
            vnode = _value_node(x, node.dtype, value)
            with _views.write_lock:
                return whole_mask_write(x, key, vnode)
    elif (type(key) is tuple and len(key) == 2 and type(key[0]) is int and type(key[1]) is int
          and type(value) is Element):
        # (the same write of an element not bound yet: `_deferred_elements.element_run` takes it from the slot)
        held = _NODE_SLOT.__get__(value)
        meta = x._node if type(x) is Array else x._pending_node()  # (a view's, an open run's: no re-read)
        if (type(held) is tuple and held[0].dtype is meta.dtype and value._device is x._device):
            hit = _write_plans.get((meta.shape, key))
            if hit is not None:
                return _write_element(x, held, hit[0], key)
    elif (type(key) is tuple and type(value) is Array and len(key) == 2 and type(key[0]) is int
          and type(key[1]) is int):
        # x[i, j] = v of two Python ints and a 0-D array of x's dtype on x's device, the key's
        # write plan seen at this shape (scikit-learn's `_add_to_diagonal`: `a[i, i] = value[i]`,
        # ~670 writes a GaussianMixture(full) call): what the general path does below on a plan
        # hit (the key is its own pattern; `_value_node` gives vnode itself; () fits ()), without
        # parsing the key or checking the value again
        meta = x._node if type(x) is Array else x._pending_node()  # (a view's, an open run's: no re-read)
        vnode = value._node
        if not vnode.shape and vnode.dtype is meta.dtype and value._device is x._device:
            hit = _write_plans.get((meta.shape, key))
            if hit is not None:
                return _write_element(x, vnode, hit[0], key)
    elif type(key) is tuple and tx is Array and (type(value) is Array or type(value) is _View):
        # x[key] = v of a window key seen at x's shape (`covariances[k, :, :] = c`, `log_prob[:, k]
        # = s`: ~260 writes a GaussianMixture(full) call), v an array of the window's shape, x's
        # dtype and device: the general path's nodes (`_write_window`) without its checks again
        pattern = _pattern(key)
        if pattern is not None:
            node = x._node
            hit = _direct_windows.get((node.shape, pattern))
            if hit is not None:
                vnode = value._node
                if vnode.shape == hit[0] and vnode.dtype is node.dtype and value._device is x._device:
                    with _views.write_lock:
                        return _write_window(x, x._node, vnode, hit[1])
    # x's shape and dtype, which no write changes: read from a view's last node, since reading
    # its current one would first read it again from a base written since (two nodes per write
    # into a view, each element of a diagonal written through `covariances[k, :, :]`), and from
    # an open element run's base (`Running`), which reading its node would close
    meta = x._node if type(x) is Array else x._pending_node()
    pattern = _pattern(key)
    hit = None if pattern is None else _write_plans.get((meta.shape, pattern))
    if hit is None:
        index = None if pattern is not None else _mask_index.index_of(x, key)
        if index is not None:  # (x[k] = v of a 1-D mask or integers: the general path's nodes, bound at once)
            vnode = _value_node(x, meta.dtype, value)
            with _views.write_lock:
                return _mask_index.write(x, index, vnode)
        key = _host_arrays_to_ours(key, x)
        items = expand(key, len(meta.shape))
        vnode = _value_node(x, meta.dtype, value)
        if not is_basic(items):
            with _views.write_lock:
                return setitem_advanced(x, items, vnode)
        axes, out_shape, _ = plan(meta.shape, items)
        if pattern is not None:
            axes = _shared_axes(axes)
            keep(_write_plans, (meta.shape, pattern), (axes, out_shape), _PLAN_CACHE)
    else:  # (a key seen at this shape: its checks passed then, and the value's come first)
        vnode = _value_node(x, meta.dtype, value)
        axes, out_shape = hit
    check_assignable(vnode.shape, out_shape)
    if 0 in out_shape:
        return
    if not out_shape and not vnode.shape and pattern is not None and meta.shape:
        return _write_element(x, vnode, axes, pattern)
    with _views.write_lock:
        # a write through a basic view is a write into its base at the composed index: one
        # update of the base instead of one of the view and one of the base (scikit-learn's
        # `_add_to_diagonal` writes a view's diagonal element by element); the view reads its
        # new value from the base when next used, as after any write into its base
        # (axes kept by a plan or a view's composition, unless x is a view of a view: its
        # composition is made afresh at each write, so its window is too)
        kept = pattern is not None and (type(x) is not _View or type(x._base) is not _View)
        direct = type(x) is Array
        x, axes = _write_target(x, axes, pattern)
        node = x._node
        if pattern is not None and vnode.shape == out_shape:
            # (a key's window write: `_window_write`)
            if kept:
                key = (node.shape, out_shape, tuple(axes))
                window = _window_writes.get(key)
                if window is None:
                    window = _window_write(node.shape, axes, out_shape)
                    keep(_window_writes, key, window, _PLAN_CACHE)
            else:
                window = _window_write(node.shape, axes, out_shape)
            if window:
                if direct:
                    keep(_direct_windows, (node.shape, pattern), (out_shape, window), _PLAN_CACHE)
                return _write_window(x, node, vnode, window)
        x._rebind(slice_write(node, axes, out_shape, vnode))


def _write_window(x, node, vnode, window):
    """x (whose node is `node`) with a window written: reshape(vnode, counts), then
    dynamic_update_slice(node, it, int64 host starts) (`_window_write`'s answer `window`), bound
    at once. Called with the write lock held."""
    counts, starts, reshaped = window
    if vnode.shape == counts or vnode.op is _RESHAPE or vnode.op is _BROADCAST_IN_DIM:
        value = ops.reshape(vnode, counts)  # (none, or its rewrites)
    else:  # (`ops.reshape`'s node, bound at once: its rule holds, one element count)
        value = _bind(_RESHAPE, (vnode,), reshaped, counts, vnode.dtype)
    args = [node, value]
    for s in starts:
        args.append(leaf_from_host(s, (), _INT64))  # (`ops.scalar(s, dt.int64)`)
    x._rebind(_bind(ops.DYNAMIC_UPDATE_SLICE, tuple(args), (), node.shape, node.dtype))


# The window writes of plain arrays by an array of the window's shape and the array's dtype, by
# (the array's shape, the key's pattern): (the window's shape, `_window_write`'s answer), stored
# by the general path above once it wrote so; `setitem` writes such a key again at once.
_direct_windows = {}


# What `slice_write(node, axes, out_shape, value)` binds for a value of exactly out_shape, by
# (node's shape, out_shape, the axes: objects of a kept plan or composition, compared by
# identity and held by the key): `_window_write`'s answer.
_window_writes = {}


def _window_write(shape, axes, out_shape):
    """(counts, starts, reshape's attributes for counts) when `slice_write` of a value of exactly
    `out_shape` into a node of `shape` binds reshape(value, counts), then
    dynamic_update_slice(node, it, int64 host starts):
    a window of unit steps that is not the whole array, holding more than one element's key
    (`covariances[k] = c`, `log_prob[:, k] = v`); else False. `setitem` binds those two nodes
    at once (the update's rule holds: the window's counts fit inside `shape`, one start per axis,
    the value of the node's dtype), ~8 -> ~5 us a write."""
    if not out_shape or 0 in out_shape:
        return False
    for a in axes:
        if a.step != 1:
            return False
    if tuple([a.span for a in axes]) == shape:
        return False
    counts = tuple([a.count for a in axes])
    return counts, tuple([a.start for a in axes]), ops.reshape_attrs(counts)


# The base axes a write through a basic view composes to, by (the view's step, the key's
# pattern): a pure function of the step's axes and shape and the key (the step object is shared
# by every view made from one read plan), bounded as the plans are.
_composed = {}  # (BasicIndex step, pattern) -> composed axes


def _write_target(x, axes, pattern):
    """The array a write of `axes` into `x` lands in, and the axes there: through a chain of basic
    views, their base at the composed index (the first view's composition kept by its step and the
    key's `pattern`, when there is one). Called with the write lock held."""
    if type(x) is _View and type(x._step) is BasicIndex:
        if pattern is None:
            axes = compose(x._step, axes)
        else:
            key = (x._step, pattern)
            composed = _composed.get(key)
            if composed is None:
                composed = _shared_axes(compose(x._step, axes))
                keep(_composed, key, composed, _PLAN_CACHE)
            axes = composed
        x = x._base
        while type(x) is _View and type(x._step) is BasicIndex:  # (a view of a view)
            axes = compose(x._step, axes)
            x = x._base
    return x, axes


def _write_element(x, vnode, axes, pattern):
    """`setitem`'s write of one element (an integer for every axis, a 0-D value of x's dtype):
    the node slice_write binds for it, dynamic_update_slice(base, value, int64 host starts), into
    the base a chain of basic views composes to, bound at once (its rule holds: one start per
    axis of a nonempty base, the value 0-D of its dtype), unless it joins an element run
    (`_deferred_elements.element_run`). scikit-learn's `_add_to_diagonal` writes each diagonal
    element of a view so. `vnode` may be the (vector node, index) of an `Element` not bound yet:
    its nodes are bound here unless the run takes it (the element itself stays unbound: a later
    use binds its own nodes, of the same value)."""
    with _views.write_lock:
        x, axes = _write_target(x, axes, pattern)
        if element_run(x, vnode, axes):
            return
        if type(vnode) is tuple:
            vnode = element_nodes(*vnode)
        node = x._node
        args = [node, vnode]
        for a in axes:
            args.append(leaf_from_host(a.start, (), _INT64))  # (`ops.scalar(a.start, dt.int64)`)
        out = _bind(ops.DYNAMIC_UPDATE_SLICE, tuple(args), (), node.shape, node.dtype)
        x._rebind(out)
        bound_element_write(x, out, vnode, axes)


_INT64 = dt.int64
