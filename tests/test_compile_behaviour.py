"""The compilation behaviour a lazy library lives or dies by, proven by counting compiles."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config
from lazyarray._graph import pending


def step(x, w):
    return xp.tanh(x @ w) * 0.5 + xp.sum(x, axis=1, keepdims=True)


def test_loop_on_new_data_compiles_once(fresh, rng):
    w = xp.asarray(rng.standard_normal((8, 4)))
    for i in range(100):
        x = xp.asarray(rng.standard_normal((16, 8)))
        out = np.asarray(step(x, w))
        if i == 99:
            xn = np.asarray(x)
            ref = np.tanh(xn @ np.asarray(w)) * 0.5 + xn.sum(axis=1, keepdims=True)
            np.testing.assert_allclose(out, ref, rtol=1e-12)
    assert fresh.compiles == 1
    assert fresh.cache_hits == 99


def test_changing_python_scalars_do_not_recompile(fresh, rng):
    xn = rng.standard_normal(32)
    x = xp.asarray(xn)
    results = []
    for i in range(50):
        lr = 0.1 / (i + 1)
        results.append(float(xp.sum(x * lr + i)))
    assert fresh.compiles == 1
    expected = [float(np.sum(xn * (0.1 / (i + 1)) + i)) for i in range(50)]
    np.testing.assert_allclose(results, expected, rtol=1e-12)


def test_integer_index_read_does_not_recompile(fresh, rng):
    xn = rng.standard_normal((40, 3))
    x = xp.asarray(xn)
    for i in range(40):
        np.testing.assert_array_equal(np.asarray(x[i]), xn[i])
        np.testing.assert_array_equal(np.asarray(x[i:i + 1, 1]), xn[i:i + 1, 1])
    assert fresh.compiles == 2  # one graph per index pattern, not per value


def test_integer_index_write_does_not_recompile(fresh, rng):
    xn = np.zeros((30, 4))
    x = xp.asarray(xn)
    for i in range(30):
        x[i] = float(i)
        xn[i] = float(i)
        x[i, 2] = -1.0
        xn[i, 2] = -1.0
        np.asarray(x)
    np.testing.assert_array_equal(np.asarray(x), xn)
    assert fresh.compiles <= 2  # the first write pattern differs from the steady one at most once


def test_negative_and_positive_indices_share_a_graph(fresh, rng):
    xn = rng.standard_normal(10)
    x = xp.asarray(xn)
    vals = [float(x[i]) for i in range(-10, 10)]
    assert vals == [float(v) for v in np.concatenate([xn, xn])]
    assert fresh.compiles <= 1  # (none on the CPU: x[i] of a computed array needs no program)


def test_unread_loop_is_cut_and_cut_graphs_hit_the_cache(fresh, monkeypatch):
    monkeypatch.setattr(_config, "node_budget", 60)
    x = xp.asarray(np.ones(5))
    xn = np.ones(5)
    for i in range(2000):
        x = x * 1.0001 + 0.0001
        xn = xn * 1.0001 + 0.0001
        assert pending.nodes_since_sync <= 60
    np.testing.assert_allclose(np.asarray(x), xn, rtol=1e-12)
    # 2000 iterations of >= 2 nodes each at a budget of 60: at least 60 cuts
    assert fresh.syncs["cut"] >= 2000 * 2 // 60 - 1
    # the cut graphs repeat: a handful of distinct graphs for ~130 cuts
    assert fresh.compiles <= 6
    assert fresh.cache_hits >= fresh.syncs["cut"] - 6


def test_evaluate_runs_several_arrays_in_one_program(fresh, rng):
    a = xp.asarray(rng.standard_normal(10))
    b, c, d = a + 1, a * 2, xp.sum(a)
    xp.evaluate(b, c, d)
    assert fresh.executions == 1
    assert fresh.syncs["evaluate"] == 1
    before = fresh.executions
    np.asarray(b), np.asarray(c), float(d)
    assert fresh.executions == before  # already on the device: no more programs


def test_results_feed_the_next_program_without_host_round_trip(fresh, rng):
    a = xp.asarray(rng.standard_normal(1000))
    b = a * 3
    xp.evaluate(b)
    to_host_before = fresh.bytes_to_host
    c = b + 1
    xp.evaluate(c)
    assert fresh.bytes_to_host == to_host_before
    assert b._node.buffer is not None and c._node.buffer is not None


def test_sync_of_a_loss_realizes_the_loop_state(fresh, rng):
    """Reading one value each step computes the state that shares its graph, so the next step's
    graph does not grow (the LazyTensor 'all live tensors' rule, restricted to the same graph)."""
    X = xp.asarray(rng.standard_normal((64, 4)))
    w = xp.zeros(4)
    sizes = []
    for _ in range(10):
        g = X.T @ (X @ w - 1.0)
        w = w - 0.01 * g
        loss = xp.sum(g * g)
        float(loss)
        sizes.append(w._node.op is None)
    assert all(sizes)
    assert fresh.compiles <= 2


def test_unrelated_pending_arrays_are_not_computed(fresh, rng):
    a = xp.asarray(rng.standard_normal(4))
    b = xp.asarray(rng.standard_normal(4))
    unrelated = b * 2
    float(xp.sum(a))
    assert unrelated._node.op is not None


def test_max_graphs_per_site_guard(fresh, monkeypatch):
    monkeypatch.setattr(_config, "max_graphs_per_site", 3)
    with pytest.raises(RuntimeError, match="distinct graphs"):
        for n in range(1, 10):
            float(xp.sum(xp.ones(n)))  # a new shape each time: a new graph from one line


def test_cuts_align_with_loop_iterations(fresh, monkeypatch):
    """7 nodes an iteration against a budget of 50: cuts wait for the line of the first cut, so
    every cut after the first covers the same whole iterations and compiles nothing new."""
    monkeypatch.setattr(_config, "node_budget", 50)  # (`fresh` forgot the last cut's site)
    x = xp.asarray(np.linspace(0.0, 1.0, 8))
    xn = np.linspace(0.0, 1.0, 8)
    for _ in range(300):
        x = xp.sqrt(x * 0.5 + 0.25)
        x = x - 0.1
        x = xp.abs(x) + 0.01
        xn = np.abs(np.sqrt(xn * 0.5 + 0.25) - 0.1) + 0.01
    np.testing.assert_allclose(np.asarray(x), xn, rtol=1e-12)
    assert fresh.syncs["cut"] >= 30
    assert fresh.compiles <= 3  # the first cut, the steady cut, the final read
