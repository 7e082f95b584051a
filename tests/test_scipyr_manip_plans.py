"""moveaxis and broadcast_to look their checks, permutation and view step up by their arguments
(`_manipulation_functions._moves`, `_broadcast_plans`): the same views, nodes and strides as the
path that computes them, numpy's aliasing (writes through the view reach the base; broadcast
views stay read-only), the same errors after an entry was kept (a float or numpy integer equal
to a kept int is never taken for it), and numpy's values in both tiers. moveaxis that moves no
axis answers x itself, as reshape to x's own shape does."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _manipulation_functions as mf
from lazyarray._array_object import _View
from graph_compare import same_nodes


def _bases():
    v = np.arange(24.0).reshape(2, 3, 4)
    yield v, xp.asarray(v)                       # a leaf
    yield v, xp.asarray(v) * 1                   # pending
    w = np.arange(24.0).reshape(4, 3, 2)
    yield np.permute_dims(w, (2, 1, 0)), xp.permute_dims(xp.asarray(w), (2, 1, 0))  # a view


MOVES = [(0, -1), (-1, 0), (1, 2), ((0,), (-1,)), ((0, 1), (1, 0)), ([0, 2], [2, 0]), (-1, -1),
         (0, 0), ((0, 1, 2), (0, 1, 2)), ((2, 0), (0, 2))]


@pytest.mark.usefixtures("both_tiers")
@pytest.mark.parametrize("src, dst", MOVES, ids=str)
def test_moveaxis_as_computed_and_as_numpy(src, dst):
    for v, a in _bases():
        mf._moves.clear()
        for _ in range(3):
            got = xp.moveaxis(a, src, dst)
            saved = dict(mf._moves)
            mf._moves.clear()
            ref = xp.moveaxis(a, src, dst)
            mf._moves.update(saved)
            want = np.moveaxis(v, src, dst)
            if want.shape == v.shape and np.array_equal(want.strides, v.strides):
                assert got is a and ref is a  # no axis moves: x itself
            else:
                assert type(got) is _View and same_nodes(got._node, ref._node)
                assert got._strides == ref._strides and got._step is ref._step or (
                    got._step.perm == ref._step.perm)
            np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("src, dst", [(0, -1), (-1, -1), ((0, 1), (1, 0))], ids=str)
def test_moveaxis_aliases_as_numpy(src, dst):
    a = np.arange(24.0).reshape(2, 3, 4)
    b = xp.asarray(a)
    va, vb = np.moveaxis(a, src, dst), xp.moveaxis(b, src, dst)
    va[(0,) * va.ndim] = -1.0
    vb[(0,) * vb.ndim] = -1.0
    va += 100.0
    vb += 100.0
    np.testing.assert_array_equal(np.asarray(b), a)
    np.testing.assert_array_equal(np.asarray(vb), va)
    a[1] = -5.0
    b[1] = -5.0
    np.testing.assert_array_equal(np.asarray(vb), va)


def test_moveaxis_errors_after_a_kept_entry():
    x = xp.asarray(np.ones((2, 3)))
    xp.moveaxis(x, 0, 1), xp.moveaxis(x, 1, 1)
    for _ in range(2):
        with pytest.raises(TypeError):
            xp.moveaxis(x, 0.0, 1)   # (0.0 == 0 as a key: never taken for it)
        with pytest.raises(TypeError):
            xp.moveaxis(x, 1.0, 1.0)
        with pytest.raises(IndexError):
            xp.moveaxis(x, 0, 2)
        with pytest.raises(ValueError):
            xp.moveaxis(x, (0, 1), (1,))
        with pytest.raises(ValueError):
            xp.moveaxis(x, (0, 0), (1, 0))
    # numpy integers act as their ints (the computed path), lists as tuples
    assert xp.moveaxis(x, np.int64(0), np.int32(1)).shape == (3, 2)
    assert xp.moveaxis(x, [0], [1]).shape == (3, 2)
    assert all(isinstance(k[0], (int, tuple)) and not isinstance(k[0], np.integer) for k in mf._moves)


SHAPES = [((3,), (2, 3)), ((3,), (3,)), ((1, 3), (4, 3)), ((2, 1), (2, 5)), ((), (2, 2)), ((), ()),
          ((2, 1, 3), (4, 2, 6, 3)), ((1,), (0,))]


@pytest.mark.usefixtures("both_tiers")
@pytest.mark.parametrize("shape, target", SHAPES, ids=str)
def test_broadcast_to_as_computed_and_as_numpy(shape, target):
    v = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    operands = [xp.asarray(v), xp.asarray(v) * 1]
    if len(shape) == 2:
        operands.append(xp.asarray(np.ascontiguousarray(v.T)).T)
    for a in operands:
        mf._broadcast_plans.clear()
        for t in (target, tuple(np.int64(n) for n in target), list(target), target):
            got = xp.broadcast_to(a, t)
            saved = dict(mf._broadcast_plans)
            mf._broadcast_plans.clear()
            ref = mf._broadcast_view(a, tuple(target), "broadcast_to")  # the computed view
            mf._broadcast_plans.update(saved)
            assert type(got) is _View and got._strides == ref._strides
            assert same_nodes(got._node, ref._node) or got._node is ref._node
            np.testing.assert_array_equal(np.asarray(got), np.broadcast_to(v, target))
            with pytest.raises(ValueError, match="read-only"):
                got[...] = 1.0


def test_broadcast_to_errors_after_a_kept_entry():
    x = xp.asarray(np.ones(3))
    xp.broadcast_to(x, (2, 3))
    for _ in range(2):
        with pytest.raises(TypeError):
            xp.broadcast_to(x, (2.0, 3))   # ((2.0, 3) == (2, 3) as a key: never taken for it)
        with pytest.raises(ValueError):
            xp.broadcast_to(x, (2, 4))
        with pytest.raises(ValueError):
            xp.broadcast_to(x, ())
        with pytest.raises(TypeError):
            xp.broadcast_to(np.ones(3), (2, 3))


def test_broadcast_view_shows_later_base_writes():
    a = np.arange(3.0)
    b = xp.asarray(a)
    va, vb = np.broadcast_to(a, (2, 3)), xp.broadcast_to(b, (2, 3))
    a[1] = -5.0
    b[1] = -5.0
    np.testing.assert_array_equal(np.asarray(vb), va)
