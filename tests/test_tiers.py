"""Tiered execution: a new graph runs in the numpy interpreter for its first sightings while its
program compiles in the background; once compiled, the program runs it."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _host_sync, _run_program, _tier_policy


@pytest.fixture
def tiered(engine, monkeypatch):
    """Compile in the background right after the second sighting (in use, a graph must also
    have cost its compile time in the interpreter first: test_compile_waits_until_it_pays)."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda n_nodes: 0.0)
    yield xp.metrics
    _engine.wait_for_compiles()


def step(x):
    return xp.sum(xp.exp(x * 0.5) - x, axis=0)


def test_new_graph_is_interpreted_then_compiled_in_the_background(tiered, rng):
    xn = rng.standard_normal((6, 3))
    x = xp.asarray(xn)
    expected = np.sum(np.exp(xn * 0.5) - xn, axis=0)
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(step(x)), expected, rtol=1e-14)
    assert tiered.interpreted == 2
    assert tiered.background_compiles == 1
    _engine.wait_for_compiles()
    assert tiered.compiles == 1
    np.testing.assert_allclose(np.asarray(step(x)), expected, rtol=1e-14)
    assert tiered.interpreted == 2 and tiered.cache_hits == 1  # the compiled program ran it


def test_one_off_graphs_never_compile(tiered, rng):
    for n in range(1, 30):
        xn = rng.standard_normal(n + _host_sync.REDUCED)  # (above _host_sync.REDUCED: small reads need no tier)
        assert float(xp.max(xp.abs(xp.asarray(xn)) * 2.0)) == float(np.max(np.abs(xn)) * 2.0)
    assert tiered.compiles == 0 and tiered.background_compiles == 0
    assert tiered.interpreted == 29


def test_interpreted_values_feed_compiled_programs(tiered, monkeypatch, rng):
    xn = rng.integers(-100, 100, (40, 5)).astype(np.int32)
    y = xp.asarray(xn) // 7 + xp.asarray(xn) % 7  # interpreted: its value stays on the host
    xp.evaluate(y)
    assert tiered.interpreted == 1
    monkeypatch.setattr(_config, "interpret_first", 0)
    z = xp.cumulative_sum(y, axis=0) - y
    np.testing.assert_array_equal(np.asarray(z), np.cumsum(xn // 7 + xn % 7, axis=0) - (xn // 7 + xn % 7))
    assert tiered.compiles == 1


def test_graphs_the_interpreter_lacks_compile_at_once(tiered, rng):
    from lazyarray._graph import toposort
    from lazyarray._interpret import supports
    xn = rng.standard_normal(16) + 1j * rng.standard_normal(16)
    y = xp.acos(xp.asarray(xn))
    assert not supports(toposort([y._node])[0])  # (XLA's complex acos kernel has no host evaluation)
    np.testing.assert_allclose(np.asarray(y), np.arccos(xn), rtol=1e-12, atol=1e-12)
    assert tiered.compiles == 1 and tiered.interpreted == 0


def test_switching_the_tier_off(tiered, monkeypatch, rng):
    monkeypatch.setattr(_config, "interpret_first", 0)
    x = xp.asarray(rng.standard_normal(8))
    float(xp.sum(x * 3.0))
    assert tiered.compiles == 1 and tiered.interpreted == 0


def test_host_scalars_and_one_element_vectors_keep_their_shapes(tiered):
    """A 0-D value and a 1-element vector have the same bytes: their cached device copies differ."""
    dev = xp.asarray(1.0).device
    vec = _run_program.packed_buffer([2.5], xp.float64, dev)
    one = _run_program.host_buffer(np.asarray(2.5), dev)
    assert vec.shape == (1,) and one.shape == ()
    y = xp.sum(xp.asarray(np.array([1.0, 1.5])))  # interpreted: a 0-D value on the host
    xp.evaluate(y)
    assert tiered.interpreted == 1
    assert np.from_dlpack(y).shape == () and float(np.from_dlpack(y)) == 2.5


def test_compile_waits_until_it_pays(engine, monkeypatch, rng):
    """Ski rental: a graph compiles once interpreting it has cost its estimated compile time."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda n_nodes: 0.02)
    x = xp.asarray(rng.standard_normal(64))
    runs = 0
    while xp.metrics.background_compiles == 0:
        float(xp.sum(xp.exp(x) * 2.0))
        runs += 1
    assert runs > 2  # a tiny graph costs far less than 20 ms to interpret
    # the policy's own measure (CPU seconds of the interpreting thread: runs x the timed runs'
    # mean, `_tier_policy.Sighting`) reached the estimate at the run that started the compile
    entry, = [s for s in engine.sightings.values() if s.future is not None]
    assert entry.runs == runs and entry.timed >= 2
    assert entry.seconds >= 0.02
    assert xp.metrics.interpret_seconds > 0
    _engine.wait_for_compiles()
    float(xp.sum(xp.exp(x) * 2.0))
    assert xp.metrics.compiles == 1 and xp.metrics.cache_hits == 1


def test_fft_graphs_keep_the_interpreters_bits_on_the_host(tiered):
    # numpy's and XLA's transforms round differently: a repeated call must not switch tiers
    # (SciPy's TestFFTThreadSafe::test_hfft compares 16 calls with the first, bit for bit)
    a = xp.ones((80, 20), dtype=xp.complex64)
    first = np.asarray(xp.fft.hfft(a))
    np.testing.assert_allclose(first, np.fft.hfft(np.ones((80, 20), np.complex64)), atol=1e-4)
    for _ in range(5):
        np.testing.assert_array_equal(np.asarray(xp.fft.hfft(a)), first)
    _engine.wait_for_compiles()
    np.testing.assert_array_equal(np.asarray(xp.fft.hfft(a)), first)
    assert tiered.background_compiles == 0 and tiered.compiles == 0
    assert tiered.interpreted == 7
    xp.evaluate(xp.exp(a) * 2)  # the fixture's policy compiles any other graph on its 2nd sight
    xp.evaluate(xp.exp(a) * 2)
    assert tiered.background_compiles == 1
