"""The generic namespace functions' recording fast paths (reshape's looked-up plan, x[i] of a
1-D array, basic reads by their kept recipe, any/all over every axis, ...) build the graph the
general path builds: the same ops, attributes, shapes and dtypes on the same operands, values
equal to numpy's, views that still see and make writes, and the same errors for bad input."""
import numpy as np
import pytest

import lazyarray as xp
from graph_compare import same_graph
from lazyarray import _basic_indexing, _manipulation_functions
from lazyarray._array_object import _View
from lazyarray._basic_indexing import _Axis, slice_read

RNG = np.random.default_rng(11)


def pending_vector(n=100):
    base = xp.asarray(np.arange(float(n)))
    return base * 2.0 + 1.0, np.arange(float(n)) * 2.0 + 1.0


# ---------------------------------------------------------------- reshape


@pytest.mark.parametrize("src,shape", [((100,), (-1,)), ((100,), (10, 10)), ((100,), (4, -1, 5)),
                                       ((6, 10), (60,)), ((6, 10), (-1, 2)), ((6, 10), (6, 10)),
                                       ((1, 6), (6, 1)), ((0, 3), (3, 0)), ((), (1, 1)), ((4,), (2, 2))])
def test_reshape_fast_path_is_the_general_path(src, shape):
    a = RNG.standard_normal(src)
    for _ in range(2):  # the second call takes the memoized plan
        x = xp.asarray(a) * 2.0
        fast = xp.reshape(x, shape)
        general = _manipulation_functions._reshape_general(x, list(shape), None)
        assert type(fast) is type(general)
        assert same_graph(fast._node, general._node)
        if type(fast) is _View:
            assert fast._strides == general._strides and fast._step.shape == general._step.shape
        np.testing.assert_array_equal(np.asarray(fast), np.reshape(a * 2.0, shape))


def test_reshape_of_a_view_copies_where_numpy_copies():
    a = RNG.standard_normal((4, 6))
    for _ in range(2):
        x = xp.asarray(a.copy())
        t = x.T  # (6, 4) with strides (1, 6): numpy copies for (24,), views for (6, 2, 2)
        flat = xp.reshape(t, (24,))
        assert type(flat) is not _View
        assert same_graph(flat._node, _manipulation_functions._reshape_general(t, (24,), None)._node)
        with pytest.raises(ValueError, match="cannot be viewed"):
            xp.reshape(t, (24,), copy=False)
        v = xp.reshape(t, (6, 2, 2))
        assert type(v) is _View
        v[0, 0, 0] = 100.0  # a view: the write reaches x
        assert np.asarray(x)[0, 0] == 100.0
        np.testing.assert_array_equal(np.asarray(flat), a.T.reshape(24))


def test_reshape_views_see_and_make_writes():
    for _ in range(2):
        x = xp.asarray(np.arange(12.0))
        v = xp.reshape(x, (3, 4))
        x[5] = -1.0
        assert np.asarray(v)[1, 1] == -1.0
        v[2, 3] = 7.0
        assert np.asarray(x)[11] == 7.0


@pytest.mark.parametrize("shape,exc,match", [
    ((-1, -1), ValueError, "at most one -1"), ((7, -1), ValueError, "cannot reshape"),
    ((0, -1), ValueError, "cannot reshape"), ((11,), ValueError, "cannot reshape"),
    ((-2, -6), ValueError, "cannot reshape"), ((3.0, 4), TypeError, None), ((True, 11), ValueError, "cannot reshape")])
def test_reshape_errors_unchanged(shape, exc, match):
    x = xp.asarray(np.arange(12.0))
    xp.reshape(x, (3, 4))  # a plan exists for this array's shape
    for _ in range(2):
        with pytest.raises(exc, match=match) as fast:
            xp.reshape(x, shape)
        with pytest.raises(exc) as general:
            _manipulation_functions._reshape_general(x, shape, None)
        assert str(fast.value) == str(general.value)


def test_reshape_bool_entries_act_as_ints_as_before():
    x = xp.asarray(np.arange(4.0))
    np.testing.assert_array_equal(np.asarray(xp.reshape(x, (True, 4))), np.arange(4.0).reshape(1, 4))
    with pytest.raises(TypeError):
        xp.reshape(np.arange(4.0), (4,))


# ---------------------------------------------------------------- basic reads


