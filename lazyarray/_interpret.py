"""A pure-numpy interpreter of pending graphs: the first execution tier, which needs no compile.

An XLA CPU compile costs tens of milliseconds even for a one-op program; a graph run only once
or twice is cheaper to evaluate here, op by op, while the compiler works in the background.

Each rule reproduces what the COMPILED program computes for its primitive: the semantics of the
StableHLO the lowering emits (integer division by zero gives -1, float->int conversion
saturates, shifts past the bit width give 0, maximum/minimum propagate NaN and order -0.0 below
+0.0, sort's NaN-last total order, gather clamps and scatter drops out-of-bounds indices, ...).
Float arithmetic is plain IEEE op by op: the compiled tier runs without XLA's algebraic
simplifier and with float constants opaque to the StableHLO folds (_runtime.compile_options,
_ops._lower_constant), so neither tier rewrites x / c into x * (1 / c), log(exp x) into x, and so
on. Rules are table-driven, keyed by the primitive's name, like the lowering rules; a rule may
come with a check of the node (dtype, attributes) and then covers only the nodes the check
accepts.

What has no rule (`supports` is False, the graph is compiled): the LAPACK kernels and triangular
solves, fft, complex multiply/divide/power and complex transcendental functions (XLA's formulas
differ from numpy's beyond rounding, at special values above all), unstable sorts whose tie
order shows, complex sorts and bool arithmetic. Known differences that remain: float sums,
products and dot products (summation order) and a * b + c (XLA may contract it into an FMA)
agree to rounding, not bit for bit; real transcendental functions are numpy's here and XLA's
(or our formulas) there, within the bounds tests/test_precision.py checks; XLA CPU flushes
subnormal floats to zero, numpy does not.
"""
from __future__ import annotations

import numpy as np

from . import _dtypes as dt
from ._ops import REDUCERS

__all__ = ["supports", "interpret"]

_RULES = {}  # primitive name -> (rule, check or None)


def rule(*names, check=None):
    """Decorator: `fn(node, *operand values) -> value` evaluates primitives `names`; `check(node)`,
    when given, says whether the rule covers that node."""
    def deco(fn):
        for name in names:
            _RULES[name] = (fn, check)
        return fn
    return deco


def supports(order) -> bool:
    """True when every computed node of `order` has a rule that covers it."""
    rules = _RULES
    for node in order:
        r = rules.get(node.op.name)
        if r is None:
            return False
        check = r[1]
        if check is not None and not check(node):
            return False
    return True


def interpret(order, leaves, outputs):
    """Evaluate the graph; one numpy array per output, of exactly its node's shape and dtype."""
    env = {}
    for leaf in leaves:
        env[id(leaf)] = _leaf_value(leaf)
    rules = _RULES
    with np.errstate(all="ignore"):
        for node in order:
            v = rules[node.op.name][0](node, *[env[id(a)] for a in node.args])
            npdt = node.dtype.np
            if type(v) is not np.ndarray or v.dtype != npdt:
                v = np.asarray(v, dtype=npdt)
            if v.shape != node.shape:
                raise AssertionError(f"interpreter: {node} evaluated to shape {v.shape}")
            env[id(node)] = v
    out = []
    for o in outputs:
        v = env[id(o)]
        if not (v.flags.owndata and v.flags.writeable and v.flags.c_contiguous):
            v = np.array(v, dtype=o.dtype.np, order="C", copy=True)
        out.append(v)
    return out


def _leaf_value(leaf):
    if leaf.buffer is not None:
        v = np.asarray(leaf.buffer)
    else:
        v = np.asarray(leaf.host, dtype=leaf.dtype.np)
    if v.dtype != leaf.dtype.np:
        v = v.astype(leaf.dtype.np)
    if v.shape != leaf.shape:
        v = v.reshape(leaf.shape)
    return v


# ---------------------------------------------------------------- helpers

