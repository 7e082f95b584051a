"""x[mask] of a k-D mask of x's shape computed at once by numpy (`_advanced_indexing._whole_mask_read`),
and the positions of `~mask` taken from mask's host values without a sync (`_host_positions`):
array-api-extra's `apply_where` reads `x[cond]` and then `x[~cond]` of every broadcast argument."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _advanced_indexing as ai
from lazyarray import _engine

pytestmark = pytest.mark.usefixtures("both_tiers")


def _arrays(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=shape).astype(dtype)
    return a, a > 0.3


@pytest.mark.parametrize("shape", [(6, 3, 3), (4, 5), (2, 3, 4, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_, np.complex128])
def test_whole_mask_read_matches_numpy(shape, dtype):
    a, m = _arrays(shape)
    a = (a * 10).astype(dtype)
    x, mask = xp.asarray(a), xp.asarray(m)
    got = x[mask]
    assert got.shape == a[m].shape and got.dtype == x.dtype
    assert got._node.op is None  # computed at the read (a host leaf)
    np.testing.assert_array_equal(np.asarray(got), a[m])
    got_n = x[~mask]
    np.testing.assert_array_equal(np.asarray(got_n), a[~m])


def test_pending_mask_and_negation():
    """cond computed by the read of x[cond]; ~cond's positions then come from its host values."""
    a, _ = _arrays((5, 3, 3))
    x = xp.asarray(a)
    y = x * 2.0 + 1.0  # pending: the general path (its positions kept)
    cond = xp.isinf(x) | (x > 0.1)
    np.testing.assert_array_equal(np.asarray(y[cond]), (a * 2.0 + 1.0)[(a > 0.1)])
    np.testing.assert_array_equal(np.asarray(x[cond]), a[a > 0.1])
    ncond = ~cond
    np.testing.assert_array_equal(np.asarray(x[ncond]), a[~(a > 0.1)])
    np.testing.assert_array_equal(np.asarray(y[ncond]), (a * 2.0 + 1.0)[~(a > 0.1)])
    np.testing.assert_array_equal(np.asarray(ncond), ~(a > 0.1))
    np.testing.assert_array_equal(np.asarray(xp.logical_not(cond)), ~(a > 0.1))


def test_negation_needs_no_sync(monkeypatch):
    a, m = _arrays((4, 3, 3))
    x, mask = xp.asarray(a), xp.asarray(m)
    x[mask]
    calls = []
    real = _engine.to_numpy
    monkeypatch.setattr(_engine, "to_numpy", lambda *args: calls.append(args) or real(*args))
    flat, count = ai.true_positions((~mask)._node, x._device, "test")
    assert calls == []
    np.testing.assert_array_equal(flat.host, np.flatnonzero(~m))
    assert count == int((~m).sum())


def test_all_true_all_false_and_empty():
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a)
    for m in (np.ones((3, 4), bool), np.zeros((3, 4), bool)):
        mask = xp.asarray(m)
        np.testing.assert_array_equal(np.asarray(x[mask]), a[m])
        np.testing.assert_array_equal(np.asarray(x[~mask]), a[~m])
    e = xp.zeros((0, 3))
    assert e[xp.zeros((0, 3), dtype=xp.bool)].shape == (0,)


def test_result_is_its_own_after_writes():
    """The result is a copy: writing x afterwards leaves it, and writing it leaves x."""
    a, m = _arrays((3, 4))
    x, mask = xp.asarray(a), xp.asarray(m)
    got = x[mask]
    x[...] = 0.0
    np.testing.assert_array_equal(np.asarray(got), a[m])
    got[...] = 5.0
    assert float(xp.sum(x)) == 0.0
    np.testing.assert_array_equal(np.asarray(x), np.zeros_like(a))


def test_numpy_alias_not_changed():
    """x created from numpy (possibly sharing its memory) read by a mask, then the numpy array
    changed: the result keeps the values at the read."""
    a, m = _arrays((3, 4))
    keep = a.copy()
    x = xp.asarray(a)
    got = x[xp.asarray(m)]
    a[...] = -1.0
    np.testing.assert_array_equal(np.asarray(got), keep[m])


