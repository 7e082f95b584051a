"""The operators' fast path (`_array_methods._fast_method`) takes a 0-D array of the same dtype
beside a nonempty one (`dg + v`, `c / nk[k]`): the namespace function's one node at the nonempty
operand's shape, the 0-D operand unbroadcast, node for node (operand order included, reflected
methods too), and numpy's values in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _array_methods as am
from lazyarray import _elementwise_functions as ef
from graph_compare import same_nodes
from operator_cases import FAST_CASES, OPS, case_id, value

pytestmark = pytest.mark.usefixtures("both_tiers")


SHAPES = [(4,), (3, 4), (0,), (2, 0, 3), (1,)]


def _arrays(v):
    """v as a leaf, a pending node, a view; for a 0-D v also an element read of a pending 1-D
    array (`nk[k]`) and of a leaf: all pending where they can be."""
    if v.shape == ():
        w = np.stack([v, v])
        return [xp.asarray(v), xp.reshape(xp.asarray(v.reshape(1)), ()), xp.reshape(xp.asarray(w.reshape(2, 1)), (2,))[1],
                xp.asarray(w)[0], xp.asarray(v)[...]]
    return [xp.asarray(v), xp.reshape(xp.asarray(v.ravel()), v.shape), xp.asarray(v)[...]]


@pytest.mark.parametrize(("name", "dtype"), FAST_CASES, ids=case_id)
def test_zero_d_operand_records_the_functions_node(name, dtype):
    fast, rfast = getattr(xp.Array, f"__{name}__"), getattr(xp.Array, f"__r{name}__", None)
    f = ef.FUNCTIONS[am._BINARY.get(name) or am._COMPARE[name]]
    rng = np.random.default_rng(1)
    s = value((), dtype, rng)
    for shape in SHAPES:
        v = value(shape, dtype, rng)
        for i in range(3):
            for j in range(5):
                for zero_first in (False, True):
                    a, b = (_arrays(s)[j], _arrays(v)[i]) if zero_first else (_arrays(v)[i], _arrays(s)[j])
                    got = fast(a, b)
                    assert got.shape == shape and got._node.shape == shape
                    assert same_nodes(got._node, f(a, b)._node), (shape, i, j, zero_first)
                    if rfast is not None:  # reflected: a OP b, asked of b
                        assert same_nodes(rfast(b, a)._node, f(a, b)._node), (shape, i, j, zero_first, "reflected")
        for zero_first in (False, True):
            a, b = (_arrays(s)[2], _arrays(v)[1]) if zero_first else (_arrays(v)[1], _arrays(s)[2])
            want = OPS[name](s, v) if zero_first else OPS[name](v, s)
            got = np.asarray(fast(a, b))
            assert got.shape == want.shape and got.dtype == want.dtype
            if np.dtype(dtype).kind in "fc" and name in ("truediv", "pow"):
                np.testing.assert_allclose(got, want, rtol=1e-6)
            else:
                np.testing.assert_array_equal(got, want)


def test_other_dtypes_and_devices_keep_the_general_path():
    a = xp.asarray(np.arange(4.0))
    for b in (xp.asarray(np.float32(2.0)), xp.asarray(2), xp.asarray(True)):
        got, ref = a * b, xp.multiply(a, b)
        assert same_nodes(got._node, ref._node)
        np.testing.assert_array_equal(np.asarray(got), np.arange(4.0) * np.asarray(b))
    with pytest.raises(TypeError) as want:
        xp.bitwise_and(xp.asarray(np.arange(4.0)), xp.asarray(2.0))
    with pytest.raises(TypeError) as got:
        xp.asarray(np.arange(4.0)) & xp.asarray(2.0)
    assert str(got.value) == str(want.value)


def test_pending_state_and_writes():
    """The new node joins the pending graph (read later, after a write into the 0-D's base)."""
    nk = xp.asarray(np.array([2.0, 4.0])) * 1
    c = xp.asarray(np.ones((3, 3))) * 3
    out = c / nk[1]
    nk[1] = 8.0
    np.testing.assert_array_equal(np.asarray(out), np.full((3, 3), 0.75))
    np.testing.assert_array_equal(np.asarray(c / nk[1]), np.full((3, 3), 3 / 8))
