"""`_segment._memo_key` labels the outside operands of a loop's graph by first use (nodes hash by
identity), not numpy's unique: the objects it gives are those of the unique-based rule, in
first-use order, and its labels tell the same wiring (an inside operand: its node's position; an
outside one: len(nodes) + the first position where its object is read), for loops reading a few
objects many times and for loops reading more than 256 distinct objects; replayed calls keep
their bits."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _segment


def reference(flat, ranks):
    """The unique-based labelling: outside operands, their objects in first-use order, and each
    outside position's label."""
    outside = [flat[j] for j in np.flatnonzero(ranks < 0).tolist()]
    ids = np.fromiter(map(id, outside), dtype=np.uint64, count=len(outside))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    label = np.empty(len(order), dtype=np.int64)
    label[order] = np.arange(len(order), dtype=np.int64)
    return [outside[j] for j in first[order].tolist()], label[inverse.reshape(-1)]


@pytest.fixture
def keys(monkeypatch):
    seen, real = [], _segment._memo_key

    def recording(nodes, outputs, params):
        key, objects = real(nodes, outputs, params)
        rank = {node: i for i, node in enumerate(nodes)}
        flat = [a for node in nodes for a in node.args]
        ranks = np.array([rank.get(a, -1) for a in flat], dtype=np.int64)
        seen.append((key, objects, len(nodes), flat, ranks, reference(flat, ranks)))
        return key, objects

    monkeypatch.setattr(_segment, "_memo_key", recording)
    return seen


def check(seen):
    assert seen
    for key, objects, n, flat, ranks, (want_objects, want_labels) in seen:
        assert len(objects) == len(want_objects) and all(a is b for a, b in zip(objects, want_objects))
        labels = np.asarray(key[2], dtype=np.int64)
        inside = ranks >= 0
        np.testing.assert_array_equal(labels[inside], ranks[inside])
        # outside: n + the first position of the operand's object, one label an object
        outside = np.flatnonzero(~inside)
        firsts = labels[outside] - n
        assert all(flat[f] is flat[j] for f, j in zip(firsts.tolist(), outside.tolist()))
        assert (firsts <= outside).all()
        _, dense = np.unique(firsts, return_inverse=True)  # (first positions rise with first use)
        np.testing.assert_array_equal(dense.reshape(-1), want_labels)
        assert key[3] == tuple(map(_segment._outside, objects))


def decay(ns, x, W, b, steps, a=0.5):
    for _ in range(steps):
        x = ns.tanh(W @ x) * a + x * (1.0 - a) + b
    return x


@pytest.mark.parametrize("budget", [10 ** 6, 150])
def test_few_objects_many_reads(engine, both_tiers, rng, monkeypatch, keys, budget):
    monkeypatch.setattr(_config, "node_budget", budget)
    W, x, b = rng.standard_normal((24, 24)) / 5, rng.standard_normal(24), rng.standard_normal(24)
    Wl, xl, bl = xp.asarray(W), xp.asarray(x), xp.asarray(b)
    want = decay(np, x, W, b, 40)
    first = np.asarray(decay(xp, xl, Wl, bl, 40))
    np.testing.assert_allclose(first, want, rtol=1e-12, atol=1e-14)
    second = np.asarray(decay(xp, xl, Wl, bl, 40))
    for _ in range(2):  # replayed calls: the same bits
        np.testing.assert_array_equal(np.asarray(decay(xp, xl, Wl, bl, 40)), second)
    check(keys)
    assert max(len(objects) for _, objects, *_ in keys) <= 256


def scaled(ns, x, W, steps):
    for i in range(steps):
        x = ns.tanh(W @ x) * (1.0 + 1e-3 * i)  # a different host scalar every step
    return x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_more_than_256_distinct_objects(engine, both_tiers, rng, monkeypatch, keys, dtype):
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    W, x = (rng.standard_normal((8, 8)) / 3).astype(dtype), rng.standard_normal(8).astype(dtype)
    Wl, xl = xp.asarray(W), xp.asarray(x)
    want = scaled(np, x, W, 300)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    first = np.asarray(scaled(xp, xl, Wl, 300))
    np.testing.assert_allclose(first, want, rtol=tol, atol=tol)
    second = np.asarray(scaled(xp, xl, Wl, 300))
    np.testing.assert_array_equal(np.asarray(scaled(xp, xl, Wl, 300)), second)
    check(keys)
    assert max(len(objects) for _, objects, *_ in keys) > 256


def test_one_object_or_two_is_in_the_key(engine, rng, monkeypatch, keys):
    """Two graphs alike but for whether two outside operands are one object get different keys."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    W, x = rng.standard_normal((6, 6)) / 3, rng.standard_normal(6)
    Wl, xl = xp.asarray(W), xp.asarray(x)
    W2 = xp.asarray(W.copy())

    def two(ns, x, A, B, steps):
        for _ in range(steps):
            x = ns.tanh(A @ x) + ns.tanh(B @ x) * 0.5
        return x

    np.testing.assert_allclose(np.asarray(two(xp, xl, Wl, Wl, 30)), two(np, x, W, W, 30), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.asarray(two(xp, xl, Wl, W2, 30)), two(np, x, W, W, 30), rtol=1e-12, atol=1e-14)
    check(keys)
    same = [k for k, *_ in keys]
    assert len(same) >= 2 and same[0] != same[-1]
