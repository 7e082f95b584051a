"""Small reads on the host: a sync whose pending graph is a few exact ops on a few elements
(`bool(t[i] <= x)`, array-api-compat's `is_lazy_array` probe `bool(any(reshape(y, -1)[0]))`)
is evaluated here, op by op with the interpreter tier's numpy evaluations (`OpDef.evaluate`),
without the structural key, sightings, plan or program that exist to decide and run a compile.

Why: XLA's execute alone costs ~10 us, the engine's path to it ~30-50 us more; numpy on a 0-D
value costs ~1 us an op. Such graphs never pay for compiling, so they never compile.

Element reads do not destroy fusion: a read of a few elements of a large pending array (the
probe reads element 0 of `y = a * 2 + 1`) pushes the index down through elementwise, shape and
slicing ops to the leaves, computes those elements only, and leaves `y` pending, so its later
program still fuses it. A read of one element (`bool()`, `float()`, the probe) pushes its index
down from the target itself: one-element nodes on the way are evaluated at their one index, as
numpy scalars, never as arrays. A node of several elements is computed whole only when it is
small (`SMALL` elements), or under an exact reduce to a small result (`REDUCED` elements: SciPy's
NaN test `isnan(max(x))` reads no element alone). A small window (slice, dynamic slice, gather)
of a large leaf held on the host is computed whole from the leaf's value (SciPy's `Z[:, :2]` of a
linkage matrix): numpy's slice costs what the window holds. Live pending arrays on nodes computed on the way (whole, or one-element
ones pushed through) are realized with the targets (as a sync does), so a loop that reads a
small state each step does not grow its graph.

Which ops: those whose host evaluation the interpreter tests check bit for bit against XLA's CPU
program (tests/test_interpret*.py with 0 ulps): arithmetic, bitwise, compare, select, convert,
shape ops, slices, gathers, scatters that set (masked and indexed writes), and reductions whose
order cannot change a value (max, min, and, or, integer sums and products). Not here: transcendental functions, float sums and dot products
(summation order), complex products. The tiers' documented differences stay what they were for
the interpreter tier: subnormal results (XLA CPU flushes them) and a * b + c (XLA may contract
it into an FMA; here it is rounded op by op, as numpy).

Anything else (a bigger graph, another op, checked mode, debug, a mesh, an accelerator, or
`LAZYARRAY_INTERPRET_FIRST=0`, which asks for compiled programs) takes the engine's usual path.

The probe's element is computed even earlier, when it is indexed (`element_now`): `x[i]` of a
large pending array whose element is a few exact ops on leaves becomes a 0-D host value at once
(x stays pending), so `any` and `bool` after it read a host value with no graph at all. Scalar
ops on two numpy scalars of one real dtype run by numpy's scalar math (`scalar_evaluate`: the
same operation as the ufunc, without its ~0.7 us dispatch).
"""
from __future__ import annotations

import operator
import weakref

import numpy as np

from . import _checks, _config, _verify
from ._bounded import keep
from . import _dtypes as dt
from ._interpret import FIXED_OPS, fixed_value, leaf_value, numpy_errors_loud, numpy_errors_quiet
from . import _ops as ops
from ._graph import Node, lock as _lock, pending
from ._metrics import metrics
from ._ops.core import node_value
from ._ops.reduce import REDUCE

_ndarray = np.ndarray
SMALL = 64       # elements: a node this small is computed whole
# elements: under an exact reduce of a small result (`_Evaluator.whole`), a node up to this size is
# computed whole (numpy's max of 4096 float64 ~2 us; the engine's path to the interpreter ~50 us)
REDUCED = 4096
# computed nodes evaluated per read: numpy costs ~1-2 us an op on small values, a compiled
# program's sync ~40-50 us whatever its size, so past ~24 ops a graph that repeats is cheaper
# compiled (the engine's path interprets it first, then compiles it once that pays)
MAX_OPS = 24


class _Fallback(Exception):
    """The graph is not one for this path: the engine's usual path runs it."""


def _exact_reduce(node):
    kind = node.attrs.kind
    return node.dtype.kind != "c" and (kind in ("max", "min", "and", "or") or node.dtype.kind in "biu")


def _set_scatter(node):
    """A scatter that sets (a masked or indexed write: the last of repeated places wins, as in
    XLA's CPU program), not one that adds: a float sum's order is the program's."""
    return node.attrs.mode == "set"


def _real_operands(node):
    for a in node.args:  # (a loop: a generator costs ~0.5 us more, at every op of every read)
        if a.dtype.kind == "c":
            return False
    return True


_E = ops
# op -> a further condition on the node (None: none), beyond `OpDef.interpretable`. Arithmetic on
# complex values is left out (a complex product or quotient rounds differently in XLA's formula,
# even where the interpreter covers it): only its exact parts (add, subtract, negate, parts,
# compare for equality, select, convert) are here for complex operands.
_REAL_ONLY = (_E.MULTIPLY, _E.DIVIDE, _E.REMAINDER, _E.MAXIMUM, _E.MINIMUM, _E.ABS, _E.SIGN, _E.FLOOR,
              _E.CEIL, _E.ROUND_EVEN, _E.ROUND_AFZ, _E.IS_FINITE, _E.AND, _E.OR, _E.XOR, _E.NOT,
              _E.SHIFT_LEFT, _E.SHIFT_RIGHT_ARITHMETIC, _E.SHIFT_RIGHT_LOGICAL, _E.INTEGER_POWER)
_ANY_DTYPE = (_E.ADD, _E.SUBTRACT, _E.NEGATE, _E.COMPARE, _E.SELECT, _E.CONVERT, _E.BITCAST,
              _E.REAL, _E.IMAG, _E.COMPLEX, _E.CONSTANT, _E.IOTA, _E.BROADCAST_IN_DIM, _E.RESHAPE,
              _E.TRANSPOSE, _E.SLICE, _E.DYNAMIC_SLICE, _E.DYNAMIC_UPDATE_SLICE, _E.CONCATENATE,
              _E.PAD, _E.REVERSE, _E.GATHER)
