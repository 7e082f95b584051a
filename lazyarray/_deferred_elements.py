"""Elements read and written one at a time, bound later: two forms of the deferred-binding
protocol (`_array_object.Deferred`).

`Element`: x[i] of a pending vector (`_indexing._element` makes it), its two nodes bound at its
first use. `Running`: a plain array an open element run writes into. scikit-learn's
`_add_to_diagonal` (`value = diagonal(a) + v; for i in ...: a[i, i] = value[i]`, ~670 reads and
writes a GaussianMixture(full) call) would bind three nodes a write (a dynamic_update_slice of a
dynamic_slice and its reshape); here consecutive element writes of one vector's elements (or of
one 0-D value) into one array are rows of an open run, bound as one 'set' scatter at the array's
next use, and the element reads they write are never bound. One run is open at a time; it is
written with `_views.write_lock` held and dropped when its array dies.
"""
from __future__ import annotations

from weakref import ref as _weakref

import numpy as np

from . import _dtypes as dt
from . import _ops as ops
from . import _views
from ._array_object import _NODE_SLOT, Array, Deferred
from ._graph import bind, leaf_from_host

_INT64 = dt.int64
_RESHAPE = ops.RESHAPE
_DYNAMIC_SLICE = ops.DYNAMIC_SLICE
_SCATTER = ops.SCATTER
_WINDOW_OF_ONE = ops.DYNAMIC_SLICE.Attrs((1,))
_TO_0D = ops.RESHAPE.Attrs(())


# ---------------------------------------------------------------- x[i], bound at its first use
class Element(Deferred):
    """x[i] of a pending 1-D x (more than one element), its nodes not bound yet: the slot holds
    (x's node then, i) until its first use binds `element_nodes` (x's node is never changed, so
    the value is the node `_element` would have bound at once). `_indexing.setitem` takes the
    element from the slot without binding it (`element_run`), ~1.5 us of a read's ~2 us saved.
    Shape and dtype answer without binding. (Two threads binding at once each bind; either
    node is x's value.)"""
    __slots__ = ()

    def _bind(self):
        held = _NODE_SLOT.__get__(self)
        if type(held) is not tuple:  # (bound by another thread meanwhile)
            return held
        return self._settle(element_nodes(*held))

    @property
    def dtype(self):
        held = _NODE_SLOT.__get__(self)
        return held[0].dtype if type(held) is tuple else held.dtype

    @property
    def shape(self):
        return ()

    @property
    def ndim(self):
        return 0

    @property
    def size(self):
        return 1


def element_nodes(node, i):
    """slice_read's two nodes for x[i] of a 1-D node and a Python int 0 <= i < n, n > 1, bound at
    once: dynamic_slice(node, [start], (1,)) of an int64 host start, then its reshape to ()
    (`ops.dynamic_slice`, `ops.reshape`: the same ops, attributes, shapes and dtype; their rules
    hold for such a node and i)."""
    start = leaf_from_host(i, (), _INT64)
    window = bind(_DYNAMIC_SLICE, (node, start), _WINDOW_OF_ONE, (1,), node.dtype)
    return bind(_RESHAPE, (window,), _TO_0D, (), node.dtype)


# ---------------------------------------------------------------- element runs
RUN_MAX = 64  # writes a run's scatter takes at most


class _Run:
    """An open element run: its array (weakly; the node the run writes into is in its slot), the
    vector (None for a run of one 0-D value: `value`), a (RUN_MAX, rank) buffer whose first k rows
    are the writes' rows, the vector's positions or None for 0, 1, ..., k-1. Dropped when its
    array dies (`_drop_run`): nothing it holds outlives the array."""
    __slots__ = ("target", "vec", "value", "buf", "k", "srcs")


def _drop_run(ref):
    run = _open_run[0]
    if run is not None and run.target is ref:
        _open_run[0] = None


_open_run = [None]  # the open run (x is `Running` exactly while the open run's target is x)
# The last element write bound as a dynamic_update_slice into a plain array (the element-by-
# element path): (weak references to that node and to the value node, the axes), for
# `_value_run`; set with the write lock held.
_last_value = [None]


