"""Array's operators and methods that are namespace functions, installed on `Array` here.

`x + y` is `add(x, y)`, `x.sum()` is `sum(x)`, `x[i]` is `_indexing.getitem(x, i)`: the array
object (`_array_object`) sits below the namespace and cannot import it, so this module, one
layer up, imports the functions and sets them on the class once, when `lazyarray` is imported.
Each is bound directly (no lookup at the call), and the arithmetic operators and comparisons
first try a fast path (`_fast_method`, the tracing hot path), which builds the node the namespace
function would build when both operands already agree.
"""
from __future__ import annotations

import builtins
from weakref import ref as _ref

import numpy as np

from . import _dtypes as dt
from . import _ops as ops
from . import _searching_functions, _statistical_functions, _utility_functions
from . import _config, _engine, _host_sync, _views
from ._array_object import Array, _View, make_view, strides_of
from ._creation_functions import asarray, numpy_array_leaf
from ._data_type_functions import astype
from ._elementwise_functions import FUNCTIONS as _ELEMENTWISE, clip
from ._graph import Node as _Node, _merge, bind as _bind_node, bind_pair as _bind_pair, _next_serial, pending as _pending, root as _root, \
    recorded as _recorded, _record, \
    last_scalar as _last_scalar, scalar_leaf as _scalar_leaf, scalar_leaves as _scalar_leaves
from ._deferred_elements import Element as _Element
from ._indexing import getitem, setitem
from ._helpers import _apply_broadcast, pair_broadcast as _pair_broadcast
from ._linear_algebra_functions import matmul
from ._manipulation_functions import lazy_transpose as _lazy_transpose, matrix_transpose, reshape, squeeze

# ---------------------------------------------------------------- operators
# Each operator is the namespace function of the same meaning; the table keeps them in one place.
_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
}
_COMPARE = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
            "eq": "equal", "ne": "not_equal"}
_UNARY = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}
_FUNCTIONS = {**_ELEMENTWISE, "matmul": matmul}


# Operators whose meaning is ONE StableHLO op when both operands already share dtype and shape
# (or the other is a Python int/float next to a floating array, or a 0-D array of its dtype; or
# two arrays of one dtype whose nonempty shapes broadcast, after the pair's broadcasts): they
# skip the general machinery and build exactly the nodes the namespace function would build
# (`_fast_method`). dunder -> (op, attrs, kinds).
_FAST = {
    "add": (ops.ADD, (), "iufc"), "sub": (ops.SUBTRACT, (), "iufc"),
    "mul": (ops.MULTIPLY, (), "iufc"), "truediv": (ops.DIVIDE, (), "fc"),
    "lt": (ops.COMPARE, ops.COMPARE.Attrs("LT"), "iuf"), "le": (ops.COMPARE, ops.COMPARE.Attrs("LE"), "iuf"),
    "gt": (ops.COMPARE, ops.COMPARE.Attrs("GT"), "iuf"), "ge": (ops.COMPARE, ops.COMPARE.Attrs("GE"), "iuf"),
    "eq": (ops.COMPARE, ops.COMPARE.Attrs("EQ"), "biufc"), "ne": (ops.COMPARE, ops.COMPARE.Attrs("NE"), "biufc"),
    # (`pow` of a real float is one POWER node, `_elementwise_functions._pow`; complex records
    # more. &, | and ^ of two arrays of one bool or integer dtype: AND, OR, XOR. SciPy's table
    # takes these ~230 times a pass, ~4-11 us each on the general path)
    "pow": (ops.POWER, (), "f"), "and": (ops.AND, (), "biu"), "or": (ops.OR, (), "biu"),
    "xor": (ops.XOR, (), "biu"),
}


_wrap = Array._wrap
_fold = _host_sync.fold_leaves
_leaf_of = _scalar_leaves.get


def _node_defaults():
    """The slots a new `_graph.Node` holds besides those the fast path sets itself (op, args,
    attrs, shape, dtype, comp, serial), with their values: the fast path builds its nodes
    inline (`object.__new__` and the stores, ~0.09 us of an op's ~1.2 us less than the
    constructor's call) only while these are the ones it knows, and calls `Node(...)` otherwise,
    so a field added to Node can never be left unset."""
    probe = _Node(None, (), (), (), None)
    own = {"op", "args", "attrs", "shape", "dtype", "comp", "serial", "__weakref__"}
    return {name: getattr(probe, name, None) for name in _Node.__slots__ if name not in own}


_NODE_DEFAULTS = _node_defaults()
_INLINE_NODE = _NODE_DEFAULTS == {"buffer": None, "host": None, "computed": False}


