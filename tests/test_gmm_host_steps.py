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


SHAPES = [(300, 3), (4, 5, 2), (7, 8), (6, 2), (2, 9), (1, 3)]


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("d", [dt.float64, dt.float32, dt.int32, dt.uint8, dt.bool], ids=lambda d: d.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_short_last_axis_reduce_step(kind, d, shape, layout):
    a = _values(shape, d, seed=len(shape) + shape[-1])
    node = ops.reduce(leaf(a), (len(shape) - 1,), kind)
    step = host_step(node)
    short = 2 <= shape[-1] <= reduce_ops.SHORT_AXIS
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
def test_one_window_per_interpreted_run(monkeypatch, user):
    a, b = _spd(8, 1), np.random.default_rng(2).standard_normal((8, 8))
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
                assert enters == [True], enters
        assert seen and set(seen) == {1}
        assert LAPACK.threads() == after_set
        assert LAPACK._mode is None and LAPACK._users == 0
    finally:
        LAPACK._set(before)
    c = np.linalg.cholesky(a)
    np.testing.assert_allclose(results[-1], np.linalg.solve(c, b) + c, rtol=1e-12)
    for r in results[1:]:
        assert_same(r, results[0])


@needs_two_libraries
def test_window_closed_after_a_failing_step():
    """A step that raises inside a run leaves no window open (the user's count is back)."""
    from lazyarray._interpret import HostProgram
    from lazyarray._graph import Plan
    a = _spd(8, 3)
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
    with pytest.raises(RuntimeError, match="step failed"):
        program.run(plan, [x._node])
    assert LAPACK._mode is None and LAPACK._users == 0 and LAPACK.threads() == before
    assert LAPACK not in bt._held()


def test_interpreted_runs_give_the_compiled_bits(monkeypatch):
    a, b = _spd(8, 4), np.random.default_rng(5).standard_normal((8, 8))
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
    assert all(getattr(s, "func", None) is la_ops._kernel_step for s in steps)
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
