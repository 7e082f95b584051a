"""The small host read's whole-node evaluation (`_host_sync._Evaluator.whole`) with its per-node
check written out inline: exact elementwise graphs on windows of large leaves and 0-D operands are
computed on the host with numpy's values; a node the path does not take (a complex product, an
add of booleans, a transcendental function, more than MAX_OPS ops) makes the read fall back to
the engine, whose values are numpy's too."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _host_sync


@pytest.fixture
def tries(host_tries):
    """The results of `_host_sync.run` (the small host path tried)."""
    return host_tries


def _pair(dtype, n=5000):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    return a, b


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exact_graph_on_windows(tries, dtype):
    a, b = _pair(dtype)
    x, y = xp.asarray(a), xp.asarray(b)
    got = np.asarray((x[:40] * 2.0 + y[:40] - x[:40] * y[:40]) * (y[:40] - 1.0) + xp.abs(x[:40]))
    sa, sb = a[:40], b[:40]
    want = (sa * dtype(2.0) + sb - sa * sb) * (sb - dtype(1.0)) + np.abs(sa)
    assert tries == [True]
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_exact_reduce_of_window(tries):
    a, b = _pair(np.float64)
    x, y = xp.asarray(a), xp.asarray(b)
    got = float(xp.max(x[:30] * y[:30] - 0.5))
    assert got == float(np.max(a[:30] * b[:30] - 0.5))
    assert tries and tries[-1] is True


def test_integer_and_compare(tries):
    a = np.arange(50, dtype=np.int64)
    x = xp.asarray(a)
    got = np.asarray(xp.where(x * 3 - 7 > 20, x, -x))
    assert np.array_equal(got, np.where(a * 3 - 7 > 20, a, -a))
    assert tries == [True]


def test_complex_product_falls_back(tries):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(20) + 1j * rng.standard_normal(20)).astype(np.complex128)
    x = xp.asarray(a)
    got = np.asarray(x * x + x)
    assert tries == [False]  # (a complex product is not one of this path's)
    np.testing.assert_allclose(got, a * a + a, rtol=1e-15)


def test_bool_add_falls_back(tries):
    a = np.array([True, False, True, True])
    x = xp.asarray(a)
    got = np.asarray(xp.logical_or(x, ~x) & (x == x))
    assert np.array_equal(got, np.logical_or(a, ~a) & (a == a))


def test_transcendental_falls_back(tries):
    a, _ = _pair(np.float64, 30)
    x = xp.asarray(a)
    got = np.asarray(xp.exp(x) * 2.0 + x)
    assert tries == [False]
    np.testing.assert_allclose(got, np.exp(a) * 2.0 + a, rtol=1e-15)


def test_op_budget_falls_back(tries):
    a, _ = _pair(np.float64, 30)
    x = xp.asarray(a)
    y, ya = x, a
    for _ in range(_host_sync.MAX_OPS + 2):
        y = y * 1.5 + 0.25
        ya = ya * 1.5 + 0.25
    got = np.asarray(y)
    assert tries and tries[0] is False
    assert np.array_equal(got, ya)


def test_live_arrays_on_the_way_realized(tries):
    """A live pending array on a node computed whole (`memo`) or pushed through (`ones`) on the
    way is realized with that value by the read."""
    a = np.arange(30, dtype=np.float64) - 7.5
    x = xp.asarray(a)
    u = x[:10] * 2.0          # computed whole under the max
    m = xp.max(u + 1.0)
    assert float(m) == float(np.max(a[:10] * 2.0 + 1.0))
    assert tries == [True]
    assert u._node.op is None  # realized by that read
    assert np.array_equal(np.asarray(u), a[:10] * 2.0)
    w = xp.reshape(x * 3.0, (-1,))[4:5]   # one element, pushed through
    r = w * 0.5
    assert float(r[0]) == a[4] * 3.0 * 0.5
    assert np.array_equal(np.asarray(w), a[4:5] * 3.0)
