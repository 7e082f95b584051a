"""EVAL: a first-sight dynamic_slice clamps its starts without min/max calls
(`_ops.shape._clamped_window`), its prepared step by bounds found once: both the same windows as
StableHLO's clamped starts, in both tiers."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._array_object import Array
from lazyarray._interpret import Stub
from lazyarray._ops import shape as S


def _reference(x, starts, sizes):
    out = []
    for s, n, size in zip(starts, x.shape, sizes):
        lo = min(max(int(s), 0), n - size)
        out.append(slice(lo, lo + size))
    return x[tuple(out)]


def _node(shape, sizes):
    operands = (Stub(None, (), (), shape, xp.float64),) + (Stub(None, (), (), (), xp.int64),) * len(shape)
    return Stub(S.DYNAMIC_SLICE, operands, S.DYNAMIC_SLICE.Attrs(tuple(sizes)), tuple(sizes), xp.float64)


CASES = [((40,), (1,)), ((40,), (40,)), ((10, 4), (10, 1)), ((10, 4), (3, 2)), ((6, 3, 3), (6, 1, 1)),
         ((5, 3, 3), (2, 3, 1)), ((4, 0), (2, 0)), ((7, 5), (7, 5))]


@pytest.mark.parametrize("shape,sizes", CASES)
def test_evaluate_and_step_match_clamped_windows(shape, sizes):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    node = _node(shape, sizes)
    step = S.DYNAMIC_SLICE.evaluate.prepare(node)
    for starts in itertools.product([-3, 0, 1, 2, 5, 100], repeat=len(shape)):
        args = [np.asarray(s, np.int64) for s in starts]
        want = _reference(x, starts, sizes)
        got = S.DYNAMIC_SLICE.evaluate(node, x, *args)
        np.testing.assert_array_equal(got, want)
        assert got.shape == want.shape
        np.testing.assert_array_equal(step(x, *args), want)
        # a strided view of the operand: the same windows
        big = np.zeros((2,) + shape)
        big[1] = x
        np.testing.assert_array_equal(S.DYNAMIC_SLICE.evaluate(node, big[1], *args), want)


def _window(a, starts, sizes):
    nodes = [(xp.asarray(s, dtype=xp.int64) + 0)._node for s in starts]  # (computed starts)
    return Array._wrap(S.dynamic_slice(a._node, nodes, sizes), a._device)


def test_tiers_agree(interpreted):
    x = np.arange(40.0).reshape(10, 4)
    a = xp.asarray(x)
    for k in range(-2, 6):
        got = np.asarray(_window(a, (0, k), (10, 1)))
        np.testing.assert_array_equal(got, _reference(x, (0, k), (10, 1)))


def test_compiled_agrees(compiled_now):
    x = np.arange(40.0).reshape(10, 4)
    a = xp.asarray(x)
    for k in (-1, 0, 3, 9):
        got = np.asarray(_window(a, (k, k), (3, 2)))
        np.testing.assert_array_equal(got, _reference(x, (k, k), (3, 2)))
