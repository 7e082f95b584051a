"""lazyarray: the Python Array API standard, lazily, fused and compiled on XLA.

Every call checks its arguments, records a node of an expression graph and returns at once.
Values are computed when needed (bool(), float(), numpy conversion, repr, evaluate()): the
pending graph is lowered to StableHLO by our own emitter, compiled by XLA, cached by the graph's
structure, and run.
"""
from __future__ import annotations

__array_api_version__ = "2025.12"
SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

from typing import TYPE_CHECKING as _TYPE_CHECKING  # noqa: E402

from ._dtypes import (  # noqa: E402
    bool, complex64, complex128, float16, float32, float64, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64,
)
from ._array_object import Array  # noqa: E402
from ._creation_functions import (  # noqa: E402
    arange, asarray, diag, empty, empty_like, eye, from_dlpack, full, full_like, linspace, logspace,
    meshgrid, ones, ones_like, tril, triu, zeros, zeros_like,
)
from ._data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type  # noqa: E402
from ._elementwise_functions import FUNCTIONS as _ELEMENTWISE, clip  # noqa: E402
from ._linear_algebra_functions import matmul, tensordot, vecdot  # noqa: E402
from ._manipulation_functions import (  # noqa: E402
    broadcast_arrays, broadcast_to, concat, expand_dims, flip, matrix_transpose, moveaxis,
    permute_dims, repeat, reshape, roll, squeeze, stack, tile, unstack,
)
from ._sorting_functions import argsort, sort  # noqa: E402
from ._set_functions import (  # noqa: E402
    isin, unique_all, unique_counts, unique_inverse, unique_values,
)
from ._manipulation_functions import broadcast_shapes_ as broadcast_shapes  # noqa: E402
from ._statistical_functions import (  # noqa: E402
    cumulative_prod, cumulative_sum, max, mean, min, prod, std, sum, var,
)
from ._utility_functions import all, any, diff  # noqa: E402
from ._indexing_functions import take, take_along_axis  # noqa: E402
from ._searching_functions import (  # noqa: E402
    argmax, argmin, count_nonzero, nonzero, searchsorted, where,
)
from ._info import __array_namespace_info__  # noqa: E402
from ._devices import Device  # noqa: E402
from ._debug import evaluate, graph_dot, graph_text, report, stablehlo  # noqa: E402
from ._metrics import metrics  # noqa: E402
from . import _config as config  # noqa: E402
from ._engine import clear_cache  # noqa: E402
from . import fft  # noqa: E402
from . import linalg  # noqa: E402
from . import sharding  # noqa: E402  (Mesh, PartitionSpec, NamedSharding: lazyarray.sharding)

globals().update(_ELEMENTWISE)

if _TYPE_CHECKING:  # a static checker cannot run the line above: the same functions, by name
    from ._elementwise_functions import (  # noqa: F401
        abs, acos, acosh, asin, asinh, atan, atanh, bitwise_invert, ceil, conj, cos, cosh, exp,
        expm1, floor, imag, isfinite, isinf, isnan, log, log1p, log2, log10, logical_not,
        negative, positive, real, reciprocal, round, sign, signbit, sin, sinh, sqrt, square,
        tan, tanh, trunc, add, atan2, bitwise_and, bitwise_left_shift, bitwise_or,
        bitwise_right_shift, bitwise_xor, copysign, divide, equal, floor_divide, greater,
        greater_equal, hypot, less, less_equal, logaddexp, logical_and, logical_or, logical_xor,
        maximum, minimum, multiply, nextafter, not_equal, pow, remainder, subtract,
    )

# The public names (what `from lazyarray import *` gives, and what checkers such as pyright take as
# this py.typed package's exports); tests/test_annotations.py checks it against the module.
__all__ = [
    "__array_namespace_info__", "Array", "Device", "SUPPORTED_VERSIONS", "abs", "acos", "acosh",
    "add", "all", "any", "arange", "argmax", "argmin", "argsort", "asarray", "asin", "asinh",
    "astype", "atan", "atan2", "atanh", "bitwise_and", "bitwise_invert", "bitwise_left_shift",
    "bitwise_or", "bitwise_right_shift", "bitwise_xor", "bool", "broadcast_arrays",
    "broadcast_shapes", "broadcast_to", "can_cast", "ceil", "clear_cache", "clip", "complex128",
    "complex64", "concat", "config", "conj", "copysign", "cos", "cosh", "count_nonzero",
    "cumulative_prod", "cumulative_sum", "diag", "diff", "divide", "e", "empty", "empty_like",
    "equal", "evaluate", "exp", "expand_dims", "expm1", "eye", "fft", "finfo", "flip",
    "float16", "float32", "float64", "floor", "floor_divide", "from_dlpack", "full", "full_like",
    "graph_dot", "graph_text", "greater", "greater_equal", "hypot", "iinfo", "imag", "inf",
    "int16", "int32", "int64", "int8", "isdtype", "isfinite", "isin", "isinf", "isnan", "less",
    "less_equal", "linalg", "linspace", "log", "log10", "log1p", "log2", "logaddexp",
    "logical_and", "logical_not", "logical_or", "logical_xor", "logspace", "matmul",
    "matrix_transpose", "max", "maximum", "mean", "meshgrid", "metrics", "min", "minimum",
    "moveaxis", "multiply", "nan", "negative", "newaxis", "nextafter", "nonzero", "not_equal",
    "ones", "ones_like", "permute_dims", "pi", "positive", "pow", "prod", "real", "reciprocal",
    "remainder", "repeat", "report", "reshape", "result_type", "roll", "round", "searchsorted",
    "sharding", "sign", "signbit", "sin", "sinh", "sort", "sqrt", "square", "squeeze", "stablehlo", "stack",
    "std", "subtract", "sum", "take", "take_along_axis", "tan", "tanh", "tensordot", "tile",
    "tril", "triu", "trunc", "uint16", "uint32", "uint64", "uint8", "unique_all",
    "unique_counts", "unique_inverse", "unique_values", "unstack", "var", "vecdot", "where",
    "zeros", "zeros_like",
]

import math as _math  # noqa: E402
import sys as _sys  # noqa: E402

e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None
pi = _math.pi

from . import _array_methods  # noqa: E402,F401  (Array's operators and methods)
from . import _array_ufunc  # noqa: E402,F401  (numpy's ufuncs on our arrays)
from ._versions import array_namespace_method as _array_namespace_method  # noqa: E402

# x.__array_namespace__() is this module (or an earlier version's namespace built from it): the
# package, the top of the layers, installs the one method that names it
Array.__array_namespace__ = _array_namespace_method(_sys.modules[__name__])

if config.report_at_exit:
    from ._metrics import install_exit_report as _install_exit_report
    _install_exit_report()

# What importing created (jax's and our modules, ~100,000 objects) leaves Python's full
# collections (`_gc_freeze`; LAZYARRAY_GC_FREEZE=0 opts out)
from ._gc_freeze import freeze_import_objects as _freeze_import_objects  # noqa: E402
_freeze_import_objects()

# glibc's dynamic malloc thresholds raised to the host tier's temporaries (`_heap_threshold`;
# LAZYARRAY_HEAP_THRESHOLD=0 opts out)
from ._heap_threshold import raise_thresholds as _raise_heap_thresholds  # noqa: E402
_raise_heap_thresholds()

# The programs this command's last run used start loading from the on-disk cache now, on the
# compile thread, while the caller goes on importing (only when that run left a manifest: `_prefetch`)
from ._prefetch import start_at_import as _start_prefetch  # noqa: E402
_start_prefetch()
