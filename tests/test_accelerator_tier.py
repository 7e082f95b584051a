"""The interpreter tier on an accelerator (`_tier_policy.may_interpret`): a new graph runs on the
host when its host-device copies fit the transfer budget, its device inputs are fetched once, its
outputs stay host values until a compiled program takes them (one upload), and repetition still
leads to the background compile. No GPU here: the accelerator is simulated by a device whose
platform says "cuda" but which wraps the CPU's PJRT device (programs compile and run on the CPU;
everything the engine decides by platform sees "cuda")."""
import itertools
import math
import time
import types

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _run_program, _tier_policy
from lazyarray._devices import Device
from lazyarray._graph import toposort
from lazyarray.sharding import Mesh, NamedSharding, PartitionSpec


def _fake_device(platform, missing=frozenset()):
    cpu = next(d for d in xp.__array_namespace_info__().devices() if d.platform == "cpu")
    fake = Device(cpu._pjrt)
    fake.platform = platform
    fake.id = 1000  # apart from the CPU device's per-device caches (programs, sightings, pool)
    fake._hash = hash((platform, fake.id))
    fake.missing_dtypes = missing
    return fake


@pytest.fixture
def gpu(engine, monkeypatch):
    """A simulated CUDA device, a fresh engine and the default tier settings; the engine's state
    (programs and sightings of the fake device) is forgotten afterwards."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_config, "interpret_transfer_bytes", 8 << 20)
    yield _fake_device("cuda")
    _engine.wait_for_compiles()
    engine.reset()
    xp.metrics.reset()


def on_device(xn, device):
    """An array whose value is already in device memory (as a compiled program's output is)."""
    x = xp.asarray(xn, device=device)
    _run_program.input_buffer(x._node, device)
    assert x._node.buffer is not None and x._node.host is None
    return x


def step(x):
    return xp.sum(xp.exp(x * 0.5) - x, axis=0)


def step_np(xn):
    return np.sum(np.exp(xn * 0.5) - xn, axis=0)


def test_first_sight_of_a_small_graph_is_interpreted(gpu, rng):
    xn = rng.standard_normal((6, 3))
    x = on_device(xn, gpu)
    m = xp.metrics
    m.reset()
    y = step(x)
    np.testing.assert_allclose(np.asarray(y), step_np(xn), rtol=1e-14)
    assert m.interpreted == 1
    assert m.compiles == 0 and m.background_compiles == 0 and m.cache_misses == 0
    assert m.bytes_to_host == xn.nbytes  # the device input, fetched to the host
    assert y.device == gpu and y._node.host is not None and y._node.buffer is None  # a host value


def test_device_inputs_are_fetched_once(gpu, rng):
    xn = rng.standard_normal((5, 4))
    x = on_device(xn, gpu)
    m = xp.metrics
    m.reset()
    for _ in range(2):  # the same graph twice, then two other graphs, on the same input
        np.testing.assert_allclose(np.asarray(step(x)), step_np(xn), rtol=1e-14)
    np.testing.assert_array_equal(np.asarray(xp.max(x, axis=1)), np.max(xn, axis=1))
    np.testing.assert_array_equal(np.asarray(x[1:3, ::2] * 2.0), xn[1:3, ::2] * 2.0)
    assert m.interpreted == 4 and m.compiles == 0
    assert m.bytes_to_host == xn.nbytes
    assert x._node.buffer is not None  # a compiled program still takes the device buffer


def test_a_graph_over_the_transfer_budget_compiles_at_once(gpu, rng):
    """A small slice of a large device array: little work, but fetching the whole array to the
    host would cost more than the budget allows, so the graph compiles."""
    big = rng.standard_normal((1100, 1024))  # 8.6 MiB of float64, over the 8 MiB budget
    x = on_device(big, gpu)
    m = xp.metrics
    m.reset()
    np.testing.assert_array_equal(np.asarray(x[:4, :3] + 1.0), big[:4, :3] + 1.0)
    assert m.compiles == 1 and m.interpreted == 0
    assert x._node.host is None and m.bytes_to_host < big.nbytes  # the large input was not fetched


def test_host_values_cost_no_transfer(gpu, monkeypatch, rng):
    """An interpreted graph's outputs are host values: the next graph reads them in place, so
    they do not count against the budget, and nothing crosses to or from the device."""
    xn = rng.standard_normal((64, 32))
    x = on_device(xn, gpu)
    y = x * 2.0
    xp.evaluate(y)
    assert xp.metrics.interpreted == 1 and y._node.buffer is None
    monkeypatch.setattr(_config, "interpret_transfer_bytes", 4 * 3 * 8)  # the output's bytes only
    m = xp.metrics
    m.reset()
    np.testing.assert_array_equal(np.asarray(y[:4, :3] + 1.0), xn[:4, :3] * 2.0 + 1.0)
    assert m.interpreted == 1 and m.compiles == 0 and m.bytes_to_host == 0 and m.bytes_to_device == 0


def test_the_budget_counts_device_inputs_and_outputs(gpu, monkeypatch, rng):
    xn = rng.standard_normal((16, 8))
    needed = xn.nbytes + 8 * 8  # the device input, and the (8,) float64 output
    for budget, interpreted in ((needed, 1), (needed - 1, 0)):
        xp.metrics.reset()
        monkeypatch.setattr(_config, "interpret_transfer_bytes", budget)
        x = on_device(xn, gpu)
        np.testing.assert_allclose(np.asarray(step(x)), step_np(xn), rtol=1e-14)
        assert xp.metrics.interpreted == interpreted and xp.metrics.compiles == 1 - interpreted


def test_outputs_stay_on_the_host_until_a_program_needs_them(gpu, monkeypatch, rng):
    xn = rng.standard_normal((40, 5))
    x = on_device(xn, gpu)
    y = x * 3.0 - 1.0
    xp.evaluate(y)
    assert xp.metrics.interpreted == 1 and y._node.buffer is None
    m = xp.metrics
    m.reset()
    monkeypatch.setattr(_config, "interpret_first", 0)  # the next graphs compile
    np.testing.assert_allclose(np.asarray(xp.cumulative_sum(y, axis=0)), np.cumsum(xn * 3.0 - 1.0, axis=0),
                               rtol=1e-13)
    assert m.compiles == 1 and m.bytes_to_device == y.size * 8  # y went up, once
    np.testing.assert_allclose(np.asarray(xp.cumulative_prod(y, axis=1)), np.cumprod(xn * 3.0 - 1.0, axis=1),
                               rtol=1e-13)
    assert m.compiles == 2 and m.bytes_to_device == y.size * 8  # already there


def test_repetition_compiles_in_the_background_then_the_program_serves(gpu, monkeypatch, rng):
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda n_nodes: 0.0)  # pays at once
    xn = rng.standard_normal((6, 3))
    x = on_device(xn, gpu)
    m = xp.metrics
    m.reset()
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(step(x)), step_np(xn), rtol=1e-14)
    assert m.interpreted == 2 and m.background_compiles == 1
    _engine.wait_for_compiles()
    assert m.compiles == 1
    np.testing.assert_allclose(np.asarray(step(x)), step_np(xn), rtol=1e-13)
    assert m.interpreted == 2 and m.cache_hits == 1  # the compiled program ran it


