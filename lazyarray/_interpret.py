"""The interpreter tier: a pending graph evaluated op by op in numpy, with no compile.

An XLA CPU compile costs tens of milliseconds even for a one-op program; a graph run only once
or twice is cheaper to evaluate here while the compiler works in the background. Each primitive
carries its own host evaluation beside its lowering (`_ops`, `OpDef.evaluate`), reproducing what
the compiled program computes, and says which nodes it covers (`OpDef.covers`); a graph with a
node no evaluation covers is compiled instead.

Covered since issue 11: the decompositions (LU, Cholesky, QR, eigh, eig, SVD) and triangular
solves on the CPU, bit for bit (the same LAPACK routines as jaxlib's custom calls, _ops.lapack_host),
and fft to rounding (numpy.fft, within 4.1 eps of the largest output magnitude). Complex
multiply, divide, power, sqrt, log, log1p, tanh, products and matrix products are covered (XLA's formulas rebuilt
where numpy's differ beyond rounding, bounds in `_ops.elementwise`/`_complex_math`). Not covered
today: complex acos/acosh/asin/asinh, bool arithmetic, and
decompositions on a platform other than the CPU (on an accelerator,
`_tier_policy.may_interpret` decides). Known differences that remain: float sums, products and dot products
(summation order) and a * b + c (XLA may contract it into an FMA) agree to rounding, not bit for
bit; real transcendental functions are numpy's here and XLA's (or our formulas) there, within
the bounds tests/test_precision.py checks; XLA CPU flushes subnormal floats to zero, numpy does
not (the LAPACK calls run with XLA's flush-to-zero flags, on x86-64 Linux).
"""
from __future__ import annotations

import time

import numpy as np

from . import _runtime
from ._bounded import keep
from ._blas_threads import _KERNEL_OPS, host_program_window, is_tiny
from ._graph import Plan
from ._ops.core import host_step, node_value
from ._ops.shape import CONSTANT, IOTA

__all__ = ["supports", "interpret", "schedule", "HostProgram"]


try:  # numpy 2 keeps its error state in a context variable: setting it costs ~0.2 us, np.errstate ~2 us
    from numpy._core._ufunc_config import _extobj_contextvar as _np_errors
    with np.errstate(all="ignore"):
        _IGNORE = _np_errors.get()

    def numpy_errors_quiet():
        """numpy's floating-point warnings off (here and in `_host_sync`'s small reads); returns
        the token `numpy_errors_loud` takes to restore them."""
        return _np_errors.set(_IGNORE)

    numpy_errors_loud = _np_errors.reset
except (ImportError, AttributeError):  # (where it lives elsewhere: np.errstate)
    def numpy_errors_quiet():
        ctx = np.errstate(all="ignore")
        ctx.__enter__()
        return ctx

    def numpy_errors_loud(ctx):
        ctx.__exit__(None, None, None)


def supports(order) -> bool:
    """True when every computed node of `order` has a host evaluation that covers it."""
    return all(node.op.interpretable(node) for node in order)


# element-ops (`_tier_policy.first_sight`'s work) under which a graph's intermediates are not
# dropped early: all of them together hold at most 16 MiB (at 16 bytes an element), and the
# last-use walk costs ~1 us a node, as much as a small graph's whole evaluation
KEEP_ALL_WORK = 1 << 20


def schedule(plan, outputs, frees=True):
    """What `interpret` needs besides the values, a function of the graph's structural key alone
    (a caller that interprets one graph again keeps it: `_tier_policy.Sighting`): the outputs'
    positions, and for each position the operand positions whose value is dropped once that
    position's node is evaluated (their last use: a large graph's intermediates would otherwise
    all be alive at its end, hundreds of MB for the graphs `_tier_policy.interpreting_pays`
    admits). With `frees` false (a small graph: `KEEP_ALL_WORK`) that second part is None and
    every value lives until the end."""
    index = plan.index
    out_pos = tuple([index[o] for o in outputs])  # (a plan's index is keyed by node: _graph.Plan)
    if not frees:
        return out_pos, None
    sig = plan.sig
    n = len(sig)
    last_use = [0] * n
    for p, entry in enumerate(sig):
        if len(entry) == 5:
            for a in entry[4]:
                last_use[a] = p
    for p in out_pos:
        last_use[p] = n
    frees = [()] * n
    for a, p in enumerate(last_use):
        if a < p < n and len(sig[p]) == 5:
            frees[p] += (a,)
    return out_pos, tuple(frees)  # (a tuple of tuples of ints: kept, the collector untracks it)


