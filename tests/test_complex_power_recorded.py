"""A complex base raised to a Python-scalar exponent (`z ** 2`, SciPy's filter design) builds
only the products that exponent's bits need (`_complex_math.power_by_recorded`), where an array
exponent reads its bits in the graph (`_elementwise_functions._complex_integral_power`). Both
graphs must give the same bits in both tiers, and numpy's values."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config
from lazyarray._graph import toposort

from tier_check import specials
from lazyarray import _dtypes as dt

EXPONENTS = [0, 1, -1, 2, -2, 3, 5, 7, 8, 64, 99, -99, 100, 2**40, 2.0, -3.0, 2.5, -0.5, 1e20,
             float("inf"), float("-inf"), float("nan"), -0.0, 2 + 0j, 2 - 0j, 2 + 1j, 0.5j,
             3 + 1e-300j]


def _same_bits(got, want):
    """Equal with NaNs as a class and the sign of every zero part."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        np.testing.assert_array_equal(g, w)
        zero = (w == 0)
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]))


@pytest.mark.parametrize("interpret_first", [0, 2])
@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128])
def test_scalar_exponent_equals_array_exponent_bit_for_bit(dtype, interpret_first, monkeypatch):
    monkeypatch.setattr(_config, "interpret_first", interpret_first)
    before = xp.metrics.compiles
    base = np.concatenate([specials(dtype), np.asarray([2j, -3j, 1 + 1j, 0.5 - 2j, 1e-3 + 7j,
                                                        1.0001 + 0.0001j], dtype=dtype.np)])
    base = np.tile(base, 2)  # > 64 elements: past _host_sync's small reads, so tier 0 compiles
    for e in EXPONENTS:
        z = xp.asarray(base)
        by_scalar = np.asarray(z ** e)
        by_array = np.asarray(z ** xp.asarray(e, dtype=xp.complex128 if dtype is dt.complex128
                                                   else xp.complex64))
        _same_bits(by_scalar, by_array)
    if interpret_first == 0:
        assert xp.metrics.compiles > before  # the compiled tier was the one compared


def test_values_are_numpys_where_numpy_multiplies():
    """Integral exponents |n| < 100 on finite bases: numpy's products (exact: (2j) ** 2 = -4)."""
    a = np.array([2j, -3j, 1 + 1j, 0.5 - 2j, 3 + 0j, -2.5 + 0j, 1e-3 + 7j, 0j])
    for n in (0, 1, 2, 3, 4, 5, 13, -1, -2, -7, 2.0, -3.0):
        with np.errstate(all="ignore"):
            want = a ** n
        got = np.asarray(xp.asarray(a) ** n)
        np.testing.assert_allclose(got, want, rtol=4e-16, atol=0)
    squares = np.asarray(xp.asarray(a[:2]) ** 2)
    assert squares.real.tolist() == [-4.0, -9.0] and squares.imag.tolist() == [0.0, 0.0]


def test_a_small_exponent_records_only_its_products():
    z = xp.asarray([1 + 2j, 3 - 1j])
    ops_of = lambda y: [n.op.name for n in toposort([y._node])[0] if n.op is not None]
    square = ops_of(z ** 2)
    assert square.count("multiply") == 1 and "power" not in square and len(square) <= 6
    assert ops_of(z ** 5).count("multiply") == 3     # z, z^2, z^4: two squarings, one product
    assert ops_of(z ** 0.5).count("power") == 1      # not integral: the general power
    assert ops_of(z ** xp.asarray(2 + 0j)).count("shift_right_logical") == 7  # array: bits read at run time


def test_the_exponent_changes_the_graph_not_a_stale_result():
    """The graph no longer reads the exponent's leaf: each exponent is its own structure, so a
    cached program can never serve another exponent's power."""
    a = np.array([1 + 2j, 0.5 - 1j])
    for _ in range(3):
        for n in (2, 3, 4, -2):
            np.testing.assert_allclose(np.asarray(xp.asarray(a) ** n), a ** n, rtol=4e-16)