EXACT = {**{op: _real_operands for op in _REAL_ONLY}, **{op: None for op in _ANY_DTYPE},
         REDUCE: _exact_reduce, _E.SCATTER: _set_scatter}
# ops computed per element: every operand of the node's shape is read at the same index
_ELEMENTWISE = {op for op in EXACT if isinstance(op, ops.Elementwise)} | {ops.SELECT}
# the elementwise ops of `run_leaf_op`: op -> its condition in EXACT
_LEAF_OPS = {op: EXACT[op] for op in _ELEMENTWISE}
# ops whose evaluation never sets a floating-point flag (numpy's comparisons are quiet on NaN):
# evaluated without switching numpy's warnings off
_SILENT = frozenset({ops.COMPARE, ops.SELECT, ops.AND, ops.OR, ops.XOR, ops.NOT})
# ops this path takes with no further test: no condition in EXACT and an evaluation that covers
# every node (`OpDef.interpretable` is then just "has an evaluation"), so the per-node check is
# one set membership
_PLAIN = frozenset(op for op, cond in EXACT.items()
                   if cond is None and op.covers is None and op.evaluate is not None)


def _takes(node):
    """Whether this path computes `node` exactly: its op is in EXACT, EXACT's further condition
    holds, and an evaluation covers the node (`OpDef.interpretable`). (The ops of `_PLAIN` pass
    by construction: callers on the per-node path test that set first. `run_leaf_op` keeps an
    inline twin over `_LEAF_OPS`: it is the whole of the hottest read; so do `_at`, the
    element read when indexed, and `_Evaluator.whole`, at every node of a small read.)"""
    op = node.op
    cond = EXACT.get(op, False)
    return cond is not False and (cond is None or cond(node)) and op.interpretable(node)


def usable(device) -> bool:
    """Whether a sync on `device` may take this path now."""
    return (device.platform == "cpu" and device.mesh is None and _config.interpret_first
            and not _checks.pending and not _config.debug)


def run(targets):
    """Compute `targets` here and realize them (with the live pending arrays computed whole on the
    way). False, having realized nothing, when the graph is not one for this path."""
    for t in targets:  # (a large output: not a small read; decided before any set-up)
        if _size(t) > SMALL:
            return False
    first = targets[0]
    op = first.op
    if op is not None and _size(first):
        # the first op `_Evaluator.whole` checks, before it evaluates anything: an op this path
        # does not take (a float sum: the commonest read of a larger graph) fails the read here,
        # without the evaluator's set-up (a nonempty node is checked whole or at an index; an
        # empty one may be computed with no check)
        if not _takes(first):
            return False
        if op is _IS_FINITE and len(targets) == 1 and not first.shape:
            v = finite_sum(first)
            if v is not None:
                return _finite_sum_read(first, v)
    ev = _Evaluator(_config.verify)
    quiet = numpy_errors_quiet()  # (numpy's floating-point warnings off, as in the interpreter tier)
    try:
        if len(targets) > 1:
            values = [ev.whole(t) for t in targets]
        elif op in _PUSHABLE and _size(first) == 1:
            # one element (a scalar read: the probe's `bool(any(reshape(y, -1)[0]))`): its index
            # pushed down from the target itself, no node computed whole on the way (`_pushed`)
            values = [np.array(ev._pushed(first, (0,) * len(first.shape)), dtype=first.dtype.np,
                               ndmin=len(first.shape))]
        else:
            values = [ev.whole(first)]
    except Exception:  # noqa: BLE001 - not one for this path, or an error the usual path reports
        return False
    finally:
        numpy_errors_loud(quiet)
    if ev.seen is not None:  # the graph verifier: before anything is realized
        _verify.verify(ev.order, ev.leaves)
    # (the live pending arrays are found through the targets' component, before it is dropped)
    ones = ev.ones
    if ev.computed + len(ones) <= len(targets):
        beside = ()
    elif len(targets) == 1:
        beside = pending.pending_beside(first)
    else:
        beside = [h._pending_node() for h in pending.live_with(targets)]
    for node, value in zip(targets, values):
        node.realize_host(_owned(value, node))
    # other nodes computed whole, or one-element nodes pushed through: the live pending arrays on
    # them are realized (a loop that reads a small state each step does not grow its graph)
    whole = ev.memo
    for node in beside:
        if node.op is None:  # (a target, or a node two handles share: realized already)
            continue
        v = whole.get(node)
        if v is not None:
            node.realize_host(_owned(v, node))
            continue
        v = ones.get(node)
        if v is not None:
            node.realize_host(np.array(v, dtype=node.dtype.np, ndmin=len(node.shape)))
    metrics.host_syncs += 1
    metrics.host_sync_ops += ev.ops
    return True


# `bool(isfinite(sum(x)))` of a leaf x (scikit-learn's `_assert_all_finite`, at every fit,
# predict and score): whether a float sum is finite does not depend on its summation order when
# no partial sum can overflow, nor when x holds a NaN or an infinity, so numpy's answer is
# XLA's. dtype -> the largest sum|x| taken as "cannot overflow": half the dtype's largest
# value (each partial sum of n <= _FINITE_SUM_N terms is at most sum|x| * (1 + u)^n < 2 sum|x|,
# u the unit roundoff; any accumulation type at least as wide rounds within the same bound).
_FINITE_SUM_BOUND = {dt.float32: float(np.finfo(np.float32).max) / 2,
                     dt.float64: float(np.finfo(np.float64).max) / 2}
_FINITE_SUM_N = 1 << 20
_IS_FINITE = ops.IS_FINITE


