"""matmul's common case binds dot_general's node at once (`_linear_algebra_functions._product`):
the same node as `ops.dot_general` builds (a pending 2-D transpose folded into the contracted
axis, X^T v as v^T X, a column's reshapes left to the builder), and numpy's values in both
tiers."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _linear_algebra_functions as la
from lazyarray import _ops as ops
from lazyarray._array_object import Array
from graph_compare import same_nodes

pytestmark = pytest.mark.usefixtures("both_tiers")

N, K, M = 6, 4, 3


def _operands(shape, dtype, rng):
    """(name, array, its numpy value) for arrays of `shape` made several ways, all left pending
    (a read would realize them into leaves): a leaf, a pending node, a transposed view (of a
    leaf and of a pending node), a transpose of a transpose, a view's mT."""
    def values(s):
        v = rng.integers(-3, 4, size=s)
        return v.astype(dtype) if np.dtype(dtype).kind != "c" else (v + 1j * rng.integers(-2, 3, size=s)).astype(dtype)
    v = values(shape)
    out = [("leaf", xp.asarray(v)), ("pending", xp.asarray(v) * 1)]
    if len(shape) == 2:
        t = np.ascontiguousarray(v.T)
        out += [("T of leaf", xp.asarray(t).T), ("T of pending", (xp.asarray(t) + 0).T),
                ("T.T", (xp.asarray(v) + 0).T.T), ("mT", xp.matrix_transpose(xp.asarray(t) - 0))]
    return [(name, a, v) for name, a in out]


SHAPES = [((N, K), (K, M)), ((N, K), (K,)), ((K,), (K, M)), ((K,), (K,)), ((K, N), (N, 1)),
          ((N, K), (K, 1)), ((1, K), (K, N)), ((K, N), (N, M))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64])
@pytest.mark.parametrize("shapes", SHAPES)
def test_matmul_records_the_builders_node_and_numpy_values(dtype, shapes):
    rng = np.random.default_rng(0)
    for first in (True, False):  # attributes computed at this call, then kept
        if first:
            la._products.clear()
        for (na, a, a_np), (nb, b, b_np) in itertools.product(_operands(shapes[0], dtype, rng),
                                                              _operands(shapes[1], dtype, rng)):
            want = a_np @ b_np
            ref = Array._wrap(ops.dot_general(a._node, b._node, (), (), (len(a.shape) - 1,), (0,)), a._device)
            got = a @ b
            assert got.shape == want.shape and got.dtype == xp.asarray(want).dtype
            assert xp.graph_text(got) == xp.graph_text(ref), (na, nb)
            assert same_nodes(got._node, ref._node), (na, nb)
            np.testing.assert_array_equal(np.asarray(got), want)  # (small integers: exact products)


def test_transpose_folds_and_vector_swap_are_the_builders():
    X = xp.asarray(np.arange(12.0).reshape(4, 3)) + 0.0
    r = xp.asarray(np.arange(4.0)) + 0.0
    g = X.T @ r  # X's leading axis against a vector: v^T X, X read in place
    assert g._node.args == (r._node, X._node)
    C = xp.asarray(np.ones((2, 3))) * 2.0
    d = X @ C.T
    assert d._node.args == (X._node, C._node) and d._node.attrs.rhs_contract == (1,)


def test_matmul_errors_unchanged():
    a, b = xp.asarray(np.ones((3, 4))), xp.asarray(np.ones((3, 4)))
    with pytest.raises(ValueError):
        a @ b
    with pytest.raises(ValueError):
        a.T @ xp.asarray(np.ones(4))
    with pytest.raises(ValueError):
        xp.matmul(xp.asarray(1.0), a)
    with pytest.raises(TypeError):
        xp.matmul(a, np.ones((4, 3)).tolist())


def test_T_binds_the_builders_transpose():
    for a in (xp.asarray(np.arange(6.0).reshape(2, 3)), xp.asarray(np.arange(6, dtype=np.int32).reshape(3, 2)) + 1,
              (xp.asarray(np.arange(12.0).reshape(4, 3)) * 2.0)[1:, :]):
        node = a._node
        got = a.T
        ref = ops.transpose(node, (1, 0))
        assert same_nodes(got._node, ref) and got.shape == ref.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(a).T)
