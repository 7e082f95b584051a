"""A sum over a short last axis (2..7 elements) in the interpreter's built programs
(`_ops.reduce._sum_columns_step`): elementwise additions of the columns from the identity, bit
for bit the node-by-node evaluation's numpy reduce (zero signs, NaN payloads, infinities,
integer wraparound, every layout), and numpy's values."""
import importlib

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._ops.core import host_step
from tier_check import assert_same, leaf

reduce_ops = importlib.import_module("lazyarray._ops.reduce")


def _values(shape, d, seed):
    rng = np.random.default_rng(seed)
    if d.kind in "iu":  # wide values: the sums wrap around
        info = np.iinfo(d.np)
        return rng.integers(info.min, info.max, shape, endpoint=True, dtype=d.np)
    # magnitudes 2**-30..2**30: every addition rounds, so another order gives other bits
    a = (rng.standard_normal(shape) * np.exp2(rng.integers(-30, 30, shape))).astype(d.np)
    flat = a.reshape(-1)
    bits = np.dtype(f"u{d.np.itemsize}")
    one = np.ones(1, bits)[0]
    quiet = np.array([np.nan], d.np).view(bits)[0]
    nans = (np.array([quiet | one, quiet | (one << 3), quiet | (one << 7)], bits).view(d.np))  # payloads
    specials = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, -0.0], d.np), nans, -nans])
    idx = rng.choice(flat.size, size=min(flat.size // 3, 3 * len(specials)), replace=False)
    flat[idx] = np.resize(specials, idx.size)
    if a.ndim >= 2 and a.shape[-2] >= 4:
        lead = (0,) * (a.ndim - 2)
        a[lead + (0,)] = -0.0                 # zeros of one sign, of the other, mixed
        a[lead + (1,)] = 0.0
        a[lead + (2,)] = 0.0
        a[lead + (2,)][..., ::2] = -0.0
        a[lead + (3,)] = 1.5  # exact cancellation to +0 (an odd count leaves 1.5 at the end)
        a[lead + (3,)][..., 1::2] = -1.5
    return a


SHAPES = [(300, 3), (64, 2), (230, 7), (40, 4, 2), (3, 50, 5), (200, 8), (100, 5), (4, 5, 2), (7, 7), (2, 9),
          (1, 3), (5, 1), (40, 4)]
DTYPES = [dt.float64, dt.float32, dt.int32, dt.int8, dt.uint16, dt.int64]


@pytest.mark.parametrize("d", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
def test_short_last_axis_sum_step(d, shape, layout):
    a = _values(shape, d, seed=len(shape) * 10 + shape[-1])
    node = ops.reduce(leaf(a), (len(shape) - 1,), "add")
    step = host_step(node)
    short = 2 <= shape[-1] < reduce_ops.SHORT_SUM and np.prod(shape[:-1]) >= reduce_ops.SUM_ROWS * shape[-1]
    assert (getattr(step, "func", None) is reduce_ops._sum_columns_step) == short
    x = {"C": a, "F": np.asfortranarray(a), "strided": np.repeat(a, 2, axis=-1)[..., ::2],
         "reversed": np.ascontiguousarray(a[::-1])[::-1]}[layout]
    assert x.tobytes() == a.tobytes() or layout != "C"
    with np.errstate(all="ignore"):
        got = np.asarray(step(x))
        general = reduce_ops._reduce(node, x)  # the node-by-node evaluation
        ref = np.add.reduce(a, axis=-1, dtype=d.np, initial=d.np.type(0))
    assert got.dtype == general.dtype == d.np and got.shape == general.shape == node.shape
    assert got.tobytes() == np.asarray(general).tobytes()  # bit for bit: zero signs, NaN payloads
    if short or d.kind != "f" or shape[-1] < 8:  # (numpy's own bits depend on the layout from 8 on)
        assert got.tobytes() == ref.tobytes()


def test_other_sums_keep_numpys_reduce():
    a = np.ones((4, 3, 2))
    for dims, shape in [((0,), (4, 3, 2)), ((1,), (4, 3, 2)), ((1, 2), (4, 3, 2)), ((0,), (5,))]:
        node = ops.reduce(leaf(np.ones(shape)), dims, "add")
        assert getattr(host_step(node), "func", None) is reduce_ops._reduce_step
    node = ops.reduce(leaf(np.ones((3, 2), np.complex128)), (1,), "add")
    assert getattr(host_step(node), "func", None) is not reduce_ops._sum_columns_step
    for shape in [(0, 3), (3, 3), (63, 2), (223, 7)]:  # empty, or too few rows: the reduce is cheaper
        node = ops.reduce(leaf(np.ones(shape)), (1,), "add")
        assert getattr(host_step(node), "func", None) is reduce_ops._reduce_step
    node = ops.reduce(leaf(np.ones((64, 2))), (1,), "add")
    assert getattr(host_step(node), "func", None) is reduce_ops._sum_columns_step
    del a


@pytest.mark.parametrize("d", [dt.float64, dt.float32], ids=lambda d: d.name)
def test_short_axis_sum_through_the_namespace_repeated(d, monkeypatch):
    """A built program (the graph's third run on) takes the short-axis step: the first
    (node-by-node) run's bits, numpy's values to rounding, and the compiled program's within
    rounding (XLA's summation order is its own)."""
    a = _values((300, 3), d, seed=3)
    a[np.isnan(a)] = 1.0
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    compiled = np.asarray(xp.sum(xp.asarray(a) * 1.0, axis=1))
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    with np.errstate(all="ignore"):
        want = np.add.reduce(a * 1.0, axis=1, dtype=d.np, initial=d.np.type(0))
    runs = [np.asarray(xp.sum(xp.asarray(a) * 1.0, axis=1)) for _ in range(4)]
    for got in runs:
        assert got.tobytes() == want.tobytes()
    finite = np.isfinite(want)
    np.testing.assert_allclose(runs[-1][finite], compiled[finite], rtol=4 * np.finfo(d.np).eps,
                               atol=np.finfo(d.np).tiny)
    assert_same(runs[-1][~finite], compiled[~finite])
