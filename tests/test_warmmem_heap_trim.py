"""`_heap_trim`: after XLA compiles, the C heap's free memory goes back to the system (issue 11,
target 8), once per burst of compiles, on the compile thread, never changing a value."""
import ctypes
import os

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _heap_trim
from lazyarray._engine_state import state

glibc = pytest.mark.skipif(not _heap_trim.available(), reason="the C library has no malloc_trim")


@pytest.fixture
def fresh_queue(monkeypatch):
    monkeypatch.setattr(_heap_trim, "_queued", False)
    monkeypatch.setattr(_config, "heap_trim", True)
    yield
    _heap_trim._queued = False


def _rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@glibc
def test_one_trim_per_burst(fresh_queue):
    jobs = []
    assert _heap_trim.after_compile(jobs.append)
    assert not _heap_trim.after_compile(jobs.append)  # one is queued: a burst costs one trim
    assert not _heap_trim.after_compile(jobs.append)
    assert len(jobs) == 1
    before = _heap_trim.trims
    jobs.pop()()
    assert _heap_trim.trims == before + 1
    assert _heap_trim.after_compile(jobs.append)  # done: the next compile queues again
    assert len(jobs) == 1


def test_off_queues_nothing(fresh_queue, monkeypatch):
    monkeypatch.setattr(_config, "heap_trim", False)
    jobs = []
    assert not _heap_trim.after_compile(jobs.append)
    assert jobs == []


@glibc
def test_shut_down_executor_leaves_nothing_queued(fresh_queue):
    def refused(fn):
        raise RuntimeError("cannot schedule new futures after shutdown")
    assert not _heap_trim.after_compile(refused)
    jobs = []
    assert _heap_trim.after_compile(jobs.append)  # not stuck as "queued"


@glibc
def test_fork_child_forgets_a_queued_trim(fresh_queue):
    _heap_trim._queued = True
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its compile thread does not exist, so nothing it queued can run
        os.write(w, b"1" if _heap_trim._queued else b"0")
        os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.close(r)
    os.waitpid(pid, 0)
    assert got == b"0"
    assert _heap_trim._queued  # the parent's stays


@glibc
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_trim_returns_free_heap_to_the_system():
    """What a compile leaves: many blocks freed between live ones (so neither the heap's top
    shrinks nor the free blocks merge into one the allocator returns by itself). The trim gives
    their pages back."""
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = (ctypes.c_size_t,)
    libc.free.argtypes = (ctypes.c_void_p,)
    blocks = []
    for _ in range(1024):  # 64 MiB in 64 KiB blocks (below any mmap threshold), each touched
        p = libc.malloc(64 << 10)
        ctypes.memset(p, 1, 64 << 10)
        blocks.append(p)
    for p in blocks[::2]:  # every other one: no two free blocks are neighbours
        libc.free(p)
    before = _rss_kb()
    assert _heap_trim.trim()
    after = _rss_kb()
    for p in blocks[1::2]:
        libc.free(p)
    assert before - after > 16 << 10, (before, after)  # most of the 32 MiB freed went back


@glibc
def test_background_compile_trims_and_values_hold(monkeypatch):
    """A compile queues a trim on the compile thread; the program's values are numpy's."""
    monkeypatch.setattr(_config, "heap_trim", True)
    monkeypatch.setattr(_config, "interpret_first", 0)
    monkeypatch.setattr(_config, "cache_dir", None)
    state.wait_for_compiles()
    before = _heap_trim.trims
    compiles = xp.metrics.compiles
    a = np.linspace(-3.0, 5.0, 4099)
    x = xp.asarray(a)
    got = np.asarray(xp.exp(-x) * 0.75 + xp.sin(x * 1.25) - 2.0 * x)  # a graph of its own (new shape)
    state.wait_for_compiles()
    assert xp.metrics.compiles > compiles
    assert _heap_trim.trims > before
    np.testing.assert_allclose(got, np.exp(-a) * 0.75 + np.sin(a * 1.25) - 2.0 * a, rtol=1e-14, atol=1e-14)


@glibc
def test_no_trim_when_off(monkeypatch):
    monkeypatch.setattr(_config, "heap_trim", False)
    monkeypatch.setattr(_config, "interpret_first", 0)
    monkeypatch.setattr(_config, "cache_dir", None)
    state.wait_for_compiles()
    before = _heap_trim.trims
    a = np.linspace(-1.0, 2.0, 4111)
    got = np.asarray(xp.cos(xp.asarray(a)) * 3.0 - 1.5)
    state.wait_for_compiles()
    assert _heap_trim.trims == before
    np.testing.assert_allclose(got, np.cos(a) * 3.0 - 1.5, rtol=1e-14, atol=1e-14)
