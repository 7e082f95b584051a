"""Hot loops (issue 11 target 5): an unread loop's chunks run as ONE program per sync (REPEAT:
a while loop over one chunk's graph, the trip count a parameter), whatever the iteration count,
and a large matrix the loop contracts along its leading axis (`X.T @ r`) is transposed once,
before the loop, not read strided in every step. Counted by programs, compiles and the ops of the
programs run; values compared with numpy."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _segment
from lazyarray._ops.dot import DOT_GENERAL
from lazyarray._ops.loop import REPEAT, STACK
from lazyarray._ops.shape import TRANSPOSE
from loop_workloads import logreg, kmeans


def _logistic(rng, n, d):
    X = rng.standard_normal((n, d))
    return X, (X @ rng.standard_normal(d) > 0).astype(np.float64), np.zeros(d)


@pytest.fixture
def plans(monkeypatch):
    """Every plan the engine runs: the (op, attributes) of its computed nodes, taken before it
    runs (a computed node forgets its op once realized)."""
    seen, real = [], _engine._run

    def recording(plan, outputs, device, site):
        seen.append([(node.op, node.attrs) for node in plan.order])
        return real(plan, outputs, device, site)

    monkeypatch.setattr(_engine, "_run", recording)
    return seen


def _ops_run(plans, op):
    """Nodes of `op` computed by the plans run, REPEAT bodies counted once per program."""
    count = 0
    for order in plans:
        for node_op, attrs in order:
            count += node_op is op
            if node_op is REPEAT:
                count += sum(t.op is op for t in attrs.body.nodes)
    return count


@pytest.mark.parametrize("budget", [10 ** 6, 1000])
def test_compile_count_does_not_grow_with_the_iterations(fresh, rng, monkeypatch, budget):
    """10 to 400 steps, unread (one read at the end) or cut by the node budget: one compiled
    program, and every segmented sync runs exactly one program."""
    monkeypatch.setattr(_config, "node_budget", budget)
    X, y, w = _logistic(rng, 300, 5)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    for steps in (10, 40, 400):
        out = logreg(xp, Xl, yl, wl, steps)
        np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, steps), rtol=1e-11)
    assert fresh.compiles == 1
    assert fresh.chunks_run == fresh.segmented_syncs >= 3


def test_kmeans_one_program_for_its_iterations(fresh, rng):
    """k-means: the prefix (norms, ids) and the iterations (one REPEAT) are the only programs,
    for 10 and for 20 iterations; the centroids are numpy's."""
    centres = rng.normal(0.0, 6.0, (4, 3))
    X = centres[rng.integers(0, 4, 500)] + rng.normal(size=(500, 3))
    C = X[:4].copy()
    Xl, Cl = xp.asarray(X), xp.asarray(C)
    for iters in (10, 20):
        out = kmeans(xp, Xl, Cl, iters)
        np.testing.assert_allclose(np.asarray(out), kmeans(np, X, C, iters), rtol=1e-12)
    assert fresh.compiles == 2
    assert fresh.segmented_syncs == 2


def test_transpose_of_an_invariant_matrix_is_hoisted(fresh, rng, plans, monkeypatch):
    """X.T @ r in a loop over a large X: transpose(X) is computed once for the loop (and kept for
    its next run), the steps' dots read it along its rows; X's own dot is unchanged."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _logistic(rng, 2000, 40)  # 80000 elements >= HOIST_MIN_ELEMENTS
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    out = logreg(xp, Xl, yl, wl, 30)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 30), rtol=1e-11)
    assert _ops_run(plans, TRANSPOSE) == 1
    body = next(attrs for order in plans for node_op, attrs in order if node_op is REPEAT).body
    dots = [t for t in body.nodes if t.op is DOT_GENERAL]
    reads_transposed = [t for t in dots if any(a.shape == (40, 2000) for a in t.args)]
    assert len(dots) == 2 and len(reads_transposed) == 1
    t = reads_transposed[0]  # (40, 2000) . (2000,) along the rows, as jax.jit's X.T @ r
    assert t.args[0].shape == (40, 2000) and t.attrs.lhs_contract == (1,) and t.attrs.rhs_contract == (0,)
    plans.clear()
    out = logreg(xp, Xl, yl, wl, 30)  # the copy made for the first run serves the second
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 30), rtol=1e-11)
    assert _ops_run(plans, TRANSPOSE) == 0


def test_short_loop_or_small_matrix_is_not_copied(fresh, rng, plans, monkeypatch):
    """Fewer than HOIST_AFTER steps, or a matrix under HOIST_MIN_ELEMENTS: no transposed copy."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _logistic(rng, 2000, 40)
    out = logreg(xp, xp.asarray(X), xp.asarray(y), xp.asarray(w), _segment.HOIST_AFTER - 3)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, _segment.HOIST_AFTER - 3), rtol=1e-11)
    X, y, w = _logistic(rng, 300, 5)
    out = logreg(xp, xp.asarray(X), xp.asarray(y), xp.asarray(w), 30)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 30), rtol=1e-11)
    assert _ops_run(plans, TRANSPOSE) == 0


