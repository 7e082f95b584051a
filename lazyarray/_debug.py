"""Seeing the invisible: evaluate several arrays at once, graph dumps (text, Graphviz dot), the
StableHLO of any pending array, and the metrics report."""
from __future__ import annotations

import collections

from . import _engine
from ._emit import emit_module
from ._sharding_rules import program_layout
from ._graph import toposort
from ._graph_text import format_graph
from ._helpers import check_array
from ._metrics import metrics
from ._array_object import Array


def evaluate(*arrays: Array) -> Array | tuple[Array, ...]:
    """Materialize all arrays in ONE compiled program; their results stay on the device."""
    if len(arrays) == 1:
        a = check_array(arrays[0], "evaluate argument")
        _engine.realize([a._node], a.device, "evaluate")
        return a
    by_device = collections.defaultdict(list)
    for a in arrays:
        check_array(a, "evaluate argument")
        by_device[a.device].append(a._node)
    for device, nodes in by_device.items():
        _engine.realize(nodes, device, "evaluate")
    return arrays[0] if len(arrays) == 1 else arrays


def _nodes(arrays):
    nodes = []
    for a in arrays:
        check_array(a)
        nodes.append(a._node)
    order, leaves = toposort(nodes)
    return order, leaves, nodes


def graph_text(*arrays: Array) -> str:
    """The pending graph behind the arrays, one node a line."""
    order, leaves, outs = _nodes(arrays)
    return format_graph(order, leaves, outs)


def graph_dot(*arrays: Array) -> str:
    """The pending graph in Graphviz dot."""
    order, leaves, outs = _nodes(arrays)
    names = {}
    lines = ["digraph lazyarray {", "  rankdir=TB;"]
    for i, leaf in enumerate(leaves):
        names[id(leaf)] = f"p{i}"
        lines.append(f'  p{i} [shape=box, label="param {leaf.dtype.name}{list(leaf.shape)}"];')
    for j, node in enumerate(order):
        names[id(node)] = f"n{j}"
        lines.append(f'  n{j} [label="{node.op.name}\\n{node.dtype.name}{list(node.shape)}"];')
        for a in node.args:
            lines.append(f"  {names[id(a)]} -> n{j};")
    for o in outs:
        lines.append(f"  {names[id(o)]} [penwidth=3];")
    lines.append("}")
    return "\n".join(lines)


def stablehlo(*arrays: Array) -> str:
    """The StableHLO module that would compute the arrays now."""
    order, leaves, outs = _nodes(arrays)
    pending = [o for o in outs if o.op is not None]
    if not pending:
        return "// every array is already materialized: nothing to compile"
    order, leaves = toposort(pending)
    # (arrays on a mesh: with the Shardy annotations their program gets)
    return emit_module(order, leaves, pending, layout=program_layout(arrays[0]._device, order, leaves, pending))


def report() -> str:
    """The metrics report as text (print it)."""
    return metrics.report()


