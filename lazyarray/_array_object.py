"""The array object: a mutable handle on a graph node.

Operations record nodes and return new handles. In-place operators and __setitem__ rebind the
handle to an update node: functional underneath, mutable on top. The materialization points
(bool(), float(), numpy conversion, dlpack, repr, ...) run the pending graph.
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _dtypes as dt
from . import _config, _engine, _host_alias, _views
from . import _ops as ops
from ._pool import pool
from ._graph import bind as _bind, leaf_from_host as _leaf_from_host, pending


class Array:
    __slots__ = ("_node", "_device", "__weakref__")
    __array_priority__ = 100  # numpy defers binary operators to us

    def __init__(self, *args, **kwargs):
        raise TypeError("lazyarray arrays are made by the namespace's functions (asarray, zeros, ...)")

    @classmethod
    def _wrap(cls, node, device):
        self = object.__new__(cls)
        self._node = node
        self._device = device
        if node.op is not None:
            pending.add(self)
            if pending.nodes_since_sync >= _config.node_budget:
                _engine.maybe_cut()
        return self

    def _pending_node(self):
        """The node to compute at a sync (a view answers without re-reading its base)."""
        return self._node

    def _rebind(self, node):
        """In-place update: the handle now names a new node (the old value stays valid for any
        graph that already used it)."""
        self._node = node
        if node.op is not None:
            pending.add(self)
            if pending.nodes_since_sync >= _config.node_budget:
                _engine.maybe_cut()

    # ------------------------------------------------------------ attributes
    @property
    def dtype(self):
        return self._node.dtype

    @property
    def shape(self):
        return self._node.shape

    @property
    def ndim(self):
        return len(self._node.shape)

    @property
    def size(self):
        n = 1
        for s in self._node.shape:
            n *= s
        return n

    @property
    def device(self):
        return self._device

    @property
    def T(self):
        if self.ndim != 2:
            raise ValueError(f"x.T needs a 2-D array, got {self.ndim}-D; use permute_dims or mT")
        return _ns.permute_dims(self, (1, 0))

    @property
    def mT(self):
        return _ns.matrix_transpose(self)

    def __array_namespace__(self, *, api_version=None):
        """The namespace of the standard's version `api_version` (see `_versions`)."""
        from ._versions import namespace
        return namespace(api_version)

    def to_device(self, device, /, *, stream=None):
        from ._devices import check_device
        device = check_device(device)
        if device == self._device:
            return self
        from . import _runtime
        host = _engine.to_numpy(self._node, self._device, "to_device")
        return Array._wrap(_leaf(_runtime.put(host, device._pjrt), host), device)

    # ------------------------------------------------------------ materialization points
    def _value(self, cause):
        return _engine.to_numpy(self._node, self._device, cause)

    def __array__(self, dtype=None, copy=None):
        """numpy's view of x: without a copy asked for, a host array that aliases x (writes into
        it reach x, and x's later writes show in it: see `_host_alias`)."""
        if copy or (dtype is not None and np.dtype(dtype) != self.dtype.np):
            if copy is False:
                raise ValueError(f"cannot convert a {self.dtype} array to numpy {np.dtype(dtype)} without a copy")
            out = self._value("numpy")
            return out if dtype is None else out.astype(dtype, copy=False)
        return _host_alias.export(self, _HostAliased)

    def _scalar_value(self, cause):
        if self.size != 1:
            raise TypeError(f"{cause}() needs an array of one element, got shape {self.shape}")
        return self._value(cause).reshape(())[()]

    def __bool__(self):
        return builtins.bool(self._scalar_value("bool"))

    def __int__(self):
        if self.dtype.kind == "c":
            raise TypeError("int() of a complex array")
        v = self._scalar_value("int")
        if self.dtype.kind == "f" and not np.isfinite(v):
            raise (OverflowError if np.isinf(v) else ValueError)(f"cannot convert {v} to int")
        return int(v)

    def __float__(self):
        if self.dtype.kind == "c":
            raise TypeError("float() of a complex array; take real() first")
        return float(self._scalar_value("float"))

    def __complex__(self):
        return complex(self._scalar_value("complex"))

    def __index__(self):
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, got {self.dtype}")
        return int(self._scalar_value("index"))

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        legacy = max_version is None or tuple(max_version) < (1, 0)  # unversioned capsule
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            if copy is False or tuple(dl_device)[0] != _DL_CPU:
                raise BufferError(f"cannot export an array on {self._device} to dlpack device "
                                  f"{tuple(dl_device)}{' without a copy' if copy is False else ''}")
            copy = True  # to the host: a copy the consumer owns
        if copy:
            host = self._value("dlpack")
            return host.__dlpack__() if legacy else host.__dlpack__(max_version=max_version, copy=True)
        buf = self._shared_buffer("dlpack")
        return buf.__dlpack__(stream=stream, max_version=None if legacy else max_version, copy=copy)

    def _shared_buffer(self, cause):
        """x's device buffer, to hand out without a copy. Nodes never change once computed, so
        the consumer's view stays valid; the buffer is pinned out of donation and reuse."""
        node = self._node
        if node.op is not None:
            _engine.realize([node], self._device, cause)
        buf = node.buffer if node.buffer is not None else _engine._input_buffer(node, self._device)
        pool.pin(buf)
        return buf

    def __jax_array__(self):
        """`jnp.asarray(x)`: the device buffer itself (jax arrays are immutable, as our nodes)."""
        return self._shared_buffer("jax")

    def __dlpack_device__(self):
        kind = _DL_DEVICE_TYPES.get(self._device.platform, _DL_CPU)
        return (kind, 0 if kind == _DL_CPU else self._device.id)

    def __repr__(self):
        body = np.array2string(self._value("repr"), separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype.name})"

    def __str__(self):
        return str(self._value("repr"))

    def __format__(self, spec):
        """`f"{x:.3f}"` of a 0-D array formats its value, as numpy does (a sync)."""
        if not spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(f"unsupported format string {spec!r} for a {self.ndim}-D array: "
                            "only 0-D arrays take a format spec")
        return format(self._scalar_value("format").item(), spec)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-D array")
        return (self[i] for i in range(self.shape[0]))

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-D array")
        return self.shape[0]

    def __hash__(self):
        return id(self)

    def __reduce__(self):
        return (_ns.asarray, (self._value("pickle"),))

    # ------------------------------------------------------------ indexing
    def __getitem__(self, key, /):
        from ._indexing import getitem
        return getitem(self, key)

    def __setitem__(self, key, value, /):
        from ._indexing import setitem
        setitem(self, key, value)