def test_interpreted_repeat_equals_numpy(engine, rng, monkeypatch):
    """A small loop's REPEAT runs in the interpreter tier first (then compiled): the same values."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _logistic(rng, 50, 4)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    out = logreg(xp, Xl, yl, wl, 25)
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 25), rtol=1e-12)
    assert xp.metrics.interpreted >= 1 and xp.metrics.compiles == 0
    assert xp.metrics.chunks_run == 1


def _decaying_lr(ns, X, y, w, steps):
    """Gradient descent whose learning rate changes every step: a Python scalar per step."""
    for i in range(steps):
        w = w - (1.0 / (i + 1)) * (X.T @ (1.0 / (1.0 + ns.exp(-(X @ w))) - y))
    return w


def test_per_step_scalars_are_read_from_a_stacked_operand(fresh, rng, monkeypatch):
    """A learning rate that changes every step (a different host scalar in every chunk) is a
    per-pass operand of the REPEAT (STACK values a program): numpy's values, one compiled
    program for 20 and for 70 steps, and 70 steps are ceil(70 / STACK) programs run, not 70."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _logistic(rng, 300, 5)
    Xl, yl = xp.asarray(X), xp.asarray(y)
    for steps in (20, 70):
        before = fresh.chunks_run
        out = _decaying_lr(xp, Xl, yl, xp.asarray(w), steps)
        np.testing.assert_allclose(np.asarray(out), _decaying_lr(np, X, y, w.copy(), steps), rtol=1e-11)
        assert fresh.chunks_run - before <= -(-steps // STACK) + 1  # (+1: a first chunk run alone)
    assert fresh.compiles == 1


def test_per_step_scalars_in_the_interpreter_tier(engine, rng, monkeypatch):
    """The interpreter tier reads a stacked operand's element per pass: the same values."""
    monkeypatch.setattr(_config, "interpret_first", 2)
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _logistic(rng, 50, 4)
    out = _decaying_lr(xp, xp.asarray(X), xp.asarray(y), xp.asarray(w), 40)
    np.testing.assert_allclose(np.asarray(out), _decaying_lr(np, X, y, w.copy(), 40), rtol=1e-12)
    assert xp.metrics.interpreted >= 1 and xp.metrics.compiles == 0
    assert xp.metrics.chunks_run <= 3


def test_per_step_arrays_fall_back_to_a_program_per_step(fresh, rng, monkeypatch):
    """Steps that read a different array each (only scalars are stacked) and a loop that
    carries two arrays (momentum) cannot be one REPEAT: they run chunk by chunk, as before."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _logistic(rng, 300, 5)
    Xl, yl = xp.asarray(X), xp.asarray(y)
    rates = [rng.uniform(0.1, 1.0, 5) for _ in range(20)]
    wl, wn = xp.asarray(w), w.copy()
    for r in rates:
        wl = wl - xp.asarray(r) * (Xl.T @ (1.0 / (1.0 + xp.exp(-(Xl @ wl))) - yl))
        wn = wn - r * (X.T @ (1.0 / (1.0 + np.exp(-(X @ wn))) - y))
    np.testing.assert_allclose(np.asarray(wl), wn, rtol=1e-11)
    assert fresh.chunks_run >= 19
    before = fresh.chunks_run
    wl, vl, wn, vn = xp.asarray(w), xp.asarray(w), w.copy(), w.copy()
    for _ in range(20):
        vl = 0.9 * vl + Xl.T @ (1.0 / (1.0 + xp.exp(-(Xl @ wl))) - yl) / 300
        wl = wl - 0.5 * vl
        vn = 0.9 * vn + X.T @ (1.0 / (1.0 + np.exp(-(X @ wn))) - y) / 300
        wn = wn - 0.5 * vn
    np.testing.assert_allclose(np.asarray(wl), wn, rtol=1e-11)
    assert fresh.chunks_run - before >= 19


def test_failed_repeat_keeps_the_value_pending(fresh, rng, monkeypatch, fail_next_execute):
    """The REPEAT program fails: nothing is realized, the array stays pending, and the next
    read computes numpy's value."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _logistic(rng, 300, 5)
    out = logreg(xp, xp.asarray(X), xp.asarray(y), xp.asarray(w), 30)
    fail_next_execute("injected failure in the loop's program")
    with pytest.raises(RuntimeError, match="loop's program"):
        np.asarray(out)
    assert out._node.op is not None
    np.testing.assert_allclose(np.asarray(out), logreg(np, X, y, w, 30), rtol=1e-11)


def test_loop_whose_first_carry_has_another_shape(engine):
    # SciPy's freqz_sos (per-section scalars, stacked): h starts 0-D and is (N,) after the first
    # section, so the first chunk runs alone (REPEAT's rule used to raise on its 0-D carry)
    signal = pytest.importorskip("scipy.signal")
    sos = signal.butter(25, 0.15, output="sos")
    w, h = signal.freqz_sos(xp.asarray(sos), worN=500)
    wn, hn = signal.freqz_sos(sos, worN=500)
    assert isinstance(h, xp.Array)
    np.testing.assert_allclose(np.asarray(w), wn, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(h), hn, rtol=1e-11, atol=1e-14)
