"""Session 13 (GMM): per-step costs of the interpreter's built programs, same values.

- max/min over a short last axis (`_ops.reduce._reduce_columns_step`): elementwise maxima
  (minima) of the columns, against the node-by-node evaluation and the compiled program, bit for
  bit (zero signs XLA's, NaN propagated), floats, integers and bools, any operand layout.
- broadcast of a strided operand (`_ops.shape._broadcast_step`): numpy's general path asked
  first, the same view's values.
- one OpenBLAS window per interpreted run with LAPACK steps (`_blas_threads.host_program_window`):
  every call still on one thread, the user's count back after the run (also after a failing
  step), the compiled program's bits.
"""
import math
import os
import threading
import time

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _blas_threads as bt
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
import importlib
reduce_ops = importlib.import_module("lazyarray._ops.reduce")
shape_ops = importlib.import_module("lazyarray._ops.shape")
from lazyarray._ops.core import host_step
from tier_check import DEV, assert_same, both, compile_always, leaf  # noqa: F401


def _values(shape, d, seed):
    rng = np.random.default_rng(seed)
    if d is dt.bool:
        return rng.integers(0, 2, shape).astype(bool)
    if d.kind in "iu":
        return rng.integers(-50 if d.kind == "i" else 0, 50, shape).astype(d.np)
    a = rng.standard_normal(shape).astype(d.np)
    flat = a.reshape(-1)
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 0.0, -0.0, -0.0], d.np)
    idx = rng.choice(flat.size, size=min(flat.size, 3 * len(specials)), replace=False)
    flat[idx] = np.resize(specials, idx.size)
    if a.ndim >= 2 and a.shape[-2] >= 3:  # rows of zeros only, of either sign and mixed: the zero-sign rule's cases
        a[(0,) * (a.ndim - 2) + (0,)] = -0.0
        a[(0,) * (a.ndim - 2) + (1,)] = 0.0
        row = a[(0,) * (a.ndim - 2) + (min(2, a.shape[-2] - 1),)]
        row[...] = 0.0
        row[..., ::2] = -0.0
    return a


SHAPES = [(300, 3), (4, 5, 2), (70, 8), (7, 8), (6, 2), (2, 9), (1, 3)]


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("d", [dt.float64, dt.float32, dt.int32, dt.uint8, dt.bool], ids=lambda d: d.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_short_last_axis_reduce_step(kind, d, shape, layout):
    a = _values(shape, d, seed=len(shape) + shape[-1])
    node = ops.reduce(leaf(a), (len(shape) - 1,), kind)
    step = host_step(node)
    short = 2 <= shape[-1] <= reduce_ops.SHORT_AXIS and math.prod(shape[:-1]) >= reduce_ops.EXTREME_ROWS * shape[-1]
    assert (getattr(step, "func", None) is reduce_ops._reduce_columns_step) == short
    x = {"C": a, "F": np.asfortranarray(a),
         "strided": np.repeat(a, 2, axis=-1)[..., ::2]}[layout]
    assert np.array_equal(x, a, equal_nan=d.kind == "f")
    got = np.asarray(step(x))
    general = reduce_ops._reduce(node, a)  # the node-by-node evaluation
    assert got.dtype == general.dtype == d.np and got.shape == general.shape == node.shape
    assert_same(got, general)
    ref = (np.max if kind == "max" else np.min)(a, axis=-1)
    assert_same(got, ref) if d.kind != "f" else np.testing.assert_array_equal(got, ref)


@pytest.mark.usefixtures("compile_always")
@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("d", [dt.float64, dt.float32], ids=lambda d: d.name)
def test_short_last_axis_reduce_step_is_the_compiled_programs(kind, d):
    a = _values((40, 3), d, seed=5)
    node = ops.reduce(leaf(a), (1,), kind)
    step = host_step(node)  # (before the node is computed: then it is a leaf)
    _, compiled = both(node)
    assert_same(np.asarray(step(a)), compiled)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_short_axis_reduce_through_the_namespace_repeated(kind, monkeypatch):
    """A built program (the graph's third run on) takes the short-axis step: the compiled
    program's bits (zero signs included), numpy's values."""
    a = _values((300, 3), dt.float64, seed=3)
    fn = xp.max if kind == "max" else xp.min
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    compiled = np.asarray(fn(xp.asarray(a) * 1.0, axis=1))
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    want = (np.max if kind == "max" else np.min)(a, axis=1)
    for _ in range(4):
        got = np.asarray(fn(xp.asarray(a) * 1.0, axis=1))
        assert_same(got, compiled)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("d", [dt.float64, dt.float32, dt.int64], ids=lambda d: d.name)
@pytest.mark.parametrize("case", ["column", "reversed", "every_other_row"])
def test_broadcast_step_of_a_strided_operand(d, case):
    base = np.arange(900, dtype=d.np).reshape(300, 3)
    x, shape, dims, want = {
        "column": (base[:, 1], (8, 300), (1,), np.broadcast_to(base[:, 1], (8, 300))),
        "reversed": (base[::-1, 0], (300, 2), (0,), np.broadcast_to(base[::-1, 0][:, None], (300, 2))),
        "every_other_row": (base[::2], (4, 150, 3), (1, 2), np.broadcast_to(base[::2], (4, 150, 3))),
    }[case]
    assert not (x.flags.c_contiguous or x.flags.f_contiguous)
    node = ops.broadcast_in_dim(leaf(np.ascontiguousarray(x)), shape, dims)
    got = host_step(node)(x)
    assert got.shape == shape and got.dtype == d.np and not got.flags.writeable
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, shape_ops._broadcast(node, np.ascontiguousarray(x)))


