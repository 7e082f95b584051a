"""`OpDef`: one primitive, defined once.

A primitive is everything the two execution tiers need to know about one op, side by side:

- `rule(args, attrs) -> (shape, dtype)`: the shape/dtype rule. Builders call it through
  `bind` when tracing; the graph verifier (`_verify`) calls it again at a sync.
- `lower(e, node, *values) -> value`: its StableHLO, through the emitter (`_emit.Emitter`).
- `evaluate(node, *arrays) -> array`: its numpy evaluation for the interpreter tier, computing
  what the compiled program computes (StableHLO's semantics, not numpy's where they differ), and
  `covers(node)`, when given, saying which nodes that evaluation is exact for; a graph with a node
  no evaluation covers is compiled instead.
- `attrs`: the names of its static attributes, when it has any: `node.attrs` is then a named
  tuple (`node.attrs.axis`), hashable and part of the graph's structural key.
- a host evaluation may carry `prepare(node) -> function of the operand arrays` (attached by
  `prepared`): the same values as `evaluate(node, *arrays)` with every decision that depends on
  the node's structure alone (its attributes, shape and dtypes) taken once. A graph the
  interpreter serves again runs one such function per node (`host_step`, `_interpret.HostProgram`),
  e.g. numpy's ufunc itself for an op whose evaluation is that ufunc.
- `compile_extra(node) -> seconds`, when given: what XLA's CPU compile of this node costs beyond
  an ordinary node's (`_tier_policy.compile_estimate`): scans and float max/min reductions take
  0.1-0.15 s alone where an add takes ~1 ms beyond the fixed ~25 ms.

Every OpDef registers under its unique name in `OPS`, the op vocabulary (debug dumps and the
fuzzer read it). Builders, the functions the namespace modules call, sit beside their OpDef in
the family module and pass it around as an object: op names are never strings outside this
package.
"""
from __future__ import annotations

import collections
import functools

import numpy as np

from .. import _bounded
from .._graph import bind as _bind

OPS = {}  # name -> OpDef
memo, keep = _bounded.memo, _bounded.keep  # (the ops' modules call them as core.memo, core.keep)

# Elements computed by a graph (summed over its nodes) above which compiling beats interpreting:
# numpy takes ~1-5 ns an element and op, so 2^22 element-ops cost ~4-20 ms against a 30+ ms compile.
# The tier policy's limit for a graph, and REPEAT's for all the passes of its body.
INTERPRET_MAX_WORK = 1 << 22


def node_value(v, node, shape=None):
    """An evaluation's result as a numpy array of the node's dtype; `shape` (default the node's)
    is checked: an evaluation that disagrees with its op's rule is a bug, never silently reshaped."""
    npdt = node.dtype.np
    if type(v) is not np.ndarray or (v.dtype is not npdt and v.dtype != npdt):  # (identity first: ~0.1 us)
        v = np.asarray(v, dtype=npdt)
    want = node.shape if shape is None else shape
    if v.shape != want:
        raise AssertionError(f"interpreter: {node} evaluated to shape {v.shape}, expected {want}")
    return v


class OpDef:
    __slots__ = ("name", "rule", "lower", "evaluate", "covers", "Attrs", "compile_extra")

    def __init__(self, name, *, rule, lower, evaluate=None, covers=None, attrs=None, compile_extra=None):
        if name in OPS:
            raise AssertionError(f"primitive {name!r} defined twice")
        self.name = name
        self.rule = rule
        self.lower = lower
        self.evaluate = evaluate
        self.covers = covers
        self.Attrs = collections.namedtuple(f"{name.replace('.', '_')}_attrs", attrs) if attrs else None
        self.compile_extra = compile_extra
        OPS[name] = self

    def bind(self, args, attrs=()):
        """Record a node of this primitive; its shape and dtype come from the rule."""
        shape, dtype = self.rule(args, attrs)
        return _bind(self, args, attrs, shape, dtype)

    def interpretable(self, node):
        """Whether the interpreter tier computes `node` exactly as the compiled program does."""
        return self.evaluate is not None and (self.covers is None or self.covers(node))

    def __repr__(self):
        return f"OpDef({self.name})"


def prepared(prepare):
    """Decorator of a host evaluation: `prepare(node)` gives the function of the operand arrays
    that computes `evaluate(node, *arrays)` for every node of that node's structure (attributes,
    shape, dtypes: a graph interpreted again has equal ones), or None where it has no faster form
    than the evaluation itself. It is attached to the evaluation, not to the OpDef, so an
    evaluation replaced on the OpDef (a test's, a fix's) never runs beside a stale fast form."""
    def attach(evaluate):
        evaluate.prepare = prepare
        return evaluate
    return attach


def host_step(node):
    """The function of `node`'s operand arrays that evaluates it: its evaluation's prepared form
    (`prepared`), else the evaluation bound to `node`. `node` may be a structural stand-in
    (`_interpret.Stub`): evaluations read only op, attrs, shape, dtype and their operands' shapes
    and dtypes."""
    evaluate = node.op.evaluate
    prepare = getattr(evaluate, "prepare", None)
    if prepare is not None:
        fn = prepare(node)
        if fn is not None:
            return fn
    return functools.partial(evaluate, node)


def same_shape(args):
    """The common shape of elementwise operands: equal shapes, or () for an operand that the
    lowering broadcasts (a scalar costs no broadcast node while tracing)."""
    shape = ()
    for a in args:
        s = a.shape
        if s:
            if shape and s != shape:
                raise AssertionError(f"elementwise operands of shapes {[a.shape for a in args]}")
            shape = s
    return shape


def kinds(allowed):
    """A `covers` check: the first operand's dtype kind is one of `allowed` ('biufc')."""
    return lambda node: node.args[0].dtype.kind in allowed


def typed(value, npdt):
    """A numpy 0-D value of dtype `npdt` (keeps the interpreter's arithmetic in that dtype)."""
    return np.asarray(value, dtype=npdt)
