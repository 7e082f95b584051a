"""A write through a slice with a step (`y[1:30:7] = v`, SciPy's rosen_hess and
cumulative_simpson) builds its mask from bool's literals by the int path (`ops.constant(1,
bool, counts)`, `ops.constant(0, bool)`): the same nodes as True and False give; the values are
numpy's in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from graph_compare import describe


@pytest.mark.parametrize("shape", [(), (3,), (2, 4), (0, 2)], ids=str)
def test_bool_literals_by_the_int_path_are_the_same_nodes(shape):
    for one, true in ((1, True), (0, False)):
        a, b = ops.constant(one, dt.bool, shape), ops.constant(true, dt.bool, shape)
        assert describe(a, {}) == describe(b, {})
        assert a.op is b.op and a.attrs == b.attrs and a.shape == b.shape and a.dtype is b.dtype
        if a.args:
            assert a.args[0].attrs == b.args[0].attrs and a.args[0].attrs.value == np.asarray(true).tobytes()


KEYS = [slice(1, 30, 7), slice(0, 36, 7), slice(None, None, 2), slice(None, -1, 2), slice(1, None, 2),
        slice(None, None, -3), slice(30, 2, -5), (Ellipsis, slice(None, None, 2))]


@pytest.mark.usefixtures("both_tiers")
@pytest.mark.parametrize("key", KEYS, ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_, np.complex64], ids=str)
def test_strided_writes_as_numpy(key, dtype):
    base = (np.arange(36) % 5).astype(dtype)
    want = base.copy()
    n = len(want[key])
    v = (np.arange(n) % 3 + 1).astype(dtype)
    want[key] = v
    y = xp.asarray(base) * 1 if dtype is not np.bool_ else xp.asarray(base) | False
    y[key] = xp.asarray(v)
    np.testing.assert_array_equal(np.asarray(y), want)
    z = xp.asarray(base)
    z[key] = xp.asarray(v)[0] if n else xp.asarray(v)
    want2 = base.copy()
    want2[key] = v[0] if n else v
    np.testing.assert_array_equal(np.asarray(z), want2)


@pytest.mark.usefixtures("both_tiers")
def test_strided_2d_write_as_numpy():
    base = np.arange(48.0).reshape(6, 8)
    for key in [(slice(None, None, 2), slice(1, None, 3)), (slice(1, 5, 2), 3), (Ellipsis, slice(None, None, -2))]:
        want = base.copy()
        v = -np.arange(want[key].size, dtype=np.float64).reshape(want[key].shape)
        want[key] = v
        y = xp.asarray(base) + 0.0
        y[key] = xp.asarray(v)
        np.testing.assert_array_equal(np.asarray(y), want)