# Ops whose value is a function of their static attributes alone (no operands; the attributes are
# part of the structural key): a graph interpreted again reuses their values (`interpret`'s
# `steps`: its third part) instead of rebuilding them (~1.3 us a constant, ~7 us an iota), up to this many bytes
# each (a larger one is rebuilt: its memory, not the call, is then the cost).
FIXED_OPS = frozenset({CONSTANT, IOTA})
FIXED_MAX_BYTES = 1 << 16

# (op, its evaluation, attributes) -> a FIXED_OPS node's read-only value, shared by every graph's
# first run (`interpret`) and build: SciPy's first pass evaluates ~400 constants and iotas, most
# of them met before in another graph (the 0.0 of a comparison, the 2.0 of a square), ~1.1 us
# each against a look-up's ~0.1. The attributes compare exactly (a constant's value is its bytes:
# -0.0 and NaN payloads stay apart), the evaluation is in the key as in `_STEPS`. Emptied when full:
# more than FIXED_KEPT values, or more than FIXED_KEPT_BYTES in all (most are a few bytes; a
# process making many distinct 64 KiB iotas holds at most 4 MiB of them).
_FIXED = {}
FIXED_KEPT = 1024
FIXED_KEPT_BYTES = 1 << 22
_fixed_bytes = [0]


def fixed_value(node):
    """The value of a `FIXED_OPS` node (its op, attributes, shape and dtype: `node` may be a
    stub), read-only and shared when it has at most FIXED_MAX_BYTES, else a fresh array. Its
    users treat it as the kept values below: an evaluation writing into it would raise, an
    output is copied (`_outputs`)."""
    op = node.op
    key = (op, op.evaluate, node.attrs)
    v = _FIXED.get(key)
    if v is None:
        v = node_value(op.evaluate(node), node)
        n = v.nbytes
        if n <= FIXED_MAX_BYTES:
            v.flags.writeable = False
            if len(_FIXED) >= FIXED_KEPT or _fixed_bytes[0] + n > FIXED_KEPT_BYTES:
                _FIXED.clear()
                _fixed_bytes[0] = 0
            _FIXED[key] = v
            _fixed_bytes[0] += n
    return v


