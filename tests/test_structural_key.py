"""The on-disk cache is named by the graph's structural key (`_structural_key`), not its emitted
text: equal graphs get equal names in every process, different graphs (down to -0.0 against 0.0
or a NaN's payload) never share one, and a graph an earlier process compiled is loaded without
being lowered again."""
import math
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _program_cache, _structural_key
from lazyarray._graph import Plan


def _key(*outputs):
    nodes = [o._node for o in outputs]
    return Plan(nodes).key(nodes)


def _graph(a):
    return xp.sum(xp.exp(a * 2.0) - a, axis=0)


def test_equal_graphs_have_equal_bytes():
    a = xp.asarray(np.arange(6.0).reshape(2, 3))
    b = xp.asarray(np.ones((2, 3)))  # other data, same structure
    assert _structural_key.encode(_key(_graph(a))) == _structural_key.encode(_key(_graph(b)))


def test_different_structures_have_different_bytes():
    a = xp.asarray(np.arange(6.0).reshape(2, 3))
    keys = [_key(_graph(a)), _key(xp.sum(xp.exp(a * 2.0) - a, axis=1)),
            _key(xp.sum(xp.exp(a * 2.0) + a, axis=0)), _key(_graph(xp.asarray(np.ones((3, 2))))),
            _key(_graph(xp.asarray(np.ones((2, 3), dtype=np.float32))))]
    encoded = [_structural_key.encode(k) for k in keys]
    assert len(set(encoded)) == len(keys)


NEG_NAN = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000001))[0]


@pytest.mark.parametrize("a, b", [
    (0.0, -0.0), (math.nan, NEG_NAN), (1, True), (1, 1.0), (0, False), (1.0, 1 + 0j),
    (np.float32(1.5), np.float64(1.5)), (np.int32(3), 3), ("ab", ("a", "b")), ((1, 2), [1, 2]),
    ((1, (2, 3)), ((1, 2), 3)), (xp.float32, xp.float64), (np.dtype("<f8"), np.dtype("<f4")),
    (np.array([1.0, 2.0]), np.array([[1.0, 2.0]])), ("1:a", "1a"), (None, ()),
])
def test_values_that_lower_differently_never_share_bytes(a, b):
    """Equality would conflate some of these (0.0 == -0.0, 1 == True == 1.0): the encoding
    does not, since each can change the emitted program (a constant's bits, a type)."""
    assert _structural_key.encode((a,)) != _structural_key.encode((b,))


def test_a_value_without_exact_encoding_is_refused():
    class Opaque:  # its repr would name a memory address another process may reuse
        pass
    with pytest.raises(_structural_key.Unkeyable):
        _structural_key.encode((Opaque(),))
    with pytest.raises(_structural_key.Unkeyable):
        _structural_key.encode(((1, 2), {"k": Opaque()}))


def test_bytes_are_equal_in_another_process():
    """Hash randomization (sets, dicts) and object addresses differ between processes: the
    digest of the same graph must not."""
    code = ("import numpy as np, lazyarray as xp\n"
            "from lazyarray import _structural_key\n"
            "from lazyarray._graph import Plan\n"
            "a = xp.asarray(np.ones((2, 3)))\n"
            "n = xp.sum(xp.exp(a * 2.0) - a, axis=0)._node\n"
            "print(_structural_key.digest(Plan([n]).key([n]), frozenset({'x', 'y', 3.5})))\n")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    here = _structural_key.digest(_key(_graph(xp.asarray(np.zeros((2, 3))))), frozenset({"y", 3.5, "x"}))
    assert out.stdout.strip() == here


def test_disk_hit_emits_nothing(tmp_path, monkeypatch, fresh):
    """A graph an earlier process (here: before clear_cache) compiled is loaded by its
    structural key: not lowered to StableHLO again (the LAPACK kernels' lowering goes through
    jax and cost tens of ms each)."""
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    an = np.random.default_rng(0).standard_normal((6, 4))
    a = xp.asarray(an)
    s = xp.linalg.svd(a, full_matrices=False)[1]
    expected = np.linalg.svd(an, compute_uv=False)
    np.testing.assert_allclose(np.asarray(s, copy=True), expected, rtol=1e-12)
    assert fresh.compiles >= 1
    compiles = fresh.compiles
    _engine.clear_cache()

    def no_emission(*args, **kwargs):
        raise AssertionError("the program was emitted although it is on disk")
    monkeypatch.setattr(_program_cache, "emit_module", no_emission)
    s = xp.linalg.svd(a, full_matrices=False)[1]
    np.testing.assert_allclose(np.asarray(s, copy=True), expected, rtol=1e-12)
    assert fresh.compiles == compiles and fresh.disk_hits >= 1


