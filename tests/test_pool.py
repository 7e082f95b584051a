"""Recycling the buffers of dead arrays as program outputs (donation + aliasing)."""
import gc

import numpy as np

import lazyarray as xp
from lazyarray import _config, _engine
from lazyarray._pool import pool


def test_dead_large_arrays_are_reused_as_outputs(fresh, monkeypatch, rng):
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    xn = rng.standard_normal(4096)
    x = xp.asarray(xn)
    results = []
    for i in range(6):
        y = xp.sqrt(xp.abs(x * float(i) + 1.0))
        xp.evaluate(y)
        results.append(float(xp.sum(y)))
        del y
        gc.collect()
        _engine.wait_for_compiles()  # (the donating variant builds in the background: a busy machine)
    expected = [float(np.sum(np.sqrt(np.abs(xn * i + 1.0)))) for i in range(6)]
    np.testing.assert_allclose(results, expected, rtol=1e-12)
    assert fresh.recycled_buffers >= 4
    np.testing.assert_array_equal(np.asarray(x), xn)  # the live input was never donated


def test_live_arrays_are_never_recycled(fresh, monkeypatch, rng):
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    x = xp.asarray(rng.standard_normal(2048))
    kept = []
    for i in range(5):
        y = x + float(i)
        xp.evaluate(y)
        kept.append(y)
    for i, y in enumerate(kept):
        np.testing.assert_array_equal(np.asarray(y), np.asarray(x) + i)


def test_pool_is_bounded(monkeypatch, rng):
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    monkeypatch.setattr(_config, "pool_max_bytes", 3 * 8 * 1024)
    monkeypatch.setattr(_config, "interpret_first", 0)  # device buffers (the interpreter's stay on the host)
    pool.clear()
    arrays = [xp.asarray(rng.standard_normal(1024)) * 2.0 for _ in range(8)]
    xp.evaluate(*arrays)
    del arrays
    gc.collect()
    assert 0 < pool.bytes <= 3 * 8 * 1024


class _NoCopy:
    """Asks lazyarray for its device buffer itself (copy=False) through numpy's from_dlpack."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(copy=False)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_buffers_exported_by_dlpack_are_not_recycled(monkeypatch, rng):
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    a = xp.asarray(rng.standard_normal(1024)) * 2.0
    xp.evaluate(a)
    view = np.from_dlpack(_NoCopy(a))
    expected = np.array(view, copy=True)
    del a
    gc.collect()
    for i in range(4):  # programs that would take a recycled buffer of that shape
        b = xp.asarray(rng.standard_normal(1024)) * float(i)
        xp.evaluate(b)
        del b
        gc.collect()
    np.testing.assert_array_equal(view, expected)


def test_donation_never_costs_a_foreground_compile(fresh, monkeypatch, rng):
    """Issue 11's Ridge storm: each new pattern of reused (donated) output buffers compiled the
    same graph again, in the foreground. Now the plain program runs and the donating variant is
    built in the background, then used."""
    from lazyarray import _engine
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    a = rng.standard_normal((64, 64)) + 64 * np.eye(64)
    b = rng.standard_normal((64, 256))
    A, B = xp.asarray(a), xp.asarray(b)
    want = np.linalg.solve(a, b)
    for i in range(6):
        y = xp.linalg.solve(A, B * float(i + 1))  # a LAPACK graph: compiled at first sight
        xp.evaluate(y)
        np.testing.assert_allclose(np.asarray(y, copy=True), want * (i + 1), rtol=1e-10)
        del y
        gc.collect()
        _engine.wait_for_compiles()
    foreground = fresh.compiles - fresh.background_compiles
    assert foreground == 1, (fresh.compiles, fresh.background_compiles)
    assert fresh.background_compiles <= 2
    assert fresh.recycled_buffers >= 1  # the variant did run, reusing dead buffers
