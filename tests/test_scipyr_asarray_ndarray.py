"""`asarray` of a numpy array (SciPy's table converts its inputs so, ~330 a pass) makes at once the
general path's (`_asarray`'s) host leaf: a private C-ordered copy of the same dtype, shape, bits
and device; arrays the shortcut does not take (swapped byte order, not C-ordered, 0-D, dtypes
the standard lacks, a dtype or device asked for) still take the general path; numpy's values in
both tiers; a later write to the numpy array never reaches ours."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _creation_functions as cf
from lazyarray import _dtypes as dt

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 (compared between the paths)
        return "raised", (type(e), str(e))


def _leaf_image(a, source):
    n = a._node
    assert n.op is None and n.args == () and n.comp is None and n.buffer is None
    h = n.host
    assert type(h) is np.ndarray and h.flags.c_contiguous and h.flags.writeable
    assert not np.shares_memory(h, source)
    return (type(a), n.shape, n.dtype, h.dtype, h.shape, h.tobytes(), a._device)


def _inputs():
    rng = np.random.default_rng(0)
    for d in DTYPES:
        for shape in [(1,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]:
            v = rng.integers(-50, 50, size=shape)
            yield v.astype(d) if d is not np.bool_ else v > 0
    base = rng.standard_normal((6, 8))
    yield base[:, ::2]                       # not C-ordered
    yield base.T                             # Fortran-ordered
    yield base.astype(">f8")                 # swapped byte order
    yield np.asarray(2.5)                    # 0-D
    yield np.array(["a", "b"])               # a dtype the standard lacks
    yield np.zeros(3, dtype="M8[s]")
    yield np.zeros((5 << 20) // 8 + 1)       # above the private-copy size (an aligned block)


@pytest.mark.parametrize("copy", [None, True])
def test_same_leaf_as_the_general_path(copy):
    for v in _inputs():
        fast = _outcome(lambda: xp.asarray(v, copy=copy))
        general = _outcome(lambda: cf._asarray(v, copy=copy))
        assert fast[0] == general[0], v.dtype
        if fast[0] == "ok":
            assert _leaf_image(fast[1], v) == _leaf_image(general[1], v), (v.dtype, v.shape)
            assert fast[1]._node.dtype is dt.from_numpy(fast[1]._node.host.dtype)
        else:
            assert fast[1] == general[1]


def test_native_of():
    for d in DTYPES:
        assert dt.native_of(np.dtype(d)) is dt.from_numpy(d)
    assert dt.native_of(np.dtype(">f8" if np.little_endian else "<f8")) is None
    assert dt.native_of(np.dtype("U3")) is None and dt.native_of(np.dtype("O")) is None


def test_a_write_to_the_source_does_not_reach_ours():
    v = np.arange(6.0)
    a = xp.asarray(v)
    v[:] = -1
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.0))
    w = np.arange(4, dtype=np.int32)
    b = xp.asarray(w)
    w[0] = 99
    assert int(b[0]) == 0


def test_dtype_device_and_copy_false_take_the_general_path():
    v = np.arange(4, dtype=np.int32)
    assert xp.asarray(v, dtype=xp.float64).dtype == xp.float64
    assert xp.asarray(v, device=xp.asarray(1.0).device).dtype == xp.int32
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(v, copy=False)


@pytest.mark.usefixtures("both_tiers")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex128, np.bool_], ids=str)
def test_values_in_both_tiers(dtype):
    rng = np.random.default_rng(5)
    v = rng.integers(-5, 6, size=(4, 3))
    v = v.astype(dtype) if dtype is not np.bool_ else v > 0
    a = xp.asarray(v)
    np.testing.assert_array_equal(np.asarray(a), v)
    if dtype is not np.bool_:
        np.testing.assert_array_equal(np.asarray(a * 2 + a[:, :1]), v * 2 + v[:, :1])
    np.testing.assert_array_equal(np.asarray(xp.sum(a, axis=0)), np.sum(v, axis=0))


SCALARS = [True, False, 0, 1, -3, 2**62, 2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**64 - 1, 2**64, 2**70,
           -2**70, 2.5, -0.0, float("inf"), float("nan"), 1.5 - 2j, 3 + 0j]


@pytest.mark.parametrize("device", ["none", "device"])
def test_python_scalars_without_dtype_as_the_general_path(device):
    dev = None if device == "none" else xp.asarray(1.0).device
    for v in SCALARS:
        for copy in (None, True, False):
            fast = _outcome(lambda: xp.asarray(v, device=dev, copy=copy))
            general = _outcome(lambda: cf._asarray(v, device=dev, copy=copy))
            assert fast[0] == general[0], (v, copy)
            if fast[0] == "ok":
                f, g = fast[1]._node, general[1]._node
                assert f.op is None and f.comp is None and f.shape == g.shape == ()
                assert f.dtype is g.dtype and f.host.dtype == g.host.dtype
                assert f.host.tobytes() == g.host.tobytes() and fast[1].device == general[1].device
            else:
                assert fast[1][0] is general[1][0], (v, fast, general)
