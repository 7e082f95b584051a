"""A float max/min is ONE reduce node whose lowering tests for NaN itself (SCIPY, issue 11 target
1: SciPy's table calls xp.max/min ~130 times a pass; four nodes each, a compare, an or-reduce and
a select beside the reduction, cost tracing, walking and interpreting). XLA's CPU backend drops
NaN from min/max reductions of a few thousand elements or more; the lowering makes the program
propagate it as numpy (the host evaluation) does, so both tiers give numpy's values: NaN
anywhere in the selection, the larger zero for max (+0.0) and the smaller for min (-0.0)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray._ops.reduce import REDUCE
from lazyarray._ops.shape import RESHAPE
from lazyarray._graph import Plan

pytestmark = pytest.mark.usefixtures("both_tiers")


@pytest.mark.parametrize("fname", ["max", "min"])
@pytest.mark.parametrize("npdt", [np.float64, np.float32])
@pytest.mark.parametrize("n", [7, 5000, 20000])
def test_nan_propagates_in_both_tiers(fname, npdt, n, rng):
    a = rng.standard_normal((3, n)).astype(npdt)
    a[1, n // 2] = np.nan
    for axis in (None, 0, 1):
        got = np.asarray(getattr(xp, fname)(xp.asarray(a), axis=axis))
        want = getattr(np, fname)(a, axis=axis)
        assert got.dtype == want.dtype and got.shape == np.shape(want)
        np.testing.assert_array_equal(got, want)  # (NaN where numpy has NaN, the same floats elsewhere)
    clean = a[[0, 2]]
    np.testing.assert_array_equal(np.asarray(getattr(xp, fname)(xp.asarray(clean), axis=1)),
                                  getattr(np, fname)(clean, axis=1))


def test_signed_zeros_in_both_tiers():
    z = xp.asarray(np.array([-0.0, 0.0, -0.0]))
    assert not np.signbit(float(xp.max(z))) and np.signbit(float(xp.min(z)))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_a_max_is_one_node(dtype):
    x = xp.asarray(np.ones((4, 5)), dtype=getattr(xp, dtype))
    for out in (xp.max(x), xp.min(x, axis=0), xp.max(x, axis=1, keepdims=True)):
        order = Plan([out._node]).order
        assert [node.op for node in order if node.op is not RESHAPE] == [REDUCE]
