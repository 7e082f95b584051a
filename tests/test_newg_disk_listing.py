"""`from_disk`'s look at the on-disk cache (`_program_cache._DiskListing.may_hold(root, within)`):
an empty directory is not looked at again for `within` seconds; an entry this process writes is
found at once (`forget`), one another process writes once `within` has passed; `may_hold(root)`
alone looks every time."""
import os
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _program_cache


_mtimes = itertools.count(1000)


def _touch(path):
    """A new mtime for the directory (a filesystem's coarse clock may give a new entry the
    listing's own: `_DiskListing`'s docstring)."""
    t = next(_mtimes)
    os.utime(path, (t, t))


def test_an_empty_answer_is_kept_within_its_window(tmp_path, monkeypatch):
    listing = _program_cache._DiskListing()
    stats = []
    real = os.stat
    monkeypatch.setattr(_program_cache.os, "stat", lambda p, *a, **k: (p == str(tmp_path) and stats.append(p)) or real(p, *a, **k))
    clock = [100.0]
    monkeypatch.setattr(_program_cache.time, "monotonic", lambda: clock[0])
    root = str(tmp_path)
    assert not listing.may_hold(root, 0.05)
    assert len(stats) == 1
    (tmp_path / "ab").mkdir()  # another process's entry
    _touch(tmp_path)
    clock[0] += 0.01
    assert not listing.may_hold(root, 0.05)  # not looked at: within the window
    assert len(stats) == 1
    assert listing.may_hold(root)  # asked without a window: looked at
    assert len(stats) == 2
    listing2 = _program_cache._DiskListing()
    assert not listing2.may_hold(str(tmp_path / "absent"), 0.05)
    clock[0] += 0.06
    assert listing2.may_hold(root, 0.05)  # another root: looked at
    (tmp_path / "ab").rmdir()
    _touch(tmp_path)
    listing3 = _program_cache._DiskListing()
    assert not listing3.may_hold(root, 0.05)
    (tmp_path / "cd").mkdir()
    _touch(tmp_path)
    clock[0] += 0.06
    assert listing3.may_hold(root, 0.05)  # past the window: found
    assert listing3.may_hold(root, 0.05)  # a cache holding entries is looked at every time


def test_forget_looks_again_at_once(tmp_path):
    listing = _program_cache._DiskListing()
    root = str(tmp_path)
    assert not listing.may_hold(root, 60.0)
    (tmp_path / "ab").mkdir()
    _touch(tmp_path)
    assert not listing.may_hold(root, 60.0)
    listing.forget()
    assert listing.may_hold(root, 60.0)


def _graph(n):
    return xp.sum(xp.exp(xp.asarray(np.arange(float(n)))) * 0.5)


def test_an_entry_this_process_compiled_is_found_at_the_next_first_sight(tmp_path, monkeypatch, engine):
    fresh = xp.metrics
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    monkeypatch.setattr(_program_cache, "EMPTY_LISTING_SECONDS", 3600.0)  # (only `forget` can end it)
    monkeypatch.setattr(_config, "interpret_first", 2)
    assert float(_graph(5)) == pytest.approx(np.sum(np.exp(np.arange(5.0))) * 0.5)  # empty: kept empty
    monkeypatch.setattr(_config, "interpret_first", 0)
    assert float(_graph(11)) == pytest.approx(np.sum(np.exp(np.arange(11.0))) * 0.5)
    _engine.wait_for_compiles()
    assert fresh.compiles == 1
    _engine.clear_cache()
    fresh.reset()
    monkeypatch.setattr(_config, "interpret_first", 2)
    assert float(_graph(11)) == pytest.approx(np.sum(np.exp(np.arange(11.0))) * 0.5)
    assert fresh.disk_hits == 1 and fresh.compiles == 0