def interpret(order, leaves, outputs, plan=None):
    """Evaluate the graph; one numpy array per output, of exactly its node's shape and dtype.
    `plan` (the `_graph.Plan` that walked it, when the caller has one) lends its signature: every
    node's position and its operands' positions, so no node is looked up by id here, and its
    `steps` when the caller set them: this graph's `HostProgram` (kept with its sighting by
    `_tier_policy.serve`: a run after its first is that program's), or its `schedule`, with a
    third part when the caller keeps one (`_tier_policy.serve`): a dict, position -> the value
    of a `FIXED_OPS` node, read-only, filled at the first run and read at the next (an
    evaluation that wrote into its operand would raise, never change a kept value; an output
    is copied, as every output that is not its own writeable memory)."""
    if plan is None or plan.order is not order or plan.leaves is not leaves:
        plan = Plan(outputs)  # (the same walk: its order holds exactly the nodes of `order`)
        order, leaves = plan.order, plan.leaves
    sig, steps = plan.sig, plan.steps
    if type(steps) is HostProgram:
        if steps.steps is not None or steps.runs >= NODE_BY_NODE_RUNS \
                or (steps.clock and _has_kernel(order)):
            return steps.run(plan, outputs)
        steps.runs += 1  # one of its first runs: node by node, below, keeping its fixed values
        steps = (steps.out_pos, steps.frees, steps.fixed)
    if steps is None:
        (out_pos, frees), fixed = schedule(plan, outputs), None
    else:
        out_pos, frees = steps[0], steps[1]
        fixed = steps[2] if len(steps) > 2 else None
    vals = [None] * len(sig)
    ndarray = np.ndarray
    next_leaf = iter(leaves).__next__
    next_node = iter(order).__next__
    quiet = numpy_errors_quiet()  # (as np.errstate(all="ignore"))
    try:
        for p, entry in enumerate(sig):
            if len(entry) != 5:
                leaf = next_leaf()
                v = leaf.host  # (leaf_value's common case, inline: a host value as it is)
                if type(v) is not ndarray or v.dtype is not leaf.dtype.np or v.shape != leaf.shape:
                    # (a Python int, a start index most often: the shared value `HostProgram.run`
                    # takes too, ~0.3 us less than numpy's conversion; outputs are copied below)
                    v = int_value(leaf) if type(v) is int else leaf_value(leaf)
                vals[p] = v
                continue
            node = next_node()
            operands = entry[4]
            if not operands and node.op in FIXED_OPS:
                v = fixed_value(node)
                if fixed is not None and not v.flags.writeable:
                    fixed[p] = v
                vals[p] = v
                continue
            n = len(operands)
            if n == 2:  # (the commonest, then one operand, then three: no list built for the call)
                v = node.op.evaluate(node, vals[operands[0]], vals[operands[1]])
            elif n == 1:
                v = node.op.evaluate(node, vals[operands[0]])
            elif n == 3:
                v = node.op.evaluate(node, vals[operands[0]], vals[operands[1]], vals[operands[2]])
            else:
                v = node.op.evaluate(node, *[vals[a] for a in operands])
            # node_value's checks, inline: the evaluation gave an array of the node's dtype
            # and shape (the common case costs two compares)
            if type(v) is not ndarray or v.dtype is not node.dtype.np or v.shape != node.shape:
                v = node_value(v, node)
            vals[p] = v
            if frees is not None:
                for a in frees[p]:
                    vals[a] = None
    finally:
        numpy_errors_loud(quiet)
    return _outputs(vals, out_pos, outputs)


def leaf_value(leaf):
    """A leaf's value as numpy: its host value (on an accelerator, also the host copy kept beside
    a buffer), else its buffer's."""
    v = leaf.host
    if type(v) is np.ndarray and v.dtype == leaf.dtype.np and v.shape == leaf.shape:
        return v  # (the common case, as it is: small host reads take every leaf through here)
    if v is not None:  # a Python scalar (`_graph.scalar_leaf`), or the copy beside a buffer
        # (_tier_policy.fetch_inputs); np.array of a Python scalar costs ~0.3 us, asarray ~0.55
        v = np.asarray(v, dtype=leaf.dtype.np) if type(v) is np.ndarray else np.array(v, dtype=leaf.dtype.np)
    else:
        v = np.asarray(leaf.buffer)
    if v.dtype != leaf.dtype.np:
        v = v.astype(leaf.dtype.np)
    if v.shape != leaf.shape:
        v = v.reshape(leaf.shape)
    return v


# ---------------------------------------------------------------- a graph interpreted again


class Stub:
    """A node's structure without its graph: op, attributes, shape, dtype and operands (stubs
    too; a leaf's has op None). What host evaluations read, and all that a `HostProgram` keeps:
    the first run's nodes would hold their operands' values (and the user's arrays) alive."""
    __slots__ = ("op", "args", "attrs", "shape", "dtype")

    def __init__(self, op, args, attrs, shape, dtype):
        self.op, self.args, self.attrs, self.shape, self.dtype = op, args, attrs, shape, dtype

    def __repr__(self):
        return f"{self.op.name if self.op is not None else 'leaf'}{list(self.shape)} {self.dtype.name}"