def _kinds(*kinds):
    """Check: the first operand's dtype kind is one of `kinds` ('b', 'i', 'u', 'f', 'c')."""
    allowed = "".join(kinds)
    return lambda node: node.args[0].dtype.kind in allowed


def _typed(value, npdt):
    return np.asarray(value, dtype=npdt)


def _signbit(x):
    return np.signbit(x)


# ---------------------------------------------------------------- leaves of the program

@rule("constant")
def _constant(node):
    value, = node.attrs
    return np.frombuffer(value, node.dtype.np).reshape(node.shape).copy()


@rule("iota", check=lambda node: node.dtype.kind in "iufc")
def _iota(node):
    dim, = node.attrs
    n = node.shape[dim]
    line = np.arange(n, dtype=np.int64).astype(node.dtype.np)
    shape = [1] * len(node.shape)
    shape[dim] = n
    return np.ascontiguousarray(np.broadcast_to(line.reshape(shape), node.shape))


# ---------------------------------------------------------------- arithmetic
#
# Plain IEEE arithmetic, op by op: the compiled tier runs without XLA's algebraic simplifier
# (_runtime.compile_options), so no rewrite such as x / c => x * (1 / c), log(exp(x)) => x or
# x + 0.0 => x changes a compiled value, and these rules need not imitate any.

def _not_bool(node):
    return node.args[0].dtype.kind != "b"


@rule("stablehlo.add", check=_not_bool)
def _add(node, a, b):
    return np.add(a, b)


@rule("stablehlo.subtract", check=_not_bool)
def _subtract(node, a, b):
    return np.subtract(a, b)


@rule("stablehlo.multiply", check=_kinds("i", "u", "f"))
def _multiply(node, a, b):
    return np.multiply(a, b)


@rule("stablehlo.divide", check=_kinds("i", "u", "f"))
def _divide(node, a, b):
    d = node.dtype
    if d.kind == "f":
        return np.divide(a, b)
    a, b = np.broadcast_arrays(a, b)
    zero = b == 0
    if d.kind == "u":
        q = a // np.where(zero, _typed(1, d.np), b)
        return np.where(zero, _typed(np.iinfo(d.np).max, d.np), q)
    lo = np.iinfo(d.np).min
    over = (a == lo) & (b == -1)
    safe = np.where(zero | over, _typed(1, d.np), b)
    q = (a - np.fmod(a, safe)) // safe  # truncating division, exact
    q = np.where(zero, _typed(-1, d.np), q)
    return np.where(over, a, q)  # INT_MIN / -1 = INT_MIN


@rule("stablehlo.remainder", check=_kinds("i", "u", "f"))
def _remainder(node, a, b):
    d = node.dtype
    if d.kind == "f":
        return np.fmod(a, b)
    a, b = np.broadcast_arrays(a, b)
    zero = b == 0
    safe = np.where(zero, _typed(1, d.np), b)
    if d.kind == "i":
        safe = np.where(b == -1, _typed(1, d.np), safe)  # x % -1 = 0, and no INT_MIN % -1 trap
    return np.where(zero, a, np.fmod(a, safe))  # x % 0 = x


@rule("stablehlo.power", check=_kinds("f"))
def _power(node, a, b):
    a, b = np.broadcast_arrays(a, b)  # full arrays: numpy's scalar fast paths (b == 0.5 -> sqrt)
    r = np.power(a, b)                # break C's pow(-0.0, 0.5) = +0.0, pow(-inf, 0.5) = +inf
    half = b == 0.5
    if half.any():
        r = np.where(half & (a == 0), _typed(0, node.dtype.np), r)
        r = np.where(half & np.isneginf(a), _typed(np.inf, node.dtype.np), r)
    return r


