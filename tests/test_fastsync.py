"""The short paths of small syncs: a cached program's one-output sync (`_run_program.
_run_cached_one`) and a one-element read pushed down from the target (`_host_sync.run`, the
`is_lazy_array` probe). Values are checked against numpy; each test also checks which path ran
(`metrics.short_syncs`, `metrics.host_syncs`, `metrics.executions`) and that what the short
path skips still happens where it applies (buffer reuse, zero-copy aliasing, checks, fusion)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine
from lazyarray._metrics import metrics


# ---------------------------------------------------------------- one output, cached program

@pytest.mark.parametrize("npdt", [np.float64, np.float32, np.int32, np.uint8])
def test_repeated_read_takes_the_short_path(compiled_now, rng, npdt):
    """The first run compiles and keeps its replay; later reads of the same structure with new
    scalars and leaves run through the short path and give numpy's values."""
    before = metrics.short_syncs
    for step in range(5):
        data = (rng.integers(0, 50, 1000)).astype(npdt)
        s = int(rng.integers(1, 4))
        x = xp.asarray(data)
        y = x * s + 1
        np.testing.assert_array_equal(np.asarray(y), data * npdt(s) + npdt(1))
    assert metrics.short_syncs - before >= 3, "the cached one-output syncs took the general path"


def test_short_path_results_alias_as_before(compiled_now):
    """A zero-copy read of a short-path result is the node's value: a write into it is seen by a
    later lazy op; the first array's value is unchanged by the next run."""
    x = xp.asarray(np.arange(1000.0))
    for _ in range(2):
        np.asarray(x * 2.0 + 1.0)  # (compiled, replay kept)
    before = metrics.short_syncs
    y = x * 2.0 + 1.0
    host = np.asarray(y)
    assert metrics.short_syncs == before + 1
    host[3] = -7.0
    expect = np.arange(1000.0) * 2.0 + 1.0
    expect[3] = -7.0
    np.testing.assert_array_equal(np.asarray(y + 0.0), expect)
    z = x * 2.0 + 1.0
    np.testing.assert_array_equal(np.asarray(z), np.arange(1000.0) * 2.0 + 1.0)
    np.testing.assert_array_equal(host, expect)  # (z's run did not write into y's memory)


