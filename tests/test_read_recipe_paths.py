"""Session 16 (READ): the read path of a repeated graph. A recipe's matcher compares only the
positions that could hold one node (same op, dtype and shape); a one-output recipe serves a read
with nothing pending beside it straight, and a read whose target shares work with a pending array
still computes that array with it. Values are checked against numpy, and which path served."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _run_program
from lazyarray._engine_state import state
from lazyarray._graph import Plan


def _matcher_of(y):
    plan = Plan([y._node])
    return _run_program._matcher(plan.sig), plan


@pytest.fixture
def served(fresh, monkeypatch):
    """The reads the recipe path served (True) or left (False), in order."""
    out = []
    real = _run_program.replay_one

    def spying(node, device, traced, site, candidates):
        done = real(node, device, traced, site, candidates)
        out.append(done)
        return done
    monkeypatch.setattr(_engine, "_replay_one", spying)
    return out


def test_three_alike_operands_must_be_three_nodes(fresh):
    a, b, c = (xp.asarray(np.arange(30.0) + k) for k in range(3))
    match, plan = _matcher_of(a * b + c)
    leaves, order = match((a * b + c)._node)
    assert [id(n) for n in leaves] == [id(n) for n in plan.leaves]
    for y in (a * a + c, a * b + a, a * b + b, c * c + c):  # (one node at two positions)
        assert match(y._node) is None
    d, e, f = (xp.asarray(np.ones(30)) for _ in range(3))
    assert match((d * e + f)._node) is not None
    same, _ = _matcher_of(a * a + c)
    assert same((a * b + c)._node) is None and same((b * b + a)._node) is not None
    np.testing.assert_array_equal(np.asarray(a * b + c), np.arange(30.0) * (np.arange(30.0) + 1) + np.arange(30.0) + 2)


def test_unlike_positions_need_no_comparison_but_alike_ones_do(fresh):
    x = xp.asarray(np.arange(20.0))
    match, _ = _matcher_of(xp.sin(x * 2.0) + 3.0)  # (2.0 and 3.0: alike 0-D leaves)
    text = next(t for t in _run_program._matcher_codes if "n0" in t and "sin" not in t)
    assert text.count(" is n") >= 1
    assert match((xp.sin(x * 2.0) + 3.0)._node) is not None
    two = 2.0
    assert match((xp.sin(x * two) + two)._node) is None  # (one leaf at both scalar positions)


def test_a_one_output_read_is_served_straight_and_right(served):
    a_np = np.linspace(-2, 2, 900)
    x = xp.asarray(a_np)
    for k in range(12):
        s = float(k)
        np.testing.assert_allclose(np.asarray(x * s + 1.0), a_np * s + 1.0, rtol=1e-15, atol=1e-15)  # (an FMA)
    assert served[-4:] == [True] * 4
    assert xp.metrics.short_syncs >= 4


def test_a_read_sharing_work_with_a_pending_array_computes_both(served):
    a_np = np.linspace(-2, 2, 900)
    x = xp.asarray(a_np)
    for k in range(12):
        t = x * 2.0 + 1.0  # the one-output recipe's graph ...
        u = t * 3.0        # ... shared with a pending array
        np.testing.assert_array_equal(np.asarray(t), a_np * 2.0 + 1.0)
        assert u._node.op is None  # (computed with the read: it shares its work)
        np.testing.assert_array_equal(np.asarray(u), (a_np * 2.0 + 1.0) * 3.0)
    for k in range(3):  # the one-output recipe again, nothing beside it
        np.testing.assert_array_equal(np.asarray(x * 2.0 + 1.0), a_np * 2.0 + 1.0)
    assert served[-1] is True
    assert any(r.extra == 0 for kept in state.recipes.values() for r in kept)


def test_a_numpy_read_counts_its_sync_at_the_callers_line(fresh):
    import inspect
    x = xp.asarray(np.arange(1000.0))
    for _ in range(3):
        y = x * 2.0 + 1.0
        line = inspect.currentframe().f_lineno + 1
        a = np.asarray(y)
        np.testing.assert_array_equal(a, np.arange(1000.0) * 2.0 + 1.0)
        del a
    sites = xp.metrics.sync_sites
    assert sites[("numpy", (__file__, line))] == 3
    assert xp.metrics.syncs["numpy"] == 3 and xp.metrics.syncs["never"] == 0


def test_the_sync_counters_count_as_counters(fresh):
    counts = type(xp.metrics.syncs)()
    counts["a"] += 2
    counts["b"] = 5
    assert counts["missing"] == 0 and counts.most_common(1) == [("b", 5)] and dict(counts) == {"a": 2, "b": 5}
    del counts["a"]
    with pytest.raises(KeyError):
        del counts["a"]
    assert type(xp.metrics.sync_sites) is type(counts)
    assert "syncs by cause" in xp.metrics.report()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "uint16", "complex64", "bool"])
def test_a_zero_copy_read_of_a_programs_output_has_the_nodes_dtype(fresh, dtype):
    a_np = (np.arange(3000) % 7).astype(dtype)
    x = xp.asarray(a_np)
    for _ in range(3):
        y = x & x if dtype == "bool" else x + x
        want = a_np & a_np if dtype == "bool" else a_np + a_np
        before = xp.metrics.zero_copy_reads
        got = np.asarray(y)
        assert xp.metrics.zero_copy_reads == before + 1  # (the buffer's own memory)
        assert got.dtype == np.dtype(dtype) and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        z = xp.asarray(got)  # an older buffer read again: its dtype is asked
        np.testing.assert_array_equal(np.asarray(z), want)


def test_reads_at_two_lines_of_one_function_count_at_their_own_lines(fresh):
    import inspect
    x = xp.asarray(np.arange(1000.0))
    lines = []
    for _ in range(2):
        lines.append(inspect.currentframe().f_lineno + 1)
        float(xp.sum(x * 2.0))
        lines.append(inspect.currentframe().f_lineno + 1)
        np.asarray(x * 3.0 + 1.0)
    sites = xp.metrics.sync_sites
    assert sites[("float", (__file__, lines[0]))] == 2 and sites[("numpy", (__file__, lines[1]))] == 2
    assert lines[0] == lines[2] and lines[1] == lines[3]


def test_without_verify_or_debug_an_unrecyclable_read_is_not_shown(fresh, monkeypatch):
    """A buffer no program can be handed (smaller than any the pool watched) is only shown to
    `is_lent` (tests, debugging) with verify or debug on; the read is the same either way."""
    a_np = np.linspace(0, 1, 2000)
    x = xp.asarray(a_np)
    # (the pool's smallest watched buffer depends on what ran before in the process: this
    # read's 16,000 bytes are made smaller than it, so the read is unrecyclable in any order)
    monkeypatch.setattr(state.pool, "smallest_watched", max(state.pool.smallest_watched, a_np.nbytes + 1))
    for verify, grows in ((False, False), (True, True)):
        monkeypatch.setattr(xp.config, "verify", verify)
        monkeypatch.setattr(xp.config, "debug", 0)
        before = len(state.pool._shown)
        reads = [np.asarray(x * 2.0 + 1.0) for _ in range(3)]
        for got in reads:
            np.testing.assert_array_equal(got, a_np * 2.0 + 1.0)
        assert (len(state.pool._shown) > before) is grows
        assert state.pool.is_lent(reads[0].base.buffer) is grows


@pytest.mark.parametrize("verify", [False, True])
def test_sync_sites_with_and_without_verify(fresh, monkeypatch, verify):
    """`user_site` answers a user's code seen before from its table at once (verify off), or after
    checking the frames it skips (verify on): the same sites either way."""
    import inspect
    monkeypatch.setattr(xp.config, "verify", verify)
    x = xp.asarray(np.arange(1000.0))
    lines = []

    def read_here(y):
        lines.append(inspect.currentframe().f_lineno + 1)
        return np.asarray(y)

    for _ in range(3):
        lines.append(inspect.currentframe().f_lineno + 1)
        np.testing.assert_array_equal(np.asarray(x * 2.0), np.arange(1000.0) * 2.0)
        read_here(x * 3.0)
        lines.append(inspect.currentframe().f_lineno + 1)
        assert float(xp.sum(x)) == 499500.0
    sites = xp.metrics.sync_sites
    assert sites[("numpy", (__file__, lines[0]))] == 3
    assert sites[("numpy", (__file__, lines[1]))] == 3
    assert sites[("float", (__file__, lines[2]))] == 3
    assert len(set(lines)) == 3


@pytest.mark.parametrize("min_bytes", [-5, 0, 1, 7999, 8000, 8001, 1 << 20])
def test_the_recipe_leaves_outputs_the_pool_may_recycle_for_to_the_general_path(served, monkeypatch, min_bytes):
    from lazyarray import _config
    a_np = np.linspace(-1, 1, 1000)  # a float64 output of 8000 bytes
    x = xp.asarray(a_np)
    for _ in range(12):
        np.testing.assert_array_equal(np.asarray(x * 2.0 + 1.0), a_np * 2.0 + 1.0)
    assert served[-1] is True
    monkeypatch.setattr(_config, "pool_min_bytes", min_bytes)
    got = np.asarray(x * 2.0 + 1.0)
    np.testing.assert_array_equal(got, a_np * 2.0 + 1.0)
    assert served[-1] is (8000 < max(min_bytes, 1))


def test_numpy_reads_of_a_loops_graph_plan_as_before(fresh):
    """np.asarray of a long loop's value (above `_segment.MIN_NODES`: the read looks for a loop
    in it, `_engine._read_planned`), read at one site again and again: numpy's values."""
    a_np = np.linspace(0.0, 1.0, 500)
    x = xp.asarray(a_np)
    for call in range(4):
        y, want = x, a_np
        for _ in range(120):
            y = y * 0.999 + 0.25
            want = want * 0.999 + 0.25
        got = np.asarray(y)
        np.testing.assert_allclose(got, want, rtol=1e-13)
    assert xp.metrics.sync_sites and xp.metrics.syncs["numpy"] == 4
