"""EVAL: a whole float max/min reduction whose zero result already has the winning sign returns
at once (`_ops.reduce._fix_zero_sign`); every small array of zeros, negatives, infinities and NaN
gives XLA's zero (max: +0.0 if any, min: -0.0 if any), as the general fix and the compiled tier."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._interpret import Stub
import importlib

R = importlib.import_module("lazyarray._ops.reduce")  # (the package exports a `reduce` builder)

VALUES = [0.0, -0.0, -1.0, 1.0, -np.inf, np.nan]


def _xla(x, kind):
    """The definition: the maximum (minimum) with -0.0 < +0.0; NaN wins."""
    if np.isnan(x).any():
        return np.nan
    key = [(v, not np.signbit(v)) for v in x.tolist()]
    return (max if kind == "max" else min)(key)[0]


def _bits(v):
    return np.asarray(v, np.float64).view(np.uint64)


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("dtype", [xp.float16, xp.float32, xp.float64])
def test_whole_reductions(kind, dtype):
    for n in (1, 2, 3):
        for vals in itertools.product(VALUES, repeat=n):
            x = np.array(vals, dtype.np)
            node = Stub(R.REDUCE, (Stub(None, (), (), x.shape, dtype),), R.REDUCE.Attrs(kind, (0,)), (), dtype)
            got = np.asarray(R.REDUCE.evaluate(node, x))
            want = _xla(x, kind)
            assert got.dtype == dtype.np and got.shape == ()
            if np.isnan(want):
                assert np.isnan(got)
            else:
                assert _bits(got.astype(np.float64)) == _bits(want), (vals, kind)
            x2 = x.reshape(1, n)  # (two axes reduced)
            node2 = Stub(R.REDUCE, (Stub(None, (), (), x2.shape, dtype),), R.REDUCE.Attrs(kind, (0, 1)), (), dtype)
            np.testing.assert_array_equal(_bits(np.asarray(R.REDUCE.evaluate(node2, x2)).astype(np.float64)),
                                          _bits(got.astype(np.float64)))


@pytest.mark.parametrize("tier", ["compiled_now", "interpreted"])
def test_tiers(tier, request):
    request.getfixturevalue(tier)
    for vals in [(0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0), (0.0, 0.0), (-1.0, 0.0, -0.0), (-0.0, -2.0)]:
        x = np.array(vals)
        for fn, kind in [(xp.max, "max"), (xp.min, "min")]:
            got = np.asarray(fn(xp.asarray(x)))
            assert _bits(got) == _bits(_xla(x, kind)), (vals, kind)