# ---------------------------------------------------------------- methods beyond the standard
# Methods that numpy, PyTorch, JAX and CuPy arrays ALL have with one meaning, and that consumers
# call on their other backends (SciPy: x.reshape, x.sum, ...): each is the namespace function.
# Left out on purpose: astype and copy (PyTorch has neither), view (PyTorch's takes a shape,
# the others' a dtype), std/var (PyTorch's default is the unbiased estimator), transpose and
# cumsum (PyTorch's take other arguments).
def _reshape_method(self, *shape, copy=None):
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    return _ns.reshape(self, shape, copy=copy)


def _reduction_method(fname):
    def method(self, axis=None, keepdims=False, **kwargs):
        return getattr(_ns, fname)(self, axis=tuple(axis) if isinstance(axis, list) else axis,
                                   keepdims=keepdims, **kwargs)
    method.__name__ = fname
    method.__doc__ = f"x.{fname}(...) is xp.{fname}(x, ...) (numpy's method, an extension)."
    return method


def _squeeze_method(self, axis=None):
    if axis is None:
        axis = tuple(i for i, n in enumerate(self.shape) if n == 1)
    return _ns.squeeze(self, axis=axis)


def _item_method(self):
    return self._scalar_value("item").item()


def _tolist_method(self):
    return self._value("tolist").tolist()


Array.reshape = _reshape_method
for _fname in ("sum", "prod", "mean", "max", "min", "any", "all"):
    setattr(Array, _fname, _reduction_method(_fname))
Array.argmax = lambda self, axis=None, keepdims=False: _ns.argmax(self, axis=axis, keepdims=keepdims)
Array.argmin = lambda self, axis=None, keepdims=False: _ns.argmin(self, axis=axis, keepdims=keepdims)
Array.squeeze = _squeeze_method
Array.flatten = lambda self: _ns.reshape(self, (-1,), copy=True)
Array.ravel = lambda self: _ns.reshape(self, (-1,))
Array.conj = lambda self: _ns.conj(self)
Array.clip = lambda self, min=None, max=None: _ns.clip(self, min, max)
Array.item = _item_method
Array.tolist = _tolist_method


