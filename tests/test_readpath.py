"""The read path of a compiled program's output (target 4: materialize and read): zero-copy reads
made over a ctypes block at the buffer's address (`_runtime.host_view`, 1-D and N-D), and a
replay's packed host scalars reused when they are the same immutable objects as at its last run
(`_run_program.Replay.inputs`). Values are checked against numpy; each test also checks that
the path under test was the one taken."""
import gc
import math

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _host_alias, _run_program
from lazyarray._engine_state import state

DTYPES_2D = [np.float64, np.float32, np.complex128, np.complex64, np.bool_, np.int8, np.uint16, np.float16]


def _fn(npdt):
    if npdt is np.bool_:
        return lambda a: a ^ True
    return lambda a: a + a


def _buffer(x):
    return x._pending_node().buffer  # (`_node` would unshare a live zero-copy read)


@pytest.mark.parametrize("npdt", DTYPES_2D, ids=[np.dtype(d).name for d in DTYPES_2D])
def test_two_dimensional_read_is_the_buffers_memory_and_matches_numpy(compiled_now, npdt):
    data = (np.arange(24).reshape(4, 6) % 5).astype(npdt)
    fn = _fn(npdt)
    y = fn(xp.asarray(data))
    reads = xp.metrics.zero_copy_reads
    host = np.asarray(y)
    assert xp.metrics.zero_copy_reads == reads + 1
    assert host.ctypes.data == _buffer(y).unsafe_buffer_pointer()  # no copy
    assert host.flags.writeable and host.flags.c_contiguous
    assert host.dtype == np.dtype(npdt) and host.shape == (4, 6)
    np.testing.assert_array_equal(host, fn(data))


def test_two_dimensional_read_is_a_live_alias(compiled_now):
    data = np.arange(12.0).reshape(3, 4)
    y = xp.asarray(data) * 2.0
    before = y + 1.0  # recorded before the numpy write: keeps the old value
    host = np.asarray(y)
    host[1, 2] = -7.0
    expected = data * 2.0
    expected[1, 2] = -7.0
    np.testing.assert_array_equal(np.asarray(y * 1.0), expected)  # the write reached y
    np.testing.assert_array_equal(np.asarray(before), data * 2.0 + 1.0)
    y[0, 0] = 100.0  # a lazy write shows in the numpy array
    assert host[0, 0] == 100.0
    np.testing.assert_array_equal(host[1:], expected[1:])


@pytest.mark.parametrize("shape", [(4096,), (64, 64)])
def test_read_of_a_recyclable_buffer_is_lent_while_a_numpy_view_lives(compiled_now, monkeypatch, shape):
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    data = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    x = xp.asarray(data)
    y = x * 3.0
    host = np.asarray(y)
    buf = _buffer(y)
    assert host.ctypes.data == buf.unsafe_buffer_pointer()
    keep = host[1:].copy()
    view = host[1:]  # keeps the memory (and its lending) alive after `host` and `y` are gone
    del host, y
    gc.collect()
    _host_alias._sweep()
    assert state.pool.is_lent(buf)
    for _ in range(3):  # outputs of this shape would be written into a recycled buffer
        np.asarray(x * 5.0, copy=True)
        state.wait_for_compiles()
    np.testing.assert_array_equal(view, keep)
    del view
    gc.collect()
    _host_alias._sweep()
    assert not state.pool.is_lent(buf)


@pytest.fixture
def packed_calls(monkeypatch):
    """The values of every `packed_buffer` call (a replay's scalars packed and looked up)."""
    calls = []
    real = _run_program.packed_buffer

    def spy(values, dtype, device):
        calls.append(list(values))
        return real(values, dtype, device)
    monkeypatch.setattr(_run_program, "packed_buffer", spy)
    return calls


def test_same_scalar_objects_reuse_the_replays_vectors(compiled_now, packed_calls):
    data = np.linspace(-3.0, 3.0, 200)
    x = xp.asarray(data)

    def fn(a):
        return a * 2.0 + 1.0  # the same two float objects at every call (code constants)
    for k in range(4):
        np.testing.assert_array_equal(np.asarray(fn(x)), data * 2.0 + 1.0)
        if k == 1:
            packed = len(packed_calls)
    assert packed >= 1 and len(packed_calls) == packed  # runs after the replay's first: no packing


