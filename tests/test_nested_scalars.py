"""asarray of nested sequences of plain Python scalars skips the per-element check
(`_nested_scalars.plain_scalars_only`): the same dtype, values and errors as the checked path
(`_creation_functions._check_nested` + `_nested_dtype`), which every other sequence still takes."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _creation_functions as cf
from lazyarray._nested_scalars import plain_scalars_only

PLAIN = [
    [1.0, 2.5, -0.0], [[1, 2], [3, 4]], [True, False], [1 + 2j, 3.0], [True, 2], [1, 2.5],
    [2.5, 1j], (1, 2, 3), ((1.5,), (2.5,)), [], [[], []], [[[1.0]], [[2.0]]], [2 ** 63 + 5],
    [float("nan"), float("inf")], [[1.0, 2.0]] * 3,
]
CHECKED = [
    [np.float32(1.0), np.float32(2.0)], [np.int32(1), 2], [1.0, np.float64(2.0)],
    [[1.0], [np.float32(2.0)]],
]


def _checked_path(obj, dtype=None):
    checked = cf._check_nested(obj)
    target = dtype or cf._nested_dtype(checked)
    return np.asarray(checked, dtype=target.np)


@pytest.mark.parametrize("obj", PLAIN, ids=repr)
def test_plain_sequences_take_the_fast_path_with_the_checked_paths_result(obj):
    assert plain_scalars_only(obj)
    want = _checked_path(obj)
    got = np.asarray(xp.asarray(obj))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got.real), np.signbit(want.real))


@pytest.mark.parametrize("obj", CHECKED, ids=repr)
def test_numpy_scalars_keep_numpys_inference_on_the_checked_path(obj):
    assert not plain_scalars_only(obj)
    got = np.asarray(xp.asarray(obj))
    want = _checked_path(obj)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_an_explicit_dtype_is_used():
    got = xp.asarray([[1, 2], [3, 4]], dtype=xp.float32)
    assert got.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(got), np.asarray([[1, 2], [3, 4]], dtype=np.float32))


def test_zero_d_arrays_inside_are_read_and_others_refused():
    mixed = [xp.asarray(1.5), 2.0]
    assert not plain_scalars_only(mixed)
    np.testing.assert_array_equal(np.asarray(xp.asarray(mixed)), [1.5, 2.0])
    with pytest.raises(TypeError):
        xp.asarray([xp.asarray([1.0, 2.0]), 3.0])
    with pytest.raises(TypeError):
        xp.asarray([["a", "b"]])
    with pytest.raises(TypeError):
        xp.asarray([None, 1.0])


def test_subclasses_of_python_scalars_take_the_checked_path():
    import enum

    class Level(enum.IntEnum):
        LOW = 1

    assert not plain_scalars_only([Level.LOW, 2])
    assert not plain_scalars_only([np.float64(1.0)])  # a float subclass


@pytest.mark.parametrize("obj", [[[1.0, 2.0], [3.0]], [1.0, [2.0]], [2 ** 70]], ids=repr)
def test_errors_are_the_checked_paths(obj):
    with pytest.raises(Exception) as checked:
        _checked_path(obj)
    with pytest.raises(type(checked.value)):
        xp.asarray(obj)


def test_a_large_list_of_lists():
    rows = np.random.default_rng(0).standard_normal((2000, 50))
    got = xp.asarray(rows.tolist())
    assert got.dtype == xp.float64
    np.testing.assert_array_equal(np.asarray(got), rows)


def test_numpys_inference_is_reused_only_when_it_is_the_target():
    from lazyarray._nested_scalars import host_array
    from lazyarray import _dtypes as dt
    rows = [[1.5, 2.0], [3.0, 4.0]]
    host = host_array(rows, None, cf._infer_dtype)
    assert host.dtype == np.float64
    np.testing.assert_array_equal(host, np.asarray(rows))
    big = [2 ** 60 + 2 ** 36 + 1]            # converts once from the int, as the checked path
    np.testing.assert_array_equal(host_array(big, dt.float32, cf._infer_dtype),
                                  np.asarray(big, dtype=np.float32))
    assert host_array([True, False], None, cf._infer_dtype).dtype == np.bool_
