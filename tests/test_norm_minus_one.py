"""`_ops.real_math.norm_minus_one`: |z|^2 - 1 (and 2a + |z|^2) as one node where complex log and
log1p had ~60 nodes of formula (issue 11: SciPy's complex logsumexp graphs were 600-800 nodes,
each recorded, keyed and interpreted one by one). The node computes the formula it replaces, op
for op, in both tiers: bit for bit equal to the old composite and between the tiers, and within
a few ulp of the exact value next to the unit circle, where the terms cancel."""
from fractions import Fraction

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _complex_math as cm
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._graph import toposort
from lazyarray._ops.real_math import norm_minus_one
from tier_check import both, compile_always  # noqa: F401

pytestmark = pytest.mark.usefixtures("compile_always")


def _composite(a, b, two_a):
    """The formula as separate nodes (what _complex_math built before): split, squares, TwoSum."""
    R = cm.R

    def split(x):
        bits = ops.bitcast(x.n, dt.int64)
        hi = R(ops.bitcast(ops.AND(bits, ops.constant(~((1 << 27) - 1), dt.int64)), dt.float64))
        return hi, x - hi

    def square_terms(x):
        hi, lo = split(x)
        return [hi * hi, 2.0 * hi * lo, lo * lo]

    (a2, a1, a0), (b2, b1, b0) = square_terms(a), square_terms(b)
    head = 2.0 * a if two_a else R(ops.constant(-1.0, dt.float64))
    terms = [head, a2, b2, a1, b1, a0, b0]
    total, carry = terms[0], None
    for t in terms[1:]:
        s = total + t
        back = s - total
        err = (total - (s - back)) + (t - back)
        carry = err if carry is None else carry + err
        total = s
    return (total + carry).n


def _inputs(two_a):
    rng = np.random.default_rng(3 if two_a else 4)
    n = 3000
    if two_a:  # -1/2 <= a < 4, |b| < 4, and next to the circle |1 + z| = 1
        ang = rng.uniform(0, 2 * np.pi, n)
        r = 1 + rng.standard_normal(n) * 1e-9
        a = np.concatenate([rng.uniform(-0.5, 4, n), np.clip(r * np.cos(ang) - 1, -0.5, 3.9)])
        b = np.concatenate([rng.uniform(-4, 4, n), r * np.sin(ang)])
    else:      # 1/2 < a < 2, |b| <= a, and next to the unit circle
        a = np.concatenate([rng.uniform(0.5, 2, n), 1 - np.abs(rng.standard_normal(n)) * 1e-6])
        b = np.concatenate([rng.uniform(0, 1, n) * a[:n], np.sqrt(np.maximum(1 - a[n:] ** 2, 0))])
        keep = np.abs(b) <= a
        a, b = a[keep], b[keep]
    return a, b


@pytest.mark.parametrize("two_a", [False, True])
def test_one_node_equals_the_composite_in_both_tiers(two_a):
    a, b = _inputs(two_a)
    A, B = xp.asarray(a)._node, xp.asarray(b)._node
    new = norm_minus_one(A, B, two_a)
    assert len(toposort([new])[0]) == 1  # one computed node (leaves are not in the order)
    new_i, new_c = both(new)
    old_i, old_c = both(_composite(cm.R(A), cm.R(B), two_a))
    np.testing.assert_array_equal(new_i, old_i)
    np.testing.assert_array_equal(new_c, old_c)
    np.testing.assert_array_equal(new_i, new_c)


@pytest.mark.parametrize("two_a", [False, True])
def test_within_a_few_ulp_of_exact(two_a):
    a, b = _inputs(two_a)
    got, _ = both(norm_minus_one(xp.asarray(a)._node, xp.asarray(b)._node, two_a))
    for i in range(0, a.size, 7):
        fa, fb = Fraction(float(a[i])), Fraction(float(b[i]))
        exact = (2 * fa if two_a else Fraction(-1)) + fa * fa + fb * fb
        unit = np.spacing(abs(float(exact))) if exact else np.finfo(np.float64).tiny
        assert abs(Fraction(float(got[i])) - exact) <= 2 * Fraction(unit) + Fraction(2.0 ** -104) * (fa * fa + fb * fb), i


def test_complex_log_graphs_shrink():
    z = xp.asarray(np.array([1 + 2j, 0.6 - 0.8j]))
    for fn, most in ((xp.log, 80), (xp.log1p, 110)):
        assert len(toposort([fn(z)._node])[0]) <= most
