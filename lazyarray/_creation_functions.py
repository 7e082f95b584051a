"""Creation functions of the standard."""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from . import _dtypes as dt
from . import _ops as ops
from . import _views
from . import _borrowed_host
from . import _runtime
from ._array_object import Array, make_view
from ._devices import Device, check_device, check_dtype
from ._typing import Any, DeviceLike, DType, Literal, Scalar, Shape, SupportsBufferProtocol
from ._elementwise_functions import FUNCTIONS as _ELEMENTWISE
from ._graph import bind as _bind, bind_pair as _bind_pair, leaf_from_host
from ._ops.core import memo as _memo
from ._host_data import leaf, normalized, numpy_leaf
from ._nested_scalars import host_array, plain_scalars_only
from ._sharding_place import moves, placed  # device=NamedSharding, and per-device dtypes


def _shape(shape):
    if type(shape) is tuple:  # (the common case: a tuple of non-negative Python ints, as it is)
        for s in shape:
            if type(s) is not int or s < 0:
                break
        else:
            return shape
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, builtins.bool):
        shape = (shape,)
    try:
        shape = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimension in shape {shape}")
    return shape


def _dtype_or(dtype, default):
    return default if dtype is None else dt.as_dtype(dtype)


def _infer_dtype(obj):
    """The dtype of a Python scalar or nested sequence, by the standard's defaults."""
    arr = np.asarray(obj)
    if arr.dtype.kind == "b":
        return dt.bool
    if arr.dtype.kind in "iu":
        if arr.size and (arr.max() > np.iinfo(np.int64).max):
            return dt.uint64
        return dt.DEFAULT_INT
    if arr.dtype.kind == "f":
        return dt.DEFAULT_FLOAT
    if arr.dtype.kind == "c":
        return dt.DEFAULT_COMPLEX
    raise TypeError(f"cannot make an array from {type(obj).__name__} (numpy dtype {arr.dtype})")


def from_host(host: np.ndarray, device):
    """An array holding `host`, a numpy array no one else holds (every caller made it fresh:
    a nested list's conversion, a cast, a copy). On one CPU device it stays a host leaf, as
    `_host_copy_leaf`'s copies do: the interpreter reads it as it is and a program sends it
    once, where a device put here costs ~7-10 us and the interpreter's read of that buffer
    back ~10-20 us more (SciPy converts a list or tuple in ~130 of its table's calls a pass).
    Elsewhere, a device leaf (`_host_data.leaf`)."""
    if device.platform == "cpu" and device.mesh is None and host.ndim:
        host = normalized(host)  # (native byte order, C order, a dtype we have: `host` itself when so)
        return Array._wrap(leaf_from_host(host, host.shape, dt.from_numpy(host.dtype)), device)
    return Array._wrap(leaf(host, device), device)


