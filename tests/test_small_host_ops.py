"""Small host ops made cheap without changing a bit: the interpreter's prepared dot step, the
matmul window rule (no one-thread window where OpenBLAS runs one thread anyway) and the LAPACK
calls' floating-point environment."""
import os
import threading
import time

import numpy as np
import pytest

from lazyarray import _blas_threads as bt, _dtypes as dt
from lazyarray._interpret import Stub
from lazyarray._ops import dot as D
from lazyarray._ops.core import host_step

DTYPES = {"float32": dt.float32, "float64": dt.float64}


def _dot_stub(xshape, yshape, attrs, dtype):
    lx, ly = Stub(None, (), (), xshape, dtype), Stub(None, (), (), yshape, dtype)
    node = Stub(D.DOT_GENERAL, (lx, ly), D.DOT_GENERAL.Attrs(*attrs), None, dtype)
    node.shape = D._dot_shape(xshape, yshape, node.attrs, dtype)
    return node


def _reference(x, y, attrs):
    """The old evaluation's computation, spelled out: transpose, reshape to (b, m, k) @ (b, k, n),
    np.matmul when both are finite, else einsum (NaN-exact)."""
    lb, rb, lc, rc = attrs
    lfree = [i for i in range(x.ndim) if i not in lb and i not in lc]
    rfree = [i for i in range(y.ndim) if i not in rb and i not in rc]
    size = lambda s, axes: int(np.prod([s[i] for i in axes], dtype=np.int64))  # noqa: E731
    b, m, n, k = size(x.shape, lb), size(x.shape, lfree), size(y.shape, rfree), size(x.shape, lc)
    xm = np.transpose(x, list(lb) + lfree + list(lc)).reshape(b, m, k)
    ym = np.transpose(y, list(rb) + list(rc) + rfree).reshape(b, k, n)
    if np.isfinite(xm).all() and np.isfinite(ym).all():
        with bt.numpy_matmul(b * m * n * k):  # (the old rule's window: a large sgemm's bits
            return np.matmul(xm, ym)           # depend on the thread count)
    return np.einsum("bmk,bkn->bmn", xm, ym)


CASES = [  # (x shape, y shape, (lhs_batch, rhs_batch, lhs_contract, rhs_contract), same array)
    ((300, 8), (300, 8), ((), (), (0,), (0,)), True),    # X.T @ X
    ((300, 8), (8,), ((), (), (1,), (0,)), False),       # X @ w
    ((8,), (300, 8), ((), (), (0,), (1,)), False),       # w @ X.T
    ((8, 8), (8, 8), ((), (), (1,), (0,)), False),
    ((8, 8), (8, 8), ((), (), (1,), (1,)), True),        # A @ A.T
    ((64, 64), (64, 64), ((), (), (1,), (0,)), False),   # at the window-free bound
    ((100, 100), (100, 100), ((), (), (1,), (0,)), False),  # above it: a window
    ((3, 5, 4), (3, 4, 6), ((0,), (0,), (2,), (1,)), False),  # batched
    ((4, 3, 5), (5, 3, 2), ((1,), (1,), (2,), (0,)), False),  # batch axes not leading
    ((5,), (5,), ((), (), (0,), (0,)), False),           # vecdot
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}x{c[1]}" for c in CASES])
@pytest.mark.parametrize("special", [False, True])
def test_prepared_dot_step_bits(dtype, case, special):
    xshape, yshape, attrs, same = case
    d = DTYPES[dtype]
    rng = np.random.default_rng(len(xshape) + sum(xshape))
    x = rng.standard_normal(xshape).astype(d.np)
    y = x if same else rng.standard_normal(yshape).astype(d.np)
    if special:  # 0 * inf must give NaN (BLAS may skip the zero): the einsum path
        x = x.copy()
        x.flat[0], x.flat[-1] = np.inf, 0.0
        if same:
            y = x
        else:
            y = y.copy()
            y.flat[0], y.flat[-1] = 0.0, np.nan
    node = _dot_stub(xshape, yshape, attrs, d)
    step = host_step(node)
    assert step is not None and getattr(step, "func", None) is D._dot_step  # the prepared form
    with np.errstate(all="ignore"):
        got, evaluated = step(x, y), D._dot(node, x, y)
        want = _reference(x, y, attrs).reshape(node.shape)
    assert got.shape == node.shape and got.dtype == d.np
    assert got.tobytes() == want.tobytes() == evaluated.tobytes()
    if special:
        assert not np.isfinite(got).all()


