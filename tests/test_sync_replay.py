"""A cached program's repeated run (`_run_program.Replay`, `_runtime.execute`'s result handlers,
the structural key's hash set by `Plan.key`) and the zero-copy read's lending reported by the
view's own base (`_runtime.HostMemory.deaths`). Values are checked against numpy; each test also
checks that the shortcut under test was the path taken."""
import gc

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _host_alias, _runtime
from lazyarray._engine_state import state
from lazyarray._graph import Plan


DTYPES = [np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_, np.complex128]


@pytest.mark.parametrize("npdt", DTYPES, ids=[np.dtype(d).name for d in DTYPES])
def test_handled_outputs_are_the_arrays_jax_makes(compiled_now, npdt):
    """The second run of an executable makes its outputs with the handlers taken from the first
    run's: the same shape, dtype, device, sharding and commitment, and the right values."""
    data = (np.arange(300) % 7).astype(npdt)
    x = xp.asarray(data)
    outs = []
    for _ in range(3):
        y, z = x + x, xp.reshape(x, (30, 10))
        xp.evaluate(y, z)
        outs.append((y._pending_node().buffer, z._pending_node().buffer))
    handled = [k for k in _runtime._handlers.values() if len(k[1]) == 2]
    assert handled, "the program's outputs were never made by result handlers"
    first, later = outs[0], outs[2]
    for a, b in zip(first, later):
        assert (a.shape, a.dtype, a.committed) == (b.shape, b.dtype, b.committed)
        assert a.sharding == b.sharding and a.aval == b.aval
    np.testing.assert_array_equal(np.asarray(later[0]), data + data)
    np.testing.assert_array_equal(np.asarray(later[1]), data.reshape(30, 10))


def test_a_replay_reads_each_runs_scalars_and_leaves(compiled_now, rng):
    """One structure, new values every run: host scalars of two dtypes (packed per dtype) and
    device leaves taken from this run's leaves, never the first run's."""
    for step in range(6):
        a_np, b_np = rng.standard_normal(500), rng.integers(-9, 9, 500)
        s, k = float(rng.standard_normal()), int(rng.integers(-5, 5))
        a, b = xp.asarray(a_np), xp.asarray(b_np)
        y = a * s + xp.astype(b + k, xp.float64) * 0.5
        np.testing.assert_allclose(np.asarray(y), a_np * s + (b_np + k).astype(np.float64) * 0.5,
                                   rtol=1e-13, atol=1e-14)  # (XLA may fuse a * s + c into one FMA)
    assert state.replays, "the program ran without a Replay"
    assert xp.metrics.cache_hits >= 4


def test_a_replay_follows_its_program(compiled_now):
    """A Replay belongs to one Compiled: when the program under its key changes (a clear, an
    eviction), the next run makes a new one."""
    x = xp.asarray(np.arange(100.0))
    for _ in range(2):
        np.asarray(x * 3.0)
    (key, replay), = [(k, r) for k, r in state.replays.items()]
    assert replay.compiled is state.programs[key]
    xp.clear_cache()
    assert not state.replays and not _runtime._handlers
    np.testing.assert_array_equal(np.asarray(x * 3.0), np.arange(100.0) * 3.0)
    assert state.replays[key].compiled is state.programs[key] and state.replays[key] is not replay


def test_the_key_hash_is_the_tuples(compiled_now):
    """`Plan.key` sets the hash it caches: equal to a plain tuple's, so a key found under a tuple
    (the benchmark's and the disk cache's lookups) is the same key."""
    x = xp.asarray(np.ones(10))
    y = x * 2.0 + 1.0
    plan = Plan([y._node])
    key = plan.key([y._node])
    assert hash(key) == hash(tuple(key)) and key == tuple(key)
    assert {tuple(key): 1}[key] == 1


def test_lending_ends_when_the_last_numpy_array_dies(compiled_now):
    """The view's base reports its death to the pool: the buffer is lent while any numpy array
    (the read, or a numpy view of it) shows its memory, over two reads of the same node."""
    x = xp.asarray(np.arange(4096.0))
    y = x * 2.0
    h = np.asarray(y)
    buf = y._pending_node().buffer
    assert h.ctypes.data == buf.unsafe_buffer_pointer()  # the zero-copy read
    part = h[10:20]
    del h
    _host_alias._sweep()  # the family lets go of the dead alias; `part` keeps the memory lent
    assert state.pool.is_lent(buf)
    h2 = np.asarray(y)  # the same node, read again: lent twice
    assert h2.ctypes.data == buf.unsafe_buffer_pointer()
    del part
    gc.collect()
    assert state.pool.is_lent(buf)  # h2 still shows it
    np.testing.assert_array_equal(h2, np.arange(4096.0) * 2.0)
    del h2
    _host_alias._sweep()
    assert not state.pool.is_lent(buf)
