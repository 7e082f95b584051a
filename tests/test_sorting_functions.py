"""sort and argsort against numpy: axes, dtypes, descending order, stability, NaN placement."""
import inspect

import numpy as np
import pytest

import lazyarray as xp

DTYPES = [np.int8, np.uint16, np.int64, np.float32, np.float64, np.bool_]

def _bare_signature(f):
    """f's parameters (names, kinds, defaults) without annotations (test_annotations checks those)."""
    s = inspect.signature(f)
    return s.replace(parameters=[p.replace(annotation=inspect.Parameter.empty) for p in s.parameters.values()],
                     return_annotation=inspect.Signature.empty)



def _data(rng, dtype, shape):
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    # few distinct values, so stability matters
    return rng.integers(0, 5, shape).astype(dtype)


def _stable_descending_argsort(a):
    """Row by row with Python's stable sorted(): equal values keep their input order."""
    return np.array([sorted(range(len(row)), key=lambda i: -float(row[i])) for row in a])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_sort_and_argsort_match_numpy(rng, dtype, axis):
    a = _data(rng, dtype, (4, 9))
    x = xp.asarray(a)
    np.testing.assert_array_equal(np.asarray(xp.sort(x, axis=axis)), np.sort(a, axis=axis))
    out = xp.argsort(x, axis=axis)
    assert out.dtype == xp.int64
    np.testing.assert_array_equal(np.asarray(out), np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.bool_])
def test_descending_is_stable(rng, dtype):
    a = _data(rng, dtype, (3, 11))
    x = xp.asarray(a)
    expected = _stable_descending_argsort(a)
    np.testing.assert_array_equal(np.asarray(xp.argsort(x, descending=True)), expected)
    np.testing.assert_array_equal(np.asarray(xp.sort(x, descending=True)),
                                  np.take_along_axis(a, expected, axis=1))


def test_unstable_sort_still_sorts(rng):
    a = rng.normal(size=(5, 20))
    x = xp.asarray(a)
    np.testing.assert_array_equal(np.asarray(xp.sort(x, stable=False)), np.sort(a))
    np.testing.assert_array_equal(np.asarray(xp.argsort(x, axis=0, stable=False)), np.argsort(a, axis=0))


def test_nans_sort_as_the_largest_value():
    a = np.array([3.0, np.nan, -1.0, np.inf, np.nan, -np.inf])
    x = xp.asarray(a)
    np.testing.assert_array_equal(np.asarray(xp.sort(x)), np.sort(a))
    np.testing.assert_array_equal(np.asarray(xp.argsort(x)), [5, 2, 0, 3, 1, 4])
    np.testing.assert_array_equal(np.asarray(xp.argsort(x, descending=True)), [1, 4, 3, 0, 2, 5])


def test_complex_sorts_lexicographically():
    a = np.array([1 + 2j, 1 - 1j, -3 + 0j, 1 + 0j])
    np.testing.assert_array_equal(np.asarray(xp.sort(xp.asarray(a))), np.sort(a))


def test_trivial_axes_and_empty_arrays():
    x = xp.asarray(np.array([[5.0], [2.0]]))
    np.testing.assert_array_equal(np.asarray(xp.argsort(x)), [[0], [0]])
    np.testing.assert_array_equal(np.asarray(xp.sort(x, axis=0)), [[2.0], [5.0]])
    e = xp.asarray(np.zeros((0, 3)))
    assert xp.sort(e).shape == (0, 3) and xp.argsort(e, axis=0).shape == (0, 3)


def test_result_is_a_new_handle():
    x = xp.asarray(np.array([2, 1, 3]))
    y = xp.sort(x)
    y[0] = 100
    np.testing.assert_array_equal(np.asarray(x), [2, 1, 3])
    z = xp.sort(xp.asarray(np.array([7])))
    z[0] = 1
    assert int(z[0]) == 1


def test_errors_at_the_call():
    with pytest.raises(IndexError):
        xp.sort(xp.asarray(np.zeros((2, 3))), axis=2)
    with pytest.raises(ValueError):
        xp.argsort(xp.asarray(1.0))
    with pytest.raises(TypeError):
        xp.sort(np.zeros(3))


def test_signatures():
    for f in (xp.sort, xp.argsort):
        assert str(_bare_signature(f)) == "(x, /, *, axis=-1, descending=False, stable=True)"


def test_sort_stays_lazy_and_compiles_once(fresh):
    for seed in range(3):
        a = np.random.default_rng(seed).normal(size=16)
        y = xp.sort(xp.asarray(a))
        assert fresh.executions == seed  # nothing runs before the read
        np.testing.assert_array_equal(np.asarray(y), np.sort(a))
    assert fresh.compiles == 1
