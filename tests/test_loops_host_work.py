"""The host work of a cut and of a hot loop's step (issue 11 targets 4 and 5), made cheaper in
session 9 without changing what it computes: the deep walk's shortcuts (`Plan._walk` reuses the
node just positioned and the last second operand without a lookup) give exactly the recursive
walk's plan; `_segment` describes a graph's nodes once (`_continued` compares all chunks at once)
and builds its operand arrays with C-level loops (`_Reads`); `x.T` binds its transpose directly
and a matrix's transpose folds into `dot_general` by a 2-D rule equal to the general one. Values
are compared with numpy, plans and arrays with the straightforward computation."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _segment
from lazyarray._graph import Plan, pending
from lazyarray._ops import dot as dot_mod
from lazyarray._ops.dot import DOT_GENERAL
from lazyarray._ops.shape import TRANSPOSE, transpose


def _both_walks(outputs, steps=1):
    """The recursive walk's plan and the stack walk's, `outputs` added in `steps` calls."""
    saved = pending.nodes_since_sync
    parts = [outputs[k::steps] for k in range(steps)]
    try:
        pending.nodes_since_sync = 0
        recursive = Plan()
        for part in parts:
            recursive.add(part)
        stack = Plan()
        for part in parts:
            stack._walk(part)
    finally:
        pending.nodes_since_sync = saved
    return recursive, stack


def _same_plan(a, b, outputs):
    assert a.sig == b.sig
    assert a.key(outputs) == b.key(outputs)
    assert [id(n) for n in a.order] == [id(n) for n in b.order]
    assert [id(n) for n in a.leaves] == [id(n) for n in b.leaves]
    assert a.index == b.index


def _graphs():
    """Graph shapes the walk's shortcuts meet: a chain with a constant second operand, a chain
    whose second operand changes, a unary chain, operands that are the node just walked on the
    second side, a constant that is also a first operand, ternary nodes (where)."""
    base = xp.asarray(np.linspace(-1.0, 1.0, 5))
    other = xp.asarray(np.linspace(2.0, 3.0, 5))
    ref_base, ref_other = np.linspace(-1.0, 1.0, 5), np.linspace(2.0, 3.0, 5)
    c = 0.25

    def chain_const(ns, b, o):
        y = b
        for _ in range(60):
            y = y + c
        return [y]

    def chain_varying(ns, b, o):
        y = b
        for k in range(40):
            y = y * (1.0 + k / 100) - o
        return [y]

    def unary(ns, b, o):
        y = b
        for _ in range(30):
            y = ns.sin(-y)
        return [y]

    def second_side(ns, b, o):
        y, z = b, o
        for _ in range(25):
            y, z = z - y, y * 0.5
        return [y, z]

    def const_both_sides(ns, b, o):
        y = b
        for k in range(30):
            y = (o + y) if k % 3 else (y + o)
        return [y]

    def ternary(ns, b, o):
        y = b
        for _ in range(20):
            y = ns.where(y > o, y - 1.0, y + o)
        return [y, y * 2.0]

    for f in (chain_const, chain_varying, unary, second_side, const_both_sides, ternary):
        yield f.__name__, f(xp, base, other), f(np, ref_base, ref_other)


@pytest.mark.parametrize("steps", [1, 2])
def test_stack_walk_shortcuts_give_the_recursive_plan(steps):
    for name, outs, refs in _graphs():
        nodes = [o._node for o in outs]
        recursive, stack = _both_walks(nodes, steps)
        _same_plan(recursive, stack, nodes)
        xp.evaluate(*outs)
        for o, r in zip(outs, refs):
            np.testing.assert_allclose(np.asarray(o), r, rtol=1e-12, err_msg=name)


def test_long_chain_cut_by_the_budget_equals_numpy(monkeypatch):
    """A chain longer than the budget (cut by it, walked by the stack walk) computes what numpy
    does, and the cut graphs repeat: one program key for all of them."""
    monkeypatch.setattr(_config, "node_budget", 300)
    x = xp.asarray(np.arange(10.0))
    ref = np.arange(10.0)
    y = x
    for k in range(1500):
        y = y * 0.999 + 0.5 if k % 2 else y - 0.25
        ref = ref * 0.999 + 0.5 if k % 2 else ref - 0.25
    np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-12)


def _continued_by_chunk(descs, chunk):
    """`_continued` as it was written: chunk after chunk."""
    size, full = len(chunk), 0
    while (full + 1) * size <= len(descs) and descs[full * size:(full + 1) * size] == chunk:
        full += 1
    return full


def test_continued_counts_the_leading_whole_chunks():
    chunk = [("a",), ("b",), ("c",)]
    cases = [chunk * 4, chunk * 4 + [("a",)], chunk * 2 + [("x",)] + chunk, [("x",)] + chunk * 3,
             chunk[:2], chunk * 3 + chunk[:2], []]
    for descs in cases:
        assert _segment._continued(descs, chunk) == _continued_by_chunk(descs, chunk)


def test_reads_arrays_match_a_plain_loop():
    x = xp.asarray(np.ones(4))
    y = x
    for k in range(12):
        y = xp.where(y > 0.5, y * 2.0, y - float(k)) if k % 4 == 0 else y + x
    plan = Plan([y._node])
    nodes = sorted(plan.order, key=lambda n: n.serial)
    rank = dict(zip(nodes, range(len(nodes))))  # (node -> position, as `_segment._split` makes it)
    assert [rank[n] for n in nodes] == list(range(len(nodes)))
    reads = _segment._Reads(nodes, rank)
    flat = [a for n in nodes for a in n.args]
    assert reads.ids.tolist() == [id(a) for a in flat]
    assert reads.rank.tolist() == [next((i for i, n in enumerate(nodes) if n is a), -1) for a in flat]
    assert reads.start.tolist() == [0] + list(itertools.accumulate(len(n.args) for n in nodes))
    assert reads.owner.tolist() == [i for i, n in enumerate(nodes) for _ in n.args]
    xp.evaluate(y)


def _general_fold(x, batch, contract):
    """`_fold_transpose`'s general rule (every rank): the fast 2-D rule must give its result."""
    perm = x.attrs.perm
    free = [perm[i] for i in range(len(perm)) if i not in batch and i not in contract]
    if free != sorted(free):
        return x, batch, contract
    return x.args[0], tuple(perm[i] for i in batch), tuple(perm[i] for i in contract)