@rule("integer_power", check=_kinds("i", "u"))
def _integer_power(node, a, b):
    """numpy's wrap-around power for exponents >= 0 (repeated squaring in the dtype, as the
    lowering); an exponent < 0 gives the real result truncated toward zero: 1 for base 1,
    +-1 for base -1, else 0 (0 ** -n too), where numpy raises."""
    npdt = node.dtype.np
    a, b = np.broadcast_arrays(a, b)
    negative = b < 0
    r = np.power(a, np.where(negative, _typed(0, npdt), b))
    if negative.any():
        odd = (b & _typed(1, npdt)).astype(bool)
        special = np.where(a == 1, _typed(1, npdt),
                           np.where(a == _typed(-1, npdt), np.where(odd, _typed(-1, npdt), _typed(1, npdt)),
                                    _typed(0, npdt)))
        r = np.where(negative, special, r)
    return r


def _maxmin(fn, take_neg):
    def ew(node, a, b):
        r = fn(a, b)
        if node.dtype.kind == "f":
            # IEEE: max(-0.0, +0.0) = +0.0 and min = -0.0, whichever comes first
            both = (a == 0) & (b == 0)
            if both.any():
                sa, sb = _signbit(a), _signbit(b)
                neg = (sa | sb) if take_neg else (sa & sb)
                zero = _typed(0, node.dtype.np)
                r = np.where(both, np.where(neg, -zero, zero), r)
        return r
    return ew


rule("stablehlo.maximum", check=_kinds("b", "i", "u", "f"))(_maxmin(np.maximum, False))
rule("stablehlo.minimum", check=_kinds("b", "i", "u", "f"))(_maxmin(np.minimum, True))


@rule("stablehlo.negate", check=_kinds("i", "u", "f", "c"))
def _negate(node, x):
    return np.negative(x)


@rule("stablehlo.abs", check=_kinds("i", "f", "c"))
def _abs(node, x):
    return np.abs(x)  # INT_MIN stays INT_MIN; complex -> hypot in the real dtype


@rule("stablehlo.sign", check=_kinds("i", "f"))
def _sign(node, x):
    if node.dtype.kind == "i":
        return np.sign(x)
    keep = (x == 0) | np.isnan(x)  # +-0 and NaN come back as they are
    return np.where(keep, x, np.sign(x))


@rule("stablehlo.floor", check=_kinds("f"))
def _floor(node, x):
    return np.floor(x)


@rule("stablehlo.ceil", check=_kinds("f"))
def _ceil(node, x):
    return np.ceil(x)


@rule("stablehlo.round_nearest_even", check=_kinds("f"))
def _round_even(node, x):
    return np.rint(x)


@rule("stablehlo.round_nearest_afz", check=_kinds("f"))
def _round_afz(node, x):
    t = np.trunc(x)
    frac = np.abs(x - t)  # exact
    step = np.where(x < 0, _typed(-1, node.dtype.np), _typed(1, node.dtype.np))
    return np.where(frac >= _typed(0.5, node.dtype.np), t + step, t)


@rule("stablehlo.is_finite", check=_kinds("f"))
def _is_finite(node, x):
    return np.isfinite(x)


# ---------------------------------------------------------------- bitwise and logical

@rule("stablehlo.and", check=_kinds("b", "i", "u"))
def _and(node, a, b):
    return np.bitwise_and(a, b)


@rule("stablehlo.or", check=_kinds("b", "i", "u"))
def _or(node, a, b):
    return np.bitwise_or(a, b)


@rule("stablehlo.xor", check=_kinds("b", "i", "u"))
def _xor(node, a, b):
    return np.bitwise_xor(a, b)


@rule("stablehlo.not", check=_kinds("b", "i", "u"))
def _not(node, x):
    return np.invert(x)


def _shift(kind):
    def ew(node, a, b):
        npdt = node.dtype.np
        bits = npdt.itemsize * 8
        udt = np.dtype(f"u{npdt.itemsize}")
        sdt = np.dtype(f"i{npdt.itemsize}")
        a, b = np.broadcast_arrays(a, b)
        amount = b.view(udt)  # the shift is read as unsigned: negative amounts are huge
        big = amount >= bits
        amount = np.minimum(amount, _typed(bits - 1, udt))
        if kind == "left":
            r = np.left_shift(a.view(udt), amount)
            r = np.where(big, _typed(0, udt), r)
        elif kind == "arithmetic":  # sign fill, also for unsigned dtypes (the bits as signed)
            r = np.right_shift(a.view(sdt), amount.astype(sdt))
            return r.view(npdt)
        else:
            r = np.right_shift(a.view(udt), amount)
            r = np.where(big, _typed(0, udt), r)
        return r.view(npdt)
    return ew


