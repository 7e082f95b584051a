"""Graph -> StableHLO text, in MLIR's generic op form. Pure Python: no jax import here.

Each primitive's lowering rule receives the Emitter, the node and its operands as `V` values and
returns a `V`. Leaves become function parameters, never embedded data.
"""
from __future__ import annotations

import numpy as np


class V:
    """An SSA value in the function being emitted."""

    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, shape, dtype


def ttype(shape, dtype):
    if shape:
        return f"tensor<{'x'.join(map(str, shape))}x{dtype.mlir}>"
    return f"tensor<{dtype.mlir}>"


def i64_array(values):
    values = list(values)
    return f"array<i64: {', '.join(map(str, values))}>" if values else "array<i64>"


def bool_array(values):
    values = list(values)
    return f"array<i1: {', '.join('true' if v else 'false' for v in values)}>" if values else "array<i1>"


def dense(value, shape, dtype):
    """A dense elements attribute. Hex keeps NaN payloads and -0.0 exact."""
    arr = np.asarray(value, dtype=dtype.np)
    if dtype.kind == "b":
        flat = arr.reshape(-1)
        if flat.size and (flat == flat[0]).all():
            return f"dense<{'true' if flat[0] else 'false'}> : {ttype(shape, dtype)}"
        return f"dense<[{', '.join('true' if v else 'false' for v in flat)}]> : {ttype(shape, dtype)}"
    flat = np.ascontiguousarray(arr.reshape(-1)).astype(arr.dtype.newbyteorder("<"))
    raw = flat.view(np.uint8).reshape(flat.size, -1)
    if flat.size > 1 and (raw == raw[0]).all():
        flat = flat[:1]  # a splat: one element stands for all (byte-wise, so NaN counts too)
    return f'dense<"0x{flat.tobytes().hex().upper()}"> : {ttype(shape, dtype)}'


class Emitter:
    def __init__(self):
        self.lines = []
        self._n = 0
        self.functions = {}  # name -> text of a private func.func placed beside @main

    def add_function(self, name, text):
        """A module-level function (e.g. a borrowed lowering) that ops reach by func.call; added
        once per module however many nodes call it."""
        self.functions.setdefault(name, text)

    def call(self, name, operands, results):
        """func.call of a function added with add_function; results is a list of (shape, dtype)."""
        out = self.fresh()
        rty = ", ".join(ttype(s, d) for s, d in results)
        ins = ", ".join(v.name for v in operands)
        ity = ", ".join(ttype(v.shape, v.dtype) for v in operands)
        lhs = f"{out}:{len(results)}" if len(results) > 1 else out
        self.lines.append(f'    {lhs} = "func.call"({ins}) {{callee = @{name}}} : ({ity}) -> ({rty})')
        if len(results) == 1:
            return [V(out, *results[0])]
        return [V(f"{out}#{i}", s, d) for i, (s, d) in enumerate(results)]

    def fresh(self):
        self._n += 1
        return f"%v{self._n}"

    def op(self, name, operands, shape, dtype, attrs="", region="", prop=""):
        out = self.fresh()
        self._line(out, name, operands, ttype(shape, dtype), attrs, region, prop)
        return V(out, shape, dtype)

    def broadcast_scalars(self, operands, shape):
        """Operands of shape () broadcast to `shape` (elementwise ops take scalars implicitly)."""
        if not shape:
            return operands
        return [v if v.shape else self.op("stablehlo.broadcast_in_dim", (v,), shape, v.dtype,
                                          "broadcast_dimensions = array<i64>") for v in operands]

    def op_multi(self, name, operands, results, attrs="", region=""):
        """An op with several results; results is a list of (shape, dtype)."""
        out = self.fresh()
        rty = "(" + ", ".join(ttype(s, d) for s, d in results) + ")"
        self._line(f"{out}:{len(results)}", name, operands, rty, attrs, region)
        return [V(f"{out}#{i}", s, d) for i, (s, d) in enumerate(results)]

    def _line(self, out, name, operands, rty, attrs, region, prop=""):
        ins = ", ".join(v.name for v in operands)
        ity = ", ".join(ttype(v.shape, v.dtype) for v in operands)
        p = f" <{{{prop}}}>" if prop else ""  # an op's properties (the generic form of sdy ops)
        r = f" ({{\n{region}\n}})" if region else ""
        a = f" {{{attrs}}}" if attrs else ""
        self.lines.append(f'    {out} = "{name}"({ins}){p}{r}{a} : ({ity}) -> {rty}')

    def constant(self, value, shape, dtype):
        out = self.fresh()
        self.lines.append(f'    {out} = "stablehlo.constant"() {{value = {dense(value, shape, dtype)}}} : () -> {ttype(shape, dtype)}')
        return V(out, shape, dtype)

    def region(self, arg_types, body):
        """A region with scalar block arguments. `body(emitter, args) -> list of V` builds the
        ops in a nested emitter sharing our name counter, and ends with stablehlo.return."""
        sub = Emitter()
        sub._n = self._n
        args = [V(sub.fresh(), (), dt) for dt in arg_types]
        rets = body(sub, args)
        self._n = sub._n
        head = ", ".join(f"{a.name}: {ttype((), a.dtype)}" for a in args)
        lines = [f"  ^bb0({head}):"] + sub.lines
        lines.append(f'      "stablehlo.return"({", ".join(r.name for r in rets)}) : '
                     f'({", ".join(ttype(r.shape, r.dtype) for r in rets)}) -> ()')
        return "\n".join(lines)

    def binary_region(self, opname, dtype):
        return self.region([dtype, dtype], lambda e, a: [e.op(opname, a, (), dtype)])


