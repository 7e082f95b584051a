"""The interpreter tier's fft (numpy.fft) against the compiled program (XLA's DUCC transform):
to rounding, within the bound _ops.fft states (8 eps of the output's largest magnitude), with
NaN and infinity in the same places; see tier_check."""
import numpy as np
import pytest

from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from tier_check import both, compile_always, leaf  # noqa: F401

pytestmark = pytest.mark.usefixtures("compile_always")

BOUND_EPS = 8  # the bound _ops.fft's docstring states (4.1 eps measured)

PRECISIONS = [(dt.complex64, dt.float32), (dt.complex128, dt.float64)]


def shapes(kind, lengths, batch):
    half = tuple(lengths[:-1]) + (lengths[-1] // 2 + 1,)
    if kind == "RFFT":
        return batch + tuple(lengths), batch + half
    if kind == "IRFFT":
        return batch + half, batch + tuple(lengths)
    return batch + tuple(lengths), batch + tuple(lengths)


def check_fft(x, kind, lengths, out_shape, out_dtype):
    got, want = both(ops.fft(leaf(x), kind, lengths, out_shape, out_dtype))
    for g, w in ([got.real, want.real], [got.imag, want.imag]) if got.dtype.kind == "c" else ([got, want],):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_array_equal(np.isinf(g), np.isinf(w))
    fin = np.isfinite(got) & np.isfinite(want)
    if fin.any():
        eps = np.finfo(got.real.dtype).eps
        scale = np.max(np.abs(want[fin]))
        assert np.max(np.abs(got[fin] - want[fin])) <= BOUND_EPS * eps * scale


@pytest.mark.parametrize("kind", ["FFT", "IFFT", "RFFT", "IRFFT"])
@pytest.mark.parametrize("cd,rd", PRECISIONS, ids=["single", "double"])
@pytest.mark.parametrize("lengths", [(1,), (8,), (97,), (1000,), (16, 16), (6, 7, 5)], ids=str)
def test_fft_within_bound(kind, cd, rd, lengths):
    rng = np.random.default_rng(len(lengths) * 1000 + lengths[-1])
    in_shape, out_shape = shapes(kind, lengths, (3,))
    x = rng.standard_normal(in_shape)
    in_dtype = rd if kind == "RFFT" else cd
    if in_dtype.kind == "c":
        x = x + 1j * rng.standard_normal(in_shape)
    out_dtype = rd if kind == "IRFFT" else cd
    check_fft(x.astype(in_dtype.np), kind, lengths, out_shape, out_dtype)


@pytest.mark.parametrize("n", [7, 8])
def test_fft_special_values(n):
    x = np.tile(np.arange(n, dtype=np.complex128), (3, 1))
    x[0, 2], x[1, 3], x[2, 1] = np.inf, np.nan, 1e308
    check_fft(x, "FFT", (n,), (3, n), dt.complex128)
