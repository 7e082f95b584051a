"""A read at a site whose last read split a loop into chunks (`_engine._split_read`): the chunks
found from the computed nodes alone, without the whole graph's plan, and no small-read attempt
on the host first. The same values as the planned read (bit for bit where the tier is fixed),
numpy's values, and the usual path back when the graph there is no longer a loop."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine
from loop_workloads import kmeans, logreg

pytestmark = pytest.mark.usefixtures("both_tiers")


class _Never(set):
    """A `state.split_sites` that never remembers a site: every read takes the planned path."""

    def add(self, site):
        pass


@pytest.fixture
def taken(monkeypatch):
    counts, real = [0, 0], _engine._split_read

    def counting(*args):
        done = real(*args)
        counts[0 if done else 1] += 1
        return done

    monkeypatch.setattr(_engine, "_split_read", counting)
    return counts


def _calls(engine, fn, args, calls):
    return [np.asarray(fn(xp, *[xp.asarray(a) for a in args[:-1]], args[-1])) for _ in range(calls)]


def _logreg_args(rng, dtype=np.float64):
    X = rng.standard_normal((300, 8)).astype(dtype)
    y = (rng.random(300) < 0.5).astype(dtype)
    return X, y, np.zeros(8, dtype), 40


def _kmeans_args(rng, dtype=np.float64):
    X = rng.standard_normal((400, 4)).astype(dtype)
    return X, X[:5].copy(), 12


@pytest.mark.parametrize("budget", [10 ** 6, 150])
@pytest.mark.parametrize("case", ["logreg", "kmeans"])
def test_split_read_gives_the_planned_reads_values(engine, both_tiers, rng, monkeypatch, taken, budget, case):
    monkeypatch.setattr(_config, "node_budget", budget)
    fn, args = (logreg, _logreg_args(rng)) if case == "logreg" else (kmeans, _kmeans_args(rng))
    want = fn(np, *args)
    monkeypatch.setattr(engine, "split_sites", _Never())
    planned = _calls(engine, fn, args, 4)
    assert taken == [0, 0]
    engine.reset()
    monkeypatch.setattr(engine, "split_sites", set())
    split = _calls(engine, fn, args, 4)
    assert taken[0] >= 2 and len(engine.split_sites) == 1
    for a, b in zip(planned, split):
        np.testing.assert_allclose(b, want, rtol=1e-9, atol=1e-12)
        if both_tiers == "compiled":
            np.testing.assert_array_equal(b, a)
        else:
            np.testing.assert_allclose(b, a, rtol=1e-13, atol=1e-15)
    assert engine.sizes()["split_sites"] == 1
    engine.reset()
    assert not engine.split_sites


def _at_one_line(X, y, w, steps, kind):
    """A read always made at the same line, of a loop or of something else."""
    if kind == "loop":
        r = logreg(xp, X, y, w, steps)
    elif kind == "chain":  # not periodic: 60 different nodes
        r = w
        for i in range(60):
            r = xp.sin(r) if i % 3 == 0 else (r * 1.5 if i % 3 == 1 else xp.abs(r) + float(i))
            if i % 7 == 0:
                r = xp.cos(r)
    else:  # a small graph: the host's small read
        r = w * 2.0 + 1.0
    return np.asarray(r)


def _np_chain(w):
    r = w
    for i in range(60):
        r = np.sin(r) if i % 3 == 0 else (r * 1.5 if i % 3 == 1 else np.abs(r) + float(i))
        if i % 7 == 0:
            r = np.cos(r)
    return r


def test_a_split_site_reads_other_graphs_the_usual_way(engine, both_tiers, rng, taken):
    X, y, w, steps = _logreg_args(rng)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    want = logreg(np, X, y, w, steps)
    for _ in range(3):
        np.testing.assert_allclose(_at_one_line(Xl, yl, wl, steps, "loop"), want, rtol=1e-9, atol=1e-12)
    assert len(engine.split_sites) == 1 and taken[0] >= 1
    w2 = rng.standard_normal(8)
    w2l = xp.asarray(w2)
    np.testing.assert_allclose(_at_one_line(Xl, yl, w2l, steps, "small"), w2 * 2.0 + 1.0, rtol=0, atol=0)
    # interpreted: too few nodes traced, the host's small read (the site kept); compiled: no
    # host reads, and the chunks find no loop (the site forgotten)
    assert len(engine.split_sites) == (1 if both_tiers == "interpreted" else 0)
    np.testing.assert_allclose(_at_one_line(Xl, yl, w2l, steps, "chain"), _np_chain(w2), rtol=1e-12, atol=1e-12)
    assert taken[1] == 1 and not engine.split_sites  # no loop: the usual path, the site forgotten
    for _ in range(2):
        np.testing.assert_allclose(_at_one_line(Xl, yl, wl, steps, "loop"), want, rtol=1e-9, atol=1e-12)
    assert len(engine.split_sites) == 1


def test_a_pending_array_beside_takes_the_planned_read(engine, both_tiers, rng, taken):
    X, y, w, steps = _logreg_args(rng)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    for _ in range(3):
        np.asarray(logreg(xp, Xl, yl, wl, steps))
    done = taken[0]
    r = logreg(xp, Xl, yl, wl, steps)
    beside = r * 3.0  # pending, in the read's graph: computed alongside
    np.testing.assert_allclose(np.asarray(r), logreg(np, X, y, w, steps), rtol=1e-9, atol=1e-12)
    assert taken[0] == done  # (the usual path: shares work with what is pending beside it)
    np.testing.assert_allclose(np.asarray(beside), 3.0 * logreg(np, X, y, w, steps), rtol=1e-9, atol=1e-12)
