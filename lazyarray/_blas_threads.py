"""How many OpenBLAS threads a LAPACK or BLAS call runs on: one for the small calls, in both tiers.

Why: OpenBLAS's worker threads spin-wait for work. Where the cores are shared (a busy laptop, CI,
this project's 2-core machine with other jobs) a thin SVD of 5000x50 took 3.1 s on 2 threads
against 0.05 s on 1, and numpy's 18 small matmuls of a scikit-learn Pipeline 320-820 ms against
4 ms. Two threads pay only for large calls on an idle machine (on 2 idle cores: ~1.4x from about
800x800, 1.6-1.8x at 1500x1500). So a call whose work (multiply-adds, below) is under
`ONE_THREAD_WORK` runs on one thread; a larger one on the library's own setting (the user's).

Bits: 1 and 2 threads give different gesdd/syevd bits, and the interpreter tier must give the
compiled program's bits (`_ops.lapack_host`). So the choice depends on nothing but the call's
shapes and dtype, and both tiers apply it: the host LAPACK calls (`lapack_host`, per call) and the
execution of a compiled program containing LAPACK custom calls (`_run_program`, per program: one
thread when all of its calls are small). A program mixing a small and a large call would get one
setting for both, unlike the host, so the host evaluates no large call (`host_may_evaluate`, the
LAPACK ops' `covers`): a graph with one is always compiled, and both tiers agree on every graph
either may run.

The libraries: SciPy's LAPACK (which jaxlib's CPU kernels also call, through
scipy.linalg.cython_lapack) and numpy's BLAS (the interpreter's matmul; XLA's dot does not use it,
and its bits are the interpreter's own anyway) may be two different OpenBLAS builds. Each is
found as the library its extension module links (dlsym through the module's handle searches its
dependencies), controlled by its set/get_num_threads (about 1 us a switch; threadpoolctl's
limits cost ~0.7 ms). A library without those symbols (MKL, Accelerate) is left alone.

Threads: the setting is process-wide. A window with one thread opens at the first small call
and closes (the saved setting restored) when the last overlapping small call ends; a large
LAPACK call waits for no window to be open, and small calls wait for it, so every call of
lazyarray's runs on the count its shapes say. A user's own concurrent SciPy/numpy call made while
a window is open runs on one thread too, and a thread count the user sets during a window is
replaced by the saved one when the window closes (a limitation of a process-wide setting).

LAZYARRAY_BLAS_THREADS=own (read at import; default auto) leaves every OpenBLAS on its own count:
for idle many-core machines. Both tiers then run every call on that count, so the host may
evaluate calls of any size again.
"""
from __future__ import annotations

import contextlib
import ctypes
import math
import os
import threading

MODES = ("auto", "own")
MODE = os.environ.get("LAZYARRAY_BLAS_THREADS", "auto")
if MODE not in MODES:
    raise ValueError(f"LAZYARRAY_BLAS_THREADS={MODE!r}: expected one of {', '.join(MODES)}")

ONE_THREAD_WORK = 1 << 30  # multiply-adds: ~1000^3, ~0.1-1 s on one core
# numpy matmuls below this many multiply-adds take no window (a switch and back costs 3-13 us):
# OpenBLAS runs them on one thread anyway (its smallest threading threshold, gemv's, is 9216)
NUMPY_WINDOW_FROM = 1 << 13
# ... and matrix-matrix products (both free sizes > 1: numpy calls gemm, or syrk for x.T @ x) up to
# this many: OpenBLAS threads gemm and syrk only above m n k = 65536 * 4 (its SMP_THRESHOLD_MIN
# times GEMM_MULTITHREAD_THRESHOLD). Checked on numpy's OpenBLAS 0.3.31 at 2 threads: its worker
# thread gains no CPU time over 2000 calls of any such product up to 2^18 (gemm 64x64x64,
# 60x60x72, syrk 8x4000, 181x8; it does at 100x100x100), tests/test_small_host_ops.py. The
# 300x8 products of a scikit-learn pass (19,200) took a ~4 us window each before.
GEMM_ONE_THREAD_UPTO = 1 << 18

_KERNEL_OPS = ("linalg_kernel", "triangular_solve", "lu_solve")  # the ops that become LAPACK/BLAS custom calls

# LAPACK and BLAS calls on matrices of at most TINY_SIDE rows and columns (`is_tiny`: every operand,
# a decomposition's outputs included: a full QR of 16x4 makes a 16x16 Q) take no window, in either
# tier: OpenBLAS runs them on one thread whatever its setting, so their bits are a one-thread
# run's anyway, and the switch and back (2-15 us measured around a scikit-learn pass, against ~1 us
# for an 8x8 Cholesky) is saved. Observed on SciPy's OpenBLAS at 2 threads (/proc schedstat of its
# workers over 5000 calls): potrf, getrf and trsm never wake a worker up to 24x24, trsm does from
# 32x32, and a full QR of 256x4 (its 256x256 Q) does; tests/test_gmm_host_steps.py checks every
# kernel at this bound.
TINY_SIDE = 16
_NO_WINDOW = contextlib.nullcontext()  # (reusable: it holds no state)


