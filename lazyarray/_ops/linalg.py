"""Linear-algebra primitives: the LAPACK-style decompositions and the triangular solve.

- `LINALG_KERNEL`: one output of a decomposition (LU, Cholesky, QR, eigh, eig, SVD). Its lowering
  splices the platform's kernel, as jax lowers it (`_runtime_lapack`), into the module and
  func.calls it, once per module and input however many of the kernel's outputs the graph uses.
  The outputs of a kernel of several share one `LINALG_OPERAND` node, so reading one computes
  the others still wanted in the same program; a kernel of one output (Cholesky, svdvals) is
  recorded on its input itself, and carries the operand's compile weight (`_kernel_compile_extra`).
- `TRIANGULAR_SOLVE`: on the CPU, LAPACK's trsm as jax lowers it; elsewhere (or when the
  platform is not known) stablehlo.triangular_solve, which XLA expands itself into blocked
  inverses and matrix products. That expansion differs from trsm beyond rounding (measured:
  ~4 eps relative to max |x| for well-conditioned systems, growing with the condition number,
  e.g. 230 eps in float32), hence trsm on the CPU, where the interpreter can match it.

Host evaluations (the interpreter tier, CPU only): a kernel calls the same SciPy LAPACK routine
with the same arguments as jaxlib's custom call (`lapack_host`), so both tiers give the same
bits; the first output evaluated computes them all and its siblings take theirs from a memo
that lives as long as the evaluation's operand array (a fresh view of the input: `decompose`
makes the one copy of each matrix, in LAPACK's column-major layout).

The tier policy weighs a LAPACK call's compile as ~50 ms beyond an ordinary op's
(`LAPACK_COMPILE_EXTRA`, the ops' `compile_extra`): jax lowers each kernel before XLA compiles it.
"""
from __future__ import annotations

import functools
import math
import weakref

import numpy as np

from .. import _blas_threads, _dtypes as dt
from .._graph import bind as _bind
# (imported with the package, not at the first decomposition: it loads no SciPy itself, SciPy's
# LAPACK module is loaded at its first call; importing it inside a consumer's first call cost
# 3-10 ms there where Python compiles it from source, PYTHONDONTWRITEBYTECODE being set)
from . import lapack_host
from .core import OpDef, memo, prepared
from .elementwise import compare, convert
from .gather import GATHER
from .shape import CONCATENATE, IOTA, RESHAPE, broadcast_in_dim, constant, iota


def _lu_shapes(shape):
    return [(shape, None), (shape[:-1], dt.int32), (shape[:-1], dt.int32)]


def _qr_shapes(shape, full):
    *b, m, n = shape
    b, k = tuple(b), min(m, n)
    if full:
        return [(b + (m, m), None), (b + (m, n), None)]
    return [(b + (m, k), None), (b + (k, n), None)]


def _svd_shapes(shape, full):
    *b, m, n = shape
    b, k = tuple(b), min(m, n)
    if full:
        return [(b + (m, m), None), (b + (k,), "real"), (b + (n, n), None)]
    return [(b + (m, k), None), (b + (k,), "real"), (b + (k, n), None)]


# kernel -> shape rule: (input shape, *params) -> [(shape, dtype)] with dtype None for the
# input's, "real" / "complex" for its real / complex counterpart, or a DType
KERNEL_OUTPUTS = {
    "lu": _lu_shapes,  # (lu, pivots, permutation): a[..., perm, :] = L U
    "cholesky": lambda s: [(s, None)],
    "qr": _qr_shapes,  # (q, r)
    "eigh": lambda s: [(s, None), (s[:-1], "real")],  # (eigenvectors, eigenvalues)
    "eig": lambda s: [(s[:-1], "complex"), (s, "complex")],  # (eigenvalues, eigenvectors)
    "svd": _svd_shapes,  # (u, s, vh)
    "svdvals": lambda s: [(s[:-2] + (min(s[-2:]),), "real")],
}


def _out_dtype(rule, dtype):
    if rule is None:
        return dtype
    if isinstance(rule, dt.DType):
        return rule
    return dt.real_of(dtype) if rule == "real" else dt.complex_of(dtype)


def _outputs(name, shape, dtype, params):
    """The outputs' (shape, DType) pairs, a tuple (`core.memo`: each output's rule asks, at every
    kernel node traced: ~1.5 us of a Cholesky's trace, three times that of an LU's)."""
    return memo(_output_specs, (name, tuple(shape), dtype, tuple(params)), _make_outputs)


