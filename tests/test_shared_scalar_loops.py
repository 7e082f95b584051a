"""Loops whose per-pass Python scalar is read twice in a pass (`y * s + s`): the scalar is ONE
shared host leaf until the next sync (`_graph.scalar_leaf`), so a pass reads one leaf at two
operands. `_segment` must still fold such a loop into REPEAT programs (one stacked parameter per
distinct per-pass leaf, read at every operand it occupies), keep a constant that is the same
object every pass a single loop-invariant parameter, and build the same program keys on a second
call. Values are compared with numpy; programs run, compiles and REPEAT bodies are counted."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config
from lazyarray._ops.loop import STACK


def shared(ns, y, n, scale=0.01):
    for i in range(n):
        s = float(i) * scale  # a new Python float each pass, read twice in it
        y = ns.sin(y * s + s)
    return y


def two(ns, y, n):
    for i in range(n):
        s = float(i) * 0.01
        t = float(i) * 0.002 + 0.25
        y = ns.sin(y * s + t)
    return y


def mixed(ns, y, n):
    for i in range(n):
        s = float(i) * 0.01  # shared: read twice
        t = 0.5 - float(i) * 0.002  # read once
        y = ns.sin(y * s + s) * t
    return y


def invariant(ns, y, n):
    for _ in range(n):
        y = ns.sin(y * 0.5 + 0.5)  # the same constant object every pass, read twice a pass
    return y


def int_shared(ns, y, n):
    for i in range(n):
        s = i + 300  # a new int object each pass (past CPython's cached small ints)
        y = (y * s + s) % 7919
    return y


def small_ints(ns, y, n):
    for i in range(n):
        y = (y * i + 1) % 7919  # pass 1's i is the literal 1's object: shared in that pass only
    return y


FLOAT_LOOPS = [shared, two, mixed, invariant]
INT_LOOPS = [int_shared, small_ints]


def _reads(body, k):
    """How many operands of the body's nodes read its parameter k."""
    p = body.params[k]
    return sum(a is p for t in body.nodes for a in t.args)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("loop", FLOAT_LOOPS, ids=lambda f: f.__name__)
def test_float_loops_are_one_repeat_with_numpys_values(fresh, bodies, loop, dtype):
    x = np.linspace(0.0, 1.0, 32).astype(dtype)
    got = np.asarray(loop(xp, xp.asarray(x), 60))
    want = loop(np, x.copy(), 60)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == np.float64 else 2e-5, atol=1e-6 if dtype == np.float32 else 0)
    assert fresh.segmented_syncs == 1 and fresh.chunks_run == 1  # one REPEAT program (was 5-7 chunk programs)
    assert len(bodies) == 1
    compiles = fresh.compiles
    again = np.asarray(loop(xp, xp.asarray(x), 60))  # a second call: the same graphs, key for key
    np.testing.assert_array_equal(again, got)
    assert fresh.compiles == compiles and fresh.chunks_run == 2


def test_a_shared_per_pass_scalar_is_one_stacked_parameter_read_twice(fresh, bodies):
    x = np.linspace(0.0, 1.0, 8)
    np.asarray(shared(xp, xp.asarray(x), 60))
    body = bodies[0]
    assert body.stacked  # per-pass scalars, a stacked column each
    assert all(_reads(body, k) == 2 for k in body.stacked)  # one column per pass, read at both uses
    invariant_params = [k for k in range(len(body.params)) if k not in body.stacked and k != body.carry]
    assert not invariant_params


def test_shared_and_unshared_per_pass_scalars(fresh, bodies):
    np.asarray(mixed(xp, xp.asarray(np.linspace(0.0, 1.0, 8)), 60))
    body = bodies[0]
    reads = sorted(_reads(body, k) for k in body.stacked)
    passes = reads.count(2)
    assert passes and reads == [1] * passes + [2] * passes  # s (twice) and t (once) each pass


def test_a_loop_invariant_constant_stays_one_unstacked_parameter(fresh, bodies):
    np.asarray(invariant(xp, xp.asarray(np.linspace(0.0, 1.0, 8)), 60))
    body = bodies[0]
    assert body.stacked == ()
    assert len(body.params) == 2  # the carry and the 0.5, read at every use
    constant = 1 - body.carry
    assert _reads(body, constant) == 2 * sum(t.op is not None and t.op.name == "sin" for t in body.nodes)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("loop", INT_LOOPS, ids=lambda f: f.__name__)
def test_int_loops_exact_and_repeated(fresh, bodies, loop, dtype):
    x = np.arange(16, dtype=dtype)
    n = 70
    got = np.asarray(loop(xp, xp.asarray(x), n))
    want = loop(np, x.copy(), n)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert bodies and all(b.stacked for b in bodies)
    # passes run by REPEAT programs of at most STACK chunks each, not one program per chunk
    assert fresh.chunks_run <= -(-n // STACK) + 2


@pytest.mark.parametrize("loop", [shared, int_shared], ids=lambda f: f.__name__)
def test_compiles_stay_bounded_as_the_count_grows(fresh, monkeypatch, loop):
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    x = np.linspace(0.0, 1.0, 16) if loop is shared else np.arange(16, dtype=np.int64)
    counts = (40, 80, 160, 320, 640)
    for n in counts:
        runs = fresh.chunks_run
        # (shared: s below 1, so the loop contracts: sin's last-bit differences do not grow)
        args = (n, 0.001) if loop is shared else (n,)
        got = np.asarray(loop(xp, xp.asarray(x), *args))
        want = loop(np, x.copy(), *args)
        if loop is shared:
            np.testing.assert_allclose(got, want, rtol=1e-12)
        else:
            np.testing.assert_array_equal(got, want)
        passes_per_program = STACK * (1 if loop is int_shared else 3)  # (short steps: chunks of several passes)
        assert fresh.chunks_run - runs <= -(-n // passes_per_program) + 1
    first_round = fresh.compiles
    assert first_round <= len(counts) + 1  # not a program per unrolled length's chunk
    for n in counts:
        np.asarray(loop(xp, xp.asarray(x), *((n, 0.001) if loop is shared else (n,))))
    assert fresh.compiles == first_round  # every count again: nothing new to compile


def test_interpreter_tier_reads_the_shared_column(engine, monkeypatch):
    monkeypatch.setattr(_config, "interpret_first", 2)
    x = np.linspace(0.0, 1.0, 16)
    for loop in (shared, mixed):
        got = np.asarray(loop(xp, xp.asarray(x), 60))
        np.testing.assert_allclose(got, loop(np, x.copy(), 60), rtol=1e-13)
    assert xp.metrics.interpreted >= 1 and xp.metrics.compiles == 0
    assert xp.metrics.chunks_run == 2