def finite_sum(node):
    """The value of `node`, an is_finite of a float add-reduction of a leaf over all its axes,
    when it does not depend on the summation order (np.True_ or np.False_), else None."""
    r = node.args[0]
    if r.op is not REDUCE or r.attrs.kind != "add" or r.shape:
        return None
    x = r.args[0]
    bound = _FINITE_SUM_BOUND.get(x.dtype)
    if x.op is not None or bound is None or r.dtype is not x.dtype:
        return None
    n = _size(x)
    if n == 0:
        return np.True_  # (the empty sum is 0)
    if n > _FINITE_SUM_N:
        return None
    try:
        v = _leaf(x)
    except Exception:  # noqa: BLE001 - the usual path reads it and reports
        return None
    # max|x| as max(max x, -min x): two passes and no temporary, where np.abs(v).max() wrote a
    # copy of x (5000x50 float64: ~60 against ~175 us; a Pipeline's fit+score reads 7 such);
    # numpy's max and min propagate NaN, and Python's max would drop a NaN second argument
    hi, lo = float(v.max()), float(v.min())
    m = hi if hi != hi or hi >= -lo else -lo  # (NaN when x holds one, inf when an infinity)
    if m != m or m == float("inf"):
        return np.False_  # NaN, or an infinity: the sum is NaN or infinite in every order
    if m * n <= bound:
        return np.True_
    return None  # a partial sum might overflow: the order decides; the usual path computes it


def _finite_sum_read(node, v):
    """`finite_sum`'s read done: `node` holds `v` (a 0-D array of its own); its reduction is left
    as it is (pending where a live array holds it: computed by its own later read)."""
    if _config.verify:  # the graph verifier: before the node is realized
        _verify.verify([node.args[0], node], node.args[0].args)
    node.realize_host(np.array(v, dtype=np.bool_))
    metrics.host_syncs += 1
    metrics.host_sync_ops += 2
    return True


def run_leaf_op(node):
    """The commonest small read, `bool(t[i] <= x)`: one exact elementwise op whose operands are
    all leaves, computed and realized here without the evaluator's set-up (each step of `run`
    costs a microsecond or so, as much as the op). Returns the node's value (a 0-D or small
    array, now its host value), or None, having done nothing, when the node is not one for this
    path (the caller then takes `run`'s). A 0-D node's value is the numpy scalar of its dtype
    (its host value: leaves of `x[i]` hold theirs so too, and every reader of a host value takes
    a numpy scalar), not a 0-D array: ~0.3 us less per read."""
    op = node.op
    shape = node.shape
    if not shape and (op in _SCALAR_MATH or op is _COMPARE_OP):
        v = _scalar_leaf_op(node, op)
        if v is not None:
            return v
    cond = _LEAF_OPS.get(op, False)
    if cond is False or (cond is not None and not cond(node)) or not op.interpretable(node):
        return None
    values = []
    if shape:
        n = 1
        for s in shape:
            n *= s
        if n > SMALL:
            return None
        for a in node.args:
            if a.op is not None:
                return None
            values.append(_leaf(a))
    else:  # each operand as the numpy scalar of its dtype (`scalar_evaluate`)
        for a in node.args:
            if a.op is not None:
                return None
            v = a.host
            t = type(v)
            if t is a.dtype.np.type:  # (`t[i]`'s element: as it is)
                values.append(v)
            elif t is np.ndarray and v.dtype is a.dtype.np and not v.shape:
                values.append(v[()])
            elif t in _PY_SCALARS:
                values.append(_scalar_of(a, v))
            else:
                values.append(_leaf(a))
    try:
        if op in _SILENT:
            r = scalar_evaluate(op, node, values)
        else:
            quiet = numpy_errors_quiet()
            try:
                r = scalar_evaluate(op, node, values)
            finally:
                numpy_errors_loud(quiet)
    except Exception:  # noqa: BLE001 - the usual path reports it, at this same call
        return None
    npdt = node.dtype.np
    if not shape and type(r) is npdt.type:
        v = r  # (a 0-D value: the numpy scalar itself, as the host value of `x[i]`'s leaf)
    else:
        v = np.array(r, dtype=npdt)  # (a copy: the node's own C-contiguous memory)
        if v.shape != shape:
            node_value(v, node)  # (raises: an evaluation that disagrees with its op's rule)
    return _realized(node, v)


def _realized(node, v):
    """The leaf op's read is done: `node` (checked by the graph verifier when it is on) holds the
    host value `v`, counted as a small host read of one op. Returns `v`."""
    if _config.verify:  # the graph verifier: before the node is realized
        _verify.verify([node], node.args)
    node.realize_host(v)
    metrics.host_syncs += 1
    metrics.host_sync_ops += 1
    return v


_PY_SCALARS = frozenset({float, int, bool, complex})

# Exact binary ops on two numpy scalars of one real dtype, by numpy's scalar math (Python's
# operator on the numpy scalars: the same IEEE operation in the same type as the ufunc, whose
# dispatch costs ~0.7 us of a scalar op's ~0.8; a result of the same type). Integers wrap as the
# ufunc does (numpy's overflow warning is off wherever these run: `numpy_errors_quiet`; compare
# and select never set it). Float16 is left to the ufunc (its scalar math goes through float32).
# Checked against `OpDef.evaluate` bit for bit: tests/test_scalar_read_paths.py.
_SCALAR_MATH = {ops.ADD: operator.add, ops.SUBTRACT: operator.sub, ops.MULTIPLY: operator.mul}
_SCALAR_COMPARE = {"EQ": operator.eq, "NE": operator.ne, "LT": operator.lt, "LE": operator.le,
                   "GT": operator.gt, "GE": operator.ge}
_COMPARE_OP = ops.COMPARE
_SCALAR_TYPES = frozenset({np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                           np.uint8, np.uint16, np.uint32, np.uint64})


def _scalar_leaf_op(node, op):
    """`run_leaf_op` for its commonest node, `bool(t[i] <= x)`'s: a 0-D add, subtract, multiply
    or compare (`op`) of two leaves holding numpy scalars (or 0-D arrays, or Python scalars) of
    one real dtype of `_SCALAR_TYPES`, by numpy's scalar math, with none of the general path's
    per-read steps: the value (a numpy scalar; the node realized), or None, having done nothing.
    No EXACT check: these four ops on these dtypes pass it (`_takes`; a test checks every pair,
    tests/test_scalar_read_paths.py)."""
    a, b = node.args
    if a.op is not None or b.op is not None:
        return None
    npt = a.dtype.np.type
    if b.dtype.np.type is not npt or npt not in _SCALAR_TYPES:
        return None
    try:
        v = _scalar_pair(op, node.attrs, a, b, npt, _SCALAR_MATH)
    except Exception:  # noqa: BLE001 - the usual path reports it, at this same call
        return None
    if type(v) is not node.dtype.np.type:  # (None, or never for these ops and dtypes: the general path)
        return None
    return _realized(node, v)


