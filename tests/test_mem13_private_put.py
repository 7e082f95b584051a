"""A large host leaf nothing else can see becomes its device buffer without a copy
(`_runtime.private_copy`, `sole_value`, `put_private`; `_run_program.input_buffer`): the data of
`asarray(a)` is never twice in memory once a program reads it. Semantics kept: the caller's
array and the lazyarray array never see each other's writes, a numpy alias handed out by
`np.asarray(x)` keeps the leaf from being adopted, values equal numpy's bit for bit."""
import sys

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _runtime

BIG = (3328, 160)  # 4.06 MiB of float64: at least PRIVATE_MIN_BYTES
DTYPES = ["float64", "float32", "int64", "int8", "uint16", "bool", "complex128"]


def _data(dtype, shape=BIG, seed=0):
    rng = np.random.default_rng(seed)
    out = (rng.standard_normal(shape) * 10)
    if dtype == "complex128":
        out = out + 1j * rng.standard_normal(shape)
    return out.astype(dtype)


def _scaled(dtype):
    rows = -(-_runtime.PRIVATE_MIN_BYTES // (160 * np.dtype(dtype).itemsize))
    return (rows, 160)


def test_private_copy_is_aligned_equal_and_held_by_one_block():
    a = _data("float64")
    c = _runtime.private_copy(a)
    assert c.ctypes.data % _runtime.HOST_ALIGN == 0 and c.flags.c_contiguous and c.flags.writeable
    np.testing.assert_array_equal(c, a)
    assert not np.shares_memory(c, a)
    assert _runtime.sole_value(c, 2)  # (the local name and getrefcount's argument)
    small = _runtime.private_copy(a[:4])
    assert small.base is None and not np.shares_memory(small, a)
    f = np.asfortranarray(a)
    cf = _runtime.private_copy(f)
    assert cf.flags.c_contiguous
    np.testing.assert_array_equal(cf, a)


def test_sole_value_sees_views_of_the_array_and_of_its_block():
    c = _runtime.private_copy(_data("float64"))
    assert _runtime.sole_value(c, 2)
    v = c[::2]  # (numpy's view holds the block, not c)
    assert not _runtime.sole_value(c, 2)
    del v
    assert _runtime.sole_value(c, 2)
    other = c
    assert not _runtime.sole_value(c, 2)
    del other
    plain = np.ones(5)
    assert _runtime.sole_value(plain, 2)
    w = plain.view()
    assert not _runtime.sole_value(plain, 2)
    del w
    assert not _runtime.sole_value(np.ones(10)[2:], 2)  # someone else's memory
    foreign = np.frombuffer(bytearray(64), np.uint8).view(np.float64)
    assert not _runtime.sole_value(foreign, 2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_program_adopts_a_sole_large_leaf(dtype, compiled_now):
    a = _data(dtype, _scaled(dtype))
    expected = a.copy()
    x = xp.asarray(a)
    node = x._pending_node()
    address = node.host.ctypes.data
    assert address % _runtime.HOST_ALIGN == 0
    buf = _engine._input_buffer(node, x.device)
    assert node.host is None and buf.unsafe_buffer_pointer() == address  # no copy
    a[...] = a[::-1]  # the caller's array is not the leaf's
    np.testing.assert_array_equal(np.asarray(x), expected)
    if dtype != "bool":
        np.testing.assert_array_equal(np.asarray(x + x), expected + expected)
    else:
        np.testing.assert_array_equal(np.asarray(x ^ x), expected ^ expected)


def test_a_leaf_with_a_numpy_alias_is_copied_and_the_alias_stays_one(compiled_now):
    a = _data("float64")
    x = xp.asarray(a)
    before = xp.metrics.zero_copy_reads
    h = np.asarray(x)  # the zero-copy read: h is the leaf's value (a private copy's view)
    assert xp.metrics.zero_copy_reads == before + 1
    y = x * 2.0  # the node gains a user: the alias unshares, the leaf has its own copy
    np.testing.assert_array_equal(np.asarray(y), a * 2.0)
    h[0, 0] = 7.0  # the numpy alias and x stay one
    assert float(x[0, 0]) == 7.0
    assert np.asarray(y)[0, 0] == a[0, 0] * 2.0  # recorded before the write
    np.testing.assert_array_equal(np.asarray(x * 1.0)[1:], a[1:])


def test_a_leaf_whose_value_is_held_elsewhere_is_copied(compiled_now):
    x = xp.asarray(_data("float64"))
    node = x._pending_node()
    keep = node.host[::3]  # a view of the private copy, held outside the leaf
    before = keep.copy()
    buf = _engine._input_buffer(node, x.device)
    assert buf.unsafe_buffer_pointer() != keep.ctypes.data
    keep[...] = -1.0
    np.testing.assert_array_equal(np.asarray(x)[::3], before)


def test_an_adopted_buffer_recycled_by_the_pool_gives_numpy_values(fresh):
    rng = np.random.default_rng(3)
    data = [rng.standard_normal(BIG) for _ in range(12)]
    expected = None
    out = None
    recycled = xp.metrics.recycled_buffers
    for a in data:  # each x dies with its adopted buffer, which the pool may hand to the next output
        x = xp.asarray(a)
        out = xp.abs(x) + (x - 3.0)  # (exact ops: the tiers agree bit for bit)
        expected = np.abs(a) + (a - 3.0)
        np.testing.assert_array_equal(np.asarray(out), expected)
        del x
        _engine.wait_for_compiles()  # (the donating variant compiles in the background)
    assert xp.metrics.recycled_buffers > recycled  # (dead leaves' adopted buffers among them)
    z = xp.asarray(data[0]) + 1.0
    np.testing.assert_array_equal(np.asarray(z), data[0] + 1.0)
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_gradient_descent_adopts_the_data_and_matches_numpy(compiled_now):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((8192, 64))  # (4 MiB: adopted)
    y = (X @ rng.standard_normal(64) > 0).astype(np.float64)

    def gd(ns, X, y):
        w = ns.zeros(64, dtype=X.dtype)
        for _ in range(20):
            p = 1.0 / (1.0 + ns.exp(-(X @ w)))
            w = w - 0.5 * (X.T @ (p - y)) / 8192
        return w

    want = gd(np, X, y)
    Xl = xp.asarray(X)
    got = np.asarray(gd(xp, Xl, xp.asarray(y)))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert Xl._node.host is None
    assert sys.getrefcount(X) >= 2  # (the caller's array is untouched and its own)
    np.testing.assert_array_equal(np.asarray(Xl), X)


def test_an_interpreter_output_copied_from_a_view_is_a_private_copy():
    """The interpreter copies an output that is a view (a transpose of a leaf's value): a large
    one goes to an address a program's input can adopt, cast as the node says."""
    from types import SimpleNamespace
    from lazyarray import _interpret
    from lazyarray import _dtypes as dt
    a = _data("float64")
    node = SimpleNamespace(dtype=dt.float64)
    (v,) = _interpret._outputs([a.T], [0], [node])
    assert v.ctypes.data % _runtime.HOST_ALIGN == 0 and v.flags.c_contiguous and v.flags.writeable
    np.testing.assert_array_equal(v, a.T)
    assert _runtime.sole_value(v, 2)
    (w,) = _interpret._outputs([a.T], [0], [SimpleNamespace(dtype=dt.float32)])
    assert w.dtype == np.float32
    np.testing.assert_array_equal(w, a.T.astype(np.float32))
    small = a[:3].T
    (s,) = _interpret._outputs([small], [0], [node])
    assert s.flags.owndata and not np.shares_memory(s, a)


def test_put_private_on_a_mesh_is_put():
    dev = xp.asarray(1.0).device._pjrt
    mesh = _runtime.PjrtMesh(np.array([dev]), ("x",))
    c = _runtime.private_copy(_data("float64"))
    buf = _runtime.put_private(c, mesh)
    np.testing.assert_array_equal(np.asarray(buf), c)
    assert buf.unsafe_buffer_pointer() != c.ctypes.data  # (a copy: only a single device adopts)
    small = np.arange(6.0)
    np.testing.assert_array_equal(np.asarray(_runtime.put_private(small, dev)), small)
