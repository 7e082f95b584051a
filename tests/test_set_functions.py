"""unique_* and isin against numpy: values, first indices, inverse, counts, NaN and signed-zero
rules, empty and 0-D inputs, the single sync, and isin's laziness."""
import inspect

import numpy as np
import pytest

import lazyarray as xp

def _bare_signature(f):
    """f's parameters (names, kinds, defaults) without annotations (test_annotations checks those)."""
    s = inspect.signature(f)
    return s.replace(parameters=[p.replace(annotation=inspect.Parameter.empty) for p in s.parameters.values()],
                     return_annotation=inspect.Signature.empty)



def _np_unique(a):
    return np.unique(a.reshape(-1), return_index=True, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.int64, np.float32, np.float64, np.bool_])
def test_unique_all_matches_numpy(rng, dtype):
    a = rng.integers(0, 6, (4, 7)).astype(dtype)
    out = xp.unique_all(xp.asarray(a))
    values, index, inverse, counts = _np_unique(a)
    np.testing.assert_array_equal(np.asarray(out.values), values)
    np.testing.assert_array_equal(np.asarray(out.indices), index)
    np.testing.assert_array_equal(np.asarray(out.inverse_indices), inverse.reshape(a.shape))
    np.testing.assert_array_equal(np.asarray(out.counts), counts)
    assert out.values.dtype == xp.asarray(a).dtype
    assert out.indices.dtype == out.inverse_indices.dtype == out.counts.dtype == xp.int64


def test_field_names_and_the_other_three(rng):
    a = rng.integers(-3, 3, 20)
    x = xp.asarray(a)
    assert xp.unique_all(x)._fields == ("values", "indices", "inverse_indices", "counts")
    assert xp.unique_counts(x)._fields == ("values", "counts")
    assert xp.unique_inverse(x)._fields == ("values", "inverse_indices")
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(np.asarray(xp.unique_values(x)), values)
    np.testing.assert_array_equal(np.asarray(xp.unique_counts(x).counts), counts)
    np.testing.assert_array_equal(np.asarray(xp.unique_inverse(x).inverse_indices), inverse)


def test_nans_are_distinct_and_signed_zeros_are_one():
    a = np.array([np.nan, 1.0, -0.0, np.nan, 0.0, 1.0])
    out = xp.unique_all(xp.asarray(a))
    values = np.asarray(out.values)
    assert values.shape == (4,)
    np.testing.assert_array_equal(values[:2], [0.0, 1.0])
    assert np.isnan(values[2:]).all()
    np.testing.assert_array_equal(np.asarray(out.counts), [2, 2, 1, 1])
    np.testing.assert_array_equal(np.asarray(out.indices)[:2], [2, 1])
    assert sorted(np.asarray(out.indices)[2:]) == [0, 3]
    rebuilt = values[np.asarray(out.inverse_indices)]
    np.testing.assert_array_equal(rebuilt, np.abs(a))  # NaN == NaN for assert_array_equal


def test_complex_values():
    a = np.array([1 + 1j, complex(np.nan, 0), 1 + 1j, 2, complex(0, np.nan), 2])
    out = xp.unique_counts(xp.asarray(a))
    values, counts = np.asarray(out.values), np.asarray(out.counts)
    finite = ~np.isnan(values)
    np.testing.assert_array_equal(values[finite], [1 + 1j, 2])
    np.testing.assert_array_equal(counts[finite], [2, 2])
    np.testing.assert_array_equal(counts[~finite], [1, 1])


def test_empty_and_zero_d():
    e = xp.asarray(np.zeros((0, 3), dtype=np.float32))
    out = xp.unique_all(e)
    assert out.values.shape == out.indices.shape == out.counts.shape == (0,)
    assert out.values.dtype == xp.float32
    assert out.inverse_indices.shape == (0, 3)
    out = xp.unique_inverse(xp.asarray(7))
    np.testing.assert_array_equal(np.asarray(out.values), [7])
    assert out.inverse_indices.shape == () and int(out.inverse_indices) == 0


def test_one_sync_per_call(fresh, rng):
    x = xp.asarray(rng.integers(0, 4, 50))
    out = xp.unique_all(x)
    assert sum(fresh.syncs.values()) == 1 and fresh.syncs["unique"] == 1
    assert len(out.values) == len(np.unique(np.asarray(x)))


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float64, np.bool_])
def test_isin_matches_numpy(rng, dtype):
    a = rng.integers(0, 12, (3, 5)).astype(dtype)
    b = rng.integers(0, 12, 7).astype(dtype)
    x1, x2 = xp.asarray(a), xp.asarray(b)
    np.testing.assert_array_equal(np.asarray(xp.isin(x1, x2)), np.isin(a, b))
    np.testing.assert_array_equal(np.asarray(xp.isin(x1, x2, invert=True)), np.isin(a, b, invert=True))


def test_isin_promotes_and_takes_scalars():
    a = np.array([1, 5, 300, -2], dtype=np.int16)
    b = np.array([5, 44, -2], dtype=np.int8)
    np.testing.assert_array_equal(np.asarray(xp.isin(xp.asarray(a), xp.asarray(b))), [False, True, False, True])
    np.testing.assert_array_equal(np.asarray(xp.isin(xp.asarray(a), 300)), [False, False, True, False])
    r = xp.isin(44, xp.asarray(b))
    assert r.shape == () and r.dtype == xp.bool and bool(r)
    assert not bool(xp.isin(1000, xp.asarray(b)))  # outside int8: matches nothing
    assert bool(xp.isin(1000, xp.asarray(b), invert=True))


def test_isin_nan_and_complex():
    a = np.array([np.nan, 1.0, -0.0])
    got = xp.isin(xp.asarray(a), xp.asarray(np.array([np.nan, 0.0])))
    np.testing.assert_array_equal(np.asarray(got), [False, False, True])
    c = np.array([1 + 1j, 2 - 1j, 3j])
    got = xp.isin(xp.asarray(c), xp.asarray(np.array([3j, 1 + 1j])))
    np.testing.assert_array_equal(np.asarray(got), [True, False, True])


def test_isin_is_lazy_and_handles_empties(fresh):
    x1 = xp.asarray(np.arange(5))
    out = xp.isin(x1, xp.asarray(np.array([1, 3])))
    assert fresh.executions == 0
    np.testing.assert_array_equal(np.asarray(out), [False, True, False, True, False])
    assert not np.asarray(xp.isin(x1, xp.asarray(np.zeros(0, dtype=np.int64)))).any()
    assert xp.isin(xp.asarray(np.zeros((2, 0))), xp.asarray(np.ones(3))).shape == (2, 0)


def test_errors_and_signatures():
    with pytest.raises(TypeError):
        xp.unique_values([1, 2])
    with pytest.raises(TypeError):
        xp.isin(1, 2)
    with pytest.raises(TypeError):
        xp.isin(xp.asarray(np.zeros(2, np.int64)), xp.asarray(np.zeros(2, np.uint64)))
    assert str(_bare_signature(xp.isin)) == "(x1, x2, /, *, invert=False)"
    for f in (xp.unique_all, xp.unique_counts, xp.unique_inverse, xp.unique_values):
        assert str(_bare_signature(f)) == "(x, /)"
