"""A loop's next call replays the chunking recorded for a graph made like it, before deciding
(`_segment.chunks`: one key of labels over every operand, one compare of the descriptions, and
the last loop chunk the recipe was decided under). The replay must leave what the worked-out
chunking leaves: the same pieces and values bit for bit, the same last loop chunk and chunk count
(`state.last_chunk`, `state.chunks_seen`: hot loops and the next call's decision read them), also
when two loops of other chunk sizes alternate, at a cut and at a read. Values against numpy."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _segment
from loop_workloads import kmeans, logreg


def decay(ns, x, W, steps, a=0.5):
    for _ in range(steps):
        x = ns.tanh(W @ x) * a + x * (1.0 - a)
    return x


def _calls(rng):
    """A sequence of loop calls: logreg and a decay loop (other chunk sizes) alternating, then
    kmeans: [(name, lazyarray call, numpy value)]."""
    X = rng.standard_normal((3000, 12))
    y = (X @ rng.standard_normal(12) > 0).astype(np.float64)
    w = np.zeros(12)
    W, x = rng.standard_normal((16, 16)) / 5, rng.standard_normal(16)
    P = np.concatenate([rng.normal(c, 0.3, (200, 4)) for c in (-2.0, 0.0, 2.0)])
    C = P[[0, 250, 500]].copy()
    Xl, yl, wl, Wl, xl, Pl, Cl = map(xp.asarray, (X, y, w, W, x, P, C))
    lr = ("logreg", lambda: logreg(xp, Xl, yl, wl, 35), logreg(np, X, y, w, 35))
    dc = ("decay", lambda: decay(xp, xl, Wl, 45), decay(np, x, W, 45))
    km = ("kmeans", lambda: kmeans(xp, Pl, Cl, 12), kmeans(np, P, C, 12))
    return [lr, lr, lr, dc, lr, dc, lr, dc, dc, dc, km, km, km, lr, km, lr]


def _run(rng, replay, monkeypatch, replays):
    """Each call's (values, last loop chunk, chunks seen, replays so far); with `replay` False
    every chunking is worked out (the recipes are forgotten before each call). `replays`: the
    fixture's count."""
    from lazyarray._engine_state import state
    before = replays[0]
    shapes, real_chunks = [], _segment.chunks

    def chunks(*args, **kw):  # (each answer's piece sizes and pending tail)
        got = real_chunks(*args, **kw)
        shapes.append(None if got is None else ([len(p) for p in got[0]], got[1]))
        return got

    monkeypatch.setattr(_segment, "chunks", chunks)
    out = []
    for name, call, want in _calls(rng):
        if not replay:
            _segment._recipes.clear()
        got = np.asarray(call())
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        out.append((name, got, state.last_chunk, state.chunks_seen, replays[0] - before, list(shapes)))
        shapes.clear()
    monkeypatch.setattr(_segment, "chunks", real_chunks)
    return out


@pytest.mark.parametrize("budget", [10 ** 6, 160])
def test_replayed_calls_leave_the_worked_out_state(fresh, monkeypatch, budget, replays):
    monkeypatch.setattr(_config, "node_budget", budget)
    worked = _run(np.random.default_rng(5), False, monkeypatch, replays)
    fresh_state = fresh  # (metrics object; the engine is reset below for the second run)
    from lazyarray._engine_state import state
    state.reset()
    replayed = _run(np.random.default_rng(5), True, monkeypatch, replays)
    assert worked[-1][4] == 0 and replayed[-1][4] >= 6  # (every later same-loop call replays)
    for (name, a, last_a, seen_a, _, pieces_a), (_, b, last_b, seen_b, _, pieces_b) in zip(worked, replayed):
        np.testing.assert_array_equal(a, b)
        assert pieces_a == pieces_b, name
        assert last_a == last_b, name
        assert seen_a == seen_b, name
    assert fresh_state is xp.metrics


def test_the_same_graph_after_another_loop_is_worked_out_once(fresh, rng, monkeypatch):
    """Two loops alternating: each call's graph follows the other loop's chunk; after one
    worked-out call of each, every call replays (its recipe was decided under that chunk)."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    W, x = rng.standard_normal((16, 16)) / 5, rng.standard_normal(16)
    V = rng.standard_normal((16, 16)) / 4
    Wl, xl, Vl = xp.asarray(W), xp.asarray(x), xp.asarray(V)

    def other(ns, x, V, steps):
        for _ in range(steps):
            x = ns.sin(V @ x) + x * 0.25 - 1.0
        return x

    worked, real = [0], _segment._split

    def split(*args, **kw):
        worked[0] += 1
        return real(*args, **kw)

    monkeypatch.setattr(_segment, "_split", split)
    for k in range(6):
        np.testing.assert_allclose(np.asarray(decay(xp, xl, Wl, 40)), decay(np, x, W, 40), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(np.asarray(other(xp, xl, Vl, 40)), other(np, x, V, 40), rtol=1e-12, atol=1e-14)
        if k == 2:
            settled = worked[0]
    assert worked[0] == settled  # (calls 4-6 of each loop: replayed, none worked out)


def test_trip_counts_are_shared_read_only_values(fresh, rng, monkeypatch):
    """A REPEAT's trip count leaf holds a kept read-only int64 0-D value (one per count); loops
    of other lengths, replayed or not, compute numpy's values."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    v = _segment._count_value(7)
    assert v is _segment._count_value(7) and v.dtype == np.int64 and v.shape == () and int(v) == 7
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v[()] = 8
    W, x = rng.standard_normal((16, 16)) / 5, rng.standard_normal(16)
    Wl, xl = xp.asarray(W), xp.asarray(x)
    for steps in (35, 47, 35, 35, 60, 47):
        np.testing.assert_allclose(np.asarray(decay(xp, xl, Wl, steps)), decay(np, x, W, steps), rtol=1e-12, atol=1e-14)
    assert int(_segment._count_value(7)) == 7


def test_a_graph_no_recipe_is_the_size_of_makes_no_key_before_deciding(fresh, rng, monkeypatch):
    """With recipes kept, a big graph of another node count (no loop: shapes grow every step)
    makes no recipe key; the loop read afterwards still replays; values are numpy's."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    W, x0 = rng.standard_normal((16, 16)) / 5, rng.standard_normal(16)
    Wl, xl = xp.asarray(W), xp.asarray(x0)
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(decay(xp, xl, Wl, 40)), decay(np, x0, W, 40), rtol=1e-12, atol=1e-14)
    assert _segment._recipes
    keys = []

    def counting(real):  # (a key made, or the last one proved: `_known_key` before `_memo_key`)
        def count(nodes, outputs, params):
            keys.append(len(nodes))
            return real(nodes, outputs, params)
        return count

    for name in ("_memo_key", "_known_key"):
        monkeypatch.setattr(_segment, name, counting(getattr(_segment, name)))

    def grow(ns, x, steps):
        for i in range(steps):
            x = ns.concat([x, x[:1] * (i + 1.5)])
        return x

    np.testing.assert_array_equal(np.asarray(grow(xp, xl, 30)), grow(np, x0, 30))
    sizes = {k[1] for k in _segment._recipes}
    assert all(n in sizes for n in keys)
    np.testing.assert_allclose(np.asarray(decay(xp, xl, Wl, 40)), decay(np, x0, W, 40), rtol=1e-12, atol=1e-14)
    assert keys and all(n in sizes for n in keys)
