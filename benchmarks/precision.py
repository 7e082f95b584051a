"""Precision of every elementwise function against numpy, per dtype and tier (issue 9, item 8).

For each function and floating dtype, a broad input set (random values over the function's
domain on a log scale, special points, exact powers of 2 and 10, integers and their squares) is
run through lazyarray's compiled tier (`interpret_first = 0`) and its numpy interpreter tier, and
the largest distance to numpy's result is reported in units in the last place (ulp: the number
of representable floats between the two results). NaN must be NaN where numpy's is, infinities
must match exactly, and results or inputs below the smallest normal float are left out (XLA CPU
flushes subnormals to zero). Complex results count the larger of the real and imaginary parts'
distances.

    .venv/bin/python -m benchmarks.precision            # the Markdown table
    .venv/bin/python -m benchmarks.precision --only log10,atanh
    .venv/bin/python -m benchmarks.precision --speed    # our formulas against XLA's kernels
    .venv/bin/python -m benchmarks.precision --every-float32 exp [--step 16]   # every float32 input

`tests/test_precision.py` checks the bounds with the same sweep.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

# name -> (numpy function, arity, domain): domain picks the random inputs
UNARY = {
    "acos": (np.arccos, "unit"), "acosh": (np.arccosh, "ge1"), "asin": (np.arcsin, "unit"),
    "asinh": (np.arcsinh, "all"), "atan": (np.arctan, "all"), "atanh": (np.arctanh, "unit"),
    "cos": (np.cos, "trig"), "cosh": (np.cosh, "exp"), "exp": (np.exp, "exp"),
    "expm1": (np.expm1, "exp"), "log": (np.log, "pos"), "log1p": (np.log1p, "gem1"),
    "log2": (np.log2, "pos"), "log10": (np.log10, "pos"), "sin": (np.sin, "trig"),
    "sinh": (np.sinh, "exp"), "sqrt": (np.sqrt, "pos"), "tan": (np.tan, "trig"),
    "tanh": (np.tanh, "exp"), "reciprocal": (np.reciprocal, "all"), "square": (np.square, "all"),
    "abs": (np.abs, "all"), "negative": (np.negative, "all"), "round": (np.round, "all"),
    "floor": (np.floor, "all"), "ceil": (np.ceil, "all"), "trunc": (np.trunc, "all"),
    "sign": (np.sign, "all"),
}
BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "pow": np.power, "atan2": np.arctan2, "hypot": np.hypot, "logaddexp": np.logaddexp,
    "copysign": np.copysign, "nextafter": np.nextafter, "remainder": np.remainder,
    "floor_divide": np.floor_divide, "maximum": np.maximum, "minimum": np.minimum,
}
COMPLEX_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1",
                 "log", "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan", "tanh", "reciprocal",
                 "square", "abs"]
COMPLEX_BINARY = ["add", "subtract", "multiply", "divide", "pow"]
REAL_DTYPES = ("float32", "float64")
COMPLEX_DTYPES = ("complex64", "complex128")
TIERS = ("compiled", "interpreted")


def _specials(npdt):
    fi = np.finfo(npdt)
    v = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 0.1, -0.1, 1e-3, 10.0, 100.0, np.pi,
         -np.pi, np.pi / 2, np.e, np.inf, -np.inf, np.nan, float(fi.max), -float(fi.max),
         float(fi.tiny), 1 - float(fi.epsneg), 1 + float(fi.eps), -1 + float(fi.epsneg)]
    return np.array(v, npdt)


def _exact_points(npdt):
    """Where numpy is exact: powers of 2 and 10, integers and their squares (sqrt), halves."""
    fi = np.finfo(npdt)
    top = 20 if npdt == np.float32 else 60
    p2 = np.ldexp(1.0, np.arange(-100, 101)).astype(npdt)
    p10 = np.array([10.0 ** k for k in range(-top // 2, top // 2 + 1)]).astype(npdt)
    ints = np.arange(0, 1025, dtype=npdt)
    squares = (ints * ints).astype(npdt)
    halves = np.arange(-40, 41, dtype=npdt) / 2
    out = np.concatenate([p2, p10, ints, squares, halves, -p2])
    return out[np.isfinite(out) & ((np.abs(out) >= fi.tiny) | (out == 0))]


def _random(domain, npdt, rng, n):
    fi = np.finfo(npdt)
    lo_exp = -30 if npdt == np.float32 else -200
    hi_exp = 30 if npdt == np.float32 else 200
    mag = 10.0 ** rng.uniform(lo_exp, hi_exp, n)
    sign = rng.choice([-1.0, 1.0], n)
    small = rng.uniform(-10, 10, n)
    if domain == "all":
        v = np.concatenate([sign * mag, small])
    elif domain == "pos":
        v = np.concatenate([mag, np.abs(small), rng.uniform(0.5, 2.0, n)])
    elif domain == "unit":
        near = 1 - 10.0 ** rng.uniform(-16 if npdt == np.float64 else -7, 0, n)
        v = np.concatenate([rng.uniform(-1, 1, n), sign * near, sign * 10.0 ** rng.uniform(-20, 0, n)])
    elif domain == "ge1":
        v = np.concatenate([1 + 10.0 ** rng.uniform(-16, 2, n), mag[mag > 1]])
    elif domain == "gem1":
        v = np.concatenate([-1 + 10.0 ** rng.uniform(-16, 0.3, n), mag, sign * 10.0 ** rng.uniform(-20, 0, n)])
    elif domain == "exp":
        top = 89.0 if npdt == np.float32 else 710.0
        v = np.concatenate([rng.uniform(-top, top, n), sign * 10.0 ** rng.uniform(-20, 0.5, n), small])
    elif domain == "trig":
        v = np.concatenate([rng.uniform(-10, 10, n), sign * 10.0 ** rng.uniform(-10, 5, n)])
    else:
        raise ValueError(domain)
    v = v.astype(npdt)
    return v[np.isnan(v) | (np.abs(v) >= fi.tiny) | (v == 0)]


def inputs(name, dtype, n=2000, seed=0):
    """The sweep's inputs for a function: a tuple of arrays (one per operand)."""
    npdt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    real = np.dtype(npdt.char.lower() if npdt.kind != "c" else ("f" if npdt == np.complex64 else "d"))
    if npdt.kind == "c":
        parts = [np.concatenate([_random("all", real, rng, n // 4), _specials(real)]) for _ in range(2)]
        k = min(p.size for p in parts)
        re, im = parts[0][:k], rng.permutation(parts[1][:k])
        z = (re + 1j * im).astype(npdt)
        grid = np.array([complex(a, b) for a in (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, np.nan)
                         for b in (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, np.nan)], npdt)
        smallz = (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(npdt)
        z = np.concatenate([z, grid, smallz])
        if name in BINARY:
            return z, rng.permutation(z)
        return (z,)
    if name in BINARY:
        base = np.concatenate([_random("all", real, rng, n), _specials(real), _exact_points(real)])
        a = rng.permutation(base)
        b = rng.permutation(base)
        if name == "pow":  # exact powers: 2**k, 10**k, integers to small integer powers
            k = np.arange(-30, 31, dtype=real)
            ints = np.arange(1, 20, dtype=real)
            a = np.concatenate([a, np.full(k.size, 2, real), np.full(k.size, 10, real), ints, ints,
                                np.abs(a[:n]), rng.uniform(0, 3, n).astype(real)])
            b = np.concatenate([b, k, k, np.full(ints.size, 2, real), np.full(ints.size, 3, real),
                                rng.uniform(-30, 30, n).astype(real), rng.uniform(-50, 50, n).astype(real)])
        return a, b
    domain = UNARY[name][1]
    x = np.concatenate([_random(domain, real, rng, n), _specials(real), _exact_points(real)])
    if domain == "unit":
        x = np.concatenate([x, np.linspace(-1, 1, 4001).astype(real)])
    return (x,)


def _ordinal(v):
    it = {4: np.int32, 8: np.int64}[v.dtype.itemsize]
    i = v.view(it).astype(np.int64)
    return np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)


def ulp_distance(got, want):
    """Largest ulp distance (inf when NaN or infinity positions differ), subnormals as zero."""
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind == "c":
        return max(ulp_distance(got.real.copy(), want.real.copy()), ulp_distance(got.imag.copy(), want.imag.copy()))
    if want.dtype.kind != "f":
        return 0.0 if np.array_equal(got, want) else float("inf")
    tiny = np.finfo(want.dtype).tiny
    got = np.where(np.abs(got) < tiny, np.zeros((), want.dtype), got)
    want = np.where(np.abs(want) < tiny, np.zeros((), want.dtype), want)
    gn, wn = np.isnan(got), np.isnan(want)
    if (gn != wn).any():
        return float("inf")
    g, w = got[~wn], want[~wn]
    if (np.isinf(g) != np.isinf(w)).any() or (g[np.isinf(w)] != w[np.isinf(w)]).any():
        return float("inf")
    d = np.abs(_ordinal(g) - _ordinal(w))
    d = np.where((g == 0) & (w == 0), 0, d)  # +0 and -0 count as equal here
    return float(d.max(initial=0))


def worst(name, got, want, args):
    """The input where the distance is largest (for messages)."""
    best, where = -1.0, None
    for i in range(want.size):
        d = ulp_distance(got[i:i + 1], want[i:i + 1])
        if d > best:
            best, where = d, i
    return best, tuple(a[where] for a in args), got[where], want[where]


# ---------------------------------------------------------------- a correctly rounded reference
#
# numpy's results are not all correctly rounded (glibc's float64 log10, sinh, ... are up to 1 ulp
# off; numpy's SIMD float32 exp, log, ... up to 3), so the sweep also measures against the exact
# value rounded to the dtype, computed with Python's decimal module at 40 digits for the functions
# it can express (exp, ln, sqrt and arithmetic).

_REFERENCE = {
    "exp": lambda x: x.exp(),
    "expm1": lambda x: x.exp() - 1,
    "log": lambda x: x.ln(),
    "log1p": lambda x: (1 + x).ln(),
    "log2": lambda x: x.ln() / _D(2).ln(),
    "log10": lambda x: x.log10(),
    "sinh": lambda x: (x.exp() - (-x).exp()) / 2,
    "cosh": lambda x: (x.exp() + (-x).exp()) / 2,
    "tanh": lambda x: (1 - (-2 * x).exp()) / (1 + (-2 * x).exp()) if x > 0 else ((2 * x).exp() - 1) / ((2 * x).exp() + 1),
    "asinh": lambda x: (abs(x) + (x * x + 1).sqrt()).ln().copy_sign(x) if abs(x) > _D("1e-5") else
    x - x ** 3 / 6 + 3 * x ** 5 / 40 - 15 * x ** 7 / 336,
    "acosh": lambda x: (x + (x * x - 1).sqrt()).ln(),
    "atanh": lambda x: ((1 + x) / (1 - x)).ln() / 2 if abs(x) > _D("1e-5") else x + x ** 3 / 3 + x ** 5 / 5 + x ** 7 / 7,
    "sqrt": lambda x: x.sqrt(),
    "hypot": lambda x, y: (x * x + y * y).sqrt(),
    "logaddexp": lambda x, y: (x.exp() + y.exp()).ln(),
}


def _D(v):
    import decimal
    return decimal.Decimal(v)


def reference(name, args, dtype):
    """The correctly rounded result where decimal can compute it (finite inputs and results,
    within exp's range), NaN elsewhere; None for functions it cannot express."""
    import decimal
    fn = _REFERENCE.get(name)
    if fn is None or np.dtype(dtype).kind == "c":
        return None
    npdt = np.dtype(dtype)
    out = np.full(args[0].shape, np.nan, npdt)
    ctx = decimal.Context(prec=40, Emax=10 ** 6, Emin=-10 ** 6)
    with decimal.localcontext(ctx) as ctx:
        for i in range(out.size):
            vals = [float(a[i]) for a in args]
            if not all(math.isfinite(v) for v in vals) or max(abs(v) for v in vals) > 1e5 and name in (
                    "exp", "expm1", "sinh", "cosh", "tanh", "logaddexp"):
                continue
            ds = [_D(v) for v in vals]
            # enough digits for the smallest argument's own digits and for 1 + x, e^x - 1, ...
            ctx.prec = 40 + max([0] + [-d.adjusted() for d in ds if d != 0])
            try:
                r = fn(*ds)
            except (decimal.InvalidOperation, decimal.DivisionByZero, ValueError):
                continue
            if not r.is_finite():
                continue
            with np.errstate(all="ignore"):
                out[i] = np.asarray(float(r), np.float64).astype(npdt)  # rare double rounding in float32
    return out


def ulp_where_defined(got, ref):
    """ulp distance to the reference at the points where it is defined (finite)."""
    keep = np.isfinite(ref) & np.isfinite(got)
    return ulp_distance(got[keep], ref[keep])


def run_tier(name, args, tier):
    """lazyarray's result of function `name` on `args` in one tier (numpy array)."""
    import lazyarray as xp
    from lazyarray import _config, _engine
    saved = _config.interpret_first
    _config.interpret_first = 0 if tier == "compiled" else 10 ** 9
    try:
        xp.clear_cache()
        fn = getattr(xp, name)
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*[xp.asarray(a) for a in args]))
        _engine.wait_for_compiles()
        return out
    finally:
        _config.interpret_first = saved


def numpy_result(name, args):
    fn = UNARY[name][0] if name in UNARY else BINARY[name]
    with np.errstate(all="ignore"):
        return np.asarray(fn(*args))


def cases(only=None):
    """(function, dtype) pairs of the sweep."""
    out = []
    for name in list(UNARY) + list(BINARY):
        if only and name not in only:
            continue
        for d in REAL_DTYPES:
            out.append((name, d))
        if name in COMPLEX_UNARY or name in COMPLEX_BINARY:
            for d in COMPLEX_DTYPES:
                out.append((name, d))
    return out


def measure(name, dtype):
    """{column: max ulp}: to numpy per tier, and to the correctly rounded value per tier and for
    numpy itself (None where decimal has no reference)."""
    args = inputs(name, dtype)
    want = numpy_result(name, args)
    got = {t: run_tier(name, args, t) for t in TIERS}
    out = {f"{t} vs numpy": ulp_distance(got[t], want) for t in TIERS}
    ref = reference(name, args, dtype)
    for t in TIERS:
        out[f"{t} vs exact"] = None if ref is None else ulp_where_defined(got[t], ref)
    out["numpy vs exact"] = None if ref is None else ulp_where_defined(want, ref)
    return out


COLUMNS = ("compiled vs numpy", "interpreted vs numpy", "compiled vs exact", "interpreted vs exact",
           "numpy vs exact")


def _fmt(v):
    return "-" if v is None else ("mismatch" if v == float("inf") else f"{v:g}")


def speed(only=None, n=1_000_000, reps=20):
    """Median time (ms, compiled, n elements) of each function lowered as our formula against
    XLA's own kernel (what the lowering used before), per real dtype."""
    import statistics
    import time

    import lazyarray as xp
    from lazyarray import _config, _engine
    from lazyarray._ops import real_math as _real_math
    native = {"acos", "acosh", "asin", "asinh", "atanh", "cosh", "exp", "expm1", "log", "log1p",
              "sinh", "tanh"}
    saved = (_config.interpret_first, _real_math.uses_formula)
    _config.interpret_first = 0
    print("| function | dtype | XLA's kernel (ms) | our formula (ms) | ratio |")
    print("|---|---|---|---|---|")
    try:
        for name in sorted(native):
            if only and name not in only:
                continue
            for d in REAL_DTYPES:
                x = xp.asarray(inputs(name, d)[0][:1].repeat(n) * 0 + np.asarray(0.5, d))
                fn = getattr(xp, name)
                med = []
                for use in (False, True):
                    _real_math.uses_formula = saved[1] if use else (lambda nm, dtype: False)
                    xp.clear_cache()
                    xp.evaluate(fn(x))
                    _engine.wait_for_compiles()
                    ts = []
                    for _ in range(reps):
                        t0 = time.perf_counter()
                        xp.evaluate(fn(x))
                        ts.append(time.perf_counter() - t0)
                    med.append(1e3 * statistics.median(ts))
                print(f"| {name} | {d} | {med[0]:.3f} | {med[1]:.3f} | {med[1] / med[0]:.2f} |", flush=True)
    finally:
        _config.interpret_first, _real_math.uses_formula = saved


_EVERY_RANGE = {"exp": (-104.0, 89.0)}  # outside: 0 or inf (checked by the sweep above)


def every_float32(name, step=1, chunk=1 << 24):
    """The compiled tier's float32 `name` on every float32 input of its range (`_EVERY_RANGE`, else
    every finite float; `step` > 1: every step-th chunk of 2^24 consecutive bit patterns), against
    numpy's float64 function (within a float64 ulp or two: far below a float32 ulp). Returns the
    largest error in float32 ulps of the float64 value (normal results), the input where it is,
    and how many results are 0, 1, 2, >2 ulps from the float64 value rounded to float32."""
    import lazyarray as xp
    from lazyarray import _config
    fn, ref = getattr(xp, name), UNARY[name][0]
    lo, hi = _EVERY_RANGE.get(name, (-float(np.finfo(np.float32).max), float(np.finfo(np.float32).max)))
    spans = [(int(np.float32(max(lo, 0.0)).view(np.uint32)), int(np.float32(hi).view(np.uint32)))] if hi > 0 else []
    if lo < 0:
        spans.append((0x80000000, int(np.float32(lo).view(np.uint32))))
    saved, _config.interpret_first = _config.interpret_first, 0
    worst, worst_x, dist, count = 0.0, None, np.zeros(4, np.int64), 0
    try:
        for a, b in spans:
            for s in range(a, b + 1, chunk * step):
                x = np.arange(s, min(s + chunk, b + 1), dtype=np.uint32).view(np.float32)
                with np.errstate(all="ignore"):
                    got = np.asarray(fn(xp.asarray(x)))
                    want = ref(x.astype(np.float64))
                    rounded = want.astype(np.float32)
                keep = np.isfinite(rounded) & (np.abs(want) >= np.finfo(np.float32).tiny)
                w, g = want[keep], got[keep]
                err = np.abs(g.astype(np.float64) - w) / np.ldexp(1.0, np.frexp(w)[1] - 24)
                if err.size and err.max() > worst:
                    worst, worst_x = float(err.max()), float(x[keep][np.argmax(err)])
                d = np.abs(g.view(np.int32).astype(np.int64) - rounded[keep].view(np.int32).astype(np.int64))
                dist += np.bincount(np.minimum(d, 3), minlength=4)
                count += x.size
    finally:
        _config.interpret_first = saved
    return {"inputs": count, "max ulp": worst, "at": worst_x, "ulp distances 0/1/2/>2": dist.tolist()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--real", action="store_true", help="float32 and float64 only")
    ap.add_argument("--speed", action="store_true", help="time our formulas against XLA's kernels")
    ap.add_argument("--every-float32", default="", help="a float32 function on every float32 input (exp)")
    ap.add_argument("--step", type=int, default=1, help="with --every-float32: every step-th chunk")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    if a.every_float32:
        print(every_float32(a.every_float32, a.step))
        return None
    if a.speed:
        return speed(only)
    print("| function | dtype | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for name, d in cases(only):
        if a.real and d not in REAL_DTYPES:
            continue
        m = measure(name, d)
        print(f"| {name} | {d} | " + " | ".join(_fmt(m[c]) for c in COLUMNS) + " |", flush=True)


if __name__ == "__main__":
    main()