def _scalar_pair(op, attrs, a, b, npt, fns):
    """op(a, b) of two 0-D leaves whose dtype's scalar type is `npt`, by numpy's scalar math
    (`fns`: op -> its function; a compare by `_SCALAR_COMPARE`, quiet on NaN), or None where an
    operand is not one to take (`_numpy_scalar`)."""
    va, vb = a.host, b.host
    if type(va) is not npt:  # (the usual operand, `t[i]`'s element, is one already: no call)
        va = _numpy_scalar(a, va, npt)
        if va is None:
            return None
    if type(vb) is not npt:
        vb = _numpy_scalar(b, vb, npt)
        if vb is None:
            return None
    if op is _COMPARE_OP:  # (quiet on NaN: numpy's flags untouched)
        return _SCALAR_COMPARE[attrs.direction](va, vb)
    quiet = numpy_errors_quiet()
    try:
        return fns[op](va, vb)
    finally:
        numpy_errors_loud(quiet)


# ---------------------------------------------------------------- an op on two host scalars
# `t[i] <= x` of two 0-D host values (an element read when indexed, a 0-D array the user made):
# computed when the operator records it (`_array_methods._fast_method` calls `fold_leaves`), a
# 0-D host leaf at once instead of a node, its component, its handle's registration and the
# read's sync. The value is `_scalar_leaf_op`'s, which the read would compute, bit for bit
# (numpy's scalar math; tests/test_probe_fold.py checks every pair of special values against
# the op's evaluation and the compiled program). A float product is not folded: recorded, a
# later add may be contracted with it into an FMA by XLA, which computing it now would round.
FOLDED = frozenset({ops.ADD, ops.SUBTRACT, ops.MULTIPLY, ops.DIVIDE, ops.COMPARE})
_MULTIPLY, _DIVIDE = ops.MULTIPLY, ops.DIVIDE
# (a float quotient by numpy's scalar math: IEEE division, as np.divide; integer division has
# StableHLO's semantics, `_ops.elementwise._divide`, and is left to the graph)
_FOLD_MATH = {**_SCALAR_MATH, _DIVIDE: operator.truediv}


def fold_leaves(op, attrs, a, b, device):
    """op(a, b) (an op of FOLDED; a, b 0-D leaves of one dtype, as the operator's fast path
    checks) as the numpy scalar of the result's dtype, computed now; None where it is not one to
    fold (another dtype, a float product, an integer quotient, a device value, a setting that
    asks for the engine's path: `usable`), having done nothing."""
    npt = a.dtype.np.type
    if npt not in _SCALAR_TYPES or (op is _MULTIPLY and a.dtype.kind == "f") \
            or (op is _DIVIDE and a.dtype.kind != "f") or not usable(device):
        return None
    v = _scalar_pair(op, attrs, a, b, npt, _FOLD_MATH)
    out = dt.bool if op is _COMPARE_OP else a.dtype
    if type(v) is not out.np.type:  # (None, or never for these ops and dtypes)
        return None
    if _config.verify:  # the graph verifier, on the node this value stands for
        _verify.verify([Node(op, (a, b), attrs, (), out)], [a, b])
    metrics.host_folds += 1
    return v


def _numpy_scalar(leaf, v, npt):
    """`_scalar_leaf_op`'s operand: the leaf's host value `v` as a numpy scalar of type `npt` (the
    leaf's dtype), or None where the general path must read it (a buffer, another host value, a
    Python int too large for the dtype)."""
    if type(v) is np.ndarray and v.dtype is leaf.dtype.np and not v.shape:
        return v[()]
    if type(v) in _PY_SCALARS:
        v = _scalar_of(leaf, v)
        return v if type(v) is npt else None
    return None


def scalar_evaluate(op, node, values):
    """`op.evaluate(node, *values)`, by numpy's scalar math where that is the same operation
    (`_SCALAR_MATH`: two numpy scalars of one real dtype, float16 aside)."""
    if len(values) == 2:
        a, b = values
        t = type(a)
        if t is type(b) and t in _SCALAR_TYPES:
            f = _SCALAR_MATH.get(op)
            if f is not None:
                return f(a, b)
            if op is _COMPARE_OP:
                return _SCALAR_COMPARE[node.attrs.direction](a, b)
    return op.evaluate(node, *values)

# id(buffer) -> (the buffer, numpy's view of its memory): a CPU device leaf read by small reads
# again and again (the `x` of `x * 2.0 + 1.0`, the base of every probe) is viewed once, not
# through jax's `__array__` at each read (~1.5-3 us). jax's view holds its array, so an entry
# keeps its buffer alive until newer ones push it out: only small buffers (`VIEWED_BYTES`, far
# under the pool's minimum: their memory is never recycled or donated, so the view stays their
# value; a zero-copy numpy alias's writes are the buffer's memory, which the view shows) and at
# most `BUFFER_VIEWS_KEPT` of them, so at most 1 MiB of dead arrays is held.
_buffer_views = {}
BUFFER_VIEWS_KEPT = 16
VIEWED_BYTES = 1 << 16


def _leaf(leaf):
    """`leaf_value(leaf)`, with a small CPU device buffer's view kept between reads."""
    v = leaf.host
    if v is not None:
        if type(v) is np.ndarray and v.dtype is leaf.dtype.np and v.shape == leaf.shape:
            return v
        return leaf_value(leaf)
    buf = leaf.buffer
    entry = _buffer_views.get(id(buf))
    if entry is not None and entry[0] is buf:
        return entry[1]
    v = leaf_value(leaf)
    if not v.flags.owndata and v.nbytes <= VIEWED_BYTES and v.dtype is leaf.dtype.np \
            and v.shape == leaf.shape and v.base is not None:
        keep(_buffer_views, id(buf), (buf, v), BUFFER_VIEWS_KEPT, oldest=True)
    return v


