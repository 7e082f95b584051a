"""The sync path's shortcuts: a 1-D zero-copy read built from the buffer's address
(`_runtime.vector_view`), the program's LAPACK-window answer kept on its `Compiled`, a
small output that does not ask the buffer pool, and `read_scalar`'s direct small host read. Each
test checks values against numpy and that the shortcut was the path taken."""
import threading

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _host_alias, _runtime
from lazyarray._engine_state import state
from lazyarray._metrics import metrics


@pytest.fixture
def vector_calls(monkeypatch):
    """Each zero-copy view made: ((n,), dtype) of a `_runtime.vector_view` call (the 1-D
    shortcut), None for a `_runtime.host_view` call (the general path)."""
    calls = []
    real_host, real_vector = _runtime.host_view, _runtime.vector_view

    def host_spy(buffer, one_cpu_device=False, vector=None):
        calls.append(vector)
        return real_host(buffer, one_cpu_device, vector)

    def vector_spy(buffer, n, dtype):
        calls.append(((n,), dtype))
        return real_vector(buffer, n, dtype)
    monkeypatch.setattr(_runtime, "host_view", host_spy)
    monkeypatch.setattr(_runtime, "vector_view", vector_spy)
    return calls


CASES = [
    (np.float64, lambda a: a * 2.0 + 1.0),
    (np.float32, lambda a: a * np.float32(3.5) - np.float32(1.0)),
    (np.int32, lambda a: a * 3 - 7),
    (np.int64, lambda a: a // 3 + 1),
    (np.uint8, lambda a: a + 200),
    (np.bool_, lambda a: a ^ True),
    (np.complex128, lambda a: a + (1 - 2j)),
]


@pytest.mark.parametrize("npdt,fn", CASES, ids=[np.dtype(c[0]).name for c in CASES])
def test_vector_read_is_a_view_of_the_buffer_and_matches_numpy(compiled_now, vector_calls, npdt, fn):
    data = (np.arange(37) % 5).astype(npdt)
    y = fn(xp.asarray(data))
    reads = metrics.zero_copy_reads
    host = np.asarray(y)
    assert vector_calls == [((37,), np.dtype(npdt))]  # the 1-D shortcut, not jax's view
    assert metrics.zero_copy_reads == reads + 1
    np.testing.assert_array_equal(host, fn(data))
    assert host.dtype == np.dtype(npdt) and host.shape == (37,)
    buf = y._pending_node().buffer  # (`_node` would unshare: host is alive)
    assert host.ctypes.data == buf.unsafe_buffer_pointer()  # no copy: the buffer's own memory
    assert state.pool.is_lent(buf)  # out of reuse and donation while the numpy array lives
    del host
    _host_alias._sweep()  # (as the next np.asarray does: the family lets go of the dead alias)
    assert not state.pool.is_lent(buf)


def test_two_dimensional_read_takes_the_general_path(compiled_now, vector_calls):
    data = np.arange(12.0).reshape(3, 4)
    y = xp.asarray(data) * 2.0
    host = np.asarray(y)
    assert vector_calls == [None]
    np.testing.assert_array_equal(host, data * 2.0)


def test_vector_read_is_a_live_alias(compiled_now):
    """The shortcut's array is the same kind of alias as before: numpy writes reach the lazy
    array, and a lazy op on it afterwards sees them (its node is unshared first)."""
    y = xp.asarray(np.arange(6.0)) + 1.0
    host = np.asarray(y)
    host[2] = -5.0
    expected = np.arange(6.0) + 1.0
    expected[2] = -5.0
    z = y * 2.0
    np.testing.assert_array_equal(np.asarray(z), expected * 2.0)
    np.testing.assert_array_equal(np.asarray(y), expected)


def test_empty_vector_is_copied(compiled_now, vector_calls):
    y = xp.asarray(np.zeros(0)) + 1.0
    host = np.asarray(y)
    assert host.shape == (0,) and vector_calls == []


def test_program_remembers_it_needs_no_lapack_window(compiled_now):
    x = xp.asarray(np.arange(10.0))
    np.asarray(x * 3.0 - 1.0)
    programs = list(state.programs.values())
    assert programs and all(c.no_window is True for c in programs)


def test_program_with_lapack_keeps_its_window(compiled_now, monkeypatch):
    from lazyarray import _blas_threads
    calls = []
    real = _blas_threads.program_call

    def spy(key, order):
        calls.append(key)
        return real(key, order)
    monkeypatch.setattr(_blas_threads, "program_call", spy)
    n = _blas_threads.TINY_SIDE + 4  # (a tiny call takes no window: OpenBLAS runs it on one thread anyway)
    a = np.eye(n) * n + np.ones((n, n))
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(xp.linalg.cholesky(xp.asarray(a))), np.linalg.cholesky(a))
    lapack = [c for c in state.programs.values() if c.no_window is False]
    if _blas_threads._library("lapack") is None:
        pytest.skip("no OpenBLAS LAPACK to window on this install")
    assert lapack and len(calls) >= 2  # asked at every run of a program that has a window