@pytest.mark.parametrize("i", [0, 5, -1, -100, 99])
def test_element_of_a_pending_vector_is_the_general_path(i):
    y, ref = pending_vector()
    # a few exact ops on leaves: the element is computed when indexed (`_host_sync.element_now`),
    # a host value equal to the general path's graph's
    computed = y[i]
    general = slice_read(y._node, [_Axis(i % 100, 1, 1, 1, True)], ())
    assert computed._node.op is None
    assert float(computed) == float(xp.Array._wrap(general, y.device)) == ref[i]
    z = xp.exp(y * 0.01)  # (an op the host path leaves to the read: the recorded nodes)
    fast = z[i]
    general = slice_read(z._node, [_Axis(i % 100, 1, 1, 1, True)], ())
    assert same_graph(fast._node, general)
    assert float(fast) == float(xp.Array._wrap(general, z.device))


def test_element_errors_and_the_one_element_vector():
    y, _ = pending_vector()
    for i in (100, -101):
        with pytest.raises(IndexError, match="out of bounds for axis 0 with size 100"):
            y[i]
    one = xp.asarray(np.array([3.0])) * 2.0
    assert same_graph(one[0]._node, slice_read(one._node, [_Axis(0, 1, 1, 1, True)], ()))
    assert float(one[-1]) == 6.0


@pytest.mark.parametrize("key", [1, (slice(None), 2), (1, 2), (-1, slice(2, 7)), slice(2, 5), (slice(1, 3), None),
                                 (None, 3), (slice(None), slice(None, None, 2)), (slice(None, None, -1), 0),
                                 (slice(3, 3),), (Ellipsis, 1), ()])
def test_basic_reads_are_the_general_path(key):
    a = RNG.standard_normal((6, 10))
    for _ in range(2):  # the second call takes the kept plan and recipe
        x = xp.asarray(a) + 1.0
        fast = x[key]
        general = _basic_indexing.read_basic(x, key)
        assert same_graph(fast._node, general)
        np.testing.assert_array_equal(np.asarray(fast), (a + 1.0)[key])


def test_basic_read_views_see_and_make_writes():
    a = np.arange(60.0).reshape(6, 10)
    for _ in range(2):
        x = xp.asarray(a.copy())
        col, row, e = x[:, 2], x[1], x[1, 2]
        x[1, 2] = -5.0
        assert np.asarray(col)[1] == -5.0 and np.asarray(row)[2] == -5.0
        assert float(e) == 12.0  # an integer for every axis: a copy
        col[4] = 9.0
        assert np.asarray(x)[4, 2] == 9.0


# ---------------------------------------------------------------- any / all


@pytest.mark.parametrize("fn", [xp.any, xp.all])
@pytest.mark.parametrize("shape,dtype", [((100,), xp.float64), ((6, 10), xp.int32), ((), xp.float64),
                                         ((4, 3), xp.bool), ((), xp.bool), ((0, 3), xp.float32)])
def test_truth_over_every_axis_is_the_general_path(fn, shape, dtype):
    a = (RNG.standard_normal(shape) > 0.3).astype(np.float64)
    x = xp.astype(xp.asarray(a) * 3.0, dtype)
    fast = fn(x)
    general = fn(x, axis=tuple(range(x.ndim)))  # an explicit axis: the general path
    assert same_graph(fast._node, general._node)
    assert bool(fast) == bool(getattr(np, fn.__name__)(np.asarray(a) * 3.0))


def test_any_of_the_probe_and_its_errors():
    y, ref = pending_vector()
    assert bool(xp.any(xp.reshape(y, (-1,))[0])) == bool(np.any(ref.reshape(-1)[0]))
    with pytest.raises(TypeError, match="must be a lazyarray array"):
        xp.any(np.ones(3))
    with pytest.raises(IndexError, match="out of bounds"):
        xp.all(y, axis=1)
    v = xp.reshape(y, (10, 10))  # a view
    assert same_graph(xp.all(v)._node, xp.all(v, axis=(0, 1))._node)


# ---------------------------------------------------------------- constants, zeros, reductions


