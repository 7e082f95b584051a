"""EVAL: a real power of a 0-D base by a 0-D exponent of 0.5 tests its base's two special cases
(-0.0 -> +0.0, -inf -> +inf) on a Python float (`_ops.elementwise._power`): the same bits as the
array path and as XLA's compiled power."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray._interpret import Stub
from lazyarray._ops import elementwise as E

BASES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 2.0, 5e-324, -5e-324, -1.0, 0.25, 1e300]
EXPONENTS = [0.5, 2.0, -0.5, 1.0, 0.0, 3.0]


def _stub(shape, dtype):
    operand = Stub(None, (), (), shape, dtype)
    return Stub(E.POWER, (operand, Stub(None, (), (), (), dtype)), None, shape, dtype)


def _bits(v, npdt):
    return np.asarray(v, npdt).view(np.dtype("u%d" % npdt.itemsize))


@pytest.mark.parametrize("dtype", [xp.float16, xp.float32, xp.float64])
def test_scalar_base_matches_array_path(dtype):
    npdt = dtype.np
    bases = np.array(BASES, npdt)
    for e in EXPONENTS:
        b = np.asarray(e, npdt)
        whole = E.POWER.evaluate(_stub(bases.shape, dtype), bases, b)
        for k, a in enumerate(bases):
            r = E.POWER.evaluate(_stub((), dtype), np.asarray(a), b)
            assert np.asarray(r).dtype == npdt
            if np.isnan(whole[k]):
                assert np.isnan(r)
            else:
                assert _bits(r, npdt) == _bits(whole[k], npdt), (a, e)
    node = _stub((), dtype)
    half = np.asarray(0.5, npdt)
    for a, want in [(-0.0, 0.0), (0.0, 0.0), (-np.inf, np.inf), (4.0, 2.0)]:
        r = E.POWER.evaluate(node, np.asarray(a, npdt), half)
        assert float(r) == want and not np.signbit(r)


def test_agrees_with_compiled(compiled_now):
    for a in [0.0, -0.0, -np.inf, np.inf, 9.0, -1.0]:
        got = np.asarray(xp.asarray(a) ** xp.asarray(0.5))
        node = _stub((), xp.float64)
        host = np.asarray(E.POWER.evaluate(node, np.asarray(a), np.asarray(0.5)), np.float64)
        if np.isnan(got):
            assert np.isnan(host)
        else:
            assert _bits(host, np.dtype(np.float64)) == _bits(got, np.dtype(np.float64)), a


def test_interpreted(interpreted):
    for a in [0.0, -0.0, -np.inf, 9.0]:
        r = np.asarray(xp.asarray(a) ** xp.asarray(0.5))
        assert float(r) == np.sqrt(abs(a)) if a != -np.inf else float(r) == np.inf
        assert not np.signbit(r)