def _scalar_of(leaf, v):
    """The 0-D leaf holding the Python scalar `v`, as the numpy scalar of its dtype (what
    `leaf_value` gives as a 0-D array, without the array: ~0.5 us less per use)."""
    try:
        return leaf.dtype.np.type(v)
    except (OverflowError, TypeError, ValueError):  # (numpy's conversion decides, as leaf_value)
        return leaf_value(leaf)


def _size(node):
    n = 1
    for s in node.shape:
        n *= s
    return n


def _owned(value, node):
    """The value as the array a realized node keeps: its own, writable, C-contiguous memory."""
    if type(value) is np.ndarray:
        flags = value.flags
        if flags.owndata and flags.writeable and flags.c_contiguous:
            return value
    return np.array(value, dtype=node.dtype.np, order="C", copy=True)


class _Evaluator:
    """One read's evaluation: nodes computed whole (`memo`, keyed by the node: nodes hash by
    identity, and the dict dies with the read) and the budget spent.

    An element pushed through a node (`element`, `_pushed`) stays the numpy scalar its op's
    evaluation gives (np.float64, np.bool_, ...: the node's dtype, checked), not a 0-D array:
    the same values (numpy's scalar and array arithmetic agree, NEP 50), without a conversion
    per op (~0.3-0.5 us each). Whole values are arrays."""
    __slots__ = ("memo", "ones", "ops", "computed", "seen", "order", "leaves", "limit")

    def __init__(self, verify=False):
        self.limit = SMALL  # elements of a node computed whole (`REDUCED` under an exact reduce)
        self.memo = {}
        self.ones = {}      # one-element nodes pushed through (`_pushed`): their value
        self.ops = 0        # computed nodes evaluated (whole or at an index)
        self.computed = 0   # computed nodes evaluated whole (in memo)
        # with the graph verifier on: the nodes evaluated, operands first, for `_verify`
        self.seen, self.order, self.leaves = ({}, [], []) if verify else (None, None, None)

    def _visited(self, node):
        if id(node) not in self.seen:
            self.seen[id(node)] = node
            (self.order if node.op is not None else self.leaves).append(node)

    def _check(self, node):
        """Spend one op of the budget on `node`, which must be one this path takes."""
        if node.op not in _PLAIN and not _takes(node):
            raise _Fallback
        self.ops += 1
        if self.ops > MAX_OPS:
            raise _Fallback

    # (whole, element and _pushed run for every node of every small read: the checks and the
    # conversions are written out inline, ~1 us less per node than calls to helpers)

    def whole(self, node):
        """The node's whole value (small nodes only), an array."""
        memo = self.memo
        v = memo.get(node)
        if v is not None:
            return v
        size = 1
        for n in node.shape:
            size *= n
        if size > self.limit:
            raise _Fallback
        op = node.op
        if op is None:
            v = _leaf(node)
        else:
            args = node.args
            large = False
            if op not in _ELEMENTWISE:  # (an elementwise op's operands are its shape or 0-D: none larger)
                for a in args:
                    n = 1
                    for s in a.shape:
                        n *= s
                    if n > self.limit:
                        large = True
                        break
            if large and op is REDUCE and _takes(node) and n <= REDUCED:
                # an exact reduce (max, min, and, or, an integer sum: any order gives its value)
                # of a larger operand, SciPy's `isnan(max(x))` NaN test: its operands computed
                # whole, as the interpreter tier would, instead of the engine's path
                limit = self.limit
                self.limit = REDUCED
                try:
                    self._check(node)
                    v = node_value(op.evaluate(node, self.whole(args[0])), node)
                finally:
                    self.limit = limit
            elif large and size > 1 and op in _WINDOWS and _host_leaves_of(args, self.limit):
                # a window of a large leaf held on the host (SciPy's `Z[:, :2]` of a linkage
                # matrix): numpy's slice of the leaf's value costs what the window holds, where
                # pushing each index down would spend an op per element and fall back past 24
                self._check(node)
                v = node_value(op.evaluate(node, *[_leaf(a) if a.op is None else self.whole(a)
                                                   for a in args]), node)
                if self.seen is not None:
                    for a in args:
                        if a.op is None:
                            self._visited(a)
            elif large:
                # a few elements of a large operand (the probe's `reshape(y, -1)[0]`): each
                # index pushed down (the budget of ops bounds how many)
                if size == 1:
                    v = np.asarray(self._pushed(node, (0,) * len(node.shape))).reshape(node.shape)
                else:
                    if self.ops + size > MAX_OPS:  # (each element pushed spends an op: it would fall back)
                        raise _Fallback
                    v = np.empty(node.shape, node.dtype.np)
                    for idx in np.ndindex(node.shape):
                        v[idx] = self._pushed(node, idx)
            else:
                # (`_check`, inline, with `_takes` and `OpDef.interpretable` written out: three
                # calls less a node, ~0.3 us, at every node of every small read)
                if op not in _PLAIN:
                    cond = EXACT.get(op, False)
                    if cond is False or (cond is not None and not cond(node)) or op.evaluate is None \
                            or (op.covers is not None and not op.covers(node)):
                        raise _Fallback
                ops_ = self.ops = self.ops + 1
                if ops_ > MAX_OPS:
                    raise _Fallback
                if len(args) == 1:
                    r = op.evaluate(node, self.whole(args[0]))
                elif len(args) == 2:  # (no list built for the call: ~0.2 us a node)
                    a, b = args
                    r = op.evaluate(node, self.whole(a), self.whole(b))
                elif not args and op in FIXED_OPS:  # (a constant, an iota: the shared read-only value)
                    r = fixed_value(node)
                else:
                    r = op.evaluate(node, *[self.whole(a) for a in args])
                # (node_value's common case, inline: an array of the node's dtype and shape)
                v = r if type(r) is _ndarray and r.dtype is node.dtype.np and r.shape == node.shape \
                    else node_value(r, node)
            self.computed += 1
        if self.seen is not None:
            self._visited(node)
        memo[node] = v
        return v

    def element(self, node, idx):
        """The value of node[idx] (idx: a tuple of ints within node.shape), a numpy scalar or a
        0-D array of the node's dtype."""
        v = self.memo.get(node)
        if v is not None:
            return v[idx]
        if node.op is None:  # (a CPU buffer's numpy view, or the host value: no copy)
            if self.seen is not None:
                self._visited(node)
            return _leaf(node)[idx]
        n = 1
        for s in node.shape:
            n *= s
        if 1 < n <= SMALL or (n == 1 and node.op not in _PUSHABLE):
            return self.whole(node)[idx]  # (several elements of a small node: computed once)
        return self._pushed(node, idx)

    def _pushed(self, node, idx):
        """node[idx] from its operands' elements: the index pushed through the node. A node of
        one element keeps its value in `ones` (used again without a second evaluation, and
        realized by `run` when a live array is on it)."""
        v = self.ones.get(node)
        if v is not None:
            return v
        op = node.op
        if op not in _PLAIN and not _takes(node):
            raise _Fallback
        self.ops += 1
        if self.ops > MAX_OPS:
            raise _Fallback
        if op in _ELEMENTWISE:
            memo = self.memo
            values = []
            for a in node.args:
                if self.seen is not None:  # (the verifier's walk records every node: the general path)
                    values.append(self.element(a, idx if a.shape else ()))
                elif a.op is None:  # a leaf: its element, or its 0-D value
                    v = a.host  # (leaf_value's common case, inline)
                    t = type(v)
                    if t is np.ndarray and v.dtype is a.dtype.np and v.shape == a.shape:
                        values.append(v[idx] if a.shape else v)
                    elif t in _PY_SCALARS and not a.shape:
                        values.append(_scalar_of(a, v))
                    else:
                        v = _leaf(a)
                        values.append(v[idx] if a.shape else v)
                elif a.shape:
                    m = memo.get(a)
                    if m is not None:
                        values.append(m[idx])
                    else:
                        n = 1
                        for s in a.shape:
                            n *= s
                        values.append(self.whole(a)[idx] if 1 < n <= SMALL or a.op not in _PUSHABLE
                                      else self._pushed(a, idx))
                elif a.op in _PUSHABLE:  # (a 0-D operand: its one element pushed on down)
                    m = memo.get(a)
                    values.append(m if m is not None else self._pushed(a, ()))
                else:
                    values.append(self.whole(a))
            v = scalar_evaluate(op, node, values)
            # the evaluation gave a value of the node's dtype: a numpy scalar (the common case:
            # one type test), or a 0-D array; anything else is converted, and checked
            npdt = node.dtype.np
            if type(v) is not npdt.type:
                if type(v) is not np.ndarray or v.dtype is not npdt:
                    v = np.asarray(v, dtype=npdt)
                if v.shape:
                    node_value(v, node, ())  # (raises: an evaluation that disagrees with its op's rule)
        else:
            push = _PUSH.get(op)
            if push is None:
                raise _Fallback
            v = push(self, node, idx)
        if self.seen is not None:
            self._visited(node)
        for n in node.shape:
            if n != 1:
                return v
        self.ones[node] = v
        return v