def emit_module(order, leaves, outputs, attrs="", donated=(), layout=None):
    """The whole program: one public @main taking the leaves and returning the outputs.
    Parameters: the device leaves, then one vector per dtype of packed host scalars
    (graph.split_leaves), then for each output index in `donated` a recycled buffer of that
    output's type that XLA writes the output into (its contents are never read).
    With a `layout` (`_sharding_rules.Layout`: a program over a mesh) every parameter and result
    carries its Shardy `sdy.sharding` (host scalars and recycled buffers replicated), explicitly
    placed nodes inside get an `sdy.sharding_constraint`, and the module declares the mesh."""
    from ._graph import split_leaves
    if layout is not None:
        from ._sharding import mesh_text, sharding_text
        arg_sh = lambda spec: f" {{sdy.sharding = {sharding_text(spec)}}}"  # noqa: E731
    else:
        arg_sh = lambda spec: ""  # noqa: E731
    e = Emitter()
    vals = {}
    params = []
    buffers, packed = split_leaves(leaves)
    for leaf in buffers:
        v = V(f"%arg{len(params)}", leaf.shape, leaf.dtype)
        vals[id(leaf)] = v
        spec = layout.leaf_specs.get(id(leaf), ((),) * len(leaf.shape)) if layout is not None else None
        params.append(f"{v.name}: {ttype(leaf.shape, leaf.dtype)}{arg_sh(spec)}")
        if layout is not None and id(leaf) in layout.constraints:  # an uneven split (_sharding_rules)
            vals[id(leaf)] = e.op("sdy.sharding_constraint", (v,), v.shape, v.dtype,
                                  attrs="", prop=f"sharding = {sharding_text(layout.constraints[id(leaf)])}")
    for dtype, group in packed.items():
        vec = V(f"%arg{len(params)}", (len(group),), dtype)
        params.append(f"{vec.name}: {ttype(vec.shape, dtype)}{arg_sh(((),))}")
        for i, leaf in enumerate(group):
            one = e.op("stablehlo.slice", (vec,), (1,), dtype,
                       f"start_indices = {i64_array((i,))}, limit_indices = {i64_array((i + 1,))}, "
                       f"strides = {i64_array((1,))}")
            vals[id(leaf)] = e.op("stablehlo.reshape", (one,), (), dtype)
    for k in donated:
        o = outputs[k]
        sh = f", sdy.sharding = {sharding_text(layout.out_specs[k])}" if layout is not None else ""
        params.append(f"%arg{len(params)}: {ttype(o.shape, o.dtype)} {{tf.aliasing_output = {k} : i32{sh}}}")
    for node in order:
        args = [vals[id(a)] for a in node.args]
        vals[id(node)] = node.op.lower(e, node, *args)
        if layout is not None and id(node) in layout.constraints:
            v = vals[id(node)]
            vals[id(node)] = e.op("sdy.sharding_constraint", (v,), v.shape, v.dtype,
                                  attrs="", prop=f"sharding = {sharding_text(layout.constraints[id(node)])}")
    outs = [vals[id(o)] for o in outputs]
    rtys = ", ".join(ttype(o.shape, o.dtype) for o in outs)
    if layout is not None:
        rdecl = ", ".join(ttype(o.shape, o.dtype) + arg_sh(spec) for o, spec in zip(outs, layout.out_specs))
        attrs = ", ".join(a for a in (attrs, f"mhlo.num_partitions = {layout.mesh.size} : i32",
                                      "mhlo.num_replicas = 1 : i32") if a)
    else:
        rdecl = rtys
    body = "\n".join(e.lines)
    ret = f'    "func.return"({", ".join(o.name for o in outs)}) : ({rtys}) -> ()'
    mod_attrs = f" attributes {{{attrs}}}" if attrs else ""
    extra = "".join(f"{text}\n" for text in e.functions.values())
    mesh = f"  {mesh_text(layout.mesh)}\n" if layout is not None else ""
    return (f"module @lazyarray{mod_attrs} {{\n{mesh}  func.func public @main({', '.join(params)}) -> ({rdecl}) {{\n"
            f"{body}\n{ret}\n  }}\n{extra}}}\n")
