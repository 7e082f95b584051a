"""Manipulation functions (standard: "Manipulation Functions"); numpy is the oracle."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from ._support import (
    ALL, AT_LEAST_2025, arrays, asx, assert_dtype, assert_equal, assert_shape, only, shapes,
    to_np, xp,
)

dtypes = st.sampled_from(only(ALL))


def _draw(data, name, shape):
    a = data.draw(arrays(name, shape))
    return a, asx(a)


@given(dtypes, st.data())
def test_concat(name, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.integers(1, 3))
    ins = []
    for _ in range(n):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        ins.append(data.draw(arrays(name, tuple(s))))
    out = xp.concat([asx(a) for a in ins], axis=axis)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.concatenate(ins, axis=axis))
    flat = xp.concat(tuple(asx(a) for a in ins), axis=None)
    assert_equal(to_np(flat), np.concatenate([a.ravel() for a in ins]))


def test_concat_promotes():
    out = xp.concat([xp.ones((2,), dtype=xp.int8), xp.ones((1,), dtype=xp.int32)])
    assert_dtype(out, "int32")
    assert_shape(out, (3,))


@given(dtypes, st.data())
def test_stack(name, data):
    shape = data.draw(shapes(min_dims=0, max_dims=3, max_side=3))
    n = data.draw(st.integers(1, 3))
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    ins = [data.draw(arrays(name, shape)) for _ in range(n)]
    out = xp.stack([asx(a) for a in ins], axis=axis)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.stack(ins, axis=axis))


@given(dtypes, st.data())
def test_unstack(name, data):
    a, x = _draw(data, name, shapes(min_dims=1, max_dims=3, max_side=3))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    outs = xp.unstack(x, axis=axis)
    assert type(outs) is tuple
    assert len(outs) == a.shape[axis]
    for i, o in enumerate(outs):
        assert_dtype(o, name)
        assert_equal(to_np(o), np.take(a, i, axis=axis))


@given(dtypes, st.data())
def test_expand_dims(name, data):
    a, x = _draw(data, name, shapes(max_dims=3))
    axis = data.draw(st.integers(-a.ndim - 1, a.ndim))
    out = xp.expand_dims(x, axis=axis)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.expand_dims(a, axis))


@pytest.mark.skipif(not AT_LEAST_2025, reason="tuple axis is 2025.12")
@given(dtypes, st.data())
def test_expand_dims_tuple(name, data):
    a, x = _draw(data, name, shapes(max_dims=2))
    m = a.ndim + 2
    axes = data.draw(st.lists(st.integers(-m, m - 1), min_size=2, max_size=2).filter(
        lambda ax: len({v % m for v in ax}) == 2))
    out = xp.expand_dims(x, axis=tuple(axes))
    assert_equal(to_np(out), np.expand_dims(a, tuple(axes)))


def test_expand_dims_bad_axis_raises():
    with pytest.raises((IndexError, ValueError)):
        xp.expand_dims(xp.ones((2, 3)), axis=4)


@given(dtypes, st.data())
def test_flip(name, data):
    a, x = _draw(data, name, shapes(max_dims=3))
    if a.ndim:
        axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1),
                                   st.lists(st.integers(0, a.ndim - 1), unique=True,
                                            max_size=a.ndim).map(tuple)))
    else:
        axis = None
    out = xp.flip(x, axis=axis)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.flip(a, axis=axis))
    assert_equal(to_np(xp.flip(x)), np.flip(a))


@given(dtypes, st.data())
def test_permute_dims(name, data):
    a, x = _draw(data, name, shapes(max_dims=4))
    axes = tuple(data.draw(st.permutations(range(a.ndim))))
    out = xp.permute_dims(x, axes)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.transpose(a, axes))


@given(dtypes, st.data())
def test_moveaxis(name, data):
    a, x = _draw(data, name, shapes(min_dims=1, max_dims=4))
    k = data.draw(st.integers(1, a.ndim))
    src = data.draw(st.lists(st.integers(-a.ndim, a.ndim - 1), min_size=k, max_size=k).filter(
        lambda s: len({v % a.ndim for v in s}) == k))
    dst = data.draw(st.lists(st.integers(-a.ndim, a.ndim - 1), min_size=k, max_size=k).filter(
        lambda s: len({v % a.ndim for v in s}) == k))
    out = xp.moveaxis(x, tuple(src), tuple(dst))
    assert_equal(to_np(out), np.moveaxis(a, src, dst))
    out1 = xp.moveaxis(x, src[0], dst[0])
    assert_equal(to_np(out1), np.moveaxis(a, src[0], dst[0]))


@given(dtypes, st.data())
def test_reshape(name, data):
    a, x = _draw(data, name, shapes(max_dims=3, max_side=4))
    size = a.size
    # a target shape of the same size, maybe with one -1
    dims = data.draw(st.lists(st.integers(1, 4), max_size=3).filter(
        lambda d: size % max(math.prod(d), 1) == 0 and (size or not d)))
    target = dims + ([size // math.prod(dims)] if size else [0])
    target = data.draw(st.permutations(target))
    if size and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(target) - 1))
        given_shape = list(target)
        given_shape[i] = -1
    else:
        given_shape = list(target)
    out = xp.reshape(x, tuple(given_shape))
    assert_dtype(out, name)
    assert_equal(to_np(out), a.reshape(target))
    assert_equal(to_np(xp.reshape(x, tuple(given_shape), copy=True)), a.reshape(target))


def test_reshape_bad_size_raises():
    with pytest.raises(Exception):
        xp.reshape(xp.ones((2, 3)), (4, 2))


@given(dtypes, st.data())
def test_roll(name, data):
    a, x = _draw(data, name, shapes(max_dims=3))
    if a.ndim and data.draw(st.booleans()):
        axes = data.draw(st.lists(st.integers(0, a.ndim - 1), min_size=1, max_size=a.ndim,
                                  unique=True))
        shifts = data.draw(st.lists(st.integers(-6, 6), min_size=len(axes),
                                    max_size=len(axes)))
        out = xp.roll(x, tuple(shifts), axis=tuple(axes))
        expected = np.roll(a, shifts, axis=axes)
        out1 = xp.roll(x, shifts[0], axis=axes[0])
        assert_equal(to_np(out1), np.roll(a, shifts[0], axis=axes[0]))
    else:
        shift = data.draw(st.integers(-6, 6))
        out = xp.roll(x, shift)
        expected = np.roll(a, shift)
    assert_dtype(out, name)
    assert_equal(to_np(out), expected)


@given(dtypes, st.data())
def test_squeeze(name, data):
    a, x = _draw(data, name, shapes(min_dims=1, max_dims=4, max_side=3))
    ones = [i for i, n in enumerate(a.shape) if n == 1]
    assume(ones)
    axes = data.draw(st.lists(st.sampled_from(ones), min_size=1, unique=True))
    out = xp.squeeze(x, axis=tuple(axes))
    assert_equal(to_np(out), np.squeeze(a, axis=tuple(axes)))
    out1 = xp.squeeze(x, axis=axes[0] - a.ndim)
    assert_equal(to_np(out1), np.squeeze(a, axis=axes[0]))


def test_squeeze_non_singleton_raises():
    with pytest.raises(ValueError):
        xp.squeeze(xp.ones((2, 3)), axis=0)


@given(dtypes, st.data())
def test_tile(name, data):
    a, x = _draw(data, name, shapes(max_dims=3, max_side=3))
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4)))
    out = xp.tile(x, reps)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.tile(a, reps))


@given(dtypes, st.data())
def test_repeat(name, data):
    a, x = _draw(data, name, shapes(max_dims=3, max_side=3))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))) if a.ndim else None
    n = a.size if axis is None else a.shape[axis]
    if data.draw(st.booleans()):
        r = data.draw(st.integers(0, 3))
        out = xp.repeat(x, r, axis=axis)
        expected = np.repeat(a, r, axis=axis)
    else:
        reps = np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
                          dtype=np.int64)
        out = xp.repeat(x, asx(reps), axis=axis)
        expected = np.repeat(a, reps, axis=axis)
    assert_dtype(out, name)
    assert_equal(to_np(out), expected)


@given(dtypes, st.data())
def test_broadcast_to_and_matrix_transpose(name, data):
    a, x = _draw(data, name, shapes(min_dims=2, max_dims=4, max_side=3))
    assert_equal(to_np(xp.matrix_transpose(x)), np.swapaxes(a, -1, -2))
    assert_equal(to_np(x.mT), np.swapaxes(a, -1, -2))
