"""Broadcasting (standard: "Broadcasting").

The rule, restated: align shapes on the right; missing leading dimensions count as 1; two
sizes are compatible when equal or when one of them is 1, and the result takes the other;
anything else must raise. In-place operations must not change the left operand's shape.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from ._support import (
    AT_LEAST_2025, SEQ_TYPE, asx, assert_dtype, assert_equal, assert_shape, only, to_np, xp,
    requires, NUMERIC, arrays,
)


def reference_broadcast(*shapes):
    """The standard's algorithm, written out (not numpy's)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        sizes = [s[i] if -i <= len(s) else 1 for s in shapes]
        result = 1
        for n in sizes:
            if n == 1:
                continue
            if result != 1 and n != result:
                raise ValueError(f"incompatible sizes {sizes}")
            result = n
        out.append(result)
    return tuple(out)


def test_reference_algorithm():
    assert reference_broadcast((8, 1, 6, 1), (7, 1, 5)) == (8, 7, 6, 5)
    assert reference_broadcast((5, 4), (1,)) == (5, 4)
    assert reference_broadcast((15, 3, 5), (15, 1, 5)) == (15, 3, 5)
    assert reference_broadcast((0,), (1,)) == (0,)
    assert reference_broadcast() == ()
    with pytest.raises(ValueError):
        reference_broadcast((3,), (4,))
    with pytest.raises(ValueError):
        reference_broadcast((2, 1), (8, 4, 3))


@given(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4, max_side=3))
def test_elementwise_result_shape(bs):
    s1, s2, s3 = bs.input_shapes
    expected = reference_broadcast(s1, s2, s3)
    assert expected == bs.result_shape
    a, b, c = (xp.ones(s, dtype=xp.int32) for s in (s1, s2, s3))
    out = xp.add(xp.add(a, b), c)
    assert_shape(out, expected)
    assert_equal(to_np(out), np.full(expected, 3, dtype=np.int32))
    assert_shape(a * b, reference_broadcast(s1, s2))
    assert_shape(xp.where(xp.ones(s1, dtype=xp.bool), b, c), expected)


@given(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       st.data())
def test_broadcast_values(bs, data):
    s1, s2 = bs.input_shapes
    a = data.draw(arrays("int16", s1, lo=-100, hi=100))
    b = data.draw(arrays("int16", s2, lo=-100, hi=100))
    assert_equal(to_np(xp.subtract(asx(a), asx(b))), a - b)


@given(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4, max_side=3))
def test_broadcast_arrays(bs):
    shapes = bs.input_shapes
    ins = [xp.zeros(s, dtype=d) for s, d in zip(shapes, (xp.int8, xp.float32, xp.bool))]
    outs = xp.broadcast_arrays(*ins)
    assert type(outs) is SEQ_TYPE, f"broadcast_arrays returns {type(outs).__name__}"
    assert len(outs) == 3
    for x, y in zip(ins, outs):
        assert_shape(y, bs.result_shape)
        assert y.dtype == x.dtype


@given(st.data())
def test_broadcast_to(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    target = data.draw(hnp.broadcastable_shapes(shape, min_dims=len(shape), max_dims=4, min_side=0,
                                                max_side=3).map(
        lambda s: reference_broadcast(s, shape)))
    a = data.draw(arrays("float32", shape))
    out = xp.broadcast_to(asx(a), target)
    assert_shape(out, target)
    assert_dtype(out, "float32")
    assert_equal(to_np(out), np.broadcast_to(a, target))


@requires(AT_LEAST_2025, "broadcast_shapes is 2025.12")
@given(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4, max_side=4))
def test_broadcast_shapes(bs):
    out = xp.broadcast_shapes(*bs.input_shapes)
    assert type(out) is tuple
    assert out == reference_broadcast(*bs.input_shapes)


@requires(AT_LEAST_2025, "broadcast_shapes is 2025.12")
def test_broadcast_shapes_edges():
    assert xp.broadcast_shapes() == ()
    assert xp.broadcast_shapes((2, 3)) == (2, 3)
    assert xp.broadcast_shapes((0, 1), (1, 5)) == (0, 5)
    with pytest.raises(ValueError):
        xp.broadcast_shapes((2, 3), (3, 2))


INCOMPATIBLE = [((3,), (4,)), ((2, 3), (3, 2)), ((2, 1), (8, 4, 3)), ((0,), (2,)),
                ((5, 2), (1, 3))]


@pytest.mark.parametrize("s1,s2", INCOMPATIBLE)
def test_incompatible_shapes_raise(s1, s2):
    a = xp.ones(s1, dtype=xp.float32)
    b = xp.ones(s2, dtype=xp.float32)
    with pytest.raises(Exception):
        xp.add(a, b)
    with pytest.raises(Exception):
        a * b
    with pytest.raises(Exception):
        xp.broadcast_arrays(a, b)


@pytest.mark.parametrize("shape,target", [((3,), (4,)), ((2, 3), (3,)), ((2,), (2, 3)),
                                          ((2, 1), (3, 1))])
def test_broadcast_to_incompatible_raises(shape, target):
    with pytest.raises(Exception):
        xp.broadcast_to(xp.ones(shape, dtype=xp.int32), target)


@given(st.data())
def test_in_place_broadcasts_right_operand(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3))
    other = data.draw(hnp.broadcastable_shapes(shape, max_dims=len(shape), min_side=0,
                                               max_side=3).filter(
        lambda s: reference_broadcast(shape, s) == shape))
    a = data.draw(arrays("int32", shape, lo=-1000, hi=1000))
    b = data.draw(arrays("int32", other, lo=-1000, hi=1000))
    x = asx(a)
    x += asx(b)
    assert_shape(x, shape)
    assert_equal(to_np(x), a + b)


@given(st.sampled_from(only(NUMERIC)))
def test_zero_dim_broadcasts(name):
    z = xp.ones((), dtype=getattr(xp, name))
    y = xp.ones((2, 0, 3), dtype=getattr(xp, name))
    assert_shape(z + y, (2, 0, 3))
    assert_shape(z * z, ())
