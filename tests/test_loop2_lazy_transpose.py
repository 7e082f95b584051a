"""x.T of a matrix binds its transpose node at its first read (`lazy_transpose`): a matmul folds
it away unbound, giving the node a bound transpose gives (`permute_dims(x, (1, 0))`, the view
x.T made before); every other use (a read, an op, a write through it, a view of it, a write into
its base first) gives numpy's values."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _graph
from lazyarray._array_object import _View

pytestmark = pytest.mark.usefixtures("both_tiers")


def _same(a, b, seen=None):
    """Two graphs of the same nodes: op, attributes, shape, dtype; leaves the same objects."""
    if a.op is None or b.op is None:
        return a is b
    return (a.op is b.op and a.attrs == b.attrs and a.shape == b.shape and a.dtype is b.dtype
            and len(a.args) == len(b.args) and all(_same(x, y) for x, y in zip(a.args, b.args)))


def _bound_T(x):
    return xp.permute_dims(x, (1, 0))


CASES = [  # (x1 maker, x2 maker) of numpy arrays: X.T @ v, X.T @ M, M @ X.T, X.T @ Y.T, v @ X.T
    ("XT_v", lambda r: (r.standard_normal((7, 4)), r.standard_normal(7)), (True, False)),
    ("XT_M", lambda r: (r.standard_normal((7, 4)), r.standard_normal((7, 3))), (True, False)),
    ("M_XT", lambda r: (r.standard_normal((3, 4)), r.standard_normal((5, 4))), (False, True)),
    ("XT_YT", lambda r: (r.standard_normal((4, 3)), r.standard_normal((5, 4))), (True, True)),
    ("v_XT", lambda r: (r.standard_normal(4), r.standard_normal((5, 4))), (False, True)),
    ("XT_col", lambda r: (r.standard_normal((7, 4)), r.standard_normal((7, 1))), (True, False)),
    ("col_T", lambda r: (r.standard_normal((6, 1)), r.standard_normal((6, 5))), (True, False)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex64"])
@pytest.mark.parametrize("name,make,flags", CASES, ids=[c[0] for c in CASES])
def test_matmul_of_unbound_transpose(dtype, name, make, flags):
    rng = np.random.default_rng(len(name))
    a, b = (v.astype(dtype) if dtype != "int64" else (10 * v).astype(dtype) for v in make(rng))
    x1, x2 = xp.asarray(a), xp.asarray(b)
    lazy1 = x1.T if flags[0] else x1
    lazy2 = x2.T if flags[1] else x2
    bound1 = _bound_T(x1) if flags[0] else x1
    bound2 = _bound_T(x2) if flags[1] else x2
    for v in (lazy1, lazy2):
        assert type(v) is not _View or v._own is None  # (not bound yet)
    got, ref = lazy1 @ lazy2, bound1 @ bound2
    assert _same(got._node, ref._node)
    want = (a.T if flags[0] else a) @ (b.T if flags[1] else b)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(ref))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_no_transpose_node_recorded():
    rng = np.random.default_rng(1)
    X, r = xp.asarray(rng.standard_normal((6, 3))), xp.asarray(rng.standard_normal(6))
    xp.evaluate(X, r)
    before = len(_graph.recorded)
    g = X.T @ r
    new = _graph.recorded[before:]
    assert [n.op for n in new] == [g._node.op]  # (one dot_general: no transpose node bound)
    np.testing.assert_allclose(np.asarray(g), np.asarray(X).T @ np.asarray(r))


def test_uses_other_than_matmul():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 3))
    X = xp.asarray(a)
    t = X.T
    assert t.shape == (3, 4) and t.ndim == 2 and t.dtype == xp.float64
    assert _same(t._node, _bound_T(X)._node)
    np.testing.assert_array_equal(np.asarray(X.T), a.T)
    np.testing.assert_array_equal(np.asarray(X.T + 1.0), a.T + 1.0)
    np.testing.assert_array_equal(np.asarray(xp.sum(X.T, axis=0)), a.T.sum(axis=0))
    np.testing.assert_array_equal(np.asarray(X.T[1:, ::2]), a.T[1:, ::2])
    np.testing.assert_array_equal(np.asarray(xp.reshape(X.T, (12,))), a.T.reshape(12))
    np.testing.assert_array_equal(np.asarray(X.T.T), a)
    np.testing.assert_array_equal(np.asarray(X[1:, :].T), a[1:, :].T)
    # a matmul after another use: the bound node, folded as before
    t = X.T
    t + 0.0
    np.testing.assert_allclose(np.asarray(t @ xp.asarray(a)), a.T @ a)


def test_writes_through_and_into_base():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 3))
    X = xp.asarray(a.copy())
    t = X.T  # never read before the write through it
    t[0, 1] = 7.0
    a[1, 0] = 7.0
    np.testing.assert_array_equal(np.asarray(X), a)
    np.testing.assert_array_equal(np.asarray(t), a.T)
    u = X.T  # the base written after the view was made, before its first read
    X[2, 2] = -1.0
    a[2, 2] = -1.0
    np.testing.assert_array_equal(np.asarray(u), a.T)
    w = X.T
    X[0, 0] = 5.0
    a[0, 0] = 5.0
    r = rng.standard_normal(4)
    np.testing.assert_allclose(np.asarray(w @ xp.asarray(r)), a.T @ r)
    v = X.T
    v[...] = v * 2.0  # (a whole write of a view read first)
    np.testing.assert_array_equal(np.asarray(X), 2.0 * a)


def test_transpose_outlives_its_base_handle_and_a_sync():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 2))
    X = xp.asarray(a) * 3.0  # pending
    t = X.T
    del X
    other = xp.asarray(a) + 1.0
    np.testing.assert_array_equal(np.asarray(other), a + 1.0)  # a sync
    np.testing.assert_array_equal(np.asarray(t), (a * 3.0).T)


def test_errors_unchanged():
    with pytest.raises(ValueError):
        xp.asarray(np.zeros(3)).T
    X = xp.asarray(np.zeros((3, 2)))
    with pytest.raises(ValueError):
        X.T @ xp.asarray(np.zeros(2))
    with pytest.raises(TypeError):
        X.T @ 2.0
    # (mixed dtypes: the general path's promotion, as a bound transpose gets it)
    b = xp.asarray(np.ones(3, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(X.T @ b), np.asarray(_bound_T(X) @ b))
