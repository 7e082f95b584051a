"""The interpreted sync's shortcuts (INTERP, issue 11 targets 1 and 3).

`_tier_policy.first_sight` walks a new graph once where serve used to walk it four times: it must
decide exactly as `interpreting_pays`, `_interpret.supports` and `keeps_host_values` do. A small
graph keeps its intermediates (`_interpret.schedule(..., frees=False)`): its values must be the
same as with the last-use walk. Small host reads push an element through a chain of ops as numpy
scalars: the value and dtype must be numpy's, for every dtype kind, and integer arithmetic must
wrap as numpy's does.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _interpret, _tier_policy
from lazyarray._array_object import Array
from lazyarray._graph import Plan
from lazyarray._ops import shape as shape_ops
from lazyarray._metrics import metrics


def _plan(*arrays):
    return Plan([a._node for a in arrays])


@pytest.fixture(autouse=True)
def no_budget_cut(monkeypatch):
    """The graphs here stay pending: a budget cut (1000 traced nodes) would realize them."""
    monkeypatch.setattr(xp.config, "node_budget", 10**9)


def _graphs():
    rng = np.random.default_rng(0)
    x = xp.asarray(rng.standard_normal(300))
    big = xp.asarray(np.ones(5_000_000))  # one op on it: more numpy work than its compile
    c = xp.asarray(rng.standard_normal(16) + 1j * rng.standard_normal(16))
    return {
        "elementwise": xp.exp(x) * 2.0 + x,
        "reductions": xp.sum(x * x) + xp.max(x),
        "scan": xp.cumulative_sum(x),
        "fft": xp.fft.fft(x),
        "too much work": big * 2.0,
        "not covered": xp.acos(c),
        "matmul": xp.reshape(x, (30, 10)) @ xp.reshape(x[:10], (10, 1)),
    }


@pytest.mark.parametrize("name", list(_graphs()))
def test_first_sight_decides_as_the_four_walks(name):
    y = _graphs()[name]
    order = _plan(y).order
    assert order  # (pending)
    seen = _tier_policy.first_sight(order)
    takes = _tier_policy.interpreting_pays(order) and _interpret.supports(order)
    assert (seen is not None) == takes
    if seen is not None:
        work, fft = seen
        assert work == sum(int(np.prod(n.shape)) for n in order)
        assert fft == _tier_policy.keeps_host_values(order)


def test_the_fixture_covers_both_verdicts():
    verdicts = {name: _tier_policy.first_sight(_plan(y).order) is not None for name, y in _graphs().items()}
    assert verdicts["elementwise"] and verdicts["fft"]
    assert not verdicts["too much work"] and not verdicts["not covered"]


def test_keeping_every_value_gives_the_last_use_walks_values():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((40, 8))
    x = xp.asarray(a)
    m = xp.mean(x, axis=0)
    z = (x - m) / xp.std(x, axis=0)
    out = [z, xp.sum(z * z, axis=1), xp.max(z)]
    plan = _plan(*out)
    outputs = [o._node for o in out]
    kept = _interpret.schedule(plan, outputs, frees=False)
    walked = _interpret.schedule(plan, outputs)
    assert kept[0] == walked[0] and kept[1] is None and walked[1] is not None
    values = []
    for steps in (kept, walked):
        plan.steps = steps
        values.append(_interpret.interpret(plan.order, plan.leaves, outputs, plan))
    zn = (a - a.mean(axis=0)) / a.std(axis=0)
    for v_kept, v_walked, want in zip(values[0], values[1], [zn, (zn * zn).sum(axis=1), zn.max()]):
        assert v_kept.dtype == v_walked.dtype and v_kept.shape == v_walked.shape
        np.testing.assert_array_equal(v_kept, v_walked)
        np.testing.assert_allclose(v_kept, want, rtol=1e-12, atol=1e-12)


def test_a_small_interpreted_graph_matches_numpy_through_serve():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((70, 3))
    before = metrics.interpreted
    got = float(xp.sum(xp.abs(xp.asarray(a) * 3.0 - 1.0)))
    assert metrics.interpreted == before + 1
    assert got == pytest.approx(float(np.sum(np.abs(a * 3.0 - 1.0))), rel=1e-13)


@pytest.fixture(params=["verifier on", "verifier off"])
def verifier(request, monkeypatch):
    """Small host reads take a shorter path without the graph verifier (on in our suites)."""
    monkeypatch.setattr(xp.config, "verify", request.param == "verifier on")
    return request.param


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "int64", "uint8", "bool"])
def test_an_element_pushed_through_a_chain_is_numpys(dtype, verifier):
    rng = np.random.default_rng(3)
    npdt = np.dtype(dtype)
    if npdt.kind == "b":
        a = rng.integers(0, 2, 200).astype(bool)
    elif npdt.kind in "iu":
        a = rng.integers(0, 120, 200).astype(npdt)  # times 3 plus 7 wraps in int8 and uint8
    else:
        a = rng.standard_normal(200).astype(npdt)
    base = xp.asarray(a)
    before, reads = metrics.host_syncs, metrics.host_element_reads
    for i in (0, 17, 199):
        if npdt.kind == "b":
            y = xp.logical_xor(base, xp.asarray(True))
            want = np.logical_xor(a, True)
        else:
            y = base * xp.asarray(3, dtype=base.dtype) + xp.asarray(7, dtype=base.dtype)
            with np.errstate(over="ignore"):
                want = a * npdt.type(3) + npdt.type(7)
        e = xp.reshape(y, (-1,))[i]  # computed when indexed (`_host_sync.element_now`)
        assert bool(xp.any(e)) == bool(np.any(want[i]))
        v = np.asarray(xp.reshape(y, (-1,))[i])
        assert v.dtype == npdt and v.shape == ()
        assert v == want[i]
        pushed = xp.reshape(y, (-1,))[(i,)]  # (a tuple key records the read: pushed at the read)
        assert pushed._node.op is not None
        assert pushed.item() == want[i].item()
        v = np.asarray(pushed)
        assert v.dtype == npdt and v.shape == () and v == want[i]
    assert metrics.host_element_reads == reads + 6
    assert metrics.host_syncs > before  # the reads were the host path's, not a program's


def test_the_probe_leaves_the_large_array_pending_and_right(verifier):
    base = xp.asarray(np.arange(100.0))
    y = base * 2.0 + 1.0
    before, reads = metrics.host_syncs, metrics.host_element_reads
    assert bool(xp.any(xp.reshape(y, (-1,))[0])) is True
    # (its element computed when indexed, `_host_sync.element_now`: no sync at all)
    assert metrics.host_syncs == before and metrics.host_element_reads == reads + 1
    assert y._node.op is not None  # still pending: its program fuses it later
    np.testing.assert_array_equal(np.asarray(y), np.arange(100.0) * 2.0 + 1.0)


@pytest.mark.parametrize("start", [0, 5, 97, 150, -3])
def test_a_dynamic_start_read_on_the_host_clamps_as_stablehlo(start, verifier):
    """Elements of a window `dynamic_slice(y, i, 3)` of a large pending vector: the start is
    clamped so the window fits (StableHLO), so the elements are numpy's of the clamped slice.
    (The public indexing API raises on an out-of-range Python index, so the node is made here.)"""
    a = np.linspace(-1.0, 1.0, 100)
    y = xp.asarray(a) * 3.0 - 0.5
    i = xp.asarray(start)
    window = Array._wrap(shape_ops.dynamic_slice(y._node, [i._node], (3,)), y._device)
    lo = min(max(start, 0), 97)
    want = a[lo:lo + 3] * 3.0 - 0.5
    before = metrics.host_syncs
    for k in range(3):
        assert float(window[k]) == want[k]
    assert metrics.host_syncs == before + 1  # (the window, small, was computed whole and realized)
    assert y._node.op is not None