def test_prepared_dot_only_for_real_floats():
    for d in (dt.int32, dt.complex128):
        node = _dot_stub((3, 4), (4, 2), ((), (), (1,), (0,)), d)
        assert getattr(host_step(node), "func", None) is not D._dot_step


def test_window_rule():
    lib = bt._library("numpy")
    if lib is None:
        pytest.skip("numpy's BLAS is not an OpenBLAS")
    assert not bt.numpy_matmul_window(1, 300, 8, 8)  # 19,200: a matrix product, one thread
    assert not bt.numpy_matmul_window(1, 64, 64, 64)
    assert bt.numpy_matmul_window(1, 64, 65, 64)
    assert not bt.numpy_matmul_window(1, 1, 8190 // 2, 2)  # vector products: gemv's bound, as before
    assert bt.numpy_matmul_window(1, 1, 8192, 1) and bt.numpy_matmul_window(1, 8192, 1, 1)
    assert not bt.numpy_matmul_window(1, 2000, 1000, 1000)  # large: the user's own count


def _thread_ticks():
    """{native thread id: CPU clock ticks} of this process's threads other than its Python
    threads (/proc)."""
    python = {t.native_id for t in threading.enumerate()}  # (ours: idle or not, not OpenBLAS's)
    ticks = {}
    for tid in os.listdir("/proc/self/task"):
        if int(tid) in python:
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # (a thread that ended meanwhile)
            continue
        ticks[int(tid)] = int(fields[11]) + int(fields[12])
    return ticks


def _ticks_during(fn, calls):
    """{thread id: ticks gained} over `calls` calls of fn (OpenBLAS's workers spin a while after
    their last work: settled before and after)."""
    time.sleep(0.3)
    before = _thread_ticks()
    for _ in range(calls):
        fn()
    time.sleep(0.3)
    return {tid: t - before.get(tid, 0) for tid, t in _thread_ticks().items()}


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_openblas_runs_window_free_products_on_one_thread():
    """The window rule's premise, observed: with numpy's OpenBLAS on 2 threads, the products the
    rule leaves without a window never wake its worker threads (found first as the threads a
    200x200x200 product, which the rule windows, does wake), over 2000 calls (a woken worker
    spins for many clock ticks); and their bits are those of a one-thread run."""
    lib = bt._library("numpy")
    if lib is None or (os.cpu_count() or 1) < 2:
        pytest.skip("numpy's BLAS is not an OpenBLAS, or one core")
    saved = lib.threads()
    rng = np.random.default_rng(3)
    try:
        lib._set(2)
        # (200^3: OpenBLAS's Haswell kernels thread 100^3 already, its SkylakeX ones not yet)
        big = rng.standard_normal((1, 200, 200))
        assert bt.numpy_matmul_window(1, 200, 200, 200)
        workers = {tid for tid, t in _ticks_during(lambda: np.matmul(big, big), 500).items() if t > 0}
        assert workers  # the control: OpenBLAS does run a worker for a product the rule windows
        for m, k, n, same in [(8, 300, 8, True), (64, 64, 64, False), (8, 4000, 8, True), (181, 8, 181, True)]:
            assert not bt.numpy_matmul_window(1, m, n, k)
            b = rng.standard_normal((k, n))
            a = b.T[None] if same else rng.standard_normal((1, m, k))
            b = b[None]

            def woken():
                return sum(t for tid, t in _ticks_during(lambda: np.matmul(a, b), 2000).items() if tid in workers)
            ticks = woken() or 0
            if ticks:  # (once more: another library's thread among `workers` may have run meanwhile)
                ticks = woken()
            assert ticks == 0, f"{m}x{k}x{n}: OpenBLAS's workers ran {ticks} ticks"
            threaded = np.matmul(a, b)
            lib._set(1)
            one = np.matmul(a, b)
            lib._set(2)
            assert threaded.tobytes() == one.tobytes()
    finally:
        lib._set(saved)


# ---------------------------------------------------------------- host LAPACK calls

from lazyarray._ops import lapack_host  # noqa: E402

LAPACK_DTYPES = ["float32", "float64", "complex64", "complex128"]


def _matrix(n, dtype, seed, positive=True):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((n, n))
    a = a.astype(dtype)
    return (a @ a.conj().T + n * np.eye(n, dtype=dtype)).astype(dtype) if positive else a


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
@pytest.mark.parametrize("positive", [True, False])
def test_cholesky_bits_as_before(dtype, positive):
    """potrf's clean=1 result stands for np.tril of it (the old evaluation); a failed
    factorization (info != 0) is still all NaN with the strict upper triangle zeroed."""
    for n in (1, 3, 8, 33):
        a = _matrix(n, dtype, n, positive)
        if not positive:
            a[0, 0] = -1  # not positive definite: info > 0
        potrf = lapack_host._lapack("potrf", a.dtype)
        with lapack_host._flush_denormals():
            c, info = potrf(np.array(a, order="F"), lower=1, clean=1)
        if info != 0:
            c[...] = complex(np.nan, np.nan) if c.dtype.kind == "c" else np.nan
        want = np.tril(c)
        got, = lapack_host.decompose("cholesky", (), a, [(a.shape, a.dtype)])
        assert got.dtype == want.dtype and got.tobytes() == np.ascontiguousarray(want).tobytes()
        assert (info != 0) == (not positive)


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
def test_triangles_equal_numpys(dtype):
    for shape in [(1, 1), (3, 5), (5, 3), (8, 8)]:
        m = _matrix(max(shape), dtype, 1, False)[:shape[0], :shape[1]]
        m[0, -1] = np.nan
        for _ in range(2):  # (the second time from the kept mask)
            assert lapack_host._lower_triangle(m).tobytes() == np.tril(m).tobytes()
            assert lapack_host._upper_triangle(m).tobytes() == np.triu(m).tobytes()


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
def test_workspaces_kept_equal_fresh_queries(dtype):
    d = np.dtype(dtype)
    query = lapack_host._lapack("gesdd_lwork", d)
    for m, n in [(300, 8), (8, 300), (50, 50)]:
        fresh, info = query(m, n, compute_uv=1, full_matrices=0)
        assert info == 0
        for _ in range(2):
            assert lapack_host._workspace(query, m, n, compute_uv=1, full_matrices=0) == int(np.real(fresh))
    # qr through decompose (kept geqrf and orgqr sizes) equals the routine with fresh queries
    a = _matrix(9, dtype, 2, False)[:, :6]
    for _ in range(2):
        q, r = lapack_host.decompose("qr", (False,), a, [((9, 6), d), ((6, 6), d)])
    geqrf, orgqr = lapack_host._lapack("geqrf", d), lapack_host._lapack("ungqr" if d.kind == "c" else "orgqr", d)
    with lapack_host._flush_denormals():
        work, _ = lapack_host._lapack("geqrf_lwork", d)(9, 6)
        qr, tau, _, _ = geqrf(np.array(a, order="F"), lwork=int(np.real(work)))
        _, work, _ = orgqr(np.asfortranarray(qr[:, :6]), tau, lwork=-1)
        q2, _, _ = orgqr(np.asfortranarray(qr[:, :6]), tau, lwork=int(np.real(work[0])))
    assert np.ascontiguousarray(q).tobytes() == np.ascontiguousarray(q2).tobytes()
    assert np.ascontiguousarray(r).tobytes() == np.triu(qr[:6]).tobytes()


@pytest.mark.parametrize("dtype", LAPACK_DTYPES)
def test_triangular_solve_one_matrix_as_stacked(dtype):
    """A single matrix's solve (trsm's own result) equals the same matrix solved as a stack."""
    a = np.tril(_matrix(8, dtype, 3))
    b = _matrix(8, dtype, 4, False)[:, :3]
    for lower, unit in [(True, False), (False, True)]:
        t = a if lower else a.T.copy()
        one = lapack_host.triangular_solve(t, b, lower, unit)
        stacked = lapack_host.triangular_solve(t[None], b[None], lower, unit)[0]
        assert one.shape == b.shape and one.dtype == b.dtype
        assert np.ascontiguousarray(one).tobytes() == stacked.tobytes()
        assert not np.shares_memory(one, b)


def test_flush_denormals_sets_and_restores():
    import ctypes
    if lapack_host._LIBM is None:
        pytest.skip("x86-64 Linux only")

    def mxcsr():
        env = ctypes.create_string_buffer(32)
        lapack_host._LIBM.fegetenv(env)
        return ctypes.c_uint32.from_buffer(env, lapack_host._MXCSR_OFFSET).value

    before = mxcsr()
    tiny = np.array([np.finfo(np.float64).smallest_subnormal])
    for _ in range(2):  # (the second time from the kept environment)
        with lapack_host._flush_denormals():
            assert mxcsr() & lapack_host._MXCSR_FTZ_DAZ == lapack_host._MXCSR_FTZ_DAZ
            assert (tiny * np.array([1.0]))[0] == 0.0
        assert mxcsr() == before
        assert (tiny * np.array([1.0]))[0] > 0.0


# ---------------------------------------------------------------- x ** 2

@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_power_by_two_is_powers_bits(npdt):
    """The interpreter's x ** 2 (np.square) gives np.power's bits: random bit patterns (all
    exponents, subnormals, NaN payloads), normal samples, special values; a 0-D base too."""
    from lazyarray._ops import elementwise as E
    rng = np.random.default_rng(11)
    udt = np.uint32 if npdt is np.float32 else np.uint64
    x = np.concatenate([rng.integers(0, np.iinfo(udt).max, 200_000, dtype=udt, endpoint=True).view(npdt),
                        rng.standard_normal(100_000).astype(npdt),
                        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0], npdt),
                        np.array([np.finfo(npdt).max, np.finfo(npdt).tiny, np.finfo(npdt).smallest_subnormal], npdt)])
    node = Stub(E.POWER, (), (), x.shape, dt.float32 if npdt is np.float32 else dt.float64)
    two = np.array(2.0, npdt)
    with np.errstate(all="ignore"):
        got, want = E._power(node, x, two), np.power(x, two)
        assert got.tobytes() == want.tobytes()
        for v in x[:50]:
            base = np.array(v)
            assert np.asarray(E._power(node, base, two)).tobytes() == np.asarray(np.power(base, two)).tobytes()
        # other exponents (and an array exponent of 2s) take np.power as before
        assert E._power(node, x, np.array(3.0, npdt)).tobytes() == np.power(x, np.array(3.0, npdt)).tobytes()
        twos = np.full(x.shape, 2.0, npdt)  # (numpy's pow loop, not its scalar-2 one: other bits)
        assert E._power(node, x, twos).tobytes() == np.power(x, twos).tobytes()