# ---------------------------------------------------------------- an index through shape ops
# Each maps the element index of the node to the operand's (StableHLO's semantics, as the
# interpreter's evaluations of these ops).

def _push_reshape(ev, node, idx):
    x = node.args[0]
    flat = 0  # (row-major index arithmetic in Python: numpy's ravel/unravel cost ~2 us each)
    for i, n in zip(idx, node.shape):
        flat = flat * n + int(i)
    inner = []
    for n in reversed(x.shape):
        flat, i = divmod(flat, n)
        inner.append(i)
    return ev.element(x, tuple(reversed(inner)))


def _push_broadcast(ev, node, idx):
    x = node.args[0]
    inner = tuple(0 if n == 1 else idx[d] for n, d in zip(x.shape, node.attrs.dims))
    return ev.element(x, inner)


def _push_transpose(ev, node, idx):
    x = node.args[0]
    inner = [0] * len(x.shape)
    for k, p in enumerate(node.attrs.perm):
        inner[p] = idx[k]
    return ev.element(x, tuple(inner))


def _push_reverse(ev, node, idx):
    dims = node.attrs.dims
    return ev.element(node.args[0], tuple(n - 1 - i if d in dims else i
                                          for d, (i, n) in enumerate(zip(idx, node.shape))))


def _push_slice(ev, node, idx):
    a = node.attrs
    return ev.element(node.args[0], tuple(lo + i * s for i, lo, s in zip(idx, a.start, a.stride)))


def _push_dynamic_slice(ev, node, idx):
    args = node.args
    x = args[0]
    if len(args) == 2 and ev.seen is None:  # (one axis, as `y[i]` of a vector: the start read inline)
        s = args[1]
        if s.op is not None:
            v = ev.whole(s)
        else:
            v = s.host
            v = v if type(v) is int else leaf_value(s)  # (a Python int start: as it is)
        lo = min(max(int(v), 0), x.shape[0] - node.attrs.sizes[0])  # clamped so the window fits
        return ev.element(x, (lo + idx[0],))
    inner = []
    for i, s, n, size in zip(idx, args[1:], x.shape, node.attrs.sizes):
        lo = min(max(int(ev.whole(s)), 0), n - size)  # clamped so the window fits (StableHLO)
        inner.append(lo + i)
    return ev.element(x, tuple(inner))


_PUSH = {
    ops.RESHAPE: _push_reshape, ops.BROADCAST_IN_DIM: _push_broadcast, ops.TRANSPOSE: _push_transpose,
    ops.REVERSE: _push_reverse, ops.SLICE: _push_slice, ops.DYNAMIC_SLICE: _push_dynamic_slice,
}
# ops whose element at an index `_pushed` computes from its operands' elements: a one-element
# node of these is pushed through, never computed whole (a scalar read computes one element)
_PUSHABLE = frozenset(_ELEMENTWISE) | frozenset(_PUSH)
# ops whose evaluation costs what their result holds, not what their operand holds: a small
# window of a large host leaf is computed whole (`_Evaluator.whole`)
_WINDOWS = frozenset({ops.SLICE, ops.DYNAMIC_SLICE, ops.GATHER})


