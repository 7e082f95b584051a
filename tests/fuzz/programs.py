"""The op vocabulary and the hypothesis strategy that draws random Array API programs.

A program is a list of `Line`s, each one or a few Python statements over variables v0, v1, ...
and the namespace name `xp`, so the same text runs on lazyarray and on array-api-strict, and a
failing program prints as code a person can paste. Generation executes every drawn line on
array-api-strict at once: the reference's shapes and dtypes steer the next draws, and a line the
reference rejects (a promotion the standard leaves undefined, an out-of-range Python int, a
shape error) is dropped, so every kept program is a valid standard program. Writes into
read-only views (broadcast_to) are kept as lines that must raise.

Every variable carries a tolerance class for the comparison (see runner.compare):
  0  exact: built from creation, data movement, and ops IEEE rounds exactly (+ - * / sqrt ...);
  1  one transcendental op (exp, log, sin, pow, ...) applied to exact values: a few ulp;
  2  anything rounded in an order-dependent way (reductions, matmul, linalg, fft) or arithmetic
     on class 1 or 2 values: relative to the largest magnitude that went into it;
  3  a transcendental of a class-1 value: only NaN and infinity positions compared, which is
     what catches rewrites such as log2(pow(x, y)) -> y * log2(x) (finite where numpy overflows).
Class-2 values never reach transcendental or amplifying ops (products, quotients, ...): near zero
their sign is noise, and log or 1/x would turn it into NaN or infinity.
Ops whose result jumps under a rounding difference (comparisons, floor, argmax, astype to int,
sort order, unique) take only class-0 floats, so integer and boolean values compare exactly.

Hypothesis shrinks the choice sequence behind these draws; the lists sampled from put the
simplest choice first so that shrinking moves toward short, plain programs.
"""
from __future__ import annotations

import warnings  # noqa: F401

import numpy as np
from hypothesis import strategies as st

from .lines import LineMakers, Reject  # noqa: F401
from .reference import REF, ref_xp  # noqa: F401
from .vocabulary import (AMPLIFY, DTYPES, Line, Program, Values, is_num, kind,
                         ref_dtype_name)  # noqa: F401 - re-exported

# ---------------------------------------------------------------------------------------------
# the generator

