"""The array object: a mutable handle on a graph node.

Operations record nodes and return new handles. In-place operators and __setitem__ rebind the
handle to an update node: functional underneath, mutable on top. The materialization points
(bool(), float(), numpy conversion, dlpack, repr, ...) run the pending graph.
"""
from __future__ import annotations

import builtins
from collections.abc import Iterator
from types import EllipsisType, ModuleType
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from . import _dtypes as dt
from . import _config, _engine, _host_alias, _host_data, _run_program, _sharding_place, _views
from ._devices import Device, MeshDevice, check_device, check_dtype
from ._dtypes import DType
from ._pool import pool
from ._graph import pending, root
from weakref import ref as _ref

_new = object.__new__

from ._sharding import Mesh, NamedSharding

# axis= of the reduction methods (the declarations in the class body)
_Axis: TypeAlias = "int | tuple[int, ...] | list[int] | None"

# what x[key] and x[key] = v accept
_Index: TypeAlias = "int | slice | EllipsisType | None | Array | tuple[int | slice | EllipsisType | None | Array, ...]"


class Array:
    __slots__ = ("_node", "_device", "__weakref__")
    __array_priority__ = 100  # numpy defers binary operators to us

    def __init__(self, *args, **kwargs):
        raise TypeError("lazyarray arrays are made by the namespace's functions (asarray, zeros, ...)")

    @classmethod
    def _wrap(cls, node, device):
        self = _new(cls)
        self._node = node
        self._device = device
        comp = node.comp
        if comp is not None:  # a pending node (see `_Pending.add`: inline, the common case first)
            if comp.parent is None and len(comp.handles) < comp.compact_at - 1:
                ref = _ref(self)
                comp.handles.append(ref)
                if comp.parent is not None:  # merged while appending
                    root(comp).handles.append(ref)
            else:
                pending.add(self, node)
            if pending.nodes_since_sync >= _config.node_budget:
                _engine.maybe_cut()
        return self

    def _pending_node(self):
        """The node to compute at a sync (a view answers without re-reading its base; an array
        whose node is bound at its first use binds it: the deferred-binding protocol, `Deferred`)."""
        return self._node

    def _rebind(self, node):
        """In-place update: the handle now names a new node (the old value stays valid for any
        graph that already used it)."""
        self._node = node
        if node.op is not None:
            pending.add(self, node)
            if pending.nodes_since_sync >= _config.node_budget:
                _engine.maybe_cut()

    # ------------------------------------------------------------ attributes
    @property
    def dtype(self) -> DType:
        return self._node.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self._node.shape

    @property
    def ndim(self) -> int:
        return len(self._node.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self._node.shape:
            n *= s
        return n

    @property
    def device(self) -> Device | MeshDevice:
        return self._device

    @property
    def sharding(self) -> NamedSharding | None:
        """How x is laid out over a mesh (`lazyarray.sharding.NamedSharding`); None on one device."""
        return _sharding_place.sharding(self)

    def to_device(self, device: Device | MeshDevice | str | NamedSharding | Mesh, /, *, stream: int | Any | None = None) -> Array:
        """Eager: a sync, then a copy (through the host, or XLA's move within a mesh)."""
        target = check_device(device)
        if target.mesh is not None or self._device.mesh is not None:
            return _sharding_place.to_device(self, device)
        device = target
        if device == self._device:
            return self
        check_dtype(device, self._node.dtype)
        host = _engine.to_numpy(self._node, self._device, "to_device")
        return Array._wrap(_host_data.leaf(host, device), device)

    # ------------------------------------------------------------ materialization points
    def _value(self, cause):
        return _engine.to_numpy(self._node, self._device, cause)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """numpy's view of x: without a copy asked for, a host array that aliases x (writes into
        it reach x, and x's later writes show in it: see `_host_alias`). On the CPU it is the
        device buffer's own memory, no copy, where nothing else uses x's value."""
        if copy or (dtype is not None and np.dtype(dtype) != self.dtype.np):
            if copy is False:
                raise ValueError(f"cannot convert a {self.dtype} array to numpy {np.dtype(dtype)} without a copy")
            out = self._value("numpy")
            return out if dtype is None else out.astype(dtype, copy=False)
        return _host_alias.export(self, _HostAliased)

    def _scalar_value(self, cause):
        node = self._node
        for n in node.shape:  # (inline: the read is the hot path of scalar code)
            if n != 1:
                raise TypeError(f"{cause}() needs an array of one element, got shape {node.shape}")
        return _engine.read_scalar(node, self._device, cause)

    def __bool__(self) -> bool:
        node = self._node
        if not node.shape:  # (0-D, the commonest truth test: `_scalar_value`'s check, a call less)
            return builtins.bool(_engine.read_scalar(node, self._device, "bool"))
        return builtins.bool(self._scalar_value("bool"))

    def __int__(self) -> int:
        if self.dtype.kind == "c":
            raise TypeError("int() of a complex array")
        v = self._scalar_value("int")
        if self.dtype.kind == "f" and not np.isfinite(v):
            raise (OverflowError if np.isinf(v) else ValueError)(f"cannot convert {v} to int")
        return int(v)

    def __float__(self) -> float:
        if self.dtype.kind == "c":
            raise TypeError("float() of a complex array; take real() first")
        return float(self._scalar_value("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar_value("complex"))

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, got {self.dtype}")
        return int(self._scalar_value("index"))

    def __dlpack__(self, *, stream: int | Any | None = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        legacy = max_version is None or tuple(max_version) < (1, 0)  # unversioned capsule
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            if copy is False or tuple(dl_device)[0] != _DL_CPU:
                raise BufferError(f"cannot export an array on {self._device} to dlpack device "
                                  f"{tuple(dl_device)}{' without a copy' if copy is False else ''}")
            copy = True  # to the host: a copy the consumer owns
        if copy:
            host = self._value("dlpack")
            return host.__dlpack__() if legacy else host.__dlpack__(max_version=max_version, copy=True)
        if not legacy and stream is None:  # (a versioned capsule can say read-only: a host value's own memory)
            view = self._host_value_view("dlpack")
            if view is not None:
                return view.__dlpack__(max_version=max_version, copy=copy)
        buf = self._shared_buffer("dlpack")
        return buf.__dlpack__(stream=stream, max_version=None if legacy else max_version, copy=copy)

    def _host_value_view(self, cause):
        """x's value as a read-only numpy view of its node's host value (an interpreter result,
        `asarray`'s copy: a node of one CPU device with no device buffer), or None. No copy and no
        transfer (sending it to a device buffer for `_shared_buffer` costs ~15 us: scikit-learn's
        L-BFGS losses hand a gradient to numpy by dlpack at every step). Nodes never change once
        computed, and the view keeps the host value referenced, so `np.asarray(x)` never shares
        that memory writable with the user meanwhile (`_engine._host_leaf_view`, `_host_alias`:
        an alias shared before is unshared by reading `self._node`)."""
        node = self._node
        if node.op is not None:
            _engine.realize([node], self._device, cause)
        host = node.host
        device = self._device
        if type(host) is not np.ndarray or node.buffer is not None or device.platform != "cpu" \
                or device.mesh is not None or host.dtype != node.dtype.np or host.shape != node.shape \
                or not host.flags.c_contiguous:
            return None
        view = host.view()
        view.flags.writeable = False
        return view

    def _shared_buffer(self, cause):
        """x's device buffer, to hand out without a copy. Nodes never change once computed, so
        the consumer's view stays valid; the buffer is pinned out of donation and reuse."""
        node = self._node
        if node.op is not None:
            _engine.realize([node], self._device, cause)
        buf = node.buffer if node.buffer is not None else _run_program.exported_buffer(node, self._device)
        pool.pin(buf)
        return buf

    def __jax_array__(self):
        """`jnp.asarray(x)`: the device buffer itself (jax arrays are immutable, as our nodes)."""
        return self._shared_buffer("jax")

    def __dlpack_device__(self) -> tuple[int, int]:
        kind = _DL_DEVICE_TYPES.get(self._device.platform, _DL_CPU)
        return (kind, 0 if kind == _DL_CPU else self._device.id)

    def __repr__(self) -> str:
        body = np.array2string(self._value("repr"), separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype.name})"

    def __str__(self) -> str:
        return str(self._value("repr"))

    def __format__(self, spec: str) -> str:
        """`f"{x:.3f}"` of a 0-D array formats its value, as numpy does (a sync)."""
        if not spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(f"unsupported format string {spec!r} for a {self.ndim}-D array: "
                            "only 0-D arrays take a format spec")
        return format(self._scalar_value("format").item(), spec)

    def __iter__(self) -> Iterator[Array]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-D array")
        return (self[i] for i in range(self.shape[0]))

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-D array")
        return self.shape[0]

    def __hash__(self) -> int:
        return id(self)

    # The operators, __getitem__/__setitem__, T/mT, __reduce__ and the methods that are
    # namespace functions are installed by `_array_methods`, a layer up.
    if TYPE_CHECKING:
        # ... so a static checker (mypy, pyright), which cannot run that layer, sees them declared
        # here (never defined: TYPE_CHECKING is False at run time; tests/test_annotations.py checks
        # that every name declared here exists on the class and every public one is declared).
        def __add__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __radd__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __iadd__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __sub__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rsub__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __isub__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __mul__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rmul__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __imul__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __truediv__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rtruediv__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __itruediv__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __floordiv__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rfloordiv__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __ifloordiv__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __mod__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rmod__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __imod__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __pow__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rpow__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __ipow__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __matmul__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rmatmul__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __imatmul__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __and__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rand__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __iand__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __or__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __ror__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __ior__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __xor__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rxor__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __ixor__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __lshift__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rlshift__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __ilshift__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rshift__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __rrshift__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __irshift__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __lt__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __le__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __gt__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __ge__(self, other: Array | bool | int | float | complex, /) -> Array: ...
        def __eq__(self, other: Array | bool | int | float | complex, /) -> Array: ...  # type: ignore[override]
        def __ne__(self, other: Array | bool | int | float | complex, /) -> Array: ...  # type: ignore[override]
        def __neg__(self) -> Array: ...
        def __pos__(self) -> Array: ...
        def __abs__(self) -> Array: ...
        def __invert__(self) -> Array: ...
        def __getitem__(self, key: _Index, /) -> Array: ...
        def __setitem__(self, key: _Index, value: Array | bool | int | float | complex, /) -> None: ...
        def __array_namespace__(self, /, *, api_version: str | None = None) -> ModuleType: ...
        @property
        def T(self) -> Array: ...
        @property
        def mT(self) -> Array: ...
        @property
        def real(self) -> Array: ...
        @property
        def imag(self) -> Array: ...
        # methods beyond the standard (numpy's, which consumers call: see `_array_methods`)
        def reshape(self, *shape: int | tuple[int, ...], copy: bool | None = None) -> Array: ...
        def sum(self, axis: _Axis = None, keepdims: bool = False, **kwargs: Any) -> Array: ...
        def prod(self, axis: _Axis = None, keepdims: bool = False, **kwargs: Any) -> Array: ...
        def mean(self, axis: _Axis = None, keepdims: bool = False, **kwargs: Any) -> Array: ...
        def max(self, axis: _Axis = None, keepdims: bool = False, **kwargs: Any) -> Array: ...
        def min(self, axis: _Axis = None, keepdims: bool = False, **kwargs: Any) -> Array: ...
        def any(self, axis: _Axis = None, keepdims: bool = False, **kwargs: Any) -> Array: ...
        def all(self, axis: _Axis = None, keepdims: bool = False, **kwargs: Any) -> Array: ...
        def argmax(self, axis: int | None = None, keepdims: bool = False) -> Array: ...
        def argmin(self, axis: int | None = None, keepdims: bool = False) -> Array: ...
        def squeeze(self, axis: int | tuple[int, ...] | None = None) -> Array: ...
        def flatten(self) -> Array: ...
        def ravel(self) -> Array: ...
        def conj(self) -> Array: ...
        def clip(self, min: Array | int | float | None = None, max: Array | int | float | None = None) -> Array: ...
        def item(self) -> bool | int | float | complex: ...
        def tolist(self) -> Any: ...
        def view(self, dtype: DType) -> Array: ...


def _view_method(self: Array, dtype: DType) -> Array:
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
        if self.ndim == 0 or (strides_of(self)[-1] != 1 and self.shape[-1] != 1):  # length 1: contiguous
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
        comp = node.comp
        if comp is not None:  # a pending node: `_Pending.add`, its common case inline (as `_wrap`)
            if comp.parent is None and len(comp.handles) < comp.compact_at - 1:
                ref = _ref(self)
                comp.handles.append(ref)
                if comp.parent is not None:  # merged while appending
                    root(comp).handles.append(ref)
            else:
                pending.add(self, node)
        return self

    @property
    def _node(self):
        base_node = self._base._node
        if base_node is not self._seen:  # the base was written since: read the view again
            self._seen = base_node
            self._own = self._step.forward(base_node)
        return self._own

    def _pending_node(self):
        own = self._own
        return self._node if own is None else own  # (None: a transpose not bound yet, `lazy_transpose`: bound now)

    def _rebind(self, node):
        check_writable(self)  # before anything changes: a refused write leaves no trace
        base = self._base
        with _views.write_lock:
            new_base = self._step.inverse(base._node, node)
            self._own = node
            base._rebind(new_base)
            self._seen = base._node
        if node.op is not None:
            pending.add(self, node)


_NODE_SLOT = Array.__dict__["_node"]  # the slot that holds a plain array's node


class SlotShaped(Array):
    """Base of the arrays whose `_node` is a property of their class while the slot already holds
    a node of their shape and dtype (`Deferred`'s forms, `_HostAliased`): shape, dtype, ndim and
    size answer from the slot, reading nothing else."""
    __slots__ = ()

    @property
    def dtype(self):
        return _NODE_SLOT.__get__(self).dtype

    @property
    def shape(self):
        return _NODE_SLOT.__get__(self).shape

    @property
    def ndim(self):
        return len(_NODE_SLOT.__get__(self).shape)

    @property
    def size(self):
        n = 1
        for s in _NODE_SLOT.__get__(self).shape:
            n *= s
        return n


class Deferred(SlotShaped):
    """The deferred-binding protocol: an array whose node is bound at its first use. Until then
    its class is a subclass of this one, and its slot holds what the node will be made from;
    `_bind()` (the one hook each form defines) makes the node, stores it in the slot, turns the
    array into a plain `Array` and returns the node (`_settle`, the common end); the class wires
    it as the `_node` getter and, unless the form has its own, as `_pending_node`
    (`__init_subclass__`). So `type(x) is Array` fast paths never see a deferred array as plain,
    and after its first use it is one.

    Who defers (the only makers of one):
      `_borrowed_host.Borrowed`       asarray of a large numpy array; slot: a leaf over the
                                      caller's memory; binds: takes the copy.
      `_deferred_elements.Element`    x[i] of a pending vector (`_indexing._element`); slot:
                                      (the vector's node, i); binds: `element_nodes`.
      `_deferred_elements.Running`    a plain array an open element run writes into
                                      (`element_run`); slot: the run's base; binds: the run's
                                      scatter (`close_run`). One run is open at a time.
      (not a subclass: x.T of a matrix, `_manipulation_functions.lazy_transpose`, is a `_View`
      never read: `_own` is None and `_View._node`'s re-read binds it; matmul reads the matrix it
      transposes without binding, `unbound_transpose`)
    Who binds: every read of `x._node` (the ops, the read points, a write: `x._node = node`
    binds first, then replaces) and `x._pending_node()`, the node a sync computes for a live
    handle (`_graph.pending`, `_engine`, `_host_sync`, `_host_alias`; `_indexing.setitem` reads
    a view's or a run's shape by it): `Running`'s answers its base instead, which the sync
    computes, and the run stays open.
    Who reads the slot without binding: shape/dtype/ndim/size (here), `Borrowed.__array__`,
    `_indexing.setitem`'s write of an unbound `Element` (`element_run` takes it from the slot).
    Invariants: a bound node has the value the eager path's nodes would have had (nothing it
    reads can change before the first use); binding happens once (`Borrowed` and `Running`
    check their class under their lock; two threads binding one `Element` may both bind, equal
    nodes); a deferred array is registered as a pending handle only once bound (`Running`: was
    one already, on its base)."""
    __slots__ = ()

    def _bind(self):
        """x's node, made now (x's first use): stored in the slot, x made a plain Array."""
        raise NotImplementedError

    def _replace(self, node):  # (a write, `Array._rebind`'s `x._node = node`: a use first)
        self._bind()
        _NODE_SLOT.__set__(self, node)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # reading `x._node` is x's first use: the form's own `_bind` is the property's getter
        # (no frame between: an element read binds ~670 times a GaussianMixture call)
        cls._node = property(cls._bind, Deferred._replace)
        if "_pending_node" not in cls.__dict__:
            cls._pending_node = cls._bind

    def _settle(self, node):
        """The common end of `_bind`: x is a plain Array on `node`, a pending handle of it when
        it is pending (as `Array._wrap` registers one)."""
        _NODE_SLOT.__set__(self, node)
        self.__class__ = Array
        pending.add(self, node)
        return node


class _HostAliased(SlotShaped):
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

    # (a numpy write changes neither shape nor dtype: `SlotShaped` reads them without the flush,
    # which would unshare a zero-copy alias)

    def _rebind(self, node):
        _NODE_SLOT.__set__(self, node)
        if node.op is not None:
            pending.add(self, node)
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