class Steps:
    """A built program's steps. The hot fields of each step are one tuple of atoms (`meta`:
    position, operand positions, numpy dtype, shape, positions freed after it, whether a LAPACK
    call), which the collector stops tracking once it has visited it; the step functions, ops and
    dtypes are one tuple each. So a kept program gives every full collection a few objects, not
    one per node (a 9-tuple per step was ~16k of the ~20k objects SciPy's table added to the old
    generation in its second pass). Iterating gives each step as (position, function, operand
    positions, numpy dtype, shape, op, dtype, frees, LAPACK flag)."""
    __slots__ = ("fns", "meta", "ops", "dtypes")

    def __init__(self, fns, meta, ops, dtypes):
        self.fns, self.meta, self.ops, self.dtypes = fns, meta, ops, dtypes

    def __len__(self):
        return len(self.fns)

    def __iter__(self):
        for fn, (p, args, npdt, shape, frees, kernel), op, dtype in zip(self.fns, self.meta, self.ops, self.dtypes):
            yield p, fn, args, npdt, shape, op, dtype, frees, kernel

    def node_value(self, v, p):
        """`_ops.core.node_value` for the step at position `p` (a value not exactly its node's)."""
        for i, m in enumerate(self.meta):
            if m[0] == p:
                return node_value(v, Stub(self.ops[i], (), None, m[3], self.dtypes[i]))
        raise AssertionError(f"no step at position {p}")


# Node-by-node runs of a graph before its `HostProgram` is built (`interpret`). A build costs about
# three times what a built run saves against a node-by-node one (SciPy's table, thread CPU: ~166
# builds ~8 ms, ~48 us each; its ~205 graphs ~17 ms node by node against ~13.8 ms built, ~16 us a
# run), so, as a ski rental, a graph pays for its build only once it has been run that often: one
# seen two or three times (a consumer's second call) is never built, one run many times (a loop)
# pays ~2 x 16 us more once.
NODE_BY_NODE_RUNS = 3


def _has_kernel(order):
    """Whether a graph has a host LAPACK step (`_blas_threads._KERNEL_OPS`)."""
    for node in order:
        if node.op.name in _KERNEL_OPS:
            return True
    return False