def test_large_outputs_keep_the_general_path_and_reuse_buffers(compiled_now):
    """An output the buffer pool recycles for (>= pool_min_bytes) is never on the short path:
    dead arrays' buffers are still donated to it."""
    n = (_config.pool_min_bytes // 8) + 1024
    x = xp.asarray(np.ones(n))
    before_short, before_recycled = metrics.short_syncs, metrics.recycled_buffers
    for k in range(6):
        y = x * float(k) + 1.0
        y._pending_node()  # (read through a copy below: no zero-copy lending)
        xp.evaluate(y)
        assert float(y[n - 1]) == float(k) + 1.0
        del y
        _engine.wait_for_compiles()  # (the donating variant compiles in the background)
    assert metrics.short_syncs == before_short
    assert metrics.recycled_buffers > before_recycled, "dead buffers were not reused"


def test_several_outputs_and_live_sharers_take_the_general_path(compiled_now):
    """Two requested outputs (too small for the pool: the short path serves them too, session
    15), or a live pending array sharing the target's work, are all computed."""
    x = xp.asarray(np.arange(1000.0))
    for _ in range(3):
        a, b = x * 2.0, x + 1.0
        xp.evaluate(a, b)
    before = metrics.short_syncs
    a, b = x * 2.0, x + 1.0
    xp.evaluate(a, b)
    assert metrics.short_syncs == before + 1
    np.testing.assert_array_equal(np.asarray(a), np.arange(1000.0) * 2.0)
    np.testing.assert_array_equal(np.asarray(b), np.arange(1000.0) + 1.0)
    t = x * 3.0
    u = t + 1.0  # shares t with the read of v
    v = t - 1.0
    np.asarray(v)
    assert u._pending_node().op is None, "the live array sharing the read's work stayed pending"
    np.testing.assert_array_equal(np.asarray(u), np.arange(1000.0) * 3.0 + 1.0)


def test_checked_mode_never_takes_the_short_path(compiled_now, monkeypatch):
    monkeypatch.setattr(_config, "checks", True)
    x = xp.asarray(np.arange(1000.0))
    idx = xp.asarray(np.array([1, 2, 3]))
    for _ in range(3):
        np.asarray(xp.take(x * 2.0, idx))
    before = metrics.short_syncs
    bad = xp.asarray(np.array([1, 2000, 3]))
    with pytest.raises(IndexError):
        np.asarray(xp.take(x * 2.0, bad))
    np.testing.assert_array_equal(np.asarray(xp.take(x * 2.0, idx)), [2.0, 4.0, 6.0])
    assert metrics.short_syncs == before


# ---------------------------------------------------------------- one element, pushed down

@pytest.fixture(params=["verify", "plain"])
def verifying(request, monkeypatch):
    """The small reads with the graph verifier on (as the test suites run) and off (as users
    run): the verifier's walk records every node it evaluates, through the same paths."""
    monkeypatch.setattr(_config, "verify", request.param == "verify")


def _probe(x):
    """array-api-compat's is_lazy_array probe."""
    return bool(xp.any(xp.reshape(x, (-1,))[0]))


@pytest.mark.parametrize("start", [0.0, 1.0, -3.0])
def test_probe_reads_one_element_and_leaves_the_array_pending(start, verifying):
    base_np = np.arange(100.0) + start
    base = xp.asarray(base_np)
    y = base * 2.0 + 1.0
    host, execs, reads = metrics.host_syncs, metrics.executions, metrics.host_element_reads
    assert _probe(y) == bool(np.any(np.reshape(base_np * 2.0 + 1.0, (-1,))[0]))
    # (the element is computed when indexed, `_host_sync.element_now`: no sync, no program)
    assert metrics.host_syncs == host and metrics.host_element_reads == reads + 1
    assert metrics.executions == execs
    assert y._pending_node().op is not None, "the probe computed y whole"
    np.testing.assert_array_equal(np.asarray(y), base_np * 2.0 + 1.0)


@pytest.mark.parametrize("shape,index", [((3, 4), (2, 1)), ((2, 3, 5), (1, 2, 4)), ((6, 20), (5, 19))])
def test_element_through_reshapes_matches_numpy(shape, index, verifying):
    """An element read pushed through reshape (row-major index arithmetic), transpose and
    arithmetic with Python scalars."""
    data = np.arange(float(np.prod(shape))).reshape(shape) * 0.5 - 3.0
    x = xp.asarray(data)
    flat = xp.reshape(xp.permute_dims(x * 3.0 - 1.0, tuple(reversed(range(len(shape))))), (-1,))
    expect = np.reshape(np.transpose(data * 3.0 - 1.0), (-1,))
    for k in (0, 1, expect.size - 1, expect.size // 2):
        assert float(flat[k]) == expect[k]
    back = xp.reshape(flat, tuple(reversed(shape)))
    rindex = tuple(reversed(index))
    assert float(back[rindex]) == expect.reshape(tuple(reversed(shape)))[rindex]


@pytest.mark.parametrize("npdt", [np.float32, np.int8, np.uint16, np.complex64])
def test_python_scalars_are_read_in_the_leaf_dtype(npdt, verifying):
    """A Python scalar operand of a pushed element is the leaf dtype's value (float32 rounding,
    integer wraparound), as numpy computes the whole array."""
    data = (np.arange(200) % 11).astype(npdt)
    x = xp.asarray(data)
    if np.dtype(npdt).kind == "f":
        y, expect = x * 0.1 + 1e-3, data * npdt(0.1) + npdt(1e-3)
    elif np.dtype(npdt).kind == "c":
        y, expect = x * (0.5 + 0.25j) - 1.0, data * npdt(0.5 + 0.25j) - npdt(1.0)
    else:
        y, expect = x * 30 + 7, (data * npdt(30)) + npdt(7)
    for k in (0, 5, 199):
        v = y[k]
        assert complex(v) == complex(expect[k]), (k, complex(v), expect[k])
    np.testing.assert_array_equal(np.asarray(y), expect)


def test_one_element_of_a_dynamic_index_and_zero_d_chain(verifying):
    """y[i] with i a Python int (a graph parameter), then 0-D arithmetic on the element, read by
    float(): every step pushed, values as numpy's."""
    data = np.linspace(-2.0, 2.0, 101)
    x = xp.asarray(data)
    y = x * x - 0.5
    for i in (0, 37, 100, -1):
        e = y[i]
        z = (e * 2.0 + 1.0) / 3.0
        assert float(z) == ((data * data - 0.5)[i] * 2.0 + 1.0) / 3.0
    assert y._pending_node().op is not None


def _device_leaf_array(data):
    """An array over a device buffer holding a copy of `data` (what asarray made before it kept
    CPU copies on the host)."""
    from lazyarray._array_object import Array
    from lazyarray._host_data import numpy_leaf
    device = xp.asarray(0.0).device
    return Array._wrap(numpy_leaf(data, device), device)


def test_small_reads_see_writes_through_numpy_aliases(verifying):
    """A CPU leaf's memory viewed by small reads (`_host_sync._leaf`, kept between reads) shows
    the value the array has now: after a write through `np.asarray(x)`, and for a new array
    made in a dead one's place."""
    for trial in range(3):
        data = np.arange(10.0) + trial
        x = _device_leaf_array(data)  # (asarray keeps a CPU copy on the host: test_host_leaf_reads.py)
        assert x._pending_node().buffer is not None, "not a device leaf"
        assert bool((x * 1.0)[3] > 2.5) == (data[3] > 2.5)
        assert float((x * 2.0 + 1.0)[3]) == data[3] * 2.0 + 1.0
        before = xp.metrics.zero_copy_reads
        host = np.asarray(x)
        assert xp.metrics.zero_copy_reads == before + 1  # (the device buffer's own memory)
        host[3] = -5.0
        assert not bool((x * 1.0)[3] > 2.5)
        assert float((x * 2.0 + 1.0)[3]) == -9.0
        np.testing.assert_array_equal(np.asarray(xp.reshape(x, (2, 5))[0, :]), [trial, 1 + trial, 2 + trial, -5.0, 4 + trial])
        del x, host


def test_a_small_state_read_each_step_is_realized(verifying):
    """A loop that reads a one-element state each step: the read realizes the live state on
    the way (pushed, not computed whole), so its graph does not grow and every read stays on
    the host."""
    s = xp.asarray(0.0)
    s_np = 0.0
    execs = metrics.executions
    for i in range(60):
        s = s * 0.5 + float(i)
        s_np = s_np * 0.5 + float(i)
        assert bool(s > 10.0) == (s_np > 10.0)
        assert s._pending_node().op is None, f"step {i}: the state stayed pending"
    assert metrics.executions == execs
    assert float(s) == s_np


def test_kept_buffer_views_are_bounded_and_small(verifying):
    """The views kept between small reads hold their buffers: at most BUFFER_VIEWS_KEPT small
    ones, whatever how many arrays were read and dropped; a large leaf is never kept."""
    from lazyarray import _host_sync
    for i in range(3 * _host_sync.BUFFER_VIEWS_KEPT):
        x = xp.asarray(np.arange(100.0) + i)
        assert float((x * 2.0)[7]) == (7.0 + i) * 2.0
        del x
    assert len(_host_sync._buffer_views) <= _host_sync.BUFFER_VIEWS_KEPT
    big = xp.asarray(np.arange(_host_sync.VIEWED_BYTES // 8 + 1, dtype=np.float64))
    assert float((big * 2.0)[5]) == 10.0
    assert all(entry[0] is not big._pending_node().buffer for entry in _host_sync._buffer_views.values())
