"""`_tier_policy.first_sight` (OpDef.interpretable inline): None exactly where the interpreter does
not cover a node (`_interpret.supports`), else its element-op work and whether it has an fft."""
import math

import numpy as np

import lazyarray as xp
from lazyarray import _interpret, _tier_policy
from lazyarray._graph import Plan


def _order(a):
    return Plan([a._pending_node()]).order


def test_agrees_with_supports():
    x = xp.asarray(np.linspace(-1, 1, 6))
    c = xp.asarray(np.linspace(-1, 1, 6) + 0.5j)
    graphs = [x * 2.0 + 1.0, xp.max(xp.abs(x - 1.0)), xp.acos(c), xp.asinh(c) + c, xp.fft.fft(x),
              xp.eye(3) @ xp.ones((3, 3)), xp.sum(xp.sqrt(xp.abs(x))), xp.acos(c * 2.0)]
    for a in graphs:
        order = _order(a)
        seen = _tier_policy.first_sight(order)
        if not _interpret.supports(order):
            assert seen is None
            continue
        assert seen is not None
        work, fft = seen
        assert work == sum(math.prod(n.shape) for n in order)
        assert fft == any(n.op.name == "fft" for n in order)
    # at least one graph of each answer
    assert any(_tier_policy.first_sight(_order(a)) is None for a in [xp.acos(c)])
    assert _tier_policy.first_sight(_order(x * 2.0 + 1.0)) is not None
