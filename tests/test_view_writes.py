"""Writes through basic views (`_indexing.setitem` composes the view's index with the write's:
`_basic_indexing.compose`), and the interpreter's broadcast view (`_ops.shape._broadcast`),
checked against numpy doing the same on its own arrays."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._ops import shape as shape_ops
from tier_check import check, compile_always, leaf  # noqa: F401 (a fixture)


def _random_slice(rng, n):
    """A slice of an axis of length n: any start, stop and step (negative ones too)."""
    step = int(rng.choice([1, 1, 2, 3, -1, -2]))
    start = int(rng.integers(-n - 1, n + 1)) if rng.random() < 0.7 else None
    stop = int(rng.integers(-n - 1, n + 1)) if rng.random() < 0.7 else None
    return slice(start, stop, step)


def _random_key(rng, shape):
    """A basic key for `shape`: per axis an integer, a slice or (before it) a None."""
    key = []
    for n in shape:
        if rng.random() < 0.15:
            key.append(None)
        r = rng.random()
        if r < 0.3 and n > 0:
            key.append(int(rng.integers(-n, n)))
        elif r < 0.4:
            key.append(slice(None))
        else:
            key.append(_random_slice(rng, n))
    if rng.random() < 0.2:
        key.append(None)
    return tuple(key)


def _random_view_key(rng, shape):
    """A basic key that makes a view (numpy answers an integer for every axis with a copy)."""
    key = list(_random_key(rng, shape))
    if all(isinstance(k, int) for k in key):
        key[-1] = slice(None)
    return tuple(key)


@pytest.mark.parametrize("seed", range(60))
def test_write_through_views_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 4))))
    want = rng.standard_normal(shape)
    base = xp.asarray(want.copy())
    view_key = _random_view_key(rng, shape)
    want_view, view = want[view_key], base[view_key]
    if rng.random() < 0.5:  # a view of a view
        inner = _random_view_key(rng, want_view.shape)
        want_view, view = want_view[inner], view[inner]
    for _ in range(3):
        key = _random_key(rng, want_view.shape)
        target = want_view[key]
        value = rng.standard_normal(target.shape) if rng.random() < 0.6 else float(rng.standard_normal())
        want_view[key] = value
        view[key] = xp.asarray(value) if isinstance(value, np.ndarray) else value
        np.testing.assert_array_equal(np.asarray(view), want_view)
        np.testing.assert_array_equal(np.asarray(base), want)


@pytest.mark.parametrize("view_key, key", [
    (slice(1, 9), slice(6, 1, -2)),
    (slice(8, 0, -1), slice(1, 6, 2)),
    (slice(8, 0, -2), slice(None, None, -1)),
    (slice(None, None, -3), slice(2, None, -1)),
    (slice(2, 9, 3), 1),
    (slice(9, None, -4), slice(None, None, -2)),
])
def test_negative_steps_through_views(view_key, key):
    want = np.arange(10.0)
    base = xp.asarray(want.copy())
    view, want_view = base[view_key], want[view_key]
    value = np.arange(want_view[key].size, dtype=np.float64).reshape(want_view[key].shape) + 100.0
    want_view[key] = value
    view[key] = xp.asarray(value)
    np.testing.assert_array_equal(np.asarray(base), want)
    np.testing.assert_array_equal(np.asarray(view), want_view)


def test_diagonal_writes_through_a_view():
    """scikit-learn's `_add_to_diagonal` on `covariances[k, :, :]`, element by element."""
    rng = np.random.default_rng(1)
    want = rng.standard_normal((3, 4, 4))
    covs = xp.asarray(want.copy())
    for k in range(3):
        view, want_view = covs[k, :, :], want[k, :, :]
        value = xp.linalg.diagonal(view) + 0.5
        want_value = np.diagonal(want_view) + 0.5
        for i in range(4):
            view[i, i] = value[i]
            want_view[i, i] = want_value[i]
        np.testing.assert_array_equal(np.asarray(view), want_view)
    np.testing.assert_array_equal(np.asarray(covs), want)


