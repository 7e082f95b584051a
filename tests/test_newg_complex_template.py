"""A complex formula's template (`_complex_math._Template`) makes its nodes at each result shape
(`at`) from what it computed once: which nodes take the shape, and the constants' values (0-D,
the same at every shape, shared read-only). Each shape's nodes and values equal a template made
afresh for that shape alone, and the values equal the formula's recorded nodes' bit for bit."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _complex_math as cm
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._graph import Node, pending
from tier_check import both, compile_always, specials  # noqa: F401

NAMES = ["exp", "sqrt", "log", "log1p", "abs", "tanh"]
SHAPES = [(5,), (1,), (3, 4), ()]


def _fresh(name, d):
    """A template of `name` made as `_template` makes one, kept nowhere (the module's are left
    as they are: the interpreter's step caches hold theirs)."""
    leaf = Node(None, (), (), (), d)
    traced = pending.nodes_since_sync  # (restored: the count would move a later test's budget cut)
    cm._per_call.nodes = {}
    try:
        out = cm._FORMULAS[name](leaf)
    finally:
        cm._per_call.nodes = None
        pending.nodes_since_sync = traced
    return cm._walk(name, (), leaf, out)


def _structure(steps):
    return [(m.op, m.attrs, m.shape, m.dtype, pos, None if kept is None else kept.tobytes())
            for m, pos, kept in steps]


@pytest.mark.parametrize("d", [dt.complex64, dt.complex128], ids=lambda d: d.name)
@pytest.mark.parametrize("name", NAMES)
def test_each_shape_equals_a_template_made_for_it_alone(name, d):
    shared = _fresh(name, d)
    assert shared is not None
    for shape in SHAPES:
        alone = _fresh(name, d).at(shape)
        steps = shared.at(shape)
        assert _structure(steps) == _structure(alone)
        for (m, pos, kept), (m2, _, _) in zip(steps, alone):
            assert [a is None for a in m.args] == [a is None for a in m2.args]
            if kept is not None:
                assert not kept.flags.writeable
    consts = [kept for m, pos, kept in shared.at(SHAPES[0]) if kept is not None]
    again = [kept for m, pos, kept in shared.at(SHAPES[1]) if kept is not None]
    assert consts and all(a is b for a, b in zip(consts, again))  # shared, read-only


def test_a_replaced_constant_evaluation_is_asked_again(monkeypatch):
    t = _fresh("sqrt", dt.complex128)
    before = [kept for _, _, kept in t.at((2,)) if kept is not None]
    real = ops.CONSTANT.evaluate
    calls = []
    monkeypatch.setattr(ops.CONSTANT, "evaluate", lambda node: calls.append(1) or real(node))
    after = [kept for _, _, kept in t.at((6,)) if kept is not None]
    assert len(calls) == len(before)
    assert [a.tobytes() for a in after] == [b.tobytes() for b in before]


@pytest.mark.usefixtures("compile_always")
@pytest.mark.parametrize("name", NAMES)
def test_values_at_several_shapes_equal_the_recorded_nodes(name, monkeypatch):
    rng = np.random.default_rng(3)
    d = dt.complex128
    for n in (7, 2, 19):
        z = np.concatenate([specials(d), rng.standard_normal(n) + 1j * rng.standard_normal(n)]).astype(d.np)
        Z = xp.asarray(z)
        new = getattr(xp, name)(Z)
        monkeypatch.setattr(cm, "FORMULA_NODE_MAX_ELEMENTS", -1)
        old = getattr(xp, name)(Z)
        monkeypatch.undo()
        (new_i, new_c), (old_i, old_c) = both(new), both(old)
        np.testing.assert_array_equal(_bits(new_i), _bits(old_i))
        np.testing.assert_array_equal(_bits(new_c), _bits(old_c))


def _bits(v):
    """Values as raw bits, every NaN as one pattern (NaN payloads are not compared)."""
    v = np.asarray(v)
    out = []
    for p in (v.real, v.imag):
        p = np.array(p)
        p[np.isnan(p)] = np.nan
        out.append(p.view(np.uint8))
    return np.concatenate(out)
