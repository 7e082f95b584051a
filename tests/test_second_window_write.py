"""x[key] = v for a basic key whose window has unit steps and a value of the window's shape
(`_indexing._window_write`: the reshape and dynamic_update_slice bound at once): the same graph
as the general path (the same key written with an Ellipsis, which has no pattern), values
against numpy in both tiers, views, and the keys that take the general path."""
import numpy as np
import pytest

import lazyarray as xp

pytestmark = pytest.mark.usefixtures("both_tiers")

KEYS = [  # (array shape, key, its Ellipsis form: the general path)
    ((3, 8, 8), (1, slice(None), slice(None)), (1, Ellipsis)),
    ((3, 8, 8), (2,), (2, Ellipsis)),
    ((300, 3), (slice(None), 1), (Ellipsis, 1)),
    ((300, 3), (slice(10, 20), slice(0, 2)), (slice(10, 20), slice(0, 2), Ellipsis)),
    ((5, 6), (slice(1, 2), slice(2, 3)), (slice(1, 2), slice(2, 3), Ellipsis)),
    ((4, 5), (None, 2, slice(None)), (None, 2, Ellipsis)),
    ((7,), (slice(2, 5),), (slice(2, 5), Ellipsis)),
]


def _value(x_np, key, rng):
    return rng.standard_normal(x_np[key].shape).astype(x_np.dtype)


@pytest.mark.parametrize("shape,key,general", KEYS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_same_graph_and_values_as_the_general_path(shape, key, general, dtype, rng):
    a_np = (rng.standard_normal(shape) * 10).astype(dtype)
    v_np = _value(a_np, key, rng)
    fast, slow = xp.asarray(a_np) + 0, xp.asarray(a_np) + 0
    for _ in range(2):  # (the second write finds the kept window)
        fast[key] = xp.asarray(v_np)
        slow[general] = xp.asarray(v_np)
    assert xp.graph_text(fast) == xp.graph_text(slow)
    want = a_np.copy()
    want[key] = v_np
    np.testing.assert_array_equal(np.asarray(fast), want)


def test_writes_through_views_reach_the_base(rng):
    c_np = rng.standard_normal((3, 8, 8))
    c = xp.asarray(c_np)
    v = c[1:3]  # a view: its writes compose into c
    m = rng.standard_normal((8, 8))
    for k in range(2):
        v[k, :, :] = xp.asarray(m + k)
        c_np[1 + k] = m + k
    np.testing.assert_array_equal(np.asarray(c), c_np)
    np.testing.assert_array_equal(np.asarray(v), c_np[1:3])
    col = c[:, :, 3]  # a strided view's column
    col[:, 2:5] = xp.asarray(np.full((3, 3), 7.0))
    c_np[:, 2:5, 3] = 7.0
    np.testing.assert_array_equal(np.asarray(c), c_np)


def test_views_of_views_keep_no_window(rng):
    from lazyarray import _indexing
    c_np = rng.standard_normal((4, 6, 6))
    c = xp.asarray(c_np)
    inner = c[1:4][0:2]  # a view of a view: its composition is made at each write
    kept = len(_indexing._window_writes)
    for k in range(3):
        inner[1, 2:5, :] = xp.asarray(np.full((3, 6), float(k)))
        c_np[2, 2:5, :] = float(k)
    assert len(_indexing._window_writes) == kept
    np.testing.assert_array_equal(np.asarray(c), c_np)
    np.testing.assert_array_equal(np.asarray(inner), c_np[1:3])


def test_the_loop_of_a_gaussian_mixture(rng):
    """`covariances[k] = ...` and `log_prob[:, k] = ...` for each component, as scikit-learn's
    GaussianMixture writes them each EM step."""
    X = rng.standard_normal((300, 8))
    means = rng.standard_normal((3, 8))
    cov_np = np.empty((3, 8, 8))
    lp_np = np.empty((300, 3))
    cov = xp.empty((3, 8, 8), dtype=xp.float64)
    lp = xp.empty((300, 3), dtype=xp.float64)
    Xx = xp.asarray(X)
    for k in range(3):
        d = Xx - xp.asarray(means[k])
        cov[k, :, :] = d.T @ d / 300.0
        lp[:, k] = xp.sum(d * d, axis=1)
        d_np = X - means[k]
        cov_np[k] = d_np.T @ d_np / 300.0
        lp_np[:, k] = np.sum(d_np * d_np, axis=1)
    np.testing.assert_allclose(np.asarray(cov), cov_np, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(lp), lp_np, rtol=1e-12)


def test_other_keys_and_values_take_the_general_path(rng):
    a_np = rng.standard_normal((6, 6))
    x = xp.asarray(a_np)
    want = a_np.copy()
    x[::2, 1] = xp.asarray(np.arange(3.0))  # strided: a padded select
    want[::2, 1] = np.arange(3.0)
    x[::-1, 0] = xp.asarray(np.arange(6.0))  # reversed
    want[::-1, 0] = np.arange(6.0)
    x[2, :] = 5.0  # a broadcast scalar
    want[2, :] = 5.0
    x[3] = xp.asarray(np.ones(1))  # a value of another shape, broadcast
    want[3] = 1.0
    x[:, :] = xp.asarray(want * 2)  # the whole array
    want = want * 2
    x[1, 1] = 9.0  # one element
    want[1, 1] = 9.0
    np.testing.assert_array_equal(np.asarray(x), want)


def test_errors_leave_the_array(rng):
    a_np = rng.standard_normal((4, 5))
    x = xp.asarray(a_np)
    with pytest.raises(ValueError):
        x[1, :] = xp.asarray(np.ones(4))
    with pytest.raises(IndexError):
        x[7, :] = xp.asarray(np.ones(5))
    with pytest.raises(TypeError):
        x[1, :] = xp.asarray(np.ones(5) + 1j)
    np.testing.assert_array_equal(np.asarray(x), a_np)
