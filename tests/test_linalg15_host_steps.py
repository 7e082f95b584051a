"""Session 15's cheaper LAPACK host steps, bit for bit as before: one flushing context and one
thread window for `lu_solve`'s three calls, a re-entrant flushing context kept per thread, and
a decomposition of one output evaluated without the siblings' memo."""
import ctypes
import threading

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._array_object import Array
from lazyarray._ops import lapack_host
from lazyarray._ops import linalg as L
from lazyarray._ops.core import host_step
from tier_check import DEV, assert_same, both, compile_always  # noqa: F401
from test_solve_fused import _data, _separate


def _mxcsr():
    env = ctypes.create_string_buffer(32)
    lapack_host._LIBM.fegetenv(env)
    return ctypes.c_uint32.from_buffer(env, lapack_host._MXCSR_OFFSET).value


needs_libm = pytest.mark.skipif(lapack_host._LIBM is None, reason="x86-64 Linux only")


@needs_libm
def test_nested_flushing_contexts_restore_at_the_outermost():
    before = _mxcsr()
    flag = lapack_host._MXCSR_FTZ_DAZ
    with lapack_host._flush_denormals():
        with lapack_host._flush_denormals():
            assert _mxcsr() & flag == flag
        assert _mxcsr() & flag == flag  # the inner exit leaves the outer one's environment
    assert _mxcsr() == before
    tiny = np.array([np.finfo(np.float64).smallest_subnormal])
    assert (tiny * np.array([1.0]))[0] > 0.0


@needs_libm
def test_flushing_context_is_per_thread():
    """A context open in one thread neither flushes another thread nor is closed by it. (The
    thread starts first: a new thread inherits its creator's environment.)"""
    flag = lapack_host._MXCSR_FTZ_DAZ
    seen, opened, inside, leave = [], threading.Event(), threading.Event(), threading.Event()

    def other():
        opened.wait(10)
        seen.append(_mxcsr() & flag)  # the main thread's context is open: not this thread's
        with lapack_host._flush_denormals():
            seen.append(_mxcsr() & flag)
            inside.set()
            leave.wait(10)
        seen.append(_mxcsr() & flag)

    before = _mxcsr()
    t = threading.Thread(target=other)
    t.start()
    with lapack_host._flush_denormals():
        opened.set()
        assert inside.wait(10)
        assert _mxcsr() & flag == flag
    assert _mxcsr() == before  # the other thread's open context did not keep this one open
    leave.set()
    t.join(10)
    assert seen == [before & flag, flag, before & flag]


@needs_libm
def test_a_context_exited_by_an_exception_restores():
    before = _mxcsr()
    with pytest.raises(ValueError):
        with lapack_host._flush_denormals():
            raise ValueError("x")
    assert _mxcsr() == before
    assert lapack_host._environment.depth == 0


# (a's shape, b's shape): a tiny a with a b wider than the tiny bound, and a larger a with a narrow b
SHAPES = [((8, 8), (8, 40)), ((20, 20), (20, 1)), ((2, 6, 6), (2, 6, 30))]


