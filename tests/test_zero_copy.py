"""Zero-copy reads: on the CPU, `np.asarray(x)` of a base array whose value nothing else uses is
the device buffer's own memory (`_host_alias`, shared aliases). The buffer is kept out of reuse
while any numpy array over it lives (`_pool` lends it); the aliasing semantics stay those of
tests/test_host_alias.py: writes into the numpy array reach x and later ops only, and x's later
writes show in the numpy array."""
import gc

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _host_alias, _runtime
from lazyarray._devices import Device
from lazyarray._engine_state import state

N = 1 << 18  # float32 elements: 1 MiB, the pool's smallest recycled size


def chain(x):  # (no cancellation: a fused multiply-add changes no value here)
    return xp.sqrt(x * 2.0 + 1.0) * 0.5


def chain_np(a):
    return np.sqrt(a * np.float32(2.0) + np.float32(1.0)) * np.float32(0.5)


@pytest.fixture
def data(fresh):
    a = np.random.default_rng(7).uniform(size=N).astype(np.float32)
    return a, xp.asarray(a)


def take_all(pool, key):
    """Every buffer the pool would hand out for outputs of this (device id, shape, dtype)."""
    out = []
    while (b := pool.take(*key)) is not None:
        out.append(b)
    return out


def buffer_of(x):
    return x._pending_node().buffer


def is_shared(h, x):
    """Whether numpy array h is x's device buffer's own memory."""
    buf = buffer_of(x)
    return buf is not None and h.ctypes.data == buf.unsafe_buffer_pointer()


def test_read_is_the_device_buffer_and_moves_no_bytes(data):
    a, x = data
    y = chain(x)
    before = xp.metrics.bytes_to_host
    h = np.asarray(y)
    assert is_shared(h, y)
    assert h.flags.writeable
    assert xp.metrics.bytes_to_host == before  # nothing was copied to the host
    assert np.shares_memory(h, np.asarray(y))
    np.testing.assert_allclose(h, chain_np(a), rtol=1e-6)


def test_buffer_is_not_reused_while_a_view_lives_and_is_after(data):
    a, x = data
    y = chain(x)
    h = np.asarray(y)
    keep = h.copy()
    view = h[10:20]  # a numpy view of the read keeps the memory lent after h is dropped
    buf, key = buffer_of(y), (y.device.id, y.shape, y.dtype)
    del y, h
    gc.collect()
    pool = state.pool
    assert pool.is_lent(buf)
    assert all(b is not buf for b in take_all(pool, key))  # y died; `view` still shows its memory
    for _ in range(4):  # programs that would write their outputs into a recycled buffer
        z = chain(x + 1.0)
        np.asarray(z, copy=True)
        del z
        state.wait_for_compiles()
    np.testing.assert_array_equal(view, keep[10:20])
    del view
    gc.collect()
    np.asarray(xp.ones(3))  # (the next read forgets the dead alias and lets y's family go)
    assert not pool.is_lent(buf)
    assert any(b is buf for b in take_all(pool, key))  # once no numpy array shows it: recycled


def test_later_programs_reuse_the_memory_once_the_read_died(data):
    a, x = data
    for _ in range(4):  # warm: the donating variant compiles in the background
        np.asarray(chain(x), copy=True)
        state.wait_for_compiles()
    h = np.asarray(chain(x))
    address = h.ctypes.data
    del h
    gc.collect()
    recycled = xp.metrics.recycled_buffers
    h2 = np.asarray(chain(x))
    assert xp.metrics.recycled_buffers > recycled
    assert h2.ctypes.data == address  # the dead read's memory became the next output
    np.testing.assert_allclose(h2, chain_np(a), rtol=1e-6)


def test_numpy_write_reaches_the_array_and_later_ops_only(data):
    a, x = data
    y = chain(x)
    h = np.asarray(y)
    h[0] = 5.0  # before any other use: the node's value itself
    assert is_shared(h, y)
    total = xp.sum(y)  # a new user of y's value: the alias unshares first
    assert not is_shared(h, y)
    h[1] = -3.0  # after: seen by ops recorded later, not by `total`
    after = xp.sum(y)
    want = chain_np(a)
    want[0] = 5.0
    np.testing.assert_allclose(float(total), want.astype(np.float64).sum(), rtol=1e-5)
    want[1] = -3.0
    np.testing.assert_allclose(float(after), want.astype(np.float64).sum(), rtol=1e-5)
    assert float(y[1]) == -3.0


