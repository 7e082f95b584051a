"""sum/prod over an int axis with `dtype=` a floating x's own dtype (scikit-learn's `_logsumexp`:
`xp.sum(e, axis=1, keepdims=True, dtype=e.dtype)`) binds the nodes the general path binds (those
of no dtype), from the plan an earlier call kept; other dtypes keep the general path; numpy's
values in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _statistical_functions as sf
from graph_compare import same_nodes

pytestmark = pytest.mark.usefixtures("both_tiers")


def _operands(v):
    return [xp.asarray(v), xp.reshape(xp.asarray(v.ravel()), v.shape), xp.asarray(v)[...]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=str)
@pytest.mark.parametrize("fn", [xp.sum, xp.prod], ids=["sum", "prod"])
def test_own_dtype_binds_the_general_paths_nodes(dtype, fn):
    rng = np.random.default_rng(0)
    for shape in [(30, 3), (4, 5, 2), (3, 0), (1, 4)]:
        v = rng.integers(-3, 4, size=shape).astype(dtype)
        for axis in range(-len(shape), len(shape)):
            for keepdims in (False, True):
                for i in range(3):
                    sf._accumulations.clear()
                    x = _operands(v)[i]
                    general = fn(x, axis=axis, keepdims=keepdims, dtype=x.dtype)  # (no plan: general)
                    assert len(sf._accumulations) <= 1
                    again = fn(x, axis=axis, keepdims=keepdims, dtype=x.dtype)  # (the plan, if kept)
                    plain = fn(x, axis=axis, keepdims=keepdims)
                    assert same_nodes(again._node, general._node) and same_nodes(plain._node, general._node)
                    want = np.sum(v, axis=axis, keepdims=keepdims) if fn is xp.sum else np.prod(v, axis=axis, keepdims=keepdims)
                    got = np.asarray(again)
                    assert got.dtype == want.dtype and got.shape == want.shape
                    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_other_dtypes_keep_the_general_path():
    vi = np.arange(12, dtype=np.int32).reshape(3, 4)
    xi = xp.asarray(vi)
    a = xp.sum(xi, axis=1, dtype=xp.int32)
    assert a.dtype == xp.int32
    b = xp.sum(xi, axis=1)  # (no dtype: int64, never the int32 call's nodes)
    assert b.dtype == xp.int64
    np.testing.assert_array_equal(np.asarray(b), vi.sum(axis=1, dtype=np.int64))
    vf = np.arange(12, dtype=np.float32).reshape(3, 4)
    xf = xp.asarray(vf)
    xp.sum(xf, axis=0)
    c = xp.sum(xf, axis=0, dtype=xp.float64)
    assert c.dtype == xp.float64 and c._node.args[0].op is not None  # (the convert, then the sum)
    np.testing.assert_array_equal(np.asarray(c), vf.astype(np.float64).sum(axis=0))
    with pytest.raises(TypeError, match="cannot accumulate"):
        xp.sum(xp.asarray(vf + 1j * vf), axis=0, dtype=xp.float32)
    with pytest.raises(IndexError):
        xp.sum(xf, axis=2, dtype=xp.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, bool], ids=str)
@pytest.mark.parametrize("fn", [xp.max, xp.min], ids=["max", "min"])
def test_max_min_over_an_int_axis_replay_the_general_paths_nodes(dtype, fn):
    """max/min over an int axis bind the nodes an earlier call of the same shape, dtype, axis and
    keepdims bound (`_extreme`'s kept plan); NaN propagates in both tiers."""
    rng = np.random.default_rng(1)
    for shape in [(30, 3), (4, 5, 2), (1, 4)]:
        v = rng.integers(0, 4, size=shape)
        v = (v > 1) if dtype is bool else v.astype(dtype)
        if np.dtype(dtype).kind == "f":
            v.flat[3] = np.nan
        for axis in range(-len(shape), len(shape)):
            for keepdims in (False, True):
                for i in range(3):
                    sf._accumulations.clear()
                    x = _operands(v)[i]
                    general = fn(x, axis=axis, keepdims=keepdims)
                    again = fn(x, axis=axis, keepdims=keepdims)
                    assert same_nodes(again._node, general._node), (shape, axis, keepdims, i)
                    nfn = np.max if fn is xp.max else np.min
                    want = nfn(v, axis=axis, keepdims=keepdims)
                    got = np.asarray(again)
                    assert got.dtype == want.dtype and got.shape == want.shape
                    np.testing.assert_array_equal(got, want)


def test_max_errors_after_a_kept_plan():
    x = xp.asarray(np.ones((3, 4)))
    xp.max(x, axis=1)
    with pytest.raises(ValueError, match="empty selection"):
        xp.max(xp.asarray(np.ones((3, 0))), axis=1)
    with pytest.raises(TypeError, match="real numeric"):
        xp.max(xp.asarray(np.ones((3, 4), np.complex64)), axis=1)
    with pytest.raises(IndexError):
        xp.max(x, axis=2)
    # a view written through its base reads the base's new value
    base = xp.asarray(np.zeros((2, 3, 4))) * 1
    view = base[1, :, :]
    xp.max(view, axis=1)
    base[1, 0, 2] = 5.0
    np.testing.assert_array_equal(np.asarray(xp.max(view, axis=1)), [5.0, 0.0, 0.0])
