"""A `HostProgram`'s step functions are shared by every program with a node of the same structure
(`_interpret.step_for`, SCIPY, issue 11 target 1's second calls): a build takes a step made for an
equal structure in another graph instead of making it again.

Sharing is only correct if the step is a function of everything its key holds and of nothing
else: the evaluation, the attributes (exactly: a constant's value is bytes), the shape and dtype,
and each operand's shape and dtype. These tests pin the sharing, that structures differing in any
one of those get their own step, and that the values stay numpy's and the node-by-node
interpreter's bit for bit.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _interpret
from lazyarray._graph import Plan
from lazyarray._interpret import HostProgram
from lazyarray import _dtypes as dt
from lazyarray._ops import elementwise as ew
from lazyarray._ops import shape as shape_ops


def _built(outs):
    """A program built for the graph of `outs` (nodes) and its values, with the node-by-node
    interpreter's values beside."""
    plan = Plan(outs)
    plain = _interpret.interpret(plan.order, plan.leaves, outs, plan)
    program = HostProgram(plan, outs)
    got = program.run(plan, outs)
    for g, p in zip(got, plain):
        assert g.dtype == p.dtype and g.shape == p.shape and g.tobytes() == p.tobytes()
    return program, got


def _steps_by_op(program):
    return {(step[5].name, step[4]): step[1] for step in program.steps}


def test_equal_structures_in_two_graphs_share_one_step(rng):
    _interpret._STEPS.clear()
    an, bn, cn = rng.standard_normal(30), rng.standard_normal(30), rng.standard_normal((4, 30))
    a, b, c = xp.asarray(an), xp.asarray(bn), xp.asarray(cn)
    first, (v1,) = _built([xp.sum(xp.exp(a) * b + c, axis=0)._node])
    second, (v2,) = _built([(xp.exp(b) * a - 1.0)._node])
    np.testing.assert_allclose(v1, np.sum(np.exp(an) * bn + cn, axis=0), rtol=1e-13)
    np.testing.assert_allclose(v2, np.exp(bn) * an - 1.0, rtol=1e-13)
    s1, s2 = _steps_by_op(first), _steps_by_op(second)
    assert s1[("exp", (30,))] is s2[("exp", (30,))]
    assert s1[("multiply", (30,))] is s2[("multiply", (30,))]


def test_ops_sharing_an_evaluation_never_share_a_step():
    """The key holds the op too: two OpDefs whose evaluations are one function get steps of
    their own (an evaluation may read its node's op)."""
    from lazyarray._interpret import step_for
    _interpret._STEPS.clear()
    key = lambda op: (op, ew.ADD.evaluate, (), (3,), dt.float64, (3,), dt.float64, (3,), dt.float64)
    assert step_for(ew.ADD, key(ew.ADD)) is step_for(ew.ADD, key(ew.ADD))
    assert step_for(ew.SUBTRACT, key(ew.SUBTRACT)) is not step_for(ew.ADD, key(ew.ADD))


def test_structures_differing_in_one_part_get_their_own_steps(rng):
    """Shape, dtype, attributes (a reduction's axes, a constant's value, +0.0 against -0.0) and an
    operand's shape each make a step of their own; every value is numpy's."""
    _interpret._STEPS.clear()
    xn = rng.standard_normal((5, 6))
    x = xp.asarray(xn)
    cases = [
        (xp.sum(x, axis=0), np.sum(xn, axis=0)),
        (xp.sum(x, axis=1), np.sum(xn, axis=1)),
        (xp.sum(xp.astype(x, xp.float32), axis=1), np.sum(xn.astype(np.float32), axis=1)),
        (x + xp.asarray(np.full((5, 6), -0.0)) * 0.0, xn + np.full((5, 6), -0.0) * 0.0),
        (xp.exp(x[:, :3]), np.exp(xn[:, :3])),
        (xp.exp(x), np.exp(xn)),
        (x * xp.asarray(np.arange(6.0)), xn * np.arange(6.0)),
        (x * xp.asarray(np.arange(6.0) + 1.0), xn * (np.arange(6.0) + 1.0)),
    ]
    for got, want in cases:
        for _ in range(2):
            (value,) = _built([got._node])[1]
            assert value.dtype == want.dtype and value.shape == want.shape
            np.testing.assert_allclose(value, want, rtol=1e-6 if want.dtype == np.float32 else 1e-13)
            assert np.array_equal(np.signbit(value), np.signbit(want))
    # the two reductions of different axes: different steps
    p0 = _built([cases[0][0]._node])[0]
    p1 = _built([cases[1][0]._node])[0]
    r0 = [s[1] for s in p0.steps if s[5].name == "reduce"]
    r1 = [s[1] for s in p1.steps if s[5].name == "reduce"]
    assert r0 and r1 and not set(map(id, r0)) & set(map(id, r1))


