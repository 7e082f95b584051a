"""asarray of a large numpy array borrows its memory until the array's first use
(`lazyarray/_borrowed_host.py`): no copy for a value only read back, the copy taken at the first
use, and no pending graph ever reading the caller's memory."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _borrowed_host
from lazyarray._metrics import metrics


@pytest.fixture
def small_threshold(monkeypatch):
    """Borrow arrays of 1 KiB and more, so the tests need no large allocation."""
    monkeypatch.setattr(_borrowed_host, "BORROW_MIN_BYTES", 1024)


def _host(n=4096, dtype=np.float64):
    return np.arange(n, dtype=dtype).reshape(64, -1)


def test_read_back_before_use_is_the_callers_memory(small_threshold):
    a = _host()
    sent = metrics.bytes_to_device
    x = xp.asarray(a)
    assert x.shape == a.shape and x.ndim == 2 and x.size == a.size and x.dtype == xp.float64
    h = np.asarray(x)
    assert h is a  # numpy's alias: no copy
    assert metrics.bytes_to_device == sent  # nothing went to the device
    assert type(x) is _borrowed_host.Borrowed  # reading shape, dtype and numpy left it borrowed


def test_write_before_first_use_is_seen_after_is_not(small_threshold):
    a = _host()
    x = xp.asarray(a)
    a[0, 0] = -5.0  # before the first use: part of x's value (numpy's asarray would alias too)
    expected_before = a * 2
    y = x * 2  # the first use takes the copy
    assert type(x) is xp.asarray(np.zeros(1)).__class__
    a[1, 1] = 99.0  # after it: no longer x's value
    np.testing.assert_array_equal(np.asarray(y), expected_before)
    assert float(x[1, 1]) == expected_before[1, 1] / 2
    assert float(x[0, 0]) == -5.0


def test_pending_graph_never_reads_the_callers_memory(small_threshold):
    a = _host(dtype=np.float32)
    expected = np.sin(a) + 1
    x = xp.asarray(a)
    y = xp.sin(x) + 1  # pending
    a[...] = 7  # the caller reuses its buffer before y runs
    np.testing.assert_allclose(np.asarray(y), expected, rtol=1e-6)


def test_write_into_borrowed_array_leaves_numpy_array(small_threshold):
    a = _host()
    original = a.copy()
    x = xp.asarray(a)
    x[0, 0] = 123.0
    assert float(x[0, 0]) == 123.0
    np.testing.assert_array_equal(np.asarray(x)[1:], original[1:])
    np.testing.assert_array_equal(a, original)  # (as asarray always behaved: a copy at first use)


def test_numpy_copy_and_cast_of_borrowed(small_threshold):
    a = _host()
    x = xp.asarray(a)
    c = np.asarray(x, copy=True) if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else np.array(x)
    assert not np.shares_memory(c, a)
    np.testing.assert_array_equal(c, a)
    f = x.__array__(dtype=np.float32)
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f, a.astype(np.float32))
    with pytest.raises(ValueError):
        x.__array__(dtype=np.float32, copy=False)
    assert type(x) is _borrowed_host.Borrowed


def test_ops_views_and_reductions_of_borrowed(small_threshold):
    a = _host()
    x = xp.asarray(a)
    np.testing.assert_array_equal(np.asarray(x[2:5, ::3]), a[2:5, ::3])
    np.testing.assert_array_equal(np.asarray(xp.sum(xp.asarray(a), axis=0)), a.sum(axis=0))
    np.testing.assert_array_equal(np.asarray(xp.asarray(a).mT), a.T)


def test_what_is_not_borrowed(small_threshold):
    small = np.arange(8.0)  # under the threshold: copied at once
    x = xp.asarray(small)
    small[0] = 50.0
    assert float(x[0]) == 0.0
    strided = _host()[:, ::2]  # not C-contiguous
    assert type(xp.asarray(strided)) is not _borrowed_host.Borrowed
    a = _host()
    assert type(xp.asarray(a, dtype=xp.float32)) is not _borrowed_host.Borrowed  # a cast copies
    assert type(xp.asarray(a, copy=True)) is not _borrowed_host.Borrowed
    y = xp.asarray(a, copy=True)
    a[0, 0] = -1.0
    assert float(y[0, 0]) == 0.0
    assert type(xp.asarray(a, dtype=xp.float64)) is _borrowed_host.Borrowed  # the same dtype


def test_default_threshold_keeps_ordinary_arrays_copied():
    assert _borrowed_host.BORROW_MIN_BYTES >= 16 << 20
    a = np.ones((256, 256))
    x = xp.asarray(a)
    assert type(x) is not _borrowed_host.Borrowed
