"""A program the prefetch loaded is run once on zeros on the compile thread (`_first_run`), so
XLA's per-executable runtime state is built before the caller's first run: the runs on zeros
happen, change no result (the second process's values equal the first's, bit for bit), end for
loop programs (a `stablehlo.while` counting to a zero parameter) and LAPACK kernels on a zero
matrix, and skip programs over the bounds."""
import numpy as np

import lazyarray as xp
from lazyarray import _config, _engine, _first_run, _prefetch, _runtime
from test_prefetch import _fresh_prefetch

_DEVICE = xp.__array_namespace_info__().default_device()


def _as_second_process(tmp_path, monkeypatch, compute):
    """compute() with its programs compiled and stored under tmp_path, then again as the next
    process of the same command would: programs forgotten, the manifest's entries loaded (and
    run on zeros) on the compile thread before the first lookup. Returns both results (numpy)
    and the runs on zeros made."""
    _fresh_prefetch(monkeypatch, tmp_path)
    first = [np.asarray(v) for v in compute()]
    _prefetch.write_manifests()
    _engine.clear_cache()
    _fresh_prefetch(monkeypatch, tmp_path)
    runs = _first_run.runs
    _prefetch.start(_DEVICE)
    _engine.wait_for_compiles()
    made = _first_run.runs - runs
    second = [np.asarray(v) for v in compute()]
    return first, second, made


def _same_bits(first, second):
    assert len(first) == len(second)
    for a, b in zip(first, second):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_loaded_programs_run_on_zeros_and_results_are_unchanged(tmp_path, monkeypatch, fresh):
    rng = np.random.default_rng(0)
    xn, wn = rng.standard_normal((300, 8)), rng.standard_normal(8)

    def compute():
        x, w = xp.asarray(xn), xp.asarray(wn)
        z = xp.tanh(x @ w) * 2.0 + xp.sum(x, axis=0)[0]
        return [z, xp.max(x, axis=1), xp.argmin(x, axis=0)]

    first, second, made = _as_second_process(tmp_path, monkeypatch, compute)
    _same_bits(first, second)
    assert made >= 1 and fresh.compiles >= 1
    compiles = fresh.compiles
    np.testing.assert_allclose(second[0], np.tanh(xn @ wn) * 2.0 + xn.sum(axis=0)[0], rtol=1e-12)
    assert fresh.compiles == compiles  # (the second computation loaded, it did not compile)


def test_a_loop_program_on_zeros_ends(tmp_path, monkeypatch, fresh):
    """A repeated chunk runs as a `stablehlo.while` up to a trip-count parameter: zero here."""
    rng = np.random.default_rng(1)
    xn, yn = rng.standard_normal((200, 5)), rng.standard_normal(200)

    def compute():
        x, y, w = xp.asarray(xn), xp.asarray(yn), xp.zeros(5, dtype=xp.float64)
        for _ in range(40):
            w = w - 0.001 * (x.T @ (x @ w - y))
        return [w]

    first, second, made = _as_second_process(tmp_path, monkeypatch, compute)
    _same_bits(first, second)
    assert made >= 1
    w = np.zeros(5)
    for _ in range(40):
        w = w - 0.001 * (xn.T @ (xn @ w - yn))
    np.testing.assert_allclose(second[0], w, rtol=1e-10)


def test_lapack_programs_on_zeros(tmp_path, monkeypatch, fresh):
    """Cholesky and SVD of a zero matrix (a failed factorisation, a zero spectrum) in the runs on
    zeros; the real inputs' results afterwards are the first process's."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 6))
    spd = a @ a.T + 6 * np.eye(6)

    def compute():
        m = xp.asarray(spd)
        return [xp.linalg.cholesky(m), xp.linalg.svd(m, full_matrices=False)[1]]

    first, second, made = _as_second_process(tmp_path, monkeypatch, compute)
    _same_bits(first, second)
    assert made >= 1
    np.testing.assert_allclose(second[0], np.linalg.cholesky(spd), rtol=1e-12)


def test_programs_over_the_bounds_are_not_run(tmp_path, monkeypatch, fresh):
    xn = np.arange(12.0).reshape(3, 4)
    monkeypatch.setattr(_first_run, "MAX_BYTES", 0)

    def compute():
        return [xp.sum(xp.asarray(xn) * 3.0, axis=1)]

    first, second, made = _as_second_process(tmp_path, monkeypatch, compute)
    assert made == 0
    _same_bits(first, second)
    np.testing.assert_array_equal(second[0], (xn * 3.0).sum(axis=1))
    monkeypatch.setattr(_first_run, "MAX_BYTES", 32 << 20)
    monkeypatch.setattr(_first_run, "MAX_FLOPS", 0.0)
    first, second, made = _as_second_process(tmp_path, monkeypatch, compute)
    assert made == 0
    _same_bits(first, second)
    monkeypatch.setattr(_first_run, "MAX_FLOPS", 1e8)
    monkeypatch.setattr(_config, "heap_threshold", 96)  # (the input, 96 bytes, would be mmapped)
    first, second, made = _as_second_process(tmp_path, monkeypatch, compute)
    assert made == 0
    _same_bits(first, second)
    monkeypatch.setattr(_config, "heap_threshold", 97)
    first, second, made = _as_second_process(tmp_path, monkeypatch, compute)
    assert made == 1


def test_run_on_zeros_direct(tmp_path, monkeypatch, fresh):
    """The runtime call itself: a loaded executable runs once (True), its later run on real
    inputs gives what an executable that never ran on zeros gives."""
    _fresh_prefetch(monkeypatch, tmp_path)
    xn = np.linspace(-2.0, 3.0, 24).reshape(4, 6)
    np.testing.assert_allclose(float(xp.sum(xp.exp(xp.asarray(xn)))), np.sum(np.exp(xn)), rtol=1e-13)  # (stored)
    (name,) = _prefetch._used[str(tmp_path)]
    path = str(tmp_path / name)
    warmed, cold = (_runtime.load_serialized(path, _DEVICE._pjrt) for _ in range(2))
    runs = _first_run.runs
    assert _first_run.run_on_zeros(warmed, _DEVICE._pjrt)
    assert _first_run.runs == runs + 1
    inputs = [_runtime.put(xn, _DEVICE._pjrt)]
    out_w = [np.asarray(o) for o in _runtime.execute(warmed, inputs)]
    out_c = [np.asarray(o) for o in _runtime.execute(cold, inputs)]
    _same_bits(out_w, out_c)
