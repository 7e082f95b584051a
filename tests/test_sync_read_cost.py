"""Session 14's cuts to a cached read's fixed cost (target 4b): `pending_beside` reads a short
handle list without compacting it, the zero-copy read of a buffer that can never be recycled
is recorded by a weak reference appended to a list (`_pool.BufferPool.show`), and `host_view` /
`read_scalar` ask the user's site themselves. Values are checked against numpy, the paths taken
against the general ones."""
import sys

import numpy as np
import pytest

import lazyarray as xp
from source_lines import line_of
from lazyarray import _config, _graph
from lazyarray._engine_state import state
from lazyarray._graph import lock, pending
from lazyarray._metrics import metrics


def _reference(node, device):
    """pending_beside as the general path (`live_with`, then the engine's filter) finds it."""
    with lock:
        return [h._pending_node() for h in pending.live_with([node])
                if h._device is device and h._pending_node() is not node]


@pytest.mark.parametrize("siblings", [0, 1, 3, _graph.SHORT_HANDLES, 3 * _graph.SHORT_HANDLES])
@pytest.mark.parametrize("drop", [False, True])
def test_pending_beside_finds_the_live_pending_handles(siblings, drop):
    x = xp.asarray(np.arange(6.0))
    t = x * 2.0  # a temporary, dropped below when asked (a dead handle in the list)
    y = t + 1.0
    kept = [y * float(k) for k in range(siblings)]
    if drop:
        del t
    node = y._pending_node()
    with lock:
        got = pending.pending_beside(node, y._device)
        again = pending.pending_beside(node, y._device)  # (a compacted list answers the same)
    want = _reference(node, y._device)
    assert {id(n) for n in got} == {id(n) for n in want} == {id(n) for n in again}
    assert all(n.op is not None and n is not node for n in got)
    np.testing.assert_array_equal(np.asarray(y), np.arange(6.0) * 2.0 + 1.0)
    for k, a in enumerate(kept):  # computed with y (they share its work): the same values
        np.testing.assert_array_equal(np.asarray(a), (np.arange(6.0) * 2.0 + 1.0) * k)


def test_pending_beside_skips_realized_and_other_devices_handles(compiled_now):
    x = xp.asarray(np.arange(2000.0))
    y = x * 3.0
    z = y - 1.0
    w = y + 5.0
    float(xp.sum(w))  # w realized; y and z still pending
    node = z._pending_node()
    with lock:
        got = pending.pending_beside(node, z._device)
        none = pending.pending_beside(node, object())  # (no handle is on that device)
    assert {id(n) for n in got} == {id(n) for n in _reference(node, z._device)}
    assert none == []
    np.testing.assert_array_equal(np.asarray(z), np.arange(2000.0) * 3.0 - 1.0)


def test_a_read_of_a_graph_shared_with_a_sibling_computes_both_once(compiled_now):
    x = xp.asarray(np.linspace(0.0, 1.0, 3000))
    for _ in range(4):  # repeated: the recipe path too
        t = xp.exp(x) * 2.0
        a, b = t + 1.0, t - 1.0
        runs = metrics.executions
        host_a = np.asarray(a)
        assert metrics.executions == runs + 1  # b computed with a (it shares t): no second run
        assert b._pending_node().op is None
        np.testing.assert_allclose(host_a, np.exp(np.linspace(0.0, 1.0, 3000)) * 2.0 + 1.0, rtol=1e-15)
        np.testing.assert_allclose(np.asarray(b), np.exp(np.linspace(0.0, 1.0, 3000)) * 2.0 - 1.0, rtol=1e-15)


def test_unrecyclable_buffer_is_lent_while_some_view_lives(compiled_now):
    x = xp.asarray(np.arange(50.0))
    y = x + 1.0
    first = np.asarray(y)
    buf = y._pending_node().buffer
    assert not state.pool.recyclable(buf.nbytes)  # (its views are `show`n, not lent)
    assert state.pool.is_lent(buf)
    second = first[10:]  # a numpy view of it holds the memory too
    del first
    assert state.pool.is_lent(buf)
    np.testing.assert_array_equal(second, np.arange(10.0, 50.0) + 1.0)
    del second
    assert not state.pool.is_lent(buf)