def _fast_method(prim, attrs, kinds, general, swap):
    """The operator's method: the node for x OP other (other OP x when swap) built at once when
    the operands already agree, else `general(x, other, swap)`. No Python call on the hot path
    at all: the checks are inline, and so are `_graph.bind_pair`'s body, the node's construction
    (`_node_defaults`) and the new handle's registration, `Array._wrap`'s (all kept in step with
    theirs: each call less is ~7-20% of an op's recording; `y = y + 1.0` 1.38 -> 1.10 us for the
    last). Written for the fewest instructions: each branch reads what it needs once (a Python
    scalar's leaf never has a component: only computed nodes join one)."""
    out = ops.COMPARE is prim and dt.bool or None  # (the result's dtype when not the operands')
    fold = prim in _host_sync.FOLDED
    new = object.__new__
    if not _INLINE_NODE:  # (a field added to Node: build through its constructor)
        def node_of(n1, n2, shape, d):
            return _Node(prim, (n2, n1) if swap else (n1, n2), attrs, shape, out or d)

    def method(self, other, /):
        n1 = self._node
        d = n1.dtype
        kind = d.kind
        if kind not in kinds:
            return general(self, other, swap)
        t = type(other)
        if t is float or t is int:
            if kind not in "fc":
                return general(self, other, swap)
            n2 = _last_scalar[0]  # (`_graph.scalar_leaf`'s last leaf: a loop's constant)
            if n2.host is not other or n2.dtype is not d or n2.buffer is not None:
                n2 = _leaf_of(id(other))  # (`_graph.scalar_leaf`, its hit inline)
                if n2 is None or n2.host is not other or n2.dtype is not d or n2.buffer is not None:
                    n2 = _scalar_leaf(other, d)
                else:
                    _last_scalar[0] = n2
            comp = n1.comp
            if comp is not None and comp.parent is not None:
                comp = n1.comp = _root(comp)
        elif t is Array or t is _View or t is _Element:
            # (a view's `_node` reads it again when its base was written; an element read binds its nodes)
            n2 = other._node
            if n2.dtype is not d or other._device is not self._device:
                return general(self, other, swap)
            if n2.shape != n1.shape:
                # two nonempty shapes that broadcast: `_helpers.binary_operands`' broadcasts of
                # the pair, in the function's operand order (other first when swap), then the
                # node below (`d + c2[None, :]`, `lab[:, None] == ids[None, :]`)
                if not n1.shape or not n2.shape:
                    # a 0-D operand beside a nonempty one (`dg + v`, `c / nk[k]`): the function's
                    # one node at the other's shape, its 0-D operand as it is (`binary_operands`
                    # broadcasts none; elementwise primitives broadcast 0-D operands when lowered)
                    return _wrap(_bind_pair(prim, n2, n1, attrs, n1.shape or n2.shape, out or d) if swap
                                 else _bind_pair(prim, n1, n2, attrs, n1.shape or n2.shape, out or d),
                                 self._device)
                if swap:
                    shape, p2, p1 = _pair_broadcast(n2.shape, n1.shape)
                else:
                    shape, p1, p2 = _pair_broadcast(n1.shape, n2.shape)
                if p1 is not None:
                    n1 = _apply_broadcast(n1, p1)
                if p2 is not None:
                    n2 = _apply_broadcast(n2, p2)
            # _graph.bind_pair(prim, n1, n2, ...) (n2, n1 when swap), inline: the same node,
            # component, serial and count, a call less (~8% of `y = y + 1.0`'s recording)
            comp = n1.comp
            if comp is not None and comp.parent is not None:
                comp = n1.comp = _root(comp)
            c = n2.comp
            if c is not None:
                if c.parent is not None:
                    c = n2.comp = _root(c)
                if comp is None:
                    comp = c
                elif c is not comp:
                    comp = _merge(comp, c)
        else:
            return general(self, other, swap)
        if n1.op is None and fold and not n1.shape and n2.op is None:
            # two 0-D host values (`t[i] <= x`, `t[i] - 0.5`): the value now, as a leaf
            # (`_host_sync.fold_leaves`; None: recorded as usual)
            v = _fold(prim, attrs, n2, n1, self._device) if swap else _fold(prim, attrs, n1, n2, self._device)
            if v is not None:
                h = new(Array)
                h._node = _Node(None, (), (), (), out or d, v)
                h._device = self._device
                return h
        if comp is None:
            comp = _pending.new_component()
        if _INLINE_NODE:  # (`Node(prim, args, attrs, shape, dtype)`: see _node_defaults)
            node = new(_Node)
            node.op = prim
            node.args = (n2, n1) if swap else (n1, n2)
            node.attrs = attrs
            node.shape = n1.shape
            node.dtype = out or d
            node.buffer = node.host = None
            node.computed = False
        else:
            node = node_of(n1, n2, n1.shape, d)
        node.comp = comp
        node.serial = _next_serial()
        count = _pending.nodes_since_sync
        if count:
            _record(node)  # (`_graph.recorded`, as `bind` keeps it)
        else:
            _recorded[:] = (node,)
        count = _pending.nodes_since_sync = count + 1
        # Array._wrap(node, self._device), inline (node is pending: it has a component)
        h = new(Array)
        h._node = node
        h._device = self._device
        refs = comp.handles
        if len(refs) < comp.compact_at - 1 and comp.parent is None:
            ref = _ref(h)
            refs.append(ref)
            if comp.parent is not None:  # merged while appending
                _root(comp).handles.append(ref)
        else:
            _pending.add(h, node)
        if count >= _config.node_budget:
            _engine.maybe_cut()
        return h
    return method


