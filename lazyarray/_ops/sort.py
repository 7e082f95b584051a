"""Sorting: one stable multi-operand sort, and the integer order keys every float order uses.

The order of floats is defined once, by `order_key`: the sign-magnitude bits read as a two's
complement integer, so -inf < ... < -subnormal < 0 (both zeros equal) < subnormal < ... < inf,
every NaN above (or below) every number. Comparing keys is exact where XLA's CPU float compares
are not (they treat subnormal inputs as zero, and would leave 5e-324 and -1e-310 unordered), and
the same integers order the interpreter tier's sort. `sort` turns a float key into its order key
and a complex key into two (real part, then imaginary part), so the comparator only ever compares
integers, and every sort is a total order both tiers agree on.

Sorts are always stable (the standard allows it for `stable=False`): an unstable sort's tie
order would be XLA's own, which the interpreter could not reproduce.
"""
from __future__ import annotations

import numpy as np

from .. import _dtypes as dt
from .core import OpDef, memo, prepared
from .elementwise import (
    AND, IMAG, OR, REAL, SUBTRACT, Elementwise, compare, emit_compare, emit_select, float_bits, select,
)
from .shape import constant


def order_key(node, nan="high"):
    """An integer key with the order of a real floating node's values (see the module's doc);
    NaNs above every number (`nan="high"`) or below (`"low"`). ONE node (`sort.order_key`): its
    lowering emits the StableHLO of `order_key_nodes`' formula and its interpreter rule runs
    that formula's numpy evaluations, so both tiers compute the recorded formula's integers
    (k-means records an argmin a step: the formula was 11 nodes, ~25 us of recording)."""
    return ORDER_KEY.bind((node,), memo(_key_attrs, (nan,), ORDER_KEY.Attrs))


def order_key_nodes(node, nan="high"):
    """`order_key` spelled out as the primitives it stands for: the reference its one node is
    tested against, bit for bit in both tiers."""
    bits, magnitude = float_bits(node)
    ity = bits.dtype
    zero = constant(0, ity)
    key = select(compare(bits, zero, "LT"), SUBTRACT(zero, magnitude), magnitude)
    inf_bits, nan_key = memo(_key_bounds, (node.dtype, ity, nan), _bounds)
    return select(compare(magnitude, constant(inf_bits, ity), "GT"), constant(nan_key, ity), key)


# (float dtype, its integer dtype, nan) -> (the bits of +inf, a NaN's key) as Python ints: numpy's
# view and iinfo cost ~3 us at each argmin/argmax/sort of floats (`core.memo`)
_key_bounds = {}
_key_attrs = {}  # nan -> the node's attributes


def _bounds(dtype, ity, nan):
    info = np.iinfo(ity.np)
    return (np.asarray(np.inf, dtype.np).view(ity.np).item(), info.max if nan == "high" else info.min)


def _key_type(d, attrs):
    return dt.signed_of_bits(d.bits)


def _lower_order_key(e, node, x):
    return emit_order_key(e, x, node.attrs.nan)


def emit_order_key(e, x, nan):
    """The formula's StableHLO on an emitter value, op for op as `order_key_nodes` lowers: bits,
    magnitude (bits & max), the sign applied to the magnitude, NaN magnitudes (above +inf's)
    replaced. (Also inside argmin/argmax's one node: `reduce.ARGREDUCE`.)"""
    ity, shape = dt.signed_of_bits(x.dtype.bits), x.shape
    inf_bits, nan_key = memo(_key_bounds, (x.dtype, ity, nan), _bounds)
    bits = e.op("stablehlo.bitcast_convert", (x,), shape, ity)
    magnitude = AND.emit(e, bits, e.constant(int(np.iinfo(ity.np).max), (), ity))
    zero = e.constant(0, (), ity)
    key = emit_select(e, emit_compare(e, bits, zero, "LT"), SUBTRACT.emit(e, zero, magnitude), magnitude)
    nan_at = emit_compare(e, magnitude, e.constant(inf_bits, (), ity), "GT")
    return emit_select(e, nan_at, e.constant(nan_key, (), ity), key)


def _order_key_evaluate(node, x):
    return host_order_key(x, node.args[0].dtype, node.attrs.nan)


