"""OpenBLAS thread counts (`_blas_threads`): small LAPACK calls run on one thread in both tiers
(the bits stay the compiled program's where 1 and 2 threads give different bits), the user's
setting comes back after every call, concurrent calls keep their count, and large calls are
left to the compiled tier."""
import threading

import numpy as np
import pytest

from lazyarray import _blas_threads as bt
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._ops import lapack_host
from tier_check import DEV, assert_same, both, compile_always, leaf, unsupported  # noqa: F401

LAPACK = bt._library("lapack")
NUMPY = bt._library("numpy")
needs_lapack = pytest.mark.skipif(LAPACK is None, reason="SciPy's LAPACK is not an OpenBLAS")


@pytest.fixture
def two_threads():
    """SciPy's OpenBLAS on 2 threads for the test (where 1 and 2 give different bits), then the
    count it had."""
    before = LAPACK.threads()
    LAPACK._set(2)
    if LAPACK.threads() != 2:
        LAPACK._set(before)
        pytest.skip("this OpenBLAS cannot run 2 threads here")
    yield
    LAPACK._set(before)


def _direct(name, params, a, threads):
    """The kernel on `threads` OpenBLAS threads, outside any window."""
    before = LAPACK.threads()
    LAPACK._set(threads)
    try:
        return lapack_host.KERNELS[name](np.array(a, order="F", copy=True), *params)
    finally:
        LAPACK._set(before)


