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


def test_in_memory_cache_is_bounded(fresh, monkeypatch):
    monkeypatch.setattr(_config, "cache_size", 3)
    for n in range(1, 7):
        float(xp.sum(xp.ones(n)))
    assert len(_engine._cache) == 3
    assert fresh.compiles == 6