def test_errors_unchanged():
    x = xp.asarray(np.zeros((3, 4)))
    with pytest.raises(IndexError):
        x[xp.asarray(np.ones((4, 3), bool))]
    with pytest.raises(IndexError):
        x[xp.asarray(np.ones((3, 4), np.float64))]


def test_large_result_takes_the_general_path():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(100, 60))
    m = a > -5.0  # all True: more than EAGER_ELEMENTS elements
    x = xp.asarray(a)
    got = x[xp.asarray(m)]
    np.testing.assert_array_equal(np.asarray(got), a[m])
    np.testing.assert_array_equal(np.asarray(x[xp.asarray(~m)]), a[~m])


def test_apply_where_like():
    """The pattern of array-api-extra's apply_where (isclose): reads by cond and ~cond, then writes."""
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(6, 3, 3)), rng.normal(size=(6, 3, 3))
    a[0, 0, 0] = np.inf
    x, y = xp.asarray(a), xp.asarray(b)
    cond = xp.isinf(x) | xp.isinf(y)
    t1 = xp.isinf(x[cond]) & xp.isinf(y[cond])
    ncond = ~cond
    t2 = xp.abs(x[ncond] - y[ncond]) <= 1e-8 + 1e-5 * xp.abs(y[ncond])
    out = xp.empty(cond.shape, dtype=xp.bool)
    out[ncond] = t2
    out[cond] = t1
    c = np.isinf(a) | np.isinf(b)
    want = np.empty(c.shape, bool)
    want[~c] = np.abs(a[~c] - b[~c]) <= 1e-8 + 1e-5 * np.abs(b[~c])
    want[c] = np.isinf(a[c]) & np.isinf(b[c])
    np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("shape", [(6, 3, 3), (4, 5)])
def test_whole_mask_write_of_counted_values(shape):
    rng = np.random.default_rng(5)
    a = rng.normal(size=shape)
    m = a > 0.2
    for pending in (False, True):
        x = xp.asarray(a)
        mask = xp.asarray(m) if not pending else (x > 0.2)
        v = np.arange(int(m.sum()), dtype=np.float64) + 0.5
        want = a.copy()
        want[m] = v
        x[mask] = xp.asarray(v)
        np.testing.assert_array_equal(np.asarray(x), want)
        x[~mask] = xp.asarray(-np.arange(int((~m).sum()), dtype=np.float64))
        want[~m] = -np.arange(int((~m).sum()), dtype=np.float64)
        np.testing.assert_array_equal(np.asarray(x), want)


def test_whole_mask_write_errors_and_views():
    a = np.arange(12.0).reshape(3, 4)
    m = a % 3 == 0
    x = xp.asarray(a)
    with pytest.raises(ValueError):
        x[xp.asarray(m)] = xp.asarray(np.ones(int(m.sum()) + 1))
    np.testing.assert_array_equal(np.asarray(x), a)  # a refused write changes nothing
    empty = np.zeros((3, 4), bool)
    x[xp.asarray(empty)] = xp.asarray(np.ones(0))
    np.testing.assert_array_equal(np.asarray(x), a)
    # into a view: the base sees the write
    base = xp.asarray(np.zeros((2, 3, 4)))
    view = base[1]
    view[xp.asarray(m)] = xp.asarray(np.arange(int(m.sum()), dtype=np.float64) + 1.0)
    want = np.zeros((2, 3, 4))
    want[1][m] = np.arange(int(m.sum())) + 1.0
    np.testing.assert_array_equal(np.asarray(base), want)
    # a read-only view refuses
    ro = xp.broadcast_to(xp.asarray(np.zeros(4)), (3, 4))
    with pytest.raises((ValueError, TypeError)):
        ro[xp.asarray(m)] = xp.asarray(np.ones(int(m.sum())))
    # integer dtype, value converted as the general path does
    xi = xp.asarray(np.arange(12).reshape(3, 4))
    xi[xp.asarray(m)] = xp.asarray(np.arange(int(m.sum())) * 7)
    wi = np.arange(12).reshape(3, 4)
    wi[m] = np.arange(int(m.sum())) * 7
    np.testing.assert_array_equal(np.asarray(xi), wi)
