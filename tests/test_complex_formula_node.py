"""Complex functions on small arrays record ONE node (`complex.formula`, _complex_math) where
their formulas were tens to hundreds of nodes (sqrt ~40, log1p ~90: SciPy's butter_sos and
complex logsumexp were 236 and 273 nodes a call). The node's interpreter rule evaluates the
formula's own nodes (a template recorded once per function and dtype) and its lowering emits
their StableHLO, so in both tiers it computes what the nodes recorded one by one compute: bit for
bit (signs of zero, NaN classes), special values included. Arrays above
FORMULA_NODE_MAX_ELEMENTS keep the recorded nodes (the tier policy weighs their work)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _complex_math as cm
from lazyarray import _dtypes as dt
from lazyarray._graph import toposort
from tier_check import both, compile_always, specials  # noqa: F401

pytestmark = pytest.mark.usefixtures("compile_always")

INTERPRETED = ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
               "sinh", "cosh", "tanh", "atan", "atanh", "abs"]
COMPILED_ONLY = ["acos", "asin", "acosh", "asinh"]  # no interpreter rule for their kernels (README)
COMPLEX = [dt.complex64, dt.complex128]


def _inputs(d):
    rng = np.random.default_rng(11)
    z = rng.standard_normal(300) * 10.0 ** rng.integers(-3, 4, 300) + 1j * rng.standard_normal(300)
    return np.concatenate([specials(d), z.astype(d.np)])


def _bits(v):
    """Values as raw bits, every NaN as one pattern (NaN payloads are not compared)."""
    parts = [v.real, v.imag] if v.dtype.kind == "c" else [v]
    out = []
    for p in parts:
        p = np.array(p)
        p[np.isnan(p)] = np.nan
        out.append(p.view(np.uint8))
    return np.concatenate(out)


def _old_and_new(fn, z, monkeypatch):
    Z = xp.asarray(z)
    new = getattr(xp, fn)(Z)
    monkeypatch.setattr(cm, "FORMULA_NODE_MAX_ELEMENTS", -1)
    old = getattr(xp, fn)(Z)
    monkeypatch.undo()
    return new, old


@pytest.mark.parametrize("d", COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("fn", INTERPRETED)
def test_one_node_equals_the_recorded_nodes_in_both_tiers(fn, d, monkeypatch):
    new, old = _old_and_new(fn, _inputs(d), monkeypatch)
    assert [n.op.name for n in toposort([new._node])[0]] == ["complex.formula"]
    assert len(toposort([old._node])[0]) > 5
    (new_i, new_c), (old_i, old_c) = both(new), both(old)
    np.testing.assert_array_equal(_bits(new_i), _bits(old_i))
    np.testing.assert_array_equal(_bits(new_c), _bits(old_c))


@pytest.mark.parametrize("d", COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("fn", COMPILED_ONLY)
def test_compiled_only_functions_stay_compiled_and_equal(fn, d, monkeypatch):
    new, old = _old_and_new(fn, _inputs(d), monkeypatch)
    assert not new._node.op.interpretable(new._node)
    np.testing.assert_array_equal(_bits(np.asarray(new)), _bits(np.asarray(old)))


def test_values_against_numpy_on_finite_inputs():
    z = np.array([1 + 2j, -0.5 - 0.25j, 3 - 4j, 0.1 + 0.9j])
    for fn, want in (("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("sin", np.sin), ("tanh", np.tanh)):
        for got in both(getattr(xp, fn)(xp.asarray(z))):
            np.testing.assert_allclose(got, want(z), rtol=1e-14)


def test_shapes_scalars_and_large_arrays_keep_their_nodes(monkeypatch):
    z = np.array([[1 + 2j, -3j], [0.5 + 0j, -1 - 1j]])
    r = xp.sqrt(xp.asarray(z))
    assert r.shape == (2, 2) and r.dtype == xp.complex128
    for got in both(r):  # (the tiers may differ in the last bit: README)
        np.testing.assert_allclose(got, np.sqrt(z), rtol=1e-15)
    s = xp.exp(xp.asarray(1 + 1j))  # 0-D
    np.testing.assert_allclose(both(s)[0], np.exp(1 + 1j), rtol=1e-15)
    big = xp.sqrt(xp.asarray(np.full(cm.FORMULA_NODE_MAX_ELEMENTS + 1, 1 + 1j)))
    assert "complex.formula" not in {n.op.name for n in toposort([big._node])[0]}


def test_complex_graphs_of_scipy_calls_shrink():
    z = xp.asarray(np.array([0.3 + 0.4j, -1.5 + 0.2j]))
    assert len(toposort([(xp.log1p(z) + xp.log(z))._node])[0]) == 3
    assert len(toposort([xp.abs(xp.sqrt(z * z - 1.0))._node])[0]) <= 5


def test_templates_hold_only_elementwise_nodes_over_their_leaf():
    from lazyarray import _ops as ops
    from lazyarray._graph import Node
    leaf = Node(None, (), (), (), dt.complex128)
    re = ops.REAL(leaf)
    assert cm._walk("t", (), leaf, ops.ADD(re, re)) is not None
    other = Node(None, (), (), (), dt.float64)
    assert cm._walk("t", (), leaf, ops.ADD(re, other)) is None          # another leaf
    assert cm._walk("t", (), leaf, ops.broadcast_to(re, (2,))) is None  # a shaped node


def test_a_loop_of_complex_functions_is_split_one_step_a_chunk(fresh):
    """`_segment` counts a complex.formula node as its template's nodes (`nodes_in`): a loop of
    6 recorded nodes a step (2 formulas) is chunked one step at a time, as its ~130 nodes were,
    not 6 steps a chunk (XLA's CPU compile of chained formulas grows much faster than their
    length: six steps ~5 s, one ~0.15 s)."""
    from lazyarray._engine_state import state
    z0 = np.array([0.3 + 0.4j, -1.5 + 0.2j, 2j])
    z, zn = xp.asarray(z0), z0.copy()
    steps = 120
    for _ in range(steps):
        z = xp.sqrt(z * 0.5 + 1j) + xp.exp(z * 1e-3)
        zn = np.sqrt(zn * 0.5 + 1j) + np.exp(zn * 1e-3)
    np.testing.assert_allclose(np.asarray(z), zn, rtol=1e-13)
    per_step = 6  # multiply, add, sqrt, multiply, exp, add
    assert state.last_chunk is not None and len(state.last_chunk) == per_step
    assert fresh.compiles <= 2
