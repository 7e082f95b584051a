"""`_heap_trim`: after XLA compiles, the C heap's free memory goes back to the system (issue 11,
target 8), once compiles pause (one trim per burst), on the compile thread, never changing a value."""
import ctypes
import os
import time

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _heap_trim
from lazyarray._engine_state import state

glibc = pytest.mark.skipif(not _heap_trim.available(), reason="the C library has no malloc_trim")


@pytest.fixture
def fresh_timer(monkeypatch):
    """A short delay, and no trim left due for the next test."""
    monkeypatch.setattr(_config, "heap_trim", True)
    monkeypatch.setattr(_heap_trim, "DELAY_SECONDS", 0.05)
    _heap_trim.flush()
    monkeypatch.setattr(_heap_trim, "_last_queued", float("-inf"))
    yield
    _heap_trim.flush()


def _wait_for(predicate, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@glibc
def test_a_burst_trims_first_and_last(fresh_timer):
    """A lone compile is trimmed at once; compiles closer together than the delay cost one more
    trim, queued after the last of them."""
    jobs = []
    assert _heap_trim.after_compile(jobs.append)
    assert len(jobs) == 1 and not _heap_trim.due()  # at once
    for _ in range(4):
        time.sleep(0.01)
        assert _heap_trim.after_compile(jobs.append)
    assert len(jobs) == 1 and _heap_trim.due()
    assert _wait_for(lambda: len(jobs) == 2)
    time.sleep(0.15)  # (nothing more comes)
    assert len(jobs) == 2 and not _heap_trim.due()
    before = _heap_trim.trims
    jobs.pop()()
    assert _heap_trim.trims == before + 1
    time.sleep(0.06)  # a pause longer than the delay: the next compile's trim is at once again
    assert _heap_trim.after_compile(jobs.append)
    assert len(jobs) == 2 and not _heap_trim.due()


@glibc
def test_deadline_moves_with_each_compile(fresh_timer, monkeypatch):
    monkeypatch.setattr(_heap_trim, "DELAY_SECONDS", 0.3)
    jobs = []
    _heap_trim.after_compile(jobs.append)  # at once
    _heap_trim.after_compile(jobs.append)  # due 0.3 s from now
    time.sleep(0.2)
    _heap_trim.after_compile(jobs.append)  # 0.2 s later: the trim waits 0.3 s from here
    time.sleep(0.2)
    assert len(jobs) == 1 and _heap_trim.due()
    assert _wait_for(lambda: len(jobs) == 2)


def test_off_queues_nothing(fresh_timer, monkeypatch):
    monkeypatch.setattr(_config, "heap_trim", False)
    jobs = []
    assert not _heap_trim.after_compile(jobs.append)
    time.sleep(0.1)
    assert jobs == [] and not _heap_trim.due()


@glibc
def test_flush_trims_now_and_cancels(fresh_timer, monkeypatch):
    monkeypatch.setattr(_heap_trim, "DELAY_SECONDS", 0.2)
    jobs = []
    _heap_trim.after_compile(jobs.append)  # at once
    _heap_trim.after_compile(jobs.append)  # due after the pause
    before = _heap_trim.trims
    assert _heap_trim.flush()
    assert _heap_trim.trims == before + 1
    assert not _heap_trim.flush()  # nothing due any more
    time.sleep(0.3)
    assert len(jobs) == 1


@glibc
def test_shut_down_executor_ends_the_timer(fresh_timer):
    calls = []

    def refused(fn):
        calls.append(fn)
        raise RuntimeError("cannot schedule new futures after shutdown")
    assert not _heap_trim.after_compile(refused)  # at once: refused
    assert _heap_trim.after_compile(refused)  # due after the pause, through the timer: refused there
    assert _wait_for(lambda: len(calls) == 2 and _heap_trim._timer is None)
    jobs = []
    _heap_trim.after_compile(jobs.append)
    assert _wait_for(lambda: jobs)


@glibc
def test_fork_child_starts_afresh(fresh_timer, monkeypatch):
    monkeypatch.setattr(_heap_trim, "DELAY_SECONDS", 5.0)
    _heap_trim.after_compile(lambda fn: None)  # at once
    _heap_trim.after_compile(lambda fn: None)  # due in 5 s
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no timer thread, nothing due; a compile there starts its own timer
        ok = not _heap_trim.due() and _heap_trim._timer is None
        jobs = []
        ok = ok and _heap_trim.after_compile(jobs.append) and len(jobs) == 1  # at once: no trim queued here yet
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.close(r)
    os.waitpid(pid, 0)
    assert got == b"1"
    assert _heap_trim.due()  # the parent's stays


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
def test_background_compile_trims_and_values_hold(fresh_timer, monkeypatch):
    """A compile leads to a trim on the compile thread; the program's values are numpy's."""
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
    assert _wait_for(lambda: _heap_trim.trims > before)  # after the delay, on the compile thread
    np.testing.assert_allclose(got, np.exp(-a) * 0.75 + np.sin(a * 1.25) - 2.0 * a, rtol=1e-14, atol=1e-14)


@glibc
def test_no_trim_when_off(fresh_timer, monkeypatch):
    monkeypatch.setattr(_config, "heap_trim", False)
    monkeypatch.setattr(_config, "interpret_first", 0)
    monkeypatch.setattr(_config, "cache_dir", None)
    state.wait_for_compiles()
    before = _heap_trim.trims
    a = np.linspace(-1.0, 2.0, 4111)
    got = np.asarray(xp.cos(xp.asarray(a)) * 3.0 - 1.5)
    state.wait_for_compiles()
    time.sleep(0.15)
    assert _heap_trim.trims == before and not _heap_trim.due()
    np.testing.assert_allclose(got, np.cos(a) * 3.0 - 1.5, rtol=1e-14, atol=1e-14)
