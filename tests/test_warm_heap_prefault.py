"""The heap a command's work grew, recorded at exit and held and faulted in ahead by its next run
(`_heap_prefault`, `_prefetch.prefault_heap`): the record is written, the next run holds that
much, faults it in on the compile thread and gives it back when the work starts, results are
unchanged; a bad record is ignored; nothing is held where glibc's thresholds were not raised."""
import os
import subprocess
import sys

import numpy as np
import pytest

from lazyarray import _heap_prefault, _heap_threshold, _libc

glibc_only = pytest.mark.skipif(_libc.glibc() is None, reason="glibc's heap only")

WORKLOAD = """
import json, numpy as np, lazyarray as xp
from lazyarray import _engine, _heap_prefault
_engine.wait_for_compiles()  # (the faulting-in queued at import has run)
held_before = len(_heap_prefault.held)
x = xp.asarray(np.linspace(0.0, 1.0, 600 * 500).reshape(600, 500))
value = float(xp.sum(xp.exp(x) * 2.0 - x))  # interpreted at first sight: ~2.4 MB temporaries
print(json.dumps([held_before, _heap_prefault.populated, len(_heap_prefault.held), value]))
"""


def _run(cache, extra=None):
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(cache), **(extra or {}))
    env.pop("LAZYARRAY_INTERPRET_FIRST", None)
    out = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])


def _records(cache):
    d = cache / "manifests"
    return [d / n for n in os.listdir(d) if n.endswith(".heap")] if d.is_dir() else []


@glibc_only
def test_the_next_run_holds_faults_in_and_releases_what_the_work_grew(tmp_path):
    expected = float(np.sum(np.exp(np.linspace(0.0, 1.0, 600 * 500)) * 2.0 - np.linspace(0.0, 1.0, 600 * 500)))
    held, populated, held_after, v1 = _run(tmp_path)
    assert held == 0 and populated == 0 and held_after == 0
    (record,) = _records(tmp_path)
    grown = int(record.read_text())
    assert grown >= _heap_prefault.MIN_BYTES
    held, populated, held_after, v2 = _run(tmp_path)
    blocks = -(-min(grown, _heap_prefault.MAX_BYTES) // _heap_prefault.CHUNK)
    assert held == blocks  # held from import ...
    assert held_after == 0  # ... and given back at the graph's first sight
    assert populated in (0, blocks * _heap_prefault.CHUNK)  # (0: a kernel without MADV_POPULATE_WRITE)
    assert v1 == v2
    np.testing.assert_allclose(v2, expected, rtol=1e-12)
    assert int(record.read_text()) >= _heap_prefault.MIN_BYTES  # (the released blocks count as grown)


@glibc_only
def test_a_bad_record_is_ignored(tmp_path):
    _run(tmp_path)
    (record,) = _records(tmp_path)
    record.write_text("not a number\n")
    held, populated, held_after, _ = _run(tmp_path)
    assert held == 0 and populated == 0
    assert int(record.read_text()) >= _heap_prefault.MIN_BYTES  # (rewritten by this run)


@glibc_only
def test_nothing_is_held_without_raised_thresholds(tmp_path):
    _run(tmp_path)
    held, populated, _, _ = _run(tmp_path, {"LAZYARRAY_HEAP_THRESHOLD": "0"})
    assert held == 0 and populated == 0


def _fresh_state(monkeypatch):
    """_heap_prefault as a fresh process has it, with the thresholds raised (what `hold` needs)."""
    monkeypatch.setattr(_heap_prefault, "held", [])
    monkeypatch.setattr(_heap_prefault, "_work_break", None)
    monkeypatch.setattr(_heap_prefault, "_released", 0)
    monkeypatch.setattr(_heap_threshold, "raised", True)


@glibc_only
def test_hold_populate_release_in_process(monkeypatch):
    _fresh_state(monkeypatch)
    assert not _heap_prefault.hold(_heap_prefault.MIN_BYTES - 1)
    assert _heap_prefault.hold(2 * _heap_prefault.CHUNK + 1)
    assert len(_heap_prefault.held) == 3
    assert not _heap_prefault.hold(_heap_prefault.CHUNK)  # (held already)
    done = _heap_prefault.populate_held()
    assert done in (0, 3 * _heap_prefault.CHUNK)
    start = _heap_prefault.heap_break()
    _heap_prefault.release()
    assert _heap_prefault.held == [] and _heap_prefault._released == 3 * _heap_prefault.CHUNK
    assert _heap_prefault.work_started()
    assert _heap_prefault.grown_since_work(start) >= 3 * _heap_prefault.CHUNK
    a = np.ones(2 * _heap_prefault.CHUNK // 8)  # (memory given back is memory numpy can use)
    assert float(a.sum()) == a.size
    _heap_prefault.release()  # (nothing held: a no-op)
    assert _heap_prefault._released == 3 * _heap_prefault.CHUNK


def test_nothing_is_held_when_thresholds_were_not_raised(monkeypatch):
    monkeypatch.setattr(_heap_prefault, "held", [])
    monkeypatch.setattr(_heap_threshold, "raised", False)
    assert not _heap_prefault.hold(4 * _heap_prefault.CHUNK)
    assert _heap_prefault.held == []


@glibc_only
def test_a_fork_while_the_lock_is_held_does_not_block_the_child(monkeypatch):
    """The child of a fork made while the compile thread held the lock releases without waiting."""
    import warnings
    _fresh_state(monkeypatch)
    assert _heap_prefault.hold(_heap_prefault.CHUNK)
    with _heap_prefault._lock, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (os.fork in a process with threads)
        pid = os.fork()
        if pid == 0:  # the child: the lock is free again, the held block is its own copy
            try:
                _heap_prefault.release()
                os._exit(0 if _heap_prefault.held == [] else 1)
            except BaseException:
                os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    _heap_prefault.release()
