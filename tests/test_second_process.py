"""The second run of a command starts warm (issue 11 target 2).

Three mechanisms, each checked here against what it must never change (the values):
- the programs the last run used load from import on, on the compile thread (`_prefetch.start_at_import`),
  only when that run left a manifest;
- what the last run's interpreter learnt about the graphs it did not compile is kept per command
  (`_program_cache.learnt_seconds`, `keep_learnt_costs`), so the next run's tier decisions do not
  hang on the machine's load;
- exiting waits a bounded time for background work: queued loads are dropped, and a compile not
  started `EXIT_GRACE_SECONDS` after the program's end is skipped.
"""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _prefetch, _program_cache, _tier_policy
from lazyarray._engine_state import state

WORKLOAD = """
import numpy as np, lazyarray as xp
from lazyarray import _engine, _prefetch
from lazyarray._engine_state import state
started = state._compile_thread is not None
state.wait_for_compiles()
loaded_before_use = sum(f.done() and f.result() is not None for f in _prefetch._queued.values())
a = xp.asarray(np.arange(12.0).reshape(3, 4))
s = xp.linalg.svd(a, full_matrices=False)[1]
assert np.allclose(np.asarray(s), np.linalg.svd(np.arange(12.0).reshape(3, 4), compute_uv=False))
assert float(xp.sum(xp.exp(a * 0.5))) == float(np.sum(np.exp(np.arange(12.0) * 0.5)))
_engine.wait_for_compiles()
print(int(started), loaded_before_use, xp.metrics.compiles, xp.metrics.disk_hits, _prefetch.taken)
"""


def _run(cache, code=WORKLOAD, **settings):
    env = {k: v for k, v in os.environ.items() if k != "LAZYARRAY_DEVICE"}
    env.update(LAZYARRAY_CACHE_DIR=str(cache), LAZYARRAY_INTERPRET_FIRST="0")
    env.update(settings)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return [int(v) for v in out.stdout.split()]


def test_the_programs_load_from_import_on_and_serve_the_first_calls(tmp_path):
    started, loaded, c1, d1, t1 = _run(tmp_path)
    assert not started and loaded == 0  # no manifest: importing started nothing
    assert c1 >= 2 and d1 == 0 and t1 == 0
    started, loaded, c2, d2, t2 = _run(tmp_path)
    assert started  # the manifest's loads were queued at import
    assert loaded == c1  # every program of the last run loaded before the first array was made
    assert (c2, d2, t2) == (0, c1, c1)  # and each lookup took its program from there


def test_a_named_device_or_no_cache_starts_nothing_at_import(tmp_path):
    _run(tmp_path)  # leaves a manifest
    started, loaded, c, d, _ = _run(tmp_path, LAZYARRAY_DEVICE="cpu")
    assert not started and c == 0 and d >= 2  # (loaded at the first lookup instead)
    started, loaded, c, d, _ = _run(tmp_path, LAZYARRAY_CACHE_DIR="0")
    assert not started and c >= 2 and d == 0


def test_the_command_line_names_the_manifest(tmp_path, monkeypatch):
    """`python -c CODE` runs of different code are different commands (their manifests and
    learnt costs do not mix)."""
    monkeypatch.setattr(sys, "orig_argv", ["python", "-c", "print(1)"])
    one = _prefetch.manifest_path(str(tmp_path))
    monkeypatch.setattr(sys, "orig_argv", ["python", "-c", "print(2)"])
    assert _prefetch.manifest_path(str(tmp_path)) != one
    assert _prefetch.costs_path(str(tmp_path)).startswith(os.path.join(str(tmp_path), "manifests"))


# ------------------------------------------------------------------ learnt costs

