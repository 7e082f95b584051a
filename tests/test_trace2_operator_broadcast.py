"""The operators' fast path (`_array_methods._fast_method`) takes two arrays of one dtype whose
nonempty shapes broadcast: the pair's broadcasts (`_helpers.binary_operands`' own) and then its
one node, node for node what the namespace function records, and numpy's values in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _array_methods as am
from lazyarray import _elementwise_functions as ef
from graph_compare import same_nodes
from operator_cases import FAST_CASES, OPS, case_id, value

pytestmark = pytest.mark.usefixtures("both_tiers")


PAIRS = [((6, 1), (6, 4)), ((4,), (6, 4)), ((1, 4), (6, 1)), ((3, 1, 4), (2, 4)), ((0, 3), (1, 3)),
         ((6, 4), (4,)), ((1,), (3, 2))]


def _arrays(v):
    """v as a leaf, a pending node, a pending `w[:, None]`-like reshape, a view: all pending."""
    out = [xp.asarray(v), xp.reshape(xp.asarray(v.ravel()), v.shape), xp.asarray(v)[...]]
    if 1 in v.shape and v.size:
        out.append(xp.reshape(xp.asarray(v.reshape(tuple(n for n in v.shape if n != 1) or (1,))), v.shape))
    return out


@pytest.mark.parametrize(("name", "dtype"), FAST_CASES, ids=case_id)
def test_broadcast_operators_record_the_functions_nodes(name, dtype):
    fast = getattr(xp.Array, f"__{name}__")
    fname = am._BINARY.get(name) or am._COMPARE[name]
    f = ef.FUNCTIONS[fname]
    rng = np.random.default_rng(0)
    for s1, s2 in PAIRS:
        v1, v2 = value(s1, dtype, rng), value(s2, dtype, rng)
        for i in range(len(_arrays(v1))):
            for j in range(len(_arrays(v2))):
                a, b = _arrays(v1)[i], _arrays(v2)[j]
                got, ref = fast(a, b), f(a, b)
                assert same_nodes(got._node, ref._node), (s1, s2, i, j)
                a, b = _arrays(v1)[i], _arrays(v2)[j]
                rgot = getattr(b, f"__r{name}__")(a) if hasattr(b, f"__r{name}__") else None
                if rgot is not None:  # reflected: a OP b, asked of b
                    assert same_nodes(rgot._node, f(a, b)._node), (s1, s2, i, j, "reflected")
        want = OPS[name](v1, v2)
        got = fast(_arrays(v1)[1], _arrays(v2)[1])
        if np.dtype(dtype).kind in "fc" and name in ("truediv", "pow"):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
        else:
            np.testing.assert_array_equal(np.asarray(got), want)


def test_zero_d_and_mixed_operands_keep_the_general_path():
    a = xp.asarray(np.arange(4.0))
    for b in (xp.asarray(2.0), xp.asarray(np.arange(4, dtype=np.float32)), xp.asarray(np.ones((3, 1)))):
        got, ref = a + b, xp.add(a, b)
        assert same_nodes(got._node, ref._node)
        np.testing.assert_array_equal(np.asarray(got), np.arange(4.0) + np.asarray(b))


def test_shapes_that_do_not_broadcast_raise_as_before():
    a, b = xp.asarray(np.ones((3, 2))), xp.asarray(np.ones((4, 2)))
    for name, f in (("add", xp.add), ("eq", xp.equal), ("truediv", xp.divide)):
        with pytest.raises(ValueError, match="cannot be broadcast") as want:
            f(a, b)
        with pytest.raises(ValueError) as got:
            getattr(a, f"__{name}__")(b)
        assert str(got.value) == str(want.value)
        if name != "eq":  # (reflected: a OP b asked of b, the function's operand order)
            with pytest.raises(ValueError) as got:
                getattr(b, f"__r{name}__")(a)
            assert str(got.value) == str(want.value)
