"""Repeat: one loop chunk applied N times in one program, N a parameter (`stablehlo.while`).

A loop's unrolled graph is computed chunk by chunk (`_segment`), and every chunk after the first
is the same graph applied to the previous chunk's output. Run as N programs, each chunk pays a
dispatch and the engine's bookkeeping (~0.1-0.3 ms here, as much as a small chunk's compute);
`REPEAT` runs all N in one program: a while loop whose body is the chunk's graph, so 10, 100 or
1000 iterations are one dispatch and one compiled program.

The chunk's graph is a `Body`: template nodes over template parameters, compared and hashed by
its structure (the node's attribute, so it is part of the program's key). The REPEAT node's
operands are the trip count (an int64 host scalar: a parameter, never part of the key) and the
body's parameters; one of them, `carry`, is the value the chunk updates: each pass feeds the
body's output back into it, and the node's value is the last pass's output. The others are
loop-invariant (the same value every pass).

Per-pass scalars: a loop whose steps differ only in a host scalar (a learning rate that decays,
the coefficients of a polynomial evaluated by Horner's rule) reads it from a `stacked` operand:
a vector of STACK values, pass i reading element i (`stablehlo.dynamic_slice` by the trip
counter). Its length is fixed, never the iteration count, so one program serves every count;
a longer loop is several REPEAT nodes of at most STACK passes, one after another (`_segment`).

Both tiers compute exactly what the chunk programs one after another would: the interpreter runs
the body's host evaluations N times; the compiled body is the chunk's own lowering.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtypes
from .._emit import Emitter, V, ttype
from .._graph import Node
from .core import INTERPRET_MAX_WORK, OpDef, node_value


STACK = 32  # passes per REPEAT whose body reads per-pass scalars (the stacked operands' length)


class Body:
    """A chunk's graph as a template. `params`: leaf nodes standing for its inputs; `nodes`:
    its computed nodes in dependency order (operands are params or earlier nodes); `out`: the
    index of the output among them; `carry`: the index of the param the output replaces on the
    next pass; `stacked`: the params (scalars) whose operand is a vector of STACK values, one a
    pass. `sig` is the structure (ops, attributes, types, wiring), what equality and hashing
    read."""

    __slots__ = ("params", "nodes", "out", "carry", "stacked", "sig", "_hash")

    def __init__(self, params, nodes, out, carry, sig, stacked=()):
        self.params, self.nodes, self.out, self.carry, self.stacked = params, nodes, out, carry, stacked
        self.sig = sig if not stacked else sig + (("stacked", stacked),)
        self._hash = hash(self.sig)

    def __eq__(self, other):
        return isinstance(other, Body) and self._hash == other._hash and self.sig == other.sig

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"body<{len(self.nodes)} ops, {len(self.params)} inputs, carry {self.carry}>"


def template(order, externals, carry, out, stacked=(), slot_at=None):
    """A Body from a chunk: `order` its computed nodes (operands first), `externals` the values
    it reads from outside (its parameters, in order), `carry` the index of the one its output
    (`order[out]`) replaces, `stacked` the indices of the per-pass scalars. `slot_at`, if given,
    names the parameter each operand reads (flat over the nodes' operands, in order; None: a
    node of the chunk), for a chunk that reads one object as two parameters (`_segment`: a
    leaf shared by two per-pass scalars in one pass only); otherwise an external is one
    parameter wherever it is read."""
    index = {id(x): -(k + 1) for k, x in enumerate(externals)}
    params = [Node(None, (), (), x.shape, x.dtype) for x in externals]
    nodes, sig = [], [(carry, out, tuple((p.shape, p.dtype) for p in params))]
    flat = 0
    for k, node in enumerate(order):
        if slot_at is None:
            refs = tuple(index[id(a)] for a in node.args)
        else:
            refs = tuple(index[id(a)] if s is None else -(s + 1)
                         for a, s in zip(node.args, slot_at[flat:flat + len(node.args)]))
            flat += len(node.args)
        args = tuple(params[-r - 1] if r < 0 else nodes[r] for r in refs)
        index[id(node)] = k
        nodes.append(Node(node.op, args, node.attrs, node.shape, node.dtype))
        sig.append((node.op, node.attrs, node.shape, node.dtype, refs))
    return Body(params, nodes, out, carry, tuple(sig), tuple(stacked))


def _rule(args, a):
    body = a.body
    count, values = args[0], args[1:]
    if count.shape != () or count.dtype is not _dtypes.int64 or len(values) != len(body.params) \
            or any(v.shape != ((STACK,) + p.shape if k in body.stacked else p.shape) or v.dtype is not p.dtype
                   for k, (v, p) in enumerate(zip(values, body.params))):
        raise AssertionError(f"repeat of {body} over operands {[(v.shape, v.dtype.name) for v in args]}")
    out, carried = body.nodes[body.out], body.params[body.carry]
    if out.shape != carried.shape or out.dtype is not carried.dtype:
        raise AssertionError(f"repeat: {body} outputs {out.shape} {out.dtype.name} for a carry of "
                             f"{carried.shape} {carried.dtype.name}")
    return carried.shape, carried.dtype


def _lower(e, node, count, *values):
    """stablehlo.while over (i, n, params...): the condition i < n, the body the chunk's ops
    with its output in the carry's place."""
    body = node.attrs.body
    i64 = _dtypes.int64
    zero = e.constant(0, (), i64)
    state = [zero, count] + list(values)
    types = [(v.shape, v.dtype) for v in state]

    def block(sub):
        args = [V(sub.fresh(), s, d) for s, d in types]
        head = ", ".join(f"{a.name}: {ttype(a.shape, a.dtype)}" for a in args)
        return args, f"  ^bb0({head}):"

    def region(build):
        sub = Emitter()
        sub._n, sub.functions = e._n, e.functions  # (one name counter; borrowed functions shared)
        args, head = block(sub)
        rets = build(sub, args)
        e._n = sub._n
        ret = (f'      "stablehlo.return"({", ".join(r.name for r in rets)}) : '
               f'({", ".join(ttype(r.shape, r.dtype) for r in rets)}) -> ()')
        return "\n".join([head] + sub.lines + [ret])

    def cond(sub, args):
        return [sub.op("stablehlo.compare", (args[0], args[1]), (), _dtypes.bool,
                       "comparison_direction = #stablehlo<comparison_direction LT>")]

    def step(sub, args):
        i, n, params = args[0], args[1], args[2:]
        vals = {id(p): v for p, v in zip(body.params, params)}
        for k in body.stacked:  # this pass's element of a stacked operand
            p = body.params[k]
            one = sub.op("stablehlo.dynamic_slice", (params[k], i), (1,), p.dtype, "slice_sizes = array<i64: 1>")
            vals[id(p)] = sub.op("stablehlo.reshape", (one,), (), p.dtype)
        for t in body.nodes:
            vals[id(t)] = t.op.lower(sub, t, *[vals[id(a)] for a in t.args])
        one = sub.constant(1, (), i64)
        nxt = list(params)
        nxt[body.carry] = vals[id(body.nodes[body.out])]
        return [sub.op("stablehlo.add", (i, one), (), i64), n] + nxt

    regions = region(cond) + "\n}, {\n" + region(step)
    outs = e.op_multi("stablehlo.while", state, types, region=regions)
    return outs[2 + body.carry]


