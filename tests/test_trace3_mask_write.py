"""`x[m] = c` of a bool mask of x's shape (two axes or more) and a Python float or int into a
floating x (scikit-learn's `_logsumexp`) binds at once the general path's leaf and nodes
(`_advanced_indexing.whole_mask_write`): the same graph (and the same count of recorded nodes),
numpy's values in both tiers, and every other write still takes the general path."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _graph

pytestmark = pytest.mark.usefixtures("both_tiers")


class _F(float):
    """A float whose type is not `float`: the general path's key parsing, the same leaf value."""


class _I(int):
    pass


def _general(v):
    return _F(v) if type(v) is float else _I(v)


def _arrays(v):
    return [xp.asarray(v), xp.asarray(v) * 1, xp.reshape(xp.asarray(v.ravel()), v.shape)]


def _masks(v):
    m = v == v.max(axis=-1, keepdims=True) if v.size else np.zeros(v.shape, bool)
    a = xp.asarray(v)
    pend = (a == xp.max(a, axis=-1, keepdims=True)) if v.size else xp.asarray(m)
    return m, [xp.asarray(m), pend]


SHAPES = [(30, 3), (4, 5, 2), (2, 1, 3), (1, 1), (3, 1), (0, 3), (2, 0, 2)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=str)
def test_same_graph_as_the_general_path(dtype):
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        v = rng.integers(-3, 4, size=shape).astype(dtype)
        m, masks = _masks(v.real)
        for value in (-float("inf"), 2.5, float("nan"), 3, -0.0):
            for i in range(3):
                for j in range(2):
                    a, b = _arrays(v)[i], _arrays(v)[i]
                    n0 = _graph.pending.nodes_since_sync
                    a[masks[j]] = value
                    n1 = _graph.pending.nodes_since_sync
                    b[masks[j]] = _general(value)
                    n2 = _graph.pending.nodes_since_sync
                    assert xp.graph_text(a) == xp.graph_text(b), (shape, value, i, j)
                    assert n1 - n0 == n2 - n1
                    if v.size:
                        assert a._node.op is b._node.op and a._node.args[0] is masks[j]._node
            a = _arrays(v)[1]
            a[masks[1]] = value
            want = v.copy()
            want[m] = value
            got = np.asarray(a)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_other_writes_keep_the_general_path():
    v = np.arange(12.0).reshape(3, 4)
    # a view: written through its base
    base = xp.asarray(np.zeros((2, 3, 4))) * 1
    view = base[1, :, :]
    view[xp.asarray(v > 5)] = -1.0
    want = np.zeros((2, 3, 4))
    want[1][v > 5] = -1.0
    np.testing.assert_array_equal(np.asarray(base), want)
    # a 1-D mask (`_mask_index`), an integer array, an int array written with a float
    a = xp.asarray(np.arange(5.0)) * 1
    a[xp.asarray(np.arange(5) > 2)] = 7.0
    np.testing.assert_array_equal(np.asarray(a), [0, 1, 2, 7, 7])
    ia = xp.asarray(np.arange(12).reshape(3, 4))
    ia[xp.asarray(v > 5)] = 2.9
    w = np.arange(12).reshape(3, 4)
    w[v > 5] = 2
    np.testing.assert_array_equal(np.asarray(ia), w)
    # errors as before: a mask of another shape, a read-only view, a complex into a real array
    x = xp.asarray(v) * 1
    with pytest.raises(IndexError, match="boolean index of shape"):
        x[xp.asarray(np.ones((3, 5), bool))] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        xp.linalg.diagonal(xp.asarray(np.ones((3, 3))) * 1)[xp.asarray(np.ones(3, bool))] = 1.0
    with pytest.raises(TypeError):
        x[xp.asarray(v > 5)] = 1j
    np.testing.assert_array_equal(np.asarray(x), v)
