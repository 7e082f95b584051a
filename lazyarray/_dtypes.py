"""Data types of the standard, their StableHLO spellings, and the type-promotion table."""
from __future__ import annotations

import numpy as np


class DType:
    """One dtype of the standard. Instances are singletons compared by identity."""

    __slots__ = ("name", "np", "mlir", "kind", "bits", "__weakref__")

    def __init__(self, name, np_dtype, mlir, kind, bits):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.mlir = mlir  # element type as StableHLO spells it
        self.kind = kind  # 'b' bool, 'i' signed, 'u' unsigned, 'f' real float, 'c' complex
        self.bits = bits

    @property
    def dtype(self):
        """The numpy dtype: lets numpy read ours (np.dtype(xp.float64), np.zeros(n, dtype=xp.int8))."""
        return self.np

    def __repr__(self):
        return f"lazyarray.{self.name}"

    __str__ = __repr__

    # Equality and hashing are object identity (the default, at C speed: dtype membership
    # tests sit on every op's tracing path); a numpy dtype or a name never equals a DType.

    def __reduce__(self):
        return (_by_name, (self.name,))


bool = DType("bool", np.bool_, "i1", "b", 8)
int8 = DType("int8", np.int8, "i8", "i", 8)
int16 = DType("int16", np.int16, "i16", "i", 16)
int32 = DType("int32", np.int32, "i32", "i", 32)
int64 = DType("int64", np.int64, "i64", "i", 64)
uint8 = DType("uint8", np.uint8, "ui8", "u", 8)
uint16 = DType("uint16", np.uint16, "ui16", "u", 16)
uint32 = DType("uint32", np.uint32, "ui32", "u", 32)
uint64 = DType("uint64", np.uint64, "ui64", "u", 64)
float16 = DType("float16", np.float16, "f16", "f", 16)  # an extension: see STANDARD
float32 = DType("float32", np.float32, "f32", "f", 32)
float64 = DType("float64", np.float64, "f64", "f", 64)
complex64 = DType("complex64", np.complex64, "complex<f32>", "c", 64)
complex128 = DType("complex128", np.complex128, "complex<f64>", "c", 128)

# The standard's dtypes: what `__array_namespace_info__().dtypes()` lists. float16 is an
# extension (numpy, PyTorch, JAX and CuPy have it, and SciPy's and scikit-learn's code takes it
# where a namespace has it): it computes, promotes as numpy's does and passes `isdtype`'s
# "real floating", but is not listed as supported, as array-api-compat's numpy does not list it.
STANDARD = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
            float32, float64, complex64, complex128)
ALL = STANDARD + (float16,)
_BY_NAME = {d.name: d for d in ALL}
_BY_NP = {d.np: d for d in ALL}
NUMPY_DTYPES = frozenset(_BY_NP)
# The DType of a numpy dtype (an instance: `a.dtype`), None for one the standard lacks or one in
# swapped byte order (`np.dtype('>f8')` is not float64's key): one dict lookup, for hot paths.
native_of = _BY_NP.get


def _by_name(name):
    return _BY_NAME[name]


def from_numpy(npdt) -> DType:
    """The DType for a numpy dtype; TypeError for one the standard does not have."""
    try:
        return _BY_NP[np.dtype(npdt)]
    except (KeyError, TypeError):
        raise TypeError(f"dtype {npdt!r} is not an Array API dtype") from None


def as_dtype(dt) -> DType:
    """Accept our DType, a numpy dtype or type, or a dtype name."""
    if isinstance(dt, DType):
        return dt
    if isinstance(dt, str) and dt in _BY_NAME:
        return _BY_NAME[dt]
    try:
        return from_numpy(dt)
    except TypeError:
        raise TypeError(f"expected a dtype of this namespace, got {dt!r}") from None