_SCALAR_TYPES = (Array, builtins.bool, int, float, complex)


def _same_kind(source, target):
    """numpy's same_kind casting between numbers: integer to integer (int64 -> int32; not to
    an unsigned type that cannot hold the sign), float to float, complex to complex."""
    if source.kind in "iu" and target.kind in "iu":
        return builtins.bool(np.can_cast(source.np, target.np, "same_kind"))
    return source.kind == target.kind and source.kind in "fc"


def numpy_operand(value, x):
    """numpy on the other side of an operator: a numpy scalar acts as the Python scalar of its
    kind (weakly typed: x * np.float64(2) keeps x's dtype), a numpy array as our array of its
    values and dtype (so `x + np.ones(3)` and `np.ones(3) + x` are both lazyarray arrays: numpy
    defers its operators to ours through __array_priority__); anything else is not ours."""
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return value.item()
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        return Array._wrap(numpy_array_leaf(value, x._device), x._device)
    return NotImplemented


def _binary(name, fname):
    f = _FUNCTIONS[fname]

    def general(self, other, swap):
        if not isinstance(other, _SCALAR_TYPES):
            other = numpy_operand(other, self)
            if other is NotImplemented:
                return NotImplemented
        return f(other, self) if swap else f(self, other)

    def operator(swap):  # x OP y, or y OP x (the reflected __rOP__) when swap
        if name in _FAST:
            method = _fast_method(*_FAST[name], general, swap)
        else:
            def method(self, other, /):
                return general(self, other, swap)
        method.__name__ = method.__qualname__ = f"__{'r' if swap else ''}{name}__"
        return method

    op, rop = operator(False), operator(True)

    def iop(self, other, /):
        if not isinstance(other, _SCALAR_TYPES):
            other = numpy_operand(other, self)
            if other is NotImplemented:
                return NotImplemented
        result = op(self, other)
        if result.dtype != self.dtype and result.shape == self.shape:
            if _same_kind(result.dtype, self.dtype):
                # numpy's in-place rule (same-kind casting: `int32 += int64` stays int32), which
                # SciPy relies on; the standard leaves it open
                self._rebind(astype(result, self.dtype)._node)
                return self
            # the wording array-api-extra's tests match ("cast")
            raise ValueError(f"in-place {fname} cannot cast its {result.dtype} result to the "
                             f"array's dtype {self.dtype}")
        if result.dtype != self.dtype or result.shape != self.shape:
            raise ValueError(f"in-place {fname} would change the array from {self.dtype}{list(self.shape)} "
                             f"to {result.dtype}{list(result.shape)}")
        self._rebind(result._node)
        return self
    return op, rop, iop


for _name, _fname in _BINARY.items():
    _op, _rop, _iop = _binary(_name, _fname)
    setattr(Array, f"__{_name}__", _op)
    setattr(Array, f"__r{_name}__", _rop)
    setattr(Array, f"__i{_name}__", _iop)

for _name, _fname in _COMPARE.items():
    setattr(Array, f"__{_name}__", _binary(_name, _fname)[0])

for _name, _fname in _UNARY.items():
    setattr(Array, f"__{_name}__", _ELEMENTWISE[_fname])

Array.__getitem__ = getitem
Array.__setitem__ = setitem


# ---------------------------------------------------------------- attributes of the standard
def _T(self):
    node = self._node
    if len(node.shape) != 2:
        raise ValueError(f"x.T needs a 2-D array, got {self.ndim}-D; use permute_dims or mT")
    # permute_dims(self, (1, 0)) without its argument checks: the same view, its transpose
    # bound at its first read (a matmul folds it away unbound: `lazy_transpose`)
    if type(self) is _View:
        s0, s1 = self._strides
    else:
        s0, s1 = node.shape[1] or 1, 1  # (`_views.contiguous_strides` of a matrix)
    return _lazy_transpose(self, (s1, s0))


