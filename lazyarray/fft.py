"""The standard's `fft` extension: discrete Fourier transforms, lazily.

Each function validates its arguments here, at the call, and builds nodes from primitives
(see _fft_core): pad/crop to the requested sizes, stablehlo.fft in groups of at most three axes,
one multiply for the normalisation.

Dtypes: complex64 <-> float32, complex128 <-> float64. The transforms whose input "should" be
complex (fft, ifft, fftn, ifftn, irfft, irfftn, hfft) also accept a real floating array and treat
it as complex of the same precision, as numpy does; rfft, rfftn and ihfft need a real floating
array (the standard says "must"). Repeated axes are refused (the standard leaves them
implementation-defined).
"""
from __future__ import annotations

import math
import operator

from . import _dtypes as dt
from . import _fft_core as core
from . import _ops as ops
from ._array_object import Array
from ._devices import check_device
from ._helpers import check_array, normalize_axis
from ._typing import DeviceLike, DType, Literal

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}  # hfft/ihfft via irfft/rfft


# ---------------------------------------------------------------- argument checks

def _norm(norm, fname):
    if not isinstance(norm, str) or norm not in _NORMS:
        raise ValueError(f"{fname}: norm must be one of {_NORMS}, got {norm!r}")
    return norm


def _complex_input(x, fname):
    check_array(x)
    if x.dtype.kind == "c":
        return x._node
    if x.dtype.kind == "f":
        return ops.convert(x._node, dt.complex_of(x.dtype))
    raise TypeError(f"{fname}: expected a complex (or real) floating-point array, got {x.dtype}")


def _real_input(x, fname):
    check_array(x)
    if x.dtype.kind != "f":
        raise TypeError(f"{fname}: expected a real floating-point array, got {x.dtype}")
    if x.dtype is dt.float16:  # transformed in single precision, as numpy does
        return ops.convert(x._node, dt.float32)
    return x._node


def _length(n, fname, what="n"):
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{fname}: {what} must be an integer, got {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"{fname}: invalid number of FFT data points {what}={n}: must be at least 1")
    return n


def _axis_and_n(x, n, axis, fname, half_input=False):
    """(axis, n) of a one-axis transform; with half_input (irfft, hfft) n defaults to 2*(M-1)."""
    axis = normalize_axis(axis, x.ndim)
    if n is None:
        n = 2 * (x.shape[axis] - 1) if half_input else x.shape[axis]
    return axis, _length(n, fname)


def _axes_and_sizes(x, s, axes, fname, half_input=False):
    """(axes, sizes) of an n-D transform, axes in the caller's order; with half_input (irfftn)
    the last size defaults to 2*(M-1)."""
    if axes is None:
        if s is not None:  # the standard asks callers for both; numpy, PyTorch, JAX and CuPy
            try:           # take the last len(s) axes, and SciPy relies on it (README extensions)
                n_s = len(s)
            except TypeError:
                raise TypeError(f"{fname}: s must be a sequence of integers, got {s!r}") from None
            if n_s > x.ndim:
                raise ValueError(f"{fname}: s has {n_s} entries but the array has {x.ndim} axes")
            axes = tuple(range(x.ndim - n_s, x.ndim))
        else:
            axes = tuple(range(x.ndim))
    else:
        try:
            axes = tuple(axes)
        except TypeError:
            raise TypeError(f"{fname}: axes must be a sequence of integers, got {axes!r}") from None
        axes = tuple(normalize_axis(a, x.ndim) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fname}: repeated axis in axes={axes}")
    if s is None:
        sizes = [x.shape[a] for a in axes]
        if half_input and axes:
            sizes[-1] = 2 * (sizes[-1] - 1)
    else:
        try:
            s = tuple(s)
        except TypeError:
            raise TypeError(f"{fname}: s must be a sequence of integers, got {s!r}") from None
        if len(s) != len(axes):
            raise ValueError(f"{fname}: s has {len(s)} entries but axes has {len(axes)}")
        # -1 keeps the input's size along that axis (numpy's reading, also for irfftn's last)
        sizes = [x.shape[a] if operator.index(v) == -1 else v for v, a in zip(s, axes)]
    return axes, [_length(v, fname, "s") for v in sizes]


def _wrap(node, x):
    return Array._wrap(node, x.device)


# ---------------------------------------------------------------- complex <-> complex

def _c2c(x, axes, sizes, norm, inverse, fname):
    node = _complex_input(x, fname)
    node = core.resize(node, axes, sizes)
    node = core.c2c(node, axes, inverse)
    node = core.scale(node, core.norm_scale(_norm(norm, fname), math.prod(sizes), inverse))
    return _wrap(node, x)