def test_broadcast_step_of_a_contiguous_operand_is_a_view():
    x = np.arange(8.0)
    node = ops.broadcast_in_dim(leaf(x), (3, 8), (1,))
    got = host_step(node)(x)
    assert got.base is x and not got.flags.writeable
    np.testing.assert_array_equal(got, np.broadcast_to(x, (3, 8)))


# ------------------------------------------------------------------ one window per run

LAPACK = bt._library("lapack")
NUMPY = bt._library("numpy")
needs_two_libraries = pytest.mark.skipif(LAPACK is None or LAPACK is NUMPY,
                                         reason="SciPy's LAPACK is not an OpenBLAS of its own")


def _spd(n, seed):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def _chol_solve(a, b):
    """A graph with three LAPACK calls: a Cholesky, and solve's LU and two triangular solves."""
    x, y = xp.asarray(a), xp.asarray(b)
    c = xp.linalg.cholesky(x * 1.0)
    return xp.linalg.solve(c + 0.0, y * 1.0) + c


@needs_two_libraries
@pytest.mark.parametrize("user", [1, 2])
@pytest.mark.parametrize("n", [8, 20])
def test_one_window_per_interpreted_run(monkeypatch, user, n):
    """20x20 (above TINY_SIDE): one window a run, each call on one thread; 8x8 (tiny):
    no window at all (OpenBLAS runs such calls on one thread whatever its setting)."""
    tiny = n <= bt.TINY_SIDE
    a, b = _spd(n, 1), np.random.default_rng(2).standard_normal((n, n))
    enters, seen = [], []
    real_enter = bt._Library.enter

    def enter(lib, one):
        if lib is LAPACK:
            enters.append(one)
        return real_enter(lib, one)

    from lazyarray._ops import lapack_host
    real_potrf = lapack_host.KERNELS["cholesky"]

    def potrf(m, **kw):
        seen.append(LAPACK.threads())
        return real_potrf(m, **kw)

    before = LAPACK.threads()
    LAPACK._set(user)
    try:
        after_set = LAPACK.threads()
        monkeypatch.setattr(bt._Library, "enter", enter)
        monkeypatch.setitem(lapack_host.KERNELS, "cholesky", potrf)
        monkeypatch.setattr(xp.config, "interpret_first", 2)
        results = []
        for run in range(4):
            enters.clear()
            results.append(np.asarray(_chol_solve(a, b)))
            if run >= 2:  # a built program's runs: one window, each call nested in it
                assert enters == ([] if tiny else [True]), enters
            if tiny:
                assert enters == []
        assert seen and set(seen) == ({after_set} if tiny else {1})
        assert LAPACK.threads() == after_set
        assert LAPACK._mode is None and LAPACK._users == 0
    finally:
        LAPACK._set(before)
    c = np.linalg.cholesky(a)
    np.testing.assert_allclose(results[-1], np.linalg.solve(c, b) + c, rtol=1e-10, atol=1e-12)
    for r in results[1:]:
        assert_same(r, results[0])