class HostProgram:
    """One graph's interpretation, kept with its sighting (`_tier_policy.serve`) and built in two
    steps. At the graph's first `NODE_BY_NODE_RUNS` runs, only its schedule (`schedule`): those
    runs go node by node (`interpret`), keeping its constants' and iotas' values (`FIXED_OPS`),
    since most graphs are seen once or twice. At its next run, `build`: a flat list of steps, each
    one function of operand arrays (`_ops.core.host_step`: numpy's ufunc itself where the
    evaluation is one, decisions that depend on the structure taken once), which that run and
    every later one calls (`run`): it reads the leaves, calls the steps, and checks each value's
    type, dtype and shape (two compares; a value that is not exactly its node's is converted by
    `node_value`, as node by node). Both compute each node by its own evaluation: the same values.

    Host LAPACK calls (`_blas_threads._KERNEL_OPS`: decompositions, triangular solves) are timed
    apart when the caller asks (`clock`, set before a run): the compiled program calls the same
    routines, so their time is not what compiling would save (`_tier_policy.serve`). A run asked
    to clock them is a built program's when the graph has one (a timed run of a graph without
    one has nothing to time apart: `clocked` stays false)."""
    __slots__ = ("out_pos", "frees", "fixed", "runs", "template", "leaf_pos", "steps", "clocked",
                 "clock", "lapack_seconds", "lapack_window")

    def __init__(self, plan, outputs, frees=True):
        self.out_pos, self.frees = schedule(plan, outputs, frees)
        self.fixed = {}   # position -> a FIXED_OPS value, kept read-only by the node-by-node run
        self.runs = 0     # node-by-node runs (at most NODE_BY_NODE_RUNS)
        self.steps = None  # (`build`)
        self.template = self.leaf_pos = None
        self.clocked = False  # whether a step is a LAPACK call
        self.clock = False  # whether the next run times its LAPACK steps (the caller sets it)
        self.lapack_seconds = 0.0  # CPU seconds of the LAPACK steps of the last run that clocked them
        self.lapack_window = False  # whether a LAPACK step is not tiny (`host_program_window`)

    def build(self, sig):
        """The steps, from the graph's signature (`Plan.sig`): structural stubs stand for its
        nodes, so the program keeps no value of the run it was built at. A step function is a
        function of its node's structure alone (`host_step`), so one made for an equal structure
        in any graph is taken again (`step_for`)."""
        free_at, fixed = self.frees, self.fixed
        shapes = [None] * len(sig)  # per position, the shape and dtype (what an operand's stub holds)
        dtypes = [None] * len(sig)
        template = [None] * len(sig)
        leaf_pos, fns, meta, ops, out_dtypes = [], [], [], [], []
        clocked = window = False
        for p, entry in enumerate(sig):
            if len(entry) != 5:
                shapes[p], dtypes[p] = entry[0], entry[1]
                leaf_pos.append(p)
                continue
            op, attrs, shape, dtype, operands = entry
            shapes[p], dtypes[p] = shape, dtype
            if not operands and op in FIXED_OPS:
                v = fixed.get(p)
                if v is None:
                    v = fixed_value(Stub(op, (), attrs, shape, dtype))
                    if v.flags.writeable:  # (a large one: made again at each run, by its step)
                        v = None
                if v is not None:
                    template[p] = v
                    continue
            kernel = op.name in _KERNEL_OPS
            if kernel:
                clocked = True
                window = window or not is_tiny(*[shapes[a] for a in operands])
            key = [op, op.evaluate, attrs, shape, dtype]
            for a in operands:
                key += (shapes[a], dtypes[a])
            fns.append(step_for(op, tuple(key)))
            meta.append((p, operands, dtype.np, shape, free_at[p] if free_at is not None else (), kernel))
            ops.append(op)
            out_dtypes.append(dtype)
        # (the steps keep no stub: a stub is kept only by an evaluation bound to it, so the
        # stubs of prepared steps and leaves die here, not with the program)
        steps = Steps(tuple(fns), tuple(meta), tuple(ops), tuple(out_dtypes))
        # (tuples of atoms, None and arrays: a kept program's the collector untracks, not visits)
        self.template, self.leaf_pos, self.clocked = tuple(template), tuple(leaf_pos), clocked
        self.lapack_window = window
        self.steps, self.fixed = steps, None

    def run(self, plan, outputs):
        """The outputs' values (as `interpret`'s) from `plan.leaves`' (a walk of this program's
        graph, or of one of equal structure); built first if it is not. With `clock` set, also
        times the LAPACK steps, on this thread's CPU clock, into `lapack_seconds`."""
        if self.steps is None:
            self.build(plan.sig)
        vals = _leaf_values(list(self.template), self.leaf_pos, plan.leaves)
        ndarray = np.ndarray
        clock = self.clock and self.clocked
        lapack = 0.0
        window = host_program_window() if self.lapack_window else None  # (its LAPACK calls' one window)
        if window is not None:
            window.__enter__()
        quiet = numpy_errors_quiet()
        try:
            steps = self.steps
            for fn, (p, args, npdt, shape, frees, kernel) in zip(steps.fns, steps.meta):
                if clock and kernel:
                    c0 = time.thread_time()
                n = len(args)
                if n == 2:
                    v = fn(vals[args[0]], vals[args[1]])
                elif n == 1:
                    v = fn(vals[args[0]])
                elif n == 3:  # (a select, a scatter, a slice at two indices; then dynamic slices and
                    # updates: explicit calls, ~0.6 us less than a list's)
                    v = fn(vals[args[0]], vals[args[1]], vals[args[2]])
                elif n == 4:
                    v = fn(vals[args[0]], vals[args[1]], vals[args[2]], vals[args[3]])
                elif n == 5:
                    v = fn(vals[args[0]], vals[args[1]], vals[args[2]], vals[args[3]], vals[args[4]])
                else:
                    v = fn(*[vals[a] for a in args])
                if type(v) is not ndarray or v.dtype is not npdt or v.shape != shape:
                    if type(v) is not ndarray or v.dtype != npdt:
                        v = np.asarray(v, dtype=npdt)  # (node_value's conversion, inline)
                    if v.shape != shape:
                        v = steps.node_value(v, p)  # (raises, naming the node)
                vals[p] = v
                if frees:
                    for a in frees:
                        vals[a] = None
                if clock and kernel:
                    lapack += time.thread_time() - c0
        finally:
            numpy_errors_loud(quiet)
            if window is not None:
                window.__exit__(None, None, None)
        if clock:
            self.lapack_seconds = lapack
        return _outputs(vals, self.out_pos, outputs)


