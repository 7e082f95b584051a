"""Shared by the interpreter-tier tests: build a pending graph, evaluate it with `interpret`
BEFORE it is computed, then force the compiled path (`np.asarray`, with the engine's interpreter
tier switched off by the `compile_always` fixture) and compare: bit for bit (sign of zero
included, NaNs as a class) for integer, bool and exact float ops; within a few ulp for
transcendental functions, and to rounding for sums and dot products. Subnormal floats stay out
of the inputs (XLA CPU flushes them to zero; the interpreter does not emulate that) and are read
as signed zeros in results.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config
from lazyarray import _dtypes as dt
from lazyarray._array_object import Array
from lazyarray._graph import toposort
from lazyarray._interpret import interpret, supports


DEV = xp.asarray(0).device

INTS = [dt.int8, dt.int16, dt.int32, dt.int64, dt.uint8, dt.uint16, dt.uint32, dt.uint64]
FLOATS = [dt.float32, dt.float64]
COMPLEX = [dt.complex64, dt.complex128]
ALL = [dt.bool] + INTS + FLOATS + COMPLEX


@pytest.fixture
def compile_always(monkeypatch):
    """np.asarray must run the compiled program, not the engine's interpreter tier."""
    monkeypatch.setattr(_config, "interpret_first", 0, raising=False)



def leaf(a, dtype=None):
    a = np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype.np)
    return xp.asarray(a)._node


def specials(d):
    """Special values of dtype d (no subnormals)."""
    if d is dt.bool:
        return np.array([False, True])
    if d.kind in "iu":
        info = np.iinfo(d.np)
        vals = [info.min, info.min + 1, -2, -1, 0, 1, 2, 3, 7, d.bits - 1, d.bits, d.bits + 1,
                info.max - 1, info.max]
        return np.array(sorted({v for v in vals if info.min <= v <= info.max}), dtype=d.np)
    r = dt.real_of(d).np
    fi = np.finfo(r)
    vals = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.0, 1 / 3, 1e-3, -7.25, 100.0,
                     1e30, -1e30, fi.max, -fi.max, fi.tiny, np.inf, -np.inf, np.nan, 2.0 ** 24 + 1,
                     0.49999997, -0.49999997], dtype=r)
    if d.kind == "c":
        re, im = np.meshgrid(vals[::3], vals[1::4])
        out = np.empty(re.size, d.np)
        out.real, out.imag = re.ravel(), im.ravel()
        return out
    return vals


def pairs(d, extra=True):
    """All pairs of special values of d (plus random ones), as two flat arrays."""
    s = specials(d)
    a, b = (v.ravel() for v in np.meshgrid(s, s))
    if extra and d.kind in "iuf":
        rng = np.random.default_rng(7)
        if d.kind == "f":
            ra, rb = rng.standard_normal((2, 200)) * 10
        else:
            info = np.iinfo(d.np)
            ra, rb = rng.integers(info.min, info.max, size=(2, 200), dtype=d.np, endpoint=True)
        a = np.concatenate([a, ra.astype(d.np)])
        b = np.concatenate([b, rb.astype(d.np)])
    return a.astype(d.np), b.astype(d.np)


def both(x):
    """(interpreted, compiled) values of an Array or pending Node."""
    if not isinstance(x, Array):
        x = Array._wrap(x, DEV)
    node = x._node
    order, leaves = toposort([node])
    assert supports(order), f"interpreter lacks a rule for {[n.op.name for n in order]}"
    got, = interpret(order, leaves, [node])
    want = np.asarray(x)
    assert got.dtype == node.dtype.np and got.shape == node.shape
    assert want.dtype == got.dtype and want.shape == got.shape
    return got, want


def _flush(v):
    """Subnormals read as signed zeros (XLA CPU flushes them)."""
    if v.dtype.kind == "c":
        out = np.empty_like(v)
        out.real, out.imag = _flush(v.real.copy()), _flush(v.imag.copy())
        return out
    tiny = np.finfo(v.dtype).tiny
    return np.where(np.abs(v) < tiny, np.copysign(np.zeros((), v.dtype), v), v)


def _ordinal(v):
    """Floats as integers in the order of the reals (adjacent floats differ by 1)."""
    it = {4: np.int32, 8: np.int64}[v.dtype.itemsize]
    i = v.view(it).astype(np.int64)
    return np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)


def _parts(v):
    return [v.real.copy(), v.imag.copy()] if v.dtype.kind == "c" else [v]


def assert_same(got, want, ulps=0):
    """Bit-identical (NaN as a class, subnormals as zeros), or within `ulps` for floats."""
    if got.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want)
        return
    for g, w in zip(_parts(_flush(got)), _parts(_flush(want))):
        nan = np.isnan(g)
        np.testing.assert_array_equal(nan, np.isnan(w), err_msg="NaN positions differ")
        g, w = g[~nan], w[~nan]
        if ulps == 0:
            bad = (g != w) | (np.signbit(g) != np.signbit(w))
        else:
            bad = (np.abs(_ordinal(g) - _ordinal(w)) > ulps) | (np.isinf(g) != np.isinf(w))
        assert not bad.any(), f"differ at {np.nonzero(bad)[0][:10]}: {g[bad][:10]} vs {w[bad][:10]}"


def assert_close(got, want, rtol):
    """To rounding: NaN and infinity positions equal, finite values close."""
    for g, w in zip(_parts(got), _parts(want)):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_array_equal(np.isposinf(g), np.isposinf(w))
        np.testing.assert_array_equal(np.isneginf(g), np.isneginf(w))
        fin = np.isfinite(g)
        scale = np.max(np.abs(w[fin]), initial=1.0)
        np.testing.assert_allclose(g[fin], w[fin], rtol=rtol, atol=rtol * scale)


def check(x, ulps=0):
    got, want = both(x)
    assert_same(got, want, ulps)
    return got


def check_close(x, rtol=None):
    got, want = both(x)
    if got.dtype.kind in "fc":
        assert_close(got, want, rtol or 50 * np.finfo(got.dtype).eps)
    else:
        np.testing.assert_array_equal(got, want)
    return got


def unsupported(x):
    node = x._node if isinstance(x, Array) else x
    order, _ = toposort([node])
    return not supports(order)


def ids(dtypes):
    return [d.name for d in dtypes]


