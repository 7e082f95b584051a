"""A loop called again replays the last call's chunking (`_segment._Recipe`): the same pieces,
the same REPEAT programs, the same values, bit for bit, as the call that worked them out; a
graph that differs in anything the chunking reads (a scalar's value, the arrays it reads, which
values are live, the node budget's cut) is worked out afresh. Values against numpy, both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _segment
from loop_workloads import logreg


def decaying(ns, x, rates):
    for r in rates:  # a per-pass scalar: a stacked REPEAT operand
        x = ns.sin(x * r) + r
    return x


@pytest.fixture
def replays(monkeypatch):
    """[replayed, worked out] counts of the chunkings that asked for a recipe."""
    counts, real_replay, real_repeat = [0, 0], _segment._replay, _segment._repeat

    def replay(*args):
        got = real_replay(*args)
        counts[0] += got is not None
        return got

    def repeat(*args):
        counts[1] += 1
        return real_repeat(*args)

    monkeypatch.setattr(_segment, "_replay", replay)
    monkeypatch.setattr(_segment, "_repeat", repeat)
    return counts


def _data(rng, n=4000, d=20):  # 80000 elements: X.T is hoisted (HOIST_MIN_ELEMENTS)
    X = rng.standard_normal((n, d))
    return X, (X @ rng.standard_normal(d) > 0).astype(np.float64), np.zeros(d)


@pytest.mark.parametrize("budget", [10 ** 6, 300])
def test_a_loop_called_again_replays_its_chunking(fresh, rng, monkeypatch, replays, budget):
    """Second and later calls replay (at the cut and at the read), with the first call's values
    bit for bit and no compile more; the transposed X is read as in the first call."""
    monkeypatch.setattr(_config, "node_budget", budget)
    X, y, w = _data(rng)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    first = np.asarray(logreg(xp, Xl, yl, wl, 40))  # (makes the transposed copy: not recorded)
    np.testing.assert_allclose(first, logreg(np, X, y, w, 40), rtol=1e-10)
    np.testing.assert_array_equal(np.asarray(logreg(xp, Xl, yl, wl, 40)), first)  # recorded
    compiles, worked, replayed = fresh.compiles, replays[1], replays[0]
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(logreg(xp, Xl, yl, wl, 40)), first)
    assert replays[0] >= replayed + 3 and replays[1] == worked  # (no chunking worked out again)
    assert fresh.compiles == compiles


def test_a_changed_scalar_or_array_is_worked_out_again(fresh, rng, replays):
    X, y, w = _data(rng)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    for lr in (0.5, 0.5, 0.5, 0.25):  # (the first call makes the transposed copy: not recorded)
        out = logreg(xp, Xl, yl, wl, 30, lr)
        np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 30, lr), rtol=1e-10)
    assert replays == [1, 3]
    X2 = rng.standard_normal(X.shape)  # another matrix: no transposed copy yet
    out = logreg(xp, xp.asarray(X2), yl, wl, 30)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X2, y, w, 30), rtol=1e-10)
    assert replays == [1, 4]


@pytest.mark.parametrize("interpret_first", [0, 2])
def test_per_pass_scalars_replay_with_their_values(engine, rng, monkeypatch, replays, interpret_first):
    """A stacked operand is rebuilt from the call's own scalars; other rates: another recipe."""
    monkeypatch.setattr(xp.config, "interpret_first", interpret_first)
    x0 = rng.standard_normal(64)
    x = xp.asarray(x0)
    for rates in ([0.9 ** k for k in range(40)], [0.9 ** k for k in range(40)], [0.8 ** k for k in range(40)]):
        out = np.asarray(decaying(xp, x, rates))
        np.testing.assert_allclose(out, decaying(np, x0, rates), rtol=1e-12)
    assert replays[0] >= 1 and replays[1] >= 2


def test_a_live_intermediate_is_worked_out_again(fresh, rng, replays):
    """Keeping one step's value alive changes what the chunks output: no replay of the plain
    loop's recipe, and both values are numpy's."""
    X, y, w = _data(rng)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    for _ in range(2):
        out = logreg(xp, Xl, yl, wl, 30)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 30), rtol=1e-10)
    before = list(replays)
    v = wl
    kept = None
    for k in range(30):
        p = 1.0 / (1.0 + xp.exp(-(Xl @ v)))
        v = v - 0.5 * (Xl.T @ (p - yl) / X.shape[0])
        if k == 12:
            kept = v
    ref, ref_kept = w, None
    for k in range(30):
        p = 1.0 / (1.0 + np.exp(-(X @ ref)))
        ref = ref - 0.5 * (X.T @ (p - y) / X.shape[0])
        if k == 12:
            ref_kept = ref
    np.testing.assert_allclose(np.asarray(v), ref, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(kept), ref_kept, rtol=1e-10)
    assert replays[0] == before[0]


def test_a_reset_engine_forgets_the_recipes(fresh, rng, replays):
    X, y, w = _data(rng)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    for _ in range(2):  # (the first call makes the transposed copy: not recorded)
        xp.evaluate(logreg(xp, Xl, yl, wl, 30))
    assert _segment._recipes
    from lazyarray._engine_state import state
    state.reset()
    out = logreg(xp, Xl, yl, wl, 30)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 30), rtol=1e-10)
    assert replays[0] == 0 and replays[1] == 3  # the call after the reset worked it out again


def test_a_replay_that_does_not_fit_changes_nothing(fresh, rng, monkeypatch):
    """A recipe whose REPEAT would not fit (forced here) is refused before any node changes
    for good: the chunking is worked out again and the values are numpy's."""
    X, y, w = _data(rng)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    for _ in range(2):
        xp.evaluate(logreg(xp, Xl, yl, wl, 30))
    assert len(_segment._recipes) == 1
    answers, real_replay = [], _segment._replay

    def replay(*args):
        answers.append(real_replay(*args))
        return answers[-1]

    monkeypatch.setattr(_segment, "_replay", replay)
    monkeypatch.setattr(_segment, "_fits", lambda body, values: False)
    out = np.asarray(logreg(xp, Xl, yl, wl, 30))
    np.testing.assert_allclose(out, logreg(np, X, y, w, 30), rtol=1e-10)
    assert answers == [None]


def carried(ns, X, u, c, steps):
    for _ in range(steps):  # c: 0-D at first, then a vector (a first chunk that may run alone)
        c = X.T @ ns.tanh(X @ (u + c) * 0.01) / X.shape[0]
    return c


@pytest.mark.parametrize("interpret_first", [0, 2])
def test_a_first_carry_of_another_shape_replays_alike(engine, rng, monkeypatch, replays, interpret_first):
    monkeypatch.setattr(xp.config, "interpret_first", interpret_first)
    X, u = rng.standard_normal((4000, 20)), rng.standard_normal(20)
    Xl, ul = xp.asarray(X), xp.asarray(u)
    want = carried(np, X, u, np.asarray(0.0), 25)
    outs = [np.asarray(carried(xp, Xl, ul, xp.asarray(0.0), 25)) for _ in range(4)]
    for out in outs:
        np.testing.assert_allclose(out, want, rtol=1e-10)
    for out in outs[2:]:
        np.testing.assert_array_equal(out, outs[1])