class Gen(LineMakers):
    def __init__(self, draw, skip=frozenset(), max_vars=12):
        self.draw = draw
        self.vals = Values(draw)
        self.ns = {"xp": REF}
        self.vars = []            # live variable names, in creation order
        self.level = {}           # var -> tolerance class
        self.mag = {}             # var -> largest finite magnitude that went into it
        self.fnview = set()       # vars that alias another through a non-slice view function
        self.nowrite = set()      # broadcast_arrays results: numpy writes them with a warning
        self.lines = []
        self.tol = {}
        self.counter = 0
        self.skip = skip          # bug classes left out: 'views', 'intpow', 'precision'
        self.max_vars = max_vars

    # -- helpers -------------------------------------------------------------------------------
    def d(self, strategy):
        return self.draw(strategy)

    def choice(self, seq):
        seq = list(seq)
        if not seq:
            raise Reject
        return self.d(st.sampled_from(seq))

    def fresh(self):
        name = f"v{self.counter}"
        self.counter += 1
        return name

    def shape(self, name):
        return tuple(self.ns[name].shape)

    def dt(self, name):
        return ref_dtype_name(self.ns[name].dtype)

    def pick(self, pred=lambda v: True, exact=False):
        cands = [v for v in self.vars if pred(v) and (not exact or self.level[v] == 0
                                                       or not is_num(self.dt(v))
                                                       or kind(self.dt(v)) in ("int", "uint"))]
        return self.choice(cands)

    def random_shape(self, max_ndim=3):
        nd = self.d(st.integers(0, max_ndim))
        return tuple(self.d(st.integers(0, 4)) if self.d(st.integers(0, 15)) == 0
                     else self.d(st.integers(1, 4)) for _ in range(nd))

    def dtype(self, kinds=None):
        cands = [t for t in DTYPES if kinds is None or kind(t) in kinds.split()]
        return self.choice(cands)

    def aliases(self, name):
        a = self.ns[name]._array
        return [v for v in self.vars if np.shares_memory(a, self.ns[v]._array)]

    # -- the loop ------------------------------------------------------------------------------
    def build(self, n_lines):
        makers = ([self.creation] * 3 + [self.unary] * 5 + [self.binary] * 9 + [self.inplace] * 4
                  + [self.setitem] * 4 + [self.getitem] * 3 + [self.view] * 4 + [self.manip] * 3
                  + [self.reduction] * 3 + [self.search] * 2 + [self.sorting, self.sets,
                                                                 self.linalg, self.fft, self.astype]
                  + [self.read] * 3)
        for _ in range(n_lines):
            maker = self.creation if not self.vars else self.d(st.sampled_from(makers))
            try:
                made = maker()
            except Reject:
                continue
            if made is None:
                continue
            self.commit(*made)
        return Program(self.lines, self.tol)

    def commit(self, code, targets, inputs=(), cls="move", read=None):
        if read:
            self.lines.append(Line(code, targets, read=read))
            return
        new = [t for t in targets if t not in self.ns]
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                exec(code, self.ns)
        except Exception as e:  # noqa: BLE001 - the reference decides what is valid
            for t in new:
                self.ns.pop(t, None)
            for k in [k for k in self.ns if k.startswith("_") and k != "__builtins__"]:
                del self.ns[k]
            if "read-only" in str(e) and targets and targets[0] not in new:
                self.lines.append(Line(code, targets, expect_error=True))
            return
        for k in [k for k in self.ns if k.startswith("_") and k != "__builtins__"]:
            del self.ns[k]
        for t in new:
            self.vars.append(t)
        # tolerance classes
        lv_in = [self.level[v] for v in inputs if v in self.level]
        mag_in = [self.mag[v] for v in inputs if v in self.mag]
        # single precision went in: compare with single precision's tolerance
        lowp = any(v in self.ns and (self.dt(v) in ("float32", "complex64") or self.tol.get(v, (0, 0, False))[2])
                   for v in inputs) or any(t in self.tol and self.tol[t][2] for t in targets)
        for t in targets:
            a = self.ns[t]._array
            fin = np.abs(a[np.isfinite(a)]) if a.size else np.zeros(0)
            own = float(fin.max()) if fin.size else 0.0
            if t not in new:                      # a write: inputs include the old value
                lv_in = lv_in + [self.level[t]]
                mag_in = mag_in + [self.mag[t]]
            if cls == "move":
                lv = max(lv_in, default=0)
            elif cls == "arith":
                lv = 0 if max(lv_in, default=0) == 0 else 2
            elif cls == "trans":
                lv = 1 if max(lv_in, default=0) == 0 else 2
            elif cls == "loose":
                lv = 2
            elif cls == "wild":
                lv = 3
            else:
                lv = 0
            if max(lv_in, default=0) == 3 and cls != "disc":
                lv = 3
            if not kind(self.dt(t)) in ("float", "complex"):
                lv = 0
            mag = max([own] + mag_in) if lv else own
            group = [t] if t in new else self.aliases(t)
            for g in group:
                self.level[g] = max(self.level.get(g, 0), lv)
                self.mag[g] = max(self.mag.get(g, 0.0), mag)
                old = self.tol.get(g, (0, 0.0, False))
                self.tol[g] = (max(old[0], self.level[g]), max(old[1], self.mag[g]),
                               old[2] or lowp)
        self.lines.append(Line(code, tuple(targets)))
        if len(self.vars) > self.max_vars:          # forget the oldest: keeps programs focused
            self.vars.pop(0)

    def promotable(self, a, b):
        """Reject operands the standard's type promotion does not combine."""
        try:
            ref_xp.result_type(self.ns[a], self.ns[b])
        except Exception:  # noqa: BLE001
            raise Reject

    def taint_rule(self, cls, fn, operands):
        """The op's class given its float operands' classes: discontinuous ops take exact values
        only, transcendental and amplifying ops values of class 0 or 1 (Reject otherwise); a
        transcendental of a class-1 value is class 3 ('wild': NaN and infinity positions only)."""
        lv = max((self.level.get(v, 0) for v in operands
                  if v in self.level and kind(self.dt(v)) in ("float", "complex")), default=0)
        if cls == "disc" and lv:
            raise Reject
        if lv > 1 and (cls == "trans" or fn in AMPLIFY):
            raise Reject   # near zero, a class-2 value's sign is noise: log, 1/x would differ
        if cls == "trans" and lv:
            return "wild"
        return cls

    # -- reads ---------------------------------------------------------------------------------
    def read(self):
        v = self.pick()
        dt, shape = self.dt(v), self.shape(v)
        if shape == () and self.d(st.booleans()):
            k = {"bool": "bool", "int": "int", "uint": "int", "float": "float",
                 "complex": "complex"}[kind(dt)]
            if k == "float" and self.level[v]:
                k = "array"
            return v, (v,), (), "move", k
        return v, (v,), (), "move", "array"


@st.composite
def programs(draw, max_lines=25, skip=frozenset()):
    """A random valid Array API program of up to max_lines lines."""
    n = draw(st.integers(1, max_lines))
    return Gen(draw, skip=frozenset(skip)).build(n)