def test_small_outputs_do_not_ask_the_pool(compiled_now, monkeypatch):
    monkeypatch.setattr(_config, "pool_min_bytes", 4096)
    taken = []
    real = state.pool.take
    monkeypatch.setattr(state.pool, "take", lambda *a: taken.append(a[1]) or real(*a))
    x = xp.asarray(np.ones(4096))
    for _ in range(3):
        y = x * 2.0  # 32 KiB outputs: recycled
        np.testing.assert_array_equal(np.asarray(y), np.full(4096, 2.0))
        del y
        _host_alias._sweep()
        s = x[:8] + 1.0  # 64 bytes: never in the pool
        np.testing.assert_array_equal(np.asarray(s), np.full(8, 2.0))
    big = [shape for shape in taken if shape == (4096,)]
    assert (8,) not in taken and big


def test_probe_read_keeps_the_array_pending_and_fused():
    """array-api-compat's `is_lazy_array` probe on a pending array reads one element on the host
    (when indexed: `_host_sync.element_now`) and leaves the array pending; its later read
    computes multiply and add in one interpreter run."""
    xp.clear_cache()
    base_np = np.arange(100.0) - 3.0
    base = xp.asarray(base_np)
    y = base * 2.0 + 1.0
    syncs, runs = metrics.host_syncs, metrics.interpreted + metrics.executions
    reads = metrics.host_element_reads
    probe = bool(xp.any(xp.reshape(y, (-1,))[0]))
    assert probe == bool(np.any(np.reshape(base_np * 2.0 + 1.0, (-1,))[0]))
    assert metrics.host_syncs == syncs and metrics.host_element_reads == reads + 1
    assert metrics.interpreted + metrics.executions == runs
    assert y._node.op is not None  # still pending
    np.testing.assert_array_equal(np.asarray(y), base_np * 2.0 + 1.0)
    assert metrics.interpreted + metrics.executions == runs + 1  # one run for the whole of y


@pytest.mark.parametrize("value", [0.0, -0.0, np.nan, 2.5])
def test_probe_values_match_numpy(value):
    base_np = np.full(80, value)
    y = xp.asarray(base_np) * 1.0 + 0.0
    assert bool(xp.any(xp.reshape(y, (-1,))[0])) == bool(np.any((base_np * 1.0 + 0.0)[0]))
    assert float(xp.reshape(y, (-1,))[3]) == pytest.approx(float(base_np[3]), nan_ok=True)


def test_vector_reads_from_threads(compiled_now):
    """Threads reading 1-D results at once each get their own values (the interface cache and the
    window answer are shared)."""
    errors = []

    def work(k):
        try:
            x = xp.asarray(np.arange(50.0) + k)
            for i in range(30):
                got = np.asarray(x * float(i) + 1.0)
                want = (np.arange(50.0) + k) * float(i) + 1.0
                if not np.array_equal(got, want):
                    errors.append((k, i))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_read_scalar_direct_host_read_counts_once():
    xp.clear_cache()
    t = xp.asarray(np.linspace(0.0, 1.0, 16))
    x = xp.asarray(0.3)
    reads = dict(metrics.syncs)
    got = [bool((t[i] * 2.0) <= x) for i in range(16)]
    assert got == [bool(v * 2.0 <= 0.3) for v in np.linspace(0.0, 1.0, 16)]
    assert metrics.syncs.get("bool", 0) == reads.get("bool", 0) + 16
    assert _engine is not None


@pytest.mark.parametrize("value", [np.arange(8.0), np.arange(6, dtype=np.int32).reshape(2, 3),
                                   np.array(True), np.zeros((0, 4), np.float32),
                                   np.array([1 + 2j, -3j])])
def test_put_with_reused_descriptions_copies_the_value(value):
    """`_runtime.put` reuses jax's transfer descriptions per shape and dtype: the same shape and
    dtype put twice with different values gives two buffers with their own values."""
    device = xp.asarray(0.0)._device._pjrt
    first = _runtime.put(value, device)
    second = _runtime.put(value + value, device)
    for buf, want in ((first, value), (second, value + value)):
        got = np.asarray(buf)
        assert got.dtype == value.dtype and got.shape == value.shape
        np.testing.assert_array_equal(got, want)
    assert (value.shape, value.dtype) in _runtime._avals
