"""Broadcast operands of a binary function bind their broadcast_in_dim at once from the pair's
memoized plan (`_helpers._apply_broadcast`): node for node what `ops.broadcast_in_dim` builds
from the same plan (a pending `x[:, None]` broadcast from its own operand), and numpy's values
in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _helpers
from lazyarray import _ops as ops
from graph_compare import same_nodes

pytestmark = pytest.mark.usefixtures("both_tiers")


def _reference(node, plan):
    """`_apply_broadcast` by `ops.broadcast_in_dim` (the builder, its identity test and rule)."""
    squeezed, shape, dims, in_place = plan[:4]
    if squeezed is None:
        return ops.broadcast_in_dim(node, shape, dims)
    if node.op is ops.RESHAPE and node.args[0].shape == squeezed:
        return ops.broadcast_in_dim(node.args[0], shape, dims)
    return ops.broadcast_in_dim(node, shape, in_place)


PAIRS = [((6, 1), (6, 4)), ((4,), (6, 4)), ((1, 4), (6, 1)), ((3, 1, 4), (2, 4)), ((0, 3), (1, 3)),
         ((6, 4), (4,)), ((2, 1, 1), (5,)), ((1,), (3, 2))]


def _operands(shape, rng):
    """(array, numpy value) of `shape`: a leaf, a pending node, a pending reshape adding unit
    axes to a vector (`v[:, None]`), a reshape of another shape; all left pending."""
    v = rng.integers(-4, 5, size=shape).astype(np.float32)
    yield xp.asarray(v), v
    yield xp.asarray(v) * 2.0, v * 2.0
    flat = v.ravel()
    if 1 in shape:
        squeezed = tuple(n for n in shape if n != 1) or (1,)
        base = flat.reshape(squeezed)
        yield xp.reshape(xp.asarray(base) + 1.0, shape), base.reshape(shape) + 1.0
    yield xp.reshape(xp.asarray(flat) - 1.0, shape), v - 1.0


@pytest.mark.parametrize("s1, s2", PAIRS)
def test_broadcast_operands_are_the_builders_nodes(s1, s2):
    count1, count2 = len(list(_operands(s1, np.random.default_rng(1)))), len(list(_operands(s2, np.random.default_rng(1))))
    for first in (True, False):  # a plan made at this call, then the memoized one
        if first:
            _helpers._pair_broadcasts.clear()
        for i in range(count1):
            for j in range(count2):  # (fresh operands each time: a read realizes them)
                x1, v1 = list(_operands(s1, np.random.default_rng(1)))[i]
                x2, v2 = list(_operands(s2, np.random.default_rng(2)))[j]
                n1, n2 = x1._node, x2._node
                shape, plan1, plan2 = _helpers.pair_broadcast(s1, s2)
                got = _helpers.binary_operands(x1, x2, "add")
                want1 = n1 if plan1 is None else _reference(n1, plan1)
                want2 = n2 if plan2 is None else _reference(n2, plan2)
                assert same_nodes(got[0], want1) and same_nodes(got[1], want2)
                assert got[3] == np.broadcast_shapes(s1, s2)
                np.testing.assert_array_equal(np.asarray(x1 + x2), v1 + v2)


@pytest.mark.parametrize("s1, s2", PAIRS)
def test_broadcast_functions_give_numpys_values(s1, s2):
    rng = np.random.default_rng(2)
    a = rng.integers(-4, 5, size=s1).astype(np.float32)
    b = rng.integers(1, 5, size=s2).astype(np.float32)
    pa = lambda: xp.reshape(xp.asarray(a.ravel()) * 1.0, s1)
    pb = lambda: xp.asarray(b) + 0.0
    np.testing.assert_array_equal(np.asarray(pa() == pb()), a == b)
    np.testing.assert_array_equal(np.asarray(pa() / pb()), a / b)
    np.testing.assert_array_equal(np.asarray(xp.where(pa() > 0, pa(), pb())), np.where(a > 0, a, b))
    np.testing.assert_array_equal(np.asarray(xp.maximum(pa(), pb())), np.maximum(a, b))


def test_kmeans_step_values():
    rng = np.random.default_rng(3)
    lab = rng.integers(0, 4, size=50)
    onehot = xp.astype(xp.asarray(lab)[:, None] == xp.arange(4)[None, :], xp.float32)
    np.testing.assert_array_equal(np.asarray(onehot), (lab[:, None] == np.arange(4)[None, :]).astype(np.float32))


def test_broadcast_errors_unchanged():
    with pytest.raises(ValueError, match="cannot be broadcast"):
        xp.asarray(np.ones((3, 2))) + xp.asarray(np.ones((4, 2)))
