"""The host decompositions' one-copy path and the compile cost of a LAPACK call.

- The operand node's evaluation is a fresh view of a decomposition's input (the kernels' memo
  key; no copy); `lapack_host.decompose` makes the one column-major copy of each matrix (LAPACK's
  layout) and lets the routine work in it, and returns a single matrix's outputs as the wrapper
  gave them (tests/test_linalg_one_copy.py: one copy, private). The bits must be those of the
  kernel called on its own Fortran copy (what the path was before) and of the compiled
  program, and no input may be written.
- `compile_extra`: a decomposition (once, however many of its outputs a graph reads) and a CPU
  triangular solve add `LAPACK_COMPILE_EXTRA` to the compile estimate.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _graph, _tier_policy
from lazyarray import _ops as ops
from lazyarray._ops import lapack_host
from lazyarray._ops import linalg as L
from lazyarray._array_object import Array
from linalg_cases import DECOMPOSITION_CASES, decomposition_input as _input, output_specs as _specs, stacked_reference
from tier_check import DEV, assert_close, assert_same, both, compile_always, leaf  # noqa: F401


def _reference(name, params, x, specs):
    """Each matrix through the kernel on its own Fortran copy, outputs stacked: the path
    `decompose` took before it took the operand's layout as it is."""
    return stacked_reference(name, params, x, specs)


CASES = DECOMPOSITION_CASES


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("name,params,shape", CASES, ids=str)
def test_decompose_of_the_operand_layout_gives_the_per_matrix_bits(name, params, shape, dtype):
    x = _input(name, shape, dtype, seed=3)
    kept = x.copy()
    operand = L._evaluate_operand(None, x)
    assert operand is not x and np.shares_memory(operand, x)  # a fresh object (the memo's key), no copy
    assert np.array_equal(operand, x)
    specs = _specs(name, x, params)
    got = lapack_host.decompose(name, params, operand, specs)
    want = _reference(name, params, x, specs)
    for g, w, (s, d) in zip(got, want, specs):
        assert g.shape == s and g.dtype == d
        assert_same(g, w)
    assert np.array_equal(operand, x) and np.array_equal(x, kept)  # nothing written


@pytest.mark.parametrize("order", ["C", "F"])
def test_decompose_takes_any_layout_and_writes_none(order):
    x = np.array(_input("svd", (40, 6), "float64", seed=5), order=order)
    kept = x.copy()
    specs = _specs("svd", x, (False,))
    got = lapack_host.decompose("svd", (False,), x, specs)
    for g, w in zip(got, _reference("svd", (False,), x, specs)):
        assert_same(g, w)
    assert np.array_equal(x, kept)
    u, s, vt = got  # and a true SVD (numpy's own, independently: to rounding)
    np.testing.assert_allclose((u * s) @ vt, x, rtol=0, atol=1e-12 * np.abs(x).max())
    np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False), rtol=1e-12)


def test_shared_operand_serves_two_kernels():
    """svd and svdvals of one array: whatever the graph shares, each kernel reads the input."""
    a = _input("svd", (50, 8), "float64", seed=7)
    x = xp.asarray(a)
    u, s, vt = xp.linalg.svd(x, full_matrices=False)
    sv = xp.linalg.svdvals(x)
    xp.evaluate(u, s, vt, sv)
    np.testing.assert_allclose(np.asarray(s), np.asarray(sv), rtol=1e-13)  # (jobz S and N: not bit for bit)
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(x), a)


@pytest.mark.usefixtures("compile_always")
@pytest.mark.parametrize("name,params,shape", [("svd", (False,), (200, 20)), ("qr", (False,), (2, 30, 8)),
                                               ("eigh", (), (12, 12))], ids=str)
def test_tiers_agree_on_outputs_fed_on(name, params, shape):
    """A kernel's outputs in the interpreter keep LAPACK's layout when they feed other ops: the
    ops after them give the compiled program's values (bits for elementwise, rounding for a dot)."""
    a = _input(name, shape, "float64", seed=11)
    first = Array._wrap(ops.kernel(name, leaf(a), DEV.platform, *params)[0], DEV)
    got, want = both(first * 2.0 - 1.0)
    assert_same(got, want)
    got, want = both(xp.matrix_transpose(first) @ first)
    assert_close(got, want, rtol=1e-12)


def _order(*arrays):
    return _graph.Plan([a._node for a in arrays]).order


def _extra(*arrays):
    order = _order(*arrays)
    return _tier_policy.compile_seconds(order) - (_tier_policy.COMPILE_FIXED
                                                  + _tier_policy.COMPILE_PER_NODE * len(order))


def test_a_decomposition_adds_its_compile_cost_once():
    x = xp.asarray(_input("svd", (30, 5), "float64", seed=1))
    assert _extra(x + 1.0) == 0.0
    u, s, vt = xp.linalg.svd(x, full_matrices=False)
    one = _extra(s)
    assert one == pytest.approx(L.LAPACK_COMPILE_EXTRA)
    assert _extra(u, s, vt) == pytest.approx(one)  # three outputs, one LAPACK call
    q, r = xp.linalg.qr(x)
    assert _extra(s, r) == pytest.approx(2 * L.LAPACK_COMPILE_EXTRA)


def test_a_solve_counts_its_lu_and_two_triangular_solves():
    a = _input("cholesky", (6, 6), "float64", seed=2)
    y = xp.linalg.solve(xp.asarray(a), xp.asarray(np.ones((6, 2))))
    np.testing.assert_allclose(np.asarray(y), np.linalg.solve(a, np.ones((6, 2))), rtol=1e-12)
    y = xp.linalg.solve(xp.asarray(a), xp.asarray(np.ones((6, 2))))
    assert _extra(y) == pytest.approx(3 * L.LAPACK_COMPILE_EXTRA)
