"""The previous run's programs, loaded on the compile thread at the next run's first disk lookup
(`_prefetch`): a second process takes its programs from there, a manifest never names anything
outside the cache directory, and a bad entry or one the thread had not reached costs a normal
load, never a wrong program."""
import os
import subprocess
import sys
import threading

import numpy as np

import lazyarray as xp
from lazyarray import _config, _engine, _prefetch
from lazyarray._engine_state import state

WORKLOAD = """
import numpy as np, lazyarray as xp
from lazyarray import _engine, _prefetch
_engine.wait_for_compiles()  # (the prefetch queued at import has run: no race with the first lookup)
a = xp.asarray(np.arange(12.0).reshape(3, 4))
s = xp.linalg.svd(a, full_matrices=False)[1]
assert np.allclose(np.asarray(s), np.linalg.svd(np.arange(12.0).reshape(3, 4), compute_uv=False))
assert float(xp.sum(xp.exp(a * 0.5))) == float(np.sum(np.exp(np.arange(12.0) * 0.5)))
_engine.wait_for_compiles()
print(xp.metrics.compiles, xp.metrics.disk_hits, _prefetch.taken)
"""


def _run(cache):
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(cache), LAZYARRAY_INTERPRET_FIRST="0")
    out = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return [int(v) for v in out.stdout.split()]


def test_second_process_takes_its_programs_from_the_prefetch(tmp_path):
    c1, d1, t1 = _run(tmp_path)
    assert c1 >= 2 and d1 == 0 and t1 == 0
    manifests = os.listdir(tmp_path / "manifests")
    assert len(manifests) == 1
    with open(tmp_path / "manifests" / manifests[0]) as f:
        assert len(f.read().split()) == c1  # every program the first run installed, once
    c2, d2, t2 = _run(tmp_path)
    assert c2 == 0 and d2 == c1
    assert t2 == c1  # every program from the prefetch thread (it ran before the first lookup)


def _fresh_prefetch(monkeypatch, root):
    monkeypatch.setattr(_config, "cache_dir", str(root))
    monkeypatch.setattr(_prefetch, "_started", set())
    monkeypatch.setattr(_prefetch, "_queued", {})
    monkeypatch.setattr(_prefetch, "_used", {})


def _write_manifest(root, lines):
    path = _prefetch.manifest_path(str(root))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def test_manifest_names_outside_the_cache_are_skipped(tmp_path, monkeypatch, engine):
    _fresh_prefetch(monkeypatch, tmp_path / "cache")
    secret = tmp_path / "secret.xla"
    secret.write_bytes(b"not a program")
    _write_manifest(tmp_path / "cache", ["../secret.xla", "/etc/passwd", "zz/" + "0" * 64 + ".xla",
                                         "ab/" + "c" * 63 + ".xla", "garbage"])
    _prefetch.start(xp.__array_namespace_info__().default_device())
    assert _prefetch._queued == {}


def test_a_bad_entry_in_the_manifest_costs_a_compile(tmp_path, monkeypatch, fresh):
    """The manifest names an entry whose bytes are corrupt: the prefetch hands back None, the
    program compiles, the value is right."""
    _fresh_prefetch(monkeypatch, tmp_path)
    an = np.arange(6.0)
    a = xp.asarray(an)
    assert float(xp.sum(a * 4.0)) == 60.0
    (name,) = _prefetch._used[str(tmp_path)]
    with open(os.path.join(tmp_path, name), "r+b") as f:
        f.seek(-1, os.SEEK_END)
        f.write(b"\x00" if f.read(1) != b"\x00" else b"\x01")
    _prefetch.write_manifests()
    _engine.clear_cache()
    _fresh_prefetch(monkeypatch, tmp_path)
    compiles = fresh.compiles
    assert float(xp.sum(a * 4.0)) == 60.0
    assert fresh.compiles == compiles + 1 and fresh.disk_hits == 0


def test_an_entry_the_thread_has_not_reached_is_loaded_by_the_caller(tmp_path, monkeypatch, fresh):
    _fresh_prefetch(monkeypatch, tmp_path)
    a = xp.asarray(np.arange(5.0))
    assert float(xp.sum(a + 2.0)) == 20.0
    _prefetch.write_manifests()
    _engine.clear_cache()
    _fresh_prefetch(monkeypatch, tmp_path)
    gate = threading.Event()
    state.compile_thread().submit(gate.wait, 30)  # the compile thread is busy: nothing is loaded
    taken = _prefetch.taken
    try:
        assert float(xp.sum(a + 2.0)) == 20.0  # taken back and loaded here, not waited for
        assert fresh.disk_hits == 1 and fresh.compiles == 1 and _prefetch.taken == taken
        assert not gate.is_set()
    finally:
        gate.set()


def test_a_removed_cache_directory_is_not_created_again(tmp_path, monkeypatch, fresh):
    root = tmp_path / "gone"
    root.mkdir()
    _fresh_prefetch(monkeypatch, root)
    assert float(xp.sum(xp.asarray(np.arange(4.0)) * 2.0)) == 12.0
    assert _prefetch._used[str(root)]
    for dirpath, dirnames, files in os.walk(root, topdown=False):
        for f in files:
            os.unlink(os.path.join(dirpath, f))
        os.rmdir(dirpath)
    _prefetch.write_manifests()
    assert not root.exists()


BACKGROUND_ONLY = """
import numpy as np, lazyarray as xp
from lazyarray import _engine
a = xp.asarray(np.arange(12.0).reshape(3, 4))
for i in range(10000):  # (until the tier policy starts the graph's compile in the background)
    assert float(xp.sum(xp.exp(a * 0.5))) == float(np.sum(np.exp(np.arange(12.0) * 0.5)))
    if xp.metrics.background_compiles:
        break
_engine.wait_for_compiles()  # built, never asked for again: no request installs it
print(xp.metrics.background_compiles, xp.metrics.compiles)
"""


def test_a_program_built_in_the_background_is_named_for_the_next_run(tmp_path):
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", BACKGROUND_ONLY], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    background, compiles = (int(v) for v in out.stdout.split())
    assert background == 1 and compiles == 1
    manifests = os.listdir(tmp_path / "manifests")
    with open(tmp_path / "manifests" / manifests[0]) as f:
        names = f.read().split()
    assert len(names) == 1 and os.path.exists(tmp_path / names[0])
