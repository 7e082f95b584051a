"""Checked mode: out-of-bounds index arrays and failed factorisations raise at the read.

Why a mode: an index array's values, or whether a matrix is singular, are known only once the
graph runs. By default nothing is checked and the compiled program's behaviour stands (XLA's
gather clamps an out-of-range index into range, its scatter drops an out-of-range update, a
singular LU or a failed Cholesky yields inf/NaN). With `LAZYARRAY_CHECKS=1` or
`lazyarray.config.checks = True`, numpy's errors come back, raised at the read:

- record side: the functions that take index arrays or factorise (`_advanced_indexing`,
  `_indexing_functions`, `linalg`) test `_config.checks` and, when on, call `record` with a small
  bool node that is all True when the operation was valid, the node whose value is wrong
  otherwise (the guard), the error class and the user's file:line of the call;
- sync side (two hooks, in `_run_program` and `_tier_policy`): `outputs_for` adds, to a program
  that computes a guard of a pending check, ONE extra output: the checks' bools concatenated in
  registration order (keyed structurally like any node, so a loop's program stays one program);
  `verify` reads that vector before any output is realized and raises the first failed check's
  error. Nothing has
  been realized then, so the pending graph is as it was: reading the same array again raises
  again. Checks that pass are dropped; a check whose guard was freed without ever being
  computed is dropped at the next sync.

The cost with checks off is the flag test at record time and, at a sync, an empty-list test.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import _dtypes as dt
from ._bounded import keep
from . import _ops as ops
from ._engine_state import state
from ._metrics import format_site, user_site


class LinAlgError(np.linalg.LinAlgError):
    """A factorisation failed (singular matrix, matrix not positive definite): numpy's
    LinAlgError, raised by checked mode at the read."""


class _Check:
    __slots__ = ("guard", "ok", "error", "what", "site")

    def __init__(self, guard, ok, error, what, site):
        self.guard = weakref.ref(guard)  # the node whose value is wrong when ok is False
        self.ok = ok                     # bool node of shape (1,)
        self.error = error
        self.what = what                 # says what was checked
        self.site = site                 # the user's (file, line) of the call

    def exception(self, others):
        more = f" ({others} more check(s) of the same program failed too)" if others else ""
        return self.error(f"{format_site(self.site)}: {self.what}{more}")


# The module's state lives in the engine state (`_engine_state`), which resets it in place:
pending = state.checks          # _Check, in registration order (the engine tests it at every sync)
_batches = state.check_batches  # check vector node -> the _Checks it concatenates
_lengths = state.check_lengths  # n -> its uint64 constant node: building one costs more than the rest of a check
_lock = state.checks_lock


def record(guard, ok, error, what):
    """Register a check: `ok` (a bool node of any shape) must be all True, or reading anything
    computed from `guard` raises `error(what + the user's file:line)`."""
    if 0 in ok.shape:
        return
    if ok.shape:
        ok = ops.reduce(ok, tuple(range(len(ok.shape))), "and")
    check = _Check(guard, ops.reshape(ok, (1,)), error, what, user_site())
    with _lock:
        pending.append(check)


# ---------------------------------------------------------------- what the callers check

def index_in_bounds(guard, wrapped, n, what):
    """An index array, already wrapped (n added to negative entries, as int64), must lie in
    [0, n): the original entries in [-n, n). Seen as uint64 a negative entry is huge, so one
    max and one comparison decide (uint64 indices >= 2**63 turn negative in int64 and fail too)."""
    if 0 in wrapped.shape:
        return
    as_unsigned = ops.convert(wrapped, dt.uint64)
    largest = ops.reduce(as_unsigned, tuple(range(len(wrapped.shape))), "max")
    record(guard, ops.compare(largest, _length(n), "LT"),
           IndexError, f"index out of bounds: {what} holds a value outside [-{n}, {n})")


def _length(n):
    """The structural constant n (uint64), shared by every check of an axis of that length (a
    constant node is never realized, so graphs can share it)."""
    node = _lengths.get(n)
    if node is None:
        node = keep(_lengths, n, ops.constant(n, dt.uint64), 256)
    return node


def nonzero_pivots(guard, diag, what):
    """LAPACK's getrf reports a singular matrix (info > 0) exactly when a diagonal entry of U is
    zero: numpy's inv and solve raise LinAlgError("Singular matrix") then."""
    zero = ops.broadcast_in_dim(ops.constant(0, diag.dtype), diag.shape, ())
    record(guard, ops.compare(diag, zero, "NE"), LinAlgError, f"Singular matrix: {what}")


def cholesky_succeeded(guard, factor, a, what):
    """potrf's info is hidden by jax's lowering, which instead fills a failed factor (info != 0:
    a pivot <= 0) with NaN, so L[0, 0] is NaN. A successful one has L[0, 0] = sqrt(a[0, 0]),
    NaN only when a[0, 0] is (then LAPACK propagates NaN without failing, and numpy does not
    raise either). So: info != 0 exactly when L[0, 0] is NaN and a[0, 0] is not."""
    def corner(m):
        nb = len(m.shape) - 2
        return ops.slice_(m, (0,) * (nb + 2), m.shape[:-2] + (1, 1))
    l00, a00 = corner(factor), corner(a)
    ok = ops.OR(ops.compare(l00, l00, "EQ"), ops.compare(a00, a00, "NE"))
    record(guard, ok, LinAlgError, f"Matrix is not positive definite: {what}")


# ---------------------------------------------------------------- engine hooks

def outputs_for(plan, outputs):
    """`outputs`, plus one bool vector of the pending checks whose guard this plan computes (its
    walk extended to the check's nodes). Unchanged when none belongs to the plan."""
    index = plan.index
    mine, dead = [], False
    for check in list(pending):
        guard = check.guard()
        if guard is None or guard.op is None:
            dead = True  # freed before anything computed it, or computed without us: nothing to say
        elif guard in index:  # (keyed by node: _graph.Plan)
            mine.append(check)
    if dead:
        _drop_dead()
    if not mine:
        return outputs
    vector = ops.concatenate([c.ok for c in mine], 0)
    if len(mine) == 1:  # concatenate of one is the node itself: never hand out a check's own node
        vector = ops.reshape(vector, (1,))
    _batches[vector] = mine
    plan.add([vector])
    return list(outputs) + [vector]


def verify(outputs, values):
    """Raise the first failed check's error if the last output is a check vector whose value (a
    numpy array or a device buffer) holds a False; forget the checks when all passed."""
    mine = _batches.pop(outputs[-1], None) if outputs else None
    if mine is None:
        return
    value = values[-1]
    if not isinstance(value, np.ndarray):
        from ._runtime import to_numpy
        value = to_numpy(value)
    failed = [c for c, ok in zip(mine, np.asarray(value).reshape(-1)) if not ok]
    if failed:
        raise failed[0].exception(len(failed) - 1)
    done = {id(c) for c in mine}
    with _lock:
        pending[:] = [c for c in pending if id(c) not in done]


def _drop_dead():
    with _lock:
        pending[:] = [c for c in pending if (g := c.guard()) is not None and g.op is not None]


def clear():
    """Forget every pending check (tests)."""
    with _lock:
        pending.clear()
