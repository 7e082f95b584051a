"""Complex elementwise functions with the standard's special values (C99 Annex G).

XLA's complex kernels are accurate for finite inputs but return NaN + NaN j for most inputs
with an infinite or NaN component, and do not keep the sign of zero components. Each function
here therefore:
  1. folds the input into the quadrant where the standard states its special cases, using the
     function's symmetries (f(conj z) = conj f(z), and f(-z) = -f(z) for odd functions), which
     also fixes every signed-zero result;
  2. computes the ordinary value (XLA's kernel, or the textbook formula where that is exact);
     the real functions inside (cosh, sinh, expm1) are our accurate ones (`math.<name>`,
     _ops.real_math), and log, log1p and tanh have formulas of their own (_log_abs,
     _tanh_finite) from real ops, so that their graphs are interpretable (issue 11: SciPy's
     first calls never wait for a compile) and within a few ulp of numpy's where XLA's
     complex kernels are up to 20 (tanh) or 127-3985 (log, next to the unit circle) ulp off;
  3. overrides the special classes of inputs (infinite, NaN or zero components) in a table of
     (condition, real part, imaginary part) rules;
  4. unfolds the symmetry.
The trigonometric functions follow from the hyperbolic ones as the standard prescribes
(cos z = cosh(iz), sin z = -i sinh(iz), tan z = -i tanh(iz), asin z = -i asinh(iz),
atan z = -i atanh(iz)).
"""
from __future__ import annotations

import math
import struct
import threading

import numpy as np

from . import _dtypes as dt
from ._bounded import keep
from . import _ops as ops
from ._graph import Node, pending
from ._ops.core import host_step, node_value, prepared
from ._ops.elementwise import SELECT, Elementwise
from ._ops.real_math import norm_minus_one


class R:
    """A real-valued node with arithmetic operators, so the formulas below read as formulas.
    Python numbers become 0-D structural constants of the node's dtype."""

    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n

    def _of(self, other):
        if isinstance(other, R):
            return other.n
        return number(other, self.n.dtype)  # 0-D: elementwise ops broadcast it

    def _bin(self, op, other, swap=False):
        a, b = self.n, self._of(other)
        return R(once(op, b, a) if swap else once(op, a, b))

    def __add__(self, o): return self._bin(ops.ADD, o)
    def __radd__(self, o): return self._bin(ops.ADD, o, True)
    def __sub__(self, o): return self._bin(ops.SUBTRACT, o)
    def __rsub__(self, o): return self._bin(ops.SUBTRACT, o, True)
    def __mul__(self, o): return self._bin(ops.MULTIPLY, o)
    def __rmul__(self, o): return self._bin(ops.MULTIPLY, o, True)
    def __truediv__(self, o): return self._bin(ops.DIVIDE, o)
    def __rtruediv__(self, o): return self._bin(ops.DIVIDE, o, True)
    def __neg__(self): return R(once(ops.NEGATE, self.n))

    def _cmp(self, o, d):
        return R(once(ops.compare, self.n, self._of(o), d))

    def __lt__(self, o): return self._cmp(o, "LT")
    def __gt__(self, o): return self._cmp(o, "GT")
    def __eq__(self, o): return self._cmp(o, "EQ")
    def __ne__(self, o): return self._cmp(o, "NE")
    __hash__ = None

    # boolean nodes
    def __and__(self, o): return R(once(ops.AND, self.n, o.n))
    def __or__(self, o): return R(once(ops.OR, self.n, o.n))
    def __invert__(self): return R(once(ops.NOT, self.n))


# ---------------------------------------------------------------- the formulas' numbers

# One formula names the same few numbers many times (sqrt: 0.0 eleven times, inf, NaN): within
# one call of a public function below (`_shares_numbers`) each (number, dtype) is ONE constant
# node, as XLA's CSE would make it, so the interpreter evaluates and the sync walks ~20 nodes
# fewer per function. Never shared across calls: a loop's iterations then keep their own nodes
# in creation order (`_segment` reads periods from it). The constants' attributes (numpy's
# asarray + tobytes, ~10 us) are memoized by the number's exact bits (-0.0 and each NaN are
# keys of their own).
_per_call = threading.local()
_F64 = struct.Struct("<d")
_number_attrs = {}


def _number_attrs_of(key, kind, dtype):
    value = _F64.unpack(key)[0] if kind is float else key
    return ops.CONSTANT.Attrs(np.asarray(value, dtype=dtype.np).tobytes(), (), dtype)


def number(value, dtype):
    """The 0-D constant `value` of `dtype` (as `ops.constant(value, dtype)`), one node per
    (value, dtype) within one public call."""
    kind = type(value)
    key = (_F64.pack(value) if kind is float else value, kind, dtype)
    nodes = getattr(_per_call, "nodes", None)
    if nodes is not None:
        node = nodes.get(key)
        if node is None:
            node = nodes[key] = ops.CONSTANT.bind((), ops.memo(_number_attrs, key, _number_attrs_of))
        return node
    return ops.CONSTANT.bind((), ops.memo(_number_attrs, key, _number_attrs_of))


