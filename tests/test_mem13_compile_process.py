"""LAZYARRAY_COMPILE_PROCESS=1: CPU programs compiled by a helper process (`_compile_process`)
give the bits an in-process compile gives; custom-call programs and every program after a
failure compile in this process; XLA's errors are its own; an idle helper exits and a new one
starts for the next compile."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _compile_process, _config, _runtime


@pytest.fixture
def helper(monkeypatch):
    monkeypatch.setattr(_config, "compile_process", True)
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    xp.clear_cache()
    yield _compile_process
    xp.clear_cache()


def _device():
    return xp.asarray(1.0).device._pjrt


def _work(x, y):
    z = xp.sin(x) * y + xp.exp(-xp.abs(x)) / (1.0 + y * y)
    return xp.sum(z * z, axis=0), xp.cumulative_sum(z, axis=1), xp.argmax(z, axis=1), z > 0.5


def _run(a, b):
    return [np.asarray(v) for v in _work(xp.asarray(a), xp.asarray(b))]


def test_the_helper_compiles_the_bits_of_an_in_process_compile(helper, monkeypatch):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 33)), rng.standard_normal((64, 33))
    before = helper.compiles
    got = _run(a, b)
    assert helper.compiles > before
    monkeypatch.setattr(_config, "compile_process", False)
    xp.clear_cache()
    before = helper.compiles
    want = _run(a, b)
    assert helper.compiles == before
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))  # bit for bit


def test_text_with_the_same_program_runs_through_the_runtime(helper):
    x = xp.asarray(np.arange(12.0).reshape(3, 4))
    text = xp.stablehlo(x * 2.0 + 1.0)
    before = helper.compiles
    executable = _runtime.compile_text(text, _device())
    assert helper.compiles == before + 1
    assert executable is not None


def test_xla_errors_are_raised_as_without_the_helper(helper, monkeypatch):
    bad = "module { func.func public @main() -> tensor<2xf32> { %0 = stablehlo.bogus : tensor<2xf32> } }"
    with pytest.raises(Exception) as with_helper:
        _runtime.compile_text(bad, _device())
    monkeypatch.setattr(_config, "compile_process", False)
    with pytest.raises(Exception) as without:
        _runtime.compile_text(bad, _device())
    assert type(with_helper.value) is type(without.value)
    assert str(with_helper.value) == str(without.value)
    assert not helper._broken


def test_custom_call_programs_compile_in_this_process(helper):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 6))
    a = a @ a.T + 6 * np.eye(6)
    assert not _compile_process.wanted('stablehlo.custom_call @lapack_dpotrf_ffi(%0)', _device())
    before = helper.compiles
    chol = np.asarray(xp.linalg.cholesky(xp.asarray(a)))
    np.testing.assert_allclose(chol @ chol.T, a, rtol=1e-12)
    assert helper.compiles == before  # (its program has LAPACK's custom call)


def test_an_idle_helper_exits_and_the_next_compile_starts_another(helper, monkeypatch):
    helper._stop()
    monkeypatch.setattr(helper, "IDLE_SECONDS", 0.3)
    x = xp.asarray(np.arange(5.0))
    np.testing.assert_array_equal(np.asarray(x * 3.0 - 1.0), np.arange(5.0) * 3.0 - 1.0)
    first = helper._proc
    assert first is not None
    deadline = time.monotonic() + 20
    while first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert first.poll() == 0  # it exited by itself
    before = helper.compiles
    np.testing.assert_array_equal(np.asarray(x * x - 2.0), np.arange(5.0) ** 2 - 2.0)  # (a new structure)
    assert helper.compiles == before + 1 and helper._proc is not first
    helper._stop()
    assert helper.peak_rss_kb > 0


def test_a_helper_that_cannot_start_falls_back_for_good(helper, monkeypatch):
    helper._stop()
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    monkeypatch.setattr(helper, "_broken", False)
    before = helper.compiles
    x = xp.asarray(np.arange(7.0))
    np.testing.assert_array_equal(np.asarray(x * 7.0 + 0.5), np.arange(7.0) * 7.0 + 0.5)
    assert helper._broken and helper.compiles == before
    np.testing.assert_array_equal(np.asarray(x * x + 0.5), np.arange(7.0) ** 2 + 0.5)
    assert helper.compiles == before


def test_the_setting_is_read_from_the_environment():
    code = "import lazyarray as xp; print(xp.config.compile_process)"
    for value, want in (("1", "True"), ("0", "False"), ("", "False")):
        env = dict(os.environ, LAZYARRAY_COMPILE_PROCESS=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert out.stdout.strip().splitlines()[-1] == want


def test_a_program_the_helper_compiled_is_stored_and_loads_from_disk(helper, monkeypatch, tmp_path):
    """The disk cache stores the helper's own serialized form (a deserialized executable
    serialized again would fail at its first run after a load)."""
    monkeypatch.setattr(xp.config, "cache_dir", str(tmp_path))
    a = np.linspace(-3.0, 3.0, 40).reshape(5, 8)
    want = np.tanh(a) * 2.0 + np.abs(a)
    before = helper.compiles
    got = np.asarray(xp.tanh(xp.asarray(a)) * 2.0 + xp.abs(xp.asarray(a)))
    assert helper.compiles == before + 1
    from lazyarray import _engine
    _engine.wait_for_compiles()
    xp.clear_cache()  # (the in-memory programs forgotten: the next run loads the entry from disk)
    hits = xp.metrics.disk_hits
    again = np.asarray(xp.tanh(xp.asarray(a)) * 2.0 + xp.abs(xp.asarray(a)))
    assert xp.metrics.disk_hits > hits and helper.compiles == before + 1
    np.testing.assert_array_equal(again, got)
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_a_helper_that_never_answers_its_start_is_given_up(helper, monkeypatch):
    helper._stop()
    monkeypatch.setattr(helper, "_WORKER", "import time; time.sleep(30)")
    monkeypatch.setattr(helper, "START_SECONDS", 0.5)
    monkeypatch.setattr(helper, "_broken", False)
    before = helper.compiles
    t0 = time.monotonic()
    x = xp.asarray(np.arange(4.0))
    np.testing.assert_array_equal(np.asarray(xp.sqrt(x) + x), np.sqrt(np.arange(4.0)) + np.arange(4.0))
    assert time.monotonic() - t0 < 10 and helper._broken and helper.compiles == before