def _host_leaves_of(args, limit):
    """Whether every operand larger than `limit` elements is a leaf whose value is on the host
    (read as it is: no buffer copied home for a few of its elements)."""
    for a in args:
        n = 1
        for s in a.shape:
            n *= s
        if n > limit and (a.op is not None or type(a.host) is not np.ndarray):
            return False
    return True


# ---------------------------------------------------------------- an element read when indexed
# `x[i]` of a large pending array whose element is a few exact ops on leaves (the probe's
# `reshape(y, -1)[0]` of `y = a * 2 + 1`) is computed when it is indexed, by the same evaluations
# as a read's (`_Evaluator._pushed`), into a 0-D host value: the read that follows has no graph
# to walk, and `x` stays pending (its later program still fuses it). Only what a later read would
# also leave pending is computed: nodes of more than SMALL elements, pushed through, and leaves;
# a graph with anything else (a small computed node: a read would compute it whole and realize
# the live arrays on it; an op not in EXACT; more than ELEMENT_OPS ops) is left to record the
# usual nodes, having cost at most ELEMENT_OPS evaluations, once per node (`_refused`).
ELEMENT_OPS = 8
_acquire, _release = _lock.acquire, _lock.release  # (the engine lock's, bound once)
_refused = [None]  # a weak reference to the last node an element read gave up on


def element_now(node, idx, device):
    """node[idx] (idx: a tuple of Python ints within node.shape; node: a pending node of more
    than SMALL elements on `device`: the caller checks the size) as the numpy scalar of node's
    dtype, computed now; None where the graph is not one for this path (nothing then changed)."""
    if node.op not in _AT:  # (a cheap refusal first: a float sum, an exp, a gather, ...)
        return None
    refused = _refused[0]
    if refused is not None and refused() is node:
        return None
    if not usable(device) or not _acquire(False):  # (a sync running elsewhere: record)
        return None
    try:
        if node.op is None:  # (realized by another thread meanwhile)
            return None
        seen = ([], []) if _config.verify else None
        v = None
        op = node.op
        if (node.dtype is _F64 and op in _FLOAT_OPS) or (op is _COMPARE_OP and node.args[0].dtype is _F64):
            # (the probe's graph: float64 arithmetic, by Python's float math; None where it is not
            # one for `_float_at`, which then changed nothing but `seen`)
            v = _float_element(node, idx, seen)
            if v is None and seen is not None:
                seen = ([], [])
        if v is None:
            quiet = numpy_errors_quiet()
            try:
                v = _at(node, idx, [ELEMENT_OPS], seen)
            finally:
                numpy_errors_loud(quiet)
        if seen is not None:  # the graph verifier, on the nodes evaluated
            _verify.verify(*seen)
        metrics.host_element_reads += 1
        return v
    except Exception:  # noqa: BLE001 - not one for this path, or an error the usual path reports
        _refused[0] = weakref.ref(node)
        return None
    finally:
        _release()


# Float64 arithmetic on Python floats (`_float_at`): a Python float is an IEEE double, and
# Python's +, -, *, / and negation on two of them are the C operations on doubles that numpy's
# float64 ufuncs and scalar math perform (round to nearest, NaN payloads, signed zeros, infinities
# and subnormals alike), in the same operand order. Comparisons are IEEE's (quiet on NaN). Python
# never sets numpy's error state or warns (an overflow is inf, as numpy's with its warnings off);
# it raises ZeroDivisionError where numpy divides by zero: the read then takes `_at`. Each
# node taken here passes `_takes` (EXACT and the interpreter's covers): checked for every op by
# tests/test_probe_element.py.
_F64 = dt.float64
_FLOAT_MATH = {ops.ADD: operator.add, ops.SUBTRACT: operator.sub, ops.MULTIPLY: operator.mul,
               ops.DIVIDE: operator.truediv}


def _float_element(node, idx, seen):
    """`element_now`'s value of node[idx] for a float64 graph of `_FLOAT_MATH`'s ops, negations,
    and a compare at its root, on leaves (the probe's `y = a * 2.0 + 1.0`), as the numpy scalar
    `_at` gives; None where the graph is not one for this path (or Python's float math raises)."""
    try:
        if node.op is _COMPARE_OP:
            a, b = node.args
            if (a.op is not None and a.shape != node.shape) or (b.op is not None and b.shape != node.shape):
                return None  # (a small computed operand: `_at` refuses it too)
            budget = [ELEMENT_OPS - 1]
            va = _float_at(a, idx, budget, seen) if a.op is not None else _float_leaf(a, idx)
            vb = _float_at(b, idx, budget, seen) if b.op is not None else _float_leaf(b, idx)
            if seen is not None:
                seen[0].append(node)
                seen[1].extend(x for x in (a, b) if x.op is None)
            return np.True_ if _SCALAR_COMPARE[node.attrs.direction](va, vb) else np.False_
        return _F64_TYPE(_float_at(node, idx, [ELEMENT_OPS], seen))
    except (_Fallback, ArithmeticError):
        return None


_F64_TYPE = np.float64


def _float_leaf(leaf, idx):
    """A float64 leaf's element (or its 0-D value) as a Python float."""
    v = leaf.host
    t = type(v)
    if leaf.shape:
        if t is not np.ndarray or v.dtype is not _F64_NP or v.shape != leaf.shape:
            v = _leaf(leaf)
        return v.item(idx)
    if t is float:  # (a Python scalar's leaf, `y * 2.0`)
        return v
    if t is _F64_TYPE or t is int:  # (numpy's conversion of a Python int to float64 is float()'s)
        return float(v)
    return _leaf(leaf).item()


_F64_NP = _F64.np


def _reshape_index(idx, shape, inner_shape):
    """The index into an array of `inner_shape` of the element at `idx` of its row-major reshape
    to `shape`."""
    flat = 0
    for i, m in zip(idx, shape):
        flat = flat * m + i
    inner = []
    for m in reversed(inner_shape):
        flat, i = divmod(flat, m)
        inner.append(i)
    return tuple(reversed(inner))


