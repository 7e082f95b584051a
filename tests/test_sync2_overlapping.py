"""`_run_program.overlapping` (which live pending arrays a sync computes alongside its targets):
node sets instead of id sets give the same answer as the id-based walk on random graphs, and a
read computes the siblings that share work with it (values against numpy, both tiers)."""
import random

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _graph, _ops as ops
from lazyarray._run_program import overlapping

pytestmark = pytest.mark.usefixtures("both_tiers")


def _reference(in_target, candidates):
    """The walk as it was written with id() sets (session 12): the answer the rewrite must give."""
    known_disjoint, found = set(), []
    for cand in candidates:
        if cand in in_target:
            found.append(cand)
            continue
        stack, visited, hit = [cand], [], False
        seen = {id(cand)}
        while stack:
            n = stack.pop()
            visited.append(n)
            for a in n.args:
                if a.op is None or id(a) in known_disjoint or id(a) in seen:
                    continue
                if a in in_target:
                    hit = True
                    break
                seen.add(id(a))
                stack.append(a)
            if hit:
                break
        if hit:
            found.append(cand)
        else:
            known_disjoint.update(id(n) for n in visited)
    return found


def _random_dag(rng, n_leaves, n_nodes):
    """n_nodes pending arrays over n_leaves leaves, and their values by numpy."""
    arrays = [xp.asarray(np.full(70, float(i + 1))) for i in range(n_leaves)]
    values = [np.full(70, float(i + 1)) for i in range(n_leaves)]
    for _ in range(n_nodes):
        i, j = rng.randrange(len(arrays)), rng.randrange(len(arrays))
        if rng.random() < 0.5:
            arrays.append(arrays[i] + arrays[j])
            values.append(values[i] + values[j])
        else:
            arrays.append(arrays[i] * arrays[j])
            values.append(values[i] * values[j])
    return arrays[n_leaves:], values[n_leaves:]


@pytest.mark.parametrize("seed", range(12))
def test_same_answer_as_id_walk(seed):
    rng = random.Random(seed)
    arrays, values = _random_dag(rng, 4, 40)
    nodes = [a._pending_node() for a in arrays]
    for _ in range(20):
        targets = rng.sample(nodes, rng.randint(1, 3))
        plan = _graph.Plan(targets)
        candidates = [n for n in rng.sample(nodes, rng.randint(0, 15)) if n not in targets]
        for in_target in (plan.index, set(plan.order)):
            got = overlapping(in_target, candidates)
            assert got == _reference(in_target, candidates)
            assert all(type(n) is _graph.Node for n in got)
    del plan
    for a, v in zip(arrays, values):  # (each read computes the siblings it shares work with)
        np.testing.assert_array_equal(np.asarray(a), v)


def test_disjoint_candidates_stay_pending():
    x = xp.asarray(np.arange(100.0))
    y = xp.asarray(np.arange(100.0) + 10)
    shared = x * 2.0
    a = shared + 1.0
    b = shared - 1.0            # shares `shared` with a
    c = y * 3.0                 # disjoint from a
    d = (y + 1.0) * (y - 1.0)   # disjoint, deeper
    np.testing.assert_array_equal(np.asarray(a), np.arange(100.0) * 2 + 1)
    assert b._pending_node().op is None       # computed alongside a
    assert c._pending_node().op is not None   # still pending
    assert d._pending_node().op is not None
    np.testing.assert_array_equal(np.asarray(b), np.arange(100.0) * 2 - 1)
    np.testing.assert_array_equal(np.asarray(c), (np.arange(100.0) + 10) * 3)
    np.testing.assert_array_equal(np.asarray(d), (np.arange(100.0) + 11) * (np.arange(100.0) + 9))


def test_candidate_reaching_target_through_disjoint_part():
    x = xp.asarray(np.arange(100.0))
    z = xp.asarray(np.ones(100))
    t = x * x                   # the target's graph
    p = z + 2.0                 # a disjoint part, reached first by the first candidate
    c1 = p * 4.0                # disjoint
    c2 = p * t                  # reaches p (known disjoint after c1) and t (shared)
    got = overlapping(_graph.Plan([t._pending_node()]).index, [c1._pending_node(), c2._pending_node()])
    assert got == [c2._pending_node()]
    np.testing.assert_array_equal(np.asarray(t), np.arange(100.0) ** 2)
    np.testing.assert_array_equal(np.asarray(c2), (np.ones(100) + 2) * np.arange(100.0) ** 2)
    np.testing.assert_array_equal(np.asarray(c1), (np.ones(100) + 2) * 4)
