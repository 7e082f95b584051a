"""Set functions of the standard: unique_all, unique_counts, unique_inverse, unique_values, isin.

The unique family has a data-dependent output length. One program sorts the flattened x
(stably, carrying the original positions), marks where a run of equal values starts, numbers the
runs with a cumulative sum, and counts them; only that count is read back (one scalar sync).
The results are then built lazily with the now concrete length, reusing the realized sort:
a scatter-min of positions gives each run's start, and gathers at the starts give the values
and the first-occurrence indices; counts are differences of consecutive starts. On one CPU
device the same sort (same keys, stable) and runs are computed in numpy from x's value, read
once, and the results are host values (`_Runs._host_runs`).

Equality is the standard's `==`: every NaN (and every complex value with a NaN component) is
its own value with a count of one, -0.0 and +0.0 are one value. Values come out in ascending
sort order (NaNs last).

isin stays lazy: x2 sorted once, then a binary search (searchsorted) per element of x1.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _dtypes as dt
from . import _engine
from . import _ops as ops
from ._array_object import Array
from ._graph import leaf_from_host
from ._helpers import _scalar, check_array, is_scalar
from ._ops.sort import host_order_key
from ._searching_functions import searchsorted
from ._sorting_functions import sort
from ._typing import ArrayOrScalar

E = ops.elementwise


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _starts_run(sorted_):
    """Whether each element of the sorted (nonempty) 1-D `sorted_` begins a run: the first, and
    every one IEEE-unequal to the element before it (the graph path's `!=` between neighbours)."""
    starts = np.empty(sorted_.size, bool)
    starts[0] = True
    np.not_equal(sorted_[1:], sorted_[:-1], out=starts[1:])
    return starts


class _Runs:
    """x flattened and sorted, cut into runs of equal values (nodes on x's device)."""
    host_results = True  # on the CPU, the sort and the results computed in numpy from x's value
                         # (`_host_runs`; tests turn it off to compare with the graph's path)

    def __init__(self, x, values_only=False):
        check_array(x)
        self.x, self.n = x, x.size
        self._starts = None
        if self.n == 0:
            self.count = 0
            return
        self._host = None
        device = x._device
        if self.host_results and device.platform == "cpu" and device.mesh is None:
            self._host_runs(x, device, values_only)
            return
        flat = ops.reshape(x._node, (self.n,))
        self.sorted, self.perm = ops.sort([flat, ops.iota((self.n,), 0, dt.int64)], 0)
        starts_run = ops.constant(True, dt.bool, (1,))
        if self.n > 1:
            later = ops.slice_(self.sorted, (1,), (self.n,))
            earlier = ops.slice_(self.sorted, (0,), (self.n - 1,))
            # NE is IEEE inequality: NaN != NaN (each NaN a run of its own), -0.0 == +0.0
            starts_run = ops.concatenate([starts_run, ops.compare(later, earlier, "NE")], 0)
        self.group = ops.SUBTRACT(ops.cumulative(ops.convert(starts_run, dt.int64), 0, "add"),
                       ops.constant(1, dt.int64))
        total = ops.slice_(self.group, (self.n - 1,), (self.n,))
        # one program: the sort and run numbers are realized with the count, not recomputed
        _engine.realize([total, self.sorted, self.perm, self.group], device, "unique")
        self.count = int(_engine.to_numpy(total, device, "unique")[0]) + 1

    def _host_runs(self, x, device, values_only=False):
        """On the CPU: x's value read once (its sync when pending; a realized x is counted as a
        host read of cause "unique", so a call is one sync either way), then the runs in numpy:
        the same stable sort by the same keys as the graph's (`_ops.sort`'s order keys for
        floats, real then imaginary part for complex; integers and bools as they are), the same
        IEEE `!=` between neighbours, the same run numbers; each result an exact move of
        elements. No graph is built or run for the sort (scikit-learn asks unique_values(y) at
        every fit and score: ~300 us of a graph's sync each, against ~20 us here).

        `values_only` (unique_values) of integers or bools: equal elements are indistinguishable,
        so any sort's values are the stable sort's; np.sort's (~3 us for 5000 int64, against
        ~45 us for the stable permutation), and no permutation or run numbers."""
        node = x._node
        if node.op is None:
            _engine._count_host_read("unique")
        flat = _engine.to_numpy(node, device, "unique").reshape(-1)
        d = x.dtype
        if values_only and d.kind in "iub":
            sorted_ = np.sort(flat)
            run_starts = _starts_run(sorted_).nonzero()[0]
            self.count = run_starts.size
            self._host = (sorted_, None, None, run_starts)
            return
        if d.kind == "f":
            keys = (host_order_key(flat, d, "high"),)
        elif d.kind == "c":
            part = dt.real_of(d)
            keys = (host_order_key(flat.real, part, "high"), host_order_key(flat.imag, part, "high"))
        else:
            keys = (flat,)
        perm = np.lexsort(keys[::-1]).astype(np.int64, copy=False)
        sorted_ = flat[perm]
        starts_run = _starts_run(sorted_)
        group = np.add.accumulate(starts_run, dtype=np.int64)
        group -= 1
        self.count = int(group[-1]) + 1
        self._host = (sorted_, perm, group, starts_run.nonzero()[0])

    def _wrap(self, node):
        return Array._wrap(node, self.x._device)

    def _wrap_host(self, value, dtype):
        """A result computed on the host: a leaf holding it (C-contiguous, owned)."""
        value = np.array(value, dtype=dtype.np, order="C")  # (ascontiguousarray makes 0-D 1-D)
        return self._wrap(leaf_from_host(value, value.shape, dtype))

    def starts(self):
        """Position in the sorted order where each run begins (shape (count,))."""
        if self._starts is None:
            self._starts = ops.scatter_points(ops.constant(self.n, dt.int64, (self.count,)),
                                              ops.reshape(self.group, (self.n, 1)),
                                              ops.iota((self.n,), 0, dt.int64), (0,), mode="min")
        return self._starts

    def _at_starts(self, node):
        return ops.gather_points(node, ops.reshape(self.starts(), (self.count, 1)), (0,))

    def values(self):
        if self.n == 0:
            return self._wrap(ops.constant(0, self.x.dtype, (0,)))
        if self._host is not None:
            sorted_, _, _, run_starts = self._host
            return self._wrap_host(sorted_[run_starts], self.x.dtype)
        return self._wrap(self._at_starts(self.sorted))

    def indices(self):
        """Flat index of each value's first occurrence: the sort is stable, so a run's first
        element carries the smallest original position."""
        if self.n == 0:
            return self._wrap(ops.constant(0, dt.int64, (0,)))
        if self._host is not None:
            _, perm, _, run_starts = self._host
            return self._wrap_host(perm[run_starts], dt.int64)
        return self._wrap(self._at_starts(self.perm))

    def counts(self):
        if self.n == 0:
            return self._wrap(ops.constant(0, dt.int64, (0,)))
        if self._host is not None:
            run_starts = self._host[3]
            return self._wrap_host(np.diff(np.append(run_starts, self.n)), dt.int64)
        ends = ops.concatenate([ops.slice_(self.starts(), (1,), (self.count,)),
                                ops.constant(self.n, dt.int64, (1,))], 0)
        return self._wrap(ops.SUBTRACT(ends, self.starts()))

    def inverse_indices(self):
        """Run number of each element of x, in x's shape: the run numbers scattered back to the
        original positions (perm is a permutation, so every slot is written once)."""
        if self.n == 0:
            return self._wrap(ops.constant(0, dt.int64, self.x.shape))
        if self._host is not None:
            _, perm, group, _ = self._host
            inv = np.empty(self.n, np.int64)
            inv[perm] = group
            return self._wrap_host(inv.reshape(self.x.shape), dt.int64)
        inv = ops.scatter_points(ops.constant(0, dt.int64, (self.n,)), ops.reshape(self.perm, (self.n, 1)),
                                 self.group, (0,))
        return self._wrap(ops.reshape(inv, self.x.shape))


def unique_all(x: Array, /) -> UniqueAllResult:
    r = _Runs(x)
    return UniqueAllResult(r.values(), r.indices(), r.inverse_indices(), r.counts())


def unique_counts(x: Array, /) -> UniqueCountsResult:
    r = _Runs(x)
    return UniqueCountsResult(r.values(), r.counts())


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    r = _Runs(x)
    return UniqueInverseResult(r.values(), r.inverse_indices())


def unique_values(x: Array, /) -> Array:
    return _Runs(x, values_only=True).values()


# ---------------------------------------------------------------- isin

def _isin_operands(x1, x2):
    """-> (node1, node2, device), both of one dtype; a Python scalar takes the other's dtype.
    None for node2 when x2 is an integer outside x1's dtype (it can match nothing)."""
    a1, a2 = isinstance(x1, Array), isinstance(x2, Array)
    if a1 and a2:
        if x1._device != x2._device:
            raise ValueError(f"isin: arrays on different devices ({x1._device} and {x2._device})")
        dtype = dt.result_type_pair(x1.dtype, x2.dtype)
        return ops.convert(x1._node, dtype), ops.convert(x2._node, dtype), x1._device
    if a1 and is_scalar(x2):
        return x1._node, _scalar_or_none(x2, x1.dtype), x1._device
    if a2 and is_scalar(x1):
        return _scalar_or_none(x1, x2.dtype), x2._node, x2._device
    bad = x2 if a1 else x1
    raise TypeError(f"isin: expected arrays or Python scalars (at least one array), got {type(bad).__name__}")


def _scalar_or_none(value, array_dtype):
    try:
        return _scalar(value, dt.scalar_dtype_for(value, array_dtype), "isin")
    except OverflowError:
        return None


def isin(x1: ArrayOrScalar, x2: ArrayOrScalar, /, *, invert: bool = False) -> Array:
    n1, n2, device = _isin_operands(x1, x2)
    shape = x1.shape if isinstance(x1, Array) else ()
    if n1 is None or n2 is None or 0 in shape or math.prod(n2.shape) == 0:
        found = ops.constant(False, dt.bool, shape)
    else:
        if n1.dtype is not n2.dtype:  # a scalar whose kind outranks the array's (float with int)
            common = dt.result_type_pair(n1.dtype, n2.dtype)
            n1, n2 = ops.convert(n1, common), ops.convert(n2, common)
        m = math.prod(n2.shape)
        if n1.dtype.kind == "c":  # no order for searchsorted: compare every pair
            k = math.prod(shape)
            a = ops.broadcast_in_dim(ops.reshape(n1, (k,)), (k, m), (0,))
            b = ops.broadcast_in_dim(ops.reshape(n2, (m,)), (k, m), (1,))
            hit = ops.reduce(ops.compare(a, b, "EQ"), (1,), "or")
            found = ops.reshape(hit, shape)
        else:
            table = sort(Array._wrap(ops.reshape(n2, (m,)), device))
            pos = searchsorted(table, Array._wrap(n1, device))._node
            clamped = ops.MINIMUM(pos, ops.constant(m - 1, dt.int64))
            probe = ops.gather_points(table._node, ops.reshape(clamped, shape + (1,)), (0,))
            found = ops.compare(probe, n1, "EQ")  # NaN finds nothing: NaN != NaN
    if invert:
        found = ops.NOT(found)
    return Array._wrap(found, device)