rule("stablehlo.shift_left", check=_kinds("i", "u"))(_shift("left"))
rule("stablehlo.shift_right_arithmetic", check=_kinds("i", "u"))(_shift("arithmetic"))
rule("stablehlo.shift_right_logical", check=_kinds("i", "u"))(_shift("logical"))


# ---------------------------------------------------------------- transcendental (real only)

# XLA's own kernels, where the lowering still emits them (sin, cos, tan, atan, atan2, sqrt,
# float64 exp/log/acos, and inside compositions such as _complex_math's): op -> (numpy
# function, dtypes covered). Measured against XLA CPU (jaxlib 0.10) over wide sweeps with special
# values: every pair listed agrees within 4 ulp (outside subnormals), except log_plus_one f64
# (up to 103 ulp near -0.41) and tanh f64 (7 ulp), kept so that graphs using them internally stay
# interpretable. The standard's functions whose kernels are further off are `math.<name>`
# primitives (below) with our own formulas, and numpy's function here.
_F32, _F64 = dt.float32, dt.float64
_TRANSCENDENTAL = {  # exponential and log: below
    "stablehlo.log_plus_one": (np.log1p, (_F32, _F64)),
    "stablehlo.exponential_minus_one": (np.expm1, (_F64,)),
    "stablehlo.sine": (np.sin, (_F32, _F64)),
    "stablehlo.cosine": (np.cos, (_F32, _F64)),
    "stablehlo.tan": (np.tan, (_F32, _F64)),
    "stablehlo.tanh": (np.tanh, (_F32, _F64)),
    "stablehlo.sqrt": (np.sqrt, (_F32, _F64)),
    "chlo.acos": (np.arccos, (_F32, _F64)),
    "chlo.acosh": (np.arccosh, (_F32, _F64)),
    "chlo.asin": (np.arcsin, (_F32, _F64)),
    "chlo.asinh": (np.arcsinh, (_F32, _F64)),
    "chlo.atan": (np.arctan, (_F32, _F64)),
    "chlo.atanh": (np.arctanh, (_F32,)),
    "stablehlo.atan2": (np.arctan2, (_F32, _F64)),
    "chlo.next_after": (np.nextafter, (_F32, _F64)),
}


def _transcendental(fn, dtypes):
    def ew(node, *xs):
        return fn(*xs)
    return ew, (lambda node: node.args[0].dtype in dtypes)


for _name, (_fn, _dts) in _TRANSCENDENTAL.items():
    _ew, _check = _transcendental(_fn, _dts)
    rule(_name, check=_check)(_ew)


@rule("stablehlo.exponential", "stablehlo.log", check=lambda node: node.args[0].dtype in (_F32, _F64))
def _exp_log(node, x):
    return np.exp(x) if node.op.name == "stablehlo.exponential" else np.log(x)


def _math_rules():
    """`math.<name>` (a function lowered as our formula, _real_math): numpy's own function."""
    from ._real_math import FORMULAS
    for name, (_, fn) in FORMULAS.items():
        rule(f"math.{name}", check=lambda node: node.dtype in (_F32, _F64))(
            lambda node, *xs, _fn=fn: _fn(*xs))


_math_rules()


# ---------------------------------------------------------------- complex parts

@rule("stablehlo.real")
def _real(node, x):
    return np.real(x)


@rule("stablehlo.imag")
def _imag(node, x):
    if x.dtype.kind != "c":
        return np.zeros(x.shape, x.dtype)
    return np.imag(x)


