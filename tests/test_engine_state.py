"""The engine's state is one object (`_engine_state.state`): `reset` forgets all of it, and
`clear_cache` forgets all but the pending checks (they belong to live arrays)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config
from lazyarray._engine_state import state


def _fill(monkeypatch):
    """Run enough to leave something in every part of the engine state."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_config, "node_budget", 60)
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    x = xp.asarray(np.linspace(0.0, 1.0, 8))
    for _ in range(100):  # an unread loop: budget cuts (cut site), a loop chunk, sightings
        x = xp.sqrt(x * 0.5 + 0.25) - 0.1
        x = xp.abs(x) + 0.01
    float(xp.sum(x))
    monkeypatch.setattr(_config, "interpret_first", 0)
    float(xp.sum(xp.asarray(np.ones(3)) * 7.0))  # a compiled program and a scalar buffer
    big = xp.asarray(np.ones(4096)) * 2.0  # a large computed array that dies: its buffer is pooled
    xp.evaluate(big)
    del big


def test_reset_forgets_everything(engine, monkeypatch):
    _fill(monkeypatch)
    assert state.programs and state.sightings and state.scalar_buffers
    assert state.cut_site is not None and state.last_chunk is not None and state.chunks_seen
    assert state.pool.bytes > 0
    state.reset()
    assert all(n == 0 for n in state.sizes().values()), state.sizes()
    assert state.cut_site is None and state.last_chunk is None and state.chunks_seen == 0
    assert state.pool.bytes == 0


def test_values_after_a_reset_are_numpys(engine, monkeypatch):
    _fill(monkeypatch)
    state.reset()
    xn = np.linspace(0.0, 1.0, 8)
    x = xp.asarray(xn)
    for _ in range(100):
        x, xn = xp.abs(xp.sqrt(x * 0.5 + 0.25) - 0.1) + 0.01, np.abs(np.sqrt(xn * 0.5 + 0.25) - 0.1) + 0.01
    np.testing.assert_allclose(np.asarray(x), xn, rtol=1e-12)


def test_clear_cache_keeps_pending_checks(engine, monkeypatch):
    """A checked call's error must still come at the read after `clear_cache`."""
    monkeypatch.setattr(_config, "checks", True)
    a = xp.asarray(np.arange(3.0))
    y = xp.take(a, xp.asarray([0, 7]))
    assert state.checks
    xp.clear_cache()
    with pytest.raises(IndexError, match="out of bounds"):
        np.asarray(y)
    state.reset()  # the fixture's reset: the check is forgotten, the value is the clamped one
    assert not state.checks
    np.testing.assert_array_equal(np.asarray(y), [0.0, 2.0])
