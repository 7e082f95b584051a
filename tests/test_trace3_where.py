"""`where(c, x1, x2)` of a bool condition, x1 of its shape, and x2 an array of x1's dtype and that
shape (or 0-D) or a Python int/float next to a floating x1 (scikit-learn's `_logsumexp`) binds
the general path's select node at once: node for node (the general path reached through a view
of x1, whose node is x1's), numpy's values in both tiers, other operands take the general path."""
import numpy as np
import pytest

import lazyarray as xp

pytestmark = pytest.mark.usefixtures("both_tiers")


def _same(n, m):
    if n is m:
        return True
    if n.op is None and m.op is None:  # (two scalar leaves of one value and dtype; two empty leaves)
        if n.shape == m.shape and 0 in n.shape and n.dtype is m.dtype:
            return True
        return n.shape == m.shape == () and n.dtype is m.dtype and type(n.host) is type(m.host) \
            and n.host == m.host
    return (n.op is m.op and n.attrs == m.attrs and n.shape == m.shape
            and n.dtype is m.dtype and len(n.args) == len(m.args)
            and all(_same(a, b) for a, b in zip(n.args, m.args)))


def _general(c, x1, x2):
    view = x1[...]
    assert type(view) is not xp.Array and view._node is x1._node
    return xp.where(c, view, x2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32, bool], ids=str)
def test_same_node_as_the_general_path(dtype):
    rng = np.random.default_rng(0)
    for shape in [(30, 3), (5,), (0, 2), ()]:
        v1 = rng.integers(-2, 3, size=shape).astype(dtype)
        v2 = rng.integers(-2, 3, size=shape).astype(dtype)
        m = rng.integers(0, 2, size=shape).astype(bool)
        conds = [xp.asarray(m), xp.asarray(v1) == xp.asarray(v2)]
        ms = [m, v1 == v2]
        x1s = [xp.asarray(v1), xp.reshape(xp.asarray(v1.reshape(-1)), shape)]
        others = [(xp.asarray(v2), v2), (xp.asarray(v2)[...], v2), (xp.asarray(np.asarray(v2.flat[0] if v2.size else 1, dtype)), None)]
        if np.dtype(dtype).kind in "fc":
            others += [(0, None), (2.5, None), (-np.inf.__float__(), None)]
        for ci, c in enumerate(conds):
            for x1 in x1s:
                for x2, _ in others:
                    got = xp.where(c, x1, x2)
                    assert got.shape == shape and got.dtype == x1.dtype
                    if 0 in shape:  # (a view of an empty array is a new empty leaf: no general
                        continue    # path reached through it; the values are checked below)
                    ref = _general(c, x1, x2)
                    assert _same(got._node, ref._node), (shape, ci, x2)
        for x2, w2 in others:
            want = np.where(ms[1], v1, w2 if w2 is not None else np.asarray(x2 if not isinstance(x2, xp.Array) else np.asarray(x2)))
            got = np.asarray(xp.where(conds[1], x1s[1], x2))
            assert got.dtype == want.dtype.type(0).dtype or got.dtype == v1.dtype
            np.testing.assert_array_equal(got, want.astype(v1.dtype))


def test_other_operands_keep_the_general_path_and_its_errors():
    a = xp.asarray(np.arange(6.0).reshape(2, 3))
    c = a > 2
    # broadcasting, another dtype, a scalar next to an integer array, a float scalar
    np.testing.assert_array_equal(np.asarray(xp.where(c, a, xp.asarray(np.ones(3)))), np.where(np.arange(6.0).reshape(2, 3) > 2, np.arange(6.0).reshape(2, 3), 1.0))
    r = xp.where(c, a, xp.asarray(np.ones((2, 3), np.float32)))
    assert r.dtype == xp.float64
    ia = xp.asarray(np.arange(6).reshape(2, 3))
    assert xp.where(c, ia, 1).dtype == ia.dtype
    assert xp.where(c, ia, 1.5).dtype == xp.float64
    with pytest.raises(TypeError, match="boolean"):
        xp.where(a, a, 0)
    with pytest.raises(TypeError, match="where"):
        xp.where(c, a, "x")
    with pytest.raises(ValueError):
        xp.where(xp.asarray(np.ones((4, 5), bool)), a, 0.0)