@pytest.mark.parametrize("value", [0, 1, -7, 2**40, 1.5, -3.0, float("nan"), float("inf"), 0.0, -0.0, 1e300])
@pytest.mark.parametrize("dtype", [xp.float64, xp.float32, xp.int32, xp.complex64])
@pytest.mark.parametrize("shape", [(), (3,), (2, 0)])
def test_memoized_constants_are_the_numpy_built_ones(value, dtype, shape):
    from lazyarray import _ops as ops
    if dtype is xp.int32 and (isinstance(value, float) and not np.isfinite(value) or abs(value) > 2**31):
        return  # (numpy's cast of these is undefined or raises: not a constant anyone builds)
    if value == 1e300 and dtype.bits <= 64 and dtype is not xp.float64:
        return  # (inf in float32: numpy warns of the overflow)
    for _ in range(2):  # the second call takes the memoized attributes
        fast = ops.constant(value, dtype, shape)
        general = ops.constant(np.asarray(value), dtype, shape)  # a numpy value: the general path
        assert same_graph(fast, general)
        assert bytes(fast.args[0].attrs.value if shape else fast.attrs.value) == \
            np.asarray(value, dtype=dtype.np).tobytes()


def test_int_constant_out_of_range_raises_every_call():
    from lazyarray import _ops as ops
    for _ in range(2):
        with pytest.raises(OverflowError):
            ops.constant(300, xp.uint8, (2,))


@pytest.mark.parametrize("shape,exc", [((-1,), ValueError), ((2.0,), TypeError), ((2, -3), ValueError),
                                       ((True,), None), (3, None), ((np.int64(2), 3), None), ([2, 3], None)])
def test_zeros_shapes_and_errors(shape, exc):
    if exc is not None:
        with pytest.raises(exc):
            xp.zeros(shape)
        return
    expected = tuple(int(s) for s in np.atleast_1d(shape))  # (operator.index: True is 1)
    np.testing.assert_array_equal(np.asarray(xp.zeros(shape)), np.zeros(expected))
    assert same_graph(xp.zeros(shape)._node, xp.zeros(expected)._node)


@pytest.mark.parametrize("fn", ["mean", "max", "min", "sum"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
def test_reductions_of_views_equal_numpy(fn, axis):
    a = RNG.standard_normal((6, 10))
    a[2, 3] = np.nan if fn in ("max", "min") else a[2, 3]
    x = xp.asarray(a.copy())
    v = xp.reshape(x, (6, 10))[1:5]  # a view of a view
    np.testing.assert_array_equal(np.asarray(getattr(xp, fn)(v, axis=axis)), getattr(np, fn)(a[1:5], axis=axis))
    x[3, 3] = 100.0  # the view reads its base again
    b = a.copy()
    b[3, 3] = 100.0
    np.testing.assert_array_equal(np.asarray(getattr(xp, fn)(v, axis=axis, keepdims=True)),
                                  getattr(np, fn)(b[1:5], axis=axis, keepdims=True))


def test_reduction_errors_unchanged():
    with pytest.raises(TypeError, match="mean: expected a floating-point array, got .*int64"):
        xp.mean(xp.asarray([1, 2]))
    with pytest.raises(TypeError, match="max: expected a real numeric array, got .*complex128"):
        xp.max(xp.asarray([1j]))
    with pytest.raises(ValueError, match="min of an empty selection has no identity"):
        xp.min(xp.zeros((3, 0)), axis=1)
    with pytest.raises(IndexError, match="out of bounds"):
        xp.max(xp.zeros((3,)), axis=1)
    assert bool(xp.max(xp.asarray([True, False]))) and not bool(xp.min(xp.asarray([True, False])))
    assert np.isnan(float(xp.mean(xp.zeros((0,)))))


# ---------------------------------------------------------------- where, concat, stack, astype


@pytest.mark.parametrize("cs,s1,s2", [((6, 10), (6, 10), (6, 10)), ((6, 10), (6, 10), ()), ((10,), (6, 10), ()),
                                      ((6, 1), (10,), (6, 10)), ((), (6, 10), (6, 10)), ((), (), ()),
                                      ((6, 10), (), ())])
def test_where_builds_the_broadcasts_of_the_general_formulation(cs, s1, s2):
    from lazyarray import _ops as ops
    from lazyarray._helpers import binary_operands, broadcast_shapes
    c, a, b = RNG.standard_normal(cs) > 0, RNG.standard_normal(s1), RNG.standard_normal(s2)
    xc, xa, xb = xp.asarray(c), xp.asarray(a) * 1.0, xp.asarray(b) * 1.0
    for _ in range(2):
        fast = xp.where(xc, xa, xb)
        n1, n2, _, shape, _ = binary_operands(xa, xb, "where")
        shape = broadcast_shapes(xc.shape, shape)
        general = ops.select(*[n if not n.shape else ops.broadcast_to(n, shape) for n in (xc._node, n1, n2)])
        assert same_graph(fast._node, general)
        np.testing.assert_array_equal(np.asarray(fast), np.where(c, a, b))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        xp.where(xp.asarray(np.ones((3, 2)) > 0), xp.ones((4, 2)), 0.0)


def test_concat_and_stack_equal_numpy_and_raise_as_before():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3))
    xa, xb = xp.asarray(a), xp.astype(xp.asarray(b), xp.float32)
    v = xp.reshape(xa, (3, 2))  # a view among the operands
    np.testing.assert_array_equal(np.asarray(xp.concat([xa, xb])), np.concatenate([a, b.astype(np.float32)]))
    np.testing.assert_array_equal(np.asarray(xp.concat([xa, v], axis=None)), np.concatenate([a.ravel(), a.ravel()]))
    np.testing.assert_array_equal(np.asarray(xp.concat([xa, xp.zeros((2, 0))], axis=-1)), a)
    np.testing.assert_array_equal(np.asarray(xp.stack([xa, xa * 2.0], axis=-1)), np.stack([a, a * 2.0], axis=-1))
    np.testing.assert_array_equal(np.asarray(xp.stack([v, v])), np.stack([a.reshape(3, 2)] * 2))
    with pytest.raises(ValueError, match=r"concat: shapes \[\(2, 3\), \(3, 2\)\] differ off axis 0"):
        xp.concat([xa, v])
    with pytest.raises(ValueError, match="0-D arrays cannot be concatenated"):
        xp.concat([xp.asarray(1.0), xp.asarray(2.0)])
    with pytest.raises(ValueError, match=r"stack: shapes differ: \[\(2, 3\), \(3, 2\)\]"):
        xp.stack([xa, v])
    with pytest.raises(ValueError, match="needs at least one array"):
        xp.stack([])
    with pytest.raises(TypeError, match="no promotion rule"):
        xp.concat([xp.asarray([[1, 2, 3]]), xp.asarray([[1, 2, 3]], dtype=xp.uint64)])
    with pytest.raises(TypeError, match="must be a lazyarray array"):
        xp.concat([xa, a])
    with pytest.raises(IndexError, match="out of bounds"):
        xp.stack([xa, xa], axis=3)


