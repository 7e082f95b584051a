"""The graph verifier: at a sync, re-check every computed node against its primitive's rule.

A node's shape and dtype are fixed by its builder when it is traced. The verifier recomputes
them from the operands and attributes with the primitive's own rule (`OpDef.rule`) and checks
the invariants every node and leaf must keep, so a builder or a rewrite that recorded a wrong
node fails at the sync with the node named, not later as a wrong value or an XLA error. Off by
default (it costs about a rule call per node); on with LAZYARRAY_VERIFY=1 or LAZYARRAY_DEBUG=4,
and in our tests.
"""
from __future__ import annotations

from ._dtypes import DType


class GraphError(AssertionError):
    """A node broke its primitive's rule or the graph's invariants (a bug of ours, not the user's)."""


def _check_shape(shape, what):
    if type(shape) is not tuple or not all(type(n) is int and n >= 0 for n in shape):
        raise GraphError(f"{what}: shape {shape!r} is not a tuple of non-negative ints")


def verify(order, leaves):
    """Check `order` (computed nodes, operands first) and `leaves`; raise GraphError on the first
    node that breaks a rule."""
    known = set(map(id, leaves))
    for leaf in leaves:
        _check_shape(leaf.shape, f"leaf {leaf}")
        if not isinstance(leaf.dtype, DType):
            raise GraphError(f"leaf {leaf}: dtype {leaf.dtype!r} is not a DType")
        if leaf.op is not None or (leaf.buffer is None and leaf.host is None):
            raise GraphError(f"leaf {leaf}: a leaf holds a device buffer or a host value")
    for node in order:
        what = f"node {node}"
        _check_shape(node.shape, what)
        if not isinstance(node.attrs, tuple):  # a tuple or an OpDef's named tuple
            raise GraphError(f"{what}: attributes {node.attrs!r} are not a tuple")
        hash(node.attrs)
        for a in node.args:
            if id(a) not in known:
                raise GraphError(f"{what}: operand {a} does not come before it in the order")
        rule = getattr(node.op, "rule", None)
        if rule is not None:
            try:
                shape, dtype = rule(node.args, node.attrs)
            except Exception as exc:  # noqa: BLE001 - a rule that cannot apply is a broken node
                raise GraphError(f"{what}: its rule rejects the operands "
                                 f"{[(a.shape, a.dtype.name) for a in node.args]}, attributes "
                                 f"{node.attrs!r}: {type(exc).__name__}: {exc}") from None
            if shape != node.shape or dtype is not node.dtype:
                raise GraphError(f"{what}: its rule gives shape {shape}, dtype {dtype.name} from the "
                                 f"operands {[(a.shape, a.dtype.name) for a in node.args]}")
        known.add(id(node))
