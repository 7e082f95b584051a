"""An empty on-disk cache costs a new graph nothing: its structural key is hashed to look for a
program only once the cache directory holds an entry (`_program_cache._DiskListing`)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _program_cache, _structural_key


def _graph(n):
    return xp.sum(xp.exp(xp.asarray(np.arange(float(n)))) * 0.5)


def test_an_empty_cache_hashes_no_key_and_a_written_entry_is_found(tmp_path, monkeypatch, engine):
    fresh = xp.metrics
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    monkeypatch.setattr(_config, "interpret_first", 2)
    digests = []
    real = _structural_key.digest
    monkeypatch.setattr(_structural_key, "digest", lambda *a: digests.append(1) or real(*a))
    assert float(_graph(7)) == pytest.approx(np.sum(np.exp(np.arange(7.0))) * 0.5)
    assert digests == [] and fresh.compiles == 0  # interpreted; nothing on disk to look for
    monkeypatch.setattr(_config, "interpret_first", 0)
    assert float(_graph(9)) == pytest.approx(np.sum(np.exp(np.arange(9.0))) * 0.5)
    _engine.wait_for_compiles()
    assert fresh.compiles == 1  # written to tmp_path: the cache holds an entry now
    _engine.clear_cache()
    fresh.reset()
    monkeypatch.setattr(_config, "interpret_first", 2)
    assert float(_graph(9)) == pytest.approx(np.sum(np.exp(np.arange(9.0))) * 0.5)
    assert digests and fresh.disk_hits == 1 and fresh.compiles == 0


def test_a_missing_cache_directory_holds_nothing(tmp_path):
    listing = _program_cache._DiskListing()
    assert not listing.may_hold(str(tmp_path / "absent"))
    assert not listing.may_hold(str(tmp_path))
    (tmp_path / "ab").mkdir()
    assert listing.may_hold(str(tmp_path))
