"""The line makers of the fuzzer's generator, one method per kind of line (creation, unary,
binary, in-place, indexing, views, manipulation, reductions, search, sort, sets, linalg, fft).
Each draws through `self` (programs.Gen: values, variables, dtypes, the reference run) and
returns the line's code, its targets, its inputs and its tolerance class."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from .reference import REF
from .vocabulary import (AMPLIFY, BINARY, FLOATS, INPLACE, INPLACE_FN, UNARY,
                         UNARY_OPERATORS, fmt, is_num, is_real_num, kind)


class Reject(Exception):
    """The drawn line cannot be built for the current variables."""


class LineMakers:
    # -- creation ------------------------------------------------------------------------------
    def creation(self):
        v = self.fresh()
        what = self.d(st.integers(0, 7))
        if what <= 2:
            shape = self.random_shape()
            return f"{v} = {self.vals.literal(shape, self.dtype())}", (v,)
        if what == 3:
            fn = self.choice(["zeros", "ones", "full"])
            shape, dt = self.random_shape(), self.dtype()
            fill = f", {fmt(self.vals.scalar(dt))}" if fn == "full" else ""
            return f"{v} = xp.{fn}({shape!r}{fill}, dtype=xp.{dt})", (v,)
        if what == 4:
            dt = self.dtype("int uint float")
            start, stop, step = (self.d(st.integers(-5, 5)), self.d(st.integers(-5, 12)),
                                 self.choice([1, 2, -1, 3, -2]))
            if kind(dt) == "uint" and (start < 0 or stop < 0):
                raise Reject
            return f"{v} = xp.arange({start}, {stop}, {step}, dtype=xp.{dt})", (v,)
        if what == 5:
            dt = self.dtype("float complex")
            a, b = self.choice([0.0, -1.0, 2.0, 0.5]), self.choice([1.0, 10.0, -3.0, 0.0])
            n, ep = self.d(st.integers(0, 7)), self.choice([True, False])
            # numpy's linspace is not correctly rounded either (start + i * step): a few ulp apart
            return (f"{v} = xp.linspace({a}, {b}, {n}, dtype=xp.{dt}, endpoint={ep})", (v,), (),
                    "loose")
        if what == 6:
            n, m, k = self.d(st.integers(0, 4)), self.d(st.integers(0, 4)), self.d(st.integers(-2, 2))
            return f"{v} = xp.eye({n}, {m}, k={k}, dtype=xp.{self.dtype()})", (v,)
        src = self.pick()
        fn = self.choice(["zeros_like", "ones_like", "full_like"])
        fill = f", {fmt(self.vals.scalar(self.dt(src)))}" if fn == "full_like" else ""
        return f"{v} = xp.{fn}({src}{fill})", (v,)

    # -- elementwise ---------------------------------------------------------------------------
    def unary(self):
        src = self.pick(lambda v: True)
        dt = self.dt(src)
        names = [n for n, (ks, _) in UNARY.items() if kind(dt) in ks.split()]
        if "precision" in self.skip:
            names = [n for n in names if n not in ("log10", "log2", "atanh", "sinh", "cosh")]
        fn = self.choice(names)
        cls = self.taint_rule(UNARY[fn][1], fn, [src])
        if kind(dt) == "complex" and fn in ("abs", "square", "sqrt"):
            cls = "loose"        # complex arithmetic is not one IEEE rounding
        v = self.fresh()
        ops = [o for o, f in UNARY_OPERATORS.items() if f == fn]
        if ops and self.d(st.booleans()):
            o = ops[0]
            code = f"{v} = abs({src})" if o == "abs" else f"{v} = {o}{src}"
        else:
            code = f"{v} = xp.{fn}({src})"
        return code, (v,), (src,), cls

    def operand_for(self, a, exact):
        """Another operand for a binary op with a: a variable that broadcasts, or a scalar."""
        sa = self.shape(a)

        def fits(v):
            try:
                np.broadcast_shapes(sa, self.shape(v))
                return True
            except ValueError:
                return False
        if self.d(st.integers(0, 2)) and any(fits(v) for v in self.vars):
            dt = self.dt(a)
            same = [v for v in self.vars if fits(v) and self.dt(v) == dt]
            akin = [v for v in self.vars if fits(v) and kind(self.dt(v)) == kind(dt)]
            c = self.d(st.integers(0, 3))
            if c <= 1 and same:
                return self.pick(lambda v: v in same, exact=exact), True
            if c == 2 and akin:
                return self.pick(lambda v: v in akin, exact=exact), True
            return self.pick(fits, exact=exact), True
        return fmt(self.vals.python_scalar(self.dt(a))), False

    def binary(self):
        a = self.pick()
        dt = self.dt(a)
        names = [n for n, (ks, _, _) in BINARY.items() if kind(dt) in ks.split()]
        fn = self.choice(names)
        _, cls, op = BINARY[fn]
        cls = self.taint_rule(cls, fn, [a])
        b, is_var = self.operand_for(a, cls == "disc")
        if is_var:
            cls = self.taint_rule(cls, fn, [b])
        if kind(dt) == "complex" or (is_var and kind(self.dt(b)) == "complex"):
            if fn in ("multiply", "divide", "pow"):
                cls = "loose"    # complex products and quotients are not one IEEE rounding
        if fn == "pow" and kind(dt) in ("int", "uint"):
            if "intpow" in self.skip:
                raise Reject
            if is_var:  # exponents must be non-negative for integers
                b = f"xp.bitwise_and({b}, 7)" if kind(self.dt(b)) in ("int", "uint") else b
        if fn.startswith("bitwise_") and fn.endswith("shift") and is_var:
            b = f"xp.bitwise_and({b}, 7)" if kind(self.dt(b)) in ("int", "uint") else b
        if fn.endswith("shift") and not is_var and int(b) < 0:
            b = str(-int(b))
        v = self.fresh()
        swap = self.d(st.booleans())
        x, y = (b, a) if swap else (a, b)
        if op and self.d(st.booleans()):
            code = f"{v} = {x} {op} {y}"
        else:
            code = f"{v} = xp.{fn}({x}, {y})"
        ins = (a, b) if is_var else (a,)
        out_cls = "disc" if cls == "disc" else cls
        if fn in ("maximum", "minimum", "copysign"):
            out_cls = "move" if cls == "arith" else out_cls
        return code, (v,), ins, out_cls

    def write_target(self):
        """A variable to write into; views preferred, left out when 'views' is skipped."""
        def allowed(v):
            if any(u in self.nowrite for u in self.aliases(v)):
                return False
            if "views" not in self.skip:
                return True
            return not any(u in self.fnview for u in self.aliases(v))
        cands = [v for v in self.vars if allowed(v)]
        viewish = [v for v in cands if len(self.aliases(v)) > 1]
        if viewish and self.d(st.booleans()):
            return self.choice(viewish)
        return self.choice(cands)

    def inplace(self):
        t = self.write_target()
        dt = self.dt(t)
        op = self.choice(INPLACE)
        fn = INPLACE_FN[op]
        ks, cls, _ = BINARY[fn]
        if kind(dt) not in ks.split():
            raise Reject
        if fn == "pow" and kind(dt) in ("int", "uint") and "intpow" in self.skip:
            raise Reject
        cls = self.taint_rule(cls, fn, [t])
        b, is_var = self.operand_for(t, cls == "disc")
        if is_var:
            cls = self.taint_rule(cls, fn, [b])
        if kind(dt) == "complex" and fn in ("multiply", "divide", "pow"):
            cls = "loose"
        if is_var and (fn == "pow" or fn.endswith("shift")) and kind(self.dt(b)) in ("int", "uint"):
            b = f"xp.bitwise_and({b}, 7)"
        if not is_var and fn.endswith("shift") and int(b) < 0:
            b = str(-int(b))
        ins = (b,) if is_var else ()
        if self.d(st.integers(0, 2)) == 0 and self.shape(t):
            idx = self.basic_index(self.shape(t))
            return f"{t}[{idx}] {op} {b}", (t,), ins, cls if cls != "disc" else "disc"
        return f"{t} {op} {b}", (t,), ins, cls

    # -- indexing ------------------------------------------------------------------------------
    def basic_index(self, shape, allow_none=True):
        parts = []
        use_ellipsis = self.d(st.integers(0, 3)) == 0
        ell_at = self.d(st.integers(0, len(shape))) if use_ellipsis else -1
        for i, n in enumerate(shape):
            if i == ell_at:
                parts.append("...")
                break
            c = self.d(st.integers(0, 3))
            if c == 0 and n > 0:
                parts.append(str(self.d(st.integers(-n, n - 1))))
            elif c == 1:
                parts.append(":")
            else:
                start = self.choice(["", "1", "-1", "0", "2", "-2"])
                stop = self.choice(["", "-1", "3", "1", "0"])
                step = self.choice(["", "2", "-1", "-2", "3"])
                parts.append(f"{start}:{stop}" + (f":{step}" if step else ""))
        if use_ellipsis and ell_at == len(shape):
            parts.append("...")
        if allow_none and self.d(st.integers(0, 7)) == 0:
            parts.insert(self.d(st.integers(0, len(parts))), "None")
        if not parts:
            return "..."
        return ", ".join(parts) + ("," if len(parts) == 1 else "")

    def getitem(self):
        src = self.pick(lambda v: len(self.shape(v)) > 0)
        shape = self.shape(src)
        v = self.fresh()
        c = self.d(st.integers(0, 4))
        if c <= 2:
            return f"{v} = {src}[{self.basic_index(shape)}]", (v,), (src,)
        if c == 3:   # integer array on the first axis (and the rest whole)
            n = shape[0]
            if n == 0:
                raise Reject
            k = self.d(st.integers(1, 4))
            idx = [self.d(st.integers(-n, n - 1)) for _ in range(k)]
            rest = ", ..." if len(shape) > 1 else ""
            if self.d(st.booleans()):
                return f"{v} = xp.take({src}, xp.asarray({idx!r}), axis=0)", (v,), (src,)
            return f"{v} = {src}[xp.asarray({idx!r}){rest}]", (v,), (src,)
        # boolean mask over the whole array, from a comparison or a bool variable of that shape
        if kind(self.dt(src)) in ("float", "complex") and self.level[src]:
            raise Reject
        masks = [m for m in self.vars if self.dt(m) == "bool" and self.shape(m) == shape]
        if masks and self.d(st.booleans()):
            m = self.choice(masks)
        elif is_real_num(self.dt(src)):
            m = f"{src} > {fmt(self.vals.scalar(self.dt(src), special=False))}"
        else:
            raise Reject
        return f"{v} = {src}[{m}]", (v,), (src,)

    def setitem(self):
        t = self.write_target()
        shape, dt = self.shape(t), self.dt(t)
        c = self.d(st.integers(0, 5))
        if c <= 3:
            idx = self.basic_index(shape, allow_none=False)
        elif c == 4:
            if kind(dt) in ("float", "complex") and self.level[t]:
                raise Reject
            if not is_real_num(dt):
                raise Reject
            idx = f"{t} < {fmt(self.vals.scalar(dt, special=False))}"
        else:
            if not shape or shape[0] == 0:
                raise Reject
            k = self.d(st.integers(1, 3))
            ids = sorted({self.d(st.integers(0, shape[0] - 1)) for _ in range(k)})
            idx = f"xp.asarray({ids!r})" + (", ..." if len(shape) > 1 else "")
        try:
            with np.errstate(all="ignore"):
                sel = eval(f"_t[{idx}]", {"xp": REF, "_t": self.ns[t], t: self.ns[t]})
        except Exception:  # noqa: BLE001
            raise Reject
        sel_shape = tuple(sel.shape)
        if "views" in self.skip and 0 in sel_shape:
            raise Reject         # an empty write into a read-only view: a known views gap
        same = [v for v in self.vars if self.shape(v) == sel_shape and self.dt(v) == dt]
        c = self.d(st.integers(0, 2))
        if c == 0:
            val = fmt(self.vals.python_scalar(dt))
            ins = ()
        elif c == 1 and same:
            val = self.choice(same)
            ins = (val,)
        else:
            val = self.vals.literal(sel_shape, dt)
            ins = ()
        return f"{t}[{idx}] = {val}", (t,), ins

    # -- views and manipulation ----------------------------------------------------------------
    def view(self):
        if "views" in self.skip and not self.d(st.integers(0, 3)) == 0:
            raise Reject
        src = self.pick()
        shape = self.shape(src)
        nd = len(shape)
        fn = self.choice(["reshape", "permute_dims", "matrix_transpose", ".T", ".mT",
                          "expand_dims", "squeeze", "flip", "unstack", "broadcast_to"])
        v = self.fresh()
        if fn == "reshape":
            size = int(np.prod(shape))
            opts = [(size,), (-1,)] + [(a, size // a) for a in range(1, size + 1) if size % a == 0]
            opts += [(1, size), (size, 1, 1), (2, -1)] if size % 2 == 0 else [(1, -1)]
            code = f"{v} = xp.reshape({src}, {self.choice(opts)!r})"
        elif fn == "permute_dims":
            perm = self.d(st.permutations(list(range(nd))))
            code = f"{v} = xp.permute_dims({src}, {tuple(perm)!r})"
        elif fn in ("matrix_transpose", ".mT"):
            if nd < 2:
                raise Reject
            code = f"{v} = xp.matrix_transpose({src})" if fn[0] == "m" else f"{v} = {src}.mT"
        elif fn == ".T":
            if nd != 2:
                raise Reject
            code = f"{v} = {src}.T"
        elif fn == "expand_dims":
            ax = self.d(st.integers(-nd - 1, nd))
            code = f"{v} = xp.expand_dims({src}, axis={ax})"
        elif fn == "squeeze":
            ones = [i for i, n in enumerate(shape) if n == 1]
            if not ones:
                raise Reject
            code = f"{v} = xp.squeeze({src}, axis={self.choice(ones)})"
        elif fn == "flip":
            ax = "None" if nd == 0 or self.d(st.booleans()) else str(self.d(st.integers(-nd, nd - 1)))
            code = f"{v} = xp.flip({src}, axis={ax})"
        elif fn == "unstack":
            if nd == 0 or not 1 <= shape[0] <= 4:
                raise Reject
            names = [v] + [self.fresh() for _ in range(shape[0] - 1)]
            self.mark_fnview(names)
            return f"{', '.join(names)}, = xp.unstack({src}, axis=0)", tuple(names), (src,)
        elif fn == "broadcast_to":
            new = (self.d(st.integers(1, 3)),) * self.d(st.integers(0, 1)) + tuple(
                n if n != 1 else self.d(st.integers(1, 3)) for n in shape)
            code = f"{v} = xp.broadcast_to({src}, {new!r})"
        else:
            raise Reject
        self.mark_fnview([v])
        return code, (v,), (src,)

    def mark_fnview(self, names):
        self.fnview.update(names)

    def manip(self):
        src = self.pick()
        shape = self.shape(src)
        nd = len(shape)
        v = self.fresh()
        fn = self.choice(["concat", "stack", "roll", "tile", "repeat", "broadcast_arrays",
                          "moveaxis", "real"])
        if fn == "moveaxis":   # a view, as numpy's
            if nd == 0:
                raise Reject
            self.mark_fnview([v])
            return (f"{v} = xp.moveaxis({src}, {self.d(st.integers(-nd, nd - 1))}, "
                    f"{self.d(st.integers(-nd, nd - 1))})"), (v,), (src,)
        if fn == "real":       # numpy's real/imag are views; the standard's are new arrays
            if kind(self.dt(src)) != "complex":
                raise Reject
            return f"{v} = xp.{self.choice(['real', 'imag'])}({src})", (v,), (src,)
        if fn in ("concat", "stack"):
            if fn == "concat" and nd == 0:
                raise Reject
            ax = self.d(st.integers(0, nd - 1 if fn == "concat" else nd))
            others = [u for u in self.vars if len(self.shape(u)) == nd and all(
                a == b or (fn == "concat" and i == ax)
                for i, (a, b) in enumerate(zip(self.shape(u), shape)))]
            k = self.d(st.integers(0, 2))
            group = [src] + [self.choice(others) for _ in range(k)]
            return f"{v} = xp.{fn}([{', '.join(group)}], axis={ax})", (v,), tuple(group)
        if fn == "roll":
            sh = self.d(st.integers(-5, 5))
            ax = "None" if nd == 0 or self.d(st.booleans()) else str(self.d(st.integers(-nd, nd - 1)))
            return f"{v} = xp.roll({src}, {sh}, axis={ax})", (v,), (src,)
        if fn == "tile":
            reps = tuple(self.d(st.integers(0, 3)) for _ in range(self.d(st.integers(1, 3))))
            return f"{v} = xp.tile({src}, {reps!r})", (v,), (src,)
        if fn == "repeat":
            if nd == 0:
                raise Reject
            ax = self.d(st.integers(-nd, nd - 1))
            if self.d(st.booleans()):
                reps = str(self.d(st.integers(0, 3)))
            else:
                reps = "xp.asarray(" + repr([self.d(st.integers(0, 3)) for _ in range(shape[ax])]) + ")"
            return f"{v} = xp.repeat({src}, {reps}, axis={ax})", (v,), (src,)
        other = self.pick()
        w = self.fresh()
        self.nowrite.update((v, w))
        return f"{v}, {w} = xp.broadcast_arrays({src}, {other})", (v, w), (src, other)

    def astype(self):
        src = self.pick()
        dt = self.dtype()
        k_from, k_to = kind(self.dt(src)), kind(dt)
        if k_from == "complex" and k_to != "complex":
            raise Reject                     # undefined by the standard
        if k_from == "float" and k_to in ("int", "uint", "bool"):
            if self.level[src]:
                raise Reject
            # float -> integer is undefined for out-of-range values and NaN: keep it in range
            src_expr = f"xp.clip(xp.where(xp.isnan({src}), 0.0, {src}), 0.0, 100.0)"
        else:
            src_expr = src
        v = self.fresh()
        cls = "disc" if k_to in ("int", "uint", "bool") else "move"
        return f"{v} = xp.astype({src_expr}, xp.{dt})", (v,), (src,), cls

    # -- reductions, searching, sorting, sets --------------------------------------------------
    def axis_arg(self, nd, allow_tuple=True):
        c = self.d(st.integers(0, 3))
        if c == 0 or nd == 0:
            return "None"
        if c == 3 and allow_tuple and nd >= 2:
            axes = sorted(set(self.d(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd))))
            return repr(tuple(axes))
        return str(self.d(st.integers(-nd, nd - 1)))

    def reduction(self):
        src = self.pick()
        dt, nd = self.dt(src), len(self.shape(src))
        fn = self.choice(["sum", "max", "min", "prod", "mean", "any", "all", "std", "var",
                          "cumulative_sum", "cumulative_prod"])
        v = self.fresh()
        if fn in AMPLIFY and self.level[src] > 1:
            raise Reject
        if fn.startswith("cumulative"):
            if nd == 0:          # the standard's x "should have one or more dimensions"
                raise Reject
            if nd > 1:
                ax = f", axis={self.d(st.integers(-nd, nd - 1))}"
            else:
                ax = ""
            ii = ", include_initial=True" if self.d(st.integers(0, 3)) == 0 else ""
            code = f"{v} = xp.{fn}({src}{ax}{ii})"
        else:
            ax = self.axis_arg(nd)
            kd = ", keepdims=True" if self.d(st.booleans()) else ""
            corr = f", correction={self.choice([0, 1])}" if fn in ("std", "var") else ""
            code = f"{v} = xp.{fn}({src}, axis={ax}{kd}{corr})"
        if fn in ("max", "min"):
            cls = "move"
        elif fn in ("any", "all"):
            if kind(dt) in ("float", "complex") and self.level[src]:
                raise Reject
            cls = "disc"
        else:
            cls = "loose"
        return code, (v,), (src,), cls

    def search(self):
        fn = self.choice(["argmax", "argmin", "where", "nonzero", "count_nonzero", "searchsorted"])
        v = self.fresh()
        if fn == "where":
            c = self.pick(lambda u: self.dt(u) == "bool")
            a, _ = self.operand_for(c, exact=False)
            if a in self.vars:
                b, _ = self.operand_for(a, exact=False)
            else:
                b = fmt(self.vals.python_scalar("float64"))
            ins = tuple(x for x in (a, b) if x in self.vars)
            return f"{v} = xp.where({c}, {a}, {b})", (v,), ins, "move"
        src = self.pick(exact=True)
        dt, nd = self.dt(src), len(self.shape(src))
        if fn in ("argmax", "argmin"):
            if not is_real_num(dt):
                raise Reject
            ax = "None" if nd == 0 or self.d(st.booleans()) else str(self.d(st.integers(-nd, nd - 1)))
            kd = ", keepdims=True" if self.d(st.booleans()) else ""
            return f"{v} = xp.{fn}({src}, axis={ax}{kd})", (v,), (src,), "disc"
        if fn == "count_nonzero":
            kd = ", keepdims=True" if self.d(st.booleans()) else ""
            return f"{v} = xp.count_nonzero({src}, axis={self.axis_arg(nd)}{kd})", (v,), (src,), "disc"
        if fn == "nonzero":
            if nd == 0:
                raise Reject
            names = [v] + [self.fresh() for _ in range(nd - 1)]
            return f"{', '.join(names)}, = xp.nonzero({src})", tuple(names), (src,), "disc"
        # searchsorted: a sorted 1-D copy of src's values, then values to place
        if not is_real_num(dt) or nd == 0:
            raise Reject
        side = self.choice(["left", "right"])
        x2 = self.pick(lambda u: self.dt(u) == dt, exact=True)
        return (f"{v} = xp.searchsorted(xp.sort(xp.reshape({src}, (-1,))), {x2}, side='{side}')",
                (v,), (src, x2), "disc")

    def sorting(self):
        src = self.pick(lambda u: is_real_num(self.dt(u)) and len(self.shape(u)) > 0)
        nd = len(self.shape(src))
        ax = self.d(st.integers(-nd, nd - 1))
        desc = ", descending=True" if self.d(st.booleans()) else ""
        v = self.fresh()
        if self.d(st.booleans()):
            return f"{v} = xp.sort({src}, axis={ax}{desc})", (v,), (src,), "move"
        if self.level[src] and kind(self.dt(src)) == "float":
            raise Reject
        return f"{v} = xp.argsort({src}, axis={ax}{desc}, stable=True)", (v,), (src,), "disc"

    def sets(self):
        src = self.pick(lambda u: is_real_num(self.dt(u)), exact=True)
        fn = self.choice(["unique_values", "unique_counts", "unique_inverse", "unique_all"])
        v = self.fresh()
        if fn == "unique_values":   # the standard leaves the order open: compare sorted
            return f"{v} = xp.sort(xp.unique_values({src}))", (v,), (src,), "disc"
        w = self.fresh()
        if fn == "unique_counts":
            return (f"_u = xp.unique_counts({src}); _o = xp.argsort(_u.values, stable=True); "
                    f"{v} = xp.take(_u.values, _o); {w} = xp.take(_u.counts, _o)"), (v, w), (src,), "disc"
        if fn == "unique_inverse":  # values[inverse] rebuilds x
            return (f"_u = xp.unique_inverse({src}); {v} = xp.sort(_u.values); "
                    f"{w} = xp.take(_u.values, xp.reshape(_u.inverse_indices, (-1,)))"), (v, w), (src,), "disc"
        return (f"_u = xp.unique_all({src}); {v} = xp.take(_u.values, _u.indices); "
                f"{w} = xp.take(_u.values, xp.reshape(_u.inverse_indices, (-1,)))"), (v, w), (src,), "disc"

    # -- linalg and fft ------------------------------------------------------------------------
    def linalg(self):
        fn = self.choice(["matmul", "solve", "inv", "det", "cholesky", "qr", "eigh", "svd",
                          "vecdot", "tensordot"])
        v = self.fresh()
        if fn in ("matmul", "vecdot", "tensordot"):   # strict does not check their promotion
            a = self.pick(lambda u: is_num(self.dt(u)) and len(self.shape(u)) >= 1
                          and self.level[u] < 2)
            sa = self.shape(a)
            if fn == "matmul":
                if self.d(st.booleans()):
                    b = self.vals.literal((sa[-1],) + ((self.d(st.integers(1, 3)),) if self.d(st.booleans()) else ()),
                                          self.dt(a), special=False)
                    return f"{v} = {a} @ {b}", (v,), (a,), "loose" if kind(self.dt(a)) in ("float", "complex") else "arith"
                b = self.pick(lambda u: len(self.shape(u)) >= 1 and self.level[u] < 2
                              and self.shape(u)[-2 if len(self.shape(u)) > 1 else 0] == sa[-1])
                self.promotable(a, b)
                return f"{v} = xp.matmul({a}, {b})", (v,), (a, b), "loose"
            if fn == "vecdot":
                b = self.pick(lambda u: len(self.shape(u)) >= 1 and self.level[u] < 2
                              and self.shape(u)[-1] == sa[-1])
                self.promotable(a, b)
                return f"{v} = xp.vecdot({a}, {b})", (v,), (a, b), "loose"
            b = self.pick(lambda u: len(self.shape(u)) >= 1 and self.level[u] < 2
                          and self.shape(u)[0] == sa[-1])
            self.promotable(a, b)
            return f"{v} = xp.tensordot({a}, {b}, axes=1)", (v,), (a, b), "loose"
        n = self.d(st.integers(1, 4))
        batch = (self.d(st.integers(1, 2)),) if self.d(st.integers(0, 3)) == 0 else ()
        dt = self.choice(FLOATS)
        shape = batch + (n, n)
        m = self.vals.literal(shape, dt, special=False).replace("1000.0", "1.0").replace("10.0", "1.0")
        # diagonally dominant, so nonsingular and well conditioned
        a = f"({m} / 1000.0 + {float(4 * n)} * xp.eye({n}, dtype=xp.{dt}))"
        if fn == "solve":
            b = self.vals.literal(batch + (n, self.d(st.integers(1, 2))), dt, special=False)
            return f"{v} = xp.linalg.solve({a}, {b})", (v,), (), "loose"
        if fn in ("inv", "det"):
            return f"{v} = xp.linalg.{fn}({a})", (v,), (), "loose"
        if fn == "cholesky":
            return f"_a = {a}; {v} = xp.linalg.cholesky(_a @ xp.matrix_transpose(_a))", (v,), (), "loose"
        w = self.fresh()
        if fn == "qr":
            return (f"_q, _r = xp.linalg.qr({a}); {v} = _q @ _r; "
                    f"{w} = xp.matrix_transpose(_q) @ _q"), (v, w), (), "loose"
        if fn == "eigh":
            return (f"_a = {a}; _w, _Q = xp.linalg.eigh(_a + xp.matrix_transpose(_a)); {v} = _w; "
                    f"{w} = (_Q * _w[..., None, :]) @ xp.matrix_transpose(_Q)"), (v, w), (), "loose"
        return (f"_u, _s, _vh = xp.linalg.svd({a}, full_matrices=False); {v} = _s; "
                f"{w} = (_u * _s[..., None, :]) @ _vh"), (v, w), (), "loose"

    def fft(self):
        src = self.pick(lambda u: kind(self.dt(u)) in ("float", "complex") and len(self.shape(u)) >= 1
                        and self.shape(u)[-1] >= 1, exact=True)
        dt = self.dt(src)
        cdt = {"float32": "complex64", "float64": "complex128"}.get(dt, dt)
        fn = self.choice(["fft", "ifft", "rfft", "irfft"])
        v = self.fresh()
        if fn in ("fft", "ifft"):
            x = src if kind(dt) == "complex" else f"xp.astype({src}, xp.{cdt})"
            return f"{v} = xp.fft.{fn}({x})", (v,), (src,), "loose"
        if fn == "rfft":
            if kind(dt) != "float":
                raise Reject
            return f"{v} = xp.fft.rfft({src})", (v,), (src,), "loose"
        x = src if kind(dt) == "complex" else f"xp.astype({src}, xp.{cdt})"
        n = self.d(st.integers(1, 8))
        return f"{v} = xp.fft.irfft({x}, n={n})", (v,), (src,), "loose"
