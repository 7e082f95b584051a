"""A graph the interpreter serves is built into a `HostProgram` only after `NODE_BY_NODE_RUNS` runs
node by node (`_interpret.interpret`: a ski rental on the build's cost), except a timed run of a
graph with a host LAPACK step, which is a built program's (its LAPACK time is clocked apart).
The values are the same bits whichever way a run goes."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _interpret, _tier_policy
from lazyarray._interpret import NODE_BY_NODE_RUNS, HostProgram


@pytest.fixture
def interpreted(engine, monkeypatch):
    """The interpreter serves every run (no compile: the estimate is never reached)."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1e9)
    monkeypatch.setattr(_tier_policy, "learnt_seconds", lambda skey, device: None)
    yield xp.metrics


def _graph(x, w, k):
    y = xp.exp(x * 0.25) - xp.mean(x, axis=0) + x[:, k:k + 1]
    return xp.sum(y @ w, axis=0), xp.max(y, axis=1)


def test_built_only_after_the_node_by_node_runs(interpreted, rng):
    xn, wn = rng.standard_normal((50, 4)), rng.standard_normal((4, 3))
    xn[3, 2], xn[7, 1] = np.nan, -0.0
    firsts = None
    built_at = None
    for run in range(NODE_BY_NODE_RUNS + 3):
        outs = _graph(xp.asarray(xn), xp.asarray(wn), 2)
        got = [np.asarray(o) for o in outs]
        (seen,) = _engine.state.sightings.values()
        program = seen.steps
        assert type(program) is HostProgram
        if program.steps is not None and built_at is None:
            built_at = run
        if firsts is None:
            firsts = got
        for g, f in zip(got, firsts):  # node by node and built: the same bits at every run
            assert g.dtype == f.dtype and g.tobytes() == f.tobytes()
    assert built_at == NODE_BY_NODE_RUNS  # (runs counted from 0: the run after the node-by-node ones)
    assert interpreted.interpreted == NODE_BY_NODE_RUNS + 3 and interpreted.compiles == 0
    want = np.exp(xn * 0.25) - np.mean(xn, axis=0) + xn[:, 2:3]
    np.testing.assert_allclose(firsts[0], np.sum(want @ wn, axis=0), rtol=1e-12)
    np.testing.assert_array_equal(firsts[1], np.max(want, axis=1))


def test_a_timed_run_without_lapack_stays_node_by_node(interpreted, rng):
    xn = rng.standard_normal((40, 3))
    for run in range(2):  # the second run is timed (interpret_first = 2)
        float(xp.sum(xp.exp(xp.asarray(xn)) * 2.0))
    (seen,) = _engine.state.sightings.values()
    assert seen.timed == 1 and seen.steps.steps is None and not seen.steps.clocked
    assert seen.steps.runs == 2


def test_a_timed_run_with_lapack_is_built_and_clocked(interpreted, rng):
    an = rng.standard_normal((6, 6))
    an = an @ an.T + 6 * np.eye(6)
    for run in range(2):
        got = np.asarray(xp.linalg.cholesky(xp.asarray(an)) * 2.0)
    np.testing.assert_allclose(got, np.linalg.cholesky(an) * 2.0, rtol=1e-12)
    (seen,) = [s for s in _engine.state.sightings.values() if s.runs == 2]
    assert seen.timed == 1 and seen.steps.steps is not None and seen.steps.clocked
    assert seen.steps.lapack_seconds >= 0.0
