"""A program's donating variant (outputs written into dead buffers) is one more XLA compile: it is
built once the graph has repeated (`interpret_first` requests, like any compile the tier policy
starts), and a variant an earlier process stored is loaded at once instead (issue 11 target 2:
ridge's second process compiled the variant of a program it had just loaded from disk)."""
import gc

import numpy as np

import lazyarray as xp
from lazyarray import _config, _engine


def _step(x, xn, i):
    y = xp.sqrt(xp.abs(x * float(i) + 1.0))
    xp.evaluate(y)
    np.testing.assert_allclose(np.asarray(y, copy=True), np.sqrt(np.abs(xn * i + 1.0)), rtol=1e-12)
    del y
    gc.collect()
    _engine.wait_for_compiles()


def test_variant_waits_for_repetition_then_loads_from_disk(tmp_path, monkeypatch, fresh, rng):
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    xn = rng.standard_normal(4096)
    x = xp.asarray(xn)
    _step(x, xn, 0)  # the plain program, compiled at first sight (interpret_first=0)
    assert fresh.compiles == 1
    monkeypatch.setattr(_config, "interpret_first", 3)
    for i in (1, 2):  # a dead output buffer is there: the variant is asked for, not built yet
        _step(x, xn, i)
        assert fresh.background_compiles == 0 and fresh.recycled_buffers == 0
    _step(x, xn, 3)  # the third request starts it
    assert fresh.background_compiles == 1 and fresh.compiles == 2
    _step(x, xn, 4)
    assert fresh.recycled_buffers >= 1  # and then it runs

    _engine.clear_cache()  # a new process, as far as programs go: both are on disk
    compiles, hits, recycled = fresh.compiles, fresh.disk_hits, fresh.recycled_buffers
    _step(x, xn, 5)  # the plain program: loaded at the graph's first sight
    _step(x, xn, 6)  # the variant: loaded at its first request
    assert fresh.compiles == compiles and fresh.disk_hits == hits + 2
    assert fresh.recycled_buffers > recycled
