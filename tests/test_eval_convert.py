"""EVAL: a float -> integer conversion whose values are all in range is one cast
(`_ops.elementwise._float_to_int`); the same bits as the saturating formula on every value,
and as XLA's compiled convert."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray._ops import elementwise as E


def _saturating(x, npdt):
    """The formula itself, spelled out: truncate, saturate, NaN -> 0."""
    info = np.iinfo(npdt)
    bits = npdt.itemsize * 8
    hi = np.asarray(2.0 ** (bits - 1 if info.min < 0 else bits), x.dtype)
    big = x >= hi
    small = x <= np.asarray(info.min, x.dtype) if info.min < 0 else x < 0
    bad = big | small | np.isnan(x)
    out = np.where(bad, np.zeros((), x.dtype), x).astype(npdt)
    out = np.where(big, np.asarray(info.max, npdt), out)
    return np.where(small, np.asarray(info.min, npdt), out)


INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
SPECIAL = [0.0, -0.0, 0.7, -0.7, 1.5, -1.5, 127.9, 128.0, -128.0, -129.5, 255.5, 256.0, 65535.0,
           2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1e300, -1e300,
           np.inf, -np.inf, np.nan, 5e-324]


@pytest.mark.parametrize("fdt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("idt", INTS)
def test_matches_saturating_formula(fdt, idt):
    npdt = np.dtype(idt)
    with np.errstate(all="ignore"):
        vals = np.array(SPECIAL, fdt)
        rng = np.random.default_rng(0)
        inrange = np.trunc(rng.uniform(0, 100, 50)).astype(fdt) + np.asarray(0.25, fdt)
        for x in [vals, inrange, inrange.reshape(5, 10), np.asarray(inrange[3]), vals[:0]]:
            got = E._float_to_int(x, npdt)
            want = _saturating(x, npdt)
            assert got.dtype == npdt and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
        for v in vals:  # each value alone (the in-range ones take the one cast)
            np.testing.assert_array_equal(E._float_to_int(np.asarray(v), npdt), _saturating(np.asarray(v), npdt))


@pytest.mark.parametrize("tier", ["compiled_now", "interpreted"])
def test_tiers(tier, request):
    request.getfixturevalue(tier)
    x = np.array([[0.5, -2.7], [3.9, 1e3], [-0.0, 7.0]])
    got = np.asarray(xp.astype(xp.asarray(x), xp.int64))
    np.testing.assert_array_equal(got, _saturating(x, np.dtype(np.int64)))
    got = np.asarray(xp.astype(xp.asarray(np.array([1e30, -1e30, np.nan, 2.5])), xp.int32))
    np.testing.assert_array_equal(got, _saturating(np.array([1e30, -1e30, np.nan, 2.5]), np.dtype(np.int32)))
