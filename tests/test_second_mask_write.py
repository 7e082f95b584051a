"""x[m] = v for a boolean mask of x's whole shape and a 0-D value (`_advanced_indexing._mask_select`'s
first case: scikit-learn's `_logsumexp`): values against numpy in both tiers, the same graph as
the general lines (`_region_select`), errors as before."""
import numpy as np
import pytest

import lazyarray as xp

pytestmark = pytest.mark.usefixtures("both_tiers")


@pytest.mark.parametrize("shape", [(300, 3), (4, 5, 6), (7,), (1, 1)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
def test_whole_mask_scalar_write(shape, dtype, rng):
    a_np = (rng.standard_normal(shape) * 4).astype(dtype)
    m_np = rng.standard_normal(shape) > 0.3
    value = {"float64": -np.inf, "float32": 2.5, "int32": -7, "bool": True}[dtype]
    x = xp.asarray(a_np)
    x[xp.asarray(m_np)] = value
    want = a_np.copy()
    want[m_np] = value
    np.testing.assert_array_equal(np.asarray(x), want)


def test_pending_operands_and_the_logsumexp_pattern(rng):
    a_np = rng.standard_normal((300, 3))
    a = xp.asarray(a_np) * 2.0
    amax = xp.max(a, axis=1, keepdims=True)
    index_max = a == amax
    b = xp.asarray(a, copy=True)
    b[index_max] = -xp.inf
    w_np = a_np * 2.0
    want = w_np.copy()
    want[w_np == w_np.max(axis=1, keepdims=True)] = -np.inf
    np.testing.assert_array_equal(np.asarray(b), want)
    np.testing.assert_array_equal(np.asarray(a), w_np)  # (the copy was written, not a)


def test_zero_d_array_value_and_views(rng):
    a_np = rng.standard_normal((6, 4))
    x = xp.asarray(a_np)
    v = x[1:5, :]  # a view: the write reaches x
    m_np = rng.standard_normal((4, 4)) > 0
    v[xp.asarray(m_np)] = xp.asarray(9.0)
    want = a_np.copy()
    want[1:5][m_np] = 9.0
    np.testing.assert_array_equal(np.asarray(x), want)
    np.testing.assert_array_equal(np.asarray(v), want[1:5])


@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 4), (6,)])
def test_same_graph_as_the_general_path(shape, rng):
    from lazyarray import _views
    from lazyarray._advanced_indexing import _region_select
    from lazyarray._indexing import _value_node
    a_np = rng.standard_normal(shape)
    m = xp.asarray(rng.standard_normal(shape) > 0)
    fast, general = xp.asarray(a_np) + 1.0, xp.asarray(a_np) + 1.0
    fast[m] = 0.5
    with _views.write_lock:  # (the general lines, as setitem calls them)
        assert _region_select(general, [m], _value_node(general, general.dtype, 0.5), m)
    assert xp.graph_text(fast) == xp.graph_text(general)
    np.testing.assert_array_equal(np.asarray(fast), np.asarray(general))


def test_other_masks_and_values_take_the_general_path(rng):
    a_np = rng.standard_normal((5, 3))
    m_np = np.zeros((5, 3), bool)
    m_np[[0, 2, 4], [1, 1, 2]] = True
    x = xp.asarray(a_np)
    x[xp.asarray(m_np)] = xp.asarray([1.0, 2.0, 3.0])  # a value per True element: a sync
    want = a_np.copy()
    want[m_np] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(np.asarray(x), want)
    y = xp.asarray(a_np)
    y[xp.asarray(m_np)] = xp.asarray([4.0])  # a (1,) value broadcast
    want = a_np.copy()
    want[m_np] = 4.0
    np.testing.assert_array_equal(np.asarray(y), want)


def test_empty_and_errors(rng):
    e = xp.asarray(np.zeros((0, 3)))
    e[xp.asarray(np.zeros((0, 3), bool))] = 1.0
    assert np.asarray(e).shape == (0, 3)
    x_np = rng.standard_normal((4, 3))
    x = xp.asarray(x_np)
    with pytest.raises(IndexError):
        x[xp.asarray(np.ones((3, 4), bool))] = 1.0
    with pytest.raises(ValueError):
        x[xp.asarray(np.ones((4, 3), bool))] = xp.asarray(np.ones(5))
    np.testing.assert_array_equal(np.asarray(x), x_np)  # (unchanged by the failed writes)
