"""`mean` over an int axis or None, and sum/prod/max/min over None as well as an int axis, bind at
once the nodes their general path bound at an earlier call of the same shape, dtype and
arguments (`_statistical_functions._mean_plans`, `_accumulations`): node for node the general
path's, numpy's values in both tiers, the same errors; the plan reads the operand's current
node (a view written through its base)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _statistical_functions as st
from graph_compare import same_nodes

pytestmark = [pytest.mark.usefixtures("both_tiers"), pytest.mark.filterwarnings("ignore:Mean of empty slice")]


def _operands(v):
    """Arrays of value v: a leaf, a pending node, a transposed view, a 1-D slice view."""
    yield xp.asarray(v)
    yield xp.asarray(v) * 1 if v.dtype != bool else xp.asarray(v) & True
    if v.ndim == 2:
        yield xp.asarray(np.ascontiguousarray(v.T)).T
        yield xp.asarray(v)[1:, :]


def _values(shape, dtype, rng):
    v = rng.integers(-5, 6, size=shape)
    if np.dtype(dtype).kind == "c":
        return (v + 1j * rng.integers(-2, 3, size=shape)).astype(dtype)
    return (v > 0) if dtype is bool else v.astype(dtype)


def _same_as_general(f, table, x, **kw):
    got = f(x, **kw)
    saved = dict(table)
    table.clear()  # the general path's nodes for the same operand
    ref = f(x, **kw)
    table.update(saved)
    assert same_nodes(got._node, ref._node)
    return got


SHAPES_AXES = [((4, 3), 0), ((4, 3), 1), ((4, 3), -1), ((4, 3), None), ((5,), 0), ((5,), None),
               ((1,), None), ((2, 3, 2), 1), ((2, 3, 2), None), ((), None), ((0, 3), 0), ((0, 3), None)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape, axis", SHAPES_AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean_replays_the_general_nodes(dtype, shape, axis, keepdims):
    v = _values(shape, dtype, np.random.default_rng(0))
    st._mean_plans.clear()
    for _ in range(3):
        for x in _operands(v):
            with np.errstate(invalid="ignore", divide="ignore"):
                want = np.mean(np.asarray(x), axis=axis, keepdims=keepdims)
            got = _same_as_general(xp.mean, st._mean_plans, x, axis=axis, keepdims=keepdims)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
            assert got.dtype == x.dtype and got.shape == want.shape
    assert all(k[0] and 0 not in k[0] for k in st._mean_plans)  # (0-D and empty: never kept)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32, np.uint8, bool])
@pytest.mark.parametrize("shape", [(4, 3), (5,), (2, 3, 2), (), (0, 3)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_over_every_axis_replay_the_general_nodes(dtype, shape, keepdims):
    v = _values(shape, dtype, np.random.default_rng(1))
    fns = [(xp.sum, np.sum), (xp.prod, np.prod)]
    if np.dtype(dtype).kind != "c":
        fns += [(xp.max, np.max), (xp.min, np.min)]
    for f, npf in fns:
        st._accumulations.clear()
        for _ in range(3):
            for x in _operands(v):
                host = np.asarray(x)
                try:
                    want = npf(host, axis=None, keepdims=keepdims)
                except ValueError:  # (max/min of an empty array: the same error)
                    with pytest.raises(ValueError):
                        f(x, keepdims=keepdims)
                    continue
                got = _same_as_general(f, st._accumulations, x, keepdims=keepdims)
                if f in (xp.sum, xp.prod) and np.dtype(dtype).kind in "biu":
                    want = want.astype(np.uint64 if np.dtype(dtype).kind == "u" else np.int64)
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
                assert got.shape == np.shape(want)


def test_errors_unchanged_after_a_kept_plan():
    y = xp.asarray(np.ones((2, 3)))
    xp.mean(y, axis=1), xp.mean(y), xp.max(y)
    for _ in range(2):
        with pytest.raises(IndexError):
            xp.mean(y, axis=2)
        with pytest.raises(TypeError):
            xp.mean(xp.asarray(np.ones((2, 3), np.int64)), axis=1)
        with pytest.raises(TypeError):
            xp.mean(np.ones((2, 3)), axis=1)
        with pytest.raises(TypeError):
            xp.max(xp.asarray(np.ones((2, 3), np.complex64)))
    e = xp.asarray(np.ones((0, 3)))
    for _ in range(2):
        with pytest.raises(ValueError):
            xp.max(e)
        assert np.isnan(float(xp.mean(e)))


def test_kept_nodes_are_read_from_the_current_operand():
    y = xp.asarray(np.arange(6.0).reshape(2, 3))
    xp.mean(y, axis=1), xp.mean(y), xp.max(y), xp.sum(y)
    v = y[:, :]  # a view: written through its base after the plans were kept
    y[0, 0] = 100.0
    np.testing.assert_array_equal(np.asarray(xp.mean(v, axis=1)), [103.0 / 3, 4.0])
    assert float(xp.mean(v)) == 115.0 / 6 and float(xp.max(v)) == 100.0 and float(xp.sum(v)) == 115.0
