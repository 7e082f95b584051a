"""sum/prod over an int axis (no dtype) and argmin/argmax over an int axis (no keepdims) bind
at once the nodes their general path bound at an earlier call of the same shape, dtype and
arguments (`_statistical_functions._accumulations`, `_searching_functions._arg_plans`): node for
node the general path's, numpy's values in both tiers, the same errors."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _searching_functions as sf
from lazyarray import _statistical_functions as st
from graph_compare import same_nodes

pytestmark = pytest.mark.usefixtures("both_tiers")


def _values(shape, dtype, rng):
    v = rng.integers(-5, 6, size=shape)
    if np.dtype(dtype).kind == "c":
        return (v + 1j * rng.integers(-2, 3, size=shape)).astype(dtype)
    return (v > 0) if dtype is bool else v.astype(dtype)


def _operands(v):
    """Arrays of value v, left pending: a leaf, a pending node, a transposed view."""
    yield xp.asarray(v)
    if v.dtype != bool:
        yield xp.asarray(v) * 1
    else:
        yield xp.asarray(v) & True
    if v.ndim == 2:
        yield xp.asarray(np.ascontiguousarray(v.T)).T


ACC = [(xp.sum, np.sum), (xp.prod, np.prod)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32, np.uint8, bool])
@pytest.mark.parametrize("shape, axis", [((4, 3), 0), ((4, 3), 1), ((4, 3), -1), ((5,), 0), ((2, 3, 2), 1),
                                         ((0, 3), 0), ((0, 3), 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_and_prod_replay_the_general_nodes(dtype, shape, axis, keepdims):
    rng = np.random.default_rng(0)
    v = _values(shape, dtype, rng)
    for f, npf in ACC:
        st._accumulations.clear()
        for first in (True, False, False):
            for x in _operands(v):
                got = f(x, axis=axis, keepdims=keepdims)
                saved = dict(st._accumulations)
                st._accumulations.clear()  # the general path's nodes for the same operand
                ref = f(x, axis=axis, keepdims=keepdims)
                st._accumulations.update(saved)
                assert same_nodes(got._node, ref._node)
                want = npf(v, axis=axis, keepdims=keepdims)
                if np.dtype(dtype).kind in "biu":
                    want = want.astype(np.uint64 if np.dtype(dtype).kind == "u" else np.int64)
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
                assert got.dtype == xp.asarray(want).dtype
        kinds = {k[1] for k in st._accumulations}
        assert kinds <= {xp.float32, xp.float64, xp.complex64}  # (integers convert: never kept)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, bool])
@pytest.mark.parametrize("shape, axis", [((4, 3), 0), ((4, 3), 1), ((4, 3), -2), ((5,), 0), ((2, 3, 2), 2)])
def test_argmin_and_argmax_replay_the_general_node(dtype, shape, axis):
    rng = np.random.default_rng(1)
    v = _values(shape, dtype, rng)
    if np.dtype(dtype).kind == "f":
        v.flat[1] = np.nan  # (NaN wins, as in numpy)
    for f, npf in [(xp.argmin, np.argmin), (xp.argmax, np.argmax)]:
        sf._arg_plans.clear()
        for first in (True, False, False):
            for x in _operands(v):
                got = f(x, axis=axis)
                saved = dict(sf._arg_plans)
                sf._arg_plans.clear()
                ref = f(x, axis=axis)
                sf._arg_plans.update(saved)
                assert same_nodes(got._node, ref._node)
                np.testing.assert_array_equal(np.asarray(got), npf(v, axis=axis))
                kept = f(x, axis=axis, keepdims=True)
                np.testing.assert_array_equal(np.asarray(kept), npf(v, axis=axis, keepdims=True))


def test_errors_unchanged_after_a_kept_plan():
    x = xp.asarray(np.ones((0, 3), np.float32))
    xp.argmin(x, axis=1)  # an empty result: fine, and kept
    for _ in range(2):
        with pytest.raises(ValueError):
            xp.argmin(x, axis=0)
    y = xp.asarray(np.ones((2, 3), np.float32))
    xp.sum(y, axis=1), xp.argmax(y, axis=1)
    for _ in range(2):
        with pytest.raises(IndexError):
            xp.sum(y, axis=2)
        with pytest.raises(IndexError):
            xp.argmax(y, axis=-3)
        with pytest.raises(TypeError):
            xp.sum(np.ones((2, 3)), axis=1)
        with pytest.raises(TypeError):
            xp.argmax(xp.asarray(np.ones((2, 3), np.complex64)), axis=1)


def test_kept_nodes_are_read_from_the_current_operand():
    y = xp.asarray(np.arange(6.0).reshape(2, 3))
    xp.sum(y, axis=1)
    v = y[:, :]  # a view: written through its base after the plan was kept
    y[0, 0] = 100.0
    np.testing.assert_array_equal(np.asarray(xp.sum(v, axis=1)), [103.0, 12.0])
    np.testing.assert_array_equal(np.asarray(xp.argmax(v, axis=1)), [0, 2])
