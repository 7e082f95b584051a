"""The scalar read's shortest path (`_host_sync.run_leaf_op`, issue 11 target 3): a read of one
exact elementwise op on leaves (`bool(t[i] <= x)`) is computed on the host at the read itself.
Each test compares with numpy's value of the same expression and checks, through the metrics,
that the path was (or was not) taken; never by timing."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _array_methods, _config
from lazyarray._metrics import metrics


@pytest.fixture(autouse=True)
def recorded(monkeypatch):
    """`a OP b` of two 0-D host values recorded as a node, as the namespace functions record it:
    these tests read such nodes. (The operators compute it when recorded, `_host_sync.fold_leaves`:
    tests/test_probe_fold.py.)"""
    monkeypatch.setattr(_array_methods, "_fold", lambda *args: None)


@pytest.fixture
def tiered(monkeypatch):
    """The default tiers (the conformance conftest may switch the interpreter tier off)."""
    monkeypatch.setattr(_config, "interpret_first", 2)


def _taken():
    return metrics.host_syncs, metrics.host_sync_ops, metrics.executions, metrics.interpreted


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.uint8])
def test_comparisons_of_elements_match_numpy(tiered, dtype):
    t_np = np.array([0, 1, 2, 2, 5, 7, 9, 11], dtype=dtype)
    x_np = np.asarray(5, dtype=dtype)
    t, x = xp.asarray(t_np), xp.asarray(x_np)
    before = _taken()
    got = []
    for i in range(len(t_np)):
        got.append((bool(t[i] <= x), bool(x < t[i]), bool(t[i] == t[i - 1]), bool(t[i] != x),
                    bool(t[i] >= x), bool(t[i] > t[0])))
    want = [(bool(t_np[i] <= x_np), bool(x_np < t_np[i]), bool(t_np[i] == t_np[i - 1]), bool(t_np[i] != x_np),
             bool(t_np[i] >= x_np), bool(t_np[i] > t_np[0])) for i in range(len(t_np))]
    assert got == want
    syncs, ops, executions, interpreted = _taken()
    n = 6 * len(t_np)
    assert (syncs - before[0], ops - before[1]) == (n, n)
    assert (executions, interpreted) == before[2:]  # no program, no interpreter run


def test_nan_and_signed_zero_comparisons(tiered):
    vals = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0])
    t = xp.asarray(vals)
    for i in range(len(vals)):
        for j in range(len(vals)):
            for name in ("less", "less_equal", "equal", "not_equal", "greater", "greater_equal"):
                assert bool(getattr(xp, name)(t[i], t[j])) == bool(getattr(np, name)(vals[i], vals[j])), (name, i, j)


def test_arithmetic_reads_match_numpy(tiered):
    a_np, b_np = np.float32(1.5), np.float32(3.25)
    a, b = xp.asarray(a_np), xp.asarray(b_np)
    assert float(a + b) == float(a_np + b_np)
    assert float(a * b) == float(a_np * b_np)
    assert float(a / b) == float(a_np / b_np)
    assert float(a - b) == float(a_np - b_np)
    z = xp.asarray(np.float64(0.0))
    before = metrics.host_syncs
    with np.errstate(all="raise"):  # numpy's warnings are off inside the evaluation, as in the tiers
        assert float(xp.asarray(1.0) / z) == np.inf
        assert np.isnan(float(z / z))
    assert metrics.host_syncs == before + 2
    i8 = xp.asarray(np.int8(100))
    assert int(i8 + i8) == int(np.array(100, np.int8) + np.array(100, np.int8))  # wraps, as XLA


def test_the_read_realizes_the_node_on_the_host(tiered):
    t = xp.asarray(np.arange(5.0))
    c = t[2] < t[3]
    assert c._node.op is not None
    assert bool(c) is True
    node = c._node
    assert node.op is None and node.args == () and node.buffer is None
    assert node.host.dtype == np.bool_ and node.host.flags.owndata
    assert bool(c) is True and bool(xp.logical_not(c)) is False  # read again, and used after


def test_not_taken_for_other_graphs(tiered):
    c = xp.asarray(np.array([1 + 2j]))[0]
    before = _taken()
    v = complex(c * c)  # a complex product: not exact on this path, the usual one computes it
    assert v == (1 + 2j) ** 2
    assert metrics.host_sync_ops == before[1]
    t = xp.asarray(np.arange(5.0))
    y = t * 2.0 + 1.0  # two ops: `run`'s evaluator, not this path
    before = metrics.host_sync_ops
    assert float(y[3]) == 7.0
    assert metrics.host_sync_ops >= before + 2


def test_counts_the_sync_by_cause_and_site_in_debug(tiered, monkeypatch):
    t = xp.asarray(np.arange(3.0))
    before = metrics.syncs.get("bool", 0)
    bool(t[0] < t[1])
    assert metrics.syncs["bool"] == before + 1
    monkeypatch.setattr(_config, "debug", 1)
    monkeypatch.setattr(_config, "interpret_first", 2)
    sites_before = dict(metrics.sync_sites)
    bool(t[0] < t[1]); line = __import__("sys")._getframe().f_lineno  # noqa: E702
    new = {k: v for k, v in metrics.sync_sites.items() if sites_before.get(k) != v}
    assert any(cause == "bool" and site == (__file__, line) for cause, site in new), new


def test_errors_still_raised_at_the_read(tiered):
    x = xp.asarray(np.arange(3.0))
    with pytest.raises(TypeError, match="one element"):
        bool(x < 1.0)
    with pytest.raises(TypeError, match="complex"):
        int(xp.asarray(np.complex128(1j)) + xp.asarray(np.complex128(1)))
    with pytest.raises((OverflowError, ValueError)):
        int(xp.asarray(np.inf) * xp.asarray(2.0))


def test_host_reads_look_up_their_site_only_in_debug(tiered, monkeypatch):
    """Both host paths (`run_leaf_op`, and `run` for a read of a few ops: a small slice of a
    large pending array compared and reduced) count the sync by cause only; in debug mode reads
    take the usual path, which records the user's line."""
    y = xp.asarray(np.arange(100.0)) * 2.0 + 1.0
    before_syncs, before_sites = metrics.syncs.get("bool", 0), dict(metrics.sync_sites)
    host_before = metrics.host_syncs
    assert bool(xp.any(y[:4] > 3.0)) is bool(np.any((np.arange(100.0) * 2.0 + 1.0)[:4] > 3.0))
    assert metrics.host_syncs == host_before + 1 and metrics.syncs["bool"] == before_syncs + 1
    assert dict(metrics.sync_sites) == before_sites
    assert y._node.op is not None  # the probe leaves the large array pending
    monkeypatch.setattr(_config, "debug", 1)
    assert bool(xp.any(xp.reshape(y, (-1,))[1])) is True; line = __import__("sys")._getframe().f_lineno  # noqa: E702
    new = {k for k, v in metrics.sync_sites.items() if before_sites.get(k) != v}
    assert ("bool", (__file__, line)) in new, new
