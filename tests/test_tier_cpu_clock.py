"""The tier policy weighs what interpreting a graph costs in CPU time of this thread, read on a
few runs only (`_tier_policy` docstring): a wall clock that jumps (the process preempted on a
loaded machine) must not compile a cheap graph, and a graph seen once must not pay for a read of
the CPU clock (~2.3 us a system call on this VM)."""
import math
import time
import types

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _tier_policy


@pytest.fixture
def policy(engine, monkeypatch):
    """The default tier settings, no learnt cost from an earlier run of this command."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_tier_policy, "learnt_seconds", lambda skey, device: None)
    yield xp.metrics
    _engine.wait_for_compiles()


def _clock(monkeypatch, wall_step):
    """`_tier_policy.time` with a wall clock that advances `wall_step` seconds a read and the real
    thread CPU clock, counting its reads."""
    reads = [0]
    wall = [0.0]

    def perf_counter():
        wall[0] += wall_step
        return wall[0]

    def thread_time():
        reads[0] += 1
        return time.thread_time()

    monkeypatch.setattr(_tier_policy, "time", types.SimpleNamespace(perf_counter=perf_counter, thread_time=thread_time))
    return reads


def _step(x):
    return xp.sum(x * 2.0 + 1.0)


def test_a_jumping_wall_clock_does_not_compile_a_cheap_graph(policy, monkeypatch, rng):
    """Each run 'takes' 1 s of wall clock (as if preempted), far above the graph's ~30 ms compile
    estimate; its CPU time is microseconds, so it stays in the interpreter."""
    _clock(monkeypatch, 1.0)
    xn = rng.standard_normal(200)
    x = xp.asarray(xn)
    for _ in range(12):
        assert float(_step(x)) == pytest.approx(float(np.sum(xn * 2.0 + 1.0)), rel=1e-13)
    assert policy.interpreted == 12
    assert policy.background_compiles == 0 and policy.compiles == 0
    (seen,) = _sightings()
    assert 0.0 < seen.seconds < 12 * 0.01  # CPU seconds, not the 12 s the wall clock showed


def _sightings():
    from lazyarray._engine_state import state
    return list(state.sightings.values())


def test_a_graph_that_costs_its_compile_in_cpu_time_still_compiles(policy, monkeypatch, rng):
    """The ski rental still rents: a graph whose timed runs cost as much CPU time as its compile
    estimate compiles at the decision (the 2nd run), whatever the wall clock says (here: 0)."""
    _clock(monkeypatch, 0.0)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1e-9)
    xn = rng.standard_normal(200)
    x = xp.asarray(xn)
    for _ in range(2):
        assert float(_step(x)) == pytest.approx(float(np.sum(xn * 2.0 + 1.0)), rel=1e-13)
    assert policy.background_compiles == 1


def test_the_cpu_clock_is_read_on_few_runs(policy, monkeypatch, rng):
    reads = _clock(monkeypatch, 0.0)
    for n in range(1, 6):  # five graphs seen once each: no CPU clock read
        assert float(xp.sum(xp.asarray(rng.standard_normal(100 + n)) * 3.0)) is not None
    assert reads[0] == 0 and policy.interpreted == 5
    xn = rng.standard_normal(200)
    x = xp.asarray(xn)
    runs = 40
    for _ in range(runs):
        float(_step(x))
    (seen,) = [s for s in _sightings() if s.runs == runs]
    timed = math.floor(math.log2(runs / 2)) + 1  # runs 2, 4, 8, 16, 32
    assert seen.timed == timed and reads[0] == 2 * timed
    # every run counts as the mean of the timed ones
    assert seen.seconds == pytest.approx(runs * seen.timed_seconds / seen.timed, rel=1e-12)