@rule("stablehlo.complex", check=_kinds("f"))
def _complex(node, re, im):
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(node.shape, node.dtype.np)
    out.real = re
    out.imag = im
    return out


# ---------------------------------------------------------------- compare, select, convert

_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
            "GT": np.greater, "GE": np.greater_equal}


@rule("compare", check=lambda node: node.args[0].dtype.kind != "c" or node.attrs[0] in ("EQ", "NE"))
def _compare(node, a, b):
    return _COMPARE[node.attrs[0]](a, b)


@rule("select")
def _select(node, p, a, b):
    return np.where(p, a, b)


@rule("convert")
def _convert(node, x):
    target = node.dtype
    if target.kind == "b":
        return x != 0  # NaN -> True, -0.0 -> False; complex: either part
    if x.dtype.kind == "c" and target.kind != "c":
        x = np.real(x)
    if x.dtype.kind == "f" and target.kind in "iu":
        return _float_to_int(x, target.np)
    if x.dtype.kind in "biu" and target.kind == "c":
        return x.astype(dt.real_of(target).np).astype(target.np)
    return x.astype(target.np)


def _float_to_int(x, npdt):
    """Truncate toward zero, saturating at the integer range; NaN -> 0."""
    info = np.iinfo(npdt)
    bits = npdt.itemsize * 8
    hi = np.asarray(2.0 ** (bits - 1 if info.min < 0 else bits), x.dtype)  # first too-large value
    big = x >= hi
    small = x <= np.asarray(info.min, x.dtype) if info.min < 0 else x < 0
    bad = big | small | np.isnan(x)
    out = np.where(bad, _typed(0, x.dtype), x).astype(npdt)
    out = np.where(big, _typed(info.max, npdt), out)
    return np.where(small, _typed(info.min, npdt), out)


@rule("stablehlo.bitcast_convert",
      check=lambda node: (node.args[0].dtype.kind in "iuf" and node.dtype.kind in "iuf"
                          and node.args[0].dtype.bits == node.dtype.bits))
def _bitcast(node, x):
    return x.view(node.dtype.np)


# ---------------------------------------------------------------- shape ops

@rule("broadcast_in_dim")
def _broadcast(node, x):
    dims, = node.attrs
    if list(dims) != sorted(dims):
        perm = sorted(range(len(dims)), key=lambda i: dims[i])
        x = np.transpose(x, perm)
        dims = tuple(dims[i] for i in perm)
    shape = [1] * len(node.shape)
    for i, d in enumerate(dims):
        shape[d] = x.shape[i]
    return np.broadcast_to(x.reshape(shape), node.shape)


@rule("reshape")
def _reshape(node, x):
    return x.reshape(node.shape)


@rule("transpose")
def _transpose(node, x):
    return np.transpose(x, node.attrs[0])


@rule("slice")
def _slice(node, x):
    start, limit, stride = node.attrs
    return x[tuple(slice(lo, hi, s) for lo, hi, s in zip(start, limit, stride))]


@rule("reverse")
def _reverse(node, x):
    return np.flip(x, node.attrs[0])


@rule("concatenate")
def _concatenate(node, *xs):
    return np.concatenate(xs, axis=node.attrs[0])


@rule("pad")
def _pad(node, x, value):
    low, high, interior = node.attrs
    out = np.full(node.shape, value, node.dtype.np)
    if not node.shape or x.size == 0 or out.size == 0:
        return out if node.shape else x
    dst, src = [], []
    for n, lo, it, m in zip(x.shape, low, interior, node.shape):
        pos = lo + np.arange(n) * (it + 1)
        keep = (pos >= 0) & (pos < m)
        dst.append(pos[keep])
        src.append(np.nonzero(keep)[0])
    out[np.ix_(*dst)] = x[np.ix_(*src)]
    return out


def _starts_signed(node, first):
    return all(a.dtype.kind == "i" for a in node.args[first:])


