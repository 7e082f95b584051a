"""Decomposition kernels (LU, Cholesky, QR, eigh, eig, SVD) borrowed from jax's lowerings.

These are not plain StableHLO: XLA runs them as LAPACK custom calls on the CPU and cuSOLVER calls
on GPUs. Rather than spell those calls (their layouts and backend configs change between
jaxlib releases) we let jax lower ONE decomposition for a given (kernel, shape, dtype,
platform), rename its functions private, and hand their text to the emitter, which splices them
into our module and reaches them by func.call. jax only lowers here: nothing is computed by it.

This is, with _runtime.py, the only module that imports jax/jaxlib.
"""
from __future__ import annotations

import functools
import hashlib

import numpy as np

import jax
import jax.lax.linalg as _lax_linalg
from jax.extend.mlir import ir

try:  # a hand-written or deserialized LAPACK custom call crashes unless LAPACK was set up first
    from jaxlib.cpu import _lapack
    _lapack.initialize()
except (ImportError, AttributeError):  # jaxlib without the CPU LAPACK module: nothing to set up
    pass

# name -> (function of the input and the static parameters, returning a tuple of outputs)
_KERNELS = {
    "lu": lambda a: tuple(_lax_linalg.lu(a)),  # (lu, pivots, permutation), a[perm] = L @ U
    "cholesky": lambda a: (_lax_linalg.cholesky(a, symmetrize_input=False),),  # lower factor
    "qr": lambda a, full: tuple(_lax_linalg.qr(a, full_matrices=full)),  # (q, r)
    # (eigenvectors, eigenvalues ascending); reads the lower triangle only, as numpy does
    "eigh": lambda a: tuple(_lax_linalg.eigh(a, lower=True, symmetrize_input=False)),
    "eig": lambda a: tuple(_lax_linalg.eig(a, compute_left_eigenvectors=False)),  # (w, vr)
    "svd": lambda a, full: tuple(_lax_linalg.svd(a, full_matrices=full, compute_uv=True)),  # (u, s, vh)
    "svdvals": lambda a: (_lax_linalg.svd(a, compute_uv=False),),
    # a x = b with a, b side by side as one operand (..., M, M + K): LAPACK's trsm on the CPU
    "triangular_solve": lambda ab, m, lower, unit: (_lax_linalg.triangular_solve(
        ab[..., :m], ab[..., m:], left_side=True, lower=lower, unit_diagonal=unit),),
}


def _lowering_platform(platform):
    """PJRT names NVIDIA and AMD devices "gpu"; jax lowers for "cuda" or "rocm"."""
    if platform != "gpu":
        return platform
    from jax.extend import backend
    return "rocm" if "rocm" in backend.get_backend("gpu").platform_version.lower() else "cuda"


@functools.lru_cache(maxsize=1024)
def kernel(name, params, shape, dtype, platform):
    """The private functions implementing kernel `name` on one input of `shape` and numpy
    `dtype` (a string) for `platform`.

    params: a tuple of the kernel's static parameters (positional after the input).
    Returns (entry function name, ((function name, text), ...), ((shape, numpy dtype string),
    ...) per output)."""
    fn = _KERNELS[name]
    spec = jax.ShapeDtypeStruct(tuple(shape), np.dtype(dtype))
    with jax.enable_x64(True):  # float64/complex128 kernels need 64-bit tracing
        traced = jax.jit(lambda a: fn(a, *params)).trace(spec)
        lowered = traced.lower(lowering_platforms=(_lowering_platform(platform),))
        results = tuple((tuple(o.shape), np.dtype(o.dtype).str) for o in jax.tree.leaves(traced.out_info))
    module = lowered.compiler_ir("stablehlo")
    tag = hashlib.sha256(repr((name, params, tuple(shape), dtype, platform)).encode()).hexdigest()[:10]
    prefix = f"la_{name}_{tag}"
    with module.context:
        funcs = list(module.body.operations)
        names = []
        for op in funcs:
            old = ir.StringAttr(op.attributes["sym_name"]).value
            new = f"{prefix}_{old}"
            ir.SymbolTable.replace_all_symbol_uses(old, new, module.operation)
            ir.SymbolTable.set_symbol_name(op, new)
            names.append(new)
            ir.SymbolTable.set_visibility(op, "private")
            for attr in ("arg_attrs", "res_attrs"):  # jax's result names and layout modes
                if attr in op.attributes:
                    del op.attributes[attr]
        functions = tuple((n, op.operation.get_asm(enable_debug_info=False)) for n, op in zip(names, funcs))
    return f"{prefix}_main", functions, results
