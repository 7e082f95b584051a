"""Float `%` and `//` nodes (`math.remainder`, `math.floor_divide`) evaluated on the host by numpy's
ufuncs (`_ops.real_math._remainder_evaluate`, `_floor_divide_evaluate`): bit for bit what the
formula's numpy ops give one by one (`_formula_evaluate`, what the lowering emits and what the
interpreter computed before), on every pair of special values and on random pairs, for each float
dtype, 0-D operands and a 0-D operand beside an array included."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray._graph import Node, leaf_from_host
from lazyarray._ops import real_math as rm

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_NAN_PAYLOAD = {np.float16: 0x7C23, np.float32: 0x7F800123, np.float64: 0x7FF0000000000123}
CASES = [("remainder", rm.FLOAT_REMAINDER, rm._float_remainder_formula),
         ("floor_divide", rm.FLOAT_FLOOR_DIVIDE, rm._float_floor_divide_formula)]


def _bits(v):
    v = np.asarray(v)
    return v.view(_UINT[v.dtype.itemsize])


def _specials(npdt):
    fi = np.finfo(npdt)
    values = [0.0, 1.0, 0.5, 1.5, 2.0, 3.0, 0.1, 7.0, 0.25, 0.75, 1e-3, 123.456, 1e4,
              float(fi.tiny), float(fi.tiny) / 4, float(fi.max), float(fi.eps), 1 - float(fi.eps), np.inf]
    s = np.array(values, npdt)
    nan = np.array([_NAN_PAYLOAD[npdt]], _UINT[np.dtype(npdt).itemsize]).view(npdt)
    return np.concatenate([s, -s, nan, -nan, np.array([np.nan], npdt)])


def _pairs(npdt, n_random=20000):
    s = _specials(npdt)
    a, b = np.meshgrid(s, s)
    rng = np.random.default_rng(11)
    ra = (rng.standard_normal(n_random) * rng.choice([1e-3, 1.0, 1e3], n_random)).astype(npdt)
    rb = (rng.standard_normal(n_random) * rng.choice([1e-3, 1.0, 1e3], n_random)).astype(npdt)
    ia = rng.integers(-50, 50, n_random).astype(npdt)
    ib = rng.integers(-7, 8, n_random).astype(npdt)
    return np.concatenate([a.ravel(), ra, ia]), np.concatenate([b.ravel(), rb, ib])


def _node(op, npdt, a_shape, b_shape, shape):
    d = dt.from_numpy(np.dtype(npdt))
    return Node(op, (leaf_from_host(None, a_shape, d), leaf_from_host(None, b_shape, d)), (), shape, d)


def _check_same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = _bits(got) != _bits(want)
    assert not diff.any(), f"{int(diff.sum())} values differ, first {np.flatnonzero(diff)[:5]}"


@pytest.mark.parametrize("npdt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name,op,formula", CASES)
def test_ufunc_evaluation_is_the_formulas_bits(npdt, name, op, formula):
    a, b = _pairs(npdt)
    node = _node(op, npdt, a.shape, b.shape, a.shape)
    got = op.evaluate(node, a, b)
    want = rm._formula_evaluate(formula, node, a, b)
    assert type(got) is np.ndarray
    _check_same(got, want)


@pytest.mark.parametrize("npdt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name,op,formula", CASES)
def test_zero_d_operands(npdt, name, op, formula):
    s = _specials(npdt)
    for x in s[::3]:
        for y in s[::2]:
            a, b = np.array(x, npdt), np.array(y, npdt)
            node = _node(op, npdt, (), (), ())
            got = op.evaluate(node, a, b)
            assert type(got) is np.ndarray and got.shape == ()
            _check_same(got, rm._formula_evaluate(formula, node, a, b))
    # a 0-D operand beside an array, either side
    arr = s
    for scalar in (np.array(0.7, npdt), np.array(-0.0, npdt), np.array(np.inf, npdt), np.array(np.nan, npdt)):
        for a, b in ((arr, scalar), (scalar, arr)):
            node = _node(op, npdt, a.shape, b.shape, arr.shape)
            _check_same(op.evaluate(node, a, b), rm._formula_evaluate(formula, node, a, b))


def test_namespace_values_in_both_tiers(both_tiers):
    a = np.array([5.5, -5.5, 0.0, -0.0, 1.0, -1.0, np.inf, np.nan, 7.0, 1e300])
    b = np.array([2.0, 2.0, -3.0, 3.0, np.inf, -np.inf, 2.0, 2.0, 0.0, 1e-300])
    xa, xb = xp.asarray(a), xp.asarray(b)
    r = np.asarray(xp.remainder(xa, xb))
    with np.errstate(all="ignore"):
        want_r = np.remainder(a, b)
    _same_values(r, want_r)
    q = np.asarray(xp.floor_divide(xa, xb))
    with np.errstate(all="ignore"):
        want_q = np.where((b == 0) | ~(np.isfinite(a) & np.isfinite(b)), a / b, np.floor_divide(a, b))
    _same_values(q, want_q)


def _same_values(got, want):
    """Equal values, NaN where NaN, zeros of the same sign (a NaN's payload is the tier's own)."""
    np.testing.assert_array_equal(got, want)
    real = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]))
