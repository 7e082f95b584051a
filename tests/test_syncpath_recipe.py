"""Recipes (`_run_program.Recipe`): a repeated one-output read of a cached program found by a
matcher generated from its plan, without the plan walk and key. Each test checks the values
against numpy, and whether the recipe path was (or was not) the one taken."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _run_program
from lazyarray._engine_state import state
from lazyarray._graph import Plan


@pytest.fixture
def spy(fresh, monkeypatch):
    """The recipes of the reads the recipe path served, in order."""
    return _served(monkeypatch)


def _matcher_of(y):
    plan = Plan([y._node])
    return _run_program._matcher(plan.sig), plan


def test_a_repeated_read_is_served_by_its_recipe(spy):
    a_np = np.linspace(-3, 3, 1000)
    x = xp.asarray(a_np)
    for step in range(6):
        np.testing.assert_array_equal(np.asarray(x * 2.0 + 1.0), a_np * 2.0 + 1.0)
    assert len(spy) >= 3
    assert xp.metrics.short_syncs >= 4 and xp.metrics.executions == 6


def test_each_run_takes_this_runs_leaves_and_scalars(spy, rng):
    for step in range(8):
        a_np, s = rng.standard_normal(700), float(rng.standard_normal())
        b_np = rng.standard_normal(700)
        a, b = xp.asarray(a_np), xp.asarray(b_np)
        y = (a * s - b) * 0.5
        np.testing.assert_allclose(np.asarray(y), (a_np * s - b_np) * 0.5, rtol=1e-13, atol=1e-15)  # (an FMA)
    assert len(spy) >= 4


def test_the_matcher_returns_the_plans_leaves_and_nodes(fresh):
    x, z = xp.asarray(np.ones(50)), xp.asarray(np.arange(50.0))
    y = xp.sin(x * 2.0) + z * x
    match, plan = _matcher_of(y)
    leaves, order = match(y._node)
    assert [id(n) for n in leaves] == [id(n) for n in plan.leaves]
    assert [id(n) for n in order] == [id(n) for n in plan.order]
    np.testing.assert_allclose(np.asarray(y), np.sin(np.ones(50) * 2.0) + np.arange(50.0), rtol=1e-15)


def test_the_matcher_tells_shared_operands_from_distinct_ones(fresh):
    x = xp.asarray(np.arange(40.0))
    b = x * 2.0
    shared = b + b
    distinct = x * 2.0 + x * 2.0
    match_shared, _ = _matcher_of(shared)
    match_distinct, _ = _matcher_of(distinct)
    assert match_shared(distinct._node) is None
    assert match_distinct(shared._node) is None
    assert match_shared((lambda c: c + c)(x * 2.0)._node) is not None
    assert match_distinct((x * 2.0 + x * 2.0)._node) is not None


def test_the_matcher_refuses_other_shapes_dtypes_ops_and_leaf_kinds(fresh):
    x = xp.asarray(np.ones(30))
    match, _ = _matcher_of(x * 2.0 + 1.0)
    assert match((x * 2.0 - 1.0)._node) is None
    assert match((xp.asarray(np.ones(31)) * 2.0 + 1.0)._node) is None
    assert match((xp.asarray(np.ones(30, np.float32)) * 2.0 + 1.0)._node) is None
    one = xp.sum(xp.asarray(np.ones(1)))  # a computed 0-D value: a parameter of its own, never packed
    assert float(one) == 1.0
    assert match((x * 2.0 + one)._node) is None
    assert match((x * 3.0 + 7.0)._node) is not None  # (values are never part of the structure)


def test_one_scalar_used_twice_is_not_the_two_scalar_structure(spy):
    a_np = np.arange(600.0)
    x = xp.asarray(a_np)
    two = 2.0
    for step in range(4):
        np.testing.assert_array_equal(np.asarray(x * 2.0 + 3.0), a_np * 2.0 + 3.0)
    served = len(spy)
    for step in range(4):
        np.testing.assert_array_equal(np.asarray(x * two + two), a_np * 2.0 + 2.0)
    assert len(spy) >= served + 1  # the shared-scalar graph's own recipe, never the other's
    keys = {r.key for r in spy}
    assert len(keys) == 2


def test_recipes_are_dropped_with_the_programs(spy):
    x = xp.asarray(np.arange(300.0))
    for _ in range(4):
        np.asarray(x - 1.5)
    assert state.recipes
    xp.clear_cache()
    assert not state.recipes
    n = len(spy)
    np.testing.assert_array_equal(np.asarray(x - 1.5), np.arange(300.0) - 1.5)
    assert len(spy) == n


def test_a_replaced_program_is_not_run_through_a_stale_recipe(spy):
    x = xp.asarray(np.arange(300.0))
    for _ in range(4):
        np.asarray(x * 4.0)
    recipe = spy[-1]
    state.programs.pop(recipe.key)
    y = x * 4.0
    assert not _run_program.replay_one(y._node, x._device, 0, None, []) and y._node.op is not None
    np.testing.assert_array_equal(np.asarray(x * 4.0), np.arange(300.0) * 4.0)


def test_a_live_sibling_takes_the_general_path(spy):
    a_np = np.arange(500.0)
    x = xp.asarray(a_np)
    for _ in range(4):
        np.asarray(x * 2.0 + 1.0)
    n = len(spy)
    t = x * 2.0
    y = t + 1.0  # t is live and pending: computed in the same sync, which the recipe cannot do
    np.testing.assert_array_equal(np.asarray(y), a_np * 2.0 + 1.0)
    assert len(spy) == n
    assert t._pending_node().op is None
    np.testing.assert_array_equal(np.asarray(t), a_np * 2.0)


def test_copies_and_scalar_reads_take_recipes_too(spy):
    a_np = np.arange(2000.0)
    x = xp.asarray(a_np)
    for _ in range(5):
        np.testing.assert_array_equal(np.array(x + 0.25, copy=True), a_np + 0.25)
    assert len(spy) >= 2
    n = len(spy)
    for _ in range(5):
        assert float(xp.sum(x * 0.5)) == float(np.sum(a_np * 0.5))
    assert xp.metrics.syncs["float"] == 5


def test_verify_runs_on_the_recipe_path(spy, monkeypatch):
    from lazyarray import _verify
    checked = []
    real = _verify.verify
    monkeypatch.setattr(xp.config, "verify", True)
    monkeypatch.setattr(_verify, "verify", lambda order, leaves: (checked.append(len(order)), real(order, leaves)))
    x = xp.asarray(np.ones(400))
    for _ in range(5):
        np.asarray(xp.exp(x) * 3.0)
    assert spy and checked[-1] == 2


def _served(monkeypatch):
    """The recipes of the reads the recipe path serves from now on, in order (a list)."""
    served = []
    real = _run_program.replay_one

    def counting(node, device, traced, site, candidates):
        kept = state.recipes.get((node.op, node.shape), ())
        matching = next((r for r in kept if r.match(node) is not None), None)
        done = real(node, device, traced, site, candidates)
        if done:
            served.append(matching)
        return done
    from lazyarray import _engine
    monkeypatch.setattr(_engine, "_replay_one", counting)
    return served


def test_an_interpreted_graph_is_served_by_its_recipe(interpreted, monkeypatch, rng):
    served = _served(monkeypatch)
    for step in range(16):
        a_np, b_np = rng.standard_normal(300), rng.standard_normal(300)
        a, b = xp.asarray(a_np), xp.asarray(b_np)
        t = a * 2.0 - b  # (a live pending sibling: the recipe path asks whether it shares work)
        s = xp.asarray(np.arange(300.0)) + 1.0
        np.testing.assert_array_equal(np.asarray(xp.maximum(a, b) * 3.0), np.maximum(a_np, b_np) * 3.0)
        np.testing.assert_array_equal(np.asarray(t), a_np * 2.0 - b_np)
        del s
    assert len(served) >= 5 and all(r.compiled is None for r in served)
    assert interpreted.interpreted >= 16 and interpreted.executions == 0


def test_an_interpreted_recipe_shares_work_with_a_live_sibling_by_the_usual_path(interpreted, monkeypatch):
    served = _served(monkeypatch)
    x_np = np.arange(200.0)
    x = xp.asarray(x_np)
    for _ in range(12):
        np.testing.assert_array_equal(np.asarray(xp.exp(x * 0.5) + 1.0), np.exp(x_np * 0.5) + 1.0)
    n = len(served)
    assert n >= 2
    t = x * 0.5
    y = xp.exp(t) + 1.0  # t is live and in y's graph: computed in the same sync, not by the recipe
    np.testing.assert_array_equal(np.asarray(y), np.exp(x_np * 0.5) + 1.0)
    assert len(served) == n and t._pending_node().op is None


def test_a_compiled_program_takes_over_from_an_interpreted_recipe(engine, monkeypatch):
    """Once the background compile is installed, the read runs the program, never the
    interpreter through a stale recipe."""
    from lazyarray import _engine, _tier_policy
    served = _served(monkeypatch)
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    monkeypatch.setattr(_tier_policy, "learnt_seconds", lambda skey, device: None)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1e9)
    monkeypatch.setattr(_tier_policy, "compiled_is_slower", lambda host_cpu, trial: False)
    x_np = np.linspace(0, 1, 400)
    x = xp.asarray(x_np)
    for _ in range(12):
        np.testing.assert_array_equal(np.asarray(x * 4.0 - 2.0), x_np * 4.0 - 2.0)
    assert served and served[-1].compiled is None
    served[-1].entry.estimate = 0.0  # (decided once per sighting: now the compile pays)
    executions = xp.metrics.executions
    for _ in range(12):
        np.testing.assert_array_equal(np.asarray(x * 4.0 - 2.0), x_np * 4.0 - 2.0)
        _engine.wait_for_compiles()
    assert xp.metrics.executions > executions  # the program ran (its trial, then installed)
    interpreted = xp.metrics.interpreted
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(x * 4.0 - 2.0), x_np * 4.0 - 2.0)
    assert xp.metrics.interpreted == interpreted  # the installed program serves, not the interpreter
