"""The discrete Fourier transform primitive: stablehlo.fft over the trailing one to three axes.

FFT/IFFT map complex to complex, RFFT real to complex (last axis n -> n//2+1), IRFFT complex to
real with the full output lengths; XLA scales IFFT/IRFFT by 1/n.

Host evaluation (the interpreter tier): numpy.fft's n-dimensional transforms over the same
trailing axes, with numpy's matching scaling (ifftn/irfftn divide by n, as XLA does), in the
operand's precision (numpy >= 2 transforms complex64/float32 in single precision). XLA's CPU
transform (DUCC) and numpy's (pocketfft) are different codes, so the tiers agree to rounding,
not bit for bit. Measured over lengths 1, 2, 7, 8, 64, 97, 1000, 1024, 4096, 30011, 65536,
100003 and 2^20 and 2-D/3-D shapes (3x5, 16x16, 6x7x5, 32x8x4), all four kinds, single and
double precision: max |numpy - XLA| <= 4.1 * eps * max |XLA| (the worst at the prime lengths,
transformed by Bluestein's algorithm in both; most transforms within 2 eps, about half of the
small ones bit-identical); tests/test_interpret_fft.py asserts 8 eps. NaN and infinity
positions agree in the cases it checks (a NaN, an infinity, 1e308 in the input). So that a
repeated call keeps its bits, a graph with an fft never moves from one tier to the other on the
CPU (`_tier_policy.keeps_host_values`).
"""
from __future__ import annotations

import numpy as np

from .._emit import i64_array
from .core import OpDef


def _fft_rule(args, a):
    x, = args
    if not 1 <= len(a.lengths) <= 3 or len(a.lengths) > len(x.shape):
        raise AssertionError(f"fft {a.kind} of {x.shape} with lengths {a.lengths}")
    return a.shape, a.dtype


_NUMPY_FFT = {"FFT": np.fft.fftn, "IFFT": np.fft.ifftn, "RFFT": np.fft.rfftn, "IRFFT": np.fft.irfftn}


def _evaluate_fft(node, x):
    kind, lengths, _, _ = node.attrs
    axes = tuple(range(len(x.shape) - len(lengths), len(x.shape)))
    return _NUMPY_FFT[kind](x, s=lengths, axes=axes)


FFT = OpDef("fft", attrs=("kind", "lengths", "shape", "dtype"), rule=_fft_rule,
            lower=lambda e, node, x: e.op("stablehlo.fft", (x,), node.shape, node.dtype,
                                          f"fft_type = #stablehlo<fft_type {node.attrs.kind}>, "
                                          f"fft_length = {i64_array(node.attrs.lengths)}"),
            evaluate=_evaluate_fft)


def fft(x, kind, lengths, shape, dtype):
    """kind: FFT, IFFT, RFFT, IRFFT over the trailing len(lengths) axes."""
    return FFT.bind((x,), FFT.Attrs(kind, tuple(lengths), tuple(shape), dtype))
