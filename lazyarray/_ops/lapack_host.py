"""The decomposition kernels on the host, bit for bit as the compiled program computes them.

On the CPU, XLA runs a decomposition as a jaxlib LAPACK custom call (`_runtime_lapack` lets jax
lower it), and jaxlib 0.10 takes its LAPACK routines from SciPy (`scipy.linalg.cython_lapack`).
So calling the SAME routine through `scipy.linalg.lapack`, with the same job options and the
same workspace sizes (a LAPACK routine's blocking, and gesdd's choice of path, depend on the
workspace it is given), and then doing what jax's lowering does around the call, gives the
compiled program's bits, eigenvector signs included. Per kernel (jaxlib 0.10.2's
`lapack_kernels.cc` and jax's lowering rules in `jax/_src/lax/linalg.py`):

    lu        getrf; pivots 0-based; the permutation by applying the row swaps to 0..m-1
    cholesky  potrf (lower); all NaN where info != 0, then the strict upper triangle zeroed
    qr        geqrf (optimal workspace), R = its upper triangle (first min(m, n) rows, or all
              rows in full mode); Q = orgqr/ungqr (optimal workspace) of the geqrf output
              sliced to min(m, n) columns, or padded with zero columns to m in full mode
    eigh      syevd/heevd, jobz V, lower, workspaces 1+6n+2n^2 / 2n+n^2, 1+5n+2n^2 (real work),
              3+5n (integers); NaN where info != 0
    eig       geev, no left vectors (optimal workspace); an input with a non-finite entry is
              not passed to LAPACK (info -4); real input: the packed real eigenvectors unpacked
              to complex pairs (v, conj v); NaN where info != 0
    svd       gesdd, job S (reduced) or A (full) (optimal workspace); NaN where info != 0
    svdvals   gesdd, job N; NaN where info != 0
    triangular solve (on the CPU lowered as jax does: trsm): BLAS trsm, left side, no transpose

The OpenBLAS thread count is the compiled program's too (1 and 2 threads give different bits):
`_blas_threads.lapack_call` around each call, with the rule `_run_program` applies around
executing a program with these custom calls (none for tiny calls, which OpenBLAS runs on one
thread anyway: `_blas_threads.is_tiny`).

XLA runs its CPU programs with flush-to-zero and denormals-are-zero set (subnormal inputs and
results read as zero), LAPACK calls included: a rank-deficient or tiny-scaled matrix can have
subnormal intermediates, and then a result as large as 1e-35 (float32) differs. `decompose` sets
the same two flags around its LAPACK calls where it knows how (x86-64 Linux: MXCSR through
glibc's fegetenv/fesetenv); elsewhere such results can differ, as subnormals do between the tiers.

Each function here takes ONE matrix (2-D numpy array, column-major; `overwrite=True` when it is
a private copy the routine may work in) and returns the kernel's outputs in the order
`_ops.linalg.KERNEL_OUTPUTS` names them; `decompose` loops over the batch axes.
SciPy's LAPACK module is loaded at the first decomposition evaluated, not before.
"""
from __future__ import annotations

import ctypes
import platform
import sys
import threading

import numpy as np

from .. import _blas_threads
from .core import keep

_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}


_modules = {}  # "_flapack" / "_fblas" -> SciPy's extension module


