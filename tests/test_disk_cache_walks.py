"""The disk cache's size bound walks the directory at a process's first write, then only when
the process's own writes could pass the bound or a minute has gone by (`_disk_cache`): a
per-user cache of thousands of entries is not stat-ed file by file after every compile."""
import os

import pytest

from lazyarray import _config, _disk_cache


@pytest.fixture
def walks(monkeypatch, tmp_path):
    calls = []
    real = _disk_cache.enforce_bound

    def counting(root, max_bytes):
        calls.append(root)
        return real(root, max_bytes)
    monkeypatch.setattr(_disk_cache, "enforce_bound", counting)
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    monkeypatch.setattr(_disk_cache, "_since_walk", {})
    return calls


def _write(tmp_path, k, size=100):
    return _disk_cache.write(str(tmp_path / f"{k:02d}" / f"e{k}.xla"), b"p" * size, "tag")


def _total(tmp_path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(tmp_path) for f in fs)


def test_writes_well_under_the_bound_walk_once(walks, tmp_path, monkeypatch):
    monkeypatch.setattr(_config, "cache_max_bytes", 1 << 20)
    for k in range(20):
        assert _write(tmp_path, k)
    assert len(walks) == 1


def test_a_write_that_could_pass_the_bound_walks_and_the_bound_holds(walks, tmp_path, monkeypatch):
    entry = len(_disk_cache.encode(b"p" * 100, "tag"))
    monkeypatch.setattr(_config, "cache_max_bytes", int(3.5 * entry))
    for k in range(8):
        assert _write(tmp_path, k)
        assert _total(tmp_path) <= 3.5 * entry  # after every write, as before the walks were spaced
    assert 1 < len(walks) < 8
    assert len([f for _, _, fs in os.walk(tmp_path) for f in fs]) == 3


def test_another_process_s_entries_are_counted_within_a_minute(walks, tmp_path, monkeypatch):
    monkeypatch.setattr(_config, "cache_max_bytes", 1 << 20)
    assert _write(tmp_path, 0)
    (tmp_path / "ff").mkdir()
    (tmp_path / "ff" / "other.xla").write_bytes(b"o" * (1 << 20))  # another process's entry
    assert _write(tmp_path, 1)
    assert len(walks) == 1 and (tmp_path / "ff" / "other.xla").exists()  # not seen yet
    clock = _disk_cache.time.monotonic() + _disk_cache._WALK_EVERY_SECONDS + 1
    monkeypatch.setattr(_disk_cache.time, "monotonic", lambda: clock)
    assert _write(tmp_path, 2)
    assert len(walks) == 2
    assert _total(tmp_path) <= 1 << 20  # the oldest went to make room
