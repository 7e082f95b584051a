"""Float `%` and `//` as one node each (`_ops.real_math.float_remainder` / `float_floor_divide`)
where their formulas were ~25 and ~19 nodes (SciPy's quantile computes `jg % 1` and `jg // 1`
per method: ~180 of quantile_methods' ~580 nodes). The node computes the formula it replaces, op
for op, in both tiers: bit for bit equal to the old composite (sign of zero and NaN class
included), equal to numpy's remainder and floor_divide on finite operands, and to the standard's
special cases elsewhere."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _elementwise_functions as ef
from lazyarray._array_object import Array
from lazyarray._graph import toposort
from tier_check import DEV, both, compile_always, specials  # noqa: F401

pytestmark = pytest.mark.usefixtures("compile_always")

FLOATS = [dt.float32, dt.float64]


def _pairs(d):
    """Every pair of special values, and random pairs of both signs and mixed magnitudes."""
    s = specials(d)
    a, b = (np.array(v, dtype=d.np) for v in zip(*itertools.product(s, s)))
    rng = np.random.default_rng(7)
    ra = (rng.standard_normal(500) * 10.0 ** rng.integers(-3, 4, 500)).astype(d.np)
    rb = (rng.standard_normal(500) * 10.0 ** rng.integers(-3, 4, 500)).astype(d.np)
    return np.concatenate([a, ra, ra]), np.concatenate([b, rb, np.ones_like(rb)])


def _same_bits(x, y):
    """Equal values, signs of zero and NaN classes."""
    nan = np.isnan(x)
    assert np.array_equal(nan, np.isnan(y))
    np.testing.assert_array_equal(x[~nan], y[~nan])
    np.testing.assert_array_equal(np.signbit(x[~nan]), np.signbit(y[~nan]))


@pytest.mark.parametrize("d", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name,old", [("remainder", ef._float_remainder), ("floor_divide", ef._float_floor_divide)])
def test_one_node_equals_the_composite_in_both_tiers(d, name, old):
    a, b = _pairs(d)
    A, B = xp.asarray(a), xp.asarray(b)
    new = getattr(xp, name)(A, B)
    order, _ = toposort([new._node])
    assert [n.op.name for n in order] == [f"math.{name}"]  # one computed node
    new_i, new_c = both(new)
    old_i, old_c = both(Array._wrap(old(A._node, B._node), DEV))
    _same_bits(new_i, old_i)
    _same_bits(new_c, old_c)
    _same_bits(new_i, new_c)
    fin = np.isfinite(a) & np.isfinite(b) & (b != 0)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
    _same_bits(new_i[fin], want[fin])


@pytest.mark.parametrize("d", FLOATS, ids=lambda d: d.name)
def test_broadcast_scalar_operands_and_operators(d):
    x = np.array([-7.5, -1.0, -0.0, 0.0, 0.25, 3.0, 10.5], dtype=d.np)
    X = xp.asarray(x)
    with np.errstate(all="ignore"):
        cases = ((X % 1, x % d.np.type(1)), (X // 2, x // d.np.type(2)),
                 (5.0 % X[1:], d.np.type(5) % x[1:]), (X[:1] // X, x[:1] // x))
    for got, want in cases:
        assert got.dtype == d and got.shape == want.shape
        with np.errstate(all="ignore"):
            i, c = both(got)
        fin = np.isfinite(want)
        _same_bits(i, c)
        _same_bits(i[fin], want[fin])


def test_special_cases_of_the_standard():
    a = xp.asarray(np.array([-1.0, 1.0, -0.0, 5.0, np.inf, 3.0]))
    b = xp.asarray(np.array([np.inf, np.inf, np.inf, -np.inf, 2.0, 0.0]))
    for got in both(xp.floor_divide(a, b)):  # a / b where b == 0 or an operand is not finite
        _same_bits(got, np.array([-0.0, 0.0, -0.0, -0.0, np.inf, np.inf]))
    for got in both(xp.remainder(a, b)):     # finite a, infinite b: a when signs agree, else b
        _same_bits(got, np.array([np.inf, 1.0, 0.0, -np.inf, np.nan, np.nan]))


def test_quantile_graph_shrinks():
    jg = xp.asarray(np.linspace(0.0, 9.0, 8))
    assert len(toposort([(jg % 1)._node])[0]) == 1
    assert len(toposort([(jg // 1)._node])[0]) == 1