@needs_two_libraries
def test_window_closed_after_a_failing_step():
    """A step that raises inside a run leaves no window open (the user's count is back)."""
    from lazyarray._interpret import HostProgram
    from lazyarray._graph import Plan
    a = _spd(20, 3)  # (above TINY_SIDE: its run opens a window)
    x = xp.linalg.cholesky(xp.asarray(a) * 1.0)
    plan = Plan([x._node])
    program = HostProgram(plan, [x._node])
    program.build(plan.sig)
    assert program.clocked

    def boom(*args):
        raise RuntimeError("step failed")

    steps = program.steps
    kernel_at = [i for i, m in enumerate(steps.meta) if m[5]][0]
    steps.fns = steps.fns[:kernel_at] + (boom,) + steps.fns[kernel_at + 1:]
    before = LAPACK.threads()
    opened = []
    real_enter = bt._Library.enter
    bt._Library.enter = lambda lib, one: (opened.append(one), real_enter(lib, one))[1]
    try:
        with pytest.raises(RuntimeError, match="step failed"):
            program.run(plan, [x._node])
    finally:
        bt._Library.enter = real_enter
    assert opened == [True]
    # (x is still pending: read it, so no pending array outlives the test; the engine's own run)
    np.testing.assert_allclose(np.asarray(x), np.linalg.cholesky(a), rtol=1e-12)
    assert LAPACK._mode is None and LAPACK._users == 0 and LAPACK.threads() == before
    assert LAPACK not in bt._held()


@pytest.mark.parametrize("n", [8, 20])
def test_interpreted_runs_give_the_compiled_bits(monkeypatch, n):
    a, b = _spd(n, 4), np.random.default_rng(5).standard_normal((n, n))
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    compiled = np.asarray(_chol_solve(a, b))
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    for _ in range(4):
        assert_same(np.asarray(_chol_solve(a, b)), compiled)


# ------------------------------------------------------------------ prepared kernel steps

KERNELS = [("lu", (), (6, 6)), ("cholesky", (), (8, 8)), ("qr", (False,), (7, 4)), ("qr", (True,), (7, 4)),
           ("eigh", (), (5, 5)), ("eig", (), (5, 5)), ("svd", (False,), (6, 4)), ("svdvals", (), (3, 5)),
           ("cholesky", (), (2, 4, 4))]


@pytest.mark.parametrize("name,params,shape", KERNELS, ids=str)
@pytest.mark.parametrize("d", [dt.float64, dt.float32], ids=lambda d: d.name)
def test_prepared_kernel_steps_are_the_evaluation(monkeypatch, name, params, shape, d):
    """A built program's kernel steps (`_ops.linalg._prepare_kernel`): the node-by-node
    evaluation's arrays, bit for bit, one decomposition for all the outputs of one operand."""
    from lazyarray._ops import lapack_host
    from lazyarray._ops import linalg as la_ops
    rng = np.random.default_rng(11)
    a = rng.standard_normal(shape)
    if name in ("cholesky", "eigh"):
        a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    a = a.astype(d.np)
    nodes = ops.kernel(name, leaf(a), DEV.platform, *params)
    steps = [host_step(n) for n in nodes]
    assert all(getattr(s, "func", None) in (la_ops._kernel_step, la_ops._sole_output_step) for s in steps)
    calls = []
    real = lapack_host.decompose
    monkeypatch.setattr(lapack_host, "decompose", lambda *args: (calls.append(args[0]), real(*args))[1])
    operand = la_ops._evaluate_operand(None, a)  # (a fresh view, as the operand's step gives)
    got = [s(operand) for s in steps]
    assert calls == [name]
    want_operand = la_ops._evaluate_operand(None, a)
    want = [la_ops._evaluate_kernel(n, want_operand) for n in nodes]
    for g, w, n in zip(got, want, nodes):
        assert g.shape == n.shape and g.dtype == n.dtype.np
        assert_same(g, w)


def test_kernel_output_specs_are_kept():
    from lazyarray._ops import linalg as la_ops
    one = la_ops._outputs("svd", (6, 4), dt.float64, (False,))
    assert one is la_ops._outputs("svd", (6, 4), dt.float64, [False])
    assert one == (((6, 4), dt.float64), ((4,), dt.float64), ((4, 4), dt.float64))
    attrs = [n.attrs for n in ops.kernel("lu", leaf(np.eye(3)), DEV.platform)]
    assert attrs == [n.attrs for n in ops.kernel("lu", leaf(np.eye(3) * 2), DEV.platform)]
    assert [a.index for a in attrs] == [0, 1, 2]


# ------------------------------------------------------------------ tiny calls take no window

def _schedstat_ns():
    """{native thread id: run time ns} of this process's threads other than its Python threads."""
    python = {t.native_id for t in threading.enumerate()}
    out = {}
    for tid in os.listdir("/proc/self/task"):
        if int(tid) in python:
            continue
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                out[int(tid)] = int(f.read().split()[0])
        except OSError:
            continue
    return out