def test_lazy_writes_show_in_the_read_and_spare_earlier_ops(data):
    a, x = data
    y = chain(x)
    h = np.asarray(y)
    old = y * 1.0  # recorded before the writes
    y[1] = 2.0
    y += 1.0
    want = chain_np(a)
    want[1] = 2.0
    want += np.float32(1.0)
    np.testing.assert_allclose(h, want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(old, copy=True), chain_np(a), rtol=1e-6)


def test_a_copy_is_a_snapshot(data):
    a, x = data
    y = chain(x)
    c = np.asarray(y, copy=True)
    y += 1.0
    np.testing.assert_allclose(c, chain_np(a), rtol=1e-6)


def test_writes_just_before_the_read_dies_are_kept(data):
    a, x = data
    y = chain(x)

    def fill(o):  # SciPy's `output=` pattern
        np.asarray(o)[:5] = np.arange(5.0)

    fill(y)
    gc.collect()
    got = np.asarray(y, copy=True)
    np.testing.assert_array_equal(got[:5], np.arange(5.0, dtype=np.float32))
    np.testing.assert_allclose(got[5:], chain_np(a)[5:], rtol=1e-6)


def test_numpy_view_of_a_dropped_read_still_writes_through(data):
    a, x = data
    y = chain(x)
    row = np.asarray(y)[2:4]
    gc.collect()
    row[:] = 7.0
    got = np.asarray(y, copy=True)
    np.testing.assert_array_equal(got[2:4], [7.0, 7.0])


def test_family_is_released_when_the_read_dies(data):
    _, x = data
    y = chain(x)
    h = np.asarray(y)
    del h
    gc.collect()
    float(xp.sum(y))
    assert type(y) is type(x)
    assert all(a.holder is not y for f in _host_alias._families.values() for a in f.aliases)


def test_value_with_another_user_is_copied(data):
    a, x = data
    y = chain(x)
    xp.evaluate(y)
    pending = y * 2.0  # holds y's node: the read must not be the node's memory
    h = np.asarray(y)
    assert not is_shared(h, y)
    h[:] = 0.0
    np.testing.assert_allclose(np.asarray(pending, copy=True), 2 * chain_np(a), rtol=1e-6)
    assert float(xp.max(y)) == 0.0


def test_buffer_shared_through_dlpack_is_copied(data):
    _, x = data
    y = chain(x)
    np.from_dlpack(y)  # the buffer is pinned: handed out to another library
    assert not is_shared(np.asarray(y), y)


def test_zero_d_and_interpreted_values_are_copied(monkeypatch, data):
    _, x = data
    s = xp.sum(x)
    assert np.asarray(s).shape == ()
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    y = chain(x * 3.0)  # a new graph: the interpreter computes it, on the host
    h = np.asarray(y)
    assert buffer_of(y) is None
    h[0] = 1.0
    assert float(y[0]) == 1.0


def test_other_devices_fall_back_to_a_copy(data):
    """An accelerator's buffer is never handed out as host memory. Simulated as in
    tests/test_accelerator_tier.py: a device whose platform says "cuda" around the CPU's PJRT
    device (its buffers are CPU memory, so only the platform check stands in the way)."""
    cpu = next(d for d in xp.__array_namespace_info__().devices() if d.platform == "cpu")
    gpu = Device(cpu._pjrt)
    gpu.platform, gpu.id, gpu._hash = "cuda", 1000, hash(("cuda", 1000))
    a, _ = data
    x = xp.asarray(a, device=gpu)
    y = chain(x)
    before = xp.metrics.bytes_to_host
    h = np.asarray(y)
    assert buffer_of(y) is not None and not is_shared(h, y)
    assert xp.metrics.bytes_to_host == before + h.nbytes  # a copy came home
    h[0] = 9.0
    assert float(y[0]) == 9.0


def test_no_host_view_of_another_platform():
    class Device:
        platform = "cuda"

    class Buffer:
        size = 4

        def devices(self):
            return {Device()}

    assert _runtime.host_view(Buffer()) is None


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float32, np.float64,
                                   np.complex64, np.complex128])