def bound_element_write(x, out, vnode, axes):
    """The element write of `vnode` at `axes` that `element_run` did not take was bound as
    x's node `out` (a dynamic_update_slice): into a plain array, a second write of this value
    next may start a run (`_value_run`)."""
    if type(x) is Array:
        _last_value[0] = (_weakref(out), _weakref(vnode), axes)


class Running(Deferred):
    """A plain array an open element run writes into: its slot keeps the node the run writes into
    until its first use binds the run's scatter (`close_run`). The run's writes change neither
    shape nor dtype, which answer without binding; a sync that finds it pending computes the
    run's base (`_pending_node`), which the scatter then reads, and the run stays open."""
    __slots__ = ()

    def _bind(self):
        """x's node: its run's scatter, bound now (`close_run`)."""
        with _views.write_lock:
            node = _NODE_SLOT.__get__(self)
            if type(self) is not Running:  # (closed meanwhile by another thread)
                return node
            run = _open_run[0]
            if run is not None and run.target() is self:
                _open_run[0] = None
                node = _run_node(run)
            return self._settle(node)

    def _pending_node(self):
        return _NODE_SLOT.__get__(self)


close_run = Running._bind  # (x is Running: its run closed, x plain on the node that binds)


def _run_node(run):
    """scatter(base, rows, vec's elements at the run's positions) in 'set' mode over every axis:
    the run's writes in order, as one node (the nodes `ops.slice_` / `ops.gather_points` and
    `ops.scatter_points` bind, bound at once: their rules hold by construction, and the
    verifier checks them again at the sync)."""
    base, vec, k, srcs = _NODE_SLOT.__get__(run.target()), run.vec, run.k, run.srcs
    dtype = base.dtype
    if vec is None:  # (one 0-D value written k times: its broadcast, `ops.broadcast_to`'s node)
        upd = bind(ops.BROADCAST_IN_DIM, (run.value,), ops.broadcast_attrs((k,), ()), (k,), dtype)
    elif srcs is None:  # positions 0, 1, ..., k-1: a prefix of vec (vec itself when it is all)
        upd = vec if k == vec.shape[0] else bind(ops.SLICE, (vec,), ops.memo(_prefixes, (k,), _prefix_attrs), (k,), dtype)
    else:
        positions = leaf_from_host(np.array(srcs, np.int64).reshape(k, 1), (k, 1), _INT64)
        upd = bind(ops.GATHER, (vec, positions), _FIRST_AXIS, (k,), dtype)
    nd = len(base.shape)
    idx = leaf_from_host(run.buf[:k], (k, nd), _INT64)
    return bind(_SCATTER, (base, idx, upd), ops.memo(_set_alls, (nd,), _set_all_attrs), base.shape, dtype)


