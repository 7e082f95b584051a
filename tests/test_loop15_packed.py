"""A program's float32 host scalars are packed by struct (`_run_program.packed_buffer`,
`_STRUCT_CODES`) where that gives numpy's bits, numpy otherwise (NaNs, infinities, ints past
2**53): the device vector holds numpy's float32 values bit for bit, and a float32 loop with
Python scalars computes numpy's values."""
import struct
import warnings

import numpy as np

import lazyarray as xp
from lazyarray import _run_program
from loop_workloads import logreg


def _doubles(rng, count):
    bits = rng.integers(0, 2 ** 63, count, dtype=np.int64).astype(np.uint64) * np.uint64(2)
    bits += rng.integers(0, 2, count, dtype=np.int64).astype(np.uint64)
    return [struct.unpack("<d", struct.pack("<Q", int(b)))[0] for b in bits]


def test_float32_scalars_pack_to_numpys_bits(engine, rng):
    dev = xp.asarray(1.0).device
    f32max = float(np.finfo(np.float32).max)
    special = [0.0, -0.0, 1.0, -1.5, 0.1, 1 / 3, f32max, np.nextafter(f32max, np.inf), 3.4028235677973366e38,
               1.401298464324817e-45, 7.006492321624085e-46, 7.006492321624087e-46, 1e-46, 1.1754943508222875e-38,
               16777217.0, 16777217, 16777219, 2 ** 53, -(2 ** 53), 2 ** 53 + 1, 2 ** 60 + 2 ** 36 + 1, -(2 ** 70),
               float("inf"), float("-inf"), float("nan"), True, False, np.float32(0.1), np.float64(0.1),
               np.array(2.5), np.int64(7), np.float16(0.3)]
    values = special + _doubles(rng, 3000) + list(rng.uniform(-1e6, 1e6, 1000)) \
        + [int(v) for v in rng.integers(-2 ** 62, 2 ** 62, 500)]
    for k in range(0, len(values), 7):
        group = values[k:k + 7]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (numpy's overflow to inf, both paths)
            want = np.array(group, dtype=np.float32)
            got = np.asarray(_run_program.packed_buffer(group, xp.float32, dev))
        assert got.dtype == np.float32 and got.tobytes() == want.tobytes(), group


def test_a_float32_loop_with_python_scalars_is_numpys(engine, rng, monkeypatch):
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    X = rng.standard_normal((300, 5)).astype(np.float32)
    y = (X @ rng.standard_normal(5).astype(np.float32) > 0).astype(np.float32)
    w = np.zeros(5, np.float32)
    Xl, yl, wl = map(xp.asarray, (X, y, w))
    for lr in (0.5, 0.1, 1e-3):
        got = np.asarray(logreg(xp, Xl, yl, wl, 40, lr=lr))
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, logreg(np, X, y, w, 40, lr=lr), rtol=2e-4, atol=1e-5)
