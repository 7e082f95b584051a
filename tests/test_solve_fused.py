"""linalg.solve and inv on the CPU as one `lu_solve` node (`_ops.linalg.LU_SOLVE`).

The node stands for the composition `_linalg_ops.lu_solve` records (the LU kernel, the row gather,
two triangular solves): its lowering emits those parts by their own lowerings and its host step
calls the same getrf and trsm on the same values. So both tiers must give the bits of the separate
nodes, each tier its own, and agree with each other; checked mode keeps the separate nodes (the
factors' pivots are read)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _blas_threads, _config, _tier_policy
from lazyarray import _linalg_ops as la
from lazyarray._array_object import Array
from lazyarray._ops import linalg as L
from tier_check import DEV, assert_same, both, compile_always  # noqa: F401

DTYPES = ["float32", "float64", "complex64", "complex128"]
# (a's shape, b's shape): one matrix, a vector's column, a wider b, a batch
SHAPES = [((8, 8), (8, 8)), ((5, 5), (5, 1)), ((3, 3), (3, 7)), ((2, 3, 4, 4), (2, 3, 4, 2)), ((17, 17), (17, 3))]


def _data(shape, dtype, seed, kind="random"):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    if kind == "singular":
        x[..., -1, :] = x[..., 0, :]
    elif kind == "zero_row":  # an exact zero pivot: inf and NaN in the result
        x[..., -1, :] = 0
    elif kind == "tril":
        x = np.tril(x) + 4 * np.eye(shape[-1])
    return x.astype(dtype)


def _separate(a, b):
    """The composition as separate nodes (what solve recorded before)."""
    lu, _, perm = la.kernel("lu", a._node, "cpu")
    return Array._wrap(la.lu_solve(lu, perm, b._node), DEV)


@pytest.mark.parametrize("kind", ["random", "tril", "singular", "zero_row"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ashape,bshape", SHAPES, ids=str)
def test_one_node_gives_the_separate_nodes_bits_in_both_tiers(ashape, bshape, dtype, kind, compile_always):
    A, B = _data(ashape, dtype, 1, kind), _data(bshape, dtype, 2)
    a, b = xp.asarray(A), xp.asarray(B)
    fused = Array._wrap(L.lu_solve(a._node, b._node, "cpu"), DEV)
    assert fused._node.op is L.LU_SOLVE
    host, compiled = both(fused)
    old_host, old_compiled = both(_separate(a, b))
    assert_same(host, compiled)
    assert_same(host, old_host)
    assert_same(compiled, old_compiled)
    np.testing.assert_array_equal(np.asarray(a), A)  # inputs untouched
    np.testing.assert_array_equal(np.asarray(b), B)
    if kind in ("random", "tril"):
        tol = 1e-3 if dtype in ("float32", "complex64") else 1e-10
        np.testing.assert_allclose(host, np.linalg.solve(A, B), rtol=tol, atol=tol)


@pytest.mark.parametrize("tier", ["interpreted", "compiled"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_namespace_solve_and_inv_record_one_node(tier, dtype, monkeypatch):
    monkeypatch.setattr(_config, "interpret_first", 0 if tier == "compiled" else 2)
    monkeypatch.setattr(_config, "checks", False)
    A, B, v = _data((6, 6), dtype, 3), _data((6, 4), dtype, 4), _data((6,), dtype, 5)
    a, b = xp.asarray(A), xp.asarray(B)
    x = xp.linalg.solve(a, b)
    assert x._node.op is L.LU_SOLVE
    want = np.asarray(_separate(a, b))
    assert_same(np.asarray(x), want)
    y = xp.linalg.solve(a, xp.asarray(v))
    assert y.shape == (6,)
    assert_same(np.asarray(y), np.asarray(_separate(a, xp.reshape(xp.asarray(v), (6, 1))))[:, 0])
    inv = xp.linalg.inv(a)
    assert inv._node.op is L.LU_SOLVE
    assert_same(np.asarray(inv), np.asarray(_separate(a, xp.eye(6, dtype=a.dtype))))
    tol = 1e-3 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(A, B), rtol=tol, atol=tol)
    np.testing.assert_allclose(np.asarray(inv), np.linalg.inv(A), rtol=tol, atol=tol)


def test_a_broadcast_batch_and_empty_operands_keep_the_separate_nodes(monkeypatch):
    monkeypatch.setattr(_config, "checks", False)
    A, B = _data((4, 4), "float64", 6), _data((3, 4, 2), "float64", 7)
    x = xp.linalg.solve(xp.asarray(A), xp.asarray(B))  # a's factors broadcast to b's batch
    assert x._node.op is not L.LU_SOLVE
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(A, B), rtol=1e-10)
    e = xp.linalg.solve(xp.asarray(A), xp.asarray(np.zeros((4, 0))))
    assert e.shape == (4, 0) and e._node.op is not L.LU_SOLVE


def test_checked_mode_keeps_the_factors(monkeypatch):
    monkeypatch.setattr(_config, "checks", True)
    A = _data((4, 4), "float64", 8, "zero_row")
    with pytest.raises(np.linalg.LinAlgError):
        np.asarray(xp.linalg.solve(xp.asarray(A), xp.asarray(np.ones((4, 1)))))
    with pytest.raises(np.linalg.LinAlgError):
        np.asarray(xp.linalg.inv(xp.asarray(A)))


@pytest.mark.parametrize("ashape,bshape", SHAPES + [((40, 40), (40, 2))], ids=str)
def test_threads_and_compile_estimate_as_the_separate_nodes(ashape, bshape):
    a, b = xp.asarray(_data(ashape, "float64", 9)), xp.asarray(_data(bshape, "float64", 10))
    node = L.lu_solve(a._node, b._node, "cpu")
    sep = _separate(a, b)._node
    from lazyarray._graph import computed_nodes
    parts = [n for n in computed_nodes([sep]) if n.op is not None and n.op.name in _blas_threads._KERNEL_OPS]
    assert "lu_solve" in _blas_threads._KERNEL_OPS
    assert _blas_threads.node_work(node) == max(_blas_threads.node_work(n) for n in parts)
    assert _blas_threads.is_tiny(*(x.shape for x in node.args)) == all(
        _blas_threads.is_tiny(*(x.shape for x in n.args)) for n in parts)
    assert L._covers_lu_solve(node) == all(L._covers_kernel(n) for n in parts)
    assert _tier_policy.compile_seconds([node]) == pytest.approx(
        _tier_policy.compile_seconds(computed_nodes([sep])), abs=1e-9)
