"""A graph interpreted again reuses the values of its constants and iotas (`_interpret.FIXED_OPS`:
functions of their attributes, which are part of the structural key), kept read-only with its
sighting. The values must be numpy's every run, the outputs the caller gets must be its own
writeable memory (even an output that is a kept constant), and an evaluation that wrote into a
kept value must fail (and the graph be compiled) rather than change it."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _interpret
from lazyarray._engine_state import state
from lazyarray._graph import Plan
from lazyarray._ops import elementwise as ew


def _graph(x):
    """Constants (the 2.0, a literal vector) and an iota (arange) among other ops."""
    n = x.shape[0]
    ramp = xp.arange(n, dtype=xp.float64)
    lit = xp.asarray(np.linspace(-1.0, 1.0, n))
    return xp.sum(x * 2.0 + ramp * lit), ramp + 0.5


def _want(xn):
    n = xn.shape[0]
    ramp = np.arange(n, dtype=np.float64)
    return np.sum(xn * 2.0 + ramp * np.linspace(-1.0, 1.0, n)), ramp + 0.5


def test_kept_values_give_numpys_values_every_run(interpreted, rng):
    for run in range(4):
        xn = rng.standard_normal(40)
        s, r = _graph(xp.asarray(xn))
        xp.evaluate(s, r)
        want_s, want_r = _want(xn)
        assert float(s) == pytest.approx(float(want_s), rel=1e-13)
        np.testing.assert_array_equal(np.asarray(r), want_r)
    assert interpreted.interpreted == 4 and interpreted.compiles == 0
    (seen,) = [s for s in state.sightings.values() if s.runs == 4]
    fixed = [v for v in seen.steps.template if v is not None]  # (_interpret.HostProgram's kept values)
    assert fixed and all(not v.flags.writeable for v in fixed)


def _run(plan, out, fixed):
    """interpret with a kept schedule whose third part is `fixed` (as `_tier_policy.serve` keeps it)."""
    plan.steps = _interpret.schedule(plan, out) + (fixed,)
    return _interpret.interpret(plan.order, plan.leaves, out, plan)


def test_an_output_that_is_a_kept_value_is_the_callers_own_memory(rng):
    ramp = xp.arange(12, dtype=xp.int64)
    out = [ramp._node]
    plan = Plan(out)
    fixed = {}
    first = _run(plan, out, fixed)[0]
    second = _run(plan, out, fixed)[0]
    assert fixed  # the iota's value, kept
    for v in (first, second):
        np.testing.assert_array_equal(v, np.arange(12))
        assert v.flags.owndata and v.flags.writeable
    second[0] = 99  # the caller's copy: the kept value is unchanged
    third = _run(plan, out, fixed)[0]
    np.testing.assert_array_equal(third, np.arange(12))


def test_a_large_constant_is_not_kept():
    n = _interpret.FIXED_MAX_BYTES // 8 + 1
    ramp = xp.arange(n, dtype=xp.float64) + 1.0
    out = [ramp._node]
    plan = Plan(out)
    fixed = {}
    got = _run(plan, out, fixed)[0]
    np.testing.assert_array_equal(got, np.arange(n) + 1.0)
    assert all(v.nbytes <= _interpret.FIXED_MAX_BYTES for v in fixed.values())
    assert not any(v.shape == (n,) for v in fixed.values())


def test_an_evaluation_writing_into_a_kept_value_fails_instead_of_changing_it(interpreted, monkeypatch, rng):
    """(A bug of that kind is caught: the interpreter's error sends the graph to the compiler.)"""
    def negate_in_place(node, x):
        return np.negative(x, out=x)
    monkeypatch.setattr(ew.NEGATE, "evaluate", negate_in_place)
    n = 100  # (more than a small host read's 64 elements: the interpreter tier runs it)
    xn = rng.standard_normal(n)
    results = []
    for _ in range(3):
        y = -xp.arange(n, dtype=xp.float64) + xp.asarray(xn)
        results.append(np.asarray(y))
    for got in results:
        np.testing.assert_array_equal(got, -np.arange(float(n)) + xn)
    assert any("ValueError" in str(e) for e in interpreted.interpreter_errors)  # read-only: refused
    assert interpreted.compiles >= 1  # ... and the graph was compiled instead