def test_power_by_two_through_the_namespace():
    import lazyarray as xp
    x = np.random.default_rng(12).standard_normal((50, 7))
    got = np.asarray(xp.asarray(x) ** 2)
    assert got.tobytes() == np.power(x, 2.0).tobytes()


def test_decomposition_outputs_kept_while_the_operand_lives():
    """A decomposition's siblings come from one LAPACK call; the memo entry goes with the operand."""
    import gc
    from lazyarray._ops import linalg as L
    calls = []
    real = lapack_host.KERNELS["svd"]

    def counting(a, full, **kw):
        calls.append(a.shape)
        return real(a, full, **kw)
    x = np.random.default_rng(5).standard_normal((30, 4))
    leaf = Stub(None, (), (), x.shape, dt.float64)
    operand = Stub(L.LINALG_OPERAND, (leaf,), (), x.shape, dt.float64)
    nodes = [Stub(L.LINALG_KERNEL, (operand,), L.LINALG_KERNEL.Attrs("svd", (False,), "cpu", i), None, dt.float64)
             for i in range(3)]
    lapack_host.KERNELS["svd"] = counting
    try:
        before = len(L._host_outputs)
        value = L._evaluate_operand(operand, x)
        u, s, vt = [L._evaluate_kernel(n, value) for n in nodes]
        assert len(calls) == 1 and len(L._host_outputs) == before + 1
        want = np.linalg.svd(x, full_matrices=False)
        np.testing.assert_allclose(np.abs(u), np.abs(want[0]), atol=1e-10)
        np.testing.assert_allclose(s, want[1], rtol=1e-12)
        del value
        gc.collect()
        assert len(L._host_outputs) == before
        value = L._evaluate_operand(operand, x)  # a new operand value: a new call
        L._evaluate_kernel(nodes[1], value)
        assert len(calls) == 2
    finally:
        lapack_host.KERNELS["svd"] = real
