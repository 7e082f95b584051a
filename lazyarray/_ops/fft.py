"""The discrete Fourier transform primitive: stablehlo.fft over the trailing one to three axes.

FFT/IFFT map complex to complex, RFFT real to complex (last axis n -> n//2+1), IRFFT complex to
real with the full output lengths; XLA scales IFFT/IRFFT by 1/n. No host evaluation yet: a graph
with an fft is compiled (XLA's DUCC kernels and numpy's pocketfft differ beyond rounding in the
last bits; the bounds are to be stated with the rule).
"""
from __future__ import annotations

from .._emit import i64_array
from .core import OpDef


def _fft_rule(args, a):
    x, = args
    if not 1 <= len(a.lengths) <= 3 or len(a.lengths) > len(x.shape):
        raise AssertionError(f"fft {a.kind} of {x.shape} with lengths {a.lengths}")
    return a.shape, a.dtype


FFT = OpDef("fft", attrs=("kind", "lengths", "shape", "dtype"), rule=_fft_rule,
            lower=lambda e, node, x: e.op("stablehlo.fft", (x,), node.shape, node.dtype,
                                          f"fft_type = #stablehlo<fft_type {node.attrs.kind}>, "
                                          f"fft_length = {i64_array(node.attrs.lengths)}"))


def fft(x, kind, lengths, shape, dtype):
    """kind: FFT, IFFT, RFFT, IRFFT over the trailing len(lengths) axes."""
    return FFT.bind((x,), FFT.Attrs(kind, tuple(lengths), tuple(shape), dtype))
