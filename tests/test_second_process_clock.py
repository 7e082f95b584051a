"""Timed interpreted runs read the process's CPU clock (the trial's yardstick, `Sighting.host_cpu`)
only near their graph's compile decision (`_tier_policy.samples_process_cpu`): counted by a spy
on `_cpu_mark`; values checked against numpy; the decision itself is unchanged."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _tier_policy
from lazyarray._engine_state import state


@pytest.fixture
def marks(engine, monkeypatch):
    """The default tier settings (no learnt costs); returns the list of `_cpu_mark` calls."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_tier_policy, "learnt_seconds", lambda skey, device: None)
    monkeypatch.setattr(_tier_policy, "on_trial", None)
    seen = []
    real = _tier_policy._cpu_mark

    def counting():
        seen.append(1)
        return real()
    monkeypatch.setattr(_tier_policy, "_cpu_mark", counting)
    yield seen
    _engine.wait_for_compiles()


def _read(xn):
    x = xp.asarray(xn)
    got = float(xp.sum(xp.exp(x) * 2.0 + 1.0))
    assert got == pytest.approx(float(np.sum(np.exp(xn) * 2.0 + 1.0)), rel=1e-12)


def test_a_graph_far_from_its_compile_reads_only_its_thread_clock(marks, monkeypatch, rng):
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1e3)  # (a compile that never pays)
    xn = rng.standard_normal(300)
    for _ in range(9):
        _read(xn)
    (entry,) = state.sightings.values()
    assert entry.timed == 3 and entry.seconds > 0.0  # (runs 2, 4 and 8)
    assert entry.estimate == 1e3 and entry.future is None
    assert marks == [] and entry.host_cpu == []


def test_a_graph_near_its_compile_measures_its_process_cpu(marks, monkeypatch, rng):
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1e-9)  # (compiles at its first decision)
    xn = rng.standard_normal(300)
    for _ in range(2):
        _read(xn)
    (entry,) = state.sightings.values()
    assert len(marks) == 1 and entry.host_cpu  # (the deciding run measured it: the trial has a yardstick)
    assert entry.estimate == 1e-9 and entry.future is not None
    _engine.wait_for_compiles()
    for _ in range(1 + _tier_policy.TRIAL_RUNS + 2):
        _read(xn)
    assert xp.metrics.executions >= 1


def test_the_estimate_is_the_one_the_decision_makes(marks, rng):
    xn = rng.standard_normal(300)
    for _ in range(2):
        _read(xn)
    (entry,) = state.sightings.values()
    x = xp.asarray(xn)
    y = xp.sum(xp.exp(x) * 2.0 + 1.0)
    from lazyarray._graph import Plan
    assert entry.estimate == _tier_policy.compile_estimate(Plan([y._node]).order)
    float(y)


def test_a_learnt_cost_near_the_compile_samples(marks, monkeypatch, rng):
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1.0)
    monkeypatch.setattr(_tier_policy, "learnt_seconds", lambda skey, device: 0.05)  # 2 x 0.05 x 32 >= 1
    xn = rng.standard_normal(300)
    for _ in range(2):
        _read(xn)
    (entry,) = state.sightings.values()
    assert len(marks) == 1 and entry.learnt == 0.05


def test_pinned_graphs_never_read_it(marks, rng):
    xn = rng.standard_normal(64)
    for _ in range(5):
        got = np.asarray(xp.fft.fft(xp.asarray(xn)))
        np.testing.assert_allclose(got, np.fft.fft(xn), rtol=1e-12, atol=1e-12)
    entries = [e for e in state.sightings.values() if e.pinned]
    assert entries and marks == []
