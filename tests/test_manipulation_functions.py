"""Manipulation functions against numpy: the reshaping family, concat/stack, and flip, roll,
moveaxis, repeat, tile, unstack; errors at the call; repeat's sync only for array repeats."""
import inspect

import numpy as np
import pytest

import lazyarray as xp

A = np.arange(24, dtype=np.int32).reshape(2, 3, 4)

def _bare_signature(f):
    """f's parameters (names, kinds, defaults) without annotations (test_annotations checks those)."""
    s = inspect.signature(f)
    return s.replace(parameters=[p.replace(annotation=inspect.Parameter.empty) for p in s.parameters.values()],
                     return_annotation=inspect.Signature.empty)



def _eq(got, expected):
    got = np.asarray(got)
    assert got.shape == np.shape(expected)
    np.testing.assert_array_equal(got, expected)


@pytest.fixture
def x():
    return xp.asarray(A)


def test_reshape_family(x):
    _eq(xp.reshape(x, (4, -1)), A.reshape(4, -1))
    _eq(xp.permute_dims(x, (2, -3, 1)), A.transpose(2, 0, 1))
    _eq(xp.matrix_transpose(x), A.swapaxes(-1, -2))
    _eq(xp.expand_dims(x, axis=(0, -1)), A[None, ..., None])
    _eq(xp.squeeze(xp.expand_dims(x, axis=1), 1), A)
    _eq(xp.broadcast_to(xp.asarray(A[:, :1]), (5, 2, 3, 4)), np.broadcast_to(A[:, :1], (5, 2, 3, 4)))
    a, b = xp.broadcast_arrays(xp.asarray(np.arange(3)), xp.asarray(np.ones((2, 1))))
    assert a.shape == b.shape == (2, 3)


def test_concat_and_stack_promote(x):
    y = xp.asarray(A.astype(np.float32))
    _eq(xp.concat([x, y], axis=1), np.concatenate([A, A], axis=1).astype(np.float64))
    _eq(xp.concat([x, y], axis=None), np.concatenate([A.ravel(), A.ravel()]).astype(np.float64))
    _eq(xp.stack([x, x], axis=-1), np.stack([A, A], axis=-1))


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (1,)])
def test_flip(x, axis):
    _eq(xp.flip(x, axis=axis), np.flip(A, axis=axis))


@pytest.mark.parametrize("shift,axis", [(5, None), (-7, None), (1, 0), (-2, 2), (10, 1),
                                        ((1, -5), (0, 2)), ((2, 3), (1, 1)), (2, (0, 1))])
def test_roll(x, shift, axis):
    _eq(xp.roll(x, shift, axis=axis), np.roll(A, shift, axis=axis))


def test_roll_zero_d_and_empty():
    _eq(xp.roll(xp.asarray(3.5), 4), np.float64(3.5))
    _eq(xp.roll(xp.asarray(np.zeros((0, 2))), 3, axis=0), np.zeros((0, 2)))


@pytest.mark.parametrize("source,destination", [(0, -1), (-1, 0), ((0, 1), (2, 0)), ((2, 0), (0, 1))])
def test_moveaxis(x, source, destination):
    _eq(xp.moveaxis(x, source, destination), np.moveaxis(A, source, destination))


@pytest.mark.parametrize("reps", [(2,), (1, 3), (2, 1, 1, 2), (0, 1), (3, 2, 1)])
def test_tile(x, reps):
    _eq(xp.tile(x, reps), np.tile(A, reps))


def test_tile_zero_d():
    _eq(xp.tile(xp.asarray(7), (2, 3)), np.tile(7, (2, 3)))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack(x, axis):
    parts = xp.unstack(x, axis=axis)
    assert isinstance(parts, tuple) and len(parts) == A.shape[axis]
    for i, p in enumerate(parts):
        _eq(p, np.take(A, i, axis=axis))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_repeat_int_is_static(fresh, x, axis):
    out = xp.repeat(x, 3, axis=axis)
    assert fresh.executions == 0  # the shape is known without a sync
    _eq(out, np.repeat(A, 3, axis=axis))
    _eq(xp.repeat(x, 0, axis=axis), np.repeat(A, 0, axis=axis))


@pytest.mark.parametrize("repeats,axis", [([2, 0, 3], 1), ([1], 0), ([0, 1, 4, 2], -1),
                                          (list(range(24)), None), ([0, 0], 0)])
def test_repeat_array(fresh, x, repeats, axis):
    r = np.array(repeats, dtype=np.int16)
    out = xp.repeat(x, xp.asarray(r), axis=axis)
    assert fresh.syncs["repeat"] == 1
    _eq(out, np.repeat(A, r, axis=axis))


def test_errors_at_the_call(x):
    with pytest.raises(IndexError):
        xp.flip(x, axis=3)
    with pytest.raises(ValueError):
        xp.flip(x, axis=(0, -3))
    with pytest.raises(ValueError):
        xp.roll(x, (1, 2), axis=0)
    with pytest.raises(ValueError):
        xp.roll(x, (1, 2))
    with pytest.raises(ValueError):
        xp.moveaxis(x, (0, 1), 2)
    with pytest.raises(ValueError):
        xp.moveaxis(x, (0, 0), (1, 2))
    with pytest.raises(IndexError):
        xp.moveaxis(x, 3, 0)
    with pytest.raises(ValueError):
        xp.tile(x, (-1,))
    with pytest.raises(ValueError):
        xp.repeat(x, -1)
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray(np.array([1, 2])), axis=1)
    with pytest.raises(TypeError):
        xp.repeat(x, xp.asarray(np.array([1.0])))
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray(np.array([1, -1, 2])), axis=1)
    with pytest.raises(ValueError):
        xp.unstack(xp.asarray(1.0))
    with pytest.raises(ValueError):
        xp.squeeze(x, 0)
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=5)
    _eq(x, A)  # nothing above touched x


def test_signatures():
    expected = {
        "flip": "(x, /, *, axis=None)",
        "roll": "(x, /, shift, *, axis=None)",
        "moveaxis": "(x, source, destination, /)",
        "repeat": "(x, repeats, /, *, axis=None)",
        "tile": "(x, repetitions, /)",
        "unstack": "(x, /, *, axis=0)",
    }
    for name, sig in expected.items():
        assert str(_bare_signature(getattr(xp, name))) == sig