def _make_outputs(name, shape, dtype, params):
    return tuple([(tuple(s), _out_dtype(r, dtype)) for s, r in KERNEL_OUTPUTS[name](shape, *params)])


_output_specs = {}  # (kernel, input shape, DType, params) -> `_outputs`


_calls = weakref.WeakKeyDictionary()  # Emitter -> {(kernel, params, platform, input): [V]}


def _lower_kernel(e, node, x):
    name, params, platform, index = node.attrs
    memo = _calls.setdefault(e, {})
    key = (name, params, platform, x.name)
    outs = memo.get(key)
    if outs is None:
        from .. import _runtime_lapack  # the runtime layer: jax lowers the kernel (a lazy import:
        # only programs with a decomposition pay for loading jax's lowering machinery)
        entry, functions, results = _runtime_lapack.kernel(name, params, x.shape, x.dtype.np.str, platform)
        for fname, text in functions:
            e.add_function(fname, text)
        specs = _outputs(name, x.shape, x.dtype, params)
        if [(s, d.np.str) for s, d in specs] != [(tuple(s), d) for s, d in results]:
            raise AssertionError(f"linalg kernel {name}: expected outputs {specs}, the runtime gave {results}")
        outs = memo[key] = e.call(entry, [x], specs)
    return outs[index]


def _kernel_rule(args, a):
    x, = args
    if x.dtype.kind not in "fc" or len(x.shape) < 2:
        raise AssertionError(f"linalg kernel {a.name} of {x.shape} {x.dtype.name}")
    outputs = _outputs(a.name, x.shape, x.dtype, a.params)
    if x.op is not LINALG_OPERAND and len(outputs) > 1:  # (siblings share one operand node)
        raise AssertionError(f"linalg kernel {a.name} of several outputs on a {x.op} node")
    return outputs[a.index]


# id(operand value) -> (a weak reference to it, {(kernel, params): [numpy outputs]}), while the value
# lives: the reference's callback drops the entry when the value dies (weakref.finalize did the
# same at ~1.8 us a decomposition against ~0.7)
_host_outputs = {}


def _evaluate_operand(node, x):
    """A fresh array object per evaluation (the kernels' memo is keyed by its identity): a view of
    the input, no copy. `lapack_host.decompose` makes the one copy of each matrix, in LAPACK's
    column-major layout, and lets the routine work in that private copy (`overwrite_a`); an
    input already column-major is handed over as it is and SciPy's wrapper copies it. (This
    evaluation used to make that copy itself, and the wrapper then copied it again: a 5000x50
    float64 SVD paid 2 MB of copying twice.)"""
    return x.view()


def _prepare_kernel(node):
    """`_evaluate_kernel`'s step with its outputs' numpy specs, memo key and thread window made
    once (`core.prepared`): a partial over atoms, the same decomposition. A kernel of one output
    (Cholesky, svdvals) needs no memo: no sibling asks for its outputs."""
    name, params, _, index = node.attrs
    x = node.args[0]
    specs = tuple([(s, d.np) for s, d in _outputs(name, x.shape, x.dtype, params)])
    window = lapack_host.kernel_window(x.shape, x.dtype)
    if len(specs) == 1:
        return functools.partial(_sole_output_step, name, params, specs, window)
    return functools.partial(_kernel_step, name, params, (name, params), specs, index, window)


def _sole_output_step(name, params, specs, window, x):
    return lapack_host.decompose(name, params, x, specs, window)[0]


def _kernel_step(name, params, kind, specs, index, window, x):
    key = id(x)
    entry = _host_outputs.get(key)
    if entry is None:
        entry = _host_outputs[key] = (weakref.ref(x, lambda _, key=key: _host_outputs.pop(key, None)), {})
    outs = entry[1].get(kind)
    if outs is None:
        outs = entry[1][kind] = lapack_host.decompose(name, params, x, specs, window)
    return outs[index]


@prepared(_prepare_kernel)
def _evaluate_kernel(node, x):
    name, params, _, index = node.attrs
    if node.args[0].op is not LINALG_OPERAND:  # a kernel of one output on its input: no siblings
        specs = [(s, d.np) for s, d in _outputs(name, x.shape, node.args[0].dtype, params)]
        return lapack_host.decompose(name, params, x, specs)[index]
    key = id(x)
    entry = _host_outputs.get(key)
    if entry is None:
        entry = _host_outputs[key] = (weakref.ref(x, lambda _, key=key: _host_outputs.pop(key, None)), {})
    outputs = entry[1]
    outs = outputs.get((name, params))
    if outs is None:
        specs = [(s, d.np) for s, d in _outputs(name, x.shape, node.args[0].dtype, params)]
        outs = outputs[(name, params)] = lapack_host.decompose(name, params, x, specs)
    return outs[index]