def _evaluate(node, count, *values):
    body = node.attrs.body
    values = list(values)
    out = body.nodes[body.out]
    for i in range(int(count)):
        env = {id(p): v for p, v in zip(body.params, values)}
        for k in body.stacked:
            env[id(body.params[k])] = np.asarray(values[k])[i, ...]
        for t in body.nodes:
            env[id(t)] = node_value(t.op.evaluate(t, *[env[id(a)] for a in t.args]), t)
        values[body.carry] = env[id(out)]
    return values[body.carry]


# Element-ops (passes times the elements of the body's nodes) above which the loop compiles at
# first sight: the interpreter tier's own limit for one graph (`core.INTERPRET_MAX_WORK`). A chunk
# run one program at a time switched to its compiled program mid-loop; a REPEAT is one program,
# so interpreting it would interpret every pass.


def _covers(node):
    body, count = node.attrs.body, node.args[0]
    passes = int(count.host) if count.op is None and count.host is not None else 1 << 30
    work = passes * sum(math.prod(t.shape) for t in body.nodes)
    return work <= INTERPRET_MAX_WORK and all(t.op.interpretable(t) for t in body.nodes)


REPEAT = OpDef("repeat", attrs=("body",), rule=_rule, lower=_lower, evaluate=_evaluate, covers=_covers)


def repeat(count, body, values):
    """The node whose value is `body` applied `count` times (a host int64 leaf) from `values`."""
    return REPEAT.bind((count,) + tuple(values), REPEAT.Attrs(body))
