"""numpy's ufuncs on our arrays (`np.exp(x)`, `scipy.special.erf(x)`) return our arrays.

This is what CuPy and Dask do (`Array.__array_ufunc__`), and what array-api-extra's tests expect
of a library that is not numpy. A ufunc whose meaning is one of our namespace functions
(`_SAME`: `np.exp` is `exp`, `np.add` is `add`, ...) becomes that function, lazily, on the
inputs' device. Everything else is computed by numpy on host copies of the inputs and its array
results come back as our arrays on the first input's device (a sync, as `np.asarray(x)` is):
ufuncs we have no function for (SciPy's special functions are Cython ufuncs), methods other than
a plain call (`np.add.reduce(x)`), calls with keyword arguments (`out=`, `where=`, `dtype=`),
and mixed-kind arguments numpy promotes and the standard does not (`int32` with `float32`).
`out=` may name our arrays: the result is written into them, as numpy writes into its own.
"""
from __future__ import annotations

import numpy as np

from ._array_methods import numpy_operand
from ._array_object import Array
from ._creation_functions import asarray
from ._elementwise_functions import FUNCTIONS as _ELEMENTWISE
from ._linear_algebra_functions import matmul

# numpy's ufunc name -> our function, where the two agree on values and result dtypes.
# (`rint` is left to numpy: it returns float64 for integers, `round` keeps the integer dtype.)
_RENAMED = {
    "power": "pow", "absolute": "abs", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "arctan2": "atan2", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
    "invert": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "conjugate": "conj",
}
_SAME = {name: _ELEMENTWISE[name] for name in (
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "negative", "positive",
    "sign", "sqrt", "square", "exp", "expm1", "log", "log1p", "log2", "log10", "logaddexp",
    "sin", "cos", "tan", "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "isnan", "isinf", "isfinite",
    "maximum", "minimum", "hypot", "copysign", "nextafter", "signbit", "reciprocal")
    if name in _ELEMENTWISE}
_SAME.update({np_name: _ELEMENTWISE[ours] for np_name, ours in _RENAMED.items() if ours in _ELEMENTWISE})
_SAME["matmul"] = matmul


def _lazy_argument(v, like):
    """An argument our function takes: numpy scalars and numeric arrays as the operators take
    them (`_array_methods.numpy_operand`), everything else as it is."""
    if isinstance(v, (np.generic, np.ndarray)):
        v = numpy_operand(v, like)
        if v is NotImplemented:
            raise TypeError("not a numeric numpy value")  # numpy computes the call
    return v


def _one_kind(inputs):
    """Whether the array arguments share one dtype kind (numpy promotes across kinds, by its
    own rules: those calls are numpy's)."""
    kinds = {v.dtype.np.kind if isinstance(v, Array) else v.dtype.kind
             for v in inputs if isinstance(v, (Array, np.ndarray))}
    return len(kinds) <= 1


def _to_host(v):
    return np.asarray(v) if isinstance(v, Array) else v


def _ours(result, device):
    """numpy's result as our arrays (tuples element by element); other objects unchanged."""
    if isinstance(result, tuple):
        return tuple(_ours(r, device) for r in result)
    if isinstance(result, (np.ndarray, np.generic)) and result.dtype.kind != "O":
        return asarray(result, device=device)
    return result


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """`Array.__array_ufunc__`: see the module docstring."""
    device = self.device  # (self is one of the inputs or outputs)
    fn = _SAME.get(ufunc.__name__) if method == "__call__" and not kwargs else None
    if fn is not None and ufunc is getattr(np, ufunc.__name__, None) and _one_kind(inputs):
        try:
            return fn(*(_lazy_argument(v, self) for v in inputs))
        except TypeError:
            pass  # a promotion numpy does and the standard does not: numpy computes it
    out = kwargs.pop("out", None)
    ours_out = out is not None and any(isinstance(o, Array) for o in out)
    if out is not None and not ours_out:
        kwargs["out"] = out
    result = getattr(ufunc, method)(*(_to_host(v) for v in inputs), **kwargs)
    if not ours_out:
        return result if out is not None else _ours(result, device)
    results = result if isinstance(result, tuple) else (result,)
    for target, value in zip(out, results):
        if isinstance(target, Array):
            target[...] = asarray(value, dtype=target.dtype, device=target.device)
        else:
            np.copyto(target, value)
    return out if len(out) > 1 else out[0]


Array.__array_ufunc__ = array_ufunc