# Categories, as the standard names them for isdtype and for argument checks.
CATEGORIES = {
    "bool": frozenset({bool}),
    "signed integer": frozenset({int8, int16, int32, int64}),
    "unsigned integer": frozenset({uint8, uint16, uint32, uint64}),
    "integral": frozenset({int8, int16, int32, int64, uint8, uint16, uint32, uint64}),
    "real floating": frozenset({float16, float32, float64}),
    "complex floating": frozenset({complex64, complex128}),
    "numeric": frozenset(ALL) - {bool},
}
CATEGORIES["integer"] = CATEGORIES["integral"]
CATEGORIES["floating"] = CATEGORIES["real floating"] | CATEGORIES["complex floating"]
CATEGORIES["real numeric"] = CATEGORIES["numeric"] - CATEGORIES["complex floating"]
CATEGORIES["integer or boolean"] = CATEGORIES["integral"] | {bool}
CATEGORIES["any"] = frozenset(ALL)

_REAL_OF = {complex64: float32, complex128: float64}
_COMPLEX_OF = {float16: complex64, float32: complex64, float64: complex128}


def signed_of_bits(bits):
    """The signed integer dtype of a width: a float's bits reinterpreted (bitcast)."""
    return {8: int8, 16: int16, 32: int32, 64: int64}[bits]


def real_of(dt):
    """The real dtype with the precision of a complex one (identity for real dtypes)."""
    return _REAL_OF.get(dt, dt)


def complex_of(dt):
    return _COMPLEX_OF.get(dt, dt)


def _promote(a: DType, b: DType):
    if a is b:
        return a
    ka, kb = a.kind, b.kind
    if ka == kb:
        return a if a.bits >= b.bits else b
    order = "biufc"
    if order.index(ka) > order.index(kb):
        a, b, ka, kb = b, a, kb, ka
    # now ka < kb in b, i, u, f, c
    if ka == "b":
        return b  # bool with a number: the number (numpy does this; the standard leaves it open)
    if ka == "i" and kb == "u":
        need = max(a.bits, 2 * b.bits)
        if need > 64:
            return None  # int* with uint64 has no integer that holds both
        return {8: int8, 16: int16, 32: int32, 64: int64}[need]
    # integer with float or complex: numpy's (and CuPy's) result, wide enough for the integer's
    # values: 8- and 16-bit integers keep a 32-bit float, wider ones need float64 (the standard
    # leaves mixed kinds undefined; JAX and PyTorch keep the float's width instead)
    # (float16 holds 8-bit integers, float32 16-bit ones)
    need = {8: 16, 16: 32, 32: 64, 64: 64}[a.bits] if ka in "iu" else a.bits
    if kb == "f":
        return b if b.bits >= need else {32: float32, 64: float64}[need]
    if kb == "c":
        return complex128 if max(need, b.bits // 2) == 64 else complex64
    return None
    return None


PROMOTION = {(a, b): _promote(a, b) for a in ALL for b in ALL}


def result_type_pair(a: DType, b: DType) -> DType:
    r = PROMOTION[(a, b)]
    if r is None:
        raise TypeError(f"no promotion rule for {a} and {b}: cast one operand explicitly")
    return r


def scalar_dtype_for(value, dt: DType) -> DType:
    """The dtype a Python scalar takes next to an array of dtype dt (the standard's scalar rules)."""
    t = type(value)
    if t is builtins_bool or isinstance(value, np.bool_):
        if dt is bool or dt.kind in "iufc":
            return dt
    elif t is int or isinstance(value, np.integer):
        if dt is bool:
            return int64
        return dt
    elif t is float or isinstance(value, np.floating):
        if dt.kind in "fc":
            return dt
        return float64  # float scalar with an integer array: default float, as numpy does
    elif t is complex or isinstance(value, np.complexfloating):
        if dt.kind == "c":
            return dt
        if dt is float32 or dt is float16:
            return complex64
        return complex128
    raise TypeError(f"expected an array or a Python scalar, got {type(value).__name__}")


import builtins as _b  # noqa: E402

builtins_bool = _b.bool

DEFAULT_INT = int64
DEFAULT_FLOAT = float64
DEFAULT_COMPLEX = complex128
DEFAULT_INDEX = int64