def _float_at(node, idx, budget, seen):
    """node[idx] of a computed float64 node of node's shape, as a Python float (`_float_element`);
    raises _Fallback where the graph is not one for this path."""
    if node.dtype is not _F64:
        raise _Fallback
    op = node.op
    budget[0] -= 1
    if budget[0] < 0:
        raise _Fallback
    args = node.args
    f = _FLOAT_MATH.get(op)
    if f is not None:
        a, b = args
        if a.op is None:  # (`_float_leaf`'s two common cases inline: an array's element, a float)
            v = a.host
            if type(v) is float and not a.shape:
                va = v
            elif type(v) is np.ndarray and v.dtype is _F64_NP and v.shape == a.shape and a.shape:
                va = v.item(idx)
            else:
                va = _float_leaf(a, idx)
        elif a.shape != node.shape:  # (a small computed operand: `_at` refuses it too)
            raise _Fallback
        else:
            va = _float_at(a, idx, budget, seen)
        if b.op is None:
            v = b.host
            if type(v) is float and not b.shape:
                vb = v
            elif type(v) is np.ndarray and v.dtype is _F64_NP and v.shape == b.shape and b.shape:
                vb = v.item(idx)
            else:
                vb = _float_leaf(b, idx)
        elif b.shape != node.shape:
            raise _Fallback
        else:
            vb = _float_at(b, idx, budget, seen)
        v = f(va, vb)
    elif op is _NEGATE:
        a = args[0]
        if a.op is None:
            v = -_float_leaf(a, idx)
        elif a.shape != node.shape:
            raise _Fallback
        else:
            v = -_float_at(a, idx, budget, seen)
    elif op is _RESHAPE:  # (the probe's `reshape(y, -1)` of a y of several axes: `_at`'s index arithmetic)
        x = args[0]
        inner = _reshape_index(idx, node.shape, x.shape)
        v = _float_leaf(x, inner) if x.op is None else _float_at(x, inner, budget, seen)
    else:
        raise _Fallback
    if seen is not None:
        seen[0].append(node)
        seen[1].extend(a for a in args if a.op is None)
    return v


_NEGATE, _RESHAPE = ops.NEGATE, ops.RESHAPE
# the ops `_float_at` takes (a compare too, at the root: `_float_element`)
_FLOAT_OPS = frozenset(_FLOAT_MATH) | {_NEGATE, _RESHAPE}


def _at(node, idx, budget, seen):
    """node[idx] for `element_now`, node a computed node: a numpy scalar of node's dtype.
    Raises _Fallback (or the evaluation's error) where the graph is not one for this path.
    Every computed node reached has the element count of the one read (`element_now`'s, more
    than SMALL): elementwise operands of its shape, reshapes and transposes, and broadcasts of
    leaves only; a 0-D computed operand is refused."""
    op = node.op
    if op not in _PLAIN:  # (`_takes`, inline: its three calls are a fifth of a probe's work)
        cond = EXACT.get(op, False)
        if cond is False or (cond is not None and not cond(node)) or op.evaluate is None \
                or (op.covers is not None and not op.covers(node)):
            raise _Fallback
    budget[0] -= 1
    if budget[0] < 0:
        raise _Fallback
    args = node.args
    if op in _ELEMENTWISE:
        shape = node.shape
        values = []
        for a in args:
            if a.op is not None:
                if a.shape != shape:  # (a small computed operand: a read computes it whole)
                    raise _Fallback
                values.append(_at(a, idx, budget, seen))
                continue
            v = a.host  # a leaf: its element, or its 0-D value, as a numpy scalar
            t = type(v)
            if a.shape:
                if t is not np.ndarray or v.dtype is not a.dtype.np or v.shape != a.shape:
                    v = _leaf(a)
                values.append(v[idx])
            elif t is a.dtype.np.type:
                values.append(v)
            elif t in _PY_SCALARS:  # (`_scalar_of`, inline; a conversion numpy refuses raises:
                values.append(a.dtype.np.type(v))  # the index then records, as for any error)
            else:
                values.append(_leaf(a)[()])
        v = None
        if len(values) == 2:  # (`scalar_evaluate`, inline)
            a, b = values
            t = type(a)
            if t is type(b) and t in _SCALAR_TYPES:
                f = _SCALAR_MATH.get(op)
                if f is not None:
                    v = f(a, b)
                elif op is _COMPARE_OP:
                    v = _SCALAR_COMPARE[node.attrs.direction](a, b)
        if v is None:
            v = op.evaluate(node, *values)
        npdt = node.dtype.np
        if type(v) is not npdt.type:  # (as `_Evaluator._pushed`: a numpy scalar of the dtype)
            if type(v) is not np.ndarray or v.dtype is not npdt:
                v = np.asarray(v, dtype=npdt)
            if v.shape:
                node_value(v, node, ())  # (raises: an evaluation that disagrees with its op's rule)
            v = v[()]
    else:
        x = args[0]
        if op is ops.RESHAPE:  # (row-major index arithmetic, as `_push_reshape`)
            inner = _reshape_index(idx, node.shape, x.shape)
        elif op is ops.TRANSPOSE:
            inner = [0] * len(x.shape)
            for k, p in enumerate(node.attrs.perm):
                inner[p] = idx[k]
            inner = tuple(inner)
        elif op is ops.BROADCAST_IN_DIM and x.op is None:  # (of a leaf only: a computed one is small)
            inner = tuple(0 if m == 1 else idx[d] for m, d in zip(x.shape, node.attrs.dims))
        else:
            raise _Fallback
        if x.op is not None:
            v = _at(x, inner, budget, seen)
        else:
            v = _leaf(x)[inner]
    if seen is not None:
        seen[0].append(node)
        seen[1].extend(a for a in args if a.op is None)
    return v


# the ops `_at` pushes an index through
_AT = frozenset(_ELEMENTWISE) | {ops.RESHAPE, ops.TRANSPOSE, ops.BROADCAST_IN_DIM}
