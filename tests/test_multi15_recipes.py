"""Recipes of syncs with several outputs (session 15): a read whose target shares work with other
live pending arrays (a decomposition's factors: U, S, Vh; Q, R; w, V) is served, once repeated,
by a recipe that matches the target's graph, finds the sharers as the usual path finds them and
matches the whole graph, without the plan walk. Each test checks the values, bit for bit,
against the usual path's (the recipe path switched off) and whether the recipe path was taken."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _run_program
from lazyarray._engine_state import state

pytestmark = pytest.mark.usefixtures("both_tiers")


@pytest.fixture
def served(monkeypatch):
    """The recipes that served reads, in order; `served.disabled = True` sends reads the usual way.
    Recipes of several outputs are made as soon as one of one output would be (`_multi_due`)."""
    monkeypatch.setattr(_run_program, "MULTI_RECIPE_COST", 0)
    xp.clear_cache()
    log = _Log()
    real = _run_program.replay_one

    def spying(node, device, traced, site, candidates):
        if log.disabled:
            return False
        done = real(node, device, traced, site, candidates)
        if done:
            log.append(len(candidates))
        return done
    monkeypatch.setattr(_engine, "_replay_one", spying)
    yield log
    xp.clear_cache()


class _Log(list):
    """The count of candidates beside each read a recipe served."""
    disabled = False


DECOMPOSITIONS = {
    "svd": lambda a: xp.linalg.svd(a, full_matrices=False),
    "qr": lambda a: xp.linalg.qr(a),
    "eigh": lambda a: xp.linalg.eigh(a + a.T),
}


def _read(outs):
    return [np.asarray(o).copy() for o in outs]


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_repeated_decomposition_reads_match_the_usual_path(served, rng, name):
    f = DECOMPOSITIONS[name]
    for step in range(14):
        a_np = rng.standard_normal((6, 6))
        served.disabled = True
        want = _read(f(xp.asarray(a_np)))
        served.disabled = False
        got = _read(f(xp.asarray(a_np)))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    assert len(served) >= 3, "the repeated multi-output read never took its recipe"
    assert any(r.extra >= 1 for v in state.recipes.values() for r in v)
    assert all(n >= 1 for n in served)


def test_svd_factors_reconstruct_the_input(served, rng):
    for step in range(12):
        a_np = rng.standard_normal((8, 5))
        u, s, vh = xp.linalg.svd(xp.asarray(a_np), full_matrices=False)
        u, s, vh = _read((u, s, vh))
        np.testing.assert_allclose((u * s) @ vh, a_np, rtol=1e-12, atol=1e-12)
    assert len(served) >= 3


def test_a_dead_sibling_is_not_computed_and_the_rest_agree(served, rng):
    """A recipe of three outputs does not serve a read where one factor died: the sharers found
    differ, the usual path serves it, with the same values."""
    a_np = rng.standard_normal((6, 6))
    for step in range(12):
        _read(xp.linalg.svd(xp.asarray(a_np), full_matrices=False))
    n = len(served)
    u, s, vh = xp.linalg.svd(xp.asarray(a_np), full_matrices=False)
    del vh
    got_u = np.asarray(u)
    assert len(served) == n
    assert s._pending_node().op is None, "the live sibling sharing the read's work stayed pending"
    served.disabled = True
    want = _read(xp.linalg.svd(xp.asarray(a_np), full_matrices=False))
    np.testing.assert_array_equal(got_u, want[0])
    np.testing.assert_array_equal(np.asarray(s), want[1])


def test_live_sharers_of_a_generic_graph(served, rng):
    """Any sync whose target shares work with live pending arrays: all are computed, bit for bit
    as the usual path computes them; an array sharing nothing stays pending."""
    for step in range(14):
        x_np = rng.standard_normal(300)
        out = []
        for disabled in (True, False):
            served.disabled = disabled
            x = xp.asarray(x_np)
            t = xp.exp(x * 0.5)
            u = t + 1.0
            v = t * t - 2.0
            w = xp.asarray(x_np) * 3.0  # (shares nothing with v's graph)
            got_v = np.asarray(v).copy()
            assert u._pending_node().op is None
            assert w._pending_node().op is not None
            out.append((got_v, np.asarray(u).copy(), np.asarray(w).copy()))
        for g, wnt in zip(out[1], out[0]):
            np.testing.assert_array_equal(g, wnt)
    assert len(served) >= 3


def test_a_different_sharer_structure_takes_the_usual_path(served, rng):
    x_np = rng.standard_normal(200)
    for step in range(12):
        x = xp.asarray(x_np)
        t = x * 2.0
        u, v = t + 1.0, t - 1.0
        np.asarray(v)
    n = len(served)
    x = xp.asarray(x_np)
    t = x * 2.0
    u, v = xp.sin(t), t - 1.0  # (the sharer is another op)
    np.testing.assert_array_equal(np.asarray(v), x_np * 2.0 - 1.0)
    assert u._pending_node().op is None
    assert len(served) == n
    np.testing.assert_array_equal(np.asarray(u), np.asarray(xp.sin(xp.asarray(x_np) * 2.0)))


def test_the_matcher_of_several_outputs_returns_the_plans_leaves_and_nodes(fresh):
    from lazyarray._graph import Plan
    x = xp.asarray(np.arange(20.0))
    t = x * 2.0
    u, v = t + 1.0, t - x
    plan = Plan([v._node]).add([u._node])
    match = _run_program._matcher(plan.sig, [plan.index[v._node], plan.index[u._node]])
    leaves, order = match(v._node, u._node)
    assert [id(n) for n in leaves] == [id(n) for n in plan.leaves]
    assert [id(n) for n in order] == [id(n) for n in plan.order]
    assert match(u._node, v._node) is None
    assert match(v._node, v._node) is None
    np.testing.assert_array_equal(np.asarray(v), np.arange(20.0))


def test_a_recipe_of_several_outputs_waits_for_its_runs_to_pay(rng, monkeypatch):
    """At the default costs, an svd read's recipe (3 entries) is made only once its runs would
    have paid for the matchers (~25), then serves the read with the same values."""
    xp.clear_cache()
    made = []
    real = _run_program._recipe

    def recording(plan, outputs, *args, **kwargs):
        made.append(len(outputs))
        return real(plan, outputs, *args, **kwargs)
    monkeypatch.setattr(_run_program, "_recipe", recording)
    a_np = rng.standard_normal((5, 5))
    want = _read(xp.linalg.svd(xp.asarray(a_np), full_matrices=False))
    due = next(r for r in range(1, 1000) if _run_program._multi_due(r, _Sig(3)))
    assert 10 < due < 100
    for step in range(2 * due + 20):
        got = _read(xp.linalg.svd(xp.asarray(a_np), full_matrices=False))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        if step < due // 2:
            assert 3 not in made, "a recipe of several outputs was made before its runs paid for it"
    assert 3 in made
    xp.clear_cache()


class _Sig:
    def __init__(self, n):
        self.sig = [None] * n
