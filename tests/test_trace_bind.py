"""`_graph.bind` and `bind_pair` build their nodes inline (`object.__new__` and the stores): the
node has every slot `Node(...)` gives, with the same values, and a field added to Node switches
them to the constructor (`_graph._INLINE`)."""
from __future__ import annotations

import numpy as np

import lazyarray as xp
from lazyarray import _graph, _ops as ops
from lazyarray._graph import Node


def _slots(node):
    return {name: getattr(node, name, "<unset>") for name in Node.__slots__ if name != "__weakref__"}


def test_bound_nodes_have_the_constructors_slots():
    assert _graph._INLINE
    x = xp.asarray(np.arange(4.0))
    a = x._node
    for node, args in ((_graph.bind(ops.NEGATE, (a,), (), a.shape, a.dtype), (a,)),
                       (_graph.bind_pair(ops.ADD, a, a, (), a.shape, a.dtype), (a, a))):
        made = Node(node.op, args, (), a.shape, a.dtype)
        got, want = _slots(node), _slots(made)
        assert set(k for k, v in got.items() if v == "<unset>") == set()
        for k in ("op", "args", "attrs", "shape", "dtype", "buffer", "host", "computed"):
            assert got[k] is want[k] or got[k] == want[k], k
        assert node.comp is not None and isinstance(node.serial, int)
    y = xp.negative(xp.multiply(x, 2.0))
    np.testing.assert_array_equal(np.asarray(y), -2.0 * np.arange(4.0))


def test_a_new_node_field_goes_through_the_constructor(monkeypatch):
    # (what `_constructor_defaults` sees when Node's constructor sets one more field)
    real = Node.__init__

    def init(self, *args, **kwargs):
        real(self, *args, **kwargs)
        self.serial = -1  # (a slot the inline build does not set from the constructor)

    monkeypatch.setattr(Node, "__init__", init)
    assert _graph._constructor_defaults() != {"buffer": None, "host": None, "comp": None, "computed": False}