def _scipy_linalg_module(name):
    """SciPy's f2py LAPACK (_flapack) or BLAS (_fblas) module. Loaded from its file when
    scipy.linalg is not imported yet: importing that package costs ~0.4 s (it pulls in most of
    SciPy's array-API layer), the extension alone ~10 ms; the routines are the same objects a
    later `import scipy.linalg` sees."""
    module = _modules.get(name) or sys.modules.get(f"scipy.linalg.{name}")
    if module is None:
        import importlib.util
        path = _blas_threads.scipy_linalg_extension(name)
        if path is None:  # an unusual layout: the ordinary import
            module = importlib.import_module(f"scipy.linalg.{name}")
        else:
            spec = importlib.util.spec_from_file_location(f"scipy.linalg.{name}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
    _modules[name] = module
    return module


_routines = {}  # (name, numpy dtype) -> SciPy's wrapper (a look-up, not two module reads and a getattr)


def _lapack(name, dtype):
    """SciPy's wrapper of LAPACK routine `name` (without its type letter) for dtype."""
    routine = _routines.get((name, dtype))
    if routine is None:
        routine = _routines[(name, dtype)] = getattr(_scipy_linalg_module("_flapack"), _PREFIX[dtype.name] + name)
    return routine


def _nan(*arrays):
    """Fill with NaN in place, as jax's lowering does (complex: NaN real and imaginary parts)."""
    for a in arrays:
        a[...] = complex(np.nan, np.nan) if a.dtype.kind == "c" else np.nan


def _lu(a, *, overwrite=False):
    m, n = a.shape
    getrf = _lapack("getrf", a.dtype)
    lu, piv, info = getrf(a, overwrite_a=int(overwrite))
    if info < 0:  # jax's lowering: NaN factors where getrf rejected its input
        _nan(lu)
    piv = piv.astype(np.int32)[:min(m, n)]
    return lu, piv, _permutation(piv, m).copy()  # (an output: its own writeable memory)


_perms = {}  # (rows, the pivots' bytes) -> the permutation they make, read-only (`_permutation`)


def _permutation(piv, m):
    """The row permutation of 0..m-1 that getrf's row swaps `piv` (0-based, int32) make, read-only
    and shared: most factorizations of a size swap the same rows (none, for a diagonally dominant
    matrix), so a look-up (~0.3 us) replaces the swaps (~0.1 us each) and the array (~0.5 us)."""
    key = (m, piv.tobytes())
    perm = _perms.get(key)
    if perm is None:
        rows = list(range(m))  # (swapped as a list: ~0.1 us a swap against ~0.8 on numpy elements)
        for i, p in enumerate(piv.tolist()):
            rows[i], rows[p] = rows[p], rows[i]
        perm = np.array(rows, dtype=np.int32)
        perm.flags.writeable = False
        keep(_perms, key, perm, 256)
    return perm


def _cholesky(a, *, overwrite=False):
    potrf = _lapack("potrf", a.dtype)
    c, info = potrf(a, lower=1, clean=1, overwrite_a=int(overwrite))
    if info != 0:
        _nan(c)
        return (_lower_triangle(c),)
    return (c,)  # (clean=1: SciPy's wrapper zeroed the strict upper triangle, +0.0, as np.tril)


# (rows, columns, lower) -> the read-only mask np.tril / np.triu build at every call (np.tri:
# ~10 us of an 8x8 Cholesky's ~40)
_masks = {}


def _mask(rows, columns, lower):
    mask = _masks.get((rows, columns, lower))
    if mask is None:
        mask = np.tri(rows, columns, k=0 if lower else -1, dtype=bool)
        mask.flags.writeable = False
        if len(_masks) >= 256:
            _masks.clear()
        _masks[(rows, columns, lower)] = mask
    return mask


def _lower_triangle(m):
    """np.tril(m) of a matrix, its mask kept: the same np.where."""
    return np.where(_mask(*m.shape, True), m, np.zeros(1, m.dtype))


def _upper_triangle(m):
    """np.triu(m) of a matrix, its mask kept: the same np.where."""
    return np.where(_mask(*m.shape, False), np.zeros(1, m.dtype), m)


_workspaces = {}  # (query routine, its arguments) -> the size it gave


def _workspace(query, *args, **kw):
    """LAPACK's optimal workspace size for a call (the size jaxlib asks LAPACK for): a function of
    the routine, sizes and job options alone, kept (a query costs ~10 us, a small call ~30)."""
    key = (query, args, tuple(kw.items()))
    size = _workspaces.get(key)
    if size is None:
        work, info = query(*args, **kw)
        if info != 0:
            raise AssertionError(f"LAPACK workspace query {args} {kw}: info {info}")
        size = int(np.real(work).item() if np.ndim(work) else np.real(work))
        if len(_workspaces) >= 1024:
            _workspaces.clear()
        _workspaces[key] = size
    return size


def _qr(a, full, *, overwrite=False):
    m, n = a.shape
    k = min(m, n)
    geqrf = _lapack("geqrf", a.dtype)
    lwork = _workspace(_lapack("geqrf_lwork", a.dtype), m, n)
    qr, tau, _, info = geqrf(a, lwork=lwork, overwrite_a=int(overwrite))  # jax's lowering ignores geqrf's and orgqr's info
    r = _upper_triangle(qr if full or m <= n else qr[:k])
    if full and m > n:
        v = np.zeros((m, m), a.dtype, order="F")
        v[:, :n] = qr
    else:
        v = np.asfortranarray(qr[:, :k])
    orgqr = _lapack("ungqr" if a.dtype.kind == "c" else "orgqr", a.dtype)
    key = (orgqr, v.shape, tau.shape)
    lwork = _workspaces.get(key)
    if lwork is None:  # (kept as `_workspace`'s: a function of the routine and sizes)
        _, work, info = orgqr(v, tau, lwork=-1)
        if info != 0:
            raise AssertionError(f"LAPACK orgqr workspace query of {v.shape}: info {info}")
        lwork = _workspaces[key] = int(np.real(work[0]))
    q, _, info = orgqr(v, tau, lwork=lwork)
    return q, r


def _eigh(a, *, overwrite=False):
    n = a.shape[0]
    if a.dtype.kind == "c":
        w, v, info = _lapack("heevd", a.dtype)(a, compute_v=1, lower=1, lwork=2 * n + n * n,
                                                lrwork=1 + 5 * n + 2 * n * n, liwork=3 + 5 * n,
                                                overwrite_a=int(overwrite))
    else:
        w, v, info = _lapack("syevd", a.dtype)(a, compute_v=1, lower=1, lwork=1 + 6 * n + 2 * n * n,
                                                liwork=3 + 5 * n, overwrite_a=int(overwrite))
    if info != 0:
        _nan(v, w)
    return v, w


def _eig(a, *, overwrite=False):
    n = a.shape[0]
    complex_dtype = np.result_type(a.dtype, np.complex64)
    if not np.isfinite(a).all():  # jaxlib does not call LAPACK: info -4, all NaN
        w, v = np.empty(n, complex_dtype), np.empty((n, n), complex_dtype)
        _nan(w, v)
        return w, v
    lwork = _workspace(_lapack("geev_lwork", a.dtype), n, compute_vl=0, compute_vr=1)
    if a.dtype.kind == "c":
        w, _, v, info = _lapack("geev", a.dtype)(a, compute_vl=0, compute_vr=1, lwork=lwork,
                                                  overwrite_a=int(overwrite))
    else:
        wr, wi, _, packed, info = _lapack("geev", a.dtype)(a, compute_vl=0, compute_vr=1, lwork=lwork,
                                                           overwrite_a=int(overwrite))
        w = np.empty(n, complex_dtype)
        w.real, w.imag = wr, wi
        v = np.zeros((n, n), complex_dtype)
        if info == 0:
            v.real = packed
            j = 0
            while j < n:  # a complex pair's vectors: real part in column j, imaginary in j + 1
                if wi[j] == 0 or np.isnan(wi[j]):
                    j += 1
                    continue
                re, im = packed[:, j].copy(), packed[:, j + 1].copy()
                v[:, j].real, v[:, j].imag = re, im
                v[:, j + 1].real, v[:, j + 1].imag = re, -im
                j += 2
    if info != 0:
        _nan(w, v)
    return w, v


def _svd(a, full, *, overwrite=False):
    m, n = a.shape
    lwork = _workspace(_lapack("gesdd_lwork", a.dtype), m, n, compute_uv=1, full_matrices=int(full))
    u, s, vt, info = _lapack("gesdd", a.dtype)(a, compute_uv=1, full_matrices=int(full), lwork=lwork,
                                               overwrite_a=int(overwrite))
    if info != 0:
        _nan(u, s, vt)
    return u, s, vt


def _svdvals(a, *, overwrite=False):
    m, n = a.shape
    lwork = _workspace(_lapack("gesdd_lwork", a.dtype), m, n, compute_uv=0, full_matrices=0)
    _, s, _, info = _lapack("gesdd", a.dtype)(a, compute_uv=0, full_matrices=0, lwork=lwork,
                                              overwrite_a=int(overwrite))
    if info != 0:
        _nan(s)
    return (s,)


def _trsm_routine(dtype):
    trsm = _routines.get(("trsm", dtype))
    if trsm is None:
        trsm = _routines[("trsm", dtype)] = getattr(_scipy_linalg_module("_fblas"), _PREFIX[dtype.name] + "trsm")
    return trsm


def triangular_solve(a, b, lower, unit_diagonal):
    """x with a x = b, by BLAS trsm (left side, no transpose) per matrix of the batch: the
    routine jaxlib's CPU lowering of triangular_solve calls, from the same SciPy library."""
    work, tiny = _blas_threads.solve_work(a.shape, b.shape, b.dtype), _blas_threads.is_tiny(a.shape, b.shape)
    with _blas_threads.lapack_call(work, tiny), _flush_denormals():  # (tiny: no window, one thread anyway)
        return _solve(a, b, int(lower), int(unit_diagonal))


def _solve(a, b, lower, diag):
    """`triangular_solve`'s calls, inside its thread window and flushing context."""
    trsm = _trsm_routine(b.dtype)
    # (b's column-major copy is private: trsm solves in it instead of copying it again)
    if b.ndim == 2:  # one matrix: trsm's result as it is (column-major), no copy into a stack
        return trsm(1.0, np.asfortranarray(a), np.array(b, order="F"),
                    side=0, lower=lower, trans_a=0, diag=diag, overwrite_b=1)
    out = np.empty(b.shape, b.dtype)
    for index in np.ndindex(*b.shape[:-2]):
        out[index] = trsm(1.0, np.asfortranarray(a[index]), np.array(b[index], order="F"),
                          side=0, lower=lower, trans_a=0, diag=diag, overwrite_b=1)
    return out


def lu_solve(a, b, specs, window=None):
    """x with a x = b for square a (..., M, M) and b (..., M, K) of one batch: getrf of a (as
    `decompose("lu", ...)` with the LU's `specs`), b's rows taken in the permutation's order, then
    trsm with the unit lower factor and trsm with the upper one: the calls jaxlib's kernels make
    for the LU and the two triangular solves, in one thread window and one flushing context
    (a call that is tiny alone runs on one thread in a window too: the same bits). `window`:
    `lu_solve_window(a.shape, b.shape, b.dtype)`, where the caller keeps it."""
    work, tiny = window or lu_solve_window(a.shape, b.shape, b.dtype)
    if tiny:  # no window: OpenBLAS runs tiny calls on one thread anyway
        with _flush_denormals():
            return _lu_solve(a, b, specs)
    with _blas_threads.lapack_call(work), _flush_denormals():
        return _lu_solve(a, b, specs)


def _lu_solve(a, b, specs):
    if a.ndim == 2:  # one matrix: getrf's factors as it returns them, each copy made once
        x, private = _fortran(a)
        lu, piv, info = _lapack("getrf", x.dtype)(x, overwrite_a=int(private))
        if info < 0:
            _nan(lu)
        perm = _permutation(piv[:min(a.shape)].astype(np.int32), a.shape[0])
        # b's rows in the permutation's order, column-major and private (trsm solves in it): one
        # copy, where np.take and `_solve`'s Fortran copy made two; the second solve works in the
        # first one's result, its own memory (the same values in the same layout: the same bits)
        trsm = _trsm_routine(b.dtype)
        y = trsm(1.0, lu, b.T.take(perm, axis=1).T, side=0, lower=1, trans_a=0, diag=1, overwrite_b=1)
        return trsm(1.0, lu, y, side=0, lower=0, trans_a=0, diag=0, overwrite_b=1)
    lu, _, perm = _factor(_lu, (), a, specs)
    if b.ndim == 2:
        pb = np.take(b, perm, axis=0)
    else:
        pb = np.take_along_axis(b, perm[..., None], axis=-2)
    return _solve(lu, _solve(lu, pb, 1, 1), 0, 0)


def lu_solve_window(a_shape, b_shape, dtype):
    """(work, tiny) of `lu_solve` (`_blas_threads.lapack_call`): the larger of its calls' work."""
    work = max(_blas_threads.decomposition_work(a_shape, dtype), _blas_threads.solve_work(a_shape, b_shape, dtype))
    return work, _blas_threads.is_tiny(a_shape, b_shape)


KERNELS = {"lu": _lu, "cholesky": _cholesky, "qr": _qr, "eigh": _eigh, "eig": _eig, "svd": _svd,
           "svdvals": _svdvals}


_MXCSR_FTZ_DAZ = 0x8040  # MXCSR bits 15 (flush to zero) and 6 (denormals are zero)
_MXCSR_OFFSET = 28  # of glibc's x86-64 fenv_t (32 bytes)


def _libm():
    if sys.platform != "linux" or platform.machine() != "x86_64":
        return None
    try:
        libm = ctypes.CDLL("libm.so.6")
        env = ctypes.create_string_buffer(32)
        return libm if libm.fegetenv(env) == 0 else None
    except OSError:
        return None


_LIBM = _libm()


_flushed_envs = {}  # a thread's environment (32 bytes) -> the same with FTZ and DAZ set, read-only


class _Environment(threading.local):
    """A thread's saved environment (a buffer reused by each outermost context) and how many
    flushing contexts it has open: a nested one (the calls of one host step) changes nothing."""
    depth = 0
    saved = None


_environment = _Environment()


class _FlushDenormals:
    """XLA's floating-point environment for this thread, restored afterwards. A context object,
    not a generator, and the flushed environment kept per environment met (one or two in a
    process): ~4.5 -> ~1.3 us a call. fesetenv only reads the kept buffer, so threads may share it.
    Re-entrant: inside an open one (`lu_solve`'s three calls) it is free."""
    __slots__ = ()

    def __enter__(self):
        if _LIBM is None:
            return self
        env = _environment
        env.depth += 1
        if env.depth > 1:
            return self
        saved = env.saved
        if saved is None:
            saved = env.saved = ctypes.create_string_buffer(32)
        _LIBM.fegetenv(saved)
        flushed = _flushed_envs.get(saved.raw)
        if flushed is None:
            flushed = ctypes.create_string_buffer(saved.raw, 32)
            ctypes.c_uint32.from_buffer(flushed, _MXCSR_OFFSET).value |= _MXCSR_FTZ_DAZ
            if len(_flushed_envs) >= 64:
                _flushed_envs.clear()
            _flushed_envs[saved.raw] = flushed
        _LIBM.fesetenv(flushed)
        return self

    def __exit__(self, *exc):
        if _LIBM is not None:
            env = _environment
            env.depth -= 1
            if not env.depth:
                _LIBM.fesetenv(env.saved)


_flush_denormals = _FlushDenormals  # (`with _flush_denormals():`, as tests spell it)


def decompose(name, params, x, specs, window=None):
    """All outputs of kernel `name` for the stack of matrices x, as numpy arrays of the
    (shape, numpy dtype) pairs in `specs` (in any memory layout: a single matrix's outputs are
    SciPy's own, Fortran-ordered where LAPACK wrote them so). `window`: `kernel_window(x.shape,
    x.dtype)`, where the caller keeps it.

    Each matrix is copied once, to LAPACK's column-major layout (jaxlib's custom call has it so
    too), and the routine works in that private copy (`overwrite_a`): the wrappers would copy it
    again otherwise. A matrix already Fortran-contiguous is handed over as it is, with
    `overwrite_a` off, so SciPy's wrapper makes the one copy. x itself is never written.
    (The same routine on the same column-major values: the same bits either way.)"""
    work, tiny = window or kernel_window(x.shape, x.dtype)
    if tiny:  # no window: OpenBLAS runs a tiny call on one thread anyway
        with _flush_denormals():
            return _factor(KERNELS[name], params, x, specs)
    with _blas_threads.lapack_call(work), _flush_denormals():
        return _factor(KERNELS[name], params, x, specs)


def kernel_window(shape, dtype):
    """(work, tiny) of a decomposition of a stack of this shape (`_blas_threads.lapack_call`)."""
    return _blas_threads.decomposition_work(shape, dtype), _blas_threads.is_tiny(shape)


def _factor(fn, params, x, specs):
    """`decompose`'s calls, inside its thread window and flushing context."""
    if x.ndim == 2:  # one matrix: its outputs as the kernel returns them
        a, private = _fortran(x)
        values = fn(a, *params, overwrite=private)
        return [value if value.dtype == npdt and value.shape == tuple(shape) else
                np.asarray(value, npdt).reshape(shape) for value, (shape, npdt) in zip(values, specs)]
    outs = [np.empty(shape, npdt) for shape, npdt in specs]
    for index in np.ndindex(*x.shape[:-2]):
        a, private = _fortran(x[index])
        for out, value in zip(outs, fn(a, *params, overwrite=private)):
            out[index] = value
    return outs


def _fortran(a):
    """(the matrix a in LAPACK's column-major layout, whether that is a private copy the routine
    may overwrite): a itself when it is column-major already (not private: the caller's)."""
    if a.flags.f_contiguous:
        return a, False
    return np.array(a, order="F", copy=True), True