def test_astype_of_a_view_and_its_errors():
    a = RNG.standard_normal((4, 3))
    x = xp.asarray(a.copy())
    v = x[1:3]
    for dtype, npdt in ((xp.float32, np.float32), (xp.int64, np.int64), (xp.complex128, np.complex128)):
        for _ in range(2):  # the second call takes the kept attributes
            out = xp.astype(v, dtype)
            assert out._node.op.name == "convert" and out._node.attrs.dtype is dtype
            np.testing.assert_array_equal(np.asarray(out), a[1:3].astype(npdt))
    same = xp.astype(v, xp.float64)
    assert same._node is v._node and same is not v
    assert xp.astype(v, xp.float64, copy=False) is v
    with pytest.raises(TypeError, match="cannot cast .*complex128"):
        xp.astype(xp.asarray([1j]), xp.float64)


@pytest.mark.parametrize("axis", [0, -1, 1, (0, 2), (-1, 0)])
def test_expand_dims_is_a_live_view(axis):
    a = RNG.standard_normal((3, 4))
    x = xp.asarray(a.copy())
    for base in (x, x[1:]):  # a plain array and a view
        ref = a if base is x else a[1:]
        e = xp.expand_dims(base, axis=axis)
        assert type(e) is _View
        np.testing.assert_array_equal(np.asarray(e), np.expand_dims(ref, axis))
    e = xp.expand_dims(x, axis=axis)
    x[2, 3] = 50.0
    assert np.asarray(e).max() == 50.0
    e[(0,) * e.ndim] = -9.0
    assert np.asarray(x)[0, 0] == -9.0
    with pytest.raises(ValueError, match="repeated axis"):
        xp.expand_dims(x, axis=(0, 0))
    with pytest.raises(IndexError, match="out of bounds"):
        xp.expand_dims(x, axis=5)


def test_reshape_views_sharing_a_step_stay_independent_aliases():
    x = xp.asarray(np.arange(12.0))
    v1, v2 = xp.reshape(x, (3, 4)), xp.reshape(x, (3, 4))
    assert v1._step is v2._step  # (one plan entry: its step, which nothing changes)
    v1[0, 1] = -4.0
    assert np.asarray(v2)[0, 1] == -4.0 and np.asarray(x)[1] == -4.0
    w = xp.reshape(v2, (12,))
    w[11] = 8.0
    assert np.asarray(v1)[2, 3] == 8.0 and np.asarray(x)[11] == 8.0
