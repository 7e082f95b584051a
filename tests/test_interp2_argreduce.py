"""argmax/argmin in the interpreter (`_ops.reduce._argreduce` and its prepared step): numpy's
argmax/argmin, checked against the lowering's construction (order keys: NaN of either sign beats
every number, the two zeros tie, subnormals stay apart from zero; ties to the smaller index) on
random arrays full of ties and special values, in every dtype the interpreter covers, every axis
and layout, and against the compiled program."""
import importlib

import numpy as np
import pytest

from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._ops.core import host_step
from lazyarray._ops.sort import host_order_key
from tier_check import both, leaf

reduce_ops = importlib.import_module("lazyarray._ops.reduce")


def by_order_key(node, x):
    """The index as the lowering finds it: order keys, an arange along the axis, the best key,
    then the smallest index holding it."""
    kind, axis = node.attrs
    if x.dtype.kind == "f":
        x = host_order_key(x, node.args[0].dtype, "high" if kind == "max" else "low")
    along = [1] * x.ndim
    along[axis] = x.shape[axis]
    idx = np.arange(x.shape[axis], dtype=np.int64).reshape(along)
    best = (np.max if kind == "max" else np.min)(x, axis=axis, keepdims=True)
    return np.min(np.where(x == best, idx, np.int64(np.iinfo(np.int64).max)), axis=axis)


def _values(shape, d, rng, specials):
    if d is dt.bool:
        return rng.integers(0, 2, shape).astype(bool)
    if d.kind in "iu":  # few distinct values (ties), the extremes included
        info = np.iinfo(d.np)
        return rng.choice(np.array([info.min, info.max, 0, 1, 2], d.np), shape)
    x = rng.integers(-3, 3, shape).astype(d.np)
    flat = x.reshape(-1)
    tiny = np.finfo(d.np).smallest_subnormal
    bits = np.dtype(f"u{d.np.itemsize}")
    payload = (np.array([np.nan], d.np).view(bits) | np.ones(1, bits)).view(d.np)[0]
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, payload, -payload, tiny, -tiny], d.np)
    if flat.size:
        idx = rng.choice(flat.size, size=min(flat.size, specials), replace=False)
        flat[idx] = rng.choice(sp, idx.size)
    return x


DTYPES = [dt.float64, dt.float32, dt.int8, dt.int32, dt.int64, dt.uint8, dt.uint64, dt.bool]
SHAPES = [(300, 8), (5, 3, 4), (7,), (1,), (1, 1), (4, 1), (2, 0, 3), (9, 2)]


@pytest.mark.parametrize("d", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", ["max", "min"])
def test_argreduce_is_the_order_keys_index(d, shape, kind):
    rng = np.random.default_rng(len(shape) * 100 + shape[0])
    for specials in (0, 3, 12, 10 ** 6):  # none, a few, every element special
        x = _values(shape, d, rng, specials)
        for layout in ("C", "F", "reversed"):
            y = {"C": x, "F": np.asfortranarray(x), "reversed": np.ascontiguousarray(x[::-1])[::-1]}[layout]
            for axis in range(len(shape)):
                node = ops.argreduce(leaf(x), axis, kind)
                got = reduce_ops._argreduce(node, y)
                assert got.dtype == np.int64 and got.shape == node.shape
                if shape[axis] == 0:
                    np.testing.assert_array_equal(got, np.full(node.shape, np.iinfo(np.int64).max))
                    assert getattr(host_step(node), "func", None) is not reduce_ops._argreduce_step
                    continue
                want = by_order_key(node, x)
                np.testing.assert_array_equal(got, want)
                step = host_step(node)
                assert step.func is reduce_ops._argreduce_step
                v = np.asarray(step(y), np.int64)
                assert v.shape == node.shape
                np.testing.assert_array_equal(v, want)


@pytest.mark.parametrize("d", [dt.float64, dt.float32, dt.int32, dt.bool], ids=lambda d: d.name)
@pytest.mark.parametrize("kind", ["max", "min"])
def test_argreduce_is_the_compiled_programs(d, kind):
    rng = np.random.default_rng(11)
    x = _values((40, 6), d, rng, 30)
    for axis in (0, 1):
        node = ops.argreduce(leaf(x), axis, kind)
        step, want = host_step(node), by_order_key(node, x)  # (before the node is computed: a leaf then)
        interpreted, compiled = both(node)
        np.testing.assert_array_equal(compiled, want)
        np.testing.assert_array_equal(interpreted, compiled)
        np.testing.assert_array_equal(np.asarray(step(x), np.int64), compiled)
