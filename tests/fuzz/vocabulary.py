"""The fuzzer's vocabulary: dtypes, value pools, the program and line records, and the tables
of unary, binary and in-place operations it draws from (see programs.py for the strategy)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from .reference import ref_xp

DTYPES = ("float64", "int64", "bool", "float32", "int32", "int8", "uint8", "int16", "uint16",
          "uint32", "uint64", "complex128", "complex64")
FLOATS = ("float64", "float32")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def kind(dt):
    if dt == "bool":
        return "bool"
    if dt.startswith("uint"):
        return "uint"
    if dt.startswith("int"):
        return "int"
    if dt.startswith("float"):
        return "float"
    return "complex"


def is_num(dt):
    return dt != "bool"


def is_real_num(dt):
    return kind(dt) in ("int", "uint", "float")


_REF_DTYPE_NAMES = [(getattr(ref_xp, n), n) for n in DTYPES]


def ref_dtype_name(dtype):
    for d, n in _REF_DTYPE_NAMES:
        if d == dtype:
            return n
    raise TypeError(f"unknown reference dtype {dtype!r}")


# ---------------------------------------------------------------------------------------------
# the program representation

@dataclass(frozen=True)
class Line:
    code: str                    # statements over v<i>, _temporaries and `xp`
    targets: tuple = ()          # variables this line sets or writes into (read after it, eagerly)
    read: str | None = None      # a read line: 'array', 'float', 'int', 'bool' of targets[0]
    expect_error: bool = False   # the reference raised (a write into a read-only view)

    def python(self):
        """The line as plain Python a person can run against lazyarray."""
        if self.read:
            v = self.targets[0]
            return f"print(np.asarray({v}))" if self.read == "array" else f"print({self.read}({v}))"
        if self.expect_error:
            return f"{self.code}  # numpy raises: read-only"
        return self.code


@dataclass
class Program:
    lines: list
    tol: dict = field(default_factory=dict)   # var -> (class, magnitude, single precision went in)

    def python(self):
        body = "\n".join(ln.python() for ln in self.lines)
        return "import numpy as np\nimport lazyarray as xp\n" + body

    def __repr__(self):  # what hypothesis prints for a falsifying example
        return "\n" + self.python() + "\n"


# ---------------------------------------------------------------------------------------------
# literals

def fmt(v):
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    if isinstance(v, complex):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "xp.nan"
        if math.isinf(v):
            return "xp.inf" if v > 0 else "-xp.inf"
        return repr(v)
    return repr(int(v))


def nested(flat, shape):
    if not shape:
        return fmt(flat[0])
    n = shape[0]
    step = len(flat) // n if n else 0
    return "[" + ", ".join(nested(flat[i * step:(i + 1) * step], shape[1:]) for i in range(n)) + "]"


FLOAT_POOL = (0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 3.0, 0.25, -0.0, 10.0, -7.75, 1000.0, 1.5,
              float("nan"), float("inf"), float("-inf"), 1e30)
INT_POOL = (0, 1, 2, -1, 3, -2, 5, 7, -8, 100)
COMPLEX_POOL = (0j, 1 + 0j, 1j, 1 - 2j, -0.5 + 3j, 2 + 2j)


def int_extremes(dt):
    info = np.iinfo(dt)
    return (int(info.max), int(info.min), int(info.max) - 1)


class Values:
    """Draws scalars and literal arrays of one dtype."""

    def __init__(self, draw):
        self.draw = draw

    def scalar(self, dt, special=True):
        d = self.draw
        k = kind(dt)
        if k == "bool":
            return d(st.booleans())
        if k in ("int", "uint"):
            pool = [v for v in INT_POOL if k == "int" or v >= 0]
            if special and d(st.integers(0, 9)) == 0:
                return d(st.sampled_from(int_extremes(dt)))
            return d(st.sampled_from(pool))
        if k == "float":
            pool = FLOAT_POOL if special else FLOAT_POOL[:13]
            if d(st.integers(0, 4)) == 0:   # mostly plain values: specials would swamp everything
                return d(st.sampled_from(pool))
            return d(st.sampled_from(pool[:13]))
        return d(st.sampled_from(COMPLEX_POOL))

    def literal(self, shape, dt, special=True):
        n = int(np.prod(shape)) if shape else 1
        dtc = f"xp.{dt}"
        if n == 0:
            return f"xp.reshape(xp.asarray([], dtype={dtc}), {tuple(shape)!r})"
        vals = [self.scalar(dt, special) for _ in range(n)]
        return f"xp.asarray({nested(vals, tuple(shape))}, dtype={dtc})"

    def python_scalar(self, dt):
        """A Python scalar that may meet an array of dtype dt (the standard's mixed rules)."""
        k = kind(dt)
        if k == "float" and self.draw(st.integers(0, 3)) == 0:
            return self.scalar("int32", special=False)
        if k == "complex" and self.draw(st.integers(0, 2)) == 0:
            return self.scalar("float64", special=False)
        return self.scalar(dt)


# ---------------------------------------------------------------------------------------------
# ops: how each class of result is tolerated
#   move  data movement: the class of its inputs          arith  exact IEEE op: 0, or 2 on tainted
#   trans transcendental on exact inputs: 1                loose order-dependent rounding: 2
#   disc  discontinuous: exact inputs only, result exact

UNARY = {
    # name: (kinds accepted, class)
    "abs": ("int uint float complex", "arith"), "negative": ("int uint float complex", "arith"),
    "positive": ("int uint float complex", "move"), "square": ("int uint float complex", "arith"),
    "sqrt": ("float complex", "arith"), "floor": ("int uint float", "disc"),
    "ceil": ("int uint float", "disc"), "trunc": ("int uint float", "disc"),
    "round": ("int uint float", "disc"), "sign": ("int uint float", "disc"),
    "isnan": ("int uint float complex", "disc"), "isinf": ("int uint float complex", "disc"),
    "isfinite": ("int uint float complex", "disc"), "signbit": ("float", "disc"),
    "logical_not": ("bool", "disc"), "bitwise_invert": ("int uint bool", "disc"),
    "reciprocal": ("float", "arith"), "conj": ("complex", "move"), "real": ("complex", "move"),
    "imag": ("complex", "move"),
    "exp": ("float complex", "trans"), "expm1": ("float", "trans"), "log": ("float", "trans"),
    "log1p": ("float", "trans"), "log2": ("float", "trans"), "log10": ("float", "trans"),
    "sin": ("float", "trans"), "cos": ("float", "trans"), "tan": ("float", "trans"),
    "asin": ("float", "trans"), "acos": ("float", "trans"), "atan": ("float", "trans"),
    "sinh": ("float", "trans"), "cosh": ("float", "trans"), "tanh": ("float", "trans"),
    "asinh": ("float", "trans"), "acosh": ("float", "trans"), "atanh": ("float", "trans"),
}
# ops that can turn a small absolute error (of a class-2 value, say a cancellation) into a large
# one: they take class 0 or 1 inputs only
AMPLIFY = frozenset(("multiply", "divide", "square", "sqrt", "reciprocal", "pow", "prod",
                     "cumulative_prod", "std", "var", "matmul", "vecdot", "tensordot", "atan2",
                     "hypot", "logaddexp"))
UNARY_OPERATORS = {"-": "negative", "+": "positive", "~": "bitwise_invert", "abs": "abs"}

BINARY = {
    "add": ("int uint float complex", "arith", "+"), "subtract": ("int uint float complex", "arith", "-"),
    "multiply": ("int uint float complex", "arith", "*"), "divide": ("float complex", "arith", "/"),
    "floor_divide": ("int uint float", "disc", "//"), "remainder": ("int uint float", "disc", "%"),
    "pow": ("int uint float complex", "trans", "**"), "maximum": ("int uint float", "arith", None),
    "minimum": ("int uint float", "arith", None), "atan2": ("float", "trans", None),
    "hypot": ("float", "trans", None), "copysign": ("float", "arith", None),
    "logaddexp": ("float", "trans", None), "nextafter": ("float", "disc", None),
    "equal": ("bool int uint float complex", "disc", "=="),
    "not_equal": ("bool int uint float complex", "disc", "!="),
    "less": ("int uint float", "disc", "<"), "less_equal": ("int uint float", "disc", "<="),
    "greater": ("int uint float", "disc", ">"), "greater_equal": ("int uint float", "disc", ">="),
    "logical_and": ("bool", "disc", None), "logical_or": ("bool", "disc", None),
    "logical_xor": ("bool", "disc", None),
    "bitwise_and": ("bool int uint", "disc", "&"), "bitwise_or": ("bool int uint", "disc", "|"),
    "bitwise_xor": ("bool int uint", "disc", "^"),
    "bitwise_left_shift": ("int uint", "disc", "<<"), "bitwise_right_shift": ("int uint", "disc", ">>"),
}
INPLACE = ("+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=")
INPLACE_FN = {"+=": "add", "-=": "subtract", "*=": "multiply", "/=": "divide", "//=": "floor_divide",
              "%=": "remainder", "**=": "pow", "&=": "bitwise_and", "|=": "bitwise_or",
              "^=": "bitwise_xor", "<<=": "bitwise_left_shift", ">>=": "bitwise_right_shift"}
