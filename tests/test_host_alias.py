"""`np.asarray(x)` aliases x, as numpy's, PyTorch's and array-api-strict's do: writes into the
numpy array reach x (and are seen by later reads and ops of x, never by ops recorded before), and
x's later writes show in the numpy array."""
import gc

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _host_alias


def test_numpy_write_reaches_array_and_later_ops_only():
    x = xp.zeros((2, 3))
    h = np.asarray(x)
    before = xp.sum(x)
    h[0, 0] = 5.0
    after = xp.sum(x)
    assert float(x[0, 0]) == 5.0
    assert float(before) == 0.0
    assert float(after) == 5.0


def test_lazy_write_shows_in_numpy_array():
    x = xp.zeros(4)
    h = np.asarray(x)
    x[1] = 2.0
    x += 1.0
    np.testing.assert_array_equal(h, [1.0, 3.0, 1.0, 1.0])


def test_alias_of_a_view_writes_through_to_base():
    x = xp.zeros((2, 3))
    hx = np.asarray(x)
    t = xp.permute_dims(x, (1, 0))
    ht = np.asarray(t)
    ht[2, 1] = 3.0  # numpy: x[1, 2]
    assert float(x[1, 2]) == 3.0
    assert hx[1, 2] == 3.0  # the other alias of the family sees it too
    hx[0, 0] = -1.0
    assert float(t[0, 0]) == -1.0
    assert ht[0, 0] == -1.0


def test_numpy_views_of_the_alias_write_through():
    x = xp.zeros(6)
    row = np.asarray(x)[2:4]  # the alias itself is dropped; its numpy view keeps it alive
    gc.collect()
    row[:] = 7.0
    np.testing.assert_array_equal(np.asarray(x, copy=True), [0, 0, 7, 7, 0, 0])


def test_writes_made_just_before_the_alias_dies_are_kept():
    """The SciPy `output=` pattern: fill np.asarray(out) in a callee and drop it."""
    out = xp.zeros(5)

    def fill(o):
        buf = np.asarray(o)
        buf[:] = np.arange(5.0)

    fill(out)
    gc.collect()
    np.testing.assert_array_equal(np.asarray(out, copy=True), np.arange(5.0))


def test_scipy_ndimage_output_argument():
    ndimage = pytest.importorskip("scipy.ndimage")
    data = np.arange(12.0).reshape(3, 4)
    out_np = np.zeros_like(data)
    ndimage.correlate(data, np.ones((2, 2)), output=out_np)
    out = xp.zeros((3, 4))
    ndimage.correlate(np.asarray(xp.asarray(data)), np.ones((2, 2)), output=np.asarray(out))
    np.testing.assert_array_equal(np.asarray(out, copy=True), out_np)


def test_repeated_asarray_is_the_same_memory():
    x = xp.ones(3)
    a, b = np.asarray(x), np.asarray(x)
    assert np.shares_memory(a, b)


def test_copies_do_not_alias():
    x = xp.zeros(3)
    c = np.array(x)  # copy=True
    c[0] = 1.0
    d = np.asarray(x, dtype=np.float32)  # another dtype: a copy, as in numpy
    d[1] = 1.0
    assert float(xp.sum(x)) == 0.0
    with pytest.raises(ValueError, match="without a copy"):
        np.asarray(x, dtype=np.float32, copy=False)


def test_nan_and_signed_zero_writes_are_seen():
    x = xp.zeros(2)
    h = np.asarray(x)
    h[0] = -0.0
    h[1] = np.nan
    got = np.asarray(x, copy=True)
    assert np.signbit(got[0]) and np.isnan(got[1])


def test_family_is_released_when_aliases_die():
    x = xp.zeros(3)
    h = np.asarray(x)
    h[0] = 1.0
    del h
    gc.collect()
    float(xp.sum(x))  # a read of the family flushes and forgets the dead alias
    assert type(x) is xp.asarray(1.0).__class__
    assert all(a.holder is not x for f in _host_alias._families.values() for a in f.aliases)


def test_alias_of_a_read_only_view_is_read_only_and_follows_the_base():
    base = xp.ones(3)
    b = xp.broadcast_to(base, (2, 3))
    h = np.asarray(b)
    with pytest.raises(ValueError, match="read-only"):
        h[0, 0] = 5.0
    base[0] = 4.0
    np.testing.assert_array_equal(h, [[4.0, 1.0, 1.0]] * 2)


def test_threads_filling_rows_through_numpy_aliases():
    """SciPy's ndimage threading test: each thread fills np.asarray(out[i]) of one array."""
    import threading
    n, m = 8, 20000
    out = xp.zeros((n, m))

    def fill(i):
        for _ in range(3):
            h = np.asarray(out[i, ...])
            h[...] = np.full(m, float(i + 1))
            del h

    threads = [threading.Thread(target=fill, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    want = np.repeat(np.arange(1.0, n + 1)[:, None], m, axis=1)
    np.testing.assert_array_equal(np.asarray(out, copy=True), want)


def test_threads_writing_disjoint_parts_of_one_array():
    import threading
    n = 8
    x = xp.zeros((n, 16))
    y = xp.zeros((n, 16))

    def work(i):
        for k in range(10):
            x[i, k] = float(i)           # __setitem__ on the base
            row = y[i]                   # a write through a view
            row += 1.0

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    want_x = np.zeros((n, 16))
    want_x[:, :10] = np.arange(n)[:, None]
    np.testing.assert_array_equal(np.asarray(x, copy=True), want_x)
    np.testing.assert_array_equal(np.asarray(y, copy=True), np.full((n, 16), 10.0))


def test_threads_sweeping_families_other_threads_empty():
    """Reads in many threads, dropped at once (copied row aliases and zero-copy reads): a sweep
    in one thread may look at a family another thread's flush is emptying (it raised IndexError
    once); every row still ends with its thread's writes."""
    import sys
    import threading
    n, m = 8, 2000
    errors = []
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # (thread switches inside the sweep's window)
    try:
        for _ in range(15):
            out = xp.zeros((n, m))

            def fill(i):
                try:
                    for _ in range(3):
                        h = np.asarray(out[i, ...])
                        h[...] = np.full(m, float(i + 1))
                        del h
                        read = np.asarray(out[i] * 1.0)
                        del read
                except Exception as e:  # (a thread's exception would not fail the test)
                    errors.append(e)

            threads = [threading.Thread(target=fill, args=(i,)) for i in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors[:3]
            want = np.repeat(np.arange(1.0, n + 1)[:, None], m, axis=1)
            np.testing.assert_array_equal(np.asarray(out, copy=True), want)
    finally:
        sys.setswitchinterval(interval)


def test_sweep_tolerates_a_family_emptied_while_it_looks(monkeypatch):
    """The interleaving behind the test above, made certain: another thread's flush ends a
    family between the sweep's look at its aliases and its use of them."""
    x = xp.zeros((4, 5))
    keep = x * 1.0  # (another user of x's node: the read is a copy)
    np.asarray(x)[0, 0] = 3.0  # dropped at once: the sweep's business
    fam = _host_alias._families[id(x)]
    real = _host_alias.sys

    class EmptiedMeanwhile:
        @staticmethod
        def getrefcount(obj):
            _host_alias.flush(x, capture=False)  # "another thread": takes the write in, ends it
            monkeypatch.setattr(_host_alias, "sys", real)
            return 0

    monkeypatch.setattr(_host_alias, "sys", EmptiedMeanwhile)
    _host_alias._sweep()
    assert not fam.aliases and id(x) not in _host_alias._families
    assert float(x[0, 0]) == 3.0 and float(keep[0, 0]) == 0.0
