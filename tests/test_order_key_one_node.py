"""`order_key` records ONE node (`sort.order_key`) where its formula was 11 (k-means records an
argmin per step). The node must compute the formula's integers bit for bit in both tiers (its
interpreter rule and its lowering), emit the same StableHLO operations as the formula's nodes, and
argmin/argmax/argsort/searchsorted over NaNs, infinities, signed zeros, subnormals and ties must
equal numpy's in both tiers."""
import collections
import re

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._emit import emit_module
from lazyarray._ops.sort import ORDER_KEY, order_key, order_key_nodes
from lazyarray._array_object import Array

pytestmark = pytest.mark.usefixtures("both_tiers")


def _special(npdt, rng):
    info = np.finfo(npdt)
    ity = np.int32 if npdt == np.float32 else np.int64
    nans = np.array([np.nan, -np.nan], npdt)
    payload = np.array([0x7FC00001, -0x003FFFFF] if npdt == np.float32 else
                       [0x7FF0000000000001, -0x000FFFFFFFFFFFFF], ity).view(npdt)  # other NaN payloads, signed
    fixed = np.array([0.0, -0.0, np.inf, -np.inf, info.max, -info.max, info.tiny, -info.tiny,
                      info.smallest_subnormal, -info.smallest_subnormal, 1.0, -1.0], npdt)
    return np.concatenate([fixed, nans, payload, rng.standard_normal(40).astype(npdt)])


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
@pytest.mark.parametrize("nan", ["high", "low"])
def test_one_node_equals_the_formula_bit_for_bit(npdt, nan, rng):
    a = _special(npdt, rng).reshape(4, -1)
    x = xp.asarray(a)
    one = order_key(x._node, nan=nan)
    assert one.op is ORDER_KEY and one.args == (x._node,)
    got = np.asarray(Array._wrap(one, x.device))
    want = np.asarray(Array._wrap(order_key_nodes(x._node, nan=nan), x.device))
    assert got.dtype == want.dtype and np.array_equal(got, want)
    # and the keys order the values as numpy does (NaNs above or below every number)
    finite = ~np.isnan(a)
    order = np.argsort(got[finite], kind="stable")
    assert np.array_equal(a[finite][order], np.sort(a[finite], kind="stable"))
    top, rest = got[~finite], got[finite]
    assert ((top > rest.max()) if nan == "high" else (top < rest.min())).all()
    # 0-D too
    s = xp.asarray(a[0, 1])
    assert int(Array._wrap(order_key(s._node, nan=nan), s.device)) == int(
        Array._wrap(order_key_nodes(s._node, nan=nan), s.device))


def _ops_emitted(out):
    seen, order, leaves = set(), [], []

    def visit(n):
        if id(n) not in seen:
            seen.add(id(n))
            for a in n.args:
                visit(a)
            (order if n.op is not None else leaves).append(n)
    visit(out)
    text = emit_module(order, leaves, [order[-1]])
    text = text if isinstance(text, str) else text[0]
    return collections.Counter(re.sub(r"%\w+", "%", line).strip() for line in text.splitlines()
                               if "stablehlo." in line and "broadcast_in_dim" not in line)


@pytest.mark.parametrize("dtype", [xp.float32, xp.float64])
@pytest.mark.parametrize("nan", ["high", "low"])
def test_lowering_emits_the_formulas_operations(dtype, nan):
    x = xp.ones((3, 4), dtype=dtype)._node
    assert _ops_emitted(order_key(x, nan=nan)) == _ops_emitted(order_key_nodes(x, nan=nan))


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_searching_and_sorting_over_special_values_equal_numpy(npdt, rng):
    a = _special(npdt, rng)
    a = np.concatenate([a, a[:20]])  # ties
    rng.shuffle(a)
    m = a.reshape(4, -1)
    x = xp.asarray(m)
    for axis in (None, 0, 1):
        assert np.array_equal(np.asarray(xp.argmin(x, axis=axis)), np.argmin(m, axis=axis))
        assert np.array_equal(np.asarray(xp.argmax(x, axis=axis)), np.argmax(m, axis=axis))
    ties = np.array([[1.0, -0.0, 0.0, 1.0, -0.0], [2.0, 2.0, -np.inf, -np.inf, 0.0]], npdt)
    for axis in (None, 0, 1):
        assert np.array_equal(np.asarray(xp.argmin(xp.asarray(ties), axis=axis)), np.argmin(ties, axis=axis))
        assert np.array_equal(np.asarray(xp.argmax(xp.asarray(ties), axis=axis)), np.argmax(ties, axis=axis))
    finite = a[~np.isnan(a)]
    np.testing.assert_array_equal(np.asarray(xp.argsort(xp.asarray(finite), stable=True)),
                                  np.argsort(finite, kind="stable"))
    srt = np.sort(finite)
    probe = np.concatenate([finite[:10], np.array([-0.0, 0.0, np.inf, -np.inf], npdt)])
    for side in ("left", "right"):
        got = np.asarray(xp.searchsorted(xp.asarray(srt), xp.asarray(probe), side=side))
        # numpy's, except that -0.0 and 0.0 are equal there too
        assert np.array_equal(got, np.searchsorted(srt, probe, side=side))


def test_argmin_of_floats_is_one_node_and_emits_what_the_key_node_and_reduce_emit():
    from lazyarray._ops.reduce import ARGREDUCE, argreduce
    x = xp.ones((5, 3), dtype=xp.float32) * 1.0
    for kind in ("min", "max"):
        out = (xp.argmin if kind == "min" else xp.argmax)(x, axis=1)._node
        assert out.op is ARGREDUCE and out.args == (x._node,)
        keyed = argreduce(order_key(x._node, nan="high" if kind == "max" else "low"), 1, kind)
        assert _ops_emitted(out) == _ops_emitted(keyed)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64", "bool"])
def test_arg_extremes_with_many_ties_equal_numpy(dtype, rng):
    a = rng.integers(-2, 3, size=(6, 7, 5))
    a = (a > 0) if dtype == "bool" else a.astype(dtype) if dtype[0] != "u" else (a + 2).astype(dtype)
    if dtype.startswith("float"):
        a[a == 0] = np.where(rng.random(int((a == 0).sum())) < 0.5, -0.0, 0.0)
        a[1, 2, 3] = np.nan
    x = xp.asarray(a)
    for axis in (None, 0, 1, 2, -1):
        for keepdims in (False, True):
            for f, g in ((xp.argmin, np.argmin), (xp.argmax, np.argmax)):
                got = np.asarray(f(x, axis=axis, keepdims=keepdims))
                want = g(a, axis=axis, keepdims=keepdims)
                assert got.dtype == np.int64 and got.shape == want.shape and np.array_equal(got, want)
