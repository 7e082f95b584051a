"""The runtime layer and the compile caches: in memory and on disk across processes."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import lazyarray as xp
from lazyarray import _config, _engine

WORKLOAD = textwrap.dedent("""
    import numpy as np, lazyarray as xp
    x = xp.asarray(np.arange(12.0).reshape(3, 4))
    for i in range(5):
        y = xp.sum(xp.exp(x * 0.1) + i, axis=0)
        float(y[0])
    big = xp.asarray(np.ones((100, 100)))
    float(xp.sum(big @ big))
    from lazyarray import _engine
    _engine.wait_for_compiles()  # new graphs are interpreted first and compiled in the background
    print(xp.metrics.compiles, xp.metrics.disk_hits, float(y[1]))
""")


def _run_process(cache_dir, interpret_first="0"):
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(cache_dir), LAZYARRAY_INTERPRET_FIRST=interpret_first)
    out = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True, check=True)
    compiles, disk_hits, value = out.stdout.split()
    return int(compiles), int(disk_hits), float(value)


def test_second_process_compiles_nothing(tmp_path):
    c1, d1, v1 = _run_process(tmp_path)
    assert c1 >= 2 and d1 == 0
    c2, d2, v2 = _run_process(tmp_path)
    assert c2 == 0, "a second process with the same cache directory must not compile"
    assert d2 == c1
    assert abs(v1 - v2) <= 1e-12 * abs(v1)  # a read may come from the interpreter or the program
    assert any(f.endswith(".xla") for _, _, fs in os.walk(tmp_path) for f in fs)


def test_interpreter_tier_loads_programs_from_disk(tmp_path):
    """With a cache directory, a graph new to this process is looked up on disk before the
    interpreter runs it: programs an earlier process compiled are loaded, not interpreted."""
    c1, _, v1 = _run_process(tmp_path)
    c2, d2, v2 = _run_process(tmp_path, interpret_first="2")
    assert c2 == 0 and d2 == c1
    assert v1 == v2  # the same compiled program computed both


def test_corrupt_disk_entry_is_recompiled(tmp_path, monkeypatch, fresh):
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    a = xp.asarray(np.arange(5.0))
    assert float(xp.sum(a * 3.0)) == 30.0
    for root, _, files in os.walk(tmp_path):
        for f in files:
            with open(os.path.join(root, f), "wb") as fh:
                fh.write(b"garbage")
    _engine.clear_cache()
    assert float(xp.sum(a * 3.0)) == 30.0


def test_in_memory_cache_is_bounded(engine, fresh, monkeypatch):
    monkeypatch.setattr(_config, "cache_size", 3)
    for n in range(1, 7):
        float(xp.sum(xp.ones(n)))
    assert len(engine.programs) == 3
    assert fresh.compiles == 6


# ---------------------------------------------------------------- the on-disk cache's entries

from lazyarray import _disk_cache, _runtime  # noqa: E402


def _entries(root):
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(root) for f in fs if f.endswith(".xla"))


def _compile_one(tmp_path, monkeypatch, scale=3.0, n=5):
    """Compile `sum(arange(n) * scale)` with the disk cache at tmp_path; returns its value."""
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    return float(xp.sum(xp.asarray(np.arange(float(n))) * scale))


def _tag():
    return _runtime.disk_tag(xp.__array_namespace_info__().default_device()._pjrt)


def _damage_and_reload(tmp_path, monkeypatch, fresh, damage):
    """Compile, damage the single entry with `damage(bytes) -> bytes`, reload in a cleared
    cache: the entry must be ignored (a compile, no disk hit, right value) and replaced by a
    whole one."""
    assert _compile_one(tmp_path, monkeypatch) == 30.0
    (entry,) = _entries(tmp_path)
    with open(entry, "rb") as f:
        good = f.read()
    assert _disk_cache.decode(good, _tag()) is not None
    with open(entry, "wb") as f:
        f.write(damage(good))
    _engine.clear_cache()
    fresh.reset()
    assert _compile_one(tmp_path, monkeypatch) == 30.0
    assert fresh.disk_hits == 0 and fresh.compiles == 1
    with open(entry, "rb") as f:
        assert _disk_cache.decode(f.read(), _tag()) is not None, "the bad entry was not replaced"
    _engine.clear_cache()
    fresh.reset()
    assert _compile_one(tmp_path, monkeypatch) == 30.0
    assert fresh.disk_hits == 1 and fresh.compiles == 0


def test_truncated_entry_is_ignored_and_replaced(tmp_path, monkeypatch, fresh):
    _damage_and_reload(tmp_path, monkeypatch, fresh, lambda data: data[:len(data) // 2])


def test_truncated_header_is_ignored_and_replaced(tmp_path, monkeypatch, fresh):
    _damage_and_reload(tmp_path, monkeypatch, fresh, lambda data: data[:12])


def test_flipped_payload_byte_is_ignored_and_replaced(tmp_path, monkeypatch, fresh):
    def flip(data):
        i = len(data) - 100
        return data[:i] + bytes([data[i] ^ 0x40]) + data[i + 1:]
    _damage_and_reload(tmp_path, monkeypatch, fresh, flip)


def test_entry_of_another_jaxlib_is_ignored_and_replaced(tmp_path, monkeypatch, fresh):
    def other_version(data):
        payload = _disk_cache.decode(data, _tag())
        return _disk_cache.encode(payload, _tag().replace("jaxlib-", "jaxlib-0.0.1-", 1))
    _damage_and_reload(tmp_path, monkeypatch, fresh, other_version)


def test_headerless_entry_of_an_older_lazyarray_is_ignored(tmp_path, monkeypatch, fresh):
    """An entry written before entries had a header (the bare serialized executable)."""
    _damage_and_reload(tmp_path, monkeypatch, fresh, lambda data: _disk_cache.decode(data, _tag()))


def test_directory_is_bounded_by_cache_bytes(tmp_path, monkeypatch, fresh):
    """Past LAZYARRAY_CACHE_BYTES the least recently used entries go; a hit refreshes one."""
    _compile_one(tmp_path, monkeypatch, n=1)
    (first,) = _entries(tmp_path)
    size = os.path.getsize(first)
    monkeypatch.setattr(_config, "cache_max_bytes", int(3.5 * size))
    old = os.path.getmtime(first) - 100
    os.utime(first, (old, old))
    for n in range(2, 4):
        _compile_one(tmp_path, monkeypatch, n=n)
    assert len(_entries(tmp_path)) == 3
    _engine.clear_cache()
    _compile_one(tmp_path, monkeypatch, n=1)  # a disk hit: `first` is now the most recent
    assert fresh.disk_hits == 1
    for n in range(4, 8):
        _compile_one(tmp_path, monkeypatch, n=n)
        sizes = [os.path.getsize(p) for p in _entries(tmp_path)]
        assert sum(sizes) <= 3.5 * size
    assert len(_entries(tmp_path)) == 3
    _engine.clear_cache()
    fresh.reset()
    for n in (7, 6):  # the newest entries survived
        assert _compile_one(tmp_path, monkeypatch, n=n) == 3.0 * sum(range(n))
    assert fresh.disk_hits == 2 and fresh.compiles == 0


def test_enforce_bound_deletes_oldest_first(tmp_path):
    paths = []
    for k in range(6):
        p = tmp_path / f"{k:02d}" / f"e{k}.xla"
        p.parent.mkdir()
        p.write_bytes(b"x" * 100)
        os.utime(p, (1000 + k, 1000 + k))
        paths.append(p)
    stale = tmp_path / "00" / "e0.xla.123.1.2.tmp"
    stale.write_bytes(b"half")
    os.utime(stale, (1, 1))
    assert _disk_cache.enforce_bound(str(tmp_path), 350) == 300
    assert [p.exists() for p in paths] == [False, False, False, True, True, True]
    assert not stale.exists()


WRITER = textwrap.dedent("""
    import sys, numpy as np, lazyarray as xp
    from lazyarray import _config, _runtime
    from lazyarray._engine_state import state
    _config.interpret_first = 0
    path, rounds = sys.argv[1], int(sys.argv[2])
    x = xp.asarray(np.arange(5.0))
    y = xp.sum(x * 3.0)
    float(y)
    (compiled,) = state.programs.values()
    dev = x.device._pjrt
    for _ in range(rounds):  # store and load the same entry as fast as possible
        assert _runtime.store_serialized(path, compiled.executable, dev)
        _runtime.load_serialized(path, dev)  # may race a rename: must never crash or mislead
    print("ok")
""")


def test_two_processes_writing_one_entry(tmp_path):
    """Two processes store the same entry hundreds of times at once: the file left is whole, it
    loads, and no temporary file is left behind."""
    path = str(tmp_path / "ab" / "entry.xla")
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, path, "300"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and out.strip() == "ok", err[-2000:]
    assert os.listdir(tmp_path / "ab") == ["entry.xla"]
    with open(path, "rb") as f:
        assert _disk_cache.decode(f.read(), _tag()) is not None
    dev = xp.__array_namespace_info__().default_device()._pjrt
    assert _runtime.load_serialized(path, dev) is not None


def test_two_processes_compiling_one_graph_at_once(tmp_path):
    """Both compile and store the same programs at the same time; a third loads them all."""
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path), LAZYARRAY_INTERPRET_FIRST="0")
    procs = [subprocess.Popen([sys.executable, "-c", WORKLOAD], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    values = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err[-2000:]
        values.append(out.split())
    programs = {int(c) + int(d) for c, d, _ in values}  # each compiled or loaded every program
    assert len(programs) == 1
    c3, d3, v3 = _run_process(tmp_path)
    assert c3 == 0 and d3 == programs.pop()
    assert v3 == float(values[0][2]) == float(values[1][2])