def element_run(x, vnode, axes):
    """Record the element write of `vnode` (a 0-D node) at `axes` (one element of every axis)
    into the array x (a write target: plain, or already `Running`) in an element run, when
    vnode is element j of a 1-D vector `vec` of x's dtype as `_indexing._element` reads it
    (reshape to () of dynamic_slice(vec, [j]) of size 1, j a Python int in range, a host leaf; or
    vnode is (vec, j) itself, the slot of an `Element` not bound yet); True then, None for any
    other write (the caller binds its dynamic_update_slice) and for x of another class
    (numpy-aliased, borrowed). Consecutive writes of one vector's elements into one array join
    one run, bound as one scatter at the array's next use (`close_run`), at most RUN_MAX writes;
    a write of another vector, or into another array, closes the open run first.

    The same value as the writes one by one: each element write is a dynamic_update_slice of
    one element at in-range starts, and a 'set' scatter applies its updates in order, the last
    winning (`_ops.gather`); its gather reads in-range positions, so nothing clamps or is
    dropped. Nothing is bound while the run lasts (the element reads included, when not bound
    yet): a sync walks and runs one node for the run instead of three a write, and recording a
    write is a row of the run's buffer."""
    if type(vnode) is tuple:  # (an `Element` not bound yet: its vector's node and index)
        vec, j = vnode
    else:
        vec = None
        if vnode.op is _RESHAPE and vnode.attrs is _TO_0D:
            ds = vnode.args[0]
            if ds.op is _DYNAMIC_SLICE and ds.attrs is _WINDOW_OF_ONE:
                start = ds.args[1]
                j = start.host
                if type(j) is int and start.op is None:
                    vec = ds.args[0]
    tx = type(x)
    if tx is not Array and tx is not Running:
        return None
    if vec is None:
        return _value_run(x, tx, vnode, axes)
    if len(vec.shape) != 1 or vec.dtype is not _NODE_SLOT.__get__(x).dtype:
        return None
    n = vec.shape[0]
    if not 0 <= j < n:
        return None
    if tx is Running:
        run = _open_run[0]
        if run is not None and run.vec is vec and run.k < RUN_MAX and run.target() is x:  # (x's run goes on)
            k = run.k = run.k + 1
            srcs = run.srcs
            if srcs is not None:
                run.srcs = srcs + (j,)
            elif j != k - 1:
                run.srcs = tuple(range(k - 1)) + (j,)
            row = run.buf[k - 1]
            for d, a in enumerate(axes):
                row[d] = a.start
            return True
        close_run(x)  # (another vector, or a full run: a run of its own, on the one bound now)
    _open(x, _NODE_SLOT.__get__(x), vec, None, (axes,), None if j == 0 else (j,))
    return True


def _open(x, base, vec, value, rows, srcs):
    """Open a run on the plain array x (any other open run closed first) writing into `base`
    (x's node, or the operand of its last write, which the run then replays): its first writes'
    axes `rows`."""
    run = _open_run[0]
    if run is not None:  # (one run open at a time)
        target = run.target()
        if target is not None:
            close_run(target)
        _open_run[0] = None
    run = _Run()
    run.target = _weakref(x, _drop_run)
    _NODE_SLOT.__set__(x, base)
    run.vec = vec
    run.value = value
    run.buf = buf = np.empty((RUN_MAX, len(base.shape)), np.int64)
    run.k = len(rows)
    run.srcs = srcs
    for i, axes in enumerate(rows):
        row = buf[i]
        for d, a in enumerate(axes):
            row[d] = a.start
    _open_run[0] = run
    x.__class__ = Running


def _value_run(x, tx, value, axes):
    """`element_run` for a 0-D `value` that is not a vector's element (`_fill_diagonal`'s
    `a[i, i] = value` of one 0-D array, a pairwise distance matrix's zeros): the write joins x's
    run of this value; or, when it is the second write of this value in a row into x (the first
    bound as x's dynamic_update_slice: `_last_value`), it opens a run of the two on that update's
    operand (a write of a value once stays one dynamic_update_slice). The run's scatter takes the
    value's broadcast to the run's length. True when it did, else None."""
    if tx is Running:
        run = _open_run[0]
        if run is not None and run.value is value and run.k < RUN_MAX and run.target() is x:
            k = run.k = run.k + 1
            row = run.buf[k - 1]
            for d, a in enumerate(axes):
                row[d] = a.start
            return True
        return None
    last = _last_value[0]
    if last is None or last[1]() is not value:
        return None
    node = _NODE_SLOT.__get__(x)
    if last[0]() is not node:
        return None
    _last_value[0] = None
    _open(x, node.args[0], None, value, (last[2], axes), None)
    return True


def _prefix_attrs(k):
    return ops.SLICE.Attrs((0,), (k,), (1,))


def _set_all_attrs(nd):
    return _SCATTER.Attrs(tuple(range(nd)), "set")


_prefixes = {}  # (k,) -> the attributes of slice(vec, [0], [k]) (`core.memo`; k <= RUN_MAX)
_set_alls = {}  # (rank,) -> the attributes of a 'set' scatter over every axis (`core.memo`)
_FIRST_AXIS = ops.GATHER.Attrs((0,))
