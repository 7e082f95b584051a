"""The primitive ops, one `OpDef` each (core.py), grouped by family:

    elementwise  arithmetic, bitwise, compare/select/convert, XLA's transcendental kernels
    real_math    `math.<name>`: real functions lowered as our own accurate formulas
    shape        constants, iota, broadcast, reshape, transpose, slices, concatenate, pad, reverse
    reduce       reductions over axes, inclusive scans, argmax/argmin
    sort         the stable multi-key sort and the float order keys
    gather       gather / scatter of points
    dot          dot_general
    fft          stablehlo.fft
    linalg       decomposition kernels and triangular solve

Each family module holds, per primitive, its OpDef (rule, lowering, host evaluation) and the
builders the namespace modules call. This package re-exports them: `from . import _ops as ops`,
then `ops.ADD(x, y)`, `ops.reshape(x, shape)`. Layering: this package imports only _graph,
_emit and _dtypes (and the runtime's kernel lowering, lazily); nothing here imports the
namespace, the array object or the engine.
"""
from .core import OPS, OpDef  # noqa: F401
from .elementwise import *  # noqa: F401,F403
from .elementwise import compare, conj, convert, select, bitcast, float_bits, emit_compare, emit_select  # noqa: F401
from .shape import *  # noqa: F401,F403
from .reduce import REDUCERS, argreduce, cumulative, highest, lowest, reduce  # noqa: F401
from .sort import SORT, order_key, sort  # noqa: F401
from .gather import GATHER, SCATTER, gather_points, scatter_points  # noqa: F401
from .dot import DOT_GENERAL, dot_general  # noqa: F401
from .fft import FFT, fft  # noqa: F401
from .linalg import LINALG_KERNEL, TRIANGULAR_SOLVE, eye, kernel, triangular_solve, zeros  # noqa: F401
from .real_math import MATH, math_function  # noqa: F401