def host_order_key(x, dtype, nan):
    """The formula's nodes' numpy evaluations, in order (bitcast: a view; and, compare, subtract,
    select: the ufuncs and np.where of their rules), on the values `x` of a `dtype` node."""
    ity = dt.signed_of_bits(dtype.bits)
    inf_bits, nan_key = memo(_key_bounds, (dtype, ity, nan), _bounds)
    ity = ity.np
    bits = np.asarray(x).view(ity)
    magnitude = np.bitwise_and(bits, ity.type(np.iinfo(ity).max))
    zero = np.asarray(0, ity)
    key = np.where(np.less(bits, zero), np.subtract(zero, magnitude), magnitude)
    return np.where(np.greater(magnitude, np.asarray(inf_bits, ity)), np.asarray(nan_key, ity), key)


ORDER_KEY = Elementwise("sort.order_key", None, out=_key_type, attrs=("nan",), lower=_lower_order_key,
                        evaluate=_order_key_evaluate, covers=lambda node: node.args[0].dtype.kind == "f")


def _keys(key):
    if key.dtype.kind == "f":
        return [order_key(key)]
    if key.dtype.kind == "c":
        return [order_key(REAL(key)), order_key(IMAG(key))]
    return [key]


def _sort_rule(args, a):
    shape = args[0].shape
    if any(x.shape != shape for x in args) or any(k.dtype.kind not in "biu" for k in args[:a.nkeys]):
        raise AssertionError(f"sort of {[(x.shape, x.dtype.name) for x in args]} by {a.nkeys} integer keys")
    return shape, args[a.index].dtype


def _lower_sort(e, node, *xs):
    a = node.attrs

    def comparator(r, v):  # v: (lhs, rhs) of each operand; keys compared lexicographically
        less = equal = None
        for k in range(a.nkeys):
            lhs, rhs = v[2 * k], v[2 * k + 1]
            if a.descending:
                lhs, rhs = rhs, lhs
            lt = emit_compare(r, lhs, rhs, "LT")
            less = lt if less is None else OR.emit(r, less, AND.emit(r, equal, lt))
            eq = emit_compare(r, lhs, rhs, "EQ")
            equal = eq if equal is None else AND.emit(r, equal, eq)
        return [less]

    region = e.region([x.dtype for x in xs for _ in (0, 1)], comparator)
    outs = e.op_multi("stablehlo.sort", xs, [(x.shape, x.dtype) for x in xs],
                      f"dimension = {a.dim} : i64, is_stable = true", region)
    return outs[a.index]


def _prepare_sort(node):
    """`_sort`'s step for a sort along the last axis (every 1-D sort): no axis moved, and a 1-D
    operand permuted by indexing (`core.prepared`). The same lexsort of the same keys and the
    same elements picked: the same values. Other sorts (and empty ones) keep `_sort`."""
    a = node.attrs
    shape = node.shape
    if 0 in shape or a.dim != len(shape) - 1:
        return None
    index, nkeys, descending, n = a.index, a.nkeys, a.descending, shape[-1]
    lexsort, flip, take_along_axis, one_d = np.lexsort, np.flip, np.take_along_axis, len(shape) == 1

    def sort_step(*xs):
        keys = xs[nkeys - 1::-1]
        if not descending:
            perm = lexsort(keys)
        else:
            perm = (n - 1) - flip(lexsort([flip(k, -1) for k in keys]), -1)
        x = xs[index]
        return x[perm] if one_d else take_along_axis(x, perm, axis=-1)
    return sort_step


@prepared(_prepare_sort)
def _sort(node, *xs):
    a = node.attrs
    if xs[0].size == 0:
        return xs[a.index]
    keys = [np.moveaxis(k, a.dim, -1) for k in xs[:a.nkeys]]
    if not a.descending:
        perm = np.lexsort(keys[::-1])
    else:  # "greater than" keeps ties in input order: a stable ascending sort of the reversed
        n = keys[0].shape[-1]  # input, read backwards
        perm = (n - 1) - np.flip(np.lexsort([np.flip(k, -1) for k in keys[::-1]]), -1)
    return np.take_along_axis(xs[a.index], np.moveaxis(perm, -1, a.dim), axis=a.dim)


SORT = OpDef("sort", attrs=("dim", "descending", "nkeys", "index"), rule=_sort_rule, lower=_lower_sort,
             evaluate=_sort, compile_extra=lambda node: 0.03)  # one argsort of 1000: 64 ms to compile


def sort(xs, dim, descending=False):
    """Sort same-shape operands by the first (stable; floats and complex in the order of the
    module's doc); returns one node per operand, in xs's order."""
    xs = tuple(xs)
    keys = _keys(xs[0])
    operands = tuple(keys) + xs
    return [SORT.bind(operands, SORT.Attrs(dim, bool(descending), len(keys), len(keys) + i))
            for i in range(len(xs))]

