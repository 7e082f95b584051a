"""A new program is tried before it serves: when its runs cost more than the interpreter's did, the
graph goes back to the interpreter for good, and the command's next run interprets it from its
first sight (`_tier_policy` docstring, the trial). Decisions are checked through the sighting's
state and the metrics, with the interpreter's measured cost injected (never by timing)."""
import os

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _prefetch, _tier_policy
from lazyarray._engine_state import state


@pytest.fixture
def policy(engine, monkeypatch):
    """The default tier settings, a compile decided at the second run, no learnt costs."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1e-9)
    monkeypatch.setattr(_tier_policy, "learnt_seconds", lambda skey, device: None)
    monkeypatch.setattr(_tier_policy, "on_trial", None)
    yield xp.metrics
    _engine.wait_for_compiles()


def _graph(x):
    return xp.sum(xp.exp(x) * 2.0 + 1.0)


def _expected(xn):
    return float(np.sum(np.exp(xn) * 2.0 + 1.0))


def _compiled_with_interpreter_cost(x, xn, seconds):
    """Run the graph until its program is built, then set what its interpreted runs measured."""
    for _ in range(2):
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    _engine.wait_for_compiles()
    (entry,) = state.sightings.values()
    assert entry.future is not None and entry.future.done()
    assert entry.host_cpu, "the timed interpreted run measured its process CPU"
    entry.host_cpu[:] = [seconds]
    return entry


def test_a_program_dearer_than_the_interpreter_goes_back_for_good(policy, rng):
    xn = rng.standard_normal(300)
    x = xp.asarray(xn)
    entry = _compiled_with_interpreter_cost(x, xn, 1e-12)  # no program runs in a picosecond
    for _ in range(1 + _tier_policy.TRIAL_RUNS):  # the untimed first run, then the timed ones
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    assert policy.executions == 1 + _tier_policy.TRIAL_RUNS
    assert len(entry.trial) == _tier_policy.TRIAL_RUNS and min(entry.trial) > 0.0
    assert entry.pinned and entry.future is None
    assert list(state.sightings.values()) == [entry]
    assert not state.programs and not state.replays  # the program and its run recipe dropped
    interpreted = policy.interpreted
    for _ in range(40):  # never compiled again, however often it runs
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    _engine.wait_for_compiles()
    assert policy.interpreted == interpreted + 40
    assert policy.executions == 1 + _tier_policy.TRIAL_RUNS
    assert policy.background_compiles == 1


def test_a_program_cheaper_than_the_interpreter_is_installed_after_its_trial(policy, rng):
    xn = rng.standard_normal(300)
    x = xp.asarray(xn)
    _compiled_with_interpreter_cost(x, xn, 10.0)  # an interpreter run 'took' 10 s
    for k in range(1 + _tier_policy.TRIAL_RUNS):
        assert not state.programs, "on trial, the program is not installed yet"
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    assert len(state.programs) == 1 and not state.sightings
    executions = policy.executions
    short = policy.short_syncs
    for _ in range(5):
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    assert policy.executions == executions + 5
    assert policy.short_syncs == short + 5  # the installed program takes the short path
    assert policy.interpreted == 2


def test_a_graph_with_no_interpreter_measure_is_installed_untried(policy, rng):
    xn = rng.standard_normal(300)
    x = xp.asarray(xn)
    entry = _compiled_with_interpreter_cost(x, xn, 0.0)
    entry.host_cpu.clear()
    assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    assert len(state.programs) == 1 and not state.sightings and entry.trial is None


def test_the_margin_weighs_the_cheapest_runs():
    margin = _tier_policy.SLOWER_MARGIN
    host = [3.0, 9.0, 2.0]  # the cheapest: 2
    assert not _tier_policy.compiled_is_slower(host, [2.0 * margin, 7.0, 2.0 * margin])
    assert _tier_policy.compiled_is_slower(host, [2.0 * margin * 1.01, 50.0, 9.0])
    assert not _tier_policy.compiled_is_slower(host, [50.0, 2.0, 50.0])  # slow runs are noise
    assert not _tier_policy.compiled_is_slower([5.0, 0.1], [0.12, 0.12])


def test_the_next_run_of_the_command_interprets_it_from_its_first_sight(policy, rng, monkeypatch, tmp_path):
    root = str(tmp_path / "cache")
    monkeypatch.setattr(_config, "cache_dir", root)
    monkeypatch.setattr(_prefetch, "_costs", {})
    monkeypatch.setattr(_prefetch, "_slower", {})
    xn = rng.standard_normal(300)
    x = xp.asarray(xn)
    _compiled_with_interpreter_cost(x, xn, 1e-12)
    for _ in range(1 + _tier_policy.TRIAL_RUNS):
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    (name,) = _prefetch.slower_compiled(root)
    assert os.path.isfile(os.path.join(root, *name.split("/")))  # its program stays on disk
    with open(_prefetch.costs_path(root)) as f:
        assert f.read() == f"{name} {_prefetch.SLOWER}\n"
    # the next process: nothing in memory, the program on disk, the costs file read afresh
    state.reset()
    xp.metrics.reset()
    monkeypatch.setattr(_prefetch, "_costs", {})
    monkeypatch.setattr(_prefetch, "_slower", {})
    for _ in range(30):
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    _engine.wait_for_compiles()
    assert xp.metrics.interpreted == 30 and xp.metrics.executions == 0
    assert xp.metrics.compiles == 0 and xp.metrics.disk_hits == 0 and not state.programs
    (entry,) = state.sightings.values()
    assert entry.pinned


def test_learnt_costs_and_sent_back_entries_share_the_file(monkeypatch, tmp_path):
    root = str(tmp_path)
    monkeypatch.setattr(_prefetch, "_costs", {})
    monkeypatch.setattr(_prefetch, "_slower", {})
    costed = "ab/" + "1" * 64 + ".xla"
    slower = "cd/" + "2" * 64 + ".xla"
    _prefetch.write_costs(root, {costed: 0.25})
    _prefetch.note_slower_compiled(root, slower)
    _prefetch.note_slower_compiled(root, slower)  # once
    monkeypatch.setattr(_prefetch, "_costs", {})
    monkeypatch.setattr(_prefetch, "_slower", {})
    assert _prefetch.learnt_costs(root) == {costed: 0.25}
    assert list(_prefetch.slower_compiled(root)) == [slower]
    with open(_prefetch.costs_path(root)) as f:
        assert f.read().splitlines() == [f"{costed} 0.25", f"{slower} interpret"]


@pytest.mark.skipif(not hasattr(__import__("time"), "pthread_getcpuclockid"), reason="no per-thread CPU clocks")
def test_a_run_a_background_compile_overlapped_is_not_counted():
    """Another graph's background compile (XLA's threads besides the compile thread) running
    meanwhile would count in the process's CPU: such a run is left out; a quiet one counts."""
    import time

    def busy():
        end = time.thread_time() + 0.01
        while time.thread_time() < end:
            pass

    state.compile_thread().submit(lambda: None).result()  # (the thread exists)
    mark = _tier_policy._cpu_mark()
    state.compile_thread().submit(busy).result()
    assert _tier_policy._cpu_since(mark) is None
    time.sleep(0.05)  # (the worker back to waiting for work)
    mark = _tier_policy._cpu_mark()
    busy()  # (on this thread)
    assert _tier_policy._cpu_since(mark) >= 0.01


