"""A budget cut that chunks a loop gathers the graph's computed nodes (`_graph.computed_nodes`)
instead of walking a full `Plan`: the same nodes as the plan's order (chunking reads nothing
else, in creation order), the same start-of-sync rule for Python scalars, and loops cut many
times compute numpy's values with a number of compiles that does not grow with their length."""
import random

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _graph
from lazyarray._graph import Plan, computed_nodes, pending


def _random_graph(rng, steps):
    consts = [1.0, 2.5, -0.5]
    base = xp.asarray(np.linspace(0.5, 1.5, 6))
    other = xp.asarray(np.linspace(-1.0, 1.0, 6))
    y, seen, outs = base, [base], []
    for _ in range(steps):
        r = rng.random()
        if r < 0.4:
            y = y + consts[rng.randrange(3)]
        elif r < 0.5:
            y = xp.sin(y)
        elif r < 0.6:
            y = consts[1] - y
        elif r < 0.75:
            y = y * seen[rng.randrange(len(seen))]
        elif r < 0.85:
            y = y - other
        else:
            outs.append(y)
        seen.append(y)
    outs.append(y)
    outs.append(base)  # (a leaf among the outputs: no computed node)
    return [h._node for h in outs]


@pytest.mark.parametrize("seed", range(8))
def test_gathered_nodes_are_the_plans_computed_nodes(seed):
    with _graph.lock:
        outputs = _random_graph(random.Random(seed), 300)
        gathered = computed_nodes(outputs)
        saved = pending.nodes_since_sync
        pending.nodes_since_sync = 1000  # (the deep walk, as at a cut)
        try:
            plan = Plan(outputs)
        finally:
            pending.nodes_since_sync = saved
    assert len(gathered) == len({id(n) for n in gathered})  # each node once
    assert {id(n) for n in gathered} == {id(n) for n in plan.order}
    assert all(n.op is not None for n in gathered)


def test_gathering_starts_a_sync_for_python_scalars():
    x = xp.asarray(np.ones(3))
    c = 7.0
    y = x + c
    with _graph.lock:
        first = _graph.scalar_leaf(c, y._node.dtype)
        assert _graph.scalar_leaf(c, y._node.dtype) is first  # (one leaf until the next sync)
        computed_nodes([y._node])
        assert _graph.scalar_leaf(c, y._node.dtype) is not first  # (as `Plan` does)
    np.testing.assert_array_equal(np.asarray(y), np.full(3, 8.0))


def _descent(xp_, X, y, w, steps):
    n = X.shape[0]
    for _ in range(steps):
        p = 1.0 / (1.0 + xp_.exp(-(X @ w)))
        w = w - 0.5 * (X.T @ (p - y) / n)
    return w


def test_a_chunked_loop_cut_many_times_computes_numpys_values():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 6))
    yv = (rng.random(400) < 0.5).astype(np.float64)
    w0 = np.zeros(6)
    Xl, yl, wl = xp.asarray(X), xp.asarray(yv), xp.asarray(w0)
    syncs = xp.metrics.segmented_syncs
    got = np.asarray(_descent(xp, Xl, yl, wl, 250))  # ~2500 nodes: budget cuts, chunked
    assert xp.metrics.segmented_syncs > syncs
    np.testing.assert_allclose(got, _descent(np, X, yv, w0, 250), rtol=1e-10, atol=1e-12)
    _engine.wait_for_compiles()
    compiles = xp.metrics.compiles
    for steps in (500, 750):
        np.testing.assert_allclose(np.asarray(_descent(xp, Xl, yl, wl, steps)),
                                   _descent(np, X, yv, w0, steps), rtol=1e-10, atol=1e-12)
        _engine.wait_for_compiles()
    assert xp.metrics.compiles - compiles <= 2  # (a read's remainder at most; never per cut)


def test_an_exact_loop_through_cuts_is_bit_identical_to_numpy():
    x = xp.asarray(np.arange(8.0))
    y, want = x, np.arange(8.0)
    for k in range(900):  # 2700 nodes of exact float arithmetic (small integers)
        y = (y * 3.0 - 2.0 * y) + 1.0 - 1.0 + (k % 3)
        want = (want * 3.0 - 2.0 * want) + 1.0 - 1.0 + (k % 3)
    np.testing.assert_array_equal(np.asarray(y), want)
