"""EVAL: pad's host evaluation writes x into one strided window of the result (`_ops.shape._pad`):
the same values as StableHLO's pad (element i of an axis at low + i * (interior + 1), cropped by
negative low/high) on every combination of edges and interiors, both tiers."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._array_object import Array
from lazyarray._interpret import Stub
from lazyarray._ops import shape as S


def _definition(x, value, low, high, interior):
    shape = tuple(lo + hi + n + max(n - 1, 0) * it for n, lo, hi, it in zip(x.shape, low, high, interior))
    out = np.full(shape, value, x.dtype)
    for idx in itertools.product(*[range(n) for n in x.shape]):
        pos = tuple(lo + i * (it + 1) for i, lo, it in zip(idx, low, interior))
        if all(0 <= p < m for p, m in zip(pos, shape)):
            out[pos] = x[idx]
    return out


def _eval(x, value, low, high, interior, dtype):
    shape = tuple(lo + hi + n + max(n - 1, 0) * it for n, lo, hi, it in zip(x.shape, low, high, interior))
    node = Stub(S.PAD, (Stub(None, (), (), x.shape, dtype), Stub(None, (), (), (), dtype)),
                S.PAD.Attrs(low, high, interior), shape, dtype)
    return S.PAD.evaluate(node, x, np.asarray(value, x.dtype))


def test_one_axis_every_combination():
    for n in [1, 2, 5]:
        x = np.arange(1.0, n + 1)
        for lo, hi, it in itertools.product(range(-6, 5), range(-6, 5), range(0, 4)):
            m = lo + hi + n + (n - 1) * it
            if m < 0:
                continue
            got = _eval(x, -1.0, (lo,), (hi,), (it,), xp.float64)
            np.testing.assert_array_equal(got, _definition(x, -1.0, (lo,), (hi,), (it,)))


def test_two_axes_and_bools():
    rng = np.random.default_rng(1)
    x = rng.random((3, 4))
    b = rng.random((5,)) > 0.5
    for low, high, interior in [((1, -1), (0, 2), (1, 0)), ((-2, 3), (-1, -2), (2, 1)), ((0, 0), (0, 0), (0, 6)),
                                ((-3, 0), (2, 1), (3, 3)), ((0, 0), (0, 0), (0, 0))]:
        got = _eval(x, 7.0, low, high, interior, xp.float64)
        np.testing.assert_array_equal(got, _definition(x, 7.0, low, high, interior))
    for it in [0, 1, 6]:
        got = _eval(b, False, (0,), (0,), (it,), xp.bool)
        np.testing.assert_array_equal(got, _definition(b, False, (0,), (0,), (it,)))
    s = np.arange(12.0).reshape(3, 4)[:, ::2]  # (a strided operand)
    np.testing.assert_array_equal(_eval(s, 0.0, (1, -1), (1, 1), (1, 2), xp.float64),
                                  _definition(s, 0.0, (1, -1), (1, 1), (1, 2)))


@pytest.mark.parametrize("tier", ["compiled_now", "interpreted"])
def test_tiers(tier, request):
    request.getfixturevalue(tier)
    x = np.arange(1.0, 6.0)
    a = xp.asarray(x)
    for low, high, it in [(-1, 2, 2), (2, -3, 1), (0, 0, 0)]:
        node = S.pad(a._node, (xp.asarray(0.5) + 0)._node, (low,), (high,), (it,))
        got = np.asarray(Array._wrap(node, a._device))
        np.testing.assert_array_equal(got, _definition(x, 0.5, (low,), (high,), (it,)))