def test_an_accelerator_waits_longer_before_compiling(gpu, monkeypatch, rng):
    """Ski rental against the accelerator's compile (ACCELERATOR_COMPILE_RATIO times the CPU's):
    interpreting time that pays for a CPU compile does not yet pay for a GPU one."""
    cpu = next(d for d in xp.__array_namespace_info__().devices() if d.platform == "cpu")
    run_seconds, cpu_estimate = 0.0625, 0.125  # (binary fractions: the sums are exact)
    ticks = itertools.count()
    # (the policy weighs the CPU time of the timed runs: each of those costs run_seconds)
    monkeypatch.setattr(_tier_policy, "time", types.SimpleNamespace(perf_counter=time.perf_counter,
                                                                    thread_time=lambda: next(ticks) * run_seconds))
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda n_nodes: cpu_estimate)
    gpu_runs = math.ceil(cpu_estimate * _tier_policy.ACCELERATOR_COMPILE_RATIO / run_seconds)
    xn = rng.standard_normal((6, 3))
    for device, compiles_after in ((cpu, 2), (gpu, gpu_runs)):
        xp.metrics.reset()
        x = xp.asarray(xn, device=device)
        runs = 0
        while xp.metrics.background_compiles == 0:
            np.testing.assert_allclose(np.asarray(step(x)), step_np(xn), rtol=1e-14)
            runs += 1
        assert runs == compiles_after, device
        assert xp.metrics.interpreted == runs


def test_the_interpreter_computes_the_devices_dtypes(engine, monkeypatch, rng):
    """A device without float64 (a TPU): float32 graphs are interpreted in float32."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    tpu = _fake_device("tpu", frozenset({xp.float64, xp.complex128}))
    xn = rng.standard_normal((7, 3)).astype(np.float32)
    x = on_device(xn, tpu)
    xp.metrics.reset()
    y = xp.mean(x * x, axis=0)
    got = np.asarray(y)
    assert got.dtype == np.float32 and y.dtype == xp.float32
    np.testing.assert_allclose(got, np.mean(xn * xn, axis=0), rtol=1e-6)
    assert xp.metrics.interpreted == 1 and xp.metrics.compiles == 0
    with pytest.raises(ValueError):
        xp.asarray(xn.astype(np.float64), device=tpu)
    engine.reset()


def test_a_mesh_never_goes_to_the_interpreter(gpu, rng):
    mesh = Mesh([gpu], ("x",))
    xn = rng.standard_normal((8, 3))
    x = xp.asarray(xn, device=NamedSharding(mesh, PartitionSpec("x", None)))
    m = xp.metrics
    m.reset()
    np.testing.assert_allclose(np.asarray(step(x)), step_np(xn), rtol=1e-13)
    assert m.interpreted == 0 and m.compiles == 1
    y = step(x)
    order, leaves = toposort([y._node])
    plan = types.SimpleNamespace(order=order, leaves=leaves)
    assert not _tier_policy.may_interpret(x.device, plan, [y._node])


def test_the_cpu_is_unchanged(engine, monkeypatch, rng):
    """On the CPU the budget does not apply: a graph over it is still interpreted."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_config, "interpret_transfer_bytes", 0)
    cpu = next(d for d in xp.__array_namespace_info__().devices() if d.platform == "cpu")
    xn = rng.standard_normal((6, 3))
    x = on_device(xn, cpu)
    xp.metrics.reset()
    np.testing.assert_allclose(np.asarray(step(x)), step_np(xn), rtol=1e-14)
    assert xp.metrics.interpreted == 1 and xp.metrics.bytes_to_host == 0
    assert x._node.host is None  # the CPU's buffers are read in place, never copied
