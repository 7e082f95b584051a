"""The interpreter's faster gather and power (session 9) compute what they computed before, bit for
bit: gather clamps start indices as StableHLO does (reference: numpy fancy indexing of the clipped
indices, the gathered axes moved to the front), and power gives numpy's power of the operands
broadcast to full shape (the earlier evaluation), with pow(-0.0, 0.5) = +0.0 and
pow(-inf, 0.5) = +inf. Then both tiers through the public API."""
import itertools
import warnings

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray._ops.elementwise import _power
from lazyarray._ops.gather import GATHER, _gather


class _Node:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def _gather_reference(x, idx, axes):
    moved = np.moveaxis(x, axes, range(len(axes)))
    return moved[tuple(np.clip(idx[..., j].astype(np.int64), 0, x.shape[a] - 1) for j, a in enumerate(axes))]


@pytest.mark.parametrize("shape", [(5,), (4, 6), (3, 4, 5), (1, 7)])
def test_gather_clamps_every_axis_combination_and_index_dtype(shape, rng):
    for k in range(1, len(shape) + 1):
        for axes in itertools.combinations(range(len(shape)), k):
            for batch in [(), (6,), (2, 3)]:
                for idt in (np.int8, np.int16, np.int32, np.int64):
                    x = rng.standard_normal(shape)
                    idx = rng.integers(-9, 13, batch + (k,)).astype(idt)
                    out_shape = batch + tuple(n for i, n in enumerate(shape) if i not in axes)
                    node = _Node(attrs=GATHER.Attrs(axes), shape=out_shape, dtype=dt.float64)
                    got = _gather(node, x, idx)
                    assert got.shape == out_shape
                    np.testing.assert_array_equal(got, _gather_reference(x, idx, axes))


def test_gather_of_extreme_narrow_indices_on_a_long_axis(rng):
    x = rng.standard_normal(300)
    idx = np.array([[-128], [127], [5], [0]], np.int8)
    node = _Node(attrs=GATHER.Attrs((0,)), shape=(4,), dtype=dt.float64)
    np.testing.assert_array_equal(_gather(node, x, idx), x[[0, 127, 5, 0]])


def _power_reference(a, b):
    a, b = np.broadcast_arrays(a, b)
    r = np.power(a, b)
    half = b == 0.5
    r = np.where(half & (a == 0), np.zeros((), a.dtype), r)
    return np.where(half & np.isneginf(a), np.asarray(np.inf, a.dtype), r)


_SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, -2.0, 1e-310, -1e-310, 3.0]
_EXPONENTS = [0.5, 2.0, 3.0, -1.0, -2.0, 1.5, 0.0, -0.0, 1.0, -0.5, 4.0, 1 / 3, np.nan, np.inf, -np.inf]


@pytest.mark.parametrize("npdt", [np.float64, np.float32])
def test_power_is_bit_equal_to_the_broadcast_evaluation(npdt, rng):
    node = _Node(dtype=dt.float64 if npdt is np.float64 else dt.float32)
    base = np.concatenate([rng.standard_normal(200) * 10, rng.random(20) * 1e-30, _SPECIAL]).astype(npdt)
    bits = f"u{np.dtype(npdt).itemsize}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = []
        for e in _EXPONENTS:
            e = np.asarray(e, npdt)
            cases += [(base, e), (e, base), (base.reshape(-1, 1)[:20], e)]
            cases += [(np.asarray(s, npdt), e) for s in _SPECIAL]
        mixed = rng.choice(np.asarray(_EXPONENTS, npdt), base.shape)
        cases += [(base, mixed), (np.asarray(-0.0, npdt), mixed), (np.asarray(-np.inf, npdt), mixed)]
        for a, b in cases:
            got, want = np.asarray(_power(node, a, b)), np.asarray(_power_reference(a, b))
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(got.view(bits), want.view(bits))
        # C's pow: pow(-0.0, 0.5) = +0.0 and pow(-inf, 0.5) = +inf (numpy's sqrt fast path gives -0.0, nan)
        r = np.asarray(_power(node, np.asarray([-0.0, -np.inf, 4.0], npdt), np.asarray(0.5, npdt)))
        assert r[0] == 0 and not np.signbit(r[0]) and r[1] == np.inf and r[2] == 2


@pytest.mark.parametrize("interpret_first", [2, 0])
def test_both_tiers_agree_on_take_and_square(interpret_first, engine, monkeypatch, rng):
    monkeypatch.setattr(xp.config, "interpret_first", interpret_first)
    xn = rng.standard_normal((30, 4))
    idx = rng.integers(0, 30, 17)
    got = np.asarray(xp.take(xp.asarray(xn) ** 2.0, xp.asarray(idx), axis=0))
    np.testing.assert_allclose(got, (xn ** 2.0)[idx], rtol=1e-15)
    got = np.asarray(xp.take(xp.asarray(xn), xp.asarray(idx[:3] % 4), axis=1) ** 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(got, np.power(xn[:, idx[:3] % 4], 0.5), rtol=1e-15)


def _scatter_reference(x, idx, upd, axes, mode):
    """StableHLO's scatter, one update at a time in order: out-of-range updates dropped, `set`
    keeps the last, `add` sums."""
    out = np.array(x, copy=True)
    moved = np.moveaxis(out, axes, range(len(axes)))
    rows = idx.reshape(-1, len(axes))
    vals = upd.reshape((rows.shape[0],) + upd.shape[idx.ndim - 1:])
    for r, v in zip(rows, vals):
        if all(0 <= int(i) < x.shape[a] for i, a in zip(r, axes)):
            where = tuple(int(i) for i in r)
            moved[where] = v if mode == "set" else moved[where] + v
    return out


@pytest.mark.parametrize("mode", ["set", "add"])
@pytest.mark.parametrize("shape", [(6,), (4, 5), (3, 4, 2)])
def test_scatter_keeps_the_last_update_and_drops_out_of_range_ones(mode, shape, rng):
    from lazyarray._ops.gather import SCATTER, _scatter
    for k in range(1, len(shape) + 1):
        for axes in itertools.combinations(range(len(shape)), k):
            for batch in [(1,), (7,), (3, 4)]:
                for idt in (np.int8, np.int64):
                    x = rng.integers(-50, 50, shape).astype(np.float64)
                    idx = rng.integers(-2, 6, batch + (k,)).astype(idt)  # duplicates and out of range
                    rest = tuple(n for i, n in enumerate(shape) if i not in axes)
                    upd = rng.integers(-50, 50, batch + rest).astype(np.float64)
                    node = _Node(attrs=SCATTER.Attrs(axes, mode), shape=shape, dtype=dt.float64)
                    np.testing.assert_array_equal(_scatter(node, x, idx, upd),
                                                  _scatter_reference(x, idx, upd, axes, mode))