def fft(x: Array, /, *, n: int | None = None, axis: int = -1,
        norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axis, n = _axis_and_n(check_array(x), n, axis, "fft")
    return _c2c(x, (axis,), [n], norm, False, "fft")


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axis, n = _axis_and_n(check_array(x), n, axis, "ifft")
    return _c2c(x, (axis,), [n], norm, True, "ifft")


def fftn(x: Array, /, *, s: tuple[int, ...] | None = None, axes: tuple[int, ...] | None = None,
         norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axes, sizes = _axes_and_sizes(check_array(x), s, axes, "fftn")
    return _c2c(x, axes, sizes, norm, False, "fftn")


def ifftn(x: Array, /, *, s: tuple[int, ...] | None = None, axes: tuple[int, ...] | None = None,
          norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axes, sizes = _axes_and_sizes(check_array(x), s, axes, "ifftn")
    return _c2c(x, axes, sizes, norm, True, "ifftn")


# ---------------------------------------------------------------- real <-> half spectrum

def _r2c(x, axes, sizes, norm, fname):
    """rfftn's node: real input cropped/padded to sizes, last axis halved to n//2+1."""
    node = _real_input(x, fname)
    if not axes:
        raise ValueError(f"{fname}: needs at least one axis")
    node = core.resize(node, axes, sizes)
    node = core.r2c(node, axes)
    return core.scale(node, core.norm_scale(_norm(norm, fname), math.prod(sizes), False))


def _c2r(node, axes, sizes, norm, fname):
    """irfftn's node: half spectrum cropped/padded to sizes[-1]//2+1 on the last axis (sizes on
    the others), transformed to the full real sizes."""
    if not axes:
        raise ValueError(f"{fname}: needs at least one axis")
    half = list(sizes[:-1]) + [sizes[-1] // 2 + 1]
    node = core.resize(node, axes, half)
    node = core.c2r(node, axes, sizes)
    return core.scale(node, core.norm_scale(_norm(norm, fname), math.prod(sizes), True))


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axis, n = _axis_and_n(check_array(x), n, axis, "rfft")
    return _wrap(_r2c(x, (axis,), [n], norm, "rfft"), x)


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1,
          norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axis, n = _axis_and_n(check_array(x), n, axis, "irfft", half_input=True)
    return _wrap(_c2r(_complex_input(x, "irfft"), (axis,), [n], norm, "irfft"), x)


def rfftn(x: Array, /, *, s: tuple[int, ...] | None = None, axes: tuple[int, ...] | None = None,
          norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axes, sizes = _axes_and_sizes(check_array(x), s, axes, "rfftn")
    return _wrap(_r2c(x, axes, sizes, norm, "rfftn"), x)


def irfftn(x: Array, /, *, s: tuple[int, ...] | None = None, axes: tuple[int, ...] | None = None,
           norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axes, sizes = _axes_and_sizes(check_array(x), s, axes, "irfftn", half_input=True)
    return _wrap(_c2r(_complex_input(x, "irfftn"), axes, sizes, norm, "irfftn"), x)


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1,
         norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    # the spectrum of a Hermitian signal: irfft of the conjugate with the norm mirrored
    axis, n = _axis_and_n(check_array(x), n, axis, "hfft", half_input=True)
    node = ops.conj(_complex_input(x, "hfft"))
    return _wrap(_c2r(node, (axis,), [n], _SWAP[_norm(norm, "hfft")], "hfft"), x)


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1,
          norm: Literal["backward", "ortho", "forward"] = "backward") -> Array:
    axis, n = _axis_and_n(check_array(x), n, axis, "ihfft")
    node = _r2c(x, (axis,), [n], _SWAP[_norm(norm, "ihfft")], "ihfft")
    return _wrap(ops.conj(node), x)


# ---------------------------------------------------------------- frequencies and shifts

def _freq(n, d, dtype, device, positive_only, fname):
    n = _length(n, fname)
    if isinstance(d, (Array, complex)) or not isinstance(d, (int, float)):
        raise TypeError(f"{fname}: d must be a real Python number, got {type(d).__name__}")
    if d == 0:
        raise ValueError(f"{fname}: d must not be zero")
    dtype = dt.DEFAULT_FLOAT if dtype is None else dt.as_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"{fname}: dtype must be a real floating-point dtype, got {dtype}")
    device = check_device(device)
    k = core.frequencies(n, positive_only, dtype)
    # 1/(n*d) is a graph parameter: a new spacing d reuses the compiled program
    step = ops.scalar(1.0 / (n * d), dtype, k.shape)
    return Array._wrap(ops.MULTIPLY(k, step), device)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None,
            device: DeviceLike | None = None) -> Array:
    return _freq(n, d, dtype, device, False, "fftfreq")


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None,
             device: DeviceLike | None = None) -> Array:
    return _freq(n, d, dtype, device, True, "rfftfreq")


def _shift(x, axes, inverse):
    check_array(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int) or hasattr(axes, "__index__"):
        axes = (axes,)
    # a repeated axis shifts twice, as numpy.roll does
    node = x._node
    for a in axes:
        a = normalize_axis(a, x.ndim)
        half = x.shape[a] // 2
        node = core.roll(node, a, -half if inverse else half)
    return _wrap(node, x)


def fftshift(x: Array, /, *, axes: int | tuple[int, ...] | None = None) -> Array:
    return _shift(x, axes, False)


def ifftshift(x: Array, /, *, axes: int | tuple[int, ...] | None = None) -> Array:
    return _shift(x, axes, True)