@pytest.mark.parametrize("kind", ["random", "tril", "zero_row", "subnormal"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("ashape,bshape", SHAPES, ids=str)
def test_lu_solve_step_gives_the_separate_calls_bits(ashape, bshape, dtype, kind, compile_always):
    """One window and one flushing context around getrf and both trsm: the bits of the separate
    nodes in both tiers, where the calls alone would take different windows (tiny LU, wide b), and
    where subnormal intermediates are flushed."""
    A = _data(ashape, dtype, 3, "zero_row" if kind == "zero_row" else "tril" if kind == "tril" else "random")
    B = _data(bshape, dtype, 4)
    if kind == "subnormal":  # a tiny scale: the solve's intermediates are subnormal
        B = (B * np.finfo(np.dtype(dtype)).tiny * 1e-3).astype(dtype)
    a, b = xp.asarray(A), xp.asarray(B)
    fused = Array._wrap(L.lu_solve(a._node, b._node, "cpu"), DEV)
    host, compiled = both(fused)
    old_host, old_compiled = both(_separate(a, b))
    assert_same(host, compiled)
    assert_same(host, old_host)
    assert_same(compiled, old_compiled)
    np.testing.assert_array_equal(np.asarray(a), A)
    np.testing.assert_array_equal(np.asarray(b), B)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_solve_step_equals_the_public_calls(dtype):
    """lapack_host.lu_solve against decompose("lu") + two triangular_solve (each its own window
    and context), bit for bit, with and without the kept window."""
    from lazyarray import _dtypes as dt
    for ashape, bshape in SHAPES:
        A, B = _data(ashape, dtype, 5), _data(bshape, dtype, 6)
        specs = [(s, d.np) for s, d in L._outputs("lu", ashape, dt.as_dtype(dtype), ())]
        lu, _, perm = lapack_host.decompose("lu", (), A, specs)
        pb = np.take(B, perm, axis=0) if B.ndim == 2 else np.take_along_axis(B, perm[..., None], axis=-2)
        want = lapack_host.triangular_solve(lu, lapack_host.triangular_solve(lu, pb, True, True), False, False)
        for window in (None, lapack_host.lu_solve_window(A.shape, B.shape, B.dtype)):
            got = lapack_host.lu_solve(A, B, specs, window)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("name,shape", [("cholesky", (8, 8)), ("cholesky", (3, 5, 5)), ("svdvals", (6, 4))])
def test_one_output_kernels_step_without_the_memo(name, shape):
    from lazyarray import _graph
    rng = np.random.default_rng(2)
    a = rng.standard_normal(shape)
    if name == "cholesky":
        a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    node, = L.kernel(name, _graph.leaf(a) if hasattr(_graph, "leaf") else xp.asarray(a)._node, DEV.platform)
    step = host_step(node)
    assert step.func is L._sole_output_step
    before = len(L._host_outputs)
    got = step(L._evaluate_operand(None, a))
    assert len(L._host_outputs) == before
    want = L._evaluate_kernel(node, L._evaluate_operand(None, a))
    assert_same(got, want)


KERNEL_CASES = [("lu", (), (6, 6)), ("cholesky", (), (2, 4, 4)), ("qr", (False,), (7, 4)), ("qr", (True,), (7, 4)),
                ("eigh", (), (5, 5)), ("eig", (), (5, 5)), ("svd", (False,), (6, 4)), ("svd", (True,), (4, 6)),
                ("svdvals", (), (3, 5))]


@pytest.mark.parametrize("name,params,shape", KERNEL_CASES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_kernel_nodes_bound_from_the_plan_are_the_rules(name, params, shape, dtype):
    """`kernel` binds its nodes with kept attributes, shapes and dtypes: those the rules give,
    the second time (from the plan) as the first."""
    a = xp.asarray(np.ones(shape, dtype))._node
    for _ in range(2):
        nodes = L.kernel(name, a, DEV.platform, *params)
        operand = nodes[0].args[0]
        if len(nodes) == 1:  # one output: recorded on its input, no operand node
            assert operand is a
        else:
            assert operand.op is L.LINALG_OPERAND and operand.args == (a,)
            assert (operand.shape, operand.dtype) == L.LINALG_OPERAND.rule((a,), ())
        for i, n in enumerate(nodes):
            assert n.op is L.LINALG_KERNEL and n.args == (operand,)
            assert n.attrs == L.LINALG_KERNEL.Attrs(name, tuple(params), DEV.platform, i)
            assert (n.shape, n.dtype) == L.LINALG_KERNEL.rule((operand,), n.attrs)


def test_kernel_of_a_non_floating_operand_raises_every_time():
    a = xp.asarray(np.ones((3, 3), np.int32))._node
    for _ in range(2):
        with pytest.raises(AssertionError):
            L.kernel("cholesky", a, DEV.platform)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_solve_fast_path_records_the_general_paths_node(dtype, monkeypatch):
    import lazyarray.linalg as LN
    from lazyarray import _config
    monkeypatch.setattr(_config, "checks", False)
    A, B = _data((5, 5), dtype, 7), _data((5, 3), dtype, 8)
    a, b = xp.asarray(A), xp.asarray(B)
    fast = LN.solve(a, b)._node
    kept = LN._LU_SOLVE_DTYPES
    monkeypatch.setattr(LN, "_LU_SOLVE_DTYPES", ())
    general = LN.solve(a, b)._node
    assert fast.op is general.op is L.LU_SOLVE
    assert fast.args == general.args == (a._node, b._node)
    assert (fast.attrs, fast.shape, fast.dtype) == (general.attrs, general.shape, general.dtype)
    monkeypatch.setattr(LN, "_LU_SOLVE_DTYPES", kept)
    host, compiled = both(LN.solve(a, b))
    assert_same(host, compiled)
    tol = 1e-3 if dtype in ("float32", "complex64") else 1e-10
    np.testing.assert_allclose(host, np.linalg.solve(A, B), rtol=tol, atol=tol)


@pytest.mark.parametrize("checks", [False, True])
def test_solve_fast_path_leaves_other_calls_to_the_general_path(checks, monkeypatch):
    from lazyarray import _config
    monkeypatch.setattr(_config, "checks", checks)
    f = xp.asarray(np.eye(3))
    assert (xp.linalg.solve(f, f)._node.op is L.LU_SOLVE) == (not checks)
    with pytest.raises(TypeError):
        xp.linalg.solve(xp.asarray(np.eye(3, dtype=np.int64)), xp.asarray(np.ones((3, 2), np.int64)))
    with pytest.raises(ValueError):
        xp.linalg.solve(xp.asarray(np.ones((3, 4))), xp.asarray(np.ones((3, 2))))
    with pytest.raises(ValueError):
        xp.linalg.solve(f, xp.asarray(np.ones((4, 2))))
    # a float32 b beside float64 a: promoted; a vector b; an empty b
    x = xp.linalg.solve(f, xp.asarray(np.ones((3, 2), np.float32)))
    assert x.dtype == xp.float64 and np.array_equal(np.asarray(x), np.ones((3, 2)))
    assert np.array_equal(np.asarray(xp.linalg.solve(f, xp.asarray(np.ones(3)))), np.ones(3))
    assert np.asarray(xp.linalg.solve(f, xp.asarray(np.ones((3, 0))))).shape == (3, 0)


@pytest.mark.parametrize("name,shape", [("cholesky", (8, 8)), ("cholesky", (2, 20, 20)), ("svdvals", (6, 4))])
def test_one_output_kernel_without_operand_weighs_as_with_one(name, shape):
    """A one-output kernel recorded on its input: the tier policy's compile estimate and the
    interpreter's coverage are those of the graph with the operand node (as recorded before),
    and both tiers give the bits that graph gives."""
    from lazyarray import _tier_policy
    from lazyarray._ops import elementwise as E
    rng = np.random.default_rng(9)
    x = rng.standard_normal(shape)
    if name == "cholesky":
        x = x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])
    a = xp.asarray(x)
    base = E.NEGATE(a._node)  # (a computed input, as a consumer's graph has)
    new, = L.kernel(name, base, DEV.platform)
    assert new.args == (base,)
    operand = L.LINALG_OPERAND.bind((base,))
    old = L.LINALG_KERNEL.bind((operand,), new.attrs)
    assert _tier_policy.compile_seconds([base, new]) == pytest.approx(_tier_policy.compile_seconds([base, operand, old]))
    assert new.op.interpretable(new) == old.op.interpretable(old)
    host, compiled = both(Array._wrap(new, DEV))
    old_host, old_compiled = both(Array._wrap(old, DEV))
    assert_same(host, compiled)
    assert_same(host, old_host)
    assert_same(compiled, old_compiled)