def asarray(obj: Array | Scalar | SupportsBufferProtocol, /, *, dtype: DType | None = None,
            device: DeviceLike | None = None, copy: bool | None = None) -> Array:
    if device is None and not copy and isinstance(obj, Array) and (dtype is None or dtype is obj.dtype):
        # (SciPy's and scikit-learn's `xp.asarray(x)` of our own arrays, ~1,000 calls a pass of
        # SciPy's table, ~180 more with `dtype=x.dtype`: x itself, as `_asarray` answers, without
        # its `placed` wrapper: an array already has a dtype its device holds and its layout)
        return obj
    if dtype is None and type(obj) in _PY_SCALARS and copy is not False and (
            device is None or type(device) is Device):
        # (SciPy's `xp.asarray(True, device=device(x))`, ~50 a pass of its table: the standard's
        # default dtype of the scalar's kind, as `_infer_dtype` gives it; an int outside int64
        # takes the general path, whose inference and errors decide)
        dtype = _DEFAULT_OF.get(type(obj))
        if dtype is None and -_INT64_END <= obj < _INT64_END:
            dtype = dt.DEFAULT_INT
    if type(obj) in _PY_SCALARS and type(dtype) is dt.DType and copy is not False and (
            device is None or type(device) is Device):
        # (scikit-learn's `xp.asarray(reg_covar, dtype=a.dtype, device=device(a))`: the general
        # path's 0-D host leaf at once, without its type probes and `placed` wrapper, whose
        # `place` is then its dtype check alone: a Device is never a NamedSharding)
        device = check_device(device)
        out = Array._wrap(leaf_from_host(_host_of(obj, dtype), (), dtype), device)  # (fresh: ours)
        check_dtype(device, dtype)
        return out
    if type(obj) is np.ndarray and dtype is None and device is None and copy is None and obj.ndim:
        # (SciPy's table converts ~330 numpy arrays a pass, its inputs: `_asarray`'s host copy
        # for a C-ordered array of one of our dtypes in native byte order on the default CPU
        # device, below the borrowing size, without its type probes and `placed` wrapper: the
        # same private copy and leaf as `_host_copy_leaf`'s; `place` is its dtype check alone)
        d = dt.native_of(obj.dtype)
        if d is not None and obj.flags.c_contiguous and obj.nbytes < _borrowed_host.BORROW_MIN_BYTES:
            device = check_device(None)
            if device.platform == "cpu" and device.mesh is None:
                host = _runtime.private_copy(obj)
                out = Array._wrap(leaf_from_host(host, host.shape, d), device)
                check_dtype(device, d)
                return out
    return _asarray(obj, dtype=dtype, device=device, copy=copy)


_PY_SCALARS = frozenset({builtins.bool, int, float, complex})
_DEFAULT_OF = {builtins.bool: dt.bool, float: dt.DEFAULT_FLOAT, complex: dt.DEFAULT_COMPLEX}
_INT64_END = 1 << 63


def _host_of(obj, target):
    """numpy's array of a Python scalar or a nested sequence of them (checked) as `target`;
    OverflowError for a Python int outside an integer target's range."""
    if isinstance(obj, int) and not isinstance(obj, builtins.bool) and target.kind in "iu":
        info = np.iinfo(target.np)
        if not info.min <= obj <= info.max:
            raise OverflowError(f"Python int {obj} does not fit in {target}")
    return np.asarray(obj, dtype=target.np)


@placed()
def _asarray(obj, /, *, dtype=None, device=None, copy=None):
    if isinstance(obj, Array):
        if device is not None and moves(obj, device):
            if copy is False:
                raise ValueError("asarray(copy=False) cannot move an array to another device")
            obj = obj.to_device(device)
        if dtype is not None and dt.as_dtype(dtype) != obj.dtype:
            if copy is False:
                raise ValueError(f"asarray(copy=False) cannot cast {obj.dtype} to {dtype}")
            return Array._wrap(ops.convert(obj._node, dt.as_dtype(dtype)), obj.device)
        # A copy is a new handle on the same node: writes rebind one handle, never the node.
        return Array._wrap(obj._node, obj.device) if copy else obj
    device = check_device(device)
    if copy is False:
        raise ValueError("asarray(copy=False): host data must be copied to the device")
    if copy is None and _borrowed_host.borrowable(obj, device) and (dtype is None or dt.as_dtype(dtype).np == obj.dtype):
        return _borrowed_host.borrow(obj, device)  # a large array: copied at its first use
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        try:
            obj = np.from_dlpack(obj)
        except (BufferError, TypeError, RuntimeError):
            obj = np.asarray(obj)
    if isinstance(obj, np.ndarray) or hasattr(obj, "__array__"):
        return Array._wrap(numpy_array_leaf(obj, device, _dtype_or(dtype, None)), device)
    if isinstance(obj, (builtins.bool, int, float, complex)) or isinstance(obj, (list, tuple)):
        if isinstance(obj, (list, tuple)) and plain_scalars_only(obj):  # (SCIPY hook) no per-element walk
            return from_host(host_array(obj, _dtype_or(dtype, None), _infer_dtype), device)
        obj = _check_nested(obj)
        target = _dtype_or(dtype, None) or _nested_dtype(obj)
        return from_host(_host_of(obj, target), device)
    if hasattr(obj, "__buffer__") or isinstance(obj, (bytes, bytearray, memoryview)):
        host = np.asarray(memoryview(obj))
        return from_host(host.astype(dt.as_dtype(dtype).np) if dtype is not None else host.copy(), device)
    raise TypeError(f"asarray: Unsupported object {obj!r:.40} of type {type(obj).__name__}: expected a "
                    "Python scalar, a nested sequence of them, a buffer, or an array")


