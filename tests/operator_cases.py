"""The binary operators the operators' fast path serves (`_array_methods._FAST`), the dtypes its
tests try and small integer-valued operands: shared by the fast path's tests."""
import operator

import numpy as np

from lazyarray import _array_methods as am

OPS = {  # dunder name -> numpy's operator
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq,
    "ne": operator.ne, "pow": operator.pow, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
}
DTYPES = [np.float32, np.float64, np.int32, np.uint8, bool, np.complex64]
# the (operator, dtype) pairs the operator's fast path takes (`_array_methods._FAST`'s kinds)
FAST_CASES = [(name, d) for name in OPS for d in DTYPES if np.dtype(d).kind in am._FAST[name][2]]


def case_id(v):
    return v if isinstance(v, str) else np.dtype(v).name


def value(shape, dtype, rng):
    """Values 1..3 (no zero divisor, no overflow in a power) of this shape and dtype."""
    v = rng.integers(1, 4, size=shape)
    if dtype is bool:
        return v > 1
    if np.dtype(dtype).kind == "c":
        return (v + 1j).astype(dtype)
    return v.astype(dtype)