def test_a_trial_without_quiet_runs_installs_the_program(policy, rng, monkeypatch):
    """Every trial run overlapped by a compile: after TRIAL_RUNS_MAX runs nothing was measured,
    and the program is installed (as before trials existed)."""
    xn = rng.standard_normal(300)
    x = xp.asarray(xn)
    _compiled_with_interpreter_cost(x, xn, 1e-12)
    monkeypatch.setattr(_tier_policy, "_cpu_since", lambda mark: None)
    for _ in range(_tier_policy.TRIAL_RUNS_MAX):
        assert not state.programs
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    assert not state.programs
    assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    assert len(state.programs) == 1 and not state.sightings


def test_interpreted_runs_a_compile_overlapped_keep_their_timing(policy, rng, monkeypatch):
    """An interpreted timed run whose whole-process measure is left out still counts its own
    thread's CPU time for the compile decision, and adds no sample."""
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1e9)
    monkeypatch.setattr(_tier_policy, "_cpu_since", lambda mark: None)
    xn = rng.standard_normal(300)
    x = xp.asarray(xn)
    for _ in range(9):
        assert float(_graph(x)) == pytest.approx(_expected(xn), rel=1e-12)
    (entry,) = state.sightings.values()
    assert entry.timed == 3 and entry.seconds > 0.0 and entry.host_cpu == []