def test_interpreter_tier_looks_up_without_emitting(tmp_path, monkeypatch, engine):
    """At a graph's first sight the interpreter tier asks the disk cache first; a miss costs a
    name and a failed open, never an emission."""
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    monkeypatch.setattr(_config, "interpret_first", 4)
    calls = []
    real = _program_cache.emit_module
    monkeypatch.setattr(_program_cache, "emit_module", lambda *a, **k: calls.append(1) or real(*a, **k))
    an = np.arange(12.0).reshape(3, 4)
    out = xp.sum(xp.exp(xp.asarray(an) * 0.5), axis=1)
    np.testing.assert_allclose(np.asarray(out), np.exp(an * 0.5).sum(axis=1), rtol=1e-14)
    assert xp.metrics.interpreted == 1 and not calls


def test_same_shapes_other_attributes_load_their_own_program(tmp_path, monkeypatch, fresh):
    """Two graphs alike but for an attribute (the reduced axis) each get their own entry: a
    fresh engine reading both from disk computes both right."""
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    an = np.arange(9.0).reshape(3, 3) ** 2
    a = xp.asarray(an)
    for axis in (0, 1):
        np.testing.assert_array_equal(np.asarray(xp.sum(a - 1.0, axis=axis)), (an - 1.0).sum(axis=axis))
    _engine.clear_cache()
    for axis in (1, 0):
        np.testing.assert_array_equal(np.asarray(xp.sum(a - 1.0, axis=axis)), (an - 1.0).sum(axis=axis))
    assert fresh.compiles == 2 and fresh.disk_hits == 2


def test_changed_source_names_programs_anew(tmp_path, monkeypatch, fresh):
    """The entry's name hashes lazyarray's source: after an edit, the same graph compiles again
    (its lowering may have changed) instead of loading the old program."""
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    a = xp.asarray(np.arange(5.0))
    assert float(xp.sum(a * 3.0 + 1.0)) == 35.0
    _engine.clear_cache()
    monkeypatch.setattr(_structural_key, "_fingerprint", "an-edited-source-tree")
    assert float(xp.sum(a * 3.0 + 1.0)) == 35.0
    assert fresh.compiles == 2 and fresh.disk_hits == 0


def test_corrupt_structural_entry_is_recompiled(tmp_path, monkeypatch, fresh):
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    an = np.arange(8.0)
    a = xp.asarray(an)
    assert float(xp.sum(xp.sqrt(a))) == pytest.approx(np.sqrt(an).sum(), rel=1e-14)
    entries = [os.path.join(r, f) for r, _, fs in os.walk(tmp_path) for f in fs]
    assert entries
    for p in entries:
        with open(p, "r+b") as f:  # a flipped payload byte: the header's digest no longer matches
            f.seek(-1, os.SEEK_END)
            last = f.read(1)
            f.seek(-1, os.SEEK_END)
            f.write(bytes([last[0] ^ 0xFF]))
    _engine.clear_cache()
    assert float(xp.sum(xp.sqrt(a))) == pytest.approx(np.sqrt(an).sum(), rel=1e-14)
    assert fresh.compiles == 2 and fresh.disk_hits == 0


def test_code_fingerprint_is_stable():
    assert _structural_key.code_fingerprint() == _structural_key.code_fingerprint()
    assert len(_structural_key.code_fingerprint()) == 32


LAPACK_WORKLOAD = """
import sys, numpy as np, lazyarray as xp
from lazyarray import _engine
an = np.random.default_rng(1).standard_normal((7, 5))
s = xp.linalg.svd(xp.asarray(an), full_matrices=False)[1]
got = np.asarray(s)
assert np.allclose(got, np.linalg.svd(an, compute_uv=False), rtol=1e-12), got
_engine.wait_for_compiles()
print(xp.metrics.compiles, xp.metrics.disk_hits, "lazyarray._runtime_lapack" in sys.modules)
"""


def test_second_process_runs_a_loaded_lapack_program(tmp_path):
    """A program with LAPACK custom calls, loaded from disk by its structural key in a process
    that never lowered a kernel (so never set LAPACK up through `_runtime_lapack`), crashed
    XLA; loading it now sets LAPACK up first."""
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path), LAZYARRAY_INTERPRET_FIRST="0")

    def run():
        out = subprocess.run([sys.executable, "-c", LAPACK_WORKLOAD], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        compiles, hits, lapack = out.stdout.split()
        return int(compiles), int(hits), lapack == "True"
    c1, d1, _ = run()
    assert c1 >= 1 and d1 == 0
    c2, d2, lapack = run()
    assert c2 == 0 and d2 == c1 and lapack