def numpy_array_leaf(obj, device, dtype=None):
    """A leaf holding a copy of numpy's array of `obj` (an ndarray, or anything with
    `__array__`), cast to `dtype` when given: a host copy for an ndarray of at least one axis
    on one CPU device (`_host_copy_leaf`), else `_host_data.numpy_leaf`'s device leaf."""
    if type(obj) is np.ndarray and obj.ndim and device.platform == "cpu" and device.mesh is None:
        return _host_copy_leaf(obj, dtype)
    return numpy_leaf(obj, device, dtype)


def _host_copy_leaf(obj, dtype):
    """A host leaf holding a private C-ordered copy of a numpy array (cast to `dtype` if given),
    for a single CPU device. Not a device copy: the interpreter tier reads the host value as it
    is, and read back at once (`np.asarray(xp.asarray(a))`) it is handed out without a copy
    (`_engine.host_view`); a program that takes it as input sends it to the device once
    (`_run_program.input_buffer`). A device put costs ~7-10 us of thread CPU on 300x8 float64
    against ~1-2 us for the host copy, and reading a fresh device buffer back ~5-20 us more."""
    host = normalized(obj, dtype)
    if host is obj or host.base is not None:  # (not a fresh array of its own: cast, swapped, reordered)
        host = _runtime.private_copy(host)  # (a large one at an address a device buffer can adopt)
    return leaf_from_host(host, host.shape, dt.from_numpy(host.dtype))


def _nested_dtype(obj):
    """The dtype of a nested sequence: the standard's defaults for Python scalars; where numpy
    scalars (or 0-D arrays) are among them, numpy's inference, as numpy, PyTorch, JAX and CuPy
    keep `[np.int32(1), ...]` int32 (an extension; SciPy's tests build such lists)."""
    if _holds_numpy_scalars(obj):
        inferred = np.asarray(obj).dtype
        if inferred in dt.NUMPY_DTYPES:
            return dt.from_numpy(inferred)
    return _infer_dtype(obj)


def _holds_numpy_scalars(obj):
    if isinstance(obj, list):
        return builtins.any(_holds_numpy_scalars(o) for o in obj)
    return isinstance(obj, np.generic)


def _check_nested(obj):
    """Nested sequences hold Python or numpy scalars; 0-D arrays are read (a sync) as their
    scalar, a numpy scalar of their dtype."""
    if isinstance(obj, (list, tuple)):
        return [_check_nested(o) for o in obj]
    if isinstance(obj, Array):
        if obj.ndim != 0:
            raise TypeError("asarray of a sequence holding arrays of dimension > 0: use stack()")
        return obj._value("asarray")[()]
    if isinstance(obj, np.generic) and obj.dtype in dt.NUMPY_DTYPES:
        return obj
    if not isinstance(obj, (builtins.bool, int, float, complex)):
        raise TypeError(f"asarray: a nested sequence may hold only Python scalars, got "
                        f"{type(obj).__name__}")
    return obj


