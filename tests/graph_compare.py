"""Graphs compared node for node: what the recording fast paths' tests assert (a shortcut records
the same graph as the general path)."""
import numpy as np


def describe(node, leaves):
    """A node's graph as nested tuples: op, attributes, shape, dtype, operands. An array leaf is
    named by its position among the distinct array leaves met (so two graphs on the same base
    compare equal only when they read the same leaves in the same places); a host scalar leaf by
    its value, shape and dtype."""
    if node.op is None:
        host = node.host
        if node.shape == () and host is not None and not isinstance(host, np.ndarray):
            return ("scalar", host, node.dtype)
        if id(node) not in leaves:
            leaves[id(node)] = len(leaves)
        return ("leaf", leaves[id(node)], node.shape, node.dtype)
    return (node.op.name, tuple(node.attrs), node.shape, node.dtype,
            tuple(describe(a, leaves) for a in node.args))


def same_graph(a, b):
    """a and b (nodes) are the same graph over the same leaves."""
    leaves = {}
    return describe(a, leaves) == describe(b, leaves)


def same_nodes(n, m):
    """n and m are one node, or new nodes of the same op, attributes, shape, dtype and operands in
    order, down to the same leaf objects (stricter than `same_graph`, whose leaf numbering by first
    visit cannot tell dot(x, v) from dot(v, x))."""
    if n is m:
        return True
    return (n.op is m.op and n.op is not None and n.attrs == m.attrs and n.shape == m.shape
            and n.dtype is m.dtype and len(n.args) == len(m.args)
            and all(same_nodes(a, b) for a, b in zip(n.args, m.args)))