def decomposition_work(shape, dtype):
    """Multiply-adds of a decomposition of a stack of m x n matrices, up to a constant: m n min(m, n)
    per matrix (complex: 4 real multiply-adds each)."""
    *batch, m, n = shape
    return math.prod(batch) * m * n * min(m, n) * (4 if _is_complex(dtype) else 1)


def solve_work(a_shape, b_shape, dtype):
    """Multiply-adds of a triangular solve of a (..., M, M) with b (..., M, K): M^2 K per matrix."""
    *batch, m, k = b_shape
    return math.prod(batch) * m * m * k * (4 if _is_complex(dtype) else 1)


def matmul_work(b, m, n, k):
    return b * m * n * k


def _is_complex(dtype):
    kind = getattr(dtype, "kind", None)
    return kind == "c"


def is_tiny(*shapes):
    """Whether LAPACK/BLAS calls on matrices of these shapes (their last two axes; a batch is one
    call per matrix) are tiny: no side above `TINY_SIDE`."""
    for shape in shapes:
        if shape[-2] > TINY_SIDE or shape[-1] > TINY_SIDE:
            return False
    return True


def node_work(node):
    """The work of a LAPACK node (`_KERNEL_OPS`), from its operands' shapes."""
    if node.op.name == "linalg_kernel":
        x = node.args[0]
        return decomposition_work(x.shape, x.dtype)
    a, b = node.args
    if node.op.name == "lu_solve":  # (an LU and two triangular solves: the larger's work)
        return max(decomposition_work(a.shape, a.dtype), solve_work(a.shape, b.shape, b.dtype))
    return solve_work(a.shape, b.shape, b.dtype)


def host_may_evaluate(node):
    """Whether the host tier may evaluate this LAPACK node: only calls that run on one thread."""
    return MODE == "own" or node_work(node) < ONE_THREAD_WORK


# ------------------------------------------------------------------ one library's thread count

class _Library:
    """One OpenBLAS build's thread count, switched to 1 for windows of small calls."""

    def __init__(self, name, set_fn, get_fn, address):
        self.name, self._set, self._get, self.address = name, set_fn, get_fn, address
        self._cond = threading.Condition()
        self._mode = None     # None (no window), "one" (small calls running), "own" (large ones)
        self._users = 0
        self._saved = None    # the thread count before the open "one" window

    def threads(self):
        return int(self._get())

    def enter(self, one):
        want = "one" if one else "own"
        with self._cond:
            while self._mode not in (None, want):
                self._cond.wait()
            if self._mode is None:
                self._mode = want
                if one:
                    self._saved = int(self._get())
                    if self._saved != 1:
                        self._set(1)
            self._users += 1

    def exit(self):
        with self._cond:
            self._users -= 1
            if self._users == 0:
                if self._mode == "one" and self._saved != 1:
                    self._set(self._saved)
                self._mode = self._saved = None
                self._cond.notify_all()


_SYMBOLS = [(f"{prefix}openblas_set_num_threads{suffix}", f"{prefix}openblas_get_num_threads{suffix}")
            for prefix in ("scipy_", "") for suffix in ("", "64_")]


def _library_of(name, module_file):
    """The OpenBLAS that the extension module at `module_file` links, or None."""
    try:
        handle = ctypes.CDLL(module_file)
    except OSError:
        return None
    for set_name, get_name in _SYMBOLS:
        try:
            set_fn, get_fn = getattr(handle, set_name), getattr(handle, get_name)
        except AttributeError:
            continue
        set_fn.argtypes, set_fn.restype, get_fn.restype = [ctypes.c_int], None, ctypes.c_int
        address = ctypes.cast(set_fn, ctypes.c_void_p).value
        for lib in _found.values():  # numpy and SciPy on one library (a system OpenBLAS): one state
            if lib is not None and lib.address == address:
                return lib
        return _Library(name, set_fn, get_fn, address)
    return None


_found = {}
_find_lock = threading.Lock()


def _library(which):
    """"lapack" (SciPy's LAPACK, loaded by the first call) or "numpy" (numpy's BLAS), or None
    (not an OpenBLAS, or MODE own)."""
    if MODE == "own":
        return None
    try:
        return _found[which]
    except KeyError:
        pass
    with _find_lock:
        if which not in _found:
            if which == "lapack":
                path = scipy_linalg_extension("_flapack")
            else:
                try:
                    from numpy._core import _multiarray_umath as module
                except ImportError:  # numpy 1.x
                    from numpy.core import _multiarray_umath as module
                path = getattr(module, "__file__", None)
            _found[which] = _library_of(which, path) if path else None
    return _found[which]