@placed()
def full(shape: Shape, fill_value: Scalar | Array, *, dtype: DType | None = None,
         device: DeviceLike | None = None) -> Array:
    shape = _shape(shape)
    device = check_device(device)
    if isinstance(fill_value, (np.generic, np.ndarray)) and np.ndim(fill_value) == 0:
        fill_value = fill_value.item()  # numpy scalars act as the Python scalar of their kind
    if isinstance(fill_value, Array):
        return _full_from_array(shape, fill_value, dtype, device)
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    dtype = dt.as_dtype(dtype)
    if isinstance(fill_value, complex) and dtype.kind != "c":
        raise TypeError(f"full: complex fill_value with dtype {dtype}")
    if isinstance(fill_value, float) and dtype.kind in "biu":
        raise TypeError(f"full: float fill_value with dtype {dtype}")
    return Array._wrap(ops.scalar(fill_value, dtype, shape), device)


def _full_from_array(shape, fill, dtype, device):
    """An extension: a 0-D array as fill_value (numpy, PyTorch, JAX and CuPy accept it; SciPy's
    optimize/differentiate/integrate pass one). Lazy: the fill's node is broadcast, never read.
    Its dtype is the default when none is given, else it is cast (as numpy casts)."""
    if fill.ndim != 0:
        raise ValueError(f"full: fill_value must be a scalar or a 0-D array, got shape {fill.shape}")
    dtype = fill.dtype if dtype is None else dt.as_dtype(dtype)
    if fill.dtype.kind == "c" and dtype.kind != "c":
        raise TypeError(f"full: complex fill_value with dtype {dtype}")
    node = fill._node if fill.dtype is dtype else ops.convert(fill._node, dtype)
    return Array._wrap(ops.broadcast_in_dim(node, shape, ()), device)


def _filled(value, shape, dtype, device):
    return Array._wrap(ops.constant(value, dtype, _shape(shape)), check_device(device))


