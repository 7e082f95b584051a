"""Host-side shortcuts that SciPy's calls take on one CPU device (session 11, SCIPY):

- `asarray` of a list or tuple (and the other fresh host arrays `from_host` wraps) and a numpy
  array on the other side of an operator stay host leaves, as asarray's numpy copies do: no
  device put, no read of that buffer back by the interpreter. Copies all the same: changing the
  source afterwards changes nothing.
- The operator fast path takes a view operand (`b[1:]`) as it takes a plain array: the node the
  namespace function records, read again when the view's base was written.
- A boolean mask's True positions are numbered by numpy from the mask's values (one sync, as
  before): a host leaf, the same row-major positions as numpy's nonzero.

Values are compared with numpy's."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _advanced_indexing
from lazyarray._array_object import _View

from graph_compare import same_graph

RNG = np.random.default_rng(1125)


def _is_host_leaf(node):
    return node.op is None and node.buffer is None and isinstance(node.host, np.ndarray)


# ---------------------------------------------------------------- host leaves

@pytest.mark.parametrize("obj,dtype", [([1.0, 2.5, -3.0], None), ((1, 2, 3), None),
                                        ([[True, False], [False, True]], None),
                                        ([[1, 2], [3, 4]], xp.float32), ([1.0, 2.0], xp.complex128),
                                        ([0.5 + 1j, 2.0], None)])
def test_asarray_of_a_sequence_is_a_host_leaf_with_numpys_values(obj, dtype):
    a = xp.asarray(obj, dtype=dtype)
    assert _is_host_leaf(a._node)
    expected = np.asarray(obj, dtype=None if dtype is None else np.dtype(str(dtype).split(".")[-1]))
    if dtype is None:  # the standard's defaults are numpy's for these
        assert np.asarray(a).dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(a), expected)
    np.testing.assert_array_equal(np.asarray(a * 2), expected * 2)


def test_asarray_of_a_sequence_puts_nothing_on_the_device():
    xp.metrics.reset()
    a = xp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    r = np.asarray(xp.sum(a * a, axis=1))
    assert xp.metrics.bytes_to_device == 0
    np.testing.assert_array_equal(r, np.sum(np.square([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), axis=1))


def test_linspace_of_integers_and_from_dlpack_copy_are_host_leaves_with_numpys_values():
    a = xp.linspace(0, 20, 7, dtype=xp.int64)
    assert _is_host_leaf(a._node)
    np.testing.assert_array_equal(np.asarray(a), np.linspace(0, 20, 7, dtype=np.int64))
    src = np.arange(6.0)
    b = xp.from_dlpack(src)
    src[0] = 99.0  # a copy: the source's later change is not seen
    np.testing.assert_array_equal(np.asarray(b), np.arange(6.0))


def test_numpy_operand_is_a_host_copy():
    a = RNG.standard_normal(5)
    host = RNG.standard_normal(5)
    x = xp.asarray(a)
    y = x + host          # numpy on the right, then on the left (numpy defers to us)
    z = host * x
    assert _is_host_leaf(y._node.args[1])
    before = host.copy()
    host[:] = 0.0         # after the operators: a copy was taken, the results do not change
    np.testing.assert_array_equal(np.asarray(y), a + before)
    np.testing.assert_array_equal(np.asarray(z), before * a)


def test_numpy_operand_keeps_its_dtype():
    x = xp.asarray(np.arange(4, dtype=np.int32))
    r = x + np.arange(4, dtype=np.int64)
    assert r.dtype == xp.int64
    np.testing.assert_array_equal(np.asarray(r), np.arange(4, dtype=np.int32) + np.arange(4, dtype=np.int64))


def test_a_host_leaf_read_back_and_written_through_numpy_leaves_the_array_alone():
    a = xp.asarray([1.0, 2.0, 3.0])
    view = np.asarray(a)
    if view.flags.writeable:
        view[0] = 50.0
    b = a + 1.0
    np.testing.assert_array_equal(np.asarray(b), np.asarray(a) + 1.0)


# ---------------------------------------------------------------- views in the operator fast path

@pytest.mark.parametrize("swap", [False, True])
def test_view_operand_records_the_namespace_functions_node(swap):
    a, b = RNG.standard_normal(8), RNG.standard_normal(8)
    x = xp.asarray(a)[1:] * 1.0
    base = xp.asarray(b)
    v = base[1:]
    assert type(v) is _View
    fast = v * x if swap else x * v
    general = xp.multiply(v, x) if swap else xp.multiply(x, v)
    assert same_graph(fast._node, general._node)
    expected = b[1:] * (a[1:] * 1.0)
    np.testing.assert_array_equal(np.asarray(fast), expected)
    np.testing.assert_array_equal(np.asarray(general), expected)


def test_view_operand_reads_the_view_again_after_a_write_to_its_base():
    b = RNG.standard_normal(6)
    base = xp.asarray(b)
    v = base[2:]
    x = xp.asarray(np.ones(4)) + 0.0
    base[3] = 10.0  # the base changes after the view was made
    bn = b.copy()
    bn[3] = 10.0
    for r, e in ((x - v, 1.0 - bn[2:]), (v - x, bn[2:] - 1.0), (x < v, 1.0 < bn[2:]),
                 (v == v, bn[2:] == bn[2:])):
        np.testing.assert_array_equal(np.asarray(r), e)


# ---------------------------------------------------------------- boolean masks

def test_mask_read_positions_are_a_host_leaf_and_one_sync():
    a = RNG.standard_normal(40)
    x = xp.asarray(a) * 2.0
    m = x > 0.3
    xp.metrics.reset()
    r = x[m]
    assert sum(xp.metrics.syncs.values()) == 1  # the count (and here the positions) need one
    positions, count = _advanced_indexing._positions[m._node]
    assert _is_host_leaf(positions) and count == int(np.sum((a * 2.0) > 0.3))
    np.testing.assert_array_equal(np.asarray(r), (a * 2.0)[(a * 2.0) > 0.3])


@pytest.mark.parametrize("shape,density", [((30,), 0.5), ((5, 7), 0.4), ((3, 4, 5), 0.3),
                                           ((6,), 0.0), ((6,), 1.0), ((4, 3), 0.0)])
def test_mask_reads_match_numpy(shape, density):
    a = RNG.standard_normal(shape)
    mask = RNG.random(shape) < density
    x = xp.asarray(a)
    np.testing.assert_array_equal(np.asarray(x[xp.asarray(mask)]), a[mask])
    np.testing.assert_array_equal(np.asarray(x[xp.asarray(a) > 0.2]), a[a > 0.2])
    for got, want in zip(xp.nonzero(xp.asarray(mask)), np.nonzero(mask)):
        assert got.dtype == xp.int64
        np.testing.assert_array_equal(np.asarray(got), want)


def test_mask_with_slices_and_integer_arrays_beside_it():
    a = RNG.standard_normal((4, 6, 5))
    m = RNG.random(6) < 0.5
    x = xp.asarray(a)
    mx = xp.asarray(m)
    np.testing.assert_array_equal(np.asarray(x[:, mx]), a[:, m])
    np.testing.assert_array_equal(np.asarray(x[1:3, mx, ::2]), a[1:3, m, ::2])
    np.testing.assert_array_equal(np.asarray(x[2, mx]), a[2, m])
    m2 = RNG.random((4, 6)) < 0.5
    np.testing.assert_array_equal(np.asarray(x[xp.asarray(m2), 1:4]), a[m2, 1:4])
    two = np.zeros(6, bool)
    two[[1, 4]] = True  # two True values: they broadcast with a length-2 integer index, as numpy
    idx = np.array([0, 3])
    np.testing.assert_array_equal(np.asarray(x[xp.asarray(idx), xp.asarray(two)]), a[idx, two])


def test_mask_writes_that_need_the_count_match_numpy():
    a = RNG.standard_normal((5, 4))
    m = a > 0.0
    x = xp.asarray(a)
    vals = np.arange(int(m.sum()), dtype=np.float64)
    x[xp.asarray(m)] = xp.asarray(vals)
    expected = a.copy()
    expected[m] = vals
    np.testing.assert_array_equal(np.asarray(x), expected)


def test_a_mask_used_twice_keeps_its_positions():
    a = RNG.standard_normal(20)
    x = xp.asarray(a)
    m = x > 0.0
    first = x[m]
    xp.metrics.reset()
    second = (x * 3.0)[m]
    assert sum(xp.metrics.syncs.values()) == 0  # the mask node's positions are remembered
    np.testing.assert_array_equal(np.asarray(first), a[a > 0])
    np.testing.assert_array_equal(np.asarray(second), (a * 3.0)[a > 0])


# ---------------------------------------------------------------- asarray of our own arrays

def test_asarray_of_our_array_is_that_array_and_copy_true_a_new_handle():
    a = RNG.standard_normal(5)
    x = xp.asarray(a) * 1.0
    v = x[1:]
    assert xp.asarray(x) is x and xp.asarray(x, copy=False) is x and xp.asarray(v) is v
    assert xp.asarray(x, dtype=xp.float64) is x
    y = xp.asarray(x, copy=True)
    assert y is not x
    y[0] = 7.0  # a write to the copy's handle leaves x alone
    np.testing.assert_array_equal(np.asarray(x), a * 1.0)
    np.testing.assert_array_equal(np.asarray(y), np.concatenate([[7.0], a[1:] * 1.0]))
    z = xp.asarray(x, dtype=xp.float32)
    assert z.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(z), (a * 1.0).astype(np.float32))


# ---------------------------------------------------------------- **, &, |, ^ on the fast path

@pytest.mark.parametrize("kind", ["array", "int", "float", "reflected"])
def test_pow_of_a_real_float_records_the_namespace_functions_node(kind):
    a = np.abs(RNG.standard_normal(6)) + 0.5
    b = RNG.standard_normal(6)
    x = xp.asarray(a) * 1.0
    y = xp.asarray(b) * 1.0
    if kind == "array":
        fast, general, expected = x ** y, xp.pow(x, y), (a * 1.0) ** (b * 1.0)
    elif kind == "int":
        fast, general, expected = x ** 3, xp.pow(x, 3), (a * 1.0) ** 3
    elif kind == "float":
        fast, general, expected = x ** 0.5, xp.pow(x, 0.5), (a * 1.0) ** 0.5
    else:
        fast, general, expected = 2.0 ** x, xp.pow(2.0, x), 2.0 ** (a * 1.0)
    assert same_graph(fast._node, general._node)
    np.testing.assert_array_equal(np.asarray(fast), np.asarray(general))
    np.testing.assert_allclose(np.asarray(fast), expected, rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("name", ["and_", "or_", "xor"])
def test_bitwise_operators_of_one_dtype_record_the_namespace_functions_node(dtype, name):
    import operator
    op = getattr(operator, name)
    function = {"and_": xp.bitwise_and, "or_": xp.bitwise_or, "xor": xp.bitwise_xor}[name]
    a = (RNG.integers(0, 2, 9) if dtype is np.bool_ else RNG.integers(0, 100, 9)).astype(dtype)
    b = (RNG.integers(0, 2, 9) if dtype is np.bool_ else RNG.integers(0, 100, 9)).astype(dtype)
    x, y = xp.asarray(a), xp.asarray(b)
    fast, general = op(x, y), function(x, y)
    assert same_graph(fast._node, general._node)
    np.testing.assert_array_equal(np.asarray(fast), op(a, b))
    iop = getattr(operator, "i" + name.rstrip("_"))  # the in-place form takes the same path
    x = iop(x, y)
    np.testing.assert_array_equal(np.asarray(x), op(a, b))


def test_pow_and_bitwise_operators_off_the_fast_path_still_match_numpy():
    a = np.abs(RNG.standard_normal((3, 4))) + 0.5
    x = xp.asarray(a)
    np.testing.assert_allclose(np.asarray(x ** xp.asarray(a[0])), a ** a[0], rtol=1e-15)  # broadcast
    z = xp.asarray(a + 1j)
    np.testing.assert_allclose(np.asarray(z ** 2), (a + 1j) ** 2, rtol=1e-14)  # complex: its own path
    i = xp.asarray(np.arange(5))
    np.testing.assert_array_equal(np.asarray(i ** 2), np.arange(5) ** 2)      # integer power
    np.testing.assert_array_equal(np.asarray(i & 6), np.arange(5) & 6)        # a Python int
    m = xp.asarray(np.array([True, False, True]))
    np.testing.assert_array_equal(np.asarray(m | xp.asarray(np.array([0, 1, 0], np.int8))),
                                  np.array([True, False, True]) | np.array([0, 1, 0], np.int8))


# ---------------------------------------------------------------- interpreter: max/min zero signs

@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_interpreted_maximum_minimum_keep_ieee_zero_signs(dtype):
    """The interpreter's maximum/minimum skip the zero-sign fix when the result has no zero;
    every pair of special values (as arrays and as 0-D operands) still gives IEEE's answer:
    max(-0, +0) = +0, min(-0, +0) = -0 in either order, NaN propagates."""
    specials = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-7, -1e-7, 3.0], dtype)
    a, b = (np.array(v, dtype) for v in zip(*[(x, y) for x in specials for y in specials]))

    def ieee(x, y, take_max):
        both_zero = (x == 0) & (y == 0)
        zero = np.where(np.signbit(x) & np.signbit(y) if take_max else np.signbit(x) | np.signbit(y),
                        dtype(-0.0), dtype(0.0))
        plain = np.fmax(x, y) if take_max else np.fmin(x, y)
        return np.where(np.isnan(x) | np.isnan(y), dtype(np.nan), np.where(both_zero, zero, plain))

    for fn, take_max in ((xp.maximum, True), (xp.minimum, False)):
        want = ieee(a, b, take_max)
        got = np.asarray(fn(xp.asarray(a), xp.asarray(b)))
        assert np.array_equal(np.signbit(got), np.signbit(want)) and np.array_equal(got, want, equal_nan=True)
        for i in (0, 1, 10, 11, 33):  # 0-D operands (pairs of zeros among them)
            got0 = np.asarray(fn(xp.asarray(a[i]), xp.asarray(b[i])))
            assert np.signbit(got0) == np.signbit(want[i]) and np.array_equal(got0, want[i], equal_nan=True)


# ---------------------------------------------------------------- memoized C strides

def test_contiguous_strides_are_numpys_for_every_shape_asked_twice():
    from lazyarray import _views
    for shape in [(), (3,), (2, 3), (1, 1, 7), (2, 3, 4, 5), (6, 1), [4, 2]]:
        a = np.empty(shape)
        want = tuple(s // a.itemsize for s in a.strides)
        assert _views.contiguous_strides(shape) == want == _views.contiguous_strides(shape)
    assert _views.contiguous_strides((4, 0, 5)) == (5, 5, 1)  # (a zero axis counts as 1)
    x = xp.asarray(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_array_equal(np.asarray(xp.reshape(x[:, 1:], (2, 8))), np.arange(24.0).reshape(2, 3, 4)[:, 1:].reshape(2, 8))
