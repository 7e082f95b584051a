"""Session 16, issue 11 target 1 (SciPy's table): `stack` and `concat` bind their concatenate node
at once (`_manipulation_functions._concatenated`), without the rule's checks again: the same
node as `ops.concatenate` binds, and numpy's values, in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _manipulation_functions as mf
from lazyarray import _ops as ops

pytestmark = pytest.mark.usefixtures("both_tiers")

CASES = [
    ("stack", [(10,), (10,), (10,), (10,)], -1, [np.float64] * 4),
    ("stack", [(2, 3), (2, 3)], 0, [np.float32, np.float64]),
    ("stack", [(2, 3), (2, 3), (2, 3)], 1, [np.int32, np.int64, np.int32]),
    ("stack", [(5,)], 0, [np.float64]),
    ("concat", [(2, 3), (4, 3), (1, 3)], 0, [np.float64] * 3),
    ("concat", [(2, 3), (2, 0), (2, 5)], 1, [np.float32, np.float32, np.float64]),
    ("concat", [(3,), (3,)], None, [np.bool_, np.bool_]),
    ("concat", [(2, 2), (3, 1)], None, [np.int64, np.float64]),
]


@pytest.mark.parametrize("fn,shapes,axis,dtypes", CASES)
def test_values_and_the_general_node(fn, shapes, axis, dtypes):
    rng = np.random.default_rng(0)
    hosts = [(rng.standard_normal(s) * 10).astype(d) for s, d in zip(shapes, dtypes)]
    arrays = [xp.asarray(h) * 1 if h.dtype != np.bool_ else xp.asarray(h) for h in hosts]
    got = getattr(xp, fn)(arrays, axis=axis)
    expected = getattr(np, "stack" if fn == "stack" else "concatenate")(hosts, axis=axis)
    assert got.shape == expected.shape and got.dtype == xp.asarray(expected).dtype
    np.testing.assert_array_equal(np.asarray(got), expected)
    node = got._node
    if node.op is ops.CONCATENATE:
        general = ops.concatenate(node.args, node.attrs.axis)
        assert (general.op, general.args, general.attrs, general.shape, general.dtype) == \
               (node.op, node.args, node.attrs, node.shape, node.dtype)


def test_one_node_is_itself():
    x = xp.asarray(np.arange(3.0)) * 1.0
    assert mf._concatenated([x._node], 0, x.dtype) is x._node


def test_errors_unchanged():
    a, b = xp.ones((2, 3)), xp.ones((3, 2))
    with pytest.raises(ValueError):
        xp.stack([a, b])
    with pytest.raises(ValueError):
        xp.concat([a, b], axis=0)
    with pytest.raises(ValueError):
        xp.concat([xp.ones(()), xp.ones(())])