def test_write_through_a_view_is_one_update_of_the_base():
    base = xp.asarray(np.zeros((3, 4, 4)))
    view = base[1, :, :]
    before = base._node
    view[2, 3] = 7.0
    node = base._node
    assert node.op.name == "dynamic_update_slice" and node.args[0] is before
    assert node.args[1].shape == ()  # the 0-D value itself: no reshape node
    want = np.zeros((3, 4, 4))
    want[1, 2, 3] = 7.0
    np.testing.assert_array_equal(np.asarray(view), want[1])
    np.testing.assert_array_equal(np.asarray(base), want)


def test_write_into_a_read_only_view_is_refused():
    base = xp.asarray(np.zeros((3, 4)))
    view = base[1:, :]
    readonly = xp.broadcast_to(view[0, :], (2, 4))
    with pytest.raises(ValueError):
        readonly[0, 0] = 1.0
    np.testing.assert_array_equal(np.asarray(base), np.zeros((3, 4)))


class _Node:
    def __init__(self, shape, dims):
        self.shape = shape
        self.attrs = shape_ops.BROADCAST_IN_DIM.Attrs(shape, dims)


@pytest.mark.parametrize("x_shape, shape, dims", [
    ((3,), (3, 4), (0,)), ((3,), (4, 3), (1,)), ((1,), (4, 3), (1,)), ((), (2, 2), ()),
    ((3, 4), (4, 5, 3), (2, 0)), ((2, 3), (2, 5, 3), (0, 2)), ((3, 1), (3, 7), (0, 1)),
    ((0,), (2, 0), (1,)),
])
@pytest.mark.parametrize("layout", ["c", "f", "reversed", "strided"])
def test_broadcast_view_matches_numpy(x_shape, shape, dims, layout):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(x_shape)
    if layout == "f":
        x = np.asfortranarray(x)
    elif layout == "reversed":
        x = np.flip(x)
    elif layout == "strided" and x.ndim:
        x = np.repeat(x, 2, axis=-1)[..., ::2]
    got = shape_ops._broadcast(_Node(shape, dims), x)
    want = shape_ops._broadcast_general(_Node(shape, dims).attrs, x)
    assert got.shape == want.shape == shape and got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)
    assert not got.flags.writeable


def test_interpreted_broadcast_end_to_end():
    a = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(a)
    got = ops.broadcast_in_dim(x._node, (4, 3, 2), (2, 1))
    from lazyarray._interpret import interpret
    from lazyarray._graph import toposort
    order, leaves = toposort([got])
    out, = interpret(order, leaves, [got])
    np.testing.assert_array_equal(out, np.broadcast_to(a.T, (4, 3, 2)))
    assert out.flags.owndata and out.flags.writeable


# ---------------------------------------------------------------- one element written: a 0-D update

@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool", "complex64"])
@pytest.mark.parametrize("start", [(0, 0, 0), (2, 3, 1), (-1, 7, 2)])  # out of range: clamped
def test_dynamic_update_slice_of_one_element_both_tiers(compile_always, dtype, start):
    rng = np.random.default_rng(5)
    base = (rng.standard_normal((3, 4, 2)) * 10).astype(dtype)
    value = np.asarray(rng.standard_normal() * 10).astype(dtype)
    starts = [ops.scalar(s, dt.int64) for s in start]
    node = ops.dynamic_update_slice(leaf(base), leaf(value), starts)
    got = check(node)
    want = base.copy()
    want[tuple(min(max(s, 0), n - 1) for s, n in zip(start, base.shape))] = value
    np.testing.assert_array_equal(got, want)


def test_element_writes_take_no_reshape():
    x = xp.asarray(np.zeros((3, 4)))
    x[1, 2] = 5.0
    node = x._node
    assert node.op.name == "dynamic_update_slice" and node.args[1].shape == ()
    x[0, :] = 1.0  # a row: the value is reshaped to the window's rank as before
    assert x._node.args[1].shape == (1, 4)
    want = np.zeros((3, 4))
    want[1, 2] = 5.0
    want[0, :] = 1.0
    np.testing.assert_array_equal(np.asarray(x), want)


# ---------------------------------------------------------------- a scalar written under a mask