# XLA's CPU compile of one LAPACK custom call beyond an ordinary node's (`OpDef.compile_extra`):
# jax lowers the kernel first (`_runtime_lapack.kernel`: 12-18 ms of Python holding the GIL, ~50
# ms for a process's first), then XLA compiles the call and the layout changes around it.
# Measured (one-op graphs against a 2-op elementwise one, 8x8 to 200x50, float32 and float64,
# scaled to the ~28 ms an add compiles in): svd, qr, eigh, cholesky 10-90 ms each, solve (LU and
# two triangular solves) 110-220 ms, inv 95-300 ms. And what compiling such a graph saves per
# run is less than interpreting it costs: the program calls the same LAPACK routine.
LAPACK_COMPILE_EXTRA = 0.05


def _lapack_compile_extra(node):
    return LAPACK_COMPILE_EXTRA


def _kernel_compile_extra(node):
    """A kernel of one output recorded on its input (`kernel`) carries what its operand node
    would have: the decomposition's extra and that node's compile time
    (`_tier_policy.COMPILE_PER_NODE`), so the tier policy weighs the graph as before."""
    return 0.0 if node.args[0].op is LINALG_OPERAND else LAPACK_COMPILE_EXTRA + 0.001


def _solve_compile_extra(node):
    """trsm is a LAPACK custom call on the CPU; elsewhere XLA's own expansion (not measured)."""
    return LAPACK_COMPILE_EXTRA if node.attrs.platform == "cpu" else 0.0


def _covers_kernel(node):
    """jaxlib's CPU kernels only: another platform's (cuSOLVER, ...) bits are its own. And only
    calls small enough for one BLAS thread: a larger one runs on another thread count, which a
    compiled program mixing it with small calls could not give both (`_blas_threads`)."""
    return node.attrs.platform == "cpu" and _blas_threads.host_may_evaluate(node)


LINALG_OPERAND = OpDef("linalg_operand", rule=lambda args, a: (args[0].shape, args[0].dtype),
                       lower=lambda e, node, x: x,  # no code: the node a kernel's outputs share
                       evaluate=_evaluate_operand,
                       compile_extra=_lapack_compile_extra)  # (once per decomposition: its outputs share it)
LINALG_KERNEL = OpDef("linalg_kernel", attrs=("name", "params", "platform", "index"), rule=_kernel_rule,
                      lower=_lower_kernel, evaluate=_evaluate_kernel, covers=_covers_kernel,
                      compile_extra=_kernel_compile_extra)


def eye(batch, n, dtype):
    """Identity matrices of shape batch + (n, n)."""
    shape = tuple(batch) + (n, n)
    return convert(compare(iota(shape, len(shape) - 2, dt.int32), iota(shape, len(shape) - 1, dt.int32), "EQ"), dtype)


def zeros(shape, dtype):
    """Zeros by broadcasting a scalar (the emitter spells no literal of a zero-size array)."""
    return broadcast_in_dim(constant(0, dtype), shape, ())


def kernel(name, x, platform, *params):
    """All outputs of decomposition `name` of node x (a stack of matrices, floating dtype) as
    nodes. A zero-size input needs no kernel: its non-empty outputs are identities. The nodes are
    bound with their attributes, shapes and dtypes kept per structure (`_kernel_plan`: the rules'
    answers, checked once; `_verify` checks every node against its rule again); the outputs of
    several share an operand node, a sole output takes x itself."""
    if math.prod(x.shape) == 0:
        return [eye(s[:-2], s[-1], d) if math.prod(s) else zeros(s, d)
                for s, d in _outputs(name, x.shape, x.dtype, params)]
    plan = _kernel_plans.get((name, params, platform, x.shape, x.dtype))
    if plan is None:
        plan = memo(_kernel_plans, (name, tuple(params), platform, x.shape, x.dtype), _kernel_plan)
    if len(plan) == 1:  # (one output: no siblings to share an operand node with; `_kernel_compile_extra`)
        attrs, shape, dtype = plan[0]
        return [_bind(LINALG_KERNEL, (x,), attrs, shape, dtype)]
    operand = _bind(LINALG_OPERAND, (x,), (), x.shape, x.dtype)
    return [_bind(LINALG_KERNEL, (operand,), attrs, shape, dtype) for attrs, shape, dtype in plan]


