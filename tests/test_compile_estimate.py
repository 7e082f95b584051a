"""The compile estimate weighs each op's own compile cost (`OpDef.compile_extra`): XLA's CPU
compile of a scan or a float max/min reduction costs far more than an add's, so a graph with one
is allowed more numpy work at first sight and waits longer before compiling."""
import numpy as np

import lazyarray as xp
from lazyarray import _engine, _graph, _tier_policy


def _order(y):
    return _graph.Plan([y._node]).order


def test_a_scan_and_a_float_max_cost_more_than_an_add():
    x = xp.asarray(np.ones(1000))
    plain = _tier_policy.compile_seconds(_order(x + 1.0))
    assert plain == _tier_policy.COMPILE_FIXED + _tier_policy.COMPILE_PER_NODE * len(_order(x + 1.0))
    scan = _tier_policy.compile_seconds(_order(xp.cumulative_sum(x)))
    fmax = _tier_policy.compile_seconds(_order(xp.max(x)))
    imax = _tier_policy.compile_seconds(_order(xp.max(xp.astype(x, xp.int64))))
    assert scan > fmax > imax > plain
    short = _tier_policy.compile_seconds(_order(xp.cumulative_sum(x[:10])))
    assert plain < short < scan  # a short scan compiles quickly


def test_a_large_graph_with_a_scan_is_interpreted_at_first_sight(engine, rng):
    """SciPy's rankdata of 1e6 elements (TestRankData::test_big_tie): 10M+ element-ops with a
    cumulative sum cost ~0.1 s in numpy against a ~0.4 s compile."""
    n = 1_000_000
    an = rng.integers(0, 3, n).astype(np.float64)
    a = xp.asarray(an)
    y = xp.cumulative_sum(xp.astype(a[1:] != a[:-1], xp.int64)) * 2 + xp.astype(a[1:] > 0.5, xp.int64)
    order = _order(y)
    work = sum(int(np.prod(node.shape)) for node in order)
    plain_limit = _tier_policy.INTERPRET_MAX_WORK * (1 + len(order) * _tier_policy.COMPILE_PER_NODE
                                                      / _tier_policy.COMPILE_FIXED)
    assert work > plain_limit  # over the limit a graph of ordinary ops would have
    assert _tier_policy.interpreting_pays(order)
    got = np.asarray(y)
    _engine.wait_for_compiles()
    expected = np.cumsum(an[1:] != an[:-1]) * 2 + (an[1:] > 0.5)
    np.testing.assert_array_equal(got, expected)
    assert xp.metrics.compiles == 0 and xp.metrics.interpreted == 1
