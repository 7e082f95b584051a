"""Data type functions of the standard: astype, can_cast, finfo, iinfo, isdtype, result_type."""
from __future__ import annotations

import builtins
from dataclasses import dataclass

import numpy as np

from . import _dtypes as dt
from . import _ops as ops
from ._array_object import Array
from ._helpers import check_array
from ._typing import DeviceLike, DType, DTypeKind


def astype(x: Array, dtype: DType, /, *, copy: bool = True, device: DeviceLike | None = None) -> Array:
    check_array(x)
    dtype = dt.as_dtype(dtype)
    node = x._node  # (read once: a view's node property checks its base)
    if node.dtype.kind == "c" and dtype.kind not in "cb":
        # the standard asks consumers to say which part they mean (real(x) or imag(x))
        raise TypeError(f"astype: cannot cast {node.dtype} to {dtype}; cast real(x) or imag(x)")
    # float -> integer saturates at the integer's range and sends NaN to 0 (XLA's convert;
    # the standard leaves out-of-range values unspecified)
    out = x
    if dtype is not node.dtype:
        out = Array._wrap(ops.convert(node, dtype), x._device)
    elif copy:
        out = Array._wrap(node, x._device)
    if device is not None:
        out = out.to_device(device)
    return out


def can_cast(from_: DType | Array, to: DType, /) -> bool:
    if isinstance(from_, Array):
        from_ = from_.dtype
    from_, to = dt.as_dtype(from_), dt.as_dtype(to)
    if from_ is to:
        return True
    promoted = dt.PROMOTION[(from_, to)]
    if promoted is not to:
        return False
    # only within the standard's promotion lattice (no mixed kinds, no bool -> number)
    return from_.kind == to.kind or (from_.kind in "iu" and to.kind in "iu") or (from_.kind == "f" and to.kind == "c")


@dataclass(frozen=True)
class finfo_object:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: dt.DType


@dataclass(frozen=True)
class iinfo_object:
    bits: int
    max: int
    min: int
    dtype: dt.DType


def finfo(type: DType | Array, /) -> finfo_object:
    d = type.dtype if isinstance(type, Array) else dt.as_dtype(type)
    out = _finfos.get(d)
    if out is None:
        if d.kind not in "fc":
            raise ValueError(f"finfo needs a floating dtype, got {d}")
        real = dt.real_of(d)
        f = np.finfo(real.np)
        out = _finfos[d] = finfo_object(real.bits, float(f.eps), float(f.max), float(f.min),
                                        float(f.smallest_normal), real)
    return out


def iinfo(type: DType | Array, /) -> iinfo_object:
    d = type.dtype if isinstance(type, Array) else dt.as_dtype(type)
    out = _iinfos.get(d)
    if out is None:
        if d.kind not in "iu":
            raise ValueError(f"iinfo needs an integer dtype, got {d}")
        i = np.iinfo(d.np)
        out = _iinfos[d] = iinfo_object(d.bits, int(i.max), int(i.min), d)
    return out


# DType -> its finfo / iinfo object, made at the first call (frozen dataclasses: one object per
# dtype serves every caller; at most one entry per dtype). SciPy's table asks finfo ~55 times a
# pass, ~4.6 us each in the pass without the table (numpy's finfo lookup and the conversions).
_finfos = {}
_iinfos = {}


_KINDS = {"bool", "signed integer", "unsigned integer", "integral", "real floating",
          "complex floating", "numeric"}


def _numpy_dtype(d):
    """A numpy dtype (or numpy scalar type) as ours, else None. An extension: numpy, PyTorch,
    JAX and CuPy's isdtype accept numpy dtypes, and SciPy passes them."""
    if isinstance(d, np.dtype) or (isinstance(d, type) and issubclass(d, np.generic)):
        try:
            return dt.from_numpy(d)
        except TypeError:
            return None
    return None


def isdtype(dtype: DType, kind: DTypeKind) -> bool:
    if not isinstance(dtype, dt.DType):
        ours = _numpy_dtype(dtype)
        if ours is None:
            if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
                return False  # a numpy dtype the standard does not have (float16, str_, ...)
            raise TypeError(f"isdtype: expected a dtype, got {dtype!r}")
        dtype = ours
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if not isinstance(kind, (dt.DType, str)) and _numpy_dtype(kind) is not None:
        kind = _numpy_dtype(kind)
    if isinstance(kind, dt.DType):
        return dtype is kind
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {kind!r}; expected one of {sorted(_KINDS)}")
        return dtype in dt.CATEGORIES[kind]
    raise TypeError(f"isdtype: kind must be a dtype, a string or a tuple, got {kind!r}")


def result_type(*arrays_and_dtypes: Array | DType | bool | int | float | complex) -> DType:
    dtypes, scalars = [], []
    for a in arrays_and_dtypes:
        if isinstance(a, Array):
            dtypes.append(a.dtype)
        elif isinstance(a, (builtins.bool, int, float, complex)):
            scalars.append(a)
        else:
            dtypes.append(dt.as_dtype(a))
    if not dtypes:
        if not scalars:
            raise ValueError("result_type needs at least one array or dtype")
        raise ValueError("result_type needs at least one array or dtype besides Python scalars")
    out = dtypes[0]
    for d in dtypes[1:]:
        out = dt.result_type_pair(out, d)
    for s in scalars:
        out = dt.scalar_dtype_for(s, out)
    return out
