"""lazyarray: the Python Array API standard, lazily, fused and compiled on XLA.

Every call checks its arguments, records a node of an expression graph and returns at once.
Values are computed when needed (bool(), float(), numpy conversion, repr, evaluate()): the
pending graph is lowered to StableHLO by our own emitter, compiled by XLA, cached by the graph's
structure, and run.
"""
from __future__ import annotations

__array_api_version__ = "2025.12"
SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

from ._dtypes import (  # noqa: E402
    bool, complex64, complex128, float32, float64, int8, int16, int32, int64,
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

globals().update(_ELEMENTWISE)

import math as _math  # noqa: E402
import sys as _sys  # noqa: E402

e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None
pi = _math.pi

from . import _array_methods  # noqa: E402,F401  (Array's operators and methods)
from ._versions import array_namespace_method as _array_namespace_method  # noqa: E402

# x.__array_namespace__() is this module (or an earlier version's namespace built from it): the
# package, the top of the layers, installs the one method that names it
Array.__array_namespace__ = _array_namespace_method(_sys.modules[__name__])

if config.report_at_exit:
    from ._metrics import install_exit_report as _install_exit_report
    _install_exit_report()
