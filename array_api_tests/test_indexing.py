"""Indexing (standard: "Indexing", ``__getitem__``/``__setitem__``, "Indexing Functions").

Index strategies are written from the standard's ranges: integers in [-n, n); slice starts
in [-n, n] (below n for negative steps), stops in [-n, n] for positive steps and in
[-n-1, max(0, n-1)] for negative ones; at most one ellipsis; ``None`` anywhere. numpy, which
agrees on all of these, is the oracle.
"""

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from hypothesis.extra import numpy as hnp

from ._support import (
    ALL, NS_NAME, NUMERIC, arrays, asx, assert_dtype, assert_equal, assert_shape, capability,
    elements, only, shapes, to_np, xp,
)

dtypes = st.sampled_from(only(ALL))


@st.composite
def axis_index(draw, n):
    options = ["slice"] + (["int"] if n > 0 else [])
    kind = draw(st.sampled_from(options))
    if kind == "int":
        return draw(st.integers(-n, n - 1))
    step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(lambda k: k != 0)))
    if step is not None and step < 0:
        start = draw(st.one_of(st.none(), st.integers(-n, n - 1))) if n else None
        # the standard allows -n-1 as well (same as omitting it): see the test below
        stop = draw(st.one_of(st.none(), st.integers(-n, max(0, n - 1))))
    else:
        start = draw(st.one_of(st.none(), st.integers(-n, n)))
        stop = draw(st.one_of(st.none(), st.integers(-n, n)))
    return slice(start, stop, step)


@st.composite
def basic_indices(draw, shape, allow_none=True):
    per_axis = [draw(axis_index(n)) for n in shape]
    # an ellipsis may stand for a run of full slices (possibly empty)
    if draw(st.booleans()):
        i = draw(st.integers(0, len(per_axis)))
        j = draw(st.integers(i, len(per_axis)))
        per_axis = per_axis[:i] + [Ellipsis] + per_axis[j:]
    # newaxis (None) anywhere
    for _ in range(draw(st.integers(0, 2 if allow_none else 0))):
        per_axis.insert(draw(st.integers(0, len(per_axis))), None)
    if len(per_axis) == 1 and draw(st.booleans()):
        return per_axis[0]  # a bare index, not a tuple
    return tuple(per_axis)


@given(dtypes, st.data())
def test_getitem_basic(name, data):
    a = data.draw(arrays(name, shapes(max_dims=4, max_side=4)))
    idx = data.draw(basic_indices(a.shape), label="index")
    out = asx(a)[idx]
    assert_dtype(out, name)
    expected = np.asarray(a[idx])
    assert_shape(out, expected.shape)
    assert_equal(to_np(out), expected)


@pytest.mark.xfail(NS_NAME == "array_api_strict", strict=True,
                   reason="array_api_strict refuses stop=-n-1 with a negative step")
def test_negative_step_stop_minus_n_minus_1():
    # "For k < 0, -n - 1 <= j <= max(0, n - 1)" must be supported; j = -n-1 reaches index 0
    a = np.arange(5)
    assert to_np(asx(a)[4:-6:-1]).tolist() == [4, 3, 2, 1, 0]
    assert to_np(asx(a)[:-6:-2]).tolist() == [4, 2, 0]


def test_getitem_rank_rules():
    x = asx(np.arange(24).reshape(2, 3, 4))
    assert x[1, 2, 3].shape == ()           # integers select a 0-d array, not a scalar
    assert int(x[1, 2, 3]) == 23
    assert x[0, ...].shape == (3, 4)
    assert x[..., 0].shape == (2, 3)
    assert x[None, :, None, ...].shape == (1, 2, 1, 3, 4)
    assert x[1:1, :, :].shape == (0, 3, 4)
    assert x[::-1, ::2, 1:].shape == (2, 2, 3)
    z = asx(np.asarray(5.0))
    assert z[()].shape == () and float(z[()]) == 5.0
    assert z[...].shape == ()
    assert z[None].shape == (1,)


def test_getitem_errors():
    x = xp.ones((2, 3))
    with pytest.raises(IndexError):
        x[..., 0, ...]
    with pytest.raises(IndexError):
        x[0, 0, 0]


def test_getitem_too_few_indices_means_trailing_full_slices():
    # the standard says an IndexError "should" (not must) be raised when fewer single-axis
    # indices than axes are given; lazyarray deliberately follows numpy (x[i] is row i), which
    # consumers rely on. This checks that choice: x[0] == x[0, ...].
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = asx(a)
    np.testing.assert_array_equal(np.asarray(x[0]), np.asarray(x[0, ...]))
    np.testing.assert_array_equal(np.asarray(x[1]), a[1])


def test_iteration_over_1d():
    a = np.array([3, 1, 2], dtype=np.int32)
    items = list(asx(a))
    assert len(items) == 3
    for got, want in zip(items, a):
        assert got.shape == () and int(got) == int(want)


@given(dtypes, st.data())
def test_setitem_basic(name, data):
    a = data.draw(arrays(name, shapes(max_dims=3, max_side=4)))
    idx = data.draw(basic_indices(a.shape, allow_none=False), label="index")  # no None here
    target_shape = np.asarray(a[idx]).shape
    expected = a.copy()
    x = asx(a)
    if data.draw(st.booleans()):
        value = data.draw(elements(name, lo=-100, hi=100))
        pyvalue = value.item() if hasattr(value, "item") else value
        expected[idx] = pyvalue
        x[idx] = pyvalue
    else:
        # an array that broadcasts to the selection
        vshape = data.draw(hnp.broadcastable_shapes(target_shape, min_side=0,
                                                    max_dims=len(target_shape)).filter(
            lambda s: np.broadcast_shapes(s, target_shape) == target_shape))
        v = data.draw(arrays(name, vshape))
        expected[idx] = v
        x[idx] = asx(v)
    assert_dtype(x, name)
    assert_shape(x, a.shape)
    assert_equal(to_np(x), expected)