def scipy_linalg_extension(name):
    """The file of SciPy's extension module scipy.linalg.<name> (_flapack, _fblas), found without
    importing SciPy, or None (no SciPy, or an unusual layout)."""
    import importlib.machinery
    import importlib.util
    spec = importlib.util.find_spec("scipy")
    if spec is None or not spec.origin:
        return None
    paths = [os.path.join(os.path.dirname(spec.origin), "linalg", name + suffix)
             for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    return next((p for p in paths if os.path.exists(p)), None)


class _Window:
    """The context of one call: the library on one thread (small) or on its own count (large)."""

    __slots__ = ("lib", "one", "_nested")

    def __init__(self, lib, one):
        self.lib, self.one, self._nested = lib, one, False

    def __enter__(self):
        held = _held()
        if self.lib in held:  # this thread holds it already (a nested call): that window serves
            self._nested = True
            return self
        self.lib.enter(self.one)
        held.add(self.lib)
        return self

    def __exit__(self, *exc):
        if not self._nested:
            _held().discard(self.lib)
            self.lib.exit()


_local = threading.local()


def _held():
    held = getattr(_local, "held", None)
    if held is None:
        held = _local.held = set()
    return held


def lapack_call(work, tiny=False):
    """Around a host LAPACK call of `work` multiply-adds (`decomposition_work`, `solve_work`);
    none for a tiny one (`is_tiny`)."""
    if tiny:
        return _NO_WINDOW
    lib = _library("lapack")
    return contextlib.nullcontext() if lib is None else _Window(lib, work < ONE_THREAD_WORK)


def host_program_window():
    """Around one run of an interpreted program with host LAPACK calls, not all of them tiny
    (`_interpret.HostProgram.run`, `is_tiny`): one window on SciPy's LAPACK for all of them, each
    call's own window (`lapack_call`) then nested in it, so free. Every LAPACK call the host
    evaluates is small (`host_may_evaluate`), so each runs on the one thread its own window gave
    it; the run pays one switch and back instead of one per call (~4-5 us each: a 20x20
    GaussianMixture(full) EM step would make 12 calls). Not where numpy's BLAS is the same
    library: its large products, which take no window, would run on one thread too."""
    lib = _library("lapack")
    if lib is None or lib is _library("numpy"):
        return None
    return _Window(lib, True)


def numpy_matmul_window(b, m, n, k):
    """Whether numpy's BLAS matmul of b products (m, k) x (k, n) needs a window (`numpy_matmul`):
    a vector product above `NUMPY_WINDOW_FROM`, a matrix product above `GEMM_ONE_THREAD_UPTO`,
    and neither when large (`ONE_THREAD_WORK`) or when numpy's BLAS is not an OpenBLAS."""
    work = b * m * n * k
    if work >= ONE_THREAD_WORK or work <= (GEMM_ONE_THREAD_UPTO if m > 1 and n > 1 else NUMPY_WINDOW_FROM - 1):
        return False
    return _library("numpy") is not None


def numpy_one_thread():
    """A window with numpy's BLAS on one thread (where `numpy_matmul_window` says one is needed)."""
    lib = _library("numpy")
    return contextlib.nullcontext() if lib is None else _Window(lib, True)


def numpy_matmul(work):
    """Around numpy's BLAS matmul of `work` multiply-adds: one thread when small. (Large ones take
    no window: their bits are no tier's contract, so they need not wait; tiny ones neither.)"""
    if work >= ONE_THREAD_WORK or work < NUMPY_WINDOW_FROM:
        return contextlib.nullcontext()
    lib = _library("numpy")
    return contextlib.nullcontext() if lib is None else _Window(lib, True)


# ------------------------------------------------------------------ compiled programs

_NO_LAPACK = "no LAPACK"
_programs = {}  # program key -> _NO_LAPACK, or whether all its LAPACK calls are small
PROGRAMS_REMEMBERED = 4096


def program_call(key, order):
    """Around executing the compiled program `key` of the plan whose nodes are `order` (a loop's
    body included): a window on SciPy's LAPACK when the program has LAPACK custom calls."""
    small = _programs.get(key)
    if small is None:
        small = _programs[key] = _classify(order)
        if len(_programs) > PROGRAMS_REMEMBERED:
            _programs.pop(next(iter(_programs), None), None)
    if small is _NO_LAPACK:
        return contextlib.nullcontext()
    lib = _library("lapack")
    return contextlib.nullcontext() if lib is None else _Window(lib, small)


def _classify(order):
    calls = list(_lapack_calls(order, set()))
    if all(is_tiny(*(a.shape for a in node.args)) for node in calls):  # (none, or tiny: one thread anyway)
        return _NO_LAPACK
    return max(node_work(node) for node in calls) < ONE_THREAD_WORK


def _lapack_calls(nodes, seen):
    for node in nodes:
        if id(node) in seen:
            continue
        seen.add(id(node))
        op = node.op
        if op is None:
            continue
        if op.name in _KERNEL_OPS and getattr(node.attrs, "platform", None) == "cpu":
            yield node
        body = getattr(node.attrs, "body", None)
        if body is not None and hasattr(body, "nodes"):
            yield from _lapack_calls(body.nodes, seen)