Array.T = property(_T, doc="The transpose of a 2-D array.")
Array.mT = property(matrix_transpose, doc="The transpose of the last two axes (a stack of matrices).")


def _reduce(self):
    return (asarray, (self._value("pickle"),))


Array.__reduce__ = _reduce


# ---------------------------------------------------------------- methods beyond the standard
# Methods that numpy, PyTorch, JAX and CuPy arrays ALL have with one meaning, and that consumers
# call on their other backends (SciPy: x.reshape, x.sum, ...): each is the namespace function.
# Left out on purpose: astype and copy (PyTorch has neither), view (PyTorch's takes a shape,
# the others' a dtype; ours is numpy's, in `_array_object`), std/var (PyTorch's default is the
# unbiased estimator), transpose and cumsum (PyTorch's take other arguments).
def _reshape_method(self, *shape, copy=None):
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    return reshape(self, shape, copy=copy)


def _reduction_method(function):
    """numpy's method signature: `(axis, dtype, out, keepdims)` for sum/prod/mean and `(axis, out,
    keepdims)` for max/min/any/all, as `np.sum(x, axis=0)` calls it on any array with a `sum`
    method (it passes `out=None`, and `dtype=None` where it has one)."""
    fname = function.__name__

    def reduce(self, axis, dtype, out, keepdims, kwargs):
        if out is not None:
            raise TypeError(f"{fname}: out= is not supported (lazyarray arrays are values: "
                            f"assign the result, e.g. y[...] = x.{fname}(...)); got {type(out).__name__}")
        if dtype is not None:
            kwargs["dtype"] = dtype
        return function(self, axis=tuple(axis) if isinstance(axis, list) else axis,
                        keepdims=keepdims, **kwargs)

    if fname in ("sum", "prod", "mean"):
        def method(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
            return reduce(self, axis, dtype, out, keepdims, kwargs)
    else:
        def method(self, axis=None, out=None, keepdims=False, **kwargs):
            return reduce(self, axis, None, out, keepdims, kwargs)
    method.__name__ = fname
    method.__doc__ = f"x.{fname}(...) is xp.{fname}(x, ...) (numpy's method, an extension)."
    return method


def _squeeze_method(self, axis=None):
    if axis is None:
        axis = tuple(i for i, n in enumerate(self.shape) if n == 1)
    return squeeze(self, axis=axis)


def _item_method(self):
    return self._scalar_value("item").item()


def _tolist_method(self):
    return self._value("tolist").tolist()


_argmax, _argmin = _searching_functions.argmax, _searching_functions.argmin
_conj = _ELEMENTWISE["conj"]

Array.reshape = _reshape_method
for _function in (_statistical_functions.sum, _statistical_functions.prod, _statistical_functions.mean,
                  _statistical_functions.max, _statistical_functions.min,
                  _utility_functions.any, _utility_functions.all):
    setattr(Array, _function.__name__, _reduction_method(_function))
Array.argmax = lambda self, axis=None, keepdims=False: _argmax(self, axis=axis, keepdims=keepdims)
Array.argmin = lambda self, axis=None, keepdims=False: _argmin(self, axis=axis, keepdims=keepdims)
Array.squeeze = _squeeze_method
Array.flatten = lambda self: reshape(self, (-1,), copy=True)
Array.ravel = lambda self: reshape(self, (-1,))
Array.conj = _conj
Array.clip = lambda self, min=None, max=None: clip(self, min, max)
Array.item = _item_method


def _part(name):
    """`x.real` / `x.imag` (numpy's, PyTorch's, JAX's, CuPy's attributes): the part of a complex
    array as a read-only view (numpy's is writable: a write here raises instead of being lost);
    a real array's `real` is a view of it and its `imag` read-only zeros, as in numpy."""
    def part(self):
        if self.dtype.kind == "c":
            op = ops.REAL if name == "real" else ops.IMAG
            step = _views.ReadOnly(op, f"x.{name}")
            return make_view(self, step, tuple(2 * s for s in strides_of(self)))
        if name == "real":
            return make_view(self, _views.Reshape(self.shape), strides_of(self))
        return make_view(self, _views.ReadOnly(lambda node: ops.constant(0, node.dtype, node.shape), "x.imag"),
                         strides_of(self))
    return property(part)


Array.real, Array.imag = _part("real"), _part("imag")
Array.tolist = _tolist_method
