"""The sync path's host-cost shortcuts change nothing observable: the structural key that caches
its hash is the plain tuple key (equal, same hash, same disk-cache bytes),
the interpreter's kept drop schedule gives numpy's values run after run, and a small read whose
target op the host path does not take still computes the right value through the usual path."""

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _graph, _interpret, _structural_key
from lazyarray._graph import Plan


def _lbfgs_like(xp_, x, g, s, y):
    ys = xp_.sum(y * s)
    gamma = ys / xp_.sum(y * y)
    a = xp_.sum(s * g) / ys
    r = gamma * (g - a * y)
    b = xp_.sum(y * r) / ys
    d = r + s * (a - b)
    xn = x - 0.5 * d
    return xp_.sum(xn * xn) + xp_.sum(xp_.abs(d)) * 1e-3, d


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    return [rng.standard_normal(30) for _ in range(4)]


def test_key_is_the_plain_tuple_key(data):
    arrs = [xp.asarray(v) for v in data]
    f, d = _lbfgs_like(xp, *arrs)
    nodes = [f._node, d._node]
    plan = Plan(nodes)
    key = plan.key(nodes)
    plain = tuple(plan.sig) + (tuple(plan.index[o] for o in nodes),)
    assert type(key) is _graph.StructuralKey
    assert key == plain and plain == key and hash(key) == hash(plain) and hash(key) == hash(plain)
    assert {plain: 1}[key] == 1 and {key: 2}[plain] == 2
    assert _structural_key.encode(key) == _structural_key.encode(plain)
    assert _structural_key.encode((key, "layout")) == _structural_key.encode((plain, "layout"))
    assert len(plan.sig) == len(plain) - 1  # (the key's construction leaves the plan as it was)


def test_interpreted_graph_repeated_matches_numpy(data, fresh, monkeypatch):
    monkeypatch.setattr(_config, "interpret_first", 10**9)  # interpreted every time
    calls = []
    real = _interpret.interpret
    monkeypatch.setattr(_interpret, "interpret", lambda *a: calls.append(a[3].steps) or real(*a))
    want_f, want_d = _lbfgs_like(np, *data)
    arrs = [xp.asarray(v) for v in data]
    for _ in range(4):
        f, d = _lbfgs_like(xp, *arrs)
        got_d = np.asarray(d)  # (f shares d's work: one graph computes both)
        got_f = float(f)
        np.testing.assert_allclose(got_d, want_d, rtol=1e-13, atol=1e-15)
        assert got_f == pytest.approx(float(want_f), rel=1e-13)
    assert len(calls) == 4
    assert calls[0] is not None  # the schedule kept with the sighting
    assert all(steps is calls[0] for steps in calls)  # ... and reused, not rebuilt


def test_schedule_drops_each_value_after_its_last_use(data):
    arrs = [xp.asarray(v) for v in data]
    f, d = _lbfgs_like(xp, *arrs)
    nodes = [f._node, d._node]
    plan = Plan(nodes)
    out_pos, frees = _interpret.schedule(plan, nodes)
    last = {}
    for p, entry in enumerate(plan.sig):
        if len(entry) == 5:
            for a in entry[4]:
                last[a] = p
    dropped = {a: p for p, fs in enumerate(frees) for a in fs}
    assert dropped == {a: p for a, p in last.items() if a not in out_pos}


def test_small_read_of_an_inexact_target_is_computed(data, fresh):
    x = xp.asarray(data[0][:5])
    got = float(xp.sum(x * x))  # a float sum: not a host read, computed by the usual path
    assert got == pytest.approx(float(np.sum(data[0][:5] ** 2)), rel=1e-14)
    assert xp.metrics.interpreted + xp.metrics.executions >= 1