def test_matrix_transpose_fold_equals_the_general_rule():
    m = xp.asarray(np.arange(12.0).reshape(3, 4))._node
    t = transpose(m, (1, 0))
    assert t.op is TRANSPOSE
    for contract in ((0,), (1,), [0], [1]):
        got = dot_mod._fold_transpose(t, (), contract)
        want = _general_fold(t, (), contract)
        assert got[0] is want[0] and tuple(got[1]) == tuple(want[1]) and tuple(got[2]) == tuple(want[2])


@pytest.mark.parametrize("interpret_first", [0, 2])
def test_transposed_products_equal_numpy(monkeypatch, interpret_first):
    monkeypatch.setattr(_config, "interpret_first", interpret_first, raising=False)
    rng = np.random.default_rng(3)
    A, v, u, B = rng.standard_normal((5, 3)), rng.standard_normal(5), rng.standard_normal(3), rng.standard_normal((5, 2))
    a, vv, uu, b = xp.asarray(A), xp.asarray(v), xp.asarray(u), xp.asarray(B)
    cases = [(a.T @ vv, A.T @ v), (uu @ a.T, u @ A.T), (a.T @ b, A.T @ B), (b.T @ a, B.T @ A),
             (a.T @ a, A.T @ A), (a @ a.T, A @ A.T), (a.T.T @ uu, A @ u)]
    for got, want in cases:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    # the fold leaves no transpose in the product's graph: one dot_general reading the matrix
    p = a.T @ vv
    plan = Plan([p._node])
    assert [n.op for n in plan.order] == [DOT_GENERAL]
    # x.T is still a view: a write through it reaches the base, and the base's own writes it
    t = a.T
    t[0, 1] = 100.0
    A2 = A.copy()
    A2.T[0, 1] = 100.0
    np.testing.assert_array_equal(np.asarray(a), A2)
    a[4, 2] = -7.0
    A2[4, 2] = -7.0
    np.testing.assert_array_equal(np.asarray(t), A2.T)
    with pytest.raises(ValueError, match="2-D"):
        xp.asarray(np.ones(3)).T


def test_reads_follow_the_hoisting_rewrites(monkeypatch):
    """After `_hoist_transposes` rewrites a loop's `X.T @ r` dots to read transpose(X), the
    operand ids `_Reads.rewrite` records are the rewritten operands' (as a plain loop reads them)."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    rng = np.random.default_rng(5)
    X = xp.asarray(rng.standard_normal((_segment.HOIST_MIN_ELEMENTS // 8, 8)))
    w = xp.asarray(np.zeros(8))
    xp.evaluate(X, w)
    for _ in range(_segment.HOIST_AFTER + 2):
        w = w - 0.1 * (X.T @ (X @ w - 1.0))
    nodes = sorted(Plan([w._node]).order, key=lambda n: n.serial)
    rank = dict(zip(nodes, range(len(nodes))))  # (node -> position, as `_segment._split` makes it)
    reads = _segment._Reads(nodes, rank)
    hoisted, rewritten = _segment._hoist_transposes(nodes)
    try:
        assert len(rewritten) == _segment.HOIST_AFTER + 2
        reads.rewrite(rank, rewritten)
        assert reads.ids.tolist() == [id(a) for n in nodes for a in n.args]
    finally:
        for node, args, attrs in rewritten:
            node.args, node.attrs = args, attrs
    ref_X, ref_w = np.asarray(X), np.zeros(8)
    for _ in range(_segment.HOIST_AFTER + 2):
        ref_w = ref_w - 0.1 * (ref_X.T @ (ref_X @ ref_w - 1.0))
    np.testing.assert_allclose(np.asarray(w), ref_w, rtol=1e-10)