@placed()
def zeros(shape: Shape, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    return _filled(0, shape, _dtype_or(dtype, dt.DEFAULT_FLOAT), device)


@placed()
def ones(shape: Shape, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    return _filled(1, shape, _dtype_or(dtype, dt.DEFAULT_FLOAT), device)


@placed()
def empty(shape: Shape, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    return _filled(0, shape, _dtype_or(dtype, dt.DEFAULT_FLOAT), device)  # (zeros', inside one `placed`)


def _like(x, dtype, device):
    if not isinstance(x, Array):
        raise TypeError(f"expected a lazyarray array, got {type(x).__name__}")
    return x.shape, _dtype_or(dtype, x.dtype), (x.device if device is None else device)


@placed(like=True)
def zeros_like(x: Array, /, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    shape, dtype, device = _like(x, dtype, device)
    return zeros(shape, dtype=dtype, device=device)


@placed(like=True)
def ones_like(x: Array, /, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    shape, dtype, device = _like(x, dtype, device)
    return ones(shape, dtype=dtype, device=device)


@placed(like=True)
def empty_like(x: Array, /, *, dtype: DType | None = None, device: DeviceLike | None = None) -> Array:
    shape, dtype, device = _like(x, dtype, device)
    return empty(shape, dtype=dtype, device=device)


@placed(like=True)
def full_like(x: Array, /, fill_value: Scalar | Array, *, dtype: DType | None = None,
              device: DeviceLike | None = None) -> Array:
    shape, dtype, device = _like(x, dtype, device)
    return full(shape, fill_value, dtype=dtype, device=device)


@placed()
def arange(start: int | float | Array, /, stop: int | float | Array | None = None,
           step: int | float | Array = 1, *, dtype: DType | None = None,
           device: DeviceLike | None = None) -> Array:
    # An extension: 0-D arrays as bounds (numpy, PyTorch, JAX and CuPy accept them). The length
    # depends on their values, so they are read (a sync).
    start, stop, step = (_scalar_of(v, "arange") for v in (start, stop, step))
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if isinstance(v, (builtins.bool, complex, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"arange: expected real Python scalars, got {v!r}")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    floats = any(isinstance(v, (float, np.floating)) for v in (start, stop, step))
    dtype = _dtype_or(dtype, dt.DEFAULT_FLOAT if floats else dt.DEFAULT_INT)
    if dtype.kind not in "iufc":  # complex: numpy's, JAX's and CuPy's real values (an extension)
        raise TypeError(f"arange: dtype must be a numeric dtype, got {dtype}")
    if floats:
        n = max(0, math.ceil((stop - start) / step))
    else:
        n = max(0, -((start - stop) // step))  # exact ceil((stop - start) / step) for big ints
    device = check_device(device)
    if n == 0:
        return Array._wrap(ops.constant(0, dtype, (0,)), device)
    # start + i * step: integers count in 64 bits (a negative step need not fit uint8), floats
    # in the output dtype (as numpy)
    if dtype.kind == "c":
        work = dt.float64 if dtype is dt.complex128 else dt.float32
    else:
        work = dtype if dtype.kind == "f" else (dt.uint64 if dtype is dt.uint64 and step > 0 else dt.int64)
    idx = ops.iota((n,), 0, work)
    if not (start == 0 and step == 1):
        idx = ops.MULTIPLY(idx, ops.scalar(step, work))
        idx = ops.ADD(idx, ops.scalar(start, work))
    return Array._wrap(ops.convert(idx, dtype), device)


def _scalar_of(v, fname):
    """A 0-D array (ours or numpy's) as the Python scalar of its value (ours: a sync)."""
    if isinstance(v, Array):
        if v.ndim != 0:
            raise TypeError(f"{fname}: expected a Python scalar or a 0-D array, got shape {v.shape}")
        v = v._value(fname)
    if isinstance(v, (np.generic, np.ndarray)) and np.ndim(v) == 0 and v.dtype.kind in "biufc":
        return v.item()
    return v


def _bound_node(v, dtype, shape):
    """linspace's start or stop (a Python scalar or a 0-D array, kept lazy) as a node of shape."""
    if isinstance(v, Array):
        if v.ndim != 0:
            raise ValueError(f"linspace: start and stop must be scalars or 0-D arrays, got shape {v.shape}")
        if v.dtype.kind == "c" and dtype.kind != "c":
            raise TypeError(f"linspace: complex bound with dtype {dtype}")
        return ops.broadcast_in_dim(ops.convert(v._node, dtype), shape, ())
    if isinstance(v, complex) and dtype.kind != "c":
        raise TypeError(f"linspace: complex bound with dtype {dtype}")
    return ops.scalar(v, dtype, shape)


@placed()
def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: DType | None = None, device: DeviceLike | None = None,
             endpoint: bool = True) -> Array:
    num = operator.index(num)
    if num < 0:
        raise ValueError("linspace: num must be non-negative")
    start, stop = (_scalar_of(v, "linspace") if isinstance(v, (np.generic, np.ndarray)) else v
                   for v in (start, stop))
    is_complex = builtins.any(isinstance(v, complex) or (isinstance(v, Array) and v.dtype.kind == "c")
                              for v in (start, stop))
    if dtype is None:
        dtype = dt.DEFAULT_COMPLEX if is_complex else dt.DEFAULT_FLOAT
    dtype = dt.as_dtype(dtype)
    if dtype.kind in "iu":
        # An extension (numpy, PyTorch, JAX and CuPy accept it), computed by numpy on the host:
        # floor(start + i * step) in float64 with numpy's two roundings. On the device XLA may
        # fuse i * step + start into one FMA, and the floor turns that last bit into a whole 1.
        start, stop = (_scalar_of(v, "linspace") for v in (start, stop))
        host = np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype.np)
        return from_host(host, check_device(device))
    if dtype.kind not in "fc":
        raise TypeError(f"linspace: dtype must be numeric, got {dtype}")
    device = check_device(device)
    if num == 0:
        return Array._wrap(ops.constant(0, dtype, (0,)), device)
    div = (num - 1) if endpoint else num
    shape = (num,)
    i = ops.iota(shape, 0, dtype)
    s = _bound_node(start, dtype, shape)
    e = _bound_node(stop, dtype, shape)
    if div == 0:
        return Array._wrap(s, device)
    d = ops.scalar(div, dtype)
    # start + i * ((stop - start) / div), with the last point exactly stop when endpoint
    delta = ops.DIVIDE(ops.SUBTRACT(e, s), d)
    out = ops.ADD(s, ops.MULTIPLY(i, delta))
    if endpoint and num > 1:
        last = ops.compare(i, ops.scalar(num - 1, dtype), "EQ")
        out = ops.select(last, e, out)
    return Array._wrap(out, device)


@placed()
def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: DType | None = None,
        device: DeviceLike | None = None) -> Array:
    n_cols = n_rows if n_cols is None else n_cols
    shape = _shape((n_rows, n_cols))
    dtype = _dtype_or(dtype, dt.DEFAULT_FLOAT)
    k = max(-shape[0], min(shape[1], operator.index(k)))  # beyond the matrix: all zeros
    # compare(iota(shape, 0) + k, iota(shape, 1), EQ): the nodes `ops.iota`, `ops.scalar`, `ops.ADD`
    # and `ops.compare` bind, bound at once with the iotas' attributes kept per shape (their rules
    # hold: int64 iotas of `shape`, a 0-D int64 leaf beside them, a bool comparison of two
    # int64 operands of `shape`); scikit-learn's GaussianMixture calls eye(n_features) ~80 times a fit
    rows, cols = _memo(_eye_iotas, (shape,), _iota_pair)
    r = _bind(_IOTA, (), rows, shape, _I64)
    c = _bind(_IOTA, (), cols, shape, _I64)
    t = _bind_pair(ops.ADD, r, leaf_from_host(k, (), _I64), (), shape, _I64)
    diag = _bind_pair(ops.COMPARE, t, c, _EQ, shape, dt.bool)
    return Array._wrap(ops.convert(diag, dtype), check_device(device))


def _iota_pair(shape):
    return ops.IOTA.Attrs(shape, 0, dt.int64), ops.IOTA.Attrs(shape, 1, dt.int64)


_eye_iotas = {}  # (shape,) -> the attributes of its two int64 iotas (`core.memo`, bounded)
_IOTA = ops.IOTA
_I64 = dt.int64
_EQ = ops.COMPARE.Attrs("EQ")


@placed()
def from_dlpack(x: Any, /, *, device: DeviceLike | None = None, copy: bool | None = None) -> Array:
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack needs an object with __dlpack__, got {type(x).__name__}")
    target = check_device(device if device is not None else _producer_device(x))
    if isinstance(x, Array) and x.device == target:
        return Array._wrap(x._node, target)  # computed nodes never change: sharing is a copy
    if copy is False and target.platform != "cpu":
        raise BufferError(f"from_dlpack(copy=False): cannot alias host memory on {target}")
    host = np.from_dlpack(x, copy=copy)
    dtype = dt.from_numpy(host.dtype)
    if copy is False:
        # No copy: the leaf aliases the producer's memory until a program first reads it.
        return Array._wrap(leaf_from_host(host, tuple(host.shape), dtype), target)
    return from_host(np.array(host, copy=True), target)


def _producer_device(x):
    """The producer's device when it is a CPU (kDLCPU); None (the default device) otherwise."""
    try:
        kind, _ = x.__dlpack_device__()
    except (AttributeError, TypeError, ValueError, BufferError):
        return None
    return "cpu" if int(kind) == 1 else None


def meshgrid(*arrays: Array, indexing: Literal["xy", "ij"] = "xy") -> tuple[Array, ...]:
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for a in arrays:
        if not isinstance(a, Array) or a.ndim != 1:
            raise ValueError("meshgrid: every input must be a 1-D array")
    if len({a.dtype for a in arrays}) > 1:
        raise TypeError("meshgrid: inputs must share one dtype")
    n = len(arrays)
    sizes = [a.shape[0] for a in arrays]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, a in enumerate(arrays):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        shape = [1] * n
        shape[pos] = a.shape[0]
        grid = ops.broadcast_to(ops.reshape(a._node, tuple(shape)), tuple(sizes))
        out.append(Array._wrap(grid, a.device))  # copies, as numpy's meshgrid (copy=True)
    return tuple(out)


def _tri(x, k, lower):
    if not isinstance(x, Array) or x.ndim < 2:
        raise ValueError("tril/triu need an array of at least 2 dimensions")
    shape = x.shape
    k = max(-shape[-2], min(shape[-1], k))
    r = ops.iota(shape, x.ndim - 2, dt.int64)
    c = ops.iota(shape, x.ndim - 1, dt.int64)
    rk = ops.ADD(r, ops.scalar(k, dt.int64))
    keep = ops.compare(c, rk, "LE" if lower else "GE")
    return Array._wrap(ops.select(keep, x._node, ops.constant(0, x.dtype)), x.device)


def tril(x: Array, /, *, k: int = 0) -> Array:
    return _tri(x, operator.index(k), True)


def triu(x: Array, /, *, k: int = 0) -> Array:
    return _tri(x, operator.index(k), False)


@placed()
def logspace(start: int | float, stop: int | float, /, num: int = 50, *, endpoint: bool = True,
             base: float = 10.0, dtype: DType | None = None,
             device: DeviceLike | None = None) -> Array:
    """An extension (numpy, PyTorch, JAX and CuPy have it; SciPy's tests call it): `base **
    linspace(start, stop, num)`, numpy's definition. An integer dtype truncates, as numpy's."""
    target = None if dtype is None else dt.as_dtype(dtype)
    work = target if target is not None and target.kind in "fc" else None
    y = linspace(start, stop, num, dtype=work, device=device, endpoint=endpoint)
    if isinstance(base, (Array, np.generic, np.ndarray)) and np.ndim(base) != 0:
        raise TypeError("logspace: base must be a scalar (numpy's array-valued base is not supported)")
    out = _ELEMENTWISE["pow"](_scalar_of(base, "logspace") if not isinstance(base, Array) else base, y)
    if target is not None and out.dtype is not target:
        out = Array._wrap(ops.convert(out._node, target), out.device)
    return out


def diag(v: Array, /, k: int = 0) -> Array:
    """An extension (numpy, PyTorch, JAX and CuPy all have it; SciPy's RBFInterpolator calls it):
    a 1-D `v` gives the square matrix with `v` on its k-th diagonal (a new array); a 2-D `v`
    gives its k-th diagonal as a read-only view, as numpy's."""
    if not isinstance(v, Array):
        raise TypeError(f"diag: expected an array, got {type(v).__name__}")
    k = operator.index(k)
    if v.ndim == 2:
        return make_view(v, _views.diagonal(k, "diag"))
    if v.ndim != 1:
        raise ValueError(f"diag: expected a 1-D or 2-D array, got shape {v.shape}")
    m = v.shape[0] + abs(k)
    # v[r] at (r, r + k) for k >= 0, v[c] at (c - k, c) for k < 0: pad v to m, broadcast, mask
    padded = ops.pad(v._node, ops.scalar(0, v.dtype), (0,), (abs(k),))
    wide = ops.broadcast_in_dim(padded, (m, m), (0,) if k >= 0 else (1,))
    r, c = ops.iota((m, m), 0, dt.int64), ops.iota((m, m), 1, dt.int64)
    on = ops.compare(ops.ADD(r, ops.constant(k, dt.int64)), c, "EQ")
    return Array._wrap(ops.select(on, wide, ops.constant(0, v.dtype)), v.device)
