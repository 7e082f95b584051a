"""finfo and iinfo keep one frozen object per dtype (`_data_type_functions._finfos`, `_iinfos`):
the same values as numpy's, for a dtype or an array, the same errors at every call, and a
later call answers the same object."""
import dataclasses

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _data_type_functions as dtf


@pytest.mark.parametrize("dtype", [xp.float32, xp.float64, xp.complex64, xp.complex128, xp.float16], ids=str)
def test_finfo_values_and_one_object(dtype):
    real = {xp.complex64: np.float32, xp.complex128: np.float64}.get(dtype, dtype.np)
    f = np.finfo(real)
    for _ in range(2):
        for arg in (dtype, xp.zeros(2, dtype=dtype)):
            got = xp.finfo(arg)
            assert (got.bits, got.eps, got.max, got.min, got.smallest_normal) == (
                f.bits, float(f.eps), float(f.max), float(f.min), float(f.smallest_normal))
            assert got.dtype == {xp.complex64: xp.float32, xp.complex128: xp.float64}.get(dtype, dtype)
    assert xp.finfo(dtype) is xp.finfo(dtype) is dtf._finfos[dtype]
    with pytest.raises(dataclasses.FrozenInstanceError):
        xp.finfo(dtype).eps = 1.0


@pytest.mark.parametrize("dtype", [xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16,
                                   xp.uint32, xp.uint64], ids=str)
def test_iinfo_values_and_one_object(dtype):
    i = np.iinfo(dtype.np)
    for _ in range(2):
        for arg in (dtype, xp.zeros(2, dtype=dtype)):
            got = xp.iinfo(arg)
            assert (got.bits, got.max, got.min, got.dtype) == (i.bits, int(i.max), int(i.min), dtype)
    assert xp.iinfo(dtype) is xp.iinfo(dtype)


def test_errors_at_every_call():
    for _ in range(3):
        with pytest.raises(ValueError):
            xp.finfo(xp.int32)
        with pytest.raises(ValueError):
            xp.iinfo(xp.float64)
        with pytest.raises(ValueError):
            xp.iinfo(xp.bool)
        with pytest.raises((TypeError, ValueError)):
            xp.finfo("not a dtype")
    assert xp.int32 not in dtf._finfos and xp.float64 not in dtf._iinfos
