"""The `LAZYARRAY_DEBUG` ladder's output, on stderr (like tinygrad's DEBUG):

1  one line per cache miss: a graph compiled (now or in the background) or first interpreted,
   with its size and the user's file:line that caused the sync, and why it missed
2  + the graph's text (`_graph_text`: one node a line) of each compiled graph
3  + its StableHLO
4  + the graph verifier at every sync (`_verify`; `_run_program` switches it on)

The engine calls these only when `_config.debug` is set, so the ladder costs nothing when off.
"""
from __future__ import annotations

import sys

from . import _config
from ._graph_text import format_graph


def _say(text):
    print(text, file=sys.stderr, flush=True)


def compile_started(where, order, leaves, outputs, text, reason, background):
    """A cache miss that compiles: one line, then (levels 2, 3) the graph and its StableHLO."""
    when = "in the background" if background else "now"
    why = f": {reason}" if reason else ""
    _say(f"lazyarray: compile {len(order)} ops {when} at {where}{why}")
    if _config.debug >= 2:
        _say(format_graph(order, leaves, outputs))
    if _config.debug >= 3:
        _say(text)


def interpreted_new(where, order):
    """A graph seen for the first time runs in the interpreter tier (a miss that compiles later,
    if it repeats)."""
    _say(f"lazyarray: new graph of {len(order)} ops at {where}: interpreted (compiled once it repeats)")