def _kernel_plan(name, params, platform, shape, dtype):
    """(attributes, shape, dtype) of each output node of a kernel of this structure, from the
    rules (which raise on an operand they do not accept)."""
    stand_in = _Part(None, shape, dtype)
    stand_in.op = LINALG_OPERAND
    stand_in.shape, stand_in.dtype = LINALG_OPERAND.rule((_Part(None, shape, dtype),), ())
    n = len(_outputs(name, shape, dtype, params))
    plan = []
    for i in range(n):
        attrs = memo(_kernel_attrs, (name, params, platform, i), LINALG_KERNEL.Attrs)
        plan.append((attrs,) + tuple(LINALG_KERNEL.rule((stand_in,), attrs)))
    return tuple(plan)


_kernel_attrs = {}  # (kernel, params, platform, index) -> LINALG_KERNEL.Attrs (`core.memo`)
_kernel_plans = {}  # (kernel, params, platform, input shape, DType) -> `_kernel_plan` (`core.memo`)


def _triangular_rule(args, a):
    m, b = args
    if m.dtype is not b.dtype or m.shape[:-1] != b.shape[:-1] or m.shape[-1] != m.shape[-2]:
        raise AssertionError(f"triangular_solve of {m.shape} and {b.shape}")
    return b.shape, b.dtype


def _lower_triangular_solve(e, node, a, b):
    lower, unit, platform = node.attrs
    if platform == "cpu":
        # jax's CPU lowering: LAPACK's trsm (a custom call), reached through the kernel machinery
        # with a and b side by side as its one operand (the kernel slices them apart)
        from .. import _runtime_lapack
        ab = e.op("stablehlo.concatenate", (a, b), b.shape[:-1] + (a.shape[-1] + b.shape[-1],), b.dtype,
                  f"dimension = {len(b.shape) - 1} : i64")
        entry, functions, results = _runtime_lapack.kernel(
            "triangular_solve", (a.shape[-1], lower, unit), ab.shape, ab.dtype.np.str, platform)
        for fname, text in functions:
            e.add_function(fname, text)
        if [(tuple(s), d) for s, d in results] != [(node.shape, node.dtype.np.str)]:
            raise AssertionError(f"triangular_solve kernel: expected {node.shape} {node.dtype}, got {results}")
        return e.call(entry, [ab], [(node.shape, node.dtype)])[0]
    flags = ("true" if flag else "false" for flag in (lower, unit))
    return e.op("stablehlo.triangular_solve", (a, b), node.shape, node.dtype,
                "left_side = true, lower = {}, unit_diagonal = {}, "
                "transpose_a = #stablehlo<transpose NO_TRANSPOSE>".format(*flags))


def _evaluate_triangular_solve(node, a, b):
    return lapack_host.triangular_solve(a, b, node.attrs.lower, node.attrs.unit_diagonal)


TRIANGULAR_SOLVE = OpDef("triangular_solve", attrs=("lower", "unit_diagonal", "platform"),
                         rule=_triangular_rule, lower=_lower_triangular_solve,
                         evaluate=_evaluate_triangular_solve, covers=_covers_kernel,
                         compile_extra=_solve_compile_extra)


def triangular_solve(a, b, lower, unit_diagonal=False, platform=None):
    """Solve a x = b for x; a (..., M, M) triangular (the other triangle is ignored), b
    (..., M, K) with the same batch.

    On the CPU platform the solve is LAPACK's trsm, as jax lowers it (and the interpreter tier
    calls the same trsm: the same bits); elsewhere stablehlo.triangular_solve. platform None
    takes the platform of `a` when `a` is a decomposition's output (the LU factors of solve and
    inv), else leaves the solve to stablehlo.triangular_solve on every platform."""
    if math.prod(b.shape) == 0:
        return b
    if platform is None and a.op is LINALG_KERNEL:
        platform = a.attrs.platform
    return TRIANGULAR_SOLVE.bind((a, b), TRIANGULAR_SOLVE.Attrs(bool(lower), bool(unit_diagonal), platform))


# ---------------------------------------------------------------- LU solve, one node

class _Part:
    """A stand-in node for one part of a composite's lowering (what the parts' `lower` read), or
    for a kernel's operand in its rule (`_kernel_plan`)."""
    __slots__ = ("attrs", "shape", "dtype", "op")

    def __init__(self, attrs, shape, dtype):
        self.attrs, self.shape, self.dtype, self.op = attrs, shape, dtype, None


