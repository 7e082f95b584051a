"""Data type functions and the type-promotion table."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt

INTS = [xp.int8, xp.int16, xp.int32, xp.int64]
UINTS = [xp.uint8, xp.uint16, xp.uint32, xp.uint64]
FLOATS = [xp.float32, xp.float64]
COMPLEX = [xp.complex64, xp.complex128]


def test_promotion_table_matches_numpy_within_the_standard():
    # The standard's tables cover same-kind pairs, signed with unsigned, and real with complex
    # floats; numpy agrees with all of them.
    groups = [INTS + UINTS, FLOATS + COMPLEX, [xp.bool]]
    for group in groups:
        for a, b in itertools.product(group, repeat=2):
            if {a, b} & {xp.uint64} and {a, b} & set(INTS):
                with pytest.raises(TypeError):
                    xp.result_type(a, b)
                continue
            want = np.result_type(a.np, b.np)
            assert xp.result_type(a, b).np == want, (a, b)


def test_result_type_with_arrays_and_scalars():
    x = xp.asarray([1], dtype=xp.int16)
    assert xp.result_type(x, xp.int32) == xp.int32
    assert xp.result_type(x, 1) == xp.int16
    assert xp.result_type(xp.float32, 1.0) == xp.float32
    assert xp.result_type(xp.float32, 1j) == xp.complex64
    assert xp.result_type(xp.int8, xp.uint8, xp.int16) == xp.int16
    with pytest.raises(ValueError):
        xp.result_type()


@pytest.mark.parametrize("src,dst", [(a, b) for a in dt.ALL for b in dt.ALL])
def test_can_cast_is_the_promotion_lattice(src, dst):
    lattice = dt.PROMOTION[(src, dst)] is dst and (
        src.kind == dst.kind or (src.kind in "iu" and dst.kind in "iu") or (src.kind == "f" and dst.kind == "c"))
    assert xp.can_cast(src, dst) == (src is dst or lattice)


def test_astype():
    x = xp.asarray([1.7, -2.5, np.nan, 1e10])
    assert np.asarray(xp.astype(x, xp.int32)).tolist() == [1, -2, 0, 2**31 - 1]  # saturating
    assert np.asarray(xp.astype(x, xp.bool)).tolist() == [True, True, True, True]
    z = xp.asarray([0j, 1j])
    assert np.asarray(xp.astype(z, xp.bool)).tolist() == [False, True]
    with pytest.raises(TypeError):
        xp.astype(z, xp.float64)  # the standard: take real() or imag() first
    assert xp.astype(x, xp.float64, copy=False) is x
    y = xp.astype(x, xp.float64)
    assert y is not x and y.dtype == xp.float64


def test_finfo_iinfo():
    f = xp.finfo(xp.float32)
    assert f.bits == 32 and f.eps == float(np.finfo(np.float32).eps) and f.dtype == xp.float32
    assert xp.finfo(xp.complex128).dtype == xp.float64
    assert xp.finfo(xp.asarray(1.0)).bits == 64
    i = xp.iinfo(xp.uint8)
    assert (i.min, i.max, i.bits) == (0, 255, 8)
    with pytest.raises(ValueError):
        xp.iinfo(xp.float32)


def test_isdtype():
    assert xp.isdtype(xp.int8, "signed integer")
    assert xp.isdtype(xp.uint8, ("signed integer", "unsigned integer"))
    assert not xp.isdtype(xp.bool, "numeric")
    assert xp.isdtype(xp.complex64, "complex floating")
    assert xp.isdtype(xp.float32, xp.float32)
    with pytest.raises(ValueError):
        xp.isdtype(xp.int8, "integer-ish")