@pytest.mark.parametrize("values", [
    [2.0, 3.5, 2.0],
    [float("-0.0"), 0.0, float("-0.0")],  # equal as floats, different bytes
    [float("nan"), float("nan"), 1.0],    # unequal to themselves, the same bytes
    [float("inf"), float("-inf"), 0.5],
])
def test_new_scalar_objects_are_sent_and_match_numpy(compiled_now, values):
    data = np.linspace(0.5, 2.0, 100)
    x = xp.asarray(data)
    with np.errstate(all="ignore"):
        for s in values * 2:
            got = np.asarray(1.0 / (x * s))
            want = 1.0 / (data * s)
            assert np.array_equal(np.signbit(got), np.signbit(want))
            np.testing.assert_array_equal(got, want)


def test_numpy_scalars_and_integers_are_packed_each_run(compiled_now, packed_calls):
    data = np.arange(100, dtype=np.int64)
    x = xp.asarray(data)
    for k in range(3):
        s = np.int64(k + 2)  # a numpy scalar: not a Python number, packed at every run
        np.testing.assert_array_equal(np.asarray(x * s - 7), data * (k + 2) - 7)
    assert len(packed_calls) >= 3
    for k in range(3):
        n = 10 ** 12 + k  # Python ints, new objects each time
        np.testing.assert_array_equal(np.asarray(x + n), data + n)


def test_dropped_zero_copy_read_lets_go_of_its_array_at_once(compiled_now):
    """A zero-copy read's family holds the numpy array, the array and its node weakly: dropping
    them frees the node (and its buffer) where the user lets go, not at the next np.asarray; the
    next sweep only forgets the dead entry."""
    import weakref
    y = xp.asarray(np.arange(500.0)) * 2.0
    host = np.asarray(y)
    node = weakref.ref(y._pending_node())
    assert host.ctypes.data == _buffer(y).unsafe_buffer_pointer()
    key = id(y)
    del host, y
    assert node() is None  # no sweep, no collection: reference counts alone
    _host_alias._sweep()
    assert key not in _host_alias._families


def test_a_family_left_at_a_reused_id_is_not_the_new_arrays(compiled_now):
    """A dead array's family may stay at its id until a sweep; an array later made at that
    address (here: the entry put at the new array's id by hand) reads, writes and aliases as a
    fresh one, and the sweep forgets only the dead one's family."""
    y = xp.asarray(np.arange(64.0)) + 1.0
    np.asarray(y)
    stale = _host_alias._families[id(y)]
    z = xp.asarray(np.arange(64.0)) * 3.0
    _host_alias._families[id(z)] = stale  # (what a reused address leaves)
    del y
    assert stale.root_ref() is None
    host = np.asarray(z)
    np.testing.assert_array_equal(host, np.arange(64.0) * 3.0)
    fam = _host_alias._families[id(z)]
    assert fam is not stale and fam.root_ref() is z
    assert host.ctypes.data == _buffer(z).unsafe_buffer_pointer()
    host[0] = -1.0
    np.testing.assert_array_equal(np.asarray(z * 1.0)[:2], [-1.0, 3.0])
    np.testing.assert_array_equal(host[:2], [-1.0, 3.0])
    _host_alias._sweep()
    assert all(f is not stale for f in _host_alias._families.values())
    assert _host_alias._families[id(z)] is fam


@pytest.mark.parametrize("write", ["all", "slice", "inplace"])
def test_lazy_write_while_a_zero_copy_read_lives(compiled_now, write):
    """A write to the array while its zero-copy read lives: the numpy array shows the new value,
    an op recorded before the write keeps the old one (the old node, alive or not, is never
    written through the numpy array's memory)."""
    data = np.arange(40.0)
    y = xp.asarray(data) * 2.0
    host = np.asarray(y)
    before = y + 0.5
    want = data * 2.0
    if write == "all":
        y[...] = 3.0
        want = np.full(40, 3.0)
    elif write == "slice":
        y[5:9] = xp.asarray(np.array([7.0, 8.0, 9.0, 10.0]))
        want = want.copy()
        want[5:9] = [7.0, 8.0, 9.0, 10.0]
    else:
        y += 1.0
        want = want + 1.0
    np.testing.assert_array_equal(host, want)
    np.testing.assert_array_equal(np.asarray(y, copy=True), want)
    np.testing.assert_array_equal(np.asarray(before), data * 2.0 + 0.5)
    host[1] = 100.0  # still an alias both ways
    want[1] = 100.0
    np.testing.assert_array_equal(np.asarray(y * 1.0), want)
