"""A copied host alias is compared with its node bit for bit, once per flush: the small-alias
comparison by bytes and the larger one by words find the same changes (a NaN's payload, a zero's
sign, one element of a big array), and an alias dropped right after a write is taken in once and
forgotten."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _graph, _host_alias


def _leaf(values):
    values = np.asarray(values)
    return _graph.leaf_from_host(values.copy(), values.shape, xp.asarray(values).dtype)


@pytest.mark.parametrize("n", [3, 5000, 20000])   # bytes below _BYTES_COMPARE, words above it
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex64, np.int8, np.bool_])
def test_agrees_is_bitwise(n, dtype):
    base = (np.arange(n) % 7).astype(dtype)
    node = _leaf(base)
    assert _host_alias._agrees(base.copy(), node)
    changed = base.copy()
    changed[n // 2] = 1 if changed[n // 2] == 0 else 0
    assert not _host_alias._agrees(changed, node)
    if np.dtype(dtype).kind in "fc":
        zero = np.zeros(n, dtype)
        negzero = zero.copy()
        negzero[-1] = -negzero[-1] if np.dtype(dtype).kind == "f" else complex(-0.0, 0.0)
        assert not _host_alias._agrees(negzero, _leaf(zero))
        nan = np.full(n, np.nan, dtype)
        other = nan.copy()
        other.view(np.uint8)[0] ^= 1  # another NaN payload
        assert np.isnan(other[0])
        assert _host_alias._agrees(nan.copy(), _leaf(nan))
        assert not _host_alias._agrees(other, _leaf(nan))


def test_agrees_with_a_non_contiguous_alias_and_a_broadcast_host_value():
    values = np.arange(12.0).reshape(3, 4)
    assert _host_alias._agrees(values.T.copy().T, _leaf(values))       # Fortran order
    node = _graph.leaf_from_host(np.float64(2.5), (2, 3), xp.float64)  # a 0-D host value of a (2, 3) node
    assert _host_alias._agrees(np.full((2, 3), 2.5), node)
    assert not _host_alias._agrees(np.full((3, 2), 2.5), node)


@pytest.mark.parametrize("n", [4, 20000])
def test_alias_dropped_after_a_write_is_taken_in_once_and_forgotten(n):
    x = xp.zeros(n)
    keep = x[1:]  # a view: np.asarray(keep) is a copied alias
    h = np.asarray(keep)
    h[0] = 7.0
    del h
    fam = _host_alias._family_of(x)
    assert fam is not None and len(fam.aliases) == 1
    assert float(x[1]) == 7.0  # the read flushes: the write is taken in
    assert _host_alias._family_of(x) is None  # and the dropped alias forgotten
    expected = np.zeros(n)
    expected[1] = 7.0
    np.testing.assert_array_equal(np.asarray(x, copy=True), expected)


def test_held_alias_stays_and_keeps_receiving_writes():
    x = xp.zeros(6)
    keep = x[2:]
    h = np.asarray(keep)
    h[1] = 3.0
    other = np.asarray(x[:2])  # another export flushes the family: h is held, so it stays
    del other
    assert float(x[3]) == 3.0
    x[4] = 5.0
    np.testing.assert_array_equal(h, [0.0, 3.0, 5.0, 0.0])
    h[0] = -1.0
    assert float(xp.sum(x)) == 7.0
