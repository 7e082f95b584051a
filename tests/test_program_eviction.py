"""A program that leaves the in-memory cache (`_program_cache.install`, past `cache_size`) takes
with it what was kept for running it again: its replay recipe (`state.replays`) and its
executable's result handlers (`_runtime._handlers`), so neither holds an evicted executable."""
import numpy as np

import lazyarray as xp
from lazyarray import _config, _runtime
from lazyarray._engine_state import state


def _held_executables():
    return {id(e) for e, _ in _runtime._handlers.values()} | {id(r.compiled.executable) for r in state.replays.values()}


def test_evicted_programs_leave_replays_and_handlers(fresh, monkeypatch):
    monkeypatch.setattr(_config, "cache_size", 2)
    x = xp.asarray(np.arange(1000.0))
    graphs = [lambda a: a * 2.0 + 1.0, lambda a: xp.sin(a) - 3.0, lambda a: xp.exp(a / 1000.0) * a]
    expected = [np.arange(1000.0) * 2.0 + 1.0, np.sin(np.arange(1000.0)) - 3.0,
                np.exp(np.arange(1000.0) / 1000.0) * np.arange(1000.0)]
    for f, want in zip(graphs, expected):
        for _ in range(2):  # (a second run makes the replay and the handlers)
            np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-15)
    kept = {id(c.executable) for c in state.programs.values()}
    assert len(state.programs) == 2
    assert _held_executables() <= kept  # the first graph's executable is held by nothing
    for f, want in zip(graphs, expected):  # and every graph still runs (the first compiles again)
        np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-15)


def test_forget_executable_ignores_unknown():
    _runtime.forget_executable(object())  # (never run: nothing to forget, no error)