@pytest.fixture
def learning(tmp_path, monkeypatch, engine):
    """A fresh disk cache under tmp_path, no learnt costs read yet, the interpreter tier on and
    its compile estimate set by the test (`est[0]`, seconds)."""
    root = str(tmp_path / "cache")
    monkeypatch.setattr(_config, "cache_dir", root)
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_prefetch, "_costs", {})
    monkeypatch.setattr(_prefetch, "_used", {})
    monkeypatch.setattr(_prefetch, "_started", set())
    monkeypatch.setattr(_prefetch, "_queued", {})
    monkeypatch.setattr(_program_cache, "_learning", {})
    monkeypatch.setattr(_program_cache, "_absent_roots", set())
    est = [1e9]
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: est[0])
    return root, est


def _graph_runs(n, an):
    """Run one graph n times (new inputs each time: the same structure), checked against numpy."""
    for i in range(n):
        a = xp.asarray(an + i)
        got = np.asarray(xp.sin(a) * 2.0 + a)
        np.testing.assert_allclose(got, np.sin(an + i) * 2.0 + (an + i), rtol=1e-15)


def _the_sighting():
    (key, seen), = state.sightings.items()
    return key, seen


def test_a_run_keeps_the_seconds_per_run_of_what_it_did_not_compile(learning):
    root, est = learning
    an = np.linspace(0.0, 1.0, 7)
    _graph_runs(3, an)
    (device_id, skey), seen = _the_sighting()
    assert seen.runs == 3 and seen.future is None and xp.metrics.compiles == 0
    _program_cache.keep_learnt_costs()
    with open(_prefetch.costs_path(root)) as f:
        (line,) = f.read().splitlines()
    device = xp.__array_namespace_info__().default_device()
    name, value = line.split()
    assert name == _prefetch.entry_name(root, _program_cache.structural_path(device, skey))
    assert float(value) == seen.seconds / seen.runs
    _prefetch._costs.clear()  # as the next process: read from disk
    assert _program_cache.learnt_seconds(skey, device) == seen.seconds / seen.runs


def test_a_graph_seen_once_is_not_recorded(learning):
    """It never reached a decision (interpret_first is 2), here or in the next run: naming it at
    exit would cost for nothing."""
    root, est = learning
    _graph_runs(1, np.linspace(0.0, 1.0, 7))
    assert _the_sighting()[1].runs == 1
    _program_cache.keep_learnt_costs()
    assert not os.path.exists(_prefetch.costs_path(root))


def test_a_record_is_kept_as_first_learnt(learning):
    root, est = learning
    an = np.linspace(0.0, 1.0, 7)
    _graph_runs(2, an)
    (_, skey), _ = _the_sighting()
    _program_cache.keep_learnt_costs()
    first = open(_prefetch.costs_path(root)).read()
    device = xp.__array_namespace_info__().default_device()
    name = _prefetch.entry_name(root, _program_cache.structural_path(device, skey))
    _prefetch._costs[root] = {name: float(first.split()[1])}
    state.sightings[next(iter(state.sightings))].seconds += 1.0  # measured differently this time
    _program_cache.keep_learnt_costs()
    assert open(_prefetch.costs_path(root)).read() == first


def test_malformed_or_foreign_records_are_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(_prefetch, "_costs", {})
    root = str(tmp_path)
    good = "ab/" + "c" * 64 + ".xla"
    os.makedirs(os.path.dirname(_prefetch.costs_path(root)))
    with open(_prefetch.costs_path(root), "w") as f:
        f.write(f"{good} 0.25\n../x.xla 1.0\n{good[:-5]}.xla 2.0\nab/{'d' * 64}.xla nan\n"
                f"ab/{'e' * 64}.xla -1\nab/{'f' * 64}.xla\ngarbage\n")
    assert _prefetch.learnt_costs(root) == {good: 0.25}


@pytest.mark.skipif("learnt" not in _tier_policy.Sighting.__slots__,
                    reason="the tier policy's hook (Sighting.learnt) is not in this tree yet")
