"""The operator fast path (`_array_methods._fast_method`) records with `_graph.bind_pair`'s body
inline: the node it makes must be the one the namespace function makes (op, attributes, shape,
dtype, operands in order, a reflected operator's swapped), joined to the same graph component
(merging two pending graphs), with the next serial and one more traced node, and its new handle
reachable at a sync. Values are checked against numpy."""
import operator

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _graph
from lazyarray._graph import pending

RNG = np.random.default_rng(2026)

OPERATORS = [(operator.add, xp.add), (operator.sub, xp.subtract), (operator.mul, xp.multiply),
             (operator.truediv, xp.divide), (operator.lt, xp.less), (operator.le, xp.less_equal),
             (operator.gt, xp.greater), (operator.ge, xp.greater_equal), (operator.eq, xp.equal),
             (operator.ne, xp.not_equal)]


def _same_node(a, b):
    """One level: the same op, attributes, shape and dtype over the very same operand nodes."""
    return (a.op is b.op and a.attrs == b.attrs and a.shape == b.shape and a.dtype is b.dtype
            and len(a.args) == len(b.args) and all(x is y for x, y in zip(a.args, b.args)))


@pytest.mark.parametrize("op,function", OPERATORS, ids=lambda v: getattr(v, "__name__", "f"))
@pytest.mark.parametrize("kind", ["array", "scalar", "reflected"])
def test_fast_operator_records_the_namespace_functions_node(op, function, kind):
    if kind == "reflected" and function in (xp.less, xp.less_equal, xp.greater, xp.greater_equal,
                                            xp.equal, xp.not_equal):
        pytest.skip("Python mirrors a comparison (s < x is x > s): the 'scalar' case of the mirror")
    a, b = RNG.standard_normal(7), RNG.standard_normal(7)
    x = xp.asarray(a) * 1.0  # pending: it has a component
    y = xp.asarray(b) - 0.5
    s = 1.75
    if kind == "array":
        fast, general, expected = op(x, y), function(x, y), op(a * 1.0, b - 0.5)
    elif kind == "scalar":
        fast, general, expected = op(x, s), function(x, s), op(a * 1.0, s)
    else:
        fast, general, expected = op(s, x), function(s, x), op(s, a * 1.0)
    assert _same_node(fast._node, general._node)
    if kind == "reflected":
        assert fast._node.args[1] is x._node  # the scalar first, as s OP x reads
    else:
        assert fast._node.args[0] is x._node
    np.testing.assert_array_equal(np.asarray(fast), np.asarray(general))
    np.testing.assert_array_equal(np.asarray(fast), expected)


def test_fast_operator_counts_serials_and_budget_as_bind():
    x = xp.asarray(np.arange(5.0)) + 0.0
    before_count, before_serial = pending.nodes_since_sync, x._node.serial
    y = x * 3.0
    z = xp.multiply(x, 3.0)
    assert pending.nodes_since_sync == before_count + 2  # one each, fast and general
    assert before_serial < y._node.serial < z._node.serial  # creation order, as `bind` numbers them
    assert _graph.root(y._node.comp) is _graph.root(x._node.comp) is _graph.root(z._node.comp)


def test_fast_operator_merges_two_pending_graphs_and_keeps_every_handle():
    base = xp.asarray(np.arange(6.0))
    left, right = base + 1.0, base * 2.0
    assert _graph.root(left._node.comp) is not _graph.root(right._node.comp)
    joined = left - right
    root = _graph.root(joined._node.comp)
    assert _graph.root(left._node.comp) is root and _graph.root(right._node.comp) is root
    with _graph.lock:
        ids = {id(h) for h in pending.live_with([joined._node])}
    assert {id(left), id(right), id(joined)} <= ids
    np.testing.assert_array_equal(np.asarray(joined), (np.arange(6.0) + 1.0) - np.arange(6.0) * 2.0)
    assert left._node.op is None and right._node.op is None  # realized with the target


def test_fast_operator_on_a_realized_operand_starts_a_component():
    x = xp.asarray(np.arange(4.0))
    xp.evaluate(x)
    assert x._node.comp is None
    y = x + 2.0
    assert y._node.comp is not None and y._node.comp.parent is None
    with _graph.lock:
        assert [id(h) for h in pending.live_with([y._node])] == [id(y)]
    np.testing.assert_array_equal(np.asarray(y), np.arange(4.0) + 2.0)


def test_long_chain_through_the_fast_path_equals_numpy_across_cuts():
    from lazyarray import _config
    budget = _config.node_budget
    _config.node_budget = 50
    try:
        x = xp.asarray(np.linspace(0.0, 1.0, 10))
        y, expected = x, np.linspace(0.0, 1.0, 10)
        for k in range(237):  # several budget cuts, then a tail left pending
            y = y + 1.0 if k % 2 else y * 0.5
            expected = expected + 1.0 if k % 2 else expected * 0.5
        np.testing.assert_allclose(np.asarray(y), expected, rtol=1e-12)
    finally:
        _config.node_budget = budget


def test_fast_operator_errors_unchanged():
    x = xp.asarray(np.arange(3.0)) + 0.0
    with pytest.raises(ValueError):
        x + xp.asarray(np.arange(4.0))  # shapes that do not broadcast: the general path's error
    with pytest.raises(TypeError):
        x + "a"


def test_inline_node_holds_every_field_the_constructor_sets():
    from lazyarray import _array_methods
    from lazyarray._graph import Node
    x = xp.asarray(np.arange(3.0)) * 2.0
    fast, general = x + 1.5, xp.add(x, 1.5)
    for name in Node.__slots__:
        if name in ("__weakref__", "serial", "comp"):
            continue
        assert getattr(fast._node, name) == getattr(general._node, name), name
    assert fast._node.serial == general._node.serial - 1
    # the inline construction is taken only while Node's other fields are the known defaults
    assert _array_methods._INLINE_NODE == (_array_methods._node_defaults() in (
        {"buffer": None, "host": None}, {"buffer": None, "host": None, "computed": False}))
