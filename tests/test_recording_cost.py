"""What makes recording cheap must not change a result: a Python scalar object shares one host
leaf between syncs (`_graph.scalar_leaf`), the same code gives the same graphs whatever ran
before, and the deep-graph walk (`Plan._walk`) gives exactly the recursive walk's plan. Every
value is checked against numpy."""
import random
import threading

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._graph import Plan, pending

pytestmark = pytest.mark.usefixtures("both_tiers")


def _scalar_leaves(a):
    """The 0-D host leaves of a's pending graph (each once)."""
    plan = Plan([a._node])
    return [leaf for leaf in plan.leaves if leaf.buffer is None and not leaf.shape]


def test_a_constant_shares_one_leaf_until_a_sync():
    x = xp.asarray(np.arange(5.0))
    step = 0.25
    y = x
    for _ in range(50):
        y = y + step
    leaves = _scalar_leaves(y)
    assert len(leaves) == 1 and leaves[0].host is step
    np.testing.assert_allclose(np.asarray(y), np.arange(5.0) + 50 * 0.25)
    z = y * step  # after the sync: a leaf of its own
    assert _scalar_leaves(z)[0] is not leaves[0]
    np.testing.assert_allclose(np.asarray(z), (np.arange(5.0) + 12.5) * 0.25)


def test_a_second_call_builds_the_first_calls_graphs():
    """Sharing depends only on the code between two syncs: the same code gives the same keys."""
    x = xp.asarray(np.linspace(0.0, 1.0, 7))

    def step(v, t):
        s = 1.0 / (1 + t)
        return (v * 0.5 + s) * s - 0.5

    keys, values = [], []
    for _ in range(2):
        y = x
        for t in range(30):
            y = step(y, t)
            if t % 10 == 9:
                keys.append(Plan([y._node]).key([y._node]))
                values.append(np.asarray(y))
    assert keys[:3] == keys[3:]
    for a, b in zip(values[:3], values[3:]):
        np.testing.assert_array_equal(a, b)
    ref = np.linspace(0.0, 1.0, 7)
    for t in range(30):
        ref = step(ref, t)
    np.testing.assert_allclose(values[-1], ref, rtol=1e-14)


def test_values_computed_each_pass_get_a_leaf_each():
    x = xp.asarray(np.arange(4.0))
    expected = np.arange(4.0)
    y = x
    for t in range(40):
        s = 1.0 / (2 + t)  # a new object each pass, read twice in it
        y = y * s + s
        expected = expected * s + s
    assert len(_scalar_leaves(y)) == 40
    np.testing.assert_allclose(np.asarray(y), expected, rtol=1e-15)


def test_a_loop_with_constants_and_a_per_pass_scalar_is_one_program(fresh):
    x = xp.asarray(np.linspace(0.0, 1.0, 16))
    expected = np.linspace(0.0, 1.0, 16)
    y = x
    for t in range(60):
        s = 1.0 / (2 + t)
        y = xp.sin(y * 0.5 + s) * 1.5 - 0.5  # 0.5 read twice a pass, s once
        expected = np.sin(expected * 0.5 + s) * 1.5 - 0.5
    np.testing.assert_allclose(np.asarray(y), expected, rtol=1e-13)
    assert fresh.chunks_run == 1  # one REPEAT over all passes (not one program per chunk)


def test_a_shared_object_in_two_dtypes():
    c = 1.5
    a32 = xp.asarray(np.arange(3, dtype=np.float32))
    a64 = xp.asarray(np.arange(3, dtype=np.float64))
    outs = []
    for _ in range(8):  # alternate: each use in the other dtype
        outs.append(a32 * c)
        outs.append(a64 * c)
    for k, o in enumerate(outs):
        want = np.arange(3, dtype=np.float32 if k % 2 == 0 else np.float64) * np.float32(c)
        assert o.dtype == (xp.float32 if k % 2 == 0 else xp.float64)
        np.testing.assert_array_equal(np.asarray(o), want)


def test_signed_zero_nan_and_ints_are_told_apart():
    x = xp.asarray(np.array([1.0, -2.0, np.inf]))
    zero, negzero, nan, two = 0.0, -0.0, float("nan"), 2
    for _ in range(3):
        prods = (x * zero, x * negzero, x + nan, x * two)
    with np.errstate(invalid="ignore"):
        want = (np.array([1.0, -2.0, np.inf]) * 0.0, np.array([1.0, -2.0, np.inf]) * -0.0,
                np.array([1.0, -2.0, np.inf]) + np.nan, np.array([1.0, -2.0, np.inf]) * 2)
    for got, w in zip(prods, want):
        got = np.asarray(got)
        np.testing.assert_array_equal(got, w)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(w))


def test_the_general_path_shares_leaves_too():
    x = xp.asarray(np.arange(6, dtype=np.int32))
    y = x
    for _ in range(30):
        y = y + 3  # int32 + Python int: promotion's path (`_helpers.binary_operands`)
    assert len(_scalar_leaves(y)) == 1
    assert y.dtype == xp.int32
    np.testing.assert_array_equal(np.asarray(y), np.arange(6, dtype=np.int32) + 90)


def test_threads_recording_with_one_constant():
    x = xp.asarray(np.arange(8.0))
    c = 0.5
    results, errors = {}, []

    def work(k):
        try:
            y = x * float(k)
            for _ in range(300):
                y = y + c
            results[k] = np.asarray(y)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(6):
        np.testing.assert_allclose(results[k], np.arange(8.0) * k + 300 * 0.5)


def _random_graph(rng, n_ops):
    """A random DAG over a few arrays and scalars (leaves, shared subexpressions, operands in
    every order), and numpy's values of its nodes."""
    vals = [xp.asarray(np.full(3, float(k + 1))) for k in range(3)]
    refs = [np.full(3, float(k + 1)) for k in range(3)]
    consts = [0.5, 2.0, -1.0]
    for _ in range(n_ops):
        kind, i, j, c = rng.randrange(4), rng.randrange(len(vals)), rng.randrange(len(vals)), rng.choice(consts)
        a, b, ra, rb = vals[i], vals[j], refs[i], refs[j]
        if kind == 0:
            v, r = a + b, ra + rb
        elif kind == 1:
            v, r = c * a, c * ra
        elif kind == 2:
            v, r = xp.where(a > b, a, c), np.where(ra > rb, ra, c)
        else:
            v, r = xp.sin(a) - b, np.sin(ra) - rb
        vals.append(v)
        refs.append(r)
    return vals, refs


@pytest.mark.parametrize("seed", range(6))
def test_stack_walk_gives_the_recursive_plan(seed):
    rng = random.Random(seed)
    vals, refs = _random_graph(rng, 60 + 40 * seed)
    picked = [k for k in rng.sample(range(len(vals)), 8) if vals[k]._node.op is not None]
    outputs = [vals[k]._node for k in picked]
    saved = pending.nodes_since_sync
    try:
        pending.nodes_since_sync = 0  # the recursive walk
        recursive = Plan(outputs)
        stack = Plan()
        stack._walk(outputs)
    finally:
        pending.nodes_since_sync = saved
    assert stack.key(outputs) == recursive.key(outputs)
    assert [id(n) for n in stack.order] == [id(n) for n in recursive.order]
    assert [id(n) for n in stack.leaves] == [id(n) for n in recursive.leaves]
    xp.evaluate(*[vals[k] for k in picked])  # one program for all of them
    for k in picked:
        np.testing.assert_allclose(np.asarray(vals[k]), refs[k], rtol=1e-13)
