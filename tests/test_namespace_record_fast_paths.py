"""The namespace's recording fast paths (memoized broadcast and index plans, matmul of two
matrices, x.T, int axes) give what the general paths give: values equal to numpy's, views that
still see and make writes, and the same errors at every call, including after a cached plan
exists for the same shapes."""
import numpy as np
import pytest

import lazyarray as xp


def _np(a):
    return np.asarray(a)


RNG = np.random.default_rng(7)


@pytest.mark.parametrize("s1,s2", [((4, 1), (4, 3)), ((3,), (4, 3)), ((1, 3), (4, 1)), ((2, 1, 3), (4, 1)),
                                   ((4, 3), (3,)), ((1,), (5,))])
def test_broadcast_pairs_match_numpy(s1, s2):
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    for _ in range(2):  # the second call takes the memoized plan
        np.testing.assert_array_equal(_np(xp.asarray(a) - xp.asarray(b)), a - b)
        np.testing.assert_array_equal(_np(xp.less(xp.asarray(a), xp.asarray(b))), a < b)


def test_broadcast_error_raised_every_call():
    a, b = xp.ones((3, 2)), xp.ones((4, 2))
    for _ in range(3):
        with pytest.raises(ValueError, match="cannot be broadcast"):
            a + b


@pytest.mark.parametrize("key", [(None, slice(None)), (slice(None), None), (None,), (None, None, slice(None)),
                                 (1,), (-1, slice(None)), (slice(None), 2), (slice(1, None, 2), -2),
                                 (slice(None, None, -1), None), (0, 0), (), (slice(None), slice(None))])
def test_basic_reads_match_numpy(key):
    a = RNG.standard_normal((4, 3))
    x = xp.asarray(a)
    for _ in range(2):
        np.testing.assert_array_equal(_np(x[key]), a[key])
        v = x.T  # a view's strides are part of the plan's key
        np.testing.assert_array_equal(_np(v[key]), a.T[key])


def test_all_integer_key_is_a_copy_and_others_views():
    a = np.arange(12.0).reshape(4, 3)
    for _ in range(2):
        x = xp.asarray(a.copy())
        e = x[1, 2]
        v = x[None, :]
        w = x[:, 1]
        x[1, 2] = 100.0
        assert float(e) == 5.0  # a copy: keeps the old value
        assert _np(v)[0, 1, 2] == 100.0  # views see the write
        assert _np(w)[1] == 4.0 and _np(w).shape == (4,)
        w[0] = -1.0  # and write through
        assert _np(x)[0, 1] == -1.0


def test_index_errors_repeat_after_a_cached_plan():
    x = xp.ones((4, 3))
    x[3, 2]  # cached plan for a valid key at this shape
    for _ in range(2):
        with pytest.raises(IndexError, match="out of bounds"):
            x[4, 0]
        with pytest.raises(IndexError, match="too many indices"):
            x[0, 0, 0]
        with pytest.raises(IndexError, match="out of bounds"):
            x[4, 0] = 1.0


def test_write_value_errors_on_a_cached_key():
    x = xp.ones((4, 3))
    x[1, :] = xp.zeros(3)
    for _ in range(2):
        with pytest.raises(TypeError):
            x[1, :] = "a"
        with pytest.raises(ValueError, match="cannot assign"):
            x[1, :] = xp.zeros(4)
        with pytest.raises(TypeError, match="complex"):
            x[1, :] = 1j
    x[1, :] = xp.asarray([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(_np(x)[1], [1.0, 2.0, 3.0])


def test_diagonal_writes_through_a_view():
    a = np.zeros((3, 4, 4))
    c = xp.asarray(a)
    for k in range(3):
        v = c[k, :, :]
        for i in range(4):
            v[i, i] = v[i, i] + float(k + i)
    for k in range(3):
        np.testing.assert_array_equal(_np(c)[k], np.diag([float(k + i) for i in range(4)]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64])
def test_matmul_matrices_match_numpy(dtype):
    a = (RNG.standard_normal((5, 3)) * 3).astype(dtype)
    b = (RNG.standard_normal((3, 4)) * 3).astype(dtype)
    got = _np(xp.asarray(a) @ xp.asarray(b))
    assert got.dtype == (a @ b).dtype
    np.testing.assert_allclose(got, a @ b, rtol=1e-5)
    np.testing.assert_allclose(_np(xp.asarray(a).T @ xp.asarray(a)), a.T @ a, rtol=1e-5)


def test_matmul_errors():
    for _ in range(2):
        with pytest.raises(ValueError, match="contracted dimensions"):
            xp.ones((2, 3)) @ xp.ones((2, 3))
        with pytest.raises(TypeError):
            xp.matmul(xp.ones((2, 2), dtype=xp.bool), xp.ones((2, 2), dtype=xp.bool))
    # mixed dtypes promote (the general path)
    got = _np(xp.ones((2, 3), dtype=xp.float32) @ xp.ones((3, 2), dtype=xp.float64))
    assert got.dtype == np.float64


def test_transpose_is_a_writable_view():
    a = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(a.copy())
    t = x.T
    assert t.shape == (3, 2)
    np.testing.assert_array_equal(_np(t), a.T)
    t[2, 1] = 50.0
    assert _np(x)[1, 2] == 50.0
    b = a.copy()
    b[1, 2] = 50.0
    np.testing.assert_array_equal(_np(x[:, ::2].T), b[:, ::2].T)  # the transpose of a strided view
    with pytest.raises(ValueError, match="2-D"):
        xp.ones(3).T


@pytest.mark.parametrize("axis", [0, 1, -1, -2, None, (0, 1)])
def test_reductions_with_axes(axis):
    a = RNG.standard_normal((4, 3)).astype(np.float32)
    x = xp.asarray(a)
    for _ in range(2):
        np.testing.assert_allclose(_np(xp.sum(x, axis=axis)), np.sum(a, axis=axis), rtol=1e-5)
        np.testing.assert_allclose(_np(xp.sum(x, axis=axis, keepdims=True)),
                                   np.sum(a, axis=axis, keepdims=True), rtol=1e-5)
    assert _np(xp.sum(xp.asarray(np.ones((2, 3), np.int32)), axis=1)).dtype == np.int64
    assert _np(xp.sum(xp.asarray(np.ones((2, 3), bool)), axis=0)).dtype == np.int64
    for _ in range(2):
        with pytest.raises(IndexError, match="out of bounds"):
            xp.sum(x, axis=2)
        with pytest.raises(TypeError, match="integer"):
            xp.sum(x, axis=1.0)


@pytest.mark.parametrize("s1,s2", [((5, 3), (3,)), ((3,), (3, 4)), ((3,), (3,)), ((1, 3), (3,)), ((3,), (3, 1))])
def test_matmul_vectors_match_numpy(s1, s2):
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    got = _np(xp.asarray(a) @ xp.asarray(b))
    assert got.shape == (a @ b).shape
    np.testing.assert_allclose(got, a @ b, rtol=1e-12)
    if a.ndim == 2:  # a transposed view as the left operand
        np.testing.assert_allclose(_np(xp.asarray(a.T.copy()).T @ xp.asarray(b)), a @ b, rtol=1e-12)
    with pytest.raises(ValueError, match="contracted dimensions"):
        xp.asarray(a) @ xp.ones(7)
