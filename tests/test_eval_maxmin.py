"""EVAL: float maximum/minimum of 0-D operands take a scalar path for their pairs of zeros
(`_ops.elementwise._maxmin`); the same bits as the array path's fix and as XLA's compiled
maximum/minimum, on every pair of special values, every float dtype."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._interpret import Stub
from lazyarray._ops import elementwise as E

SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e300, -2.5]
DTYPES = [xp.float16, xp.float32, xp.float64]


def _stub(op, dtype):
    operand = Stub(None, (), (), (), dtype)
    return Stub(op, (operand, operand), None, (), dtype)


def _bits(v, npdt):
    return np.asarray(v, npdt).view(np.dtype("u%d" % npdt.itemsize))


@pytest.mark.parametrize("op", [E.MAXIMUM, E.MINIMUM])
@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_path_matches_array_path(op, dtype):
    npdt = dtype.np
    vals = np.array(SPECIAL, npdt)
    node = _stub(op, dtype)
    pairs = list(itertools.product(vals, vals))
    a1 = np.array([p[0] for p in pairs], npdt)
    b1 = np.array([p[1] for p in pairs], npdt)
    node1 = Stub(op, (Stub(None, (), (), a1.shape, dtype),) * 2, None, a1.shape, dtype)
    whole = op.evaluate(node1, a1, b1)  # (the array path)
    for k, (x, y) in enumerate(pairs):
        r = op.evaluate(node, np.asarray(x), np.asarray(y))
        assert np.asarray(r).dtype == npdt
        assert _bits(r, npdt) == _bits(whole[k], npdt), (x, y)
    # zeros: IEEE's order, explicitly
    for x, y in itertools.product([0.0, -0.0], repeat=2):
        r = float(op.evaluate(node, np.asarray(x, npdt), np.asarray(y, npdt)))
        neg = (np.signbit(x) or np.signbit(y)) if op is E.MINIMUM else (np.signbit(x) and np.signbit(y))
        assert r == 0.0 and bool(np.signbit(r)) == bool(neg)


@pytest.mark.parametrize("fn", [xp.maximum, xp.minimum])
def test_zero_pairs_agree_with_compiled(fn, compiled_now):
    vals = [0.0, -0.0, 1.0, np.nan, -np.inf]
    for x, y in itertools.product(vals, repeat=2):
        compiled = fn(xp.asarray(x), xp.asarray(y))
        got = np.asarray(compiled)
        node = _stub(E.MAXIMUM if fn is xp.maximum else E.MINIMUM, xp.float64)
        host = np.asarray(node.op.evaluate(node, np.asarray(x), np.asarray(y)), np.float64)
        if np.isnan(got):  # (a NaN's sign and payload are not the interpreter's promise)
            assert np.isnan(host)
        else:
            assert _bits(host, np.dtype(np.float64)) == _bits(got, np.dtype(np.float64)), (x, y)


def test_interpreted_scalar_max_min(interpreted):
    for x, y in itertools.product([0.0, -0.0, 2.0], repeat=2):
        a, b = xp.asarray(x), xp.asarray(y)
        mx, mn = np.asarray(xp.maximum(a, b)), np.asarray(xp.minimum(a, b))
        assert float(mx) == max(x, y) and float(mn) == min(x, y)
        if x == 0 and y == 0:
            assert np.signbit(mx) == (np.signbit(x) and np.signbit(y))
            assert np.signbit(mn) == (np.signbit(x) or np.signbit(y))
