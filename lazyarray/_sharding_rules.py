"""How a layout propagates through the lazy graph, and the layout of one program over a mesh.

Each node's layout (a normalized spec, see `_sharding`): the one the user asked for or a computed
buffer carries (`_sharding.explicit`); else derived from its operands by a few rules that keep
the split where it stays cheap (elementwise: an operand's layout; reduce: the operand's layout
without the reduced axes; dot_general: the lhs batch and free axes and the rhs free axes;
transpose and broadcast: moved with the axes; a loop (`REPEAT`): its carry's layout); else unknown. Inside a program only the explicit
layouts are annotated (`sdy.sharding_constraint`) and XLA's propagation decides the rest; a
program output must be laid out one way (it becomes a buffer we hold), so an output of unknown
layout is replicated (XLA gathers it).

The `Layout` of one program is what its key and its StableHLO annotations need: the mesh, the
spec of each device input (by leaf), of each output, and of each explicitly placed node inside.
"""
from __future__ import annotations

import weakref

from . import _sharding
from ._ops.dot import DOT_GENERAL
from ._ops.elementwise import Elementwise
from ._ops.loop import REPEAT
from ._ops.reduce import REDUCE
from ._ops.shape import BROADCAST_IN_DIM, TRANSPOSE

_propagated = weakref.WeakKeyDictionary()  # node -> its derived spec (dies with the node)


def spec_of(node, mesh):
    """The layout of `node` over `mesh`; nodes of unknown layout are replicated."""
    s = _sharding.explicit.get(node)
    if s is not None and s.mesh == mesh:
        return s.normalized(len(node.shape))
    hit = _propagated.get(node)
    if hit is not None:
        return hit
    # iterative post-order: a deep graph does not reach Python's recursion limit
    stack = [(node, False)]
    while stack:
        n, expanded = stack.pop()
        if _known(n, mesh):
            continue
        if not expanded and n.op is not None:
            stack.append((n, True))
            stack.extend((a, False) for a in n.args if not _known(a, mesh))
            continue
        # (a guess may split an axis unevenly: its buffer is then held as `_sharding.stored` says)
        _propagated[n] = _rule(n, [_cached(a, mesh) for a in n.args]) if n.op is not None else ((),) * len(n.shape)
    return _cached(node, mesh)


def _known(n, mesh):
    s = _sharding.explicit.get(n)
    if s is not None and s.mesh == mesh:
        return True
    return n in _propagated


def _cached(n, mesh):
    s = _sharding.explicit.get(n)
    if s is not None and s.mesh == mesh:
        return s.normalized(len(n.shape))
    return _propagated[n]


def _rule(node, specs):
    op, args, ndim = node.op, node.args, len(node.shape)
    unsplit = ((),) * ndim
    if isinstance(op, Elementwise):
        for a, s in zip(args, specs):
            if a.shape == node.shape and any(s):
                return s
        return unsplit
    if op is REDUCE:
        dims = node.attrs.dims
        return tuple(s for i, s in enumerate(specs[0]) if i not in dims)
    if op is TRANSPOSE:
        return tuple(specs[0][p] for p in node.attrs.perm)
    if op is BROADCAST_IN_DIM:
        out = [()] * ndim
        for i, d in enumerate(node.attrs.dims):
            if args[0].shape[i] == node.shape[d]:
                out[d] = specs[0][i]
        return tuple(out)
    if op is REPEAT:  # the loop's value keeps its carry's layout (XLA propagates through the body)
        return specs[1 + node.attrs.body.carry]
    if op is DOT_GENERAL:
        lb, rb, lc, rc = node.attrs
        (x, y), (sx, sy) = args, specs
        out = [sx[i] for i in lb]
        out += [sx[i] for i in range(len(x.shape)) if i not in lb and i not in lc]
        out += [sy[i] for i in range(len(y.shape)) if i not in rb and i not in rc]
        seen, clean = set(), []
        for axes in out:  # a mesh axis splits one result axis at most
            clean.append(tuple(a for a in axes if a not in seen))
            seen.update(axes)
        return tuple(clean)
    return unsplit


class Layout:
    """One program's layout over `mesh`: `leaf_specs[id(leaf)]` for each device input,
    `out_specs` per output (both as the buffers are held: `_sharding.stored`; `out_asked`: the
    outputs' own layouts, which the arrays report),
    `constraints[id(node)]` for explicitly placed nodes inside, and for leaves and outputs whose
    requested split does not divide (the uneven split itself: XLA pads the shards inside)."""
    __slots__ = ("mesh", "leaf_specs", "out_asked", "out_specs", "constraints", "key")

    def __init__(self, mesh, leaves, outputs, order):
        self.mesh = mesh
        self.constraints = {}
        stored = _sharding.stored
        uneven = []
        self.leaf_specs = {}
        for leaf in leaves:
            if leaf.shape:
                spec = spec_of(leaf, mesh)
                held = self.leaf_specs[id(leaf)] = stored(mesh, spec, leaf.shape)
                if held != spec:
                    self.constraints[id(leaf)] = spec
                    uneven.append((len(self.leaf_specs), spec))
        self.out_asked = [spec_of(o, mesh) for o in outputs]
        self.out_specs = [stored(mesh, spec, o.shape) for o, spec in zip(outputs, self.out_asked)]
        uneven_outs = {id(o): spec for o, spec, held in zip(outputs, self.out_asked, self.out_specs) if spec != held}
        outs = {id(o) for o in outputs}
        explicit = _sharding.explicit
        for n in order:
            s = explicit.get(n)
            if id(n) in uneven_outs:  # computed split, then held as out_specs says
                self.constraints[id(n)] = uneven_outs[id(n)]
            elif s is not None and s.mesh == mesh and id(n) not in outs:
                self.constraints[id(n)] = s.normalized(len(n.shape))
        self.key = (tuple(self.leaf_specs.values()), tuple(self.out_specs),
                    tuple(self.constraints.values()), tuple(uneven))


def program_layout(device, order, leaves, outputs):
    """The layout of a program run on `device` (None off a mesh)."""
    mesh = device.mesh
    if mesh is None:
        return None
    return Layout(mesh, leaves, outputs, order)