def test_is_lent_ignores_other_holders_and_other_buffers_views(compiled_now):
    y = xp.asarray(np.arange(40.0)) * 2.0
    value = np.array(y, copy=True)  # a copy: no view of the buffer
    buf = y._pending_node().buffer
    z = xp.asarray(np.arange(40.0)) * 3.0
    other = np.asarray(z)  # a view of another buffer
    holders = [buf, {"b": buf}]  # (plain containers hold it too)
    assert not state.pool.is_lent(buf)
    assert state.pool.is_lent(z._pending_node().buffer)
    np.testing.assert_array_equal(value, np.arange(40.0) * 2.0)
    np.testing.assert_array_equal(other, np.arange(40.0) * 3.0)
    del holders


def test_shown_list_stays_bounded(compiled_now, monkeypatch):
    from lazyarray import _pool
    monkeypatch.setattr(_pool, "SHOWN_KEPT", 8)
    pool = _pool.BufferPool()  # (a fresh one: its purge bound reads SHOWN_KEPT)
    monkeypatch.setattr(state, "pool", pool)
    x = xp.asarray(np.arange(30.0))
    keep = []
    for k in range(100):
        host = np.asarray(x + float(k))
        if k % 10 == 0:
            keep.append((k, host))
    assert len(pool._shown) < 8 + 2 * len(keep) + 1
    for k, host in keep:
        np.testing.assert_array_equal(host, np.arange(30.0) + k)


def _line_of(marker):
    return line_of(__file__, marker)


def test_read_sites_are_the_users_line(compiled_now):
    x = xp.asarray(np.arange(3000.0))
    big = xp.asarray(np.arange(200_000.0))  # (a sum too large for a small host read)
    before = dict(metrics.sync_sites)
    for _ in range(3):
        host = np.asarray(x * 2.0 + 1.0)  # SITE-NUMPY
        total = float(xp.sum(big * 2.0))  # SITE-FLOAT
    np.testing.assert_array_equal(host, np.arange(3000.0) * 2.0 + 1.0)
    assert total == float(np.sum(np.arange(200_000.0) * 2.0))  # (integers: exact in any order)
    new = {k: v - before.get(k, 0) for k, v in metrics.sync_sites.items() if before.get(k) != v}
    here = sys._getframe().f_code.co_filename
    assert new.get(("numpy", (here, _line_of("# SITE-NUMPY")))) == 3
    assert new.get(("float", (here, _line_of("# SITE-FLOAT")))) == 3
    assert all(filename == here for _, (filename, _) in new)


def test_user_site_checks_the_frames_it_is_told_are_ours(monkeypatch):
    from lazyarray import _metrics
    monkeypatch.setattr(_config, "verify", True)

    def helper():  # (this file is not lazyarray's: a promise that does not hold)
        return _metrics.user_site(1)
    with pytest.raises(AssertionError, match="not lazyarray's"):
        helper()
    assert _metrics.user_site() == (__file__, sys._getframe().f_lineno)  # (no promise: this line)


@pytest.mark.parametrize("siblings", [2, 3 * _graph.SHORT_HANDLES])
def test_a_handle_registered_twice_is_harmless(siblings):
    import weakref
    x = xp.asarray(np.arange(5.0))
    y = x * 3.0
    kept = [y + float(k) for k in range(siblings)]
    comp = _graph.root(y._pending_node().comp)
    comp.handles.append(weakref.ref(kept[0]))  # (as a merge race may leave it)
    node = y._pending_node()
    with lock:
        got = pending.pending_beside(node, y._device)
        live = pending.live_with([node])  # (compacts: each handle once)
    assert {id(n) for n in got} == {id(k._pending_node()) for k in kept}
    assert len({id(h) for h in live}) == len(live) == siblings + 1
    np.testing.assert_array_equal(np.asarray(y), np.arange(5.0) * 3.0)
    for k, a in enumerate(kept):
        np.testing.assert_array_equal(np.asarray(a), np.arange(5.0) * 3.0 + k)