@rule("dynamic_slice", check=lambda node: _starts_signed(node, 1))
def _dynamic_slice(node, x, *starts):
    sizes, = node.attrs
    index = []
    for s, n, size in zip(starts, x.shape, sizes):
        lo = min(max(int(s), 0), n - size)  # clamped so the slice fits
        index.append(slice(lo, lo + size))
    return x[tuple(index)]


@rule("dynamic_update_slice", check=lambda node: _starts_signed(node, 2))
def _dynamic_update_slice(node, x, update, *starts):
    out = np.array(x, copy=True)
    index = []
    for s, n, size in zip(starts, x.shape, update.shape):
        lo = min(max(int(s), 0), n - size)
        index.append(slice(lo, lo + size))
    out[tuple(index)] = update
    return out


# ---------------------------------------------------------------- reductions

def _ufunc(kind, npdt):
    if kind in ("and", "or"):
        if npdt == np.bool_:
            return np.logical_and if kind == "and" else np.logical_or
        return np.bitwise_and if kind == "and" else np.bitwise_or
    return {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}[kind]


def _reducer_ok(kind, d):
    if kind in ("add", "mul"):
        return d.kind in "iuf" or (d.kind == "c" and kind == "add")
    if kind in ("max", "min"):
        return d.kind in "biuf"
    return d.kind in "biu"


def _init(kind, d):
    return np.asarray(REDUCERS[kind][1](d), dtype=d.np)  # as the lowering spells it


def _fix_zero_sign(result, x, kind, axis, accumulate):
    """max/min of floats: +0.0 beats -0.0 in max, -0.0 beats +0.0 in min (numpy returns the
    first of two equal zeros)."""
    if kind not in ("max", "min") or x.dtype.kind != "f":
        return result
    want = (x == 0) & (~_signbit(x) if kind == "max" else _signbit(x))
    if accumulate:
        present = np.logical_or.accumulate(want, axis=axis) if want.size else want
    else:
        present = np.logical_or.reduce(want, axis=axis)
    if not present.any():
        return result
    zero = _typed(0, x.dtype)
    return np.where((result == 0) & present, zero if kind == "max" else -zero, result)


@rule("reduce", check=lambda node: _reducer_ok(node.attrs[0], node.dtype))
def _reduce(node, x):
    kind, dims = node.attrs
    d = node.dtype
    r = _ufunc(kind, d.np).reduce(x, axis=dims, dtype=d.np, initial=_init(kind, d)[()])
    return _fix_zero_sign(np.asarray(r, d.np), x, kind, dims, False)


def _cumulative_axis(node):
    """The axis of a reduce_window that `ops.cumulative` built (full-length window along one
    axis, padded n-1 before it), or None for any other window."""
    kind, window, padding = node.attrs
    shape = node.args[0].shape
    axes = [i for i, (w, p) in enumerate(zip(window, padding)) if (w, p) != (1, (0, 0))]
    if not axes:  # a scan along an axis of length 1: any such axis will do
        axes = [i for i, n in enumerate(shape) if n == 1][:1]
    if len(axes) != 1:
        return None
    a = axes[0]
    n = shape[a]
    if n == 0 or window[a] != n or padding[a] != (n - 1, 0):
        return None
    return a


@rule("reduce_window", check=lambda node: (_reducer_ok(node.attrs[0], node.dtype)
                                           and _cumulative_axis(node) is not None))
def _reduce_window(node, x):
    kind = node.attrs[0]
    d = node.dtype
    axis = _cumulative_axis(node)
    # each window is folded from the reducer's init (so -0.0 + 0.0 gives +0.0 first)
    first_shape = list(x.shape)
    first_shape[axis] = 1
    init = np.full(first_shape, _init(kind, d), d.np)
    r = _ufunc(kind, d.np).accumulate(np.concatenate([init, x], axis=axis), axis=axis, dtype=d.np)
    r = r[(slice(None),) * axis + (slice(1, None),)]
    return _fix_zero_sign(r, x, kind, axis, True)


