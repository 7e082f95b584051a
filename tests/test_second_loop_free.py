"""Reads whose graph has no loop (`_engine._loop_search`, `state.loop_free`): a structure the loop
search found no loop in is not searched again while the last loop chunk is the same, and its
structural key, made first for that, is the one `_run_program.run` uses. Values are checked
against numpy in both tiers; the search itself (`_segment.chunks`) is counted by a spy."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _run_program, _segment
from lazyarray._engine_state import state

pytestmark = pytest.mark.usefixtures("both_tiers")


@pytest.fixture
def searches(engine, monkeypatch):
    """How many times `_segment.chunks` ran, and what it answered (None: no loop)."""
    seen = []
    real = _segment.chunks

    def counting(*args, **kw):
        found = real(*args, **kw)
        seen.append(found is not None)
        return found
    monkeypatch.setattr(_segment, "chunks", counting)
    return seen


# a fixed sequence of 36 steps over 9 unary functions with no period (one search answers None)
_STEPS = [int(c) for c in "031572486207358146250837461528063714"]
_XP = [xp.sin, xp.cos, xp.tanh, lambda v: xp.exp(-xp.abs(v)), lambda v: xp.log1p(xp.abs(v)),
       lambda v: xp.sqrt(xp.abs(v) + 1.0), xp.atan, lambda v: v * v - 0.5, lambda v: v - xp.mean(v)]
_NP = [np.sin, np.cos, np.tanh, lambda v: np.exp(-np.abs(v)), lambda v: np.log1p(np.abs(v)),
       lambda v: np.sqrt(np.abs(v) + 1.0), np.arctan, lambda v: v * v - 0.5, lambda v: v - np.mean(v)]


def _mixed(x, w):
    """A ~60-node graph with no period."""
    y = x * w
    for k in _STEPS:
        y = _XP[k](y)
    return xp.sum(y * y)


def _mixed_np(x, w):
    y = x * w
    for k in _STEPS:
        y = _NP[k](y)
    return np.sum(y * y)


def test_a_loop_free_structure_is_searched_once(searches, rng):
    for step in range(5):
        a, w = rng.standard_normal(40), float(rng.standard_normal())
        got = float(_mixed(xp.asarray(a), w))
        np.testing.assert_allclose(got, _mixed_np(a, w), rtol=1e-12)
    assert searches == [False]
    assert len(state.loop_free) == 1


def test_the_handed_key_is_the_runs_key(searches, monkeypatch, rng):
    keys = []
    real = _run_program.run

    def checking(plan, outputs, device, site):
        keys.append((_run_program._handed[0] is plan, _run_program._handed[1], plan.key(outputs)))
        return real(plan, outputs, device, site)
    monkeypatch.setattr(_engine, "_run", checking)
    for step in range(3):
        a = rng.standard_normal(40)
        np.testing.assert_allclose(float(_mixed(xp.asarray(a), 0.5)), _mixed_np(a, 0.5), rtol=1e-12)
    assert len(keys) == 3
    for handed, key, made in keys:
        assert handed and key is made  # (interned keys: one object per structure)
    assert _run_program._handed == [None, None]  # (taken by the run)


def test_a_loop_is_still_chunked_at_every_read(searches, rng):
    a_np = rng.standard_normal(30)
    for call in range(3):
        x = xp.asarray(a_np)
        y_np = a_np.copy()
        for step in range(40):
            x = xp.sin(x) * 0.9 + 0.1
            y_np = np.sin(y_np) * 0.9 + 0.1
        np.testing.assert_allclose(np.asarray(x), y_np, rtol=1e-13)
    assert searches == [True, True, True]
    assert not state.loop_free


def test_a_new_last_chunk_searches_again(searches, rng):
    a = rng.standard_normal(40)
    float(_mixed(xp.asarray(a), 0.5))
    assert searches == [False]
    x = xp.asarray(a)
    for step in range(40):  # a loop: the last chunk found changes
        x = xp.cos(x) * 0.5 + 0.25
    np.asarray(x)
    assert searches == [False, True]
    got = float(_mixed(xp.asarray(a), 0.5))
    assert searches == [False, True, False]  # searched against the new chunk
    np.testing.assert_allclose(got, _mixed_np(a, 0.5), rtol=1e-12)
    float(_mixed(xp.asarray(a), 0.5))
    assert searches == [False, True, False]


def test_a_reset_forgets_loop_free_structures(searches, rng):
    a = rng.standard_normal(40)
    float(_mixed(xp.asarray(a), 0.5))
    assert state.loop_free
    xp.clear_cache()
    assert not state.loop_free
    np.testing.assert_allclose(float(_mixed(xp.asarray(a), 0.5)), _mixed_np(a, 0.5), rtol=1e-12)
    assert searches == [False, False]


def test_the_memo_stays_bounded(searches, monkeypatch, rng):
    monkeypatch.setattr(_engine, "LOOP_FREE_KEPT", 2)
    for n in (40, 41, 42, 43):  # four structures (shapes differ)
        b = rng.standard_normal(n)
        np.testing.assert_allclose(float(_mixed(xp.asarray(b), 0.5)), _mixed_np(b, 0.5), rtol=1e-12)
    assert len(state.loop_free) <= 2


def test_graphs_over_the_node_bound_are_searched_every_time(searches, monkeypatch, rng):
    monkeypatch.setattr(_engine, "LOOP_FREE_MAX_NODES", 10)
    for step in range(3):
        a = rng.standard_normal(40)
        np.testing.assert_allclose(float(_mixed(xp.asarray(a), 0.5)), _mixed_np(a, 0.5), rtol=1e-12)
    assert searches == [False, False, False]
    assert not state.loop_free


def test_checked_mode_searches_and_checks(searches, monkeypatch, rng):
    monkeypatch.setattr(xp.config, "checks", True)
    a = rng.standard_normal(40)
    for step in range(2):
        y = _mixed(xp.asarray(a), 0.5) + xp.take(xp.asarray(a), xp.asarray([0]))[0]
        np.testing.assert_allclose(float(y), _mixed_np(a, 0.5) + a[0], rtol=1e-12)
    with pytest.raises(IndexError):
        float(_mixed(xp.asarray(a), 0.5) + xp.take(xp.asarray(a), xp.asarray([50]))[0])
    assert all(found is False for found in searches)


def test_a_pending_sibling_is_computed_with_the_read(searches, rng):
    a = rng.standard_normal(40)
    for step in range(3):
        x = xp.asarray(a)
        shared = xp.sin(x) * 2.0
        other = shared + 1.0  # a live pending array sharing work with the read
        total = _mixed(shared, 0.5)
        np.testing.assert_allclose(float(total), _mixed_np(np.sin(a) * 2.0, 0.5), rtol=1e-12)
        assert other._node.op is None  # computed with it
        np.testing.assert_allclose(np.asarray(other), np.sin(a) * 2.0 + 1.0, rtol=1e-15)
    assert searches.count(True) == 0 and 1 <= len(searches) <= 3
