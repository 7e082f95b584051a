"""TRACE's recording and walk shortcuts give what the general code gives.

`_graph.Plan._walk`'s chain run (binary nodes whose operands are the node just positioned and
the last second operand) against the recursive walk, on graphs with runs that start, break and
resume; the operator fast path's last-scalar slot (`_graph.last_scalar`) against the scalar
table it stands for (`scalar_leaf`): the same leaf for the same object and dtype until a sync,
a new one after it, never a leaf of another dtype or object."""
from __future__ import annotations

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _graph
from lazyarray._graph import Plan, pending


def _walks(outputs):
    recursive = Plan()
    saved, pending.nodes_since_sync = pending.nodes_since_sync, 0
    try:
        recursive.add(outputs)
    finally:
        pending.nodes_since_sync = saved
    stacked = Plan.__new__(Plan)
    stacked.order, stacked.leaves, stacked.sig, stacked.index = [], [], [], {}
    stacked._walk(outputs)
    return recursive, stacked


def _same_walk(outputs):
    recursive, stacked = _walks(outputs)
    assert stacked.sig == recursive.sig
    assert [id(n) for n in stacked.order] == [id(n) for n in recursive.order]
    assert [id(n) for n in stacked.leaves] == [id(n) for n in recursive.leaves]
    assert stacked.index == recursive.index
    assert stacked.key(outputs) == recursive.key(outputs)
    return stacked


def _chain(start, steps):
    """`y = y OP c` runs, broken by other shapes of node: a new constant, a swapped operand,
    an array operand, a unary op, a second chain joining in."""
    other = xp.asarray(np.linspace(1.0, 2.0, 5))
    c, d = 1.0, 2.5
    y = start
    for k in range(steps):
        kind = k % 23
        if kind == 5:
            y = y * d            # another constant: breaks the run, starts one with `d`
        elif kind == 9:
            y = 3.0 - y          # swapped: the chain through the second operand
        elif kind == 12:
            y = y + other        # an array operand (a leaf)
        elif kind == 15:
            y = xp.exp(y * 0.01)  # unary
        elif kind == 19:
            z = other * 0.5
            for _ in range(3):
                z = z + c
            y = y - z            # a computed second operand: pushed and walked first
        else:
            y = y + c
    return y


@pytest.mark.parametrize("steps", [1, 2, 7, 60, 240])
def test_chain_runs_walk_as_the_recursive_walk(steps):
    x = xp.asarray(np.arange(5.0))
    y = _chain(x, steps)
    plan = _same_walk([y._node])
    assert len(plan.order) >= steps
    np.testing.assert_allclose(np.asarray(y), _chain_numpy(np.arange(5.0), steps), rtol=1e-12)


def _chain_numpy(y, steps):
    other = np.linspace(1.0, 2.0, 5)
    for k in range(steps):
        kind = k % 23
        if kind == 5:
            y = y * 2.5
        elif kind == 9:
            y = 3.0 - y
        elif kind == 12:
            y = y + other
        elif kind == 15:
            y = np.exp(y * 0.01)
        elif kind == 19:
            z = other * 0.5
            for _ in range(3):
                z = z + 1.0
            y = y - z
        else:
            y = y + 1.0
    return y


def test_chain_runs_with_several_outputs_and_shared_nodes():
    x = xp.asarray(np.ones(4))
    a = x
    mids = []
    for k in range(50):
        a = a + 1.0
        if k % 10 == 3:
            mids.append(a)
    b = mids[1]
    for _ in range(30):
        b = b * 1.5            # a chain off the middle of the first one
    outputs = [b._node, a._node, mids[0]._node, mids[3]._node]
    _same_walk(outputs)
    _same_walk([mids[2]._node, b._node])
    np.testing.assert_allclose(np.asarray(b), (np.ones(4) + 14.0) * 1.5 ** 30)


def test_last_scalar_is_the_tables_leaf():
    x = xp.asarray(np.ones(3))
    f = xp.asarray(np.ones(3, dtype=np.float32))
    c = 7.0
    y1 = x + c
    y2 = x + c
    leaf = y1._node.args[1]
    assert y2._node.args[1] is leaf                      # one leaf for one object until a sync
    assert _graph.scalar_leaf(c, leaf.dtype) is leaf     # the table's
    g1 = f + c                                           # the same object in another dtype
    assert g1._node.args[1] is not leaf and g1._node.args[1].dtype is f._node.dtype
    y3 = x + c                                           # back: the table's (new) entry for it
    assert y3._node.args[1] is _graph.scalar_leaf(c, leaf.dtype)
    d = 7.0 + 0.0 * len(str(c))                          # an equal value, another object
    y4 = x + d
    assert y4._node.args[1].host is d
    with _graph.lock:
        Plan([y1._node])                                 # a sync's walk empties the table
    y5 = x + c
    assert y5._node.args[1] is not y3._node.args[1]      # after it: a new leaf
    assert y5._node.args[1].host is c
    assert _graph.scalar_leaf(c, leaf.dtype) is y5._node.args[1]
    np.testing.assert_array_equal(np.asarray(y1), np.full(3, 8.0))
    np.testing.assert_array_equal(np.asarray(y5 + y4 + xp.astype(g1, xp.float64)), np.full(3, 24.0))


def test_last_scalar_reset_with_the_table():
    x = xp.asarray(np.ones(3))
    c = 2.0
    y = x * c
    with _graph.lock:
        _graph.scalar_leaves.clear()
        assert _graph.last_scalar[0].host is not c
        assert not _graph.scalar_leaves
    z = x * c
    assert z._node.args[1] is not y._node.args[1]
    assert _graph.scalar_leaves[id(c)] is z._node.args[1] is _graph.last_scalar[0]
    np.testing.assert_array_equal(np.asarray(z), np.full(3, 2.0))


def test_last_scalar_reset_by_any_emptying_of_the_table():
    """A sync path that empties the table itself (`scalar_leaves.clear()`, as the recipe read of
    `_run_program.replay_one` does) resets the slot too."""
    x = xp.asarray(np.ones(3))
    c = 3.0
    y = x * c
    with _graph.lock:
        _graph.scalar_leaves.clear()
        assert _graph.last_scalar[0].host is not c
    z = x * c
    assert z._node.args[1] is not y._node.args[1]
    assert _graph.scalar_leaves[id(c)] is z._node.args[1]
    np.testing.assert_array_equal(np.asarray(z + y), np.full(3, 6.0))
