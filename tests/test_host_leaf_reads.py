"""asarray of a numpy array on the CPU keeps a private host copy (no device put), and the first
read of a host leaf or of a fresh device buffer is a zero-copy view (`_engine.host_view`,
`_runtime.host_view` through jaxlib's buffer protocol). Semantics kept: the caller's numpy array
and the lazyarray array never see each other's later writes; a numpy array handed out by
`np.asarray(x)` and x stay aliases (writes either way are seen), and ops recorded before a write
keep the old value."""
import sys

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _runtime
from lazyarray._array_object import Array
from lazyarray._host_data import numpy_leaf

DTYPES = ["float64", "float32", "int64", "int32", "uint8", "bool", "complex128"]


def _data(dtype, shape=(300, 8), seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_asarray_is_a_private_host_copy(dtype):
    a = _data(dtype)
    expected = a.copy()
    x = xp.asarray(a)
    node = x._pending_node()
    assert node.buffer is None and node.host is not None and node.host.base is None
    assert not np.shares_memory(node.host, a)
    a[...] = a[::-1]  # the caller writes into its array afterwards: x keeps the old value
    np.testing.assert_array_equal(np.asarray(x), expected)
    np.testing.assert_array_equal(np.asarray(x + x), expected + expected)


def test_asarray_casts_and_byte_orders_as_before():
    a = np.arange(12.0).reshape(3, 4)
    y = xp.asarray(a, dtype=xp.float32)
    assert y.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(y), a.astype(np.float32))
    b = a.astype(">f8")
    z = xp.asarray(b)
    assert z.dtype == xp.float64
    np.testing.assert_array_equal(np.asarray(z), a)
    f = np.asfortranarray(a)
    np.testing.assert_array_equal(np.asarray(xp.asarray(f)), a)
    np.testing.assert_array_equal(np.asarray(xp.asarray(a[:, ::2])), a[:, ::2])
    with pytest.raises(TypeError):
        xp.asarray(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        xp.asarray(np.array([1, 2], dtype=">U3"))


def test_first_read_of_a_host_leaf_is_zero_copy_and_an_alias():
    a = _data("float64")
    x = xp.asarray(a)
    before = xp.metrics.zero_copy_reads
    h = np.asarray(x)
    assert xp.metrics.zero_copy_reads == before + 1
    np.testing.assert_array_equal(h, a)
    pending = x * 2.0  # recorded before the write: keeps the old value
    h[0, 0] = -1000.0  # numpy -> lazyarray
    assert float(x[0, 0]) == -1000.0
    np.testing.assert_array_equal(np.asarray(pending), a * 2.0)
    x[1, 1] = 7.0  # lazyarray -> numpy
    assert h[1, 1] == 7.0
    assert a[0, 0] != -1000.0 and a[1, 1] != 7.0  # the caller's array never sees either


def test_host_leaf_with_other_users_is_copied():
    a = _data("float64")
    x = xp.asarray(a)
    y = x + 1.0  # another user of x's node: the read must not hand out its memory
    before = xp.metrics.zero_copy_reads
    h = np.asarray(x)
    assert xp.metrics.zero_copy_reads == before
    h[0, 0] = 5.0
    np.testing.assert_array_equal(np.asarray(y), a + 1.0)
    assert float(x[0, 0]) == 5.0


def test_host_value_held_elsewhere_is_not_handed_out():
    """A host value another object holds (a kept constant, another node's value) is copied."""
    a = _data("float64")
    x = xp.asarray(a)
    node = x._pending_node()
    other = node.host  # held by someone else
    h = np.asarray(x)
    assert not np.shares_memory(h, other)
    h[0, 0] = 123.0
    assert other[0, 0] == a[0, 0]
    assert float(x[0, 0]) == 123.0


def test_sole_refs_constant_matches_a_bare_node():
    """`_HOST_VALUE_SOLE_REFS` counts the references of a host value only its node holds."""
    x = xp.asarray(_data("float64"))
    node = x._pending_node()
    host = node.host
    assert sys.getrefcount(host) == _engine._HOST_VALUE_SOLE_REFS  # slot, `host`, argument


def test_host_leaf_goes_to_the_device_once_for_a_program():
    a = _data("float64", (50, 4))
    x = xp.asarray(a)
    node = x._pending_node()
    buf = _engine._input_buffer(node, x.device)
    assert node.buffer is buf and node.host is None
    np.testing.assert_array_equal(np.asarray(x), a)
    assert _engine._input_buffer(node, x.device) is buf


@pytest.mark.parametrize("dtype", DTYPES)
def test_runtime_host_view_is_the_buffers_memory(dtype):
    a = _data(dtype, (7, 5, 3))
    dev = _runtime.devices()[0]
    buf = _runtime.put(a, dev)
    view = _runtime.host_view(buf, one_cpu_device=True)
    assert view is not None and view.flags.writeable
    assert view.__array_interface__["data"][0] == buf.unsafe_buffer_pointer()
    np.testing.assert_array_equal(view, a)
    empty = _runtime.put(np.zeros((0, 3), dtype), dev)
    assert _runtime.host_view(empty, one_cpu_device=True) is None


def test_first_read_of_a_device_leaf_is_zero_copy():
    a = _data("float64")
    device = xp.asarray(0.0).device
    x = Array._wrap(numpy_leaf(a, device), device)
    assert x._pending_node().buffer is not None
    before = xp.metrics.zero_copy_reads
    h = np.asarray(x)
    assert xp.metrics.zero_copy_reads == before + 1
    np.testing.assert_array_equal(h, a)
    h[2, 3] = 9.5
    assert float(x[2, 3]) == 9.5