def test_the_tier_policy_decides_with_the_learnt_cost(learning):
    """A record of a tiny cost per run: a graph whose own timing would compile it at its second run
    (estimate 1 us) is interpreted as the last run did; run often enough that the learnt cost
    reaches the estimate, it compiles; with no record it compiles at its second run."""
    root, est = learning
    an = np.linspace(0.0, 1.0, 7)
    device = xp.__array_namespace_info__().default_device()
    _graph_runs(1, an)
    (_, skey), _ = _the_sighting()
    name = _prefetch.entry_name(root, _program_cache.structural_path(device, skey))
    state.reset()
    _prefetch._costs[root] = {name: 1e-9}
    est[0] = 1e-6
    _graph_runs(900, an)  # 900 * 1e-9 s < 1e-6 s: interpreted every time, as the last run did
    state.wait_for_compiles()
    assert xp.metrics.background_compiles == 0 and _the_sighting()[1].runs == 900
    _graph_runs(200, an)  # past 1000 runs: the learnt cost pays for the compile
    state.wait_for_compiles()
    assert xp.metrics.background_compiles == 1
    state.reset()
    _prefetch._costs[root] = {}
    xp.metrics.reset()
    _graph_runs(3, np.linspace(0.0, 1.0, 9))  # another graph, no record: its own clock decides at the second run
    state.wait_for_compiles()
    assert xp.metrics.background_compiles == 1


# ------------------------------------------------------------------ exiting

class _Ended(threading.Thread):
    """Stands for the main thread once the program has ended (never started: not alive)."""


def test_background_compiles_are_skipped_past_the_grace_after_the_end(monkeypatch):
    ended = _Ended()
    monkeypatch.setattr(threading, "main_thread", lambda: ended)
    monkeypatch.setattr(_program_cache, "_ended_at", None)
    assert not _program_cache._too_late()  # the first seen after the end: within the grace
    monkeypatch.setattr(_program_cache, "_ended_at", _program_cache._ended_at - _program_cache.EXIT_GRACE_SECONDS - 1)
    assert _program_cache._too_late()
    device = xp.__array_namespace_info__().default_device()
    with pytest.raises(RuntimeError, match="skipped"):
        _program_cache._build("module {}", None, device, "here")


def test_queued_loads_are_dropped_once_the_program_ended(tmp_path, monkeypatch):
    from concurrent.futures import Future
    monkeypatch.setattr(threading, "main_thread", lambda: _Ended())
    path = str(tmp_path / "ab" / ("c" * 64 + ".xla"))
    future = Future()
    monkeypatch.setattr(_prefetch, "_queued", {(path, 0): future})
    loads = []
    monkeypatch.setattr(_prefetch._runtime, "load_serialized", lambda *a: loads.append(a))
    _prefetch._load_all([(path, 0)], None)
    assert future.result() is None and loads == []


def test_the_size_bound_counts_the_per_command_files(tmp_path):
    """A stream of distinct commands leaves a manifest and learnt costs each: they count in the
    bound and the oldest go first, entries and per-command files alike."""
    from lazyarray import _disk_cache
    files = []
    for k in range(4):
        entry = tmp_path / f"{k:02d}" / f"e{k}.xla"
        entry.parent.mkdir()
        entry.write_bytes(b"x" * 100)
        command = tmp_path / "manifests" / f"c{k}{('.txt', '.costs')[k % 2]}"
        command.parent.mkdir(exist_ok=True)
        command.write_bytes(b"y" * 100)
        for age, p in enumerate((entry, command)):
            os.utime(p, (1000 + 2 * k + age, 1000 + 2 * k + age))
        files += [entry, command]
    other = tmp_path / "manifests" / "notes.md"  # not ours: never counted nor deleted
    other.write_bytes(b"z" * 1000)
    assert _disk_cache.enforce_bound(str(tmp_path), 450) == 400
    assert [p.exists() for p in files] == [False] * 4 + [True] * 4
    assert other.exists()


def test_a_cache_holding_only_per_command_files_counts_as_empty(tmp_path):
    """A run that compiled nothing leaves learnt costs under manifests/: the next run must not
    name each new graph to look for a program that cannot be there."""
    listing = _program_cache._DiskListing()
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "c.costs").write_text("")
    assert not listing.may_hold(str(tmp_path))
    (tmp_path / "ab").mkdir()
    assert listing.may_hold(str(tmp_path))