def once(build, *args):
    """`build(*args)` (an op on nodes, then static attributes), made once per call of a public
    function below: its formulas name the same subexpressions several times (sqrt tests
    isnan(b) three times, isfinite(a) twice), and within one call an op of the same operands
    is the same node, as XLA's CSE would make it. Outside a call: built each time. Keys name
    operand nodes by id, and each entry keeps its operands alive, so no id is reused while
    the table lives; static attributes (a direction, a dtype) are keys as they are."""
    nodes = getattr(_per_call, "nodes", None)
    if nodes is None:
        return build(*args)
    key = (build, *[id(a) if type(a) is Node else a for a in args])
    entry = nodes.get(key)
    if entry is None:
        entry = nodes[key] = (build(*args), args)
    return entry[0]


def _shares_numbers(fn, name):
    """`fn` with one constant node per number, and one node per subexpression (`once`), for
    the whole call (nested calls join the outermost one's table). A top-level call on an array
    of at most `FORMULA_NODE_MAX_ELEMENTS` elements records ONE node (`_formula_node`) that
    names the function `name` (unique: the names are part of structural keys)."""
    if name in _FORMULAS:
        raise AssertionError(f"complex formula {name!r} defined twice")
    _FORMULAS[name] = fn

    def call(*args):
        if getattr(_per_call, "nodes", None) is not None:
            return fn(*args)
        z = args[0]
        if type(z) is Node and _elements(z.shape) <= FORMULA_NODE_MAX_ELEMENTS:
            node = _formula_node(name, z, args[1:])
            if node is not None:
                return node
        _per_call.nodes = {}
        try:
            return fn(*args)
        finally:
            _per_call.nodes = None
    call.__name__, call.__doc__, call.__wrapped__ = fn.__name__, fn.__doc__, fn
    return call


# ---------------------------------------------------------------- one node per formula

# A complex formula is tens to hundreds of nodes (sqrt ~40, log1p ~90): SciPy's filter design and
# complex logsumexp record, key, walk and interpret each of them at every call, where numpy makes
# one pass. On small arrays a public function above therefore records ONE node of the primitive
# `complex.formula`, whose attributes name the function: its formula is recorded once per
# (function, extra arguments, dtype) on a 0-D placeholder leaf (`_Template`), the interpreter
# evaluates that template's nodes with their own rules, and the lowering emits their own
# StableHLO, so both tiers compute what the nodes recorded one by one computed, bit for bit.
# Larger arrays keep the recorded nodes: the tier policy weighs a graph's numpy work by its
# nodes' elements, and 4096 elements times a formula's few hundred nodes stays under its
# one-op limit (INTERPRET_MAX_WORK, 2^22), so no tier decision changes.
FORMULA_NODE_MAX_ELEMENTS = 4096
_FORMULAS = {}   # function name -> the formula (the undecorated public function)
_templates = {}  # (name, extra arguments, operand dtype) -> _Template, or None (not eligible)
_COMPILE_PER_NODE = 0.001  # seconds: _tier_policy.COMPILE_PER_NODE (a layer above: not imported)