def _view_method(self, dtype):
    """`x.view(dtype)`: numpy's (and PyTorch's, JAX's, CuPy's) reinterpretation of x's bytes as
    another dtype, a view as in numpy (writes through it reach x). Item sizes must agree, or be
    a complex dtype and its real dtype (the last axis then doubles or halves)."""
    new = dt.as_dtype(dtype)
    old = self.dtype
    if new is old:
        return make_view(self, _views.Reshape(self.shape), strides_of(self))
    if new.bits != old.bits:
        pair = (old.kind == "c" and new is dt.real_of(old)) or (new.kind == "c" and old is dt.real_of(new))
        if not pair:
            raise TypeError(f"x.view({new}): from {old} only a dtype of the same size or a complex "
                            "dtype and its real dtype are supported")
        if self.ndim == 0 or strides_of(self)[-1] != 1:
            raise ValueError(f"x.view({new}): changing the item size needs a contiguous last axis")
        if old.kind != "c" and self.shape[-1] % 2:
            raise ValueError(f"x.view({new}): the last axis ({self.shape[-1]}) must have an even length")
    step = _views.Reinterpret(old, new)
    return make_view(self, step, _views.reinterpreted_strides(strides_of(self), old, new))


Array.view = _view_method


_DL_CPU = 1  # DLPack device types (dlpack.h's DLDeviceType)
_DL_DEVICE_TYPES = {"cpu": _DL_CPU, "cuda": 2, "gpu": 2, "rocm": 10}


class _View(Array):
    """A view, as numpy makes them (see `_views`): its value is `step.forward(base value)`,
    read again whenever the base was written since; a write through it becomes the base's new
    value `step.inverse(base value, new view value)`, so it reaches the base (and every other
    view of it), as scikit-learn's `_add_to_diagonal` and SciPy's `oaconvolve` expect."""
    __slots__ = ("_base", "_step", "_seen", "_own", "_strides")

    @classmethod
    def _make(cls, base, step, node, strides):
        self = object.__new__(cls)
        self._base, self._step, self._seen, self._own = base, step, base._node, node
        self._strides = strides
        self._device = base._device
        if node.op is not None:
            pending.add(self)
        return self

    @property
    def _node(self):
        base_node = self._base._node
        if base_node is not self._seen:  # the base was written since: read the view again
            self._seen = base_node
            self._own = self._step.forward(base_node)
        return self._own

    def _pending_node(self):
        return self._own

    def _rebind(self, node):
        check_writable(self)  # before anything changes: a refused write leaves no trace
        base = self._base
        with _views.write_lock:
            new_base = self._step.inverse(base._node, node)
            self._own = node
            base._rebind(new_base)
            self._seen = base._node
        if node.op is not None:
            pending.add(self)


_NODE_SLOT = Array.__dict__["_node"]  # the slot that holds a plain array's node


class _HostAliased(Array):
    """A base array whose value (or a view's) a numpy array aliases (`np.asarray`): its node
    is read after taking in writes made into those numpy arrays, and its writes are copied
    into them (see `_host_alias`). It turns back into a plain Array when no alias is left."""
    __slots__ = ()

    @property
    def _node(self):
        _host_alias.flush(self)
        return _NODE_SLOT.__get__(self)

    def _pending_node(self):  # (the engine, mid-sync: no flush, which may sync itself)
        return _NODE_SLOT.__get__(self)

    def _rebind(self, node):
        _NODE_SLOT.__set__(self, node)
        if node.op is not None:
            pending.add(self)
        _host_alias.after_write(self)


def check_writable(x):
    """Raise ValueError when x is, or is a view of, a read-only view (as numpy's flags say)."""
    step = _views.readonly_step(x)
    if step is not None:
        raise step.refusal()


def strides_of(x):
    """Element strides of x relative to the memory it aliases (numpy's, for deciding views)."""
    return x._strides if type(x) is _View else _views.contiguous_strides(x.shape)


def make_view(x, step, strides=None):
    """x viewed through `step` (its value now: step.forward(x's node))."""
    node = step.forward(x._node)
    if strides is None:
        strides = _views.contiguous_strides(node.shape)
    return _View._make(x, step, node, strides)