def test_setitem_keeps_dtype_with_scalars():
    x = asx(np.zeros((3,), dtype=np.float32))
    x[0] = 1          # a Python int into a float array
    x[1:] = 2.5
    assert_dtype(x, "float32")
    assert to_np(x).tolist() == [1.0, 2.5, 2.5]
    y = asx(np.zeros((2, 2), dtype=np.int16))
    y[0, :] = 7
    y[..., 1] = -1
    assert_dtype(y, "int16")
    assert to_np(y).tolist() == [[7, -1], [0, -1]]


def test_setitem_does_not_touch_other_handles():
    a = np.arange(4.0)
    x = asx(a)
    y = x[1:3]
    z = x + 0
    x[...] = 0.0
    assert to_np(z).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert to_np(x).tolist() == [0.0, 0.0, 0.0, 0.0]
    assert y.shape == (2,)


# ---------------------------------------------------------------------------------------------
# integer array indexing

@st.composite
def integer_array_indices(draw, shape):
    """A tuple of len(shape) integers and integer arrays whose shapes broadcast."""
    bshape = draw(shapes(min_dims=0, max_dims=2, max_side=3))
    out = []
    for n in shape:
        if n == 0:
            # nothing to select on an empty axis: use an empty array
            out.append(np.zeros((0,), dtype=np.int64))
            continue
        if draw(st.booleans()):
            out.append(draw(st.integers(-n, n - 1)))
        else:
            sub = draw(hnp.broadcastable_shapes(bshape, max_dims=len(bshape), min_side=1,
                                                max_side=3))
            out.append(draw(hnp.arrays(np.int64, sub, elements=st.integers(-n, n - 1))))
    arrays_in = [t for t in out if isinstance(t, np.ndarray)]
    if not arrays_in:
        out[0] = np.asarray(out[0], dtype=np.int64)  # at least one array
    try:
        np.broadcast_shapes(*[np.shape(t) for t in out])
    except ValueError:
        assume(False)
    return tuple(out)


@given(st.sampled_from(only(NUMERIC)), st.data())
def test_getitem_integer_arrays(name, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)))
    idx = data.draw(integer_array_indices(a.shape), label="index")
    xidx = tuple(asx(t) if isinstance(t, np.ndarray) else t for t in idx)
    out = asx(a)[xidx]
    expected = a[idx]
    assert_dtype(out, name)
    assert_equal(to_np(out), expected)


def test_getitem_integer_array_duplicates_and_0d():
    a = np.arange(12).reshape(3, 4).astype(np.int32)
    x = asx(a)
    i = asx(np.array([2, 0, 2, -1]))
    j = asx(np.array([1, 1, 3, 0]))
    assert_equal(to_np(x[i, j]), a[[2, 0, 2, -1], [1, 1, 3, 0]])
    # a 0-d integer array is an integer
    assert_equal(to_np(x[asx(np.asarray(1)), 2]), a[1, 2])
    assert x[asx(np.asarray(1)), 2].shape == ()


# ---------------------------------------------------------------------------------------------
# boolean indexing

needs_bool_indexing = pytest.mark.skipif(not capability("boolean indexing"),
                                         reason="namespace reports no boolean indexing")


@needs_bool_indexing
@given(dtypes, st.data())
def test_getitem_boolean_mask(name, data):
    a = data.draw(arrays(name, shapes(min_dims=0, max_dims=3, max_side=4)))
    m = data.draw(st.integers(0, a.ndim))
    mask = data.draw(hnp.arrays(np.bool_, a.shape[:m]))
    out = asx(a)[asx(mask)]
    assert_dtype(out, name)
    assert_equal(to_np(out), a[mask])


@needs_bool_indexing
def test_getitem_zero_dim_boolean():
    a = np.arange(6.0).reshape(2, 3)
    x = asx(a)
    assert x[asx(np.asarray(True))].shape == (1, 2, 3)
    assert x[asx(np.asarray(False))].shape == (0, 2, 3)


@needs_bool_indexing
@given(st.sampled_from(only(NUMERIC)), st.data())
def test_setitem_boolean_mask(name, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, max_side=4)))
    mask = data.draw(hnp.arrays(np.bool_, a.shape))
    value = data.draw(elements(name, lo=-50, hi=50))
    expected = a.copy()
    expected[mask] = value
    x = asx(a)
    x[asx(mask)] = value.item() if hasattr(value, "item") else value
    assert_dtype(x, name)
    assert_equal(to_np(x), expected)
    y = asx(a)
    y[asx(mask)] = asx(np.asarray(value, dtype=name))      # 0-d array value
    assert_equal(to_np(y), expected)


# ---------------------------------------------------------------------------------------------
# take, take_along_axis

@given(dtypes, st.data())
def test_take(name, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    idx = data.draw(hnp.arrays(np.int64, st.integers(0, 5), elements=st.integers(-n, n - 1)))
    out = xp.take(asx(a), asx(idx), axis=axis)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.take(a, idx, axis=axis))
    if a.ndim == 1:
        assert_equal(to_np(xp.take(asx(a), asx(idx))), np.take(a, idx))


@given(dtypes, st.data())
def test_take_along_axis(name, data):
    a = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    ishape = list(a.shape)
    ishape[axis] = data.draw(st.integers(0, 4))
    idx = data.draw(hnp.arrays(np.int64, tuple(ishape), elements=st.integers(-n, n - 1)))
    out = xp.take_along_axis(asx(a), asx(idx), axis=axis)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.take_along_axis(a, idx, axis=axis))
