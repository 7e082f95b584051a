"""numpy aliases on the sync path (`_host_alias`): a family is forgotten when its root dies, and
a flush asked by a thread holding the engine lock never waits for another thread's write lock."""
import gc
import threading

import numpy as np

import lazyarray as xp
from lazyarray import _host_alias
from lazyarray._graph import lock as engine_lock
from lazyarray._views import write_lock


def test_a_family_ends_when_its_root_dies(compiled_now):
    x = xp.asarray(np.arange(500.0))
    for step in range(3):
        y = x * 2.0 + float(step)
        h = np.asarray(y)
        np.testing.assert_array_equal(h, np.arange(500.0) * 2.0 + step)
        key = id(y)
        assert key in _host_alias._families
        del y
        assert key not in _host_alias._families  # (the numpy array holds the memory, not the array)
        np.testing.assert_array_equal(h, np.arange(500.0) * 2.0 + step)
        del h
        gc.collect()
    y = x + 1.0
    np.asarray(y)
    del y
    assert not _host_alias._families


def test_a_live_root_keeps_its_family_and_its_writes(compiled_now):
    x = xp.asarray(np.zeros(300))
    y = x + 1.0
    h = np.asarray(y)
    h[:3] = 7.0  # the node's own memory
    z = y * 2.0  # y's node gains a user: the alias unshares
    want = np.ones(300)
    want[:3] = 7.0
    np.testing.assert_array_equal(np.asarray(z), want * 2.0)
    h[3] = 5.0  # a copied alias now: taken in at the next read of y
    want[3] = 5.0
    np.testing.assert_array_equal(np.asarray(y, copy=True), want)
    assert id(y) in _host_alias._families


def test_a_flush_under_the_engine_lock_does_not_wait_for_the_write_lock(compiled_now):
    x = xp.asarray(np.zeros(100))
    y = x + 1.0
    h = np.asarray(y)
    h2 = np.asarray(y[1:])  # a copied alias of a view: the family has something to flush
    held, release = threading.Event(), threading.Event()

    def hold():
        with write_lock:
            held.set()
            release.wait(10)
    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(10)
        done = threading.Event()

        def flush_under_engine_lock():
            with engine_lock:
                _host_alias.flush(y)
            done.set()
        f = threading.Thread(target=flush_under_engine_lock)
        f.start()
        assert done.wait(10), "flush waited for the write lock while holding the engine lock"
        f.join()
    finally:
        release.set()
        t.join()
    np.testing.assert_array_equal(np.asarray(y, copy=True), np.ones(100))
    del h, h2
