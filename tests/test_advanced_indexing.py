"""Advanced indexing (integer arrays, boolean masks; reads and writes), take and
take_along_axis, checked against numpy, plus the laziness that makes them usable in loops."""
import numpy as np
import pytest

import lazyarray as xp

A = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
I = np.array([[0, 2], [-1, 1]])
J = np.array([4, -5])  # for axis 2 (size 5)
K = np.array([2, -3])  # axis 0 (size 3)
L = np.array([3, -4])  # axis 1 (size 4)


def _lazy(key):
    if not isinstance(key, tuple):
        key = (key,)
    # .item() for 0-D values: they become 0-D arrays of the default dtypes
    return tuple(xp.asarray(k if np.ndim(k) else k.item()) if isinstance(k, (np.ndarray, np.bool_)) else k
                 for k in key)


READS = [
    (I,),
    (I, slice(None), J),             # separated: broadcast axes lead
    (slice(None), I, J),             # adjacent: broadcast axes in place
    (1, slice(None), J),             # Python int counts as an index array
    (slice(None, None, -1), L[:1], slice(1, 4)),
    (None, K[:1], None),
    (K[:1], None, L),
    (I, 0),
    (np.array(1),),                  # 0-D integer array
    (1, np.array(-1)),
    (A > 30,),
    (A[:, :, 0] > 12,),
    (Ellipsis, A[0, 0] > 1),
    (slice(None), A[0, :, 0] > 7),
    (A > 1000,),                     # no True: empty result
    (np.True_,),
    (np.False_,),
    (0, A[0, :, 0] > 2, J[:1]),
    (J[:0],),                        # empty index array
]


@pytest.mark.parametrize("key", READS, ids=range(len(READS)))
def test_getitem_matches_numpy(key):
    out = xp.asarray(A)[_lazy(key)]
    expected = A[key]
    assert out.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(out), expected)


WRITES = [
    ((A > 30,), 7.0),
    ((A[:, :, 0] > 12,), np.arange(5.0)),                    # a row per selected (i, j)
    ((A > 30,), np.arange(29.0)),                            # one value per True: count needed
    ((slice(None), A[0, :, 0] > 2), np.arange(5.0)),
    ((slice(None), A[0, :, 0] > 2), np.arange(15.0).reshape(3, 1, 5)),
    ((A[:, 0, 0] > 20, slice(None), 1), np.arange(4.0)),
    ((slice(None), A[0, :, 0] > 2, 2), np.arange(3.0)[:, None]),
    ((I, slice(None), J[None]), np.arange(4.0)),
    ((K[:1], None, L), np.arange(2.0)[:, None, None]),
    ((np.True_,), 3.0),
    ((np.False_,), 3.0),
    ((K,), -1.0),
    ((1, L), np.arange(5.0)),
]


@pytest.mark.parametrize("key,value", WRITES, ids=range(len(WRITES)))
def test_setitem_matches_numpy(key, value):
    expected = A.copy()
    expected[key] = value
    x = xp.asarray(A)
    x[_lazy(key)] = xp.asarray(value) if isinstance(value, np.ndarray) else value
    np.testing.assert_array_equal(np.asarray(x), expected)


def test_mask_write_of_a_count_free_value_does_not_sync():
    x = xp.asarray(A)
    m = x > 30
    xp.metrics.reset()
    x[m] = 0.0
    x[:, :, m[0, 0] | True] = 1.0
    x[m[:, :, 0], 2] = xp.asarray(np.arange(5.0))[:1]
    assert sum(xp.metrics.syncs.values()) == 0
    expected = A.copy()
    expected[A > 30] = 0.0
    expected[:, :, np.ones(5, bool)] = 1.0
    expected[(A > 30)[:, :, 0], 2] = 0.0
    np.testing.assert_array_equal(np.asarray(x), expected)


def test_integer_array_writes_stay_lazy_and_compile_once(fresh, rng):
    x = xp.zeros((50, 3))
    for k in range(6):
        idx = xp.asarray(rng.integers(-50, 50, 7))
        x[idx, 1] = float(k)
        np.asarray(x)
    assert fresh.syncs.get("boolean index", 0) == 0
    assert fresh.compiles <= 2  # the first graph reads a constant, the later ones a buffer


def test_reused_mask_counts_once(fresh):
    x = xp.asarray(A)
    m = x > 10
    for _ in range(3):
        np.asarray(x[m])
    assert fresh.syncs["boolean index"] == 1


def test_bad_indices_raise_at_the_call():
    x = xp.asarray(A)
    with pytest.raises(IndexError):
        x[xp.asarray([0.5])]
    with pytest.raises(IndexError):
        x[xp.asarray([True, False])]  # mask shape does not match the axis
    with pytest.raises(IndexError):
        x[xp.asarray([0]), 7]  # Python int out of range
    with pytest.raises(IndexError):
        x[xp.asarray([0, 1]), xp.asarray([0, 1, 2])]  # cannot broadcast
    with pytest.raises(ValueError):
        x[xp.asarray([0, 1])] = xp.asarray(np.ones((3, 4, 5)))
    np.testing.assert_array_equal(np.asarray(x), A)  # failed writes left x alone


def test_zero_sized_mask_axes_select_nothing():
    # the standard allows a mask axis of size 0 against any axis size
    x = xp.asarray(A)
    assert x[xp.zeros((0,), dtype=xp.bool)].shape == (0, 4, 5)


# ---------------------------------------------------------------- take, take_along_axis

@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take(axis):
    idx = np.array([2, -1, 0, 0])
    n = A.shape[axis]
    idx = idx % n - (idx < 0) * n  # keep negatives, stay in range
    out = xp.take(xp.asarray(A), xp.asarray(idx), axis=axis)
    np.testing.assert_array_equal(np.asarray(out), np.take(A, idx, axis=axis))


def test_take_1d_default_axis_and_errors():
    v = xp.asarray(np.arange(5.0))
    np.testing.assert_array_equal(np.asarray(xp.take(v, xp.asarray([4, -2]))), [4.0, 3.0])
    with pytest.raises(ValueError):
        xp.take(xp.asarray(A), xp.asarray([0]))
    with pytest.raises(TypeError):
        xp.take(v, xp.asarray([0.0]))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_take_along_axis(axis, rng):
    n = A.shape[axis]
    shape = list(A.shape)
    shape[axis] = 6
    idx = rng.integers(-n, n, shape)
    out = xp.take_along_axis(xp.asarray(A), xp.asarray(idx), axis=axis)
    np.testing.assert_array_equal(np.asarray(out), np.take_along_axis(A, idx, axis=axis))


def test_take_along_axis_broadcasts_other_axes(rng):
    idx = rng.integers(0, 5, (1, 4, 2))
    out = xp.take_along_axis(xp.asarray(A), xp.asarray(idx), axis=2)
    np.testing.assert_array_equal(np.asarray(out), np.take_along_axis(A, np.broadcast_to(idx, (3, 4, 2)), axis=2))