def test_constants_of_different_values_never_share(rng):
    """Constants larger than the kept-value bound run as steps: equal shapes and dtypes, different
    bytes (+0.0 against -0.0 among them) make different steps, each giving its own value."""
    n = _interpret.FIXED_MAX_BYTES // 8 + 1
    _interpret._STEPS.clear()
    base = np.linspace(-1.0, 1.0, n)
    base[0] = 0.0
    x = xp.asarray(rng.standard_normal(n))
    values = []
    for sign in (1.0, -1.0):
        const = shape_ops.constant(sign * base, dt.float64, (n,))
        assert const.op is shape_ops.CONSTANT
        program, (v,) = _built([ew.MULTIPLY(const, x._node)])
        assert any(step[5] is shape_ops.CONSTANT for step in program.steps)
        values.append(v)
        want = (sign * base) * np.asarray(x)
        assert v.tobytes() == want.tobytes()
    assert np.signbit(values[0][0]) != np.signbit(values[1][0])  # (+0.0 and -0.0 times one x)
    assert not np.array_equal(values[0], values[1])


def test_a_replaced_evaluation_never_meets_a_kept_step(monkeypatch, rng):
    """The key holds the evaluation: an OpDef given another evaluation (a test's, a fix's) gets
    steps of its own, not those made from the old one."""
    _interpret._STEPS.clear()
    xn = rng.standard_normal(8)
    x = xp.asarray(xn)
    (v,) = _built([xp.exp(x)._node])[1]
    np.testing.assert_array_equal(v, np.exp(xn))
    monkeypatch.setattr(ew.EXP, "evaluate", lambda node, a: np.full(a.shape, 7.0))
    plan = Plan([xp.exp(x)._node])
    program = HostProgram(plan, [plan.order[-1]])
    (v,) = program.run(plan, [plan.order[-1]])
    np.testing.assert_array_equal(v, np.full(8, 7.0))


def test_the_table_is_emptied_when_full(monkeypatch, rng):
    monkeypatch.setattr(_interpret, "STEPS_KEPT", 3)
    _interpret._STEPS.clear()
    for n in range(2, 9):
        xn = rng.standard_normal(n)
        (v,) = _built([(xp.exp(xp.asarray(xn)) + 1.0)._node])[1]
        np.testing.assert_allclose(v, np.exp(xn) + 1.0, rtol=1e-15)
        assert len(_interpret._STEPS) <= 3


@pytest.mark.parametrize("frees", [True, False])
def test_shared_steps_in_the_interpreter_tier_every_run(interpreted, rng, frees):
    """Through the tier policy (built at the second run, shared from then on): numpy's values."""
    for run in range(4):
        an, bn = rng.standard_normal((7, 3)), rng.standard_normal(3)
        a, b = xp.asarray(an), xp.asarray(bn)
        got = xp.mean(a * b - b, axis=0) if frees else xp.max(a / (b * b + 1.0), axis=1)
        want = np.mean(an * bn - bn, axis=0) if frees else np.max(an / (bn * bn + 1.0), axis=1)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)
    assert interpreted.compiles == 0


def test_a_programs_steps_are_tuples_the_collector_stops_tracking(rng):
    """No tracked tuple per step: each step's hot fields are a tuple of atoms (position, operand
    positions, numpy dtype, shape, freed positions, LAPACK flag), untracked once the collector
    has visited it and its items (a tuple of tuples waits a collection for its items); the
    functions, ops and dtypes are one tuple each. Iterating still gives each step as a tuple,
    in order."""
    import gc
    xn = rng.standard_normal((6, 5))
    x = xp.asarray(xn)
    y = x
    for k in range(12):
        y = xp.tanh(y) * 0.5 + float(k) * 0.01
    program, (v,) = _built([xp.sum(y, axis=1)._node])
    want = xn
    for k in range(12):
        want = np.tanh(want) * 0.5 + float(k) * 0.01
    np.testing.assert_allclose(v, want.sum(axis=1), rtol=1e-13)
    steps = program.steps
    assert len(steps) >= 36 and len(steps.meta) == len(steps.fns) == len(steps.ops) == len(steps)
    assert all(type(step) is tuple and len(step) == 9 for step in steps)
    assert [step[0] for step in steps] == sorted(step[0] for step in steps)
    for _ in range(3):  # (operand tuples, then each step's tuple, then the tuple of them)
        gc.collect()
    assert not any(gc.is_tracked(m) for m in steps.meta) and not gc.is_tracked(steps.meta)


def test_a_step_value_of_another_type_is_converted_and_a_wrong_shape_raises(rng):
    """A reduction to 0-D gives a numpy scalar: converted to the node's dtype, as node by node.
    An evaluation that disagrees with its node's shape is a bug: AssertionError naming the op."""
    xn = rng.standard_normal(9)
    program, (v,) = _built([xp.sum(xp.asarray(xn))._node])
    assert type(v) is np.ndarray and v.shape == () and v == np.sum(xn)
    steps = _interpret.Steps((np.exp,), ((1, (0,), np.dtype(np.float64), (3,), (), False),), (ew.EXP,),
                             (dt.float64,))
    with pytest.raises(AssertionError, match="exp"):
        steps.node_value(np.zeros(4), 1)