@pytest.mark.parametrize("key_of", [
    lambda m: m,                      # x[mask] = v, the mask over every axis
    lambda m: (slice(None), m[0]),    # a 1-D mask on the last axis
    lambda m: (m[:, 0], slice(1, 3)),  # a 1-D mask on the first axis, a slice beside it
    lambda m: (1, m[0]),              # an integer beside the mask
])
@pytest.mark.parametrize("value", [-np.inf, 2.5])
def test_masked_scalar_write_matches_numpy(key_of, value):
    rng = np.random.default_rng(7)
    want = rng.standard_normal((4, 5))
    x = xp.asarray(want.copy())
    mask = want > 0
    key = key_of(mask)
    want[key] = value
    lazy_key = tuple(xp.asarray(k) if isinstance(k, np.ndarray) else k for k in key) \
        if isinstance(key, tuple) else xp.asarray(key)
    x[lazy_key] = value
    np.testing.assert_array_equal(np.asarray(x), want)


def test_masked_scalar_write_is_one_select():
    """scikit-learn's `_logsumexp`: `array[array == max] = -inf`. The scalar is broadcast to the
    region (a 0-D select operand made SciPy's TestBracketMinimum::test_scalar_with_limit_left
    fail in a full run: its graphs reached a compiled program, which flushes the subnormal
    function values the test checks)."""
    a = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(a.copy())
    before = x._node
    x[x == 5.0] = -np.inf
    node = x._node
    assert node.op.name == "select" and node.args[2] is before and node.args[1].shape == (2, 3)
    a[a == 5.0] = -np.inf
    np.testing.assert_array_equal(np.asarray(x), a)


# ---------------------------------------------------------------- unique: the host results

@pytest.mark.parametrize("values", [
    np.array([3.0, np.nan, -0.0, 0.0, 1.0, np.nan, 3.0, -np.inf, 1.0]),
    np.array([[2, 7, 2], [7, 7, 1]], dtype=np.int32),
    np.array([1 + 1j, np.nan, 1 + 1j, 2j], dtype=np.complex128),
    np.array(5.0),
    np.array([True, False, True]),
])
def test_unique_host_results_equal_the_lazy_ones(monkeypatch, values):
    """On the CPU `_set_functions._Runs` moves the realized sort's elements in numpy; the lazy
    path (a scatter-min and gathers, what other devices run) gives the same bits."""
    from lazyarray import _set_functions
    got = {}
    for host in (True, False):
        monkeypatch.setattr(_set_functions._Runs, "host_results", host)
        r = xp.unique_all(xp.asarray(values))
        got[host] = [np.asarray(a) for a in r]
    for a, b in zip(got[True], got[False]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(np.atleast_1d(a).view(np.uint8), np.atleast_1d(b).view(np.uint8))
    # and numpy's values (its NaNs: one per NaN here, the standard's equality)
    finite = values[~np.isnan(values)] if values.dtype.kind in "fc" else values
    np.testing.assert_array_equal(got[True][0][:np.unique(finite).size], np.unique(finite))


# ---------------------------------------------------------------- where: 0-D operands stay 0-D

@pytest.mark.parametrize("cond_shape, x1_shape, x2", [
    ((3, 4), None, 2.5), ((3, 4), (4,), -1.0), ((), (3, 4), 0.0), ((), None, 1.5),
    ((4,), (3, 1), None), ((1, 4), (), None),
])
def test_where_with_0d_operands_both_tiers(compile_always, cond_shape, x1_shape, x2):
    rng = np.random.default_rng(11)
    cond = rng.random(cond_shape) > 0.5
    a1 = rng.standard_normal(x1_shape) if x1_shape is not None else 7.0
    a2 = rng.standard_normal((3, 4)) if x2 is None else x2
    lazy = xp.where(xp.asarray(cond), xp.asarray(a1) if x1_shape is not None else a1,
                    xp.asarray(a2) if x2 is None else a2)
    got = check(lazy)  # the interpreter's value equals the compiled program's, bit for bit
    np.testing.assert_array_equal(got, np.where(cond, a1, a2))
