"""Node-level building blocks of lazyarray.fft, all composed from primitives.

`stablehlo.fft` transforms the trailing one to three axes of its operand; FFT/IFFT map complex
to complex, RFFT real to complex (last axis n -> n//2+1), IRFFT complex to real and takes the
full output lengths. XLA scales IFFT/IRFFT by 1/n and leaves FFT/RFFT unscaled, so the standard's
`norm` becomes one multiply relative to that.
"""
from __future__ import annotations

import math

from . import _dtypes as dt
from . import _ops as ops

MAX_AXES = 3  # stablehlo.fft transforms at most three trailing axes at once


def resize(node, axes, lengths):
    """Zero-pad or crop each of `axes` to its length: a single pad (negative padding crops)."""
    high = [0] * len(node.shape)
    for a, n in zip(axes, lengths):
        high[a] = n - node.shape[a]
    if not any(high):
        return node
    return ops.pad(node, ops.constant(0, node.dtype), (0,) * len(high), high)


def _one(node, kind, axes, lengths, dtype):
    """One stablehlo.fft over `axes` (at most three, the last one innermost): move them last,
    transform, move them back."""
    rest = [i for i in range(len(node.shape)) if i not in axes]
    perm = rest + list(axes)
    moved = ops.transpose(node, perm)
    batch = moved.shape[:len(rest)]
    if kind == "RFFT":
        out = tuple(lengths[:-1]) + (lengths[-1] // 2 + 1,)
    else:  # FFT, IFFT: same sizes; IRFFT: the full output lengths
        out = tuple(lengths)
    if math.prod(batch) == 0:  # nothing to transform: skip the op rather than ask XLA
        result = ops.broadcast_in_dim(ops.constant(0, dtype), batch + out, ())
    else:
        result = ops.fft(moved, kind, lengths, batch + out, dtype)
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return ops.transpose(result, inverse)


def _chunks(axes):
    """Split axes into groups of at most three, counted from the end (the last group holds the
    innermost axis, which real transforms treat specially)."""
    axes = list(axes)
    groups = []
    while axes:
        groups.insert(0, axes[-MAX_AXES:])
        axes = axes[:-MAX_AXES]
    return groups


def c2c(node, axes, inverse):
    """Complex transform over axes (in any number), at their current sizes."""
    kind = "IFFT" if inverse else "FFT"
    for group in _chunks(axes):
        node = _one(node, kind, group, [node.shape[a] for a in group], node.dtype)
    return node


def r2c(node, axes):
    """Real-input transform: RFFT over the last group (halving the last axis), FFT over the rest."""
    *rest, last = _chunks(axes)
    node = _one(node, "RFFT", last, [node.shape[a] for a in last], dt.complex_of(node.dtype))
    return c2c(node, [a for g in rest for a in g], inverse=False)


def c2r(node, axes, lengths):
    """Inverse of r2c: IFFT over all but the last group, then IRFFT to the full `lengths`."""
    *rest, last = _chunks(axes)
    node = c2c(node, [a for g in rest for a in g], inverse=True)
    return _one(node, "IRFFT", last, list(lengths[-len(last):]), dt.real_of(node.dtype))


def norm_scale(norm, n, inverse):
    """The factor that turns XLA's scaling (1/n for inverse transforms, none for forward ones)
    into the standard's `norm` for a logical transform size n."""
    if inverse:
        return {"backward": 1.0, "ortho": math.sqrt(n), "forward": float(n)}[norm]
    return {"backward": 1.0, "ortho": 1.0 / math.sqrt(n), "forward": 1.0 / n}[norm]


def scale(node, factor):
    """node * factor. Complex values scale their parts separately: a complex multiply by
    (factor + 0j) would turn an infinite part into NaN through inf * 0."""
    if factor == 1.0:
        return node
    if node.dtype.kind == "c":
        re = ops.REAL(node)
        im = ops.IMAG(node)
        return ops.COMPLEX(scale(re, factor), scale(im, factor))
    return ops.MULTIPLY(node, ops.constant(factor, node.dtype, node.shape))


def roll(node, axis, shift):
    """Roll along one axis by a static shift: two slices, concatenated."""
    n = node.shape[axis]
    shift %= max(n, 1)
    if shift == 0:
        return node
    shape = node.shape

    def part(lo, hi):
        start = tuple(lo if i == axis else 0 for i in range(len(shape)))
        limit = tuple(hi if i == axis else s for i, s in enumerate(shape))
        return ops.slice_(node, start, limit)
    return ops.concatenate((part(n - shift, n), part(0, n - shift)), axis)


def frequencies(n, positive_only, dtype):
    """Integer frequency indices 0, 1, ..., then the negative half (fftfreq), or 0..n//2
    (rfftfreq), as dtype. n fixes the shape, so the structure may depend on it."""
    if positive_only:
        return ops.iota((n // 2 + 1,), 0, dtype)
    pos = (n + 1) // 2
    head = ops.iota((pos,), 0, dtype)
    if pos == n:
        return head
    tail = ops.iota((n - pos,), 0, dtype)
    tail = ops.SUBTRACT(tail, ops.constant(n // 2, dtype, tail.shape))
    return ops.concatenate((head, tail), 0)
