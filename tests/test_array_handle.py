"""The array handle: materialization points, in-place updates, and errors raised at the call."""
import math
import pickle

import numpy as np
import pytest

import lazyarray as xp


def test_shape_is_a_tuple_of_ints_without_running_anything(fresh):
    a = xp.reshape(xp.arange(12.0), (3, 4))[:, 1:]
    assert a.shape == (3, 3) and all(type(s) is int for s in a.shape)
    assert (a.ndim, a.size, a.dtype) == (2, 9, xp.float64)
    assert fresh.executions == 0


@pytest.mark.parametrize("conv, value, expected", [
    (bool, [1.0], True), (int, [7], 7), (float, [2.5], 2.5), (complex, [1 + 2j], 1 + 2j),
    (math.floor, [3.7], 3),
])
def test_scalar_conversions_sync(conv, value, expected, fresh):
    a = xp.asarray(value)[0] * 1
    assert conv(a) == expected
    assert sum(fresh.syncs.values()) == 1


def test_index_protocol():
    i = xp.asarray(2)
    assert [10, 20, 30][i] == 30
    with pytest.raises(TypeError):
        [1, 2][xp.asarray(1.0)]


def test_bool_of_many_elements_raises():
    with pytest.raises(TypeError):
        bool(xp.ones(3))


def test_numpy_copy_is_a_copy_and_asarray_an_alias():
    a = xp.asarray([1.0, 2.0])
    n = np.array(a)
    n[0] = 99.0
    assert float(a[0]) == 1.0
    m = np.asarray(a)  # aliases a, as numpy's (tests/test_host_alias.py)
    m[0] = 99.0
    assert float(a[0]) == 99.0


def test_host_input_is_copied_at_asarray():
    n = np.array([1.0, 2.0, 3.0])
    a = xp.asarray(n)
    n[:] = -1
    np.testing.assert_array_equal(np.asarray(a), [1.0, 2.0, 3.0])


def test_dlpack_roundtrip():
    a = xp.asarray(np.arange(6, dtype=np.int32).reshape(2, 3)) + 1
    assert a.__dlpack_device__() == (1, 0)
    n = np.from_dlpack(a)
    np.testing.assert_array_equal(n, np.arange(1, 7).reshape(2, 3))
    b = xp.from_dlpack(n)
    np.testing.assert_array_equal(np.asarray(b), n)


def test_repr_shows_values_and_dtype():
    r = repr(xp.asarray([1, 2], dtype=xp.int8))
    assert "1" in r and "2" in r and "int8" in r


def test_pickle_roundtrip():
    a = xp.asarray([[1.5, 2.5]]) * 2
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(np.asarray(b), [[3.0, 5.0]])


def test_inplace_operators_rebind_the_handle_only():
    a = xp.asarray(np.arange(4.0))
    alias = a
    copy = xp.asarray(a, copy=True)
    a += 1.0
    a *= 2.0
    assert alias is a
    np.testing.assert_array_equal(np.asarray(a), [2.0, 4.0, 6.0, 8.0])
    np.testing.assert_array_equal(np.asarray(copy), [0.0, 1.0, 2.0, 3.0])


def test_copies_keep_the_old_value_and_views_follow_their_base():
    a = xp.zeros((3, 3))
    view = a[1]
    copy = xp.asarray(a, copy=True)
    taken = xp.take(a, xp.asarray([1]), axis=0)  # advanced indexing copies, as in numpy
    a[1, :] = 5.0
    np.testing.assert_array_equal(np.asarray(view), [5.0, 5.0, 5.0])
    np.testing.assert_array_equal(np.asarray(copy), np.zeros((3, 3)))
    np.testing.assert_array_equal(np.asarray(taken), np.zeros((1, 3)))


def test_writes_through_a_view_reach_the_base():
    """scikit-learn mutates basic-index results in place (_add_to_diagonal(cov[k, :, :], ...))."""
    n = np.zeros((2, 3, 3))
    a = xp.asarray(n)
    for arr, ns in ((a, np), (n, np)):
        m = arr[1, :, :]
        for i in range(3):
            m[i, i] = m[i, i] + 1.5
        inner = arr[0][2]
        inner += 4.0
    np.testing.assert_array_equal(np.asarray(a), n)
    np.testing.assert_array_equal(np.asarray(a)[1], np.eye(3) * 1.5)


def test_inplace_that_would_change_dtype_raises_and_leaves_array_intact():
    a = xp.asarray([1, 2, 3])
    with pytest.raises((TypeError, ValueError)):
        a /= 2.0
    np.testing.assert_array_equal(np.asarray(a), [1, 2, 3])


@pytest.mark.parametrize("call, exc", [
    (lambda: xp.ones((2, 3)) + xp.ones((4, 3)), ValueError),
    (lambda: xp.matmul(xp.ones((2, 3)), xp.ones((2, 3))), ValueError),
    (lambda: xp.sum(xp.ones((2, 3)), axis=2), IndexError),
    (lambda: xp.ones(3)[5], IndexError),
    (lambda: xp.ones(3)[1, 2], IndexError),
    (lambda: xp.signbit(xp.asarray([1, 2])), TypeError),
    (lambda: xp.logical_and(xp.ones(2), xp.ones(2)), TypeError),
    (lambda: xp.reshape(xp.ones(6), (4, 2)), ValueError),
    (lambda: xp.asarray([1, 2]) + "a", TypeError),
    (lambda: xp.ones(3, dtype="float128"), TypeError),
])
def test_errors_are_raised_at_the_call_with_the_standards_type(call, exc, fresh):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value)  # a message that says what was wrong
    assert fresh.executions == 0  # raised while tracing, not at a later sync


def test_bad_setitem_does_not_corrupt_the_array():
    a = xp.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError):
        a[0] = xp.ones(4)
    with pytest.raises(IndexError):
        a[3] = 1.0
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.0).reshape(2, 3))


def test_basic_indexing_matches_numpy(rng):
    n = rng.standard_normal((4, 5, 6))
    a = xp.asarray(n)
    keys = [(0,), (-1, 2), (slice(1, 3),), (slice(None, None, -2), Ellipsis, 1), (None, 1, slice(4, 0, -3)),
            (Ellipsis, None), (slice(10, 20),), (1, slice(None), -6), ()]
    for key in keys:
        np.testing.assert_array_equal(np.asarray(a[key]), n[key], err_msg=str(key))


def test_basic_setitem_matches_numpy(rng):
    keys = [(0,), (-1, 2), (slice(1, 3),), (slice(None, None, -2), Ellipsis, 1), (1, slice(4, 0, -3)),
            (Ellipsis, slice(None, None, 2))]
    for key in keys:
        n = rng.standard_normal((4, 5, 6))
        a = xp.asarray(n)
        value = rng.standard_normal(n[key].shape)
        a[key] = xp.asarray(value)
        n[key] = value
        np.testing.assert_array_equal(np.asarray(a), n, err_msg=str(key))