def _lu_solve_rule(args, a):
    m, b = args
    if m.dtype is not b.dtype or m.dtype.kind not in "fc" or len(m.shape) < 2 \
            or m.shape[:-1] != b.shape[:-1] or m.shape[-1] != m.shape[-2] or 0 in m.shape or 0 in b.shape:
        raise AssertionError(f"lu_solve of {m.shape} and {b.shape}")
    return b.shape, b.dtype


def _lower_lu_solve(e, node, a, b):
    """The composition `_linalg_ops.lu_solve` records (LU kernel, row gather, two trsm), emitted by
    those primitives' own lowerings: the same program as the separate nodes."""
    platform = node.attrs.platform
    *batch, m, k = node.shape
    batch, nb = tuple(batch), len(batch)
    lu = _lower_kernel(e, _Part(LINALG_KERNEL.Attrs("lu", (), platform, 0), None, None), a)
    perm = _lower_kernel(e, _Part(LINALG_KERNEL.Attrs("lu", (), platform, 2), None, None), a)
    shape = batch + (m, 1)
    idx = RESHAPE.lower(e, _Part(None, shape, dt.int32), perm)
    if nb:
        coords = [IOTA.lower(e, _Part(IOTA.Attrs(shape, d, dt.int32), shape, dt.int32)) for d in range(nb)]
        idx = CONCATENATE.lower(e, _Part(CONCATENATE.Attrs(nb + 1), batch + (m, nb + 1), dt.int32), *coords, idx)
    pb = GATHER.lower(e, _Part(GATHER.Attrs(tuple(range(nb + 1))), node.shape, node.dtype), b, idx)
    y = TRIANGULAR_SOLVE.lower(e, _Part(TRIANGULAR_SOLVE.Attrs(True, True, platform), node.shape, node.dtype), lu, pb)
    return TRIANGULAR_SOLVE.lower(e, _Part(TRIANGULAR_SOLVE.Attrs(False, False, platform), node.shape, node.dtype), lu, y)


def _lu_solve_specs(node):
    x = node.args[0]
    return [(s, d.np) for s, d in _outputs("lu", x.shape, x.dtype, ())]


def _prepare_lu_solve(node):
    """`_evaluate_lu_solve`'s step with the LU's specs and the thread window made once."""
    a, b = node.args
    return functools.partial(_lu_solve_step, _lu_solve_specs(node), lapack_host.lu_solve_window(a.shape, b.shape, b.dtype))


def _lu_solve_step(specs, window, a, b):
    return lapack_host.lu_solve(a, b, specs, window)


@prepared(_prepare_lu_solve)
def _evaluate_lu_solve(node, a, b):
    """One host step: getrf (as the LU kernel's evaluation calls it), b's rows permuted, the two
    trsm calls of the triangular solves; the same routines on the same values, the same bits
    (`lapack_host.lu_solve`)."""
    return lapack_host.lu_solve(a, b, _lu_solve_specs(node))


def _covers_lu_solve(node):
    """The CPU only, and calls small enough for one BLAS thread (`_covers_kernel`)."""
    return node.attrs.platform == "cpu" and _blas_threads.host_may_evaluate(node)


def _lu_solve_compile_extra(node):
    """The separate nodes' extras (the LU's and two trsm's) and the per-node compile time of the
    parts beyond this one (`_tier_policy.COMPILE_PER_NODE`): 7 nodes, and per batch axis an iota,
    with one concatenate."""
    nb = len(node.shape) - 2
    return 3 * LAPACK_COMPILE_EXTRA + 0.001 * (6 + nb + (1 if nb else 0))


LU_SOLVE = OpDef("lu_solve", attrs=("platform",), rule=_lu_solve_rule, lower=_lower_lu_solve,
                 evaluate=_evaluate_lu_solve, covers=_covers_lu_solve, compile_extra=_lu_solve_compile_extra)


def lu_solve(a, b, platform, checked=False):
    """x with a x = b for a (..., M, M) and b (..., M, K) of one batch, nonempty, on the CPU
    platform: one node standing for the LU kernel, the row gather and the two triangular solves
    (`_linalg_ops.lu_solve`'s composition, which other platforms record). `checked`: the caller
    has checked what the rule checks (the namespace's fast path): bound without asking it."""
    attrs = _lu_solve_attrs.get(platform)
    if attrs is None:
        attrs = memo(_lu_solve_attrs, (platform,), LU_SOLVE.Attrs)
    if checked:
        return _bind(LU_SOLVE, (a, b), attrs, b.shape, b.dtype)
    return LU_SOLVE.bind((a, b), attrs)


_lu_solve_attrs = {}  # platform -> LU_SOLVE.Attrs (`core.memo`)
