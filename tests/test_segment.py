"""Loop segmentation: an unread loop's graph is computed one iteration (chunk) at a time, so its
compile count and compile size do not depend on the iteration count. Every test that runs a
loop starts on a cold one: `fresh` resets the engine state (the last chunk, the cut site)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _segment
from lazyarray._graph import pending
from loop_workloads import logreg


@pytest.fixture
def data(rng):
    X = rng.standard_normal((200, 6))
    y = (X @ rng.standard_normal(6) > 0).astype(np.float64)
    return X, y, np.zeros(6)


def test_hot_loop_fuses_iterations(fresh, data, monkeypatch):
    """Chunks that cannot run as one REPEAT program (here: switched off) run one program each;
    after HOT_CHUNKS chunks, a loop's chunks cover FUSE iterations: one more compile, then
    fusion across iterations; a read runs the iterations left over as single chunks."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    monkeypatch.setattr(_segment, "_repeat", lambda nodes, ranges, need, rank: None)
    X, y, w = data
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    steps = _segment.HOT_CHUNKS + 3 * _segment.FUSE + 5
    xp.evaluate(logreg(xp, Xl, yl, wl, steps=steps))  # the loop becomes hot along the way
    before = fresh.chunks_run
    out = logreg(xp, Xl, yl, wl, steps=steps)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, steps), rtol=1e-12)
    groups, rest = divmod(steps, _segment.FUSE)
    assert fresh.chunks_run - before == groups + rest
    assert fresh.compiles == 2


def test_unread_loop_compiles_one_step(fresh, data, monkeypatch):
    """60 unread steps: one program (a while loop over one step's graph), run once."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)  # no cut: the read alone splits it
    X, y, w = data
    out = logreg(xp, xp.asarray(X), xp.asarray(y), xp.asarray(w), steps=60)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 60), rtol=1e-12)
    assert fresh.segmented_syncs == 1
    assert fresh.chunks_run == 1
    assert fresh.compiles == 1  # one step's graph, repeated 60 times in the program


def test_repeat_off_runs_a_program_per_step(fresh, data, monkeypatch):
    """Without REPEAT, the same loop runs its step's program once per step."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    monkeypatch.setattr(_segment, "_repeat", lambda nodes, ranges, need, rank: None)
    X, y, w = data
    out = logreg(xp, xp.asarray(X), xp.asarray(y), xp.asarray(w), steps=60)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 60), rtol=1e-12)
    assert fresh.chunks_run == 60
    assert fresh.compiles == 1


def test_iteration_count_does_not_change_the_program(fresh, data, monkeypatch):
    monkeypatch.setattr(_segment, "HOT_CHUNKS", 10 ** 9)  # single-step chunks throughout
    X, y, w = data
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    xp.evaluate(logreg(xp, Xl, yl, wl, steps=20))
    compiled = fresh.compiles
    for steps in (7, 33, 90):
        out = logreg(xp, Xl, yl, wl, steps=steps)
        np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, steps), rtol=1e-12)
    assert fresh.compiles == compiled


def test_budget_cuts_keep_the_partial_chunk_pending(fresh, data, monkeypatch):
    """Cuts run whole chunks and leave the rest of the graph pending, so the final read (and every
    later cut) starts at a chunk boundary: 250 steps through several cuts compile one program (a
    step's graph in a while loop), run once per sync."""
    monkeypatch.setattr(_config, "node_budget", 1000)
    X, y, w = data
    out = logreg(xp, xp.asarray(X), xp.asarray(y), xp.asarray(w), steps=250)
    assert fresh.syncs["cut"] >= 2
    assert pending.nodes_since_sync < 1000
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 250), rtol=1e-11)
    assert fresh.compiles == 1 and fresh.chunks_run == fresh.segmented_syncs


