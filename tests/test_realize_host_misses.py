"""Read sites whose small host read failed skip the host path for a while (`_engine._host_read`):
the schedule of tries, values equal to numpy's whichever path served a read, a success forgetting
the site, small graphs never looking their site up, the bound and the reset."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine
from lazyarray._engine_state import state


@pytest.fixture
def tries(host_tries):
    """The calls of `_host_sync.run` (the small host path tried), with their results."""
    return host_tries


def _chain(x, n=8):
    """n * 2 nodes traced on x (more than HOST_MISS_NODES)."""
    for _ in range(n):
        x = x * 1.5 + 0.25
    return x


def _np_chain(a, n=8):
    for _ in range(n):
        a = a * 1.5 + 0.25
    return a


@pytest.mark.parametrize("read", ["bool", "asarray"])
def test_failing_site_is_tried_at_growing_intervals(tries, read):
    """A float sum the host path gives up on, read at one line 20 times: it is tried at reads 0,
    2, 5, 10, 19 (skips of 1, 2, 4, 8 between), and every read's value is numpy's."""
    assert _engine.HOST_MISS_SKIPS >= 8
    for i in range(20):
        a = np.linspace(0, 1, 10) + i
        y = xp.sum(_chain(xp.asarray(a)))
        ref = np.sum(_np_chain(a))
        if read == "bool":
            got = bool(y > ref - 1e-9)  # (a compare of a float sum: one element, read_scalar)
            assert got is bool(ref > ref - 1e-9)
        else:
            v = np.asarray(xp.stack([y, y * 2.0]))  # (two elements: `_realize`)
            np.testing.assert_allclose(v, [ref, 2.0 * ref], rtol=1e-15, atol=0)
    assert tries == [False] * 5, tries
    assert len(state.host_misses) == 1


def test_skip_bound(tries):
    """Past HOST_MISS_SKIPS the interval stops growing."""
    n = 0
    for i in range(120):
        a = np.linspace(0, 1, 10) + i
        assert bool(xp.sum(_chain(xp.asarray(a))) > -1.0)
    (m,) = state.host_misses.values()
    assert m[1] == _engine.HOST_MISS_SKIPS
    # tried at 0, 2, 5, 10, 19, 36 and then every HOST_MISS_SKIPS + 1 reads
    n = 6 + (119 - 36) // (_engine.HOST_MISS_SKIPS + 1)
    assert len(tries) == n, (len(tries), n)


def test_success_forgets_the_site(tries):
    """A site that fails, then reads a graph the host path takes, is forgotten at that success;
    values are numpy's throughout (exact ops: bit for bit)."""
    for i in range(12):
        a = np.linspace(-1, 1, 10) + i
        x = _chain(xp.asarray(a))
        # an exact max (host path) at odd reads, a float sum (not taken) at even ones
        y = xp.max(x) if i % 2 else xp.sum(x)
        ref = np.max(_np_chain(a)) if i % 2 else np.sum(_np_chain(a))
        assert float(y * 1.0) == ref if i % 2 else abs(float(y * 1.0) - ref) <= 1e-13 * abs(ref)
    assert True in tries and False in tries
    # (the last read, i = 11, was a max: tried unless skipped; either way the state is consistent)
    for site, m in state.host_misses.items():
        assert m[0] >= 0 and 1 <= m[1] <= _engine.HOST_MISS_SKIPS


def test_small_graphs_are_always_tried(tries):
    """Fewer than HOST_MISS_NODES nodes traced: no site is remembered, every read is tried."""
    for i in range(6):
        a = np.linspace(0, 1, 10) + i
        y = xp.sum(xp.asarray(a) * 2.0)  # (a float sum: the host path fails)
        assert abs(float(y) - np.sum(a * 2.0)) <= 1e-13 * abs(np.sum(a * 2.0))
    assert tries == [False] * 6
    assert not state.host_misses


def test_bound_and_reset(tries, monkeypatch):
    monkeypatch.setattr(_engine, "HOST_MISSES_KEPT", 3)
    for i in range(5):
        site = ("<test>", i)
        assert not _engine._host_read([xp.sum(_chain(xp.asarray(np.ones(4))))._pending_node()], site)
        assert len(state.host_misses) <= 3
    assert state.sizes()["host_misses"] == len(state.host_misses) > 0
    xp.clear_cache()
    assert not state.host_misses