# A node's structure -> its step function (`host_step`), shared by every program with a node of
# that structure: SciPy's table builds ~290 programs in its second pass, most of their nodes of
# structures met before (an elementwise op on (n,) float64, a broadcast of a row, ...), and a
# build made each one again (two stubs and a preparation a node: ~1 us). The key holds the op
# and its evaluation itself, so an evaluation replaced on its OpDef (a test's) never meets a
# step made from the old one; attributes compare exactly (constants' values are bytes), as the
# structural key of every sighting already requires. Emptied when full.
_STEPS = {}
STEPS_KEPT = 4096


def step_for(op, key):
    """The step function of a node of `op` whose structure is `key`: (the op, its evaluation,
    attributes, shape, dtype, then each operand's shape and dtype, flat: no inner tuple for the
    collector to keep), made by `host_step` over a stub the first time and kept in `_STEPS`."""
    fn = _STEPS.get(key)
    if fn is None:
        # (operands as shallow stubs: an evaluation bound to its stub keeps that stub and its
        # operands' shapes and dtypes alive, not the graph above it)
        operands = tuple([Stub(None, (), (), key[i], key[i + 1]) for i in range(5, len(key), 2)])
        stub = Stub(op, operands, key[2], key[3], key[4])
        fn = keep(_STEPS, key, host_step(stub), STEPS_KEPT)
    return fn


# (Python int, numpy dtype, shape) -> its read-only numpy value: a Python integer leaf (an index,
# a slice start, a count: ~7 of every 10 leaves of a scikit-learn pass, mostly small values met
# again and again) costs a dict look-up instead of np.array's ~0.5-1.5 us. Emptied when full.
_INT_VALUES = {}
INT_VALUES_KEPT = 4096


def int_value(leaf):
    """The numpy value of a leaf whose host value is a Python int, read-only and shared: for
    `HostProgram.run` only, whose outputs are copied unless they are their own writeable memory
    (an evaluation writing into it would raise, never change a kept value)."""
    key = (leaf.host, leaf.dtype.np, leaf.shape)
    v = _INT_VALUES.get(key)
    if v is None:
        v = leaf_value(leaf)
        if v.base is None:
            v.flags.writeable = False
            keep(_INT_VALUES, key, v, INT_VALUES_KEPT)
    return v


def _leaf_values(vals, positions, leaves):
    """`vals` with each leaf's value at its position: a host array of the leaf's dtype and shape
    as it is, a Python int's shared value (`int_value`; its table read here, ~0.1 us less than
    the call: a GaussianMixture run reads ~80 int leaves, ~7 of every 10 leaves of a scikit-learn
    pass), anything else converted (`leaf_value`)."""
    ndarray, ints = np.ndarray, _INT_VALUES
    for p, leaf in zip(positions, leaves):
        v = leaf.host
        t = type(v)
        if t is ndarray:
            if v.dtype is not leaf.dtype.np or v.shape != leaf.shape:
                v = leaf_value(leaf)
        elif t is int:
            w = ints.get((v, leaf.dtype.np, leaf.shape))  # (`int_value`'s key)
            v = int_value(leaf) if w is None else w
        else:
            v = leaf_value(leaf)
        vals[p] = v
    return vals


def _outputs(vals, out_pos, outputs):
    """The outputs' values, each its own writeable C-ordered memory (a kept constant, a view of
    an operand or of a leaf's value is copied)."""
    out = []
    for o, p in zip(outputs, out_pos):
        v = vals[p]
        f = v.flags  # (one flags object: each `.flags` makes one)
        if not (f.owndata and f.writeable and f.c_contiguous):
            v = _runtime.private_copy(v, o.dtype.np)  # (a large one: a device buffer can adopt it)
        out.append(v)
    return out