def test_loop_invariants_computed_before_the_loop(fresh, rng):
    """k-means: the norms and ids made before the loop are one program, the iterations another."""
    X = rng.standard_normal((300, 4))
    C = X[:5].copy()
    Xl, Cl = xp.asarray(X), xp.asarray(C)
    x2 = xp.sum(Xl * Xl, axis=1, keepdims=True)
    ids = xp.arange(5)
    x2n, idsn = (X * X).sum(axis=1, keepdims=True), np.arange(5)
    for _ in range(12):
        d = x2 - 2.0 * (Xl @ Cl.T) + xp.sum(Cl * Cl, axis=1)[None, :]
        onehot = xp.astype(xp.argmin(d, axis=1)[:, None] == ids[None, :], Xl.dtype)
        Cl = (onehot.T @ Xl) / xp.maximum(xp.sum(onehot, axis=0), 1.0)[:, None]
        d = x2n - 2.0 * (X @ C.T) + (C * C).sum(axis=1)[None, :]
        onehot = (d.argmin(axis=1)[:, None] == idsn[None, :]).astype(X.dtype)
        C = (onehot.T @ X) / np.maximum(onehot.sum(axis=0), 1.0)[:, None]
    np.testing.assert_allclose(np.asarray(Cl), C, rtol=1e-12)
    assert fresh.segmented_syncs == 1
    assert fresh.compiles <= 2


def test_live_intermediates_of_every_step_are_computed(fresh, data):
    """Arrays kept from every iteration (a loss history) are outputs of their chunk."""
    X, y, w = data
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    losses, wn, ref = [], w, []
    for _ in range(40):
        p = 1.0 / (1.0 + xp.exp(-(Xl @ wl)))
        losses.append(xp.mean((p - yl) ** 2))
        wl = wl - 0.5 * (Xl.T @ (p - yl) / X.shape[0])
        pn = 1.0 / (1.0 + np.exp(-(X @ wn)))
        ref.append(np.mean((pn - y) ** 2))
        wn = wn - 0.5 * (X.T @ (pn - y) / X.shape[0])
    np.testing.assert_allclose(np.asarray(wl), wn, rtol=1e-12)
    np.testing.assert_allclose([float(v) for v in losses], ref, rtol=1e-12)
    assert fresh.segmented_syncs >= 1
    assert fresh.compiles <= 3


def test_irregular_graph_is_one_program(fresh, rng):
    """No period: the graph compiles whole, as before."""
    x = xp.asarray(rng.standard_normal(16))
    xn = np.asarray(x)
    ops = [(xp.sin, np.sin), (xp.exp, np.exp), (xp.tanh, np.tanh), (xp.cos, np.cos),
           (xp.abs, np.abs), (xp.sqrt, np.sqrt), (xp.log1p, np.log1p), (xp.square, np.square)]
    order = rng.permutation(np.repeat(np.arange(len(ops)), 8))
    for k in order:
        f, g = ops[k]
        x = f(xp.abs(x)) if f in (xp.sqrt, xp.log1p) else f(x)
        xn = g(np.abs(xn)) if g in (np.sqrt, np.log1p) else g(xn)
    np.testing.assert_allclose(np.asarray(x), xn, rtol=1e-10)
    assert fresh.segmented_syncs == 0
    assert fresh.compiles == 1


def test_periodic_suffix_finds_the_period():
    assert _segment._periodic_suffix([9, 8] + [1, 2, 3] * 5) == (3, 15)
    assert _segment._periodic_suffix([1, 2, 3, 4, 5]) is None
    assert _segment._periodic_suffix([4] * 7) == (1, 7)


def test_period_search_answer_is_kept_only_for_the_same_graph():
    """`_period_of` keeps the last answer for a repeated sequence of descriptions; another
    sequence is searched afresh (the answers compared with `_periodic_suffix` itself)."""
    a = [("x",), ("y",)] + [("p",), ("q",), ("r",)] * 5
    b = [("s",), ("t",), ("u",), ("v",)] * 4 + [("half",)]  # a half-built expression at the end
    assert _segment._period_of(a) == (_segment._periodic_suffix(_segment._codes(a)), 0)
    assert _segment._period_of(list(a)) == ((3, 15), 0)
    assert _segment._period_of(b) == ((4, 16), 1)
    assert _segment._period_of([("n",)] * 2 + [("m", 1), ("m", 2)]) == (None, _segment.MAX_SKIP)
