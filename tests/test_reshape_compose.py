"""A reshape of a pending reshape reshapes its operand; one back to the operand's shape is the
operand (`_ops.shape.reshape`): k-means' `c2[None, :]` broadcast against a matrix records no
reshape node at all."""
import collections

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._graph import Plan
from lazyarray._ops import shape as ops_shape


def _ops(y):
    return collections.Counter(n.op.name for n in Plan([y._node]).order)


def test_a_unit_axis_added_then_broadcast_away_costs_no_reshape(rng):
    cn, mn = rng.standard_normal(8), rng.standard_normal((5, 8))
    c, m = xp.asarray(cn), xp.asarray(mn)
    y = (m + c[None, :]) * xp.sum(c * c)
    assert _ops(y)["reshape"] == 0
    np.testing.assert_array_equal(np.asarray(y), (mn + cn[None, :]) * np.sum(cn * cn))


@pytest.mark.parametrize("shapes", [((24,), (2, 12), (4, 6)), ((2, 3, 4), (6, 4), (24,)),
                                    ((6, 4), (1, 24), (6, 4)), ((3, 1, 8), (24,), (3, 8))])
def test_chained_reshapes_compose(rng, shapes):
    first, second, third = shapes
    an = rng.standard_normal(first)
    a = xp.exp(xp.asarray(an))  # a computed node: its reshape is pending
    y = xp.reshape(xp.reshape(a, second), third)
    order = Plan([y._node]).order
    assert sum(n.op is ops_shape.RESHAPE for n in order) == (0 if third == first else 1)
    np.testing.assert_array_equal(np.asarray(y), np.exp(an).reshape(second).reshape(third))