def test_alias_comparison_is_bitwise_per_element(dtype):
    """Copied aliases are compared with their node by whole words (`_host_alias._differs`):
    the same element mask as a byte-by-byte comparison, NaN payloads and -0.0 told apart."""
    rng = np.random.default_rng(3)
    old = (rng.standard_normal((7, 5)) * 3).astype(dtype)
    new = old.copy()
    new[1, 2] = 1 if dtype is np.bool_ else -new[1, 2]
    if np.dtype(dtype).kind in "fc":
        new[0, 0], old[0, 0] = -0.0, 0.0
        new[3, 4] = old[3, 4] = np.nan
    as_bytes = lambda a: a.reshape(-1).view(np.uint8).reshape(a.size, -1)  # noqa: E731
    want = (as_bytes(new) != as_bytes(old)).any(axis=1).reshape(new.shape)
    np.testing.assert_array_equal(_host_alias._differs(new, old), want)
    assert _host_alias._differs(new, new.copy()).sum() == 0


def test_dropped_reads_in_a_loop_end_their_families_and_agree_with_numpy(monkeypatch, data):
    """The benchmark's pattern (`y = f(x); np.asarray(y)`, the read dropped): each read is the
    buffer's memory and equals numpy's; the next read ends the dropped one's family without a
    flush (`_host_alias._forget_dead_shared`), so earlier holders turn plain again."""
    a, x = data
    gc.collect()
    _host_alias._sweep()  # (earlier tests' dropped reads)
    ended = []
    forget = _host_alias._forget_dead_shared
    monkeypatch.setattr(_host_alias, "_forget_dead_shared", lambda *a: ended.append(forget(*a)) or ended[-1])
    holders = []
    for i in range(4):
        y = chain(x) + float(i)
        h = np.asarray(y)
        assert is_shared(h, y)
        np.testing.assert_allclose(h, chain_np(a) + np.float32(i), rtol=1e-6)
        h[0] = -float(i)  # a write into the memory is y's value
        del h
        holders.append(y)
    assert [type(y) for y in holders[:-1]] == [type(x)] * 3
    assert all(a.holder is not y for f in _host_alias._families.values() for a in f.aliases
               for y in holders[:-1])
    assert ended.count(True) == 3  # (the shortcut ended each dropped read's family)
    assert [float(y[0]) for y in holders] == [0.0, -1.0, -2.0, -3.0]


def test_sweep_takes_in_a_dropped_copied_reads_writes(data):
    """A dropped alias that is a copy may hold writes: the sweep at the next read flushes its
    family (the shortcut for shared aliases declines) and the writes reach the array."""
    a, x = data
    y = chain(x)
    keep = y * 1.0  # (a pending op uses y's node: the read below is a copy)
    np.asarray(y)[:2] = 5.0
    other = chain(x) * 3.0
    np.asarray(other)  # its export sweeps y's family
    assert type(y) is type(x)
    np.testing.assert_array_equal(np.asarray(y, copy=True)[:3], [5.0, 5.0, chain_np(a)[2]])
    np.testing.assert_array_equal(np.asarray(keep, copy=True)[:2], chain_np(a)[:2])  # recorded before


def test_pool_watch_reports_a_death_once_and_forgets_its_reference():
    from lazyarray._pool import BufferPool

    class Thing:
        pass

    pool, thing = BufferPool(), Thing()
    pool._watch(thing, ("event",))
    assert not pool.returned and len(pool._watches) == 1
    del thing
    gc.collect()
    assert list(pool.returned) == [("event",)] and not pool._watches


def test_host_view_of_a_known_cpu_buffer_is_its_memory(data):
    a, x = data
    y = chain(x)
    float(xp.sum(y))
    buf = buffer_of(y)
    checked, known = _runtime.host_view(buf), _runtime.host_view(buf, one_cpu_device=True)
    for h in (checked, known):
        assert h.ctypes.data == buf.unsafe_buffer_pointer() and h.flags.writeable
        assert h.shape == (N,) and h.dtype == np.float32
        np.testing.assert_allclose(h, chain_np(a), rtol=1e-6)