def _leaf(buffer, host):
    from ._graph import leaf_from_buffer
    return leaf_from_buffer(buffer, tuple(host.shape), dt.from_numpy(host.dtype))


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


# Operators whose meaning is ONE StableHLO op when both operands already share dtype and shape
# (or the other is a Python int/float next to a floating array): they skip the general machinery
# and build exactly the node the namespace function would build. dunder -> (op, attrs, kinds).
_FAST = {
    "add": (ops.ADD, (), "iufc"), "sub": (ops.SUBTRACT, (), "iufc"),
    "mul": (ops.MULTIPLY, (), "iufc"), "truediv": (ops.DIVIDE, (), "fc"),
    "lt": (ops.COMPARE, ops.COMPARE.Attrs("LT"), "iuf"), "le": (ops.COMPARE, ops.COMPARE.Attrs("LE"), "iuf"),
    "gt": (ops.COMPARE, ops.COMPARE.Attrs("GT"), "iuf"), "ge": (ops.COMPARE, ops.COMPARE.Attrs("GE"), "iuf"),
}


def _fast_path(prim, attrs, kinds):
    out_bool = prim is ops.COMPARE
    float_scalars = {float, int}

    def fast(x, other, swap):
        """The node for x OP other (other OP x when swap), or None to take the general path."""
        n1 = x._node
        d = n1.dtype
        if d.kind not in kinds:
            return None
        t = type(other)
        if t is Array:
            n2 = other._node
            if n2.dtype is not d or n2.shape != n1.shape or other._device is not x._device:
                return None
        elif t in float_scalars and d.kind in "fc":
            n2 = _leaf_from_host(other, (), d)
        else:
            return None
        args = (n2, n1) if swap else (n1, n2)
        return Array._wrap(_bind(prim, args, attrs, n1.shape, dt.bool if out_bool else d), x._device)
    return fast


_SCALAR_TYPES = (Array, builtins.bool, int, float, complex)


def _same_kind(source, target):
    """numpy's same_kind casting between numbers: integer to integer (int64 -> int32; not to
    an unsigned type that cannot hold the sign), float to float, complex to complex."""
    if source.kind in "iu" and target.kind in "iu":
        return builtins.bool(np.can_cast(source.np, target.np, "same_kind"))
    return source.kind == target.kind and source.kind in "fc"


def _numpy_operand(value, x):
    """numpy on the other side of an operator: a numpy scalar acts as the Python scalar of its
    kind (weakly typed: x * np.float64(2) keeps x's dtype), a numpy array as our array of its
    values and dtype (so `x + np.ones(3)` and `np.ones(3) + x` are both lazyarray arrays: numpy
    defers its operators to ours through __array_priority__); anything else is not ours."""
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return value.item()
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        return _ns.asarray(value, device=x._device)
    return NotImplemented


def _binary(name, fname):
    fast = _fast_path(*_FAST[name]) if name in _FAST else None

    def apply(self, other, swap):
        if fast is not None:
            r = fast(self, other, swap)
            if r is not None:
                return r
        if not isinstance(other, _SCALAR_TYPES):
            other = _numpy_operand(other, self)
            if other is NotImplemented:
                return NotImplemented
        f = getattr(_ns, fname)
        return f(other, self) if swap else f(self, other)

    def op(self, other, /):
        return apply(self, other, False)

    def rop(self, other, /):
        return apply(self, other, True)

    def iop(self, other, /):
        if not isinstance(other, _SCALAR_TYPES):
            other = _numpy_operand(other, self)
            if other is NotImplemented:
                return NotImplemented
        result = op(self, other)
        if result.dtype != self.dtype and result.shape == self.shape:
            if _same_kind(result.dtype, self.dtype):
                # numpy's in-place rule (same-kind casting: `int32 += int64` stays int32), which
                # SciPy relies on; the standard leaves it open
                self._rebind(_ns.astype(result, self.dtype)._node)
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
    setattr(Array, f"__{_name}__", (lambda f: lambda self: getattr(_ns, f)(self))(_fname))

_ns = None  # the lazyarray namespace, bound by lazyarray/__init__.py (it imports this module)


def _bind_namespace(ns):
    global _ns
    _ns = ns
