"""A graph as text, one node a line: `xp.graph_text` shows a pending graph with it, and the debug
ladder (`LAZYARRAY_DEBUG>=2`) each graph it compiles. Leaves are `p<i>` (the program's
parameters, in first-use order), computed nodes `n<j>` (in dependency order)."""
from __future__ import annotations


def format_graph(order, leaves, outputs):
    """`order`: computed nodes, operands first; `leaves`: the leaves they read; `outputs`: the
    nodes the program returns."""
    names = {}
    lines = []
    for i, leaf in enumerate(leaves):
        names[id(leaf)] = f"p{i}"
        kind = "buffer" if leaf.buffer is not None else "host"
        lines.append(f"p{i} = param[{kind}] {leaf.dtype.name}{list(leaf.shape)}")
    for j, node in enumerate(order):
        names[id(node)] = f"n{j}"
        args = ", ".join(names[id(a)] for a in node.args)
        attrs = f" {list(node.attrs)}" if node.attrs and node.op.name != "constant" else ""
        lines.append(f"n{j} = {node.op.name}({args}){attrs} -> {node.dtype.name}{list(node.shape)}")
    lines.append("outputs: " + ", ".join(names[id(o)] for o in outputs))
    return "\n".join(lines)
