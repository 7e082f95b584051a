"""Session 13: a small read whose graph ends in an exact reduce (max, min, and, or, an integer
sum) of a larger operand (up to `_host_sync.REDUCED` elements) is computed on the host, its
operands whole (SciPy's `_contains_nan`: `bool(isnan(max(x)))`); a float sum still takes the
engine's path. Values against numpy, in both tiers (the compiled tier never takes this path)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _host_sync

pytestmark = pytest.mark.usefixtures("both_tiers")

rng = np.random.default_rng(11)


@pytest.mark.parametrize("n", [65, 500, _host_sync.REDUCED])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("special", [None, np.nan, np.inf, -np.inf, -0.0])
def test_nan_test_and_max_abs(n, dtype, special, both_tiers):
    v = rng.standard_normal(n).astype(dtype)
    if special is not None:
        v[n // 3] = special
    x = xp.asarray(v)
    before = xp.metrics.host_syncs
    assert bool(xp.isnan(xp.max(x))) == bool(np.isnan(np.max(v)))
    got = float(xp.max(xp.abs(x - dtype(0.5))))
    want = float(np.max(np.abs(v - dtype(0.5))))
    assert got == want or (np.isnan(got) and np.isnan(want))
    assert float(xp.min(x)) == float(np.min(v)) or np.isnan(np.min(v))
    if both_tiers == "interpreted":
        assert xp.metrics.host_syncs >= before + 3  # (computed here, not by the engine)


@pytest.mark.parametrize("n", [100, 3000])
def test_bool_and_integer_reductions(n):
    b = rng.random(n) < 0.5
    i = rng.integers(-50, 50, n).astype(np.int32)
    assert bool(xp.any(xp.asarray(b) & ~xp.asarray(b))) is False
    assert bool(xp.all(xp.asarray(b) | ~xp.asarray(b))) is True
    assert int(xp.sum(xp.asarray(i) * 3)) == int(np.sum(i * 3))
    assert int(xp.max(xp.asarray(i) - 1)) == int(np.max(i - 1))


def test_float_sum_and_larger_operands_take_the_engine_path(both_tiers):
    v = rng.standard_normal(1000)
    x = xp.asarray(v)
    before = xp.metrics.host_syncs
    np.testing.assert_allclose(float(xp.sum(x * 2.0)), np.sum(v * 2.0), rtol=1e-12)
    assert xp.metrics.host_syncs == before
    big = rng.standard_normal(_host_sync.REDUCED + 1)
    assert float(xp.max(xp.asarray(big) + 1.0)) == float(np.max(big + 1.0))
    assert xp.metrics.host_syncs == before


def test_live_intermediates_are_realized_with_their_values():
    v = rng.standard_normal(300)
    x = xp.asarray(v)
    d = xp.abs(x - 0.25)            # live: computed on the way, realized with the read
    assert float(xp.max(d)) == float(np.max(np.abs(v - 0.25)))
    np.testing.assert_array_equal(np.asarray(d), np.abs(v - 0.25))


@pytest.mark.parametrize("positions", [[0, 2, 5], [3, 3, 1], [7, 0]])
def test_masked_and_indexed_writes_read_on_the_host(positions, both_tiers, monkeypatch):
    """A small read of a graph with a scatter that sets (x[k] = v, x[m] = v) is computed here too;
    repeated places keep the last update, as XLA's program does. (Checked mode's bounds checks
    send a read to the engine: off here.)"""
    monkeypatch.setattr(xp.config, "checks", False)
    v = np.arange(8.0)
    x = xp.asarray(v) + 0.0
    k = np.array(positions)
    upd = -np.arange(1.0, len(positions) + 1)
    x[xp.asarray(k)] = xp.asarray(upd)
    want = v.copy()
    for p, u in zip(positions, upd):
        want[p] = u
    before = xp.metrics.host_syncs
    assert float(xp.max(x)) == float(np.max(want))
    if both_tiers == "interpreted":
        assert xp.metrics.host_syncs == before + 1
    np.testing.assert_array_equal(np.asarray(x), want)
    m = xp.asarray(v > 3.0)
    y = xp.asarray(v) * 1.0
    y[m] = xp.asarray(np.array([10.0, 20.0, 30.0, 40.0]))
    want = v.copy()
    want[v > 3.0] = [10.0, 20.0, 30.0, 40.0]
    assert float(xp.sum(xp.astype(y > 15.0, xp.int32))) == float(np.sum(want > 15.0))
    np.testing.assert_array_equal(np.asarray(y), want)
