"""Threads: independent loops in several Python threads, traced and synced at the same time,
give numpy's values; one graph wanted by many threads compiles once.

Configuration: 8 threads start together (a barrier), each runs its own loop (a matrix-vector
iteration with in-place `+=` and `x[i] = v`) with the graph-cut budget lowered to 64 nodes, so
cuts, reads, compiles and interpretation of different threads interleave constantly; each
configuration runs several rounds. Values are compared with numpy's computed in the same thread.
"""
import threading

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine
from lazyarray._engine_state import state

THREADS = 8


def _loop(ns, asarray, k, steps, read_every_step):
    """The same code on numpy and on lazyarray: thread k's own sizes and data."""
    rng = np.random.default_rng(k)
    n = 6 + k
    A = asarray(rng.standard_normal((n, n)) / n)
    v = asarray(rng.standard_normal(n))
    acc = ns.zeros(n)
    t = ns.zeros(())
    for i in range(steps):
        v = A @ v
        s = ns.sum(v * v)
        v = v / ns.sqrt(s)
        acc += v                 # in-place operator
        acc[i % n] = s * 0.5     # __setitem__ with a Python int index
        t = t + s
        if read_every_step:
            float(t)
    return np.asarray(acc), float(t)


def _run_threads(target, args_of):
    barrier = threading.Barrier(THREADS)
    results, errors = [None] * THREADS, []

    def work(k):
        try:
            barrier.wait()
            results[k] = target(*args_of(k))
        except BaseException as exc:  # reported in the main thread
            errors.append((k, exc))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a thread hung (deadlock?)"
    if errors:
        raise errors[0][1]
    return results


@pytest.mark.parametrize("read_every_step", [False, True], ids=["no-reads", "reads"])
def test_threads_match_numpy(monkeypatch, read_every_step):
    """Tiered (the default): cut graphs mixing the threads' loops are interpreted, repeated
    graphs compile in the background while other threads trace and sync."""
    monkeypatch.setattr(_config, "node_budget", 64)
    steps = 40 if read_every_step else 120
    for _ in range(3):  # rounds: races are timing-dependent
        _check_round(steps, read_every_step)
    _engine.wait_for_compiles()


def test_threads_match_numpy_compiling_at_once(monkeypatch):
    """Every graph compiled at first sight: compiles (the GIL released) overlap other threads'
    syncs. (The default budget: with all threads' nodes counted, a small one would cut each step
    at a different point and compile a new graph each time.)"""
    monkeypatch.setattr(_config, "interpret_first", 0)
    _check_round(25, True)


def _check_round(steps, read_every_step):
    got = _run_threads(lambda k: _loop(xp, xp.asarray, k, steps, read_every_step), lambda k: (k,))
    for k in range(THREADS):
        want = _loop(np, np.asarray, k, steps, False)
        np.testing.assert_allclose(got[k][0], want[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[k][1], want[1], rtol=1e-10)


def test_issue_example_four_threads(monkeypatch):
    """The loop of issue 9 (item 5) that crashed 14 of 20 runs in `cut_graph`."""
    monkeypatch.setattr(_config, "node_budget", 100)

    def f(ns, n):
        A = ns.asarray(np.eye(n) * .5)
        v = ns.ones(n)
        t = ns.zeros(())
        for _ in range(200):
            v = A @ v
            s = ns.sum(v * v)
            v = v / ns.sqrt(s)
            t = t + s
        return float(t)

    for _ in range(3):
        out, errors = {}, []

        def work(n):
            try:
                out[n] = f(xp, n)
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in (10, 20, 30, 40)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=120)
        assert not errors, errors
        for n in (10, 20, 30, 40):
            assert out[n] == pytest.approx(f(np, n), rel=1e-12)


def test_shared_pending_array_read_by_all_threads(monkeypatch):
    """One pending graph read by 8 threads at once is computed once per thread's need, and every
    thread sees the same value; in-place updates of each thread's own copy stay its own."""
    monkeypatch.setattr(_config, "node_budget", 64)
    base = np.linspace(-1.0, 1.0, 50)
    for _ in range(5):
        shared = xp.exp(xp.asarray(base)) * 2.0 - 1.0  # pending, shared by all threads

        def work(k):
            mine = shared + 0.0        # a new handle on the same node
            mine[k] = float(k)         # in-place: must not reach `shared`
            mine *= 3.0
            return np.asarray(mine), float(xp.sum(shared))

        got = _run_threads(work, lambda k: (k,))
        want_shared = np.exp(base) * 2.0 - 1.0
        for k in range(THREADS):
            want = want_shared.copy()
            want[k] = k
            np.testing.assert_allclose(got[k][0], want * 3.0, rtol=1e-13)
            assert got[k][1] == pytest.approx(want_shared.sum(), rel=1e-12)
        np.testing.assert_allclose(np.asarray(shared), want_shared, rtol=1e-13)


def test_one_graph_wanted_by_all_threads_compiles_once(fresh):
    """8 threads reading the same new graph at the same moment: one compile, one cache entry."""
    data = np.arange(37.0)

    def work(k):
        x = xp.asarray(data + k)
        return float(xp.sum(xp.sin(x) * 3.0 + 1.0))

    got = _run_threads(work, lambda k: (k,))
    for k in range(THREADS):
        assert got[k] == pytest.approx(np.sum(np.sin(data + k) * 3.0 + 1.0), rel=1e-12)
    assert fresh.compiles == 1
    assert fresh.cache_hits == THREADS - 1
    assert len(state.programs) == 1


def test_buffers_of_arrays_dying_in_threads_are_recycled_safely(monkeypatch):
    """Large arrays die in all threads while others sync: the pool hands each dead buffer to one
    program at a time, and values stay right."""
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    monkeypatch.setattr(_config, "interpret_first", 0)
    base = np.arange(4096.0)

    def work(k):
        total = 0.0
        for i in range(30):
            y = xp.asarray(base) * float(k + i)   # 32 KiB: recycled when it dies
            total += float(xp.sum(y + 1.0))
        return total

    got = _run_threads(work, lambda k: (k,))
    for k in range(THREADS):
        want = sum(float(np.sum(base * float(k + i) + 1.0)) for i in range(30))
        assert got[k] == pytest.approx(want, rel=1e-12)