@rule("argreduce", check=lambda node: node.args[0].dtype.kind in "biuf")
def _argreduce(node, x, idx):
    """The (value, index) pair that wins: larger (smaller for argmin) value, NaN beating every
    number, ties to the smaller index; the index half of the reduction's init loses them all."""
    kind, axis = node.attrs
    last = np.iinfo(np.int64).max
    if x.shape[axis] == 0:
        return np.full(node.shape, last, np.int64)
    best = np.max(x, axis=axis, keepdims=True) if kind == "max" else np.min(x, axis=axis, keepdims=True)
    if x.dtype.kind == "f":  # np.max/min propagate NaN
        hit = (x == best) | (np.isnan(x) & np.isnan(best))
    else:
        hit = x == best
    return np.min(np.where(hit, idx, _typed(last, np.int64)), axis=axis)


# ---------------------------------------------------------------- contraction

@rule("dot_general", check=_kinds("i", "u", "f"))
def _dot_general(node, x, y):
    lb, rb, lc, rc = node.attrs
    lfree = [i for i in range(x.ndim) if i not in lb and i not in lc]
    rfree = [i for i in range(y.ndim) if i not in rb and i not in rc]
    bshape = [x.shape[i] for i in lb]
    m = int(np.prod([x.shape[i] for i in lfree], dtype=np.int64))
    n = int(np.prod([y.shape[i] for i in rfree], dtype=np.int64))
    k = int(np.prod([x.shape[i] for i in lc], dtype=np.int64))
    bsize = int(np.prod(bshape, dtype=np.int64))
    xm = np.transpose(x, list(lb) + lfree + list(lc)).reshape(bsize, m, k)
    ym = np.transpose(y, list(rb) + list(rc) + rfree).reshape(bsize, k, n)
    d = node.dtype
    if d.kind in "iu":  # wrap-around: exact in any wider ring, then truncated
        wide = np.int64 if d.kind == "i" else np.uint64
        r = np.matmul(xm.astype(wide), ym.astype(wide)).astype(d.np)
    elif np.isfinite(xm).all() and np.isfinite(ym).all():
        r = np.matmul(xm, ym)
    else:  # BLAS may skip zeros, losing the NaN of 0 * inf: plain loops instead
        r = np.einsum("bmk,bkn->bmn", xm, ym)
    return r.reshape(node.shape)


# ---------------------------------------------------------------- sort

def _sort_ok(node):
    key = node.args[0].dtype
    if key.kind == "c":
        return False  # the complex comparator is not a strict weak order at -0.0 / NaN
    _, _, stable, _ = node.attrs
    # an unstable sort's tie order is XLA's own: only exact when ties cannot be told apart
    return stable or (len(node.args) == 1 and key.kind in "biu")


