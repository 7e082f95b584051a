"""The accurate formulas (`_ops/real_math`) put an optimization barrier only on the float
constants a fold could treat as special (zero, non-finite, powers of two used in arithmetic):
each function's compiled program gives the same bits, NaN payloads included, as the program
with a barrier on every float constant (`real_math._BARRIER_ALL`), on random bit patterns
(subnormals, NaN, inf), wide and narrow ranges, and the values next to each formula's splits."""
import re

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _runtime
from lazyarray._ops import real_math

SPLITS = [0.0, 1e-30, 0.125, 0.5, 0.625, 1.0, 1.25, 1.75, 2.0, 40.0, 2.0 ** 28, 2.0 ** 500, 2.0 ** -500,
          88.73, 89.0, 103.98, 104.0, 709.78, 709.8, 710.0, 745.2, 746.0, 1e300, np.sqrt(2.0), 0.41]


def _inputs(dtype, n, seed):
    rng = np.random.default_rng(seed)
    fi = np.finfo(dtype)
    ity = np.uint32 if dtype == np.float32 else np.uint64
    bits = rng.integers(0, np.iinfo(ity).max, n, dtype=ity, endpoint=True).view(dtype)  # every class
    special = [0.0, fi.smallest_subnormal, fi.tiny, fi.max, np.inf, np.nan, fi.eps]
    with np.errstate(all="ignore"):
        near = [dtype(s) for s in SPLITS + special]
        for v in list(near):
            near += [np.nextafter(v, dtype(np.inf)), np.nextafter(v, dtype(-np.inf))]
    near = np.array(near, dtype)
    near = np.concatenate([near, -near])
    with np.errstate(all="ignore"):
        parts = [bits, near,
                 rng.uniform(-3, 3, n).astype(dtype),
                 rng.uniform(-120, 120, n).astype(dtype),
                 (np.sign(rng.standard_normal(n)) * 10.0 ** rng.uniform(-40, 40, n)).astype(dtype),
                 rng.uniform(0.9, 2.1, n).astype(dtype)]
    return np.concatenate(parts)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8)


def _same_bits(fn, *arrays, monkeypatch):
    xs = [xp.asarray(a) for a in arrays]
    out = fn(*xs)
    texts = {}
    for flag in (False, True):
        monkeypatch.setattr(real_math, "_BARRIER_ALL", flag)
        texts[flag] = xp.stablehlo(out)
    monkeypatch.setattr(real_math, "_BARRIER_ALL", False)
    head = re.search(r"func\.func public @main\(([^)]*)\)", texts[False]).group(1)
    assert head.count("%arg") == len(arrays), head  # the arrays are the parameters, in order
    count = [t.count("optimization_barrier") for t in (texts[False], texts[True])]
    assert count[0] <= count[1], count  # equal where the lowering has no formula (float32 kernels)
    dev = _runtime.devices()[0]
    inputs = [_runtime.put(a, dev) for a in arrays]
    got = [np.asarray(_runtime.execute(_runtime.compile_text(texts[f], dev), inputs)[0]) for f in (False, True)]
    assert got[0].dtype == got[1].dtype and got[0].shape == got[1].shape
    assert np.array_equal(_bits(got[0]), _bits(got[1])), fn
    return got[0]


UNARY = ["acosh", "asinh", "atanh", "cosh", "exp", "expm1", "log1p", "log2", "log10", "sinh", "tanh"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", UNARY)
def test_unary_same_bits(name, dtype, monkeypatch):
    x = _inputs(dtype, 40_000, 1)
    _same_bits(getattr(xp, name), x, monkeypatch=monkeypatch)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["hypot", "logaddexp", "remainder", "floor_divide"])
def test_binary_same_bits(name, dtype, monkeypatch):
    x = _inputs(dtype, 30_000, 2)
    y = np.random.default_rng(3).permutation(_inputs(dtype, 30_000, 4))
    with np.errstate(all="ignore"):
        pairs = np.array([-np.inf, -2.0, -1.0, -0.0, 0.0, 1.0, 2.0, np.inf, np.nan, 1e-30, 1e300, 3.5], dtype)
    gx, gy = np.meshgrid(pairs, pairs)
    x, y = np.concatenate([x, gx.ravel()]), np.concatenate([y, gy.ravel()])
    _same_bits(getattr(xp, name), x, y, monkeypatch=monkeypatch)


@pytest.mark.parametrize("name", ["log", "log1p"])
def test_complex_norm_same_bits(name, monkeypatch):
    """complex log / log1p of complex128 go through the |z|^2 - 1 formula (math.norm_*)."""
    re_, im = _inputs(np.float64, 20_000, 5), np.random.default_rng(6).permutation(_inputs(np.float64, 20_000, 7))
    rng = np.random.default_rng(8)
    t = rng.uniform(0, 2 * np.pi, 20_000)
    r = 1.0 + rng.standard_normal(20_000) * 1e-9  # next to the unit circle, where the terms cancel
    with np.errstate(all="ignore"):
        z = np.concatenate([re_ + 1j * im, r * np.cos(t) + 1j * r * np.sin(t)])
    _same_bits(getattr(xp, name), z, monkeypatch=monkeypatch)


def test_foldable_values():
    f = real_math._foldable
    assert all(f(v, "mul") for v in (0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 2.0 ** -600, np.inf, -np.inf, np.nan))
    assert all(f(v, "add") for v in (0.0, -0.0, np.inf, -np.inf, np.nan))
    assert not any(f(v, "add") for v in (1.0, -1.0, 0.5, 2.0))
    assert not any(f(v, u) for v in (0.693145751953125, 1.0 / 6.0, 3.0, -104.0, 88.73, 1e300) for u in ("add", "mul"))


def test_exp_float32_has_no_barrier(monkeypatch):
    """The hot float32 exp: its clamp, comparisons, coefficients and the added 1 and 1/2 go
    without barriers (15 before)."""
    x = xp.asarray(np.linspace(-5, 5, 64, dtype=np.float32))
    assert xp.stablehlo(xp.exp(x)).count("optimization_barrier") == 0
    monkeypatch.setattr(real_math, "_BARRIER_ALL", True)
    assert xp.stablehlo(xp.exp(x)).count("optimization_barrier") > 10
