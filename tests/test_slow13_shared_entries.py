"""A kept structural key is made of entries shared with the other kept keys (`_graph._shared`):
equal to the plan's signature, one object per equal entry across keys (so the cyclic collector
visits each once), the sharing table bounded, and every graph still computes numpy's values."""
import gc

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _graph
from lazyarray._graph import Plan


@pytest.fixture(autouse=True)
def sharing(monkeypatch):
    """Sharing from the first new structure (a process shares after SHARE_AFTER of them), with
    no key kept by earlier tests (a structure an earlier test kept unshared is found again as
    it was)."""
    monkeypatch.setattr(_graph, "SHARE_AFTER", 0)
    monkeypatch.setattr(_graph, "_recent", {})
    monkeypatch.setattr(_graph, "_interned", {})
    monkeypatch.setattr(_graph, "_entries", {})


def _key(outputs):
    plan = Plan(outputs)
    return plan, plan.key(outputs)


def _graphs(x, n):
    """n structures over x that differ in their last op's operand chain length, sharing the rest."""
    out = []
    for k in range(1, n + 1):
        y = x * 2.0
        for _ in range(k):
            y = y + 1.0
        out.append(y)
    return out


def test_kept_keys_equal_their_signatures_and_share_equal_entries():
    x = xp.asarray(np.arange(6.0).reshape(2, 3))
    with _graph.lock:
        keys = []
        for y in _graphs(x, 12):
            plan, key = _key([y._node])
            assert tuple(key) == tuple(plan.sig) + ((plan.index[y._node],),)
            assert hash(key) == hash(tuple(key))
            keys.append(key)
        # equal entries of different kept keys are one object
        seen = {}
        for key in keys:
            for entry in key:
                assert seen.setdefault(entry, entry) is entry
        # and a structure seen again gets its kept key back
        for y, key in zip(_graphs(x, 12), keys):
            assert _key([y._node])[1] is key


def test_sharing_table_is_bounded_and_keys_stay_right(monkeypatch):
    monkeypatch.setattr(_graph, "SHARED_ENTRIES", 8)
    monkeypatch.setattr(_graph, "_entries", {})
    x = xp.asarray(np.arange(4.0))
    with _graph.lock:
        for y in _graphs(x, 20):
            plan, key = _key([y._node])
            assert tuple(key) == tuple(plan.sig) + ((plan.index[y._node],),)
            assert len(_graph._entries) <= 8 + len(key)


def test_results_through_shared_keys_match_numpy():
    xs = np.linspace(-2.0, 3.0, 12).reshape(3, 4)
    x = xp.asarray(xs)
    for _ in range(3):  # seen again: interpreted, then kept programs (the same keys)
        for k, y in enumerate(_graphs(x, 6), start=1):
            np.testing.assert_array_equal(np.asarray(y), xs * 2.0 + k)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_keys_differing_only_in_dtype_keep_their_own_entries(dtype):
    a = xp.asarray(np.arange(5), dtype=getattr(xp, dtype))
    b = xp.asarray(np.arange(5), dtype=xp.float64)
    with _graph.lock:
        _, ka = _key([(a + a)._node])
        _, kb = _key([(b + b)._node])
    assert ka != kb
    assert np.asarray(a + a).dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(a + a), np.arange(5, dtype=dtype) * 2)
    np.testing.assert_array_equal(np.asarray(b + b), np.arange(5.0) * 2)


def test_kept_keys_hold_few_tracked_entries():
    """Many kept structures over the same leaves: their tracked entry objects are the distinct
    entries, not one per entry per key."""
    x = xp.asarray(np.arange(8.0))
    with _graph.lock:
        keys = [_key([y._node])[1] for y in _graphs(x, 30)]
    entries = [e for k in keys for e in k if gc.is_tracked(e)]
    assert len({id(e) for e in entries}) == len(set(entries))
    assert len(set(entries)) < len(entries) / 4



def test_a_kept_host_program_gives_the_collector_no_per_position_containers(interpreted):
    """A kept interpreted program's per-position tables (values kept between runs, what each step
    frees) are tuples of atoms, None and arrays: untracked once collected, not visited by every
    full collection; and its runs still give numpy's values."""
    from lazyarray import _engine
    from lazyarray._interpret import HostProgram
    xs = np.linspace(0.5, 4.0, 24).reshape(4, 6)
    x = xp.asarray(xs)
    want = np.sum(np.sqrt(xs) * 3.0 + np.arange(6.0), axis=0)
    for _ in range(4):
        got = np.asarray(xp.sum(xp.sqrt(x) * 3.0 + xp.arange(6.0), axis=0))
        np.testing.assert_array_equal(got, want)
    programs = [s.steps for s in _engine.state.sightings.values()
                if type(s.steps) is HostProgram and s.steps.steps is not None]
    assert programs
    gc.collect()
    for prog in programs:
        assert type(prog.template) is tuple and not gc.is_tracked(prog.template)
        assert prog.frees is None or (type(prog.frees) is tuple and not gc.is_tracked(prog.frees))


def test_the_first_new_structures_are_kept_as_they_are(monkeypatch):
    """Before SHARE_AFTER new structures, a kept key is the plan's own (no look-up per entry);
    after, its entries are the shared ones; both equal the signature and compute numpy's values."""
    monkeypatch.setattr(_graph, "SHARE_AFTER", 3)
    monkeypatch.setattr(_graph, "_unshared", 0)
    monkeypatch.setattr(_graph, "_entries", {})
    xs = np.arange(6.0)
    x = xp.asarray(xs)
    with _graph.lock:
        made = []
        for k in range(1, 7):
            y = x * 3.0
            for _ in range(k):
                y = y - 2.0
            plan, key = _key([y._node])
            assert tuple(key) == tuple(plan.sig) + ((plan.index[y._node],),)
            made.append(key)
    assert _graph._unshared == 3
    shared = {id(e) for key in made[3:] for e in key}
    assert not any(id(e) in shared for key in made[:3] for e in key)
    assert {id(e) for e in _graph._entries.values()} >= shared
    for k in range(1, 7):
        y = x * 3.0
        for _ in range(k):
            y = y - 2.0
        np.testing.assert_array_equal(np.asarray(y), xs * 3.0 - 2.0 * k)
