"""A 0-D value handed to a consumer outside lazyarray (dlpack, `__jax_array__`) gets a device
buffer of its own: the small-value cache (`_run_program.host_buffer`) shares one buffer between
every 0-D value of the same bytes that programs take as inputs, and a consumer that writes
through its view (torch's in-place ops on a dlpack tensor) must change only the array it was
given, never that shared buffer."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _run_program
from lazyarray._engine_state import state


def _cached(buf):
    return any(v is buf for v in state.scalar_buffers.values())


@pytest.mark.parametrize("value, dtype", [(3.0, xp.float64), (7, xp.int32), (True, xp.bool)])
def test_exported_scalar_is_not_the_shared_cache_buffer(value, dtype):
    dev = xp.__array_namespace_info__().default_device()
    shared = _run_program.host_buffer(np.array(value, dtype=np.dtype(dtype.name if dtype != xp.bool else "bool")), dev)
    a = xp.asarray(value, dtype=dtype)
    buf = a.__jax_array__()
    assert buf is not shared and not _cached(buf)
    assert np.asarray(buf) == np.asarray(value)
    assert a.__jax_array__() is buf  # the array keeps the buffer it exported


def test_shaped_export_unchanged():
    a = xp.asarray(np.arange(4.0))
    assert np.array_equal(np.asarray(a.__jax_array__()), np.arange(4.0))


def test_torch_write_through_dlpack_changes_only_that_array():
    torch = pytest.importorskip("torch")
    a = xp.asarray(3.0)
    t = torch.from_dlpack(a)
    t.add_(1)
    assert float(a) == 4.0  # dlpack shares memory: the writer's array sees it
    dev = xp.__array_namespace_info__().default_device()
    again = _run_program.host_buffer(np.array(3.0), dev)  # what a program's 0-D input 3.0 gets
    assert float(np.asarray(again)) == 3.0
    b = xp.asarray(3.0)
    assert float(b * 2.0) == 6.0


def test_computed_scalar_input_then_exported_keeps_the_cache_intact():
    """A 0-D value a sync computed on the host is a program input of its own (`_graph.packs`):
    the program gets the cache's buffer for its bytes, the array keeps its host value, and an
    export afterwards is its own buffer."""
    dev = xp.__array_namespace_info__().default_device()
    s = xp.sum(xp.asarray(np.ones(3)))
    float(s)  # computed (on the host or the device)
    big = xp.asarray(np.ones(50_000))
    np.asarray(big * s)  # s is a program input (or interpreted)
    buf = s.__jax_array__()
    assert not _cached(buf)
    assert float(np.asarray(_run_program.host_buffer(np.array(3.0), dev))) == 3.0
    assert np.array_equal(np.asarray(big * s)[:3], [3.0, 3.0, 3.0])
