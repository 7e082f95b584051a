"""A read whose graph is the one loop iteration a budget cut left pending (logistic regression's
100 steps of 10 nodes against a budget of 1000) is split as one chunk, which no REPEAT makes: its
pieces are kept as a recipe of no REPEAT, which the next call replays instead of searching again,
with the values the search gives (bit for bit) and numpy's."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _segment
from benchmarks.workloads import logreg

pytestmark = pytest.mark.usefixtures("both_tiers")


@pytest.fixture
def reads(monkeypatch):
    """(node count, replayed) of each read's `_replay_call` (a budget cut's are left out)."""
    seen, real = [], _segment._replay_call

    def spy(nodes, outputs, keep_tail, repeat, last, *proof, **kw):
        done = real(nodes, outputs, keep_tail, repeat, last, *proof, **kw)
        if not keep_tail:
            seen.append((len(nodes), done[0] is not None))
        return done
    monkeypatch.setattr(_segment, "_replay_call", spy)
    return seen


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_one_chunk_read_replays(reads, dtype):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 8)).astype(dtype)
    y = (rng.random(300) > 0.5).astype(dtype)
    w0 = np.zeros(8, dtype)
    args = [xp.asarray(a) for a in (X, y, w0)]
    _engine.wait_for_compiles()
    xp.clear_cache()  # (where the budget cuts fall depends on what earlier tests left recorded)
    got = [np.asarray(logreg(xp, *args)).copy() for _ in range(6)]
    for g in got[1:]:
        assert g.tobytes() == got[0].tobytes()
    np.testing.assert_allclose(got[0], logreg(np, X, y, w0), rtol=2e-4 if dtype == "float32" else 1e-10, atol=1e-6)
    one_chunk = [hit for n, hit in reads if n == 10]
    assert one_chunk and one_chunk[-1]  # (the last calls' reads of one iteration: replayed)
    kept = [r for _, _, r in _segment._recipes.values() if not r.groups and r.full == 1]
    assert kept


def test_one_chunk_recipe_matches_the_search(monkeypatch):
    """The replayed read against the same call with the recipes forgotten before its read."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 6)).astype("float32")
    y = (rng.random(200) > 0.5).astype("float32")
    args = [xp.asarray(a) for a in (X, y, np.full(6, 0.1, "float32"))]
    for _ in range(4):
        replayed = np.asarray(logreg(xp, *args)).copy()
    real = _segment._replay_call

    def no_recipe(nodes, outputs, keep_tail, repeat, last, *proof, **kw):
        if not keep_tail:
            return None, None, None
        return real(nodes, outputs, keep_tail, repeat, last, *proof, **kw)
    monkeypatch.setattr(_segment, "_replay_call", no_recipe)
    searched = np.asarray(logreg(xp, *args))
    assert replayed.tobytes() == searched.tobytes()
