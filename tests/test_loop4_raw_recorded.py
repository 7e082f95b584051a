"""A budget cut, and a read where a loop was split, try the recorded nodes as they are before
filtering out those nothing holds (`_segment._held`): the last key's proof (`_known_key`) fails on
a list holding a dead node, which then takes the filtered list as before. The proof's key is the
recipe table's own key object (`_Recipe.key`: no hash of the whole key and no compare of two
equal ones at each call). Values against numpy, and bit for bit against the walk alone."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _segment
from lazyarray._engine_state import state
from loop_workloads import kmeans, logreg


@pytest.fixture
def held_calls(monkeypatch):
    """How many times `_held` filtered the recorded nodes, and how many replays hit."""
    seen = {"held": 0, "hits": 0}
    real_held, real_replay = _segment._held, _segment._replay_call

    def held(nodes):
        seen["held"] += 1
        return real_held(nodes)

    def replay(*args, **kw):
        got = real_replay(*args, **kw)
        seen["hits"] += got[0] is not None
        return got
    monkeypatch.setattr(_segment, "_held", held)
    monkeypatch.setattr(_segment, "_replay_call", replay)
    return seen


def _walked(monkeypatch, fn, n):
    """The same calls with the recorded nodes never tried (the walk's pieces)."""
    xp.metrics.reset()
    state.reset()
    monkeypatch.setattr(_segment, "_recorded", [])
    return [np.asarray(fn()).copy() for _ in range(n)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_loop_with_no_dead_node_replays_without_filtering(fresh, rng, monkeypatch, held_calls, dtype):
    monkeypatch.setattr(_config, "node_budget", 500)  # (one cut a call: `_known` keeps one key a kind)
    X = rng.standard_normal((300, 6)).astype(dtype)
    y = (X @ rng.standard_normal(6) > 0).astype(dtype)
    w = np.zeros(6, dtype)
    Xl, yl, wl = map(xp.asarray, (X, y, w))
    run = lambda: logreg(xp, Xl, yl, wl, 60)  # noqa: E731
    got = [np.asarray(run()).copy() for _ in range(3)]
    held_calls["held"] = held_calls["hits"] = 0
    got += [np.asarray(run()).copy() for _ in range(3)]
    assert held_calls["hits"] >= 3 and held_calls["held"] == 0  # (steady: the raw list was the graph)
    for params, (key, *_) in _segment._known.items():  # the table's own key object, by identity
        assert any(k is key for k in _segment._recipes)
    want = logreg(np, X, y, w, 60)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=2e-4 if dtype == "float32" else 1e-9, atol=1e-6)
    for a, b in zip(got, _walked(monkeypatch, run, 6)):
        assert a.tobytes() == b.tobytes()


def test_dead_nodes_fall_back_to_the_held_list(fresh, rng, monkeypatch, held_calls):
    """kmeans' `c2[None, :]` binds a reshape that the broadcast of `+` folds away (dead): the raw
    list fails the proof, the held one replays."""
    X = rng.standard_normal((400, 3))
    C = X[:4].copy()
    Xl, Cl = xp.asarray(X), xp.asarray(C)
    run = lambda: kmeans(xp, Xl, Cl, 12)  # noqa: E731
    got = [np.asarray(run()).copy() for _ in range(6)]
    held_calls["held"] = held_calls["hits"] = 0
    got += [np.asarray(run()).copy() for _ in range(3)]
    assert held_calls["held"] >= 1 and held_calls["hits"] >= 2
    want = kmeans(np, X, C, 12)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
    for a, b in zip(got, _walked(monkeypatch, run, 9)):
        assert a.tobytes() == b.tobytes()


def test_a_dead_node_inside_a_cut_graph(fresh, rng, monkeypatch):
    """A loop that makes one unused node a step (a dead `exp` beside the step) under a budget:
    the raw recorded list is not the graph; the values and bits are the walk's."""
    monkeypatch.setattr(_config, "node_budget", 120)
    X = rng.standard_normal((200, 5))
    y = (X @ rng.standard_normal(5) > 0).astype(np.float64)
    w = np.zeros(5)

    def step(ns, X, y, w):
        for _ in range(40):
            p = 1.0 / (1.0 + ns.exp(-(X @ w)))
            ns.exp(p)  # dead at once
            w = w - 0.5 * (X.T @ (p - y) / X.shape[0])
        return w
    Xl, yl, wl = map(xp.asarray, (X, y, w))
    run = lambda: step(xp, Xl, yl, wl)  # noqa: E731
    got = [np.asarray(run()).copy() for _ in range(5)]
    want = step(np, X, y, w)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
    for a, b in zip(got, _walked(monkeypatch, run, 5)):
        assert a.tobytes() == b.tobytes()