def _sort_permutation(key, axis, descending):
    """The stable order of `key` along axis under `_total_order_less` (NaNs last as +NaN, -0.0
    equal to +0.0); descending reverses the comparator (NaNs first), ties keep their order."""
    if key.dtype.kind == "f":
        zero = _typed(0, key.dtype)
        key = np.where(key == 0, zero, key)
        key = np.where(np.isnan(key), _typed(np.nan, key.dtype), key)
    if not descending:
        return np.argsort(key, axis=axis, kind="stable")
    n = key.shape[axis]
    p = np.argsort(np.flip(key, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(p, axis)


@rule("sort", check=_sort_ok)
def _sort(node, *xs):
    dim, descending, _, index = node.attrs
    if xs[0].size == 0:
        return xs[index]
    perm = _sort_permutation(xs[0], dim, descending)
    return np.take_along_axis(xs[index], perm, axis=dim)


# ---------------------------------------------------------------- gather / scatter

def _points_axes(node, idx_shape, x_shape, offset, collapsed, to_operand, index_vector_dim):
    """The axes of a gather/scatter built by `gather_points` / `scatter_points`, or None."""
    axes = tuple(collapsed)
    if tuple(to_operand) != axes or list(axes) != sorted(set(axes)):
        return None
    if not idx_shape or index_vector_dim != len(idx_shape) - 1 or idx_shape[-1] != len(axes):
        return None
    nb = len(idx_shape) - 1
    rest = len(x_shape) - len(axes)
    if tuple(offset) != tuple(range(nb, nb + rest)):
        return None
    return axes


def _gather_ok(node):
    x, idx = node.args
    offset, collapsed, start_map, ivd, sizes = node.attrs
    if idx.dtype.kind != "i":
        return False
    axes = _points_axes(node, idx.shape, x.shape, offset, collapsed, start_map, ivd)
    if axes is None:
        return False
    if tuple(sizes) != tuple(1 if i in axes else n for i, n in enumerate(x.shape)):
        return False
    # an empty axis cannot hold the slice of 1 (a result with no elements needs no gather)
    return all(x.shape[a] > 0 for a in axes) or 0 in node.shape


@rule("gather", check=_gather_ok)
def _gather(node, x, idx):
    axes = node.attrs[1]
    if 0 in node.shape:
        return np.zeros(node.shape, node.dtype.np)
    moved = np.moveaxis(x, axes, range(len(axes)))
    coords = tuple(np.clip(idx[..., j], 0, x.shape[a] - 1)  # start indices clamp into range
                   for j, a in enumerate(axes))
    return moved[coords]


def _scatter_ok(node):
    x, idx, upd = node.args
    window, inserted, to_operand, ivd, mode = node.attrs
    if idx.dtype.kind != "i":
        return False
    if mode != "set" and not _reducer_ok(mode, node.dtype):
        return False
    axes = _points_axes(node, idx.shape, x.shape, window, inserted, to_operand, ivd)
    if axes is None:
        return False
    rest = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return upd.shape == idx.shape[:-1] + rest


@rule("scatter", check=_scatter_ok)
def _scatter(node, x, idx, upd):
    axes = node.attrs[1]
    mode = node.attrs[4]
    out = np.array(x, copy=True)
    k = len(axes)
    rows = idx.reshape(-1, k)
    vals = upd.reshape((rows.shape[0],) + upd.shape[idx.ndim - 1:])
    if rows.shape[0] == 0 or out.size == 0:
        return out
    dims = [x.shape[a] for a in axes]
    inside = np.ones(rows.shape[0], bool)
    for j, n in enumerate(dims):  # an update out of bounds is dropped, not clamped
        inside &= (rows[:, j] >= 0) & (rows[:, j] < n)
    rows, vals = rows[inside], vals[inside]
    if rows.shape[0] == 0:
        return out
    moved = np.moveaxis(out, axes, range(k))  # a view: writes land in out
    if mode == "set":
        # updates apply in order: of several to one place, the last wins
        flat = np.ravel_multi_index(tuple(rows.T), dims)
        _, first_from_end = np.unique(flat[::-1], return_index=True)
        keep = np.sort(rows.shape[0] - 1 - first_from_end)
        moved[tuple(rows[keep].T)] = vals[keep]
    else:
        ufunc = _ufunc(mode, node.dtype.np)
        ufunc.at(moved, tuple(rows.T), vals)
        if mode in ("max", "min") and node.dtype.kind == "f":
            _fix_scatter_zero_sign(moved, np.moveaxis(x, axes, range(k)), rows, vals, mode)
    return out


def _fix_scatter_zero_sign(moved, before, rows, vals, mode):
    """max/min scatters of floats: a zero result is +0.0 (max) / -0.0 (min) when any of the
    zeros that met there had that sign."""
    def wanted(v):
        return (v == 0) & (~_signbit(v) if mode == "max" else _signbit(v))
    flag = wanted(before)
    np.logical_or.at(flag, tuple(rows.T), wanted(vals))
    hit = flag & (moved == 0)
    if hit.any():
        zero = _typed(0, moved.dtype)
        moved[hit] = zero if mode == "max" else -zero
