"""`asarray` of a Python scalar with a dtype (scikit-learn's `xp.asarray(reg_covar,
dtype=a.dtype, device=device(a))`) makes at once the general path's (`_asarray`'s) 0-D host
leaf: the same dtype, shape, value bits and numpy dtype; the same errors; numpy's values in both
tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _creation_functions as cf
from lazyarray import _dtypes as dt

DTYPES = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32,
          xp.uint64, xp.float32, xp.float64, xp.complex64, xp.complex128]
SCALARS = [True, False, 0, 1, -3, 127, 2.5, -0.0, 1e-6, float("inf"), float("nan"), 1.5 - 2j, 3 + 0j]


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 (compared between the paths)
        return "raised", (type(e), str(e))


def _leaf_image(a):
    n = a._node
    assert n.op is None and n.args == () and n.comp is None
    h = n.host
    assert type(h) is np.ndarray and h.shape == () and h.flags.owndata
    return (n.shape, n.dtype, h.dtype, h.tobytes(), a._device)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("device", ["none", "device"])
def test_same_leaf_as_the_general_path(dtype, device):
    dev = None if device == "none" else xp.asarray(1.0).device
    for v in SCALARS:
        for copy in (None, True):
            fast = _outcome(lambda: xp.asarray(v, dtype=dtype, device=dev, copy=copy))
            general = _outcome(lambda: cf._asarray(v, dtype=dtype, device=dev, copy=copy))
            assert fast[0] == general[0], (v, dtype)
            if fast[0] == "ok":
                assert _leaf_image(fast[1]) == _leaf_image(general[1])
                assert dt.from_numpy(fast[1]._node.host.dtype) is dtype
            else:
                assert fast[1] == general[1]


def test_errors_unchanged():
    with pytest.raises(OverflowError, match=r"Python int (300|1000) does not fit in .*int8"):
        xp.asarray(300, dtype=xp.int8)
    with pytest.raises(OverflowError, match=r"Python int -1 does not fit in .*uint8"):
        xp.asarray(-1, dtype=xp.uint8)
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(1.0, dtype=xp.float64, copy=False)
    with pytest.raises(ValueError, match="unsupported device"):
        xp.asarray(1.0, dtype=xp.float64, device="nodevice")
    # nested sequences and the overflow check still take the general path's shared helper
    with pytest.raises(OverflowError, match=r"Python int (300|1000) does not fit in .*int8"):
        xp.asarray(1000, dtype="int8")
    np.testing.assert_array_equal(np.asarray(xp.asarray([1, 2], dtype=xp.int8)), np.array([1, 2], np.int8))


def test_each_call_a_fresh_leaf():
    a = xp.asarray(2.0, dtype=xp.float64)
    b = xp.asarray(2.0, dtype=xp.float64)
    assert a._node is not b._node and a._node.host is not b._node.host


@pytest.mark.usefixtures("both_tiers")
@pytest.mark.parametrize("dtype", [xp.float32, xp.float64, xp.int32, xp.complex64], ids=str)
def test_values_in_both_tiers(dtype):
    rng = np.random.default_rng(3)
    v = rng.integers(-5, 6, size=(4, 4)).astype(dtype.np if hasattr(dtype, "np") else None)
    a = xp.asarray(v) * 1
    for s in (2, 3.0, 1e-6) if dtype.kind in "fc" else (2, -7):
        c = xp.asarray(s, dtype=dtype, device=a.device)
        np.testing.assert_array_equal(np.asarray(a + c), v + np.asarray(s, dtype=dtype.np))
        # scikit-learn's _add_to_diagonal on a view of a 3-D array
        cov = xp.asarray(np.stack([v, v])) * 1
        view = cov[1, :, :]
        val = xp.linalg.diagonal(view) + c
        for i in range(4):
            view[i, i] = val[i]
        expect = np.stack([v, v]).copy()
        expect[1][np.diag_indices(4)] += np.asarray(s, dtype=dtype.np)
        np.testing.assert_array_equal(np.asarray(cov), expect)
