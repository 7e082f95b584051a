"""A budget cut at the end of a loop's iteration (logistic regression's 10 nodes a step against a
budget of 1000) holds that iteration's values live (`p`, the gradient): its last chunk has other
outputs than the others. It is computed by the cut, in the REPEAT's program (`_segment._take`,
`_split`), so nothing stays pending and the read after the loop runs nothing; the values live at
the cut (returned here) are computed too. Values against numpy; the programs do not grow with the
iteration count."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _graph
from lazyarray._ops.loop import REPEAT

pytestmark = pytest.mark.usefixtures("both_tiers")


def logreg_with_p(ns, X, y, w, steps, lr=0.5):
    """The benchmark's loop, also returning the last iteration's probabilities."""
    n = X.shape[0]
    for _ in range(steps):
        p = 1.0 / (1.0 + ns.exp(-(X @ w)))
        g = X.T @ (p - y) / n
        w = w - lr * g
    return w, p, g


@pytest.fixture
def runs(monkeypatch):
    """The plans run, as the ops of their computed nodes."""
    seen, real = [], _engine._run

    def recording(plan, outputs, device, site):
        seen.append([(node.op, node.attrs) for node in plan.order])
        return real(plan, outputs, device, site)
    monkeypatch.setattr(_engine, "_run", recording)
    return seen


def _data(dtype):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((8200, 8)).astype(dtype)  # (over `_segment.HOIST_MIN_ELEMENTS`: X.T hoisted)
    y = (rng.random(8200) > 0.5).astype(dtype)
    return X, y, np.zeros(8, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_read_after_a_cut_at_the_loops_end_runs_nothing(engine, monkeypatch, runs, dtype):
    monkeypatch.setattr(_config, "node_budget", 1000)
    X, y, w = _data(dtype)
    args = [xp.asarray(a) for a in (X, y, w)]
    want = logreg_with_p(np, X, y, w, 100)
    tol = dict(rtol=2e-4, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    for call in range(4):
        runs.clear()
        out = logreg_with_p(xp, *args, 100)
        at_cut = len(runs)
        assert at_cut >= 1 and _graph.pending.nodes_since_sync == 0  # (the cut left nothing)
        got = [np.asarray(a).copy() for a in out]
        assert len(runs) == at_cut  # (the reads computed nothing)
        for g, v in zip(got, want):
            np.testing.assert_allclose(g, v, **tol)
        # one program: the REPEAT over 99 iterations, then the 100th with its live values, its
        # dots reading the transpose hoisted before the loop (a replay as the first call)
        loops = [ops for ops in runs if REPEAT in [op for op, _ in ops]]
        assert len(loops) == 1 and loops[0][-1][0] is not REPEAT
        if not call:
            first, program = got, loops[0]
        assert loops[0] == program
    assert all(a.tobytes() == b.tobytes() for a, b in zip(first, got))


def test_programs_do_not_grow_with_the_iterations(fresh, monkeypatch):
    monkeypatch.setattr(_config, "node_budget", 1000)
    X, y, w = _data("float64")
    args = [xp.asarray(a) for a in (X, y, w)]
    counts = []
    for steps in (100, 250, 300, 1000, 100, 420):
        got = [np.asarray(a) for a in logreg_with_p(xp, *args, steps)]
        for g, v in zip(got, logreg_with_p(np, X, y, w, steps)):
            np.testing.assert_allclose(g, v, rtol=1e-10, atol=1e-12)
        counts.append(fresh.compiles)
    assert counts[-1] == counts[1]  # (at 420 steps the base of this change compiled one more)
