"""A budget cut, and a read where a loop was split, try the nodes recorded since the last sync
(`_graph.recorded`, creation order) as the graph before walking it (`_segment.chunks` with no
order): a loop's next call replays its recipe from them, the nodes nothing holds (a `.T` folded
into `@`) left out. The recipe's key decides: recorded nodes that are not exactly the graph's
computed nodes fall back to the walk, with the same pieces and values. The list keeps nothing
alive past a sync. Values against numpy, and bit for bit against the walk alone."""
import gc
import weakref

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _graph, _segment
from loop_workloads import logreg


def _spy(monkeypatch):
    """Counts of the cuts' walks and of replays from the recorded nodes; each replay's nodes are
    checked against the walked graph's computed nodes in creation order."""
    seen = {"walks": 0, "from_recorded": 0}
    real_walk, real_replay = _segment.computed_nodes, _segment._replay_call

    def walk(outputs):
        seen["walks"] += 1
        return real_walk(outputs)

    def replay(nodes, outputs, keep_tail, repeat, last, *proof, **kw):
        taken = nodes is not None
        want = sorted(real_walk(outputs), key=_segment._serial) if taken else None
        got = real_replay(nodes, outputs, keep_tail, repeat, last, *proof, **kw)
        if taken and got[0] is not None:
            assert len(nodes) == len(want) and all(a is b for a, b in zip(nodes, want))
        return got

    def chunks(outputs, order, keep_tail, *args, **kw):
        if order is None and keep_tail:
            seen["from_recorded"] += 1
        return real_chunks(outputs, order, keep_tail, *args, **kw)

    real_chunks = _segment.chunks
    monkeypatch.setattr(_segment, "computed_nodes", walk)
    monkeypatch.setattr(_segment, "_replay_call", replay)
    monkeypatch.setattr(_segment, "chunks", chunks)
    return seen


def _data(rng):
    X = rng.standard_normal((400, 6))
    y = (X @ rng.standard_normal(6) > 0).astype(np.float64)
    return X, y, np.zeros(6)


def _calls(X, y, w, n, steps=60):
    Xl, yl, wl = map(xp.asarray, (X, y, w))
    return [np.asarray(logreg(xp, Xl, yl, wl, steps)) for _ in range(n)]


def test_steady_cuts_replay_the_recorded_nodes_without_a_walk(fresh, rng, monkeypatch, replays):
    monkeypatch.setattr(_config, "node_budget", 160)
    X, y, w = _data(rng)
    want = logreg(np, X, y, w, 60)
    seen = _spy(monkeypatch)
    got = _calls(X, y, w, 3)
    seen["walks"] = 0
    before = replays[0]
    got += _calls(X, y, w, 3)
    assert seen["from_recorded"] >= 6 and replays[0] - before >= 6
    assert seen["walks"] == 0  # (every steady cut and read: the recorded nodes were the graph)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
    # the same calls with the recorded nodes never tried (an empty list): the walk's bits
    xp.metrics.reset()
    from lazyarray._engine_state import state
    state.reset()
    monkeypatch.setattr(_segment, "_recorded", [])
    walked = _calls(X, y, w, 6)
    for a, b in zip(got, walked):
        np.testing.assert_array_equal(a, b)


def test_recorded_nodes_that_are_not_the_graph_fall_back_to_the_walk(fresh, rng, monkeypatch):
    """A pending array made before a sync that did not compute it (so not among the recorded
    nodes), and a dead chain of two nodes (the first is held by the second): the key misses and
    the cut walks the graph; values as numpy's."""
    monkeypatch.setattr(_config, "node_budget", 160)
    X, y, w = _data(rng)
    Xl, yl, wl = map(xp.asarray, (X, y, w))
    for _ in range(3):
        np.asarray(logreg(xp, Xl, yl, wl, 60))
    seen = _spy(monkeypatch)
    before = Xl * 2.0 + 1.0  # pending across the read below (another graph)
    assert float(xp.sum(yl)) == float(np.sum(y))
    got = np.asarray(logreg(xp, Xl, yl, wl, 60))
    np.testing.assert_allclose(got, logreg(np, X, y, w, 60), rtol=1e-9, atol=1e-12)
    assert seen["walks"] >= 1
    np.testing.assert_array_equal(np.asarray(before), X * 2.0 + 1.0)

    def with_dead_chain(ns, X, y, w, steps):
        n = X.shape[0]
        for _ in range(steps):
            p = 1.0 / (1.0 + ns.exp(-(X @ w)))
            ns.exp(X @ w) * 3.0  # (dropped at once: two nodes, the first held by the second)
            w = w - 0.5 * (X.T @ (p - y) / n)
        return w

    seen["walks"] = 0
    for _ in range(3):
        got = np.asarray(with_dead_chain(xp, Xl, yl, wl, 60))
        np.testing.assert_allclose(got, logreg(np, X, y, w, 60), rtol=1e-9, atol=1e-12)
    assert seen["walks"] >= 3


@pytest.mark.parametrize("read", ["program", "host", "cut"])
def test_the_recorded_nodes_keep_nothing_alive_past_a_sync(engine, rng, monkeypatch, read):
    """After a sync (a program's read, a small host read, a budget cut that leaves no tail) the
    list holds no node: a dropped array's node is freed."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    if read != "host":  # (the default tier policy reads a small value on the host)
        monkeypatch.setattr(_config, "interpret_first", 0)
    x = rng.standard_normal(50)
    xl = xp.asarray(x)
    y = xl * 3.0
    dead = xl + 1.0
    gone = weakref.ref(dead._node)
    del dead
    assert len(_graph.recorded) >= 1
    if read == "program":
        np.testing.assert_array_equal(np.asarray(y), x * 3.0)
    elif read == "host":
        assert float(y[0]) == x[0] * 3.0
    else:
        from lazyarray import _engine
        _engine.cut_graph()
        np.testing.assert_array_equal(np.asarray(y), x * 3.0)
    assert len(_graph.recorded) == 0
    kept = weakref.ref(y._node)
    del y
    gc.collect()
    assert gone() is None and kept() is None


def test_a_cut_leaves_its_pending_tail_first_in_the_recorded_nodes(fresh, rng, monkeypatch):
    """After a budget cut that chunks a loop, the recorded nodes are its pending tail (creation
    order, all pending), then what is traced next; the loop's value is numpy's."""
    monkeypatch.setattr(_config, "node_budget", 160)
    X, y, w = _data(rng)
    Xl, yl, wl = map(xp.asarray, (X, y, w))
    tails, real = [], _segment.restore_tail

    def restore():
        real()
        tail = list(_graph.recorded)
        tails.append((len(tail), all(n.op is not None for n in tail), [n.serial for n in tail]))

    monkeypatch.setattr(_segment, "restore_tail", restore)
    for _ in range(3):
        got = np.asarray(logreg(xp, Xl, yl, wl, 60))
        np.testing.assert_allclose(got, logreg(np, X, y, w, 60), rtol=1e-9, atol=1e-12)
    assert tails and any(size for size, _, _ in tails)
    for size, pending, serials in tails:
        assert pending and serials == sorted(serials)