def _matrix(name, shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a @ a.T + shape[0] * np.eye(shape[0]) if name in ("cholesky", "eigh") else a


# (kernel, params, shape): sizes where 2 OpenBLAS threads change the bits on this project's machine
THREADED = [("svd", (False,), (5000, 50)), ("lu", (), (400, 400)), ("cholesky", (), (400, 400))]


@needs_lapack
@pytest.mark.usefixtures("compile_always", "two_threads")
@pytest.mark.parametrize("name,params,shape", THREADED, ids=lambda v: str(v))
def test_tiers_agree_where_threads_change_the_bits(name, params, shape):
    a = _matrix(name, shape, seed=0)
    one, two = _direct(name, params, a, 1), _direct(name, params, a, 2)
    for node, want in zip(ops.kernel(name, leaf(a), DEV.platform, *params), one):
        got, compiled = both(node)
        assert_same(got, compiled)  # interpreter == compiled program, bit for bit
        assert_same(got, want)      # ... both on one thread, as the rule says for this size
    assert LAPACK.threads() == 2    # and the setting is back
    if all(np.array_equal(p, q) for p, q in zip(one, two)):
        pytest.skip("1 and 2 threads give the same bits here: the agreement above proves less")


@needs_lapack
@pytest.mark.usefixtures("compile_always", "two_threads")
def test_triangular_solve_tiers_agree():
    rng = np.random.default_rng(4)
    a = np.eye(600) + np.tril(rng.standard_normal((600, 600))) / 60
    b = rng.standard_normal((600, 40))
    got, compiled = both(ops.triangular_solve(leaf(a), leaf(b), True, False, DEV.platform))
    assert_same(got, compiled)
    np.testing.assert_allclose(a @ got, b, atol=1e-9)
    assert LAPACK.threads() == 2


@needs_lapack
@pytest.mark.parametrize("user", [1, 2, 3])
def test_user_setting_restored_and_call_runs_on_one_thread(user):
    before = LAPACK.threads()
    LAPACK._set(user)
    seen = []
    try:
        real = lapack_host.KERNELS["svd"]
        lapack_host.KERNELS["svd"] = lambda a, full, **kw: (seen.append(LAPACK.threads()), real(a, full, **kw))[1]
        try:
            a = np.random.default_rng(1).standard_normal((300, 20))
            specs = [((300, 20), np.float64), ((20,), np.float64), ((20, 20), np.float64)]
            u, s, vt = lapack_host.decompose("svd", (False,), a, specs)
        finally:
            lapack_host.KERNELS["svd"] = real
        np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
        assert seen == [1]
        assert LAPACK.threads() == _count_after_set(user)
    finally:
        LAPACK._set(before)


def _count_after_set(n):
    """What the library reports after set(n) outside any window (it may cap n at its pool)."""
    before = LAPACK.threads()
    LAPACK._set(n)
    got = LAPACK.threads()
    LAPACK._set(before)
    return got


@needs_lapack
def test_large_calls_keep_the_users_setting_and_stay_off_the_host():
    big = leaf(np.zeros((1100, 1000)))   # 1100 * 1000 * 1000 multiply-adds >= ONE_THREAD_WORK
    small = leaf(np.zeros((1000, 1000)))
    assert bt.decomposition_work(big.shape, big.dtype) >= bt.ONE_THREAD_WORK
    assert bt.decomposition_work(small.shape, small.dtype) < bt.ONE_THREAD_WORK
    assert all(unsupported(n) for n in ops.kernel("svd", big, DEV.platform, False))
    assert not any(unsupported(n) for n in ops.kernel("svd", small, DEV.platform, False))
    before = LAPACK.threads()
    with bt.lapack_call(bt.ONE_THREAD_WORK):
        assert LAPACK.threads() == before
    with bt.lapack_call(bt.ONE_THREAD_WORK - 1):
        assert LAPACK.threads() == 1
    assert LAPACK.threads() == before


def test_programs_are_classified_by_their_largest_call():
    x_small, x_big = leaf(np.zeros((50, 50))), leaf(np.zeros((1100, 1000)))
    small = ops.kernel("eigh", x_small, "cpu")
    big = ops.kernel("svd", x_big, "cpu", False)
    assert bt._classify([small[0].args[0], *small]) is True
    assert bt._classify([*small, *big]) is False
    assert bt._classify([leaf(np.zeros(3))]) is bt._NO_LAPACK
    assert bt._classify(ops.kernel("svd", x_small, "gpu", False)) is bt._NO_LAPACK  # cuSOLVER's
    assert bt.decomposition_work((2, 3, 10, 4), dt.complex128) == 2 * 3 * 10 * 4 * 4 * 4
    from types import SimpleNamespace as NS   # a loop whose body holds the calls (REPEAT's attrs.body)
    loop = NS(op=NS(name="repeat"), attrs=NS(body=NS(nodes=[*small, *big])), args=())
    assert bt._classify([leaf(np.zeros(3)), loop]) is False


@needs_lapack
@pytest.mark.usefixtures("two_threads")
def test_concurrent_calls_keep_one_thread_and_restore():
    a = np.random.default_rng(5).standard_normal((5000, 50))
    want = _direct("svd", (False,), a, 1)
    specs = [((5000, 50), np.float64), ((50,), np.float64), ((50, 50), np.float64)]
    errors = []

    def worker():
        try:
            for _ in range(3):
                got = lapack_host.decompose("svd", (False,), a, specs)
                for g, w in zip(got, want):
                    assert np.array_equal(g, w)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert LAPACK.threads() == 2


class _FakeLibrary(bt._Library):
    def __init__(self):
        self.count, self.log = 4, []
        super().__init__("fake", self._set_count, lambda: self.count, 0)

    def _set_count(self, n):
        self.count = n
        self.log.append(n)


def test_large_call_waits_for_the_small_calls_window():
    lib = _FakeLibrary()
    order = []
    lib.enter(True)   # a small call's window: 1 thread
    assert lib.count == 1
    lib.enter(True)   # another small call joins it
    waiter = threading.Thread(target=lambda: (lib.enter(False), order.append(("large", lib.count)), lib.exit()))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive() and not order   # the large call waits while the window is open
    lib.exit()
    waiter.join(0.2)
    assert waiter.is_alive()
    order.append(("closed", None))
    lib.exit()        # the last small call restores 4, then the large call runs on it
    waiter.join(5)
    assert order == [("closed", None), ("large", 4)]
    assert lib.log == [1, 4] and lib.count == 4


@pytest.mark.skipif(NUMPY is None, reason="numpy's BLAS is not an OpenBLAS")
def test_interpreter_matmul_restores_numpy_setting():
    import lazyarray as xp
    before = NUMPY.threads()
    x = np.random.default_rng(6).standard_normal((500, 40))
    got = np.asarray(xp.asarray(x).T @ xp.asarray(x))
    np.testing.assert_allclose(got, x.T @ x, rtol=1e-12, atol=1e-9)
    assert NUMPY.threads() == before
    with bt.numpy_matmul(bt.NUMPY_WINDOW_FROM):
        assert NUMPY.threads() == 1
    with bt.numpy_matmul(bt.NUMPY_WINDOW_FROM - 1):  # (OpenBLAS threads none so small)
        assert NUMPY.threads() == before
    assert NUMPY.threads() == before


@needs_lapack
def test_mode_own_leaves_openblas_alone_and_tiers_still_agree():
    """LAZYARRAY_BLAS_THREADS=own: no window anywhere, large calls host-evaluated again, and both
    tiers on the library's own count (2 here) still give the same bits."""
    import os
    import subprocess
    import sys
    code = """if True:
        import sys; sys.path.insert(0, %r)
        import numpy as np
        from lazyarray import _blas_threads as bt, _config, _ops as ops
        from lazyarray._ops import lapack_host
        from tier_check import DEV, assert_same, both, leaf, unsupported
        assert bt.MODE == "own" and bt._library("lapack") is None
        assert not unsupported(ops.kernel("svd", leaf(np.zeros((1100, 1000))), DEV.platform, False)[0])
        import ctypes
        lib = ctypes.CDLL(lapack_host._scipy_linalg_module("_flapack").__file__)
        get = next(getattr(lib, n) for n in ("scipy_openblas_get_num_threads", "openblas_get_num_threads")
                   if hasattr(lib, n))
        setn = next(getattr(lib, n) for n in ("scipy_openblas_set_num_threads", "openblas_set_num_threads")
                    if hasattr(lib, n))
        setn(2)
        _config.interpret_first = 0
        a = np.random.default_rng(0).standard_normal((5000, 50))
        for node in ops.kernel("svd", leaf(a), DEV.platform, False):
            got, compiled = both(node)
            assert_same(got, compiled)
        assert get() == 2
        print("ok")
    """ % os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, LAZYARRAY_BLAS_THREADS="own")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
    bad = subprocess.run([sys.executable, "-c", "import lazyarray._blas_threads"], capture_output=True, text=True,
                         env=dict(os.environ, LAZYARRAY_BLAS_THREADS="two"), timeout=300)
    assert bad.returncode != 0 and "LAZYARRAY_BLAS_THREADS='two': expected one of auto, own" in bad.stderr
