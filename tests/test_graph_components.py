"""Graph components (`_graph.Component`): a sync looks only at the live pending arrays of its
target's component. The arrays that share work with the target are still computed with it,
unrelated ones stay pending, and the deep-graph walk gives the recursive walk's plan."""
import threading

import numpy as np

import lazyarray as xp
from lazyarray import _graph
from lazyarray._graph import Plan, pending


def _pending(a):
    return a._node.op is not None


def test_unrelated_arrays_stay_out_of_a_sync():
    base = xp.asarray(np.arange(8.0))
    unrelated = [base * float(k) for k in range(300)]
    y = base + 1.0
    with _graph.lock:
        seen = pending.live_with([y._node])
    assert [id(h) for h in seen] == [id(y)]  # not the 300 others
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.0) + 1.0)
    assert all(_pending(u) for u in unrelated)
    for k, u in enumerate(unrelated[:5]):
        np.testing.assert_array_equal(np.asarray(u), np.arange(8.0) * k)


def test_arrays_sharing_work_are_computed_with_the_target():
    a = xp.asarray(np.arange(6.0))
    shared = xp.exp(a)            # computed node both graphs need
    other = shared * 3.0          # shares `shared` with the target
    unrelated = a - 1.0
    target = xp.sum(shared + 2.0)
    np.testing.assert_allclose(float(target), np.sum(np.exp(np.arange(6.0)) + 2.0))
    assert not _pending(other) and not _pending(shared)  # realized with the target
    assert _pending(unrelated)
    np.testing.assert_allclose(np.asarray(other), np.exp(np.arange(6.0)) * 3.0)


def test_components_merge_when_an_op_joins_two_graphs():
    a = xp.asarray(np.ones(4))
    left, right = a + 1.0, a * 2.0
    assert _graph.root(left._node.comp) is not _graph.root(right._node.comp)
    joined = left + right
    assert _graph.root(left._node.comp) is _graph.root(right._node.comp) is _graph.root(joined._node.comp)
    with _graph.lock:
        ids = {id(h) for h in pending.live_with([left._node])}
    assert {id(left), id(right), id(joined)} <= ids
    np.testing.assert_array_equal(np.asarray(joined), np.full(4, 4.0))


def test_in_place_updates_keep_the_handle_reachable():
    a = xp.asarray(np.zeros(5))
    acc = a + 0.0
    for k in range(4):
        acc += float(k)
    with _graph.lock:
        assert id(acc) in {id(h) for h in pending.live_with([acc._node])}
        assert id(acc) in {id(h) for h in pending.live()}
    np.testing.assert_array_equal(np.asarray(acc), np.full(5, 6.0))


def _walks(outputs):
    recursive = Plan()
    saved, pending.nodes_since_sync = pending.nodes_since_sync, 0
    try:
        recursive.add(outputs)
    finally:
        pending.nodes_since_sync = saved
    stacked = Plan.__new__(Plan)
    stacked.order, stacked.leaves, stacked.sig, stacked.index = [], [], [], {}
    stacked._walk(outputs)
    return recursive, stacked


def test_stack_walk_equals_recursive_walk():
    rng = np.random.default_rng(3)
    a, b = xp.asarray(rng.standard_normal(5)), xp.asarray(rng.standard_normal(5))
    values = [a, b]
    for k in range(60):  # a DAG with shared operands and scalar leaves in every position
        x, y = values[rng.integers(len(values))], values[rng.integers(len(values))]
        values.append([x + y, x * 2.0, 3.0 - y, xp.where(x > y, x, y)][k % 4])
    outputs = [values[-1]._node, values[-7]._node, values[30]._node]
    recursive, stacked = _walks(outputs)
    assert stacked.sig == recursive.sig
    assert [id(n) for n in stacked.order] == [id(n) for n in recursive.order]
    assert [id(n) for n in stacked.leaves] == [id(n) for n in recursive.leaves]
    assert stacked.key(outputs) == recursive.key(outputs)


def test_threads_tracing_one_graph_lose_no_handle():
    base = xp.asarray(np.arange(4.0))
    start = xp.exp(base)
    made = [[] for _ in range(4)]
    barrier = threading.Barrier(4)

    def trace(k):
        barrier.wait()
        own = base * float(k + 1)
        for j in range(200):
            own = own + start if j % 2 else own * 1.0  # merges this thread's graph into start's
            made[k].append(own)

    threads = [threading.Thread(target=trace, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with _graph.lock:
        live = {id(h) for h in pending.live()}
    still_pending = [h for hs in made for h in hs if _pending(h)]
    assert {id(h) for h in still_pending} <= live
    for k in range(4):
        np.testing.assert_allclose(np.asarray(made[k][-1]), np.arange(4.0) * (k + 1) + 100 * np.exp(np.arange(4.0)))