def _ns_during(fn, calls):
    time.sleep(0.3)  # (OpenBLAS's workers spin a while after their last work: settled before and after)
    before = _schedstat_ns()
    for _ in range(calls):
        fn()
    time.sleep(0.3)
    return {tid: t - before.get(tid, 0) for tid, t in _schedstat_ns().items()}


# every kernel at TINY_SIDE's bound: (kernel, params, shape)
TINY = [("cholesky", (), (16, 16)), ("lu", (), (16, 16)), ("lu", (), (16, 4)), ("lu", (), (4, 16)),
        ("qr", (False,), (16, 8)), ("qr", (True,), (16, 4)), ("eigh", (), (16, 16)), ("eig", (), (16, 16)),
        ("svd", (False,), (16, 8)), ("svd", (True,), (16, 16)), ("svd", (True,), (4, 16)), ("svdvals", (), (16, 16))]


@needs_two_libraries
@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="needs Linux /proc and two cores")
def test_tiny_calls_run_on_one_thread_at_two():
    """TINY_SIDE's premise, observed: with SciPy's OpenBLAS on 2 threads, no call at the bound
    wakes a worker (found first as the threads a 300x300 trsm, above the bound, does wake), and
    their bits are a one-thread run's."""
    from lazyarray._ops import lapack_host
    saved = LAPACK.threads()
    rng = np.random.default_rng(9)
    try:
        LAPACK._set(2)
        if LAPACK.threads() != 2:
            pytest.skip("this OpenBLAS cannot run 2 threads here")
        big_a = np.tril(rng.standard_normal((300, 300))) + 300 * np.eye(300)
        big_b = rng.standard_normal((300, 300))
        assert not bt.is_tiny(big_a.shape, big_b.shape)
        trsm = getattr(lapack_host._scipy_linalg_module("_fblas"), "dtrsm")  # (raw: no window)
        big_a = np.asfortranarray(big_a)
        workers = {tid for tid, t in _ns_during(
            lambda: trsm(1.0, big_a, np.array(big_b, order="F"), side=0, lower=1, trans_a=0, diag=0,
                         overwrite_b=1), 50).items() if t > 0}
        assert workers  # the control: OpenBLAS does run a worker for a large call
        cases = [(name, params, shape) for name, params, shape in TINY]
        cases += [("triangular_solve", (), shape) for shape in ((16, 16), (16, 1), (4, 16))]
        for name, params, shape in cases:
            if name == "triangular_solve":
                m, k = shape
                a = np.tril(rng.standard_normal((m, m))) + m * np.eye(m)
                b = rng.standard_normal((m, k))
                assert bt.is_tiny(a.shape, b.shape)
                fn = lambda: lapack_host.triangular_solve(a, b, True, False)  # noqa: E731
            else:
                a = rng.standard_normal(shape)
                if name in ("cholesky", "eigh"):
                    a = a @ a.T + shape[0] * np.eye(shape[0])
                assert bt.is_tiny(shape)
                fn = lambda: lapack_host.KERNELS[name](np.array(a, order="F"), *params)  # noqa: E731

            def woken():
                return sum(t for tid, t in _ns_during(fn, 1000).items() if tid in workers)
            ns = woken()
            if ns:  # (once more: another library's thread among `workers` may have run meanwhile)
                ns = woken()
            assert ns == 0, f"{name} {shape}: OpenBLAS's workers ran {ns} ns"
            two = fn()
            LAPACK._set(1)
            one = fn()
            LAPACK._set(2)
            for p, q in zip(two if isinstance(two, tuple) else (two,), one if isinstance(one, tuple) else (one,)):
                assert np.asarray(p).tobytes() == np.asarray(q).tobytes()
    finally:
        LAPACK._set(saved)


def test_compiled_program_of_tiny_calls_takes_no_window(monkeypatch):
    """A compiled program whose LAPACK calls are all tiny runs with no window (`program_call`);
    its values are numpy's."""
    from lazyarray._engine_state import state
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    entered = []
    real_enter = bt._Library.enter
    monkeypatch.setattr(bt._Library, "enter", lambda lib, one: (entered.append(one), real_enter(lib, one))[1])
    a = _spd(8, 6)
    for _ in range(2):
        got = np.asarray(xp.linalg.cholesky(xp.asarray(a) * 1.0))
        np.testing.assert_allclose(got, np.linalg.cholesky(a), rtol=1e-12)
    assert entered == []
    assert any(c.no_window is True for c in state.programs.values())