def _elements(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class _Template:
    """A formula recorded on one 0-D placeholder leaf: its computed nodes in dependency order,
    each with its operands' positions (-1: the placeholder), and per result shape the same
    nodes re-made at that shape (`at`: what the lowering emits and the interpreter evaluates;
    constants stay 0-D, as recorded), with the constants' values kept."""

    __slots__ = ("attrs", "order", "positions", "interpretable", "extra_seconds", "_at", "_steps", "_grown",
                 "_kept")

    def __init__(self, attrs, order, positions):
        self.attrs, self.order, self.positions = attrs, order, positions
        # which nodes take the result's shape (an elementwise rule's: an operand that is the
        # placeholder or has it; constants stay 0-D), and the constants' values (0-D: the same at
        # every shape): functions of the template alone, made once for every shape `at` makes
        grown = []
        for pos in positions:
            g = False
            for p in pos:
                if p < 0 or grown[p]:
                    g = True
                    break
            grown.append(g)
        self._grown = grown
        self._kept = None  # position -> (its evaluation, a constant's read-only value), made by `at`
        self.interpretable = all(n.op.interpretable(n) for n in order)
        extra = _COMPILE_PER_NODE * (len(order) - 1)
        for n in order:
            more = n.op.compile_extra
            if more is not None:
                extra += more(n)
        self.extra_seconds = extra
        self._at = {}
        self._steps = {}

    def at(self, shape):
        """[(node at `shape`, operand positions, kept value or None)] (bounded memo)."""
        steps = self._at.get(shape)
        if steps is None:
            kept_at = self._kept
            if kept_at is None:
                kept_at = self._kept = {}
            made, steps = [], []
            for n, pos, grown in zip(self.order, self.positions, self._grown):
                args = tuple([None if p < 0 else made[p] for p in pos])
                m = Node(n.op, args, n.attrs, shape if grown else (), n.dtype)
                made.append(m)
                kept = None
                evaluate = m.op.evaluate
                if not pos and evaluate is not None:  # a constant: its value, read-only
                    i = len(made) - 1
                    known = kept_at.get(i)
                    if known is not None and known[0] is evaluate:  # (an evaluation replaced since: again)
                        kept = known[1]
                    else:
                        kept = node_value(evaluate(m), m)
                        kept.flags.writeable = False
                        kept_at[i] = (evaluate, kept)
                steps.append((m, pos, kept))
            keep(self._at, shape, steps, 64)
        return steps


    def host_steps(self, shape):
        """`at(shape)` as the interpreter runs it (bounded memo): per node, the function of its
        operand values that evaluates it (`core.host_step`: the ufunc itself where that is its
        evaluation, as `_interpret.HostProgram` calls it), its operands' places in the values
        list (0: the formula's operand, i + 1: node i's value), its dtype, shape and the node
        (for `node_value`); a constant is its kept value."""
        steps = self._steps.get(shape)
        if steps is None:
            steps = []
            for m, pos, kept in self.at(shape):
                places = tuple([0 if p < 0 else p + 1 for p in pos])
                fn = None if kept is not None else host_step(m)
                steps.append((fn, places, kept, m.dtype.np, m.shape, m))
            keep(self._steps, shape, steps, 64)
        return steps


def _template(name, extra, dtype):
    key = (name, extra, dtype)
    if key in _templates:
        return _templates[key]
    leaf = Node(None, (), (), (), dtype)
    _per_call.nodes = {}
    try:
        out = _FORMULAS[name](leaf, *extra)
    finally:
        _per_call.nodes = None
    t = _templates[key] = _walk(name, extra, leaf, out)
    return t


def _walk(name, extra, leaf, out):
    """The `_Template` of `out` over `leaf`, or None when the formula is not one of 0-D
    elementwise nodes (and constants) over that leaf alone (another leaf, a shaped node, a
    reshape or broadcast)."""
    if type(out) is not Node or out is leaf:
        return None
    index, order, positions = {}, [], []  # (nodes key `index` by identity: `_graph.Plan`)
    stack = [(out, False)]
    push, pop = stack.append, stack.pop
    while stack:
        n, ready = pop()
        if n in index:
            continue
        if not ready:
            op = n.op
            if op is None or n.shape != () or not (
                    isinstance(op, Elementwise) or op is SELECT or (op is ops.CONSTANT and not n.args)):
                return None  # (`_Template.at` re-makes elementwise nodes at a shape; nothing else)
            push((n, True))
            # operands pushed last-first, so the first is walked first: `_graph.Plan`'s order,
            # which the lowering keeps (XLA's CPU compile of chained formulas emitted in another
            # order took 5 s instead of 0.15 s for six sqrt+exp steps)
            args = n.args
            for k in range(len(args) - 1, -1, -1):
                a = args[k]
                if a is not leaf and a not in index:
                    push((a, False))
            continue
        index[n] = len(order)
        order.append(n)
        positions.append(tuple([-1 if a is leaf else index[a] for a in n.args]))
    return _Template(FORMULA.Attrs(name, extra, out.dtype), order, positions)


def _formula_node(name, z, extra):
    """One `complex.formula` node for `name(z, *extra)`, or None when the formula has no template."""
    try:
        key = (name, extra, z.dtype)
        t = _templates[key] if key in _templates else _template(name, extra, z.dtype)
    except TypeError:  # an unhashable extra argument
        return None
    if t is None:
        return None
    node = FORMULA.bind((z,), t.attrs)
    pending.nodes_since_sync += len(t.order) - 1  # (the cut budget counts what was recorded before)
    return node


def nodes_in(node):
    """How many nodes `node` stands for: a `complex.formula` node its template's, any other 1.
    Loop segmentation (`_segment`) counts nodes by this, so a loop of complex functions is split
    into chunks of the size its recorded nodes gave (XLA's CPU compile of six chained sqrt + exp
    steps as one straight program takes ~5 s, one step ~0.15 s)."""
    if node.op is FORMULA:
        return len(_template_of(node).order)
    return 1


def _template_of(node):
    return _templates[(node.attrs.fn, node.attrs.extra, node.args[0].dtype)]


def _prepare_formula(node):
    """The function of the operand value that evaluates a `complex.formula` node of this
    structure: the template's nodes at its shape run as `_interpret.HostProgram` runs a graph's
    (each node's prepared step, its result checked by `node_value`), so the values are those of
    each node's own evaluation, as before (SciPy's complex logsumexp: one ~70-node formula a
    call)."""
    steps = _template_of(node).host_steps(node.shape)
    ndarray = np.ndarray

    def run(z):
        vals = [z]
        for fn, places, kept, npdt, shape, m in steps:
            if kept is not None:
                vals.append(kept)
                continue
            n = len(places)
            if n == 1:
                v = fn(vals[places[0]])
            elif n == 2:
                v = fn(vals[places[0]], vals[places[1]])
            else:
                v = fn(*[vals[i] for i in places])
            if type(v) is not ndarray or v.dtype is not npdt or v.shape != shape:
                v = node_value(v, m)
            vals.append(v)
        return vals[-1]
    return run


@prepared(_prepare_formula)
def _formula_evaluate(node, z):
    return _prepare_formula(node)(z)


def _formula_lower(e, node, z):
    vals = []
    for m, pos, _ in _template_of(node).at(node.shape):
        vals.append(m.op.lower(e, m, *[z if p < 0 else vals[p] for p in pos]))
    return vals[-1]


FORMULA = Elementwise("complex.formula", None, out=lambda d, attrs: attrs.dtype,
                          attrs=("fn", "extra", "dtype"), lower=_formula_lower, evaluate=_formula_evaluate,
                          covers=lambda node: _template_of(node).interpretable)
FORMULA.compile_extra = lambda node: _template_of(node).extra_seconds


def f(op, *xs):
    return R(once(op, *(x.n for x in xs)))


def where(cond, a, b, like=None):
    """Elementwise cond ? a : b; `like` gives the dtype when both branches are numbers."""
    like = a if isinstance(a, R) else b if isinstance(b, R) else like
    return R(once(ops.select, cond.n, like._of(a), like._of(b)))


def isnan(x): return x != x
def isinf(x): return f(ops.ABS, x) == math.inf
def isfinite(x): return R(once(ops.IS_FINITE, x.n))
def fabs(x): return f(ops.ABS, x)


def signbit(x):
    ity = dt.signed_of_bits(x.n.dtype.bits)
    bits = once(ops.bitcast, x.n, ity)
    return R(once(ops.compare, bits, number(0, ity), "LT"))


def copysign(mag, sign):
    m = fabs(mag) if isinstance(mag, R) else R(sign._of(abs(mag)))
    return where(signbit(sign), -m, m)


def parts(z):
    return R(once(ops.REAL, z)), R(once(ops.IMAG, z))


def make(re, im):
    return once(ops.COMPLEX, re.n, im.n)


def patch(re, im, rules):
    """Apply (condition, real, imag) rules in order (later rules win); None keeps a part."""
    for cond, r, i in rules:
        if r is not None:
            re = where(cond, r, re)
        if i is not None:
            im = where(cond, i, im)
    return re, im


NAN = math.nan
INF = math.inf
PI = math.pi


# ---------------------------------------------------------------- symmetry folding

def _conj_symmetric(kernel):
    """f(conj z) = conj f(z): compute on the upper half plane, conjugate back."""
    def fn(z):
        a, b = parts(z)
        re, im = kernel(a, fabs(b))
        return make(re, where(signbit(b), -im, im))
    return fn


def _odd_conj_symmetric(kernel):
    """Odd and conj-symmetric: compute on the first quadrant, restore both signs."""
    def fn(z):
        a, b = parts(z)
        re, im = kernel(fabs(a), fabs(b))
        return make(where(signbit(a), -re, re), where(signbit(b), -im, im))
    return fn


def _xla(op, a, b):
    """XLA's complex kernel on (a, b), as real and imaginary parts."""
    return parts(op(make(a, b)))


# ---------------------------------------------------------------- exponentials

def _exp_parts(a, b):
    m = f(ops.EXP, a)
    re, im = m * f(ops.COS, b), m * f(ops.SIN, b)
    nonfinite_b = ~isfinite(b)
    return patch(re, im, [
        (b == 0.0, None, b),                                  # x + 0j -> exp(x) + 0j, NaN too
        ((a == -INF) & nonfinite_b, 0.0, 0.0),                # 0 + 0j (signs unspecified)
        ((a == INF) & nonfinite_b, INF, NAN),                 # inf + NaN j
    ])


def exp(z):
    return make(*_exp_parts(*parts(z)))


def expm1(z):
    a, b = parts(z)
    # re = exp(a) cos(b) - 1 = expm1(a) cos(b) - 2 sin(b/2)^2, accurate near 0
    h = f(ops.SIN, b * 0.5)
    re = _real_fn("expm1", a) * f(ops.COS, b) - 2.0 * h * h
    im = f(ops.EXP, a) * f(ops.SIN, b)
    nonfinite_b = ~isfinite(b)
    re, im = patch(re, im, [
        (b == 0.0, None, b),
        ((a == 0.0) & (b == 0.0), 0.0, None),                # expm1(-0 + 0j) = +0 + 0j
        ((a == -INF) & nonfinite_b, -1.0, 0.0),
        ((a == INF) & nonfinite_b, INF, NAN),
    ])
    return make(re, im)


def _cosh_parts(a, b):
    re = _real_fn("cosh", a) * f(ops.COS, b)
    im = _real_fn("sinh", a) * f(ops.SIN, b)
    nonfinite_b = ~isfinite(b)
    return patch(re, im, [
        (b == 0.0, None, b * copysign(1.0, a)),
        ((a == 0.0) & nonfinite_b, None, 0.0),                # NaN + 0j (sign unspecified)
        (isinf(a) & nonfinite_b, INF, NAN),                   # inf + NaN j
    ])


def _sinh_parts(a, b):
    re = _real_fn("sinh", a) * f(ops.COS, b)
    im = _real_fn("cosh", a) * f(ops.SIN, b)
    nonfinite_b = ~isfinite(b)
    return patch(re, im, [
        (b == 0.0, None, b),
        ((a == 0.0) & nonfinite_b, a, NAN),                   # 0 + NaN j
        (isinf(a) & nonfinite_b, a, NAN),                     # inf + NaN j (sign unspecified)
    ])


def _tanh_finite(a, b):
    """tanh(a + bi) for finite a, b >= 0 from real functions only (Kahan's formula; XLA's complex
    kernel has no interpreter rule): with t = tan b, beta = 1 + t^2, s = sinh a,
    re = beta sqrt(1 + s^2) s / (1 + beta s^2), im = t / (1 + beta s^2), sums of positive
    terms only. Past a = 20 (float64; 9 for float32) e^-2a is below half an ulp of 1:
    re = 1 and im = 4 t / beta e^-2a (s^2 = e^2a / 4), which cannot overflow."""
    far = 20.0 if a.n.dtype is dt.float64 else 9.0
    t = f(ops.TAN, b)
    beta = 1.0 + t * t
    small = where(a > far, 0.0, a)
    s = _real_fn("sinh", small)
    den = 1.0 + beta * (s * s)
    re = beta * f(ops.SQRT, 1.0 + s * s) * s / den
    im = t / den
    big = a > far
    return where(big, 1.0, re), where(big, 4.0 * (t / beta) * f(ops.EXP, -2.0 * a), im)


def _tanh_quadrant(a, b):
    """tanh on a >= 0, b >= 0 (or NaN)."""
    re, im = _tanh_finite(a, b)
    return patch(re, im, [
        (b == 0.0, f(ops.TANH, a), 0.0),             # real axis: tanh(a) + 0j
        (~isfinite(b) & (a != 0.0), NAN, NAN),               # finite or NaN a, inf/NaN b
        ((a == 0.0) & ~isfinite(b), 0.0, NAN),               # +0 + NaN j
        (a == INF, 1.0, 0.0),                                # 1 + 0j for any b
    ])


def cosh(z):
    return make(*_cosh_parts(*parts(z)))


def sinh(z):
    return make(*_sinh_parts(*parts(z)))


tanh = _odd_conj_symmetric(_tanh_quadrant)


def cos(z):
    a, b = parts(z)
    return make(*_cosh_parts(-b, a))                          # cos z = cosh(iz)


def sin(z):
    a, b = parts(z)
    u, v = _sinh_parts(-b, a)                                 # sin z = -i sinh(iz)
    return make(v, -u)


def tan(z):
    a, b = parts(z)
    u, v = parts(tanh(make(-b, a)))                          # tan z = -i tanh(iz)
    return make(v, -u)


# ---------------------------------------------------------------- logarithms and roots

def _log_specials(a, b, re, im):
    """log's values where a component is infinite or NaN: log|z| + i atan2(b, a), with
    |z| = inf whenever a component is infinite (even beside a NaN)."""
    anyinf = isinf(a) | isinf(b)
    return patch(re, im, [
        (anyinf, INF, f(ops.ATAN2, b, a)),
        ((isnan(a) | isnan(b)) & ~anyinf, NAN, NAN),
    ])


def _wide(*xs):
    """complex128's parts as they are; complex64's converted to float64, where the products of
    two float32 values are exact (the formulas below then round once, converting back)."""
    if xs[0].n.dtype is dt.float64:
        return xs
    return tuple(R(ops.convert(x.n, dt.float64)) for x in xs)


def _narrow(like, *xs):
    return tuple(R(ops.convert(x.n, like.n.dtype)) for x in xs)


def _norm_minus_one(a, b, two_a=False):
    """|z|^2 - 1 for z = a + bi (float64 parts, 1/2 < a < 2, |b| <= a), or with two_a
    2a + a^2 + b^2 = |1 + z|^2 - 1 (-1/2 <= a < 4, |b| < 4), right to a few ulp where the
    terms cancel (next to the unit circle): the squares split into exact terms (2^-26 and
    2^-52 of the squares, which may cancel what the large ones leave) and all of them summed
    with TwoSum, as one node (`_ops.real_math.norm_minus_one`: ~60 nodes of formula, which
    both tiers evaluate op for op). (From complex64, whose products are exact in float64, the
    plain formula rounds once and suffices.)"""
    return R(norm_minus_one(a.n, b.n, two_a))


def _log_abs(u, v, exact):
    """log|u + vi| for finite u, v (in float64), without XLA's complex log kernel (up to 127 ulp
    from numpy's, correctly rounded, value for complex128 and 3985 for complex64, next to the
    unit circle) and with one formula both tiers evaluate op by op (real kernels only):
    with m = max(|u|, |v|), n = min, 1/2 log1p(m^2 - 1 + n^2) where 1/2 < m < 2, the sum exact
    but for one rounding (`exact`: complex128's, `_norm_minus_one`; from complex64 every
    product is exact in float64), log m + 1/2 log1p((n/m)^2) elsewhere (no overflow, no
    cancellation)."""
    au, av = fabs(u), fabs(v)
    m, n = f(ops.MAXIMUM, au, av), f(ops.MINIMUM, au, av)
    if exact:
        mm = where((m > 0.5) & (m < 2.0), m, 1.0)   # (the split's squares stay finite)
        nn = where((m > 0.5) & (m < 2.0), n, 0.0)
        s = _norm_minus_one(mm, nn)
    else:
        s = (m - 1.0) * (m + 1.0) + n * n
    near = _real_fn("log1p", s) * 0.5
    r = n / m
    far = f(ops.LOG, m) + 0.5 * _real_fn("log1p", r * r)
    return where((m > 0.5) & (m < 2.0), near, far)


def _log_quadrant(a, b):
    wa, wb = _wide(a, b)
    re, = _narrow(a, _log_abs(wa, wb, wa.n.dtype is a.n.dtype))
    im = f(ops.ATAN2, b, a)
    re, im = patch(re, im, [((a == 0.0) & (b == 0.0), -INF, None)])
    return _log_specials(a, b, re, im)


def _log1p_quadrant(a, b):
    """log(1 + z). Its real part 1/2 log1p(2a + a^2 + b^2) keeps a tiny z's value (log of the
    rounded 1 + z would lose it) and the last bits next to the circle |1 + z| = 1
    (`_norm_minus_one`), for a in [-1/2, 4) and b < 4; elsewhere log|1 + z| from 1 + a, which is
    exact for a in [-4, -1/2] (next to z = -1, where the first formula would cancel) and far
    from that circle otherwise."""
    wa, wb = _wide(a, b)
    exact = wa.n.dtype is a.n.dtype
    inside = ~(wa < -0.5) & (wa < 4.0) & (wb < 4.0)
    if exact:
        s = _norm_minus_one(where(inside, wa, 0.0), where(inside, wb, 0.0), two_a=True)
    else:
        s = 2.0 * wa + (wa * wa + wb * wb)   # exact products: an FMA changes nothing
    small = _real_fn("log1p", s) * 0.5
    re = where(inside, small, _log_abs(wa + 1.0, wb, exact))
    re, = _narrow(a, re)
    im = f(ops.ATAN2, b, a + 1.0)
    re, im = patch(re, im, [((a == -1.0) & (b == 0.0), -INF, 0.0)])
    return _log_specials(a + 1.0, b, re, im)


log = _conj_symmetric(_log_quadrant)
log1p = _conj_symmetric(_log1p_quadrant)


def log_base(z, base):
    """log(z) / ln(base), scaling each part by a real constant (a complex division would turn
    infinite parts into NaN)."""
    re, im = parts(log(z))
    k = 1.0 / math.log(base)
    return make(re * k, im * k)


def _sqrt_quadrant(a, b):
    re, im = _xla(ops.SQRT, a, b)
    pos = a > 0.0
    root = f(ops.SQRT, fabs(a))
    return patch(re, im, [
        ((b == 0.0) & isfinite(a), where(pos, root, 0.0), where(pos, 0.0, root)),
        (a == INF, INF, where(isnan(b), NAN, 0.0, like=a)),          # +inf + 0j, +inf + NaN j
        (a == -INF, where(isnan(b), NAN, 0.0, like=a), INF),         # +0 + inf j, NaN + inf j
        (isnan(a) & ~isinf(b), NAN, NAN),
        (isfinite(a) & isnan(b), NAN, NAN),
        (b == INF, INF, INF),                                # +inf + inf j, even for NaN a
    ])


sqrt = _conj_symmetric(_sqrt_quadrant)


# ---------------------------------------------------------------- inverse functions

def _at_branch_point(a, b, point=1.0):
    """Where z = a + bi (b >= 0) sits on the branch point `point` (+-1) with b so small that
    XLA's acos/acosh/asinh kernels flush an intermediate (b/2 is subnormal: acos(1 + 2.2e-308j)
    comes out 1.5e-154 + 0j, not 1.5e-154 - 1.5e-154j), and where the root term of
    acos(1 + bi) = sqrt(b) (1 - i) + O(b^1.5) is the whole answer to the last bit (acos(-1 + bi)
    = pi - conj(acos(1 + bi)) likewise). Returns the condition and sqrt(b)."""
    tiny = 2.0 ** (-120 if b.n.dtype.bits == 32 else -1000)
    return (a == point) & (b < tiny) & (b > 0.0), f(ops.SQRT, b)


def _classes_at_plus_minus_one(a, b):
    """What acos and acosh test on the quadrant: any infinite part, any NaN part, the branch
    points 1 and -1 (with the root term sqrt(b) there)."""
    at_one, root = _at_branch_point(a, b)
    at_minus_one, _ = _at_branch_point(a, b, -1.0)
    return isinf(a) | isinf(b), isnan(a) | isnan(b), at_one, at_minus_one, root


def _acos_quadrant(a, b):
    re, im = _xla(ops.ACOS, a, b)
    anyinf, nan, at_one, at_minus_one, root = _classes_at_plus_minus_one(a, b)
    return patch(re, im, [
        (at_one, root, -root),                               # acos(1 + bi) = sqrt(b) (1 - i)
        (at_minus_one, PI - root, -root),
        ((a == 0.0) & (b == 0.0), PI / 2, -0.0),
        (nan, NAN, NAN),
        ((a == 0.0) & isnan(b), PI / 2, NAN),
        (anyinf & ~nan, f(ops.ATAN2, b, a), -INF),
        (isinf(a) & isnan(b), NAN, INF),                     # NaN ± inf j
        (isnan(a) & isinf(b), NAN, -INF),
    ])


def _acosh_quadrant(a, b):
    re, im = _xla(ops.ACOSH, a, b)
    anyinf, nan, at_one, at_minus_one, root = _classes_at_plus_minus_one(a, b)
    return patch(re, im, [
        (at_one, root, root),                                # acosh(z) = i acos(z) for b >= 0
        (at_minus_one, root, PI - root),
        ((a == 0.0) & (b == 0.0), 0.0, PI / 2),
        (nan, NAN, NAN),
        ((a == 0.0) & isnan(b), NAN, PI / 2),                # NaN ± πj/2
        (anyinf & ~nan, INF, f(ops.ATAN2, b, a)),
        (anyinf & nan, INF, NAN),
    ])


def _asinh_quadrant(a, b):
    re, im = _xla(ops.ASINH, a, b)
    anyinf = isinf(a) | isinf(b)
    nan = isnan(a) | isnan(b)
    at_i, root = _at_branch_point(b, a)                      # asinh(a + i) = i asin(1 - ai)
    return patch(re, im, [
        (at_i, root, PI / 2 - root),
        ((a == 0.0) & (b == 0.0), 0.0, 0.0),
        (nan, NAN, NAN),
        (isnan(a) & (b == 0.0), NAN, 0.0),
        (anyinf & ~nan, INF, f(ops.ATAN2, b, a)),
        (anyinf & nan, INF, NAN),
    ])


def _real_fn(name, *xs):
    """One of our accurate real functions (`math.<name>`, _ops.real_math) on R nodes."""
    return R(ops.math_function(name, *(x.n for x in xs)))


def _atanh_finite(a, b):
    """atanh on the finite first quadrant, a, b >= 0, with every part kept that the result
    needs (XLA's kernel and the textbook 0.5 log((1+z)/(1-z)) lose them next to the branch
    points +-1 and for huge |z|). In float64 (complex64 converts in and out, so it rounds once):

        re = 1/4 log1p(4a / ((1-a)^2 + b^2)),  im = 1/2 atan2(2b, (1-a)(1+a) - b^2).

    Three regions. Next to z = 1 (|1-z| below 2^-27) the denominator can underflow (a = 1,
    b = 1e-281 gives b^2 = 0 and re = inf where it is 323.4): there log1p(4a/h^2) =
    log(4a/h^2) to the last bit, so re = 1/2 (ln 2 + 1/2 ln a - ln h) with h = hypot(1-a, b).
    For huge |z| (above 2^30) the squares overflow:
    atanh z = 1/z + i pi/2 + O(1/z^3), so re = a/|z|^2 and im = pi/2 - b/|z|^2, with a and b
    scaled by max(a, b) first. In between the formulas hold as written: (1-a) is exact near 1,
    the denominator a sum of squares (no cancellation), and where (1-a)(1+a) - b^2 does cancel
    (on the unit circle) atan2's slope there is at most 1/(2b) of an already tiny error."""
    dtype = a.n.dtype
    a, b = R(ops.convert(a.n, dt.float64)), R(ops.convert(b.n, dt.float64))
    near, far = 2.0 ** -27, 2.0 ** 30
    d = 1.0 - a
    re_mid = 0.25 * _real_fn("log1p", 4.0 * a / (d * d + b * b))
    im_mid = 0.5 * f(ops.ATAN2, 2.0 * b, d * (1.0 + a) - b * b)
    h = _real_fn("hypot", d, b)
    re_near = 0.5 * (math.log(2.0) + 0.5 * f(ops.LOG, a) - f(ops.LOG, h))
    s = f(ops.MAXIMUM, a, b)
    r, t = a / s, b / s
    q = r * r + t * t                                        # in [1, 2]
    re_far, im_far = (r / q) / s, PI / 2 - (t / q) / s
    is_far = s > far
    re = where(is_far, re_far, where(h < near, re_near, re_mid))
    im = where(is_far, im_far, im_mid)
    return R(ops.convert(re.n, dtype)), R(ops.convert(im.n, dtype))


def _atanh_quadrant(a, b):
    re, im = _atanh_finite(a, b)
    nan = isnan(a) | isnan(b)
    return patch(re, im, [
        ((b == 0.0) & ~(a > 1.0), _real_fn("atanh", a), 0.0),   # real axis inside [0, 1]
        ((a == 1.0) & (b == 0.0), INF, 0.0),
        (nan, NAN, NAN),
        ((a == 0.0) & isnan(b), 0.0, NAN),
        (isinf(a) & isnan(b), 0.0, NAN),
        (isinf(b), 0.0, PI / 2),                             # for any a, NaN included
        (isinf(a) & isfinite(b), 0.0, PI / 2),
    ])


acos = _conj_symmetric(_acos_quadrant)
acosh = _conj_symmetric(_acosh_quadrant)
asinh = _odd_conj_symmetric(_asinh_quadrant)
atanh = _odd_conj_symmetric(_atanh_quadrant)


def asin(z):
    a, b = parts(z)
    u, v = parts(asinh(make(-b, a)))                         # asin z = -i asinh(iz)
    return make(v, -u)


def atan(z):
    a, b = parts(z)
    u, v = parts(atanh(make(-b, a)))                         # atan z = -i atanh(iz)
    return make(v, -u)


def abs_(z):
    """|z| = hypot(re, im): +inf when either part is infinite, even beside a NaN."""
    a, b = parts(z)
    m = R(ops.ABS(z))
    return where(isinf(a) | isinf(b), INF, m).n


exp, expm1, cosh, sinh, tanh, cos, sin, tan, log, log1p, log_base, sqrt = map(
    _shares_numbers, (exp, expm1, cosh, sinh, tanh, cos, sin, tan, log, log1p, log_base, sqrt),
    ("exp", "expm1", "cosh", "sinh", "tanh", "cos", "sin", "tan", "log", "log1p", "log_base", "sqrt"))
acos, acosh, asinh, atanh, asin, atan, abs_ = map(
    _shares_numbers, (acos, acosh, asinh, atanh, asin, atan, abs_),
    ("acos", "acosh", "asinh", "atanh", "asin", "atan", "abs"))


# ---------------------------------------------------------------- power by a recorded number

def recorded_exponent(b):
    """The number a complex power's exponent node `b` holds, rounded to its dtype, when `b` is
    the 0-D host leaf of a Python scalar (`x ** 2`: `_graph.scalar_leaf`, never changed once
    made); None for anything else (an array, a computed node, an int no float can hold). A
    known exponent lets `power_by_recorded` build only the products its bits need (butter's
    `z ** 2` was 111 nodes while the exponent's bits were read in the graph)."""
    if b.op is not None or b.shape != () or type(b.host) not in (int, float, complex):
        return None
    try:
        return complex(np.asarray(b.host, dtype=b.dtype.np)[()])
    except OverflowError:
        return None


def power_by_recorded(a, b, exponent):
    """a ** b for complex `a` and an exponent known when recorded (`recorded_exponent`): the same
    values, in the same order of products, as `_elementwise_functions._pow`'s graph computes when
    it reads the exponent's bits at run time, so both tiers and both paths agree bit for bit.
    numpy's rule: an integral exponent |n| < 100 is binary exponentiation by complex products
    (the first factor taken as it is), then 1 / that for n < 0; any other exponent is the
    general power (XLA's exp(b log a)); then 0 ** b is 0 where real(b) > 0."""
    re_b, im_b = exponent.real, exponent.imag
    if im_b == 0 and math.isfinite(re_b) and math.floor(re_b) == re_b and abs(re_b) < 100:
        n = int(abs(re_b))
        result, power = None, a
        while n:
            if n & 1:
                result = power if result is None else ops.MULTIPLY(result, power)
            n >>= 1
            if n:
                power = ops.MULTIPLY(power, power)
        if result is None:  # n == 0: 1 everywhere (numpy: NaN ** 0 is 1 too)
            result = ops.full(1, a)
        if re_b < 0:
            result = ops.DIVIDE(ops.constant(1, a.dtype), result)
    else:
        result = ops.POWER(a, b)
    if re_b > 0:
        result = ops.select(ops.compare(a, ops.constant(0, a.dtype), "EQ"),
                            ops.constant(0, a.dtype), result)
    return result
