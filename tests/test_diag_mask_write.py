"""x[m] = c of a bool mask of x's shape and a 0-D leaf value (scikit-learn's `_logsumexp`:
`array[index_max] = -xp.inf`): `_advanced_indexing.whole_mask_write` binds the broadcast and the
select its builders end in at once, for shapes without unit axes: node for node the builders'
nodes, numpy's values in both tiers; unit axes and pending values keep the builders."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray import _advanced_indexing
from lazyarray._array_object import Array
from lazyarray._graph import leaf_from_host

SHAPES = [(300, 3), (4, 5, 6), (2, 7), (300, 1), (1, 4), (5,)]


def _builders(mask, value, node):
    shape = node.shape
    upd = ops.broadcast_to(ops.reshape(ops.broadcast_to(value, (1,)), (1,) * len(shape)), shape)
    return ops.select(mask, upd, node)


def _same(a, b):
    """Nodes equal in op, attributes, shape, dtype, and operands (leaves by identity)."""
    if a is b:
        return True
    if (a.op, a.attrs, a.shape, a.dtype) != (b.op, b.attrs, b.shape, b.dtype) or len(a.args) != len(b.args):
        return False
    return a.op is not None and all(_same(p, q) for p, q in zip(a.args, b.args))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex64"])
@pytest.mark.parametrize("value", ["leaf", "pending"])
def test_nodes_are_the_builders(shape, dtype, value, rng):
    x = xp.asarray(rng.standard_normal(shape).astype(dtype)) * 1
    m = x != x  # (any bool mask of x's shape)
    v = leaf_from_host(-np.inf, (), getattr(dt, dtype))
    if value == "pending":
        v = ops.NEGATE(ops.NEGATE(v))
    before = x._node
    _advanced_indexing.whole_mask_write(x, m, v)
    assert _same(x._node, _builders(m._node, v, before))


@pytest.mark.usefixtures("both_tiers")
@pytest.mark.parametrize("shape", SHAPES + [(0, 3), (3, 0, 2)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex64"])
@pytest.mark.parametrize("c", [-np.inf, np.nan, -0.0, 3])
def test_values(shape, dtype, c, rng):
    a_np = rng.standard_normal(shape).astype(dtype)
    m_np = rng.random(shape) > 0.5
    a = xp.asarray(a_np) + 0
    a[xp.asarray(m_np)] = c
    want = a_np.copy()
    want[m_np] = c
    np.testing.assert_array_equal(np.asarray(a), want)
    # the logsumexp pattern: -inf where each row's maximum is
    if len(shape) == 2 and 0 not in shape:
        b = xp.asarray(a_np) + 0
        im = b == xp.max(b, axis=1, keepdims=True) if dtype != "complex64" else b != b
        b[im] = -xp.inf
        want = a_np.copy()
        want[np.asarray(im)] = -np.inf
        np.testing.assert_array_equal(np.asarray(b), want)
