"""The reference: array-api-strict (numpy underneath, the standard's rules enforced), adjusted
where it departs from what the fuzzer compares against.

- Aliasing: lazyarray follows numpy's views for the functions in VIEW_FUNCTIONS (and basic
  indexing). array-api-strict also returns some arguments themselves where numpy makes a new
  array (floor of an integer array is x itself, unstack of a 1-D array gives views where numpy
  gives scalars), so any other result that shares memory with an argument is copied.
- floor_divide of a finite nonzero x by an infinity: numpy floors to 0 or -1 (Python's rule);
  the standard's special cases say a zero with the sign of the quotient (lazyarray follows the
  standard). StdArray and the floor_divide wrapper apply the standard's rule.
"""
from __future__ import annotations

import numpy as np

import array_api_strict as ref_xp
from array_api_strict._array_object import Array as RefArray


def _std_floor_divide(q, a, b):
    """q = numpy's a // b, corrected in place to the standard's x / +-inf special cases."""
    q_np = q._array
    if q_np.dtype.kind != "f":
        return q
    a = np.asarray(a._array if isinstance(a, RefArray) else a, dtype=q_np.dtype)
    b = np.asarray(b._array if isinstance(b, RefArray) else b, dtype=q_np.dtype)
    a, b = np.broadcast_arrays(a, b)
    m = np.isfinite(a) & (a != 0) & np.isinf(b)
    if np.any(m):
        signed_zero = np.where(np.signbit(a) != np.signbit(b), -0.0, 0.0).astype(q_np.dtype)
        q_np[...] = np.where(m, signed_zero, q_np)
    return q


class StdArray(RefArray):
    """array-api-strict's Array with the standard's floor_divide special cases."""

    __slots__ = ()

    def __floordiv__(self, other, /):
        res = super().__floordiv__(other)
        return res if res is NotImplemented else _std_floor_divide(_std(res), self, other)

    def __rfloordiv__(self, other, /):
        res = super().__rfloordiv__(other)
        return res if res is NotImplemented else _std_floor_divide(_std(res), other, self)

    def __ifloordiv__(self, other, /):
        before = self._array.copy()
        res = super().__ifloordiv__(other)
        return res if res is NotImplemented else _std_floor_divide(_std(res), before, other)


def _std(x):
    if isinstance(x, RefArray) and type(x) is not StdArray:
        x.__class__ = StdArray
    return x


# functions whose result aliases their argument (numpy's views, which lazyarray follows); any
# other reference result that shares memory with an argument is copied (RefNamespace), since
# array-api-strict returns some arguments themselves (floor of an integer array is x itself)
VIEW_FUNCTIONS = frozenset(("reshape", "permute_dims", "matrix_transpose", "expand_dims",
                            "squeeze", "flip", "unstack", "broadcast_to", "broadcast_arrays",
                            "moveaxis"))


class RefNamespace:
    """array-api-strict, with results that alias an argument copied unless the function is a
    view function (VIEW_FUNCTIONS): the reference then aliases exactly where lazyarray should."""

    def __init__(self, module=ref_xp, prefix=""):
        self._module = module
        self._prefix = prefix

    def __getattr__(self, name):
        obj = getattr(self._module, name)
        if name in ("linalg", "fft"):
            return RefNamespace(obj, name + ".")
        if name == "unstack":  # numpy's unstack of a 1-D array gives scalars (copies); strict's alias
            return lambda x, /, *, axis=0: tuple(
                _std(a) if x.ndim > 1 else _std(ref_xp.asarray(a, copy=True)) for a in obj(x, axis=axis))
        if not callable(obj) or isinstance(obj, type) or name.startswith("_"):
            return obj

        def call(*args, **kwargs):
            res = obj(*args, **kwargs)
            keep = () if name in VIEW_FUNCTIONS else [
                a._array for a in _arrays(args) + _arrays(list(kwargs.values()))]
            res = _unalias(res, keep)
            if name == "floor_divide":
                res = _std_floor_divide(res, *args)
            return res
        call.__name__ = name
        return call


def _arrays(seq):
    out = []
    for a in seq:
        if isinstance(a, RefArray):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(_arrays(a))
    return out


def _unalias(res, arrs):
    if isinstance(res, RefArray):
        if any(np.shares_memory(res._array, a) for a in arrs):
            return _std(ref_xp.asarray(res, copy=True))
        return _std(res)
    if isinstance(res, tuple) and not hasattr(res, "_fields"):
        return tuple(_unalias(r, arrs) for r in res)
    if isinstance(res, tuple):   # a named tuple (unique_counts ...)
        return type(res)(*(_unalias(r, arrs) for r in res))
    return res


REF = RefNamespace()
