"""`__dlpack__` of an array whose value is a host value (an interpreter result, `asarray`'s copy):
a versioned capsule over that memory, read-only, no device buffer made (`Array._host_value_view`).
Values against numpy; writes on either side never reach the other."""
import numpy as np
import pytest

import lazyarray as xp


@pytest.fixture
def host_valued(interpreted):
    """An interpreted result (a host value) and its numpy twin."""
    a_np = np.linspace(-2.0, 3.0, 24).reshape(4, 6)
    x = xp.asarray(a_np) * 2.0 + 1.0
    float(xp.sum(x))  # computes x with the read (the interpreter: x is a host value now)
    assert x._node.op is None and x._node.buffer is None and x._node.host is not None
    return x, a_np * 2.0 + 1.0


def test_np_from_dlpack_is_read_only_over_the_host_value(host_valued):
    x, want = host_valued
    got = np.from_dlpack(x, device="cpu")
    np.testing.assert_array_equal(got, want)
    assert not got.flags.writeable
    assert np.shares_memory(got, x._node.host)
    assert x._node.buffer is None  # (no device buffer made for it)
    with pytest.raises(ValueError):
        got[0, 0] = 7.0


def test_writes_to_the_array_after_export_leave_the_export(host_valued):
    x, want = host_valued
    got = np.from_dlpack(x, device="cpu")
    x[0, 0] = 100.0
    x += 1.0
    np.testing.assert_array_equal(got, want)
    w = want + 1.0
    w[0, 0] = 101.0
    np.testing.assert_array_equal(np.asarray(x), w)


def test_asarray_after_export_is_not_the_exported_memory(host_valued):
    x, want = host_valued
    got = np.from_dlpack(x, device="cpu")
    alias = np.asarray(x)
    assert not np.shares_memory(alias, got)
    alias[1, 2] = -5.0  # (a numpy write reaches x, through the host alias)
    np.testing.assert_array_equal(got, want)
    w = want.copy()
    w[1, 2] = -5.0
    np.testing.assert_array_equal(np.asarray(xp.asarray(x, copy=True)), w)


def test_export_after_a_shared_alias_is_unaffected_by_its_writes(interpreted):
    a_np = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a_np) + 0.5
    np.asarray(x + 0.0)  # (x computed by the same sync, as a host value)
    alias = np.asarray(x)
    got = np.from_dlpack(x, device="cpu")
    alias[0, 0] = 42.0
    np.testing.assert_array_equal(got, a_np + 0.5)
    w = a_np + 0.5
    w[0, 0] = 42.0
    np.testing.assert_array_equal(np.asarray(x * 1.0), w)


def test_later_graphs_read_the_value(host_valued):
    x, want = host_valued
    np.from_dlpack(x, device="cpu")
    for step in range(3):
        np.testing.assert_array_equal(np.asarray(x * 3.0 - 1.0), want * 3.0 - 1.0)
        assert float(xp.sum(x)) == pytest.approx(float(np.sum(want)), rel=1e-14)


def test_legacy_and_copy_and_pending_exports(interpreted):
    a_np = np.linspace(0.0, 1.0, 10)
    x = xp.asarray(a_np) * 3.0
    capsule = x.__dlpack__()  # (unversioned: no read-only flag, the device buffer's path)
    assert capsule is not None
    y = xp.asarray(a_np) - 1.0  # pending: computed by the export
    got = np.from_dlpack(y, device="cpu")
    np.testing.assert_array_equal(got, a_np - 1.0)
    z = xp.asarray(a_np) + 2.0
    float(xp.sum(z))
    copied = np.from_dlpack(z, device="cpu", copy=True)
    assert copied.flags.writeable and not np.shares_memory(copied, z._node.host)
    np.testing.assert_array_equal(copied, a_np + 2.0)


def test_a_device_buffer_takes_the_buffer_path(fresh):
    a_np = np.linspace(0.0, 1.0, 10)
    x = xp.asarray(a_np) * 3.0  # compiled: a device buffer
    got = np.from_dlpack(x, device="cpu")
    assert x._node.buffer is not None
    np.testing.assert_array_equal(got, a_np * 3.0)
    assert not got.flags.writeable


def test_zero_d_and_integer_values(interpreted):
    s = xp.sum(xp.asarray(np.arange(5.0)))
    got = np.from_dlpack(s, device="cpu")
    assert got.shape == () and got == 10.0
    i = xp.asarray(np.arange(6, dtype=np.int32)) * 2
    np.asarray(i + 0)
    got = np.from_dlpack(i, device="cpu")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.arange(6, dtype=np.int32) * 2)
