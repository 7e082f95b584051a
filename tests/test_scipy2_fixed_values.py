"""Constants' and iotas' values shared by every graph's first run (`_interpret.fixed_value`): the
same values as the compiled tier, read-only while shared, outputs their own writeable memory,
keys exact (-0.0 apart from 0.0), and the table emptied when full."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _interpret
from lazyarray._interpret import FIXED_OPS, fixed_value

pytestmark = pytest.mark.usefixtures("both_tiers")


def _graphs(x):
    return [
        xp.zeros(3),                      # a constant broadcast: the output is the constant's view
        xp.arange(5),                     # an iota alone: the output is the shared value
        x * 0 + xp.zeros(6),
        xp.sum(xp.ones((2, 3)), axis=0),
        xp.eye(3),
        xp.arange(6.0) - x,
        xp.reshape(xp.arange(12, dtype=xp.int32), (3, 4)),
        xp.full((2, 2), -0.0) + xp.full((2, 2), 0.0),
        xp.full((4,), np.nan),
    ]


def _expected(xn):
    return [np.zeros(3), np.arange(5), xn * 0 + np.zeros(6), np.sum(np.ones((2, 3)), axis=0),
            np.eye(3), np.arange(6.0) - xn, np.arange(12, dtype=np.int32).reshape(3, 4),
            np.full((2, 2), -0.0) + np.full((2, 2), 0.0), np.full((4,), np.nan)]


def test_values_twice_and_outputs_writeable():
    xn = np.linspace(-1, 1, 6)
    for rnd in range(3):  # (first runs, then kept programs: the shared values met again)
        got = [np.asarray(a) for a in _graphs(xp.asarray(xn))]
        for g, w in zip(got, _expected(xn)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
            assert np.array_equal(np.signbit(g), np.signbit(w))
        # writing into an output never reaches a later graph's constant
        for a in _graphs(xp.asarray(xn)):
            a[...] = 7
            assert np.all(np.asarray(a) == 7)


def test_small_read_with_constants():
    x = xp.asarray(np.array([0.5, -0.0, 2.0]))
    assert bool(xp.all(x < xp.full((3,), 3.0)))
    assert int(xp.sum(xp.arange(4) * 2)) == 12
    assert float(xp.max(xp.zeros(3) - 1.5)) == -1.5


def test_keys_exact_and_read_only():
    from lazyarray import _ops as ops
    pos, neg = ops.constant(0.5, xp.float64), ops.constant(-0.5, xp.float64)
    a, b = fixed_value(pos), fixed_value(neg)
    assert a == 0.5 and b == -0.5 and not a.flags.writeable and fixed_value(pos) is a
    z = xp.asarray(np.zeros(3))
    nz = xp.full((3,), -0.0)
    assert not np.any(np.signbit(np.asarray(z * 1.0 + nz)))  # (0.0 + -0.0 = +0.0)
    assert np.all(np.signbit(np.asarray(nz + xp.full((3,), -0.0))))
    with pytest.raises(ValueError):
        a[()] = 1.0


def test_table_bound(monkeypatch):
    from lazyarray import _ops as ops
    monkeypatch.setattr(_interpret, "_FIXED", {})
    monkeypatch.setattr(_interpret, "FIXED_KEPT", 4)
    for i in range(10):
        v = fixed_value(ops.constant(float(i) + 0.25, xp.float64))
        assert v == i + 0.25
        assert len(_interpret._FIXED) <= 4


def test_table_byte_bound(monkeypatch):
    monkeypatch.setattr(_interpret, "_FIXED", {})
    monkeypatch.setattr(_interpret, "_fixed_bytes", [0])
    monkeypatch.setattr(_interpret, "FIXED_KEPT_BYTES", 3000)
    for n in range(100, 140):
        np.testing.assert_array_equal(np.asarray(xp.arange(n, dtype=xp.float64)), np.arange(n, dtype=np.float64))
        held = sum(v.nbytes for v in _interpret._FIXED.values())
        assert held <= 3000 and held == _interpret._fixed_bytes[0]


def test_large_value_not_kept(monkeypatch):
    monkeypatch.setattr(_interpret, "_FIXED", {})
    n = (_interpret.FIXED_MAX_BYTES // 8) + 1
    a = xp.arange(n, dtype=xp.float64)
    np.testing.assert_array_equal(np.asarray(a), np.arange(n, dtype=np.float64))
    assert all(v.nbytes <= _interpret.FIXED_MAX_BYTES for v in _interpret._FIXED.values())
    assert FIXED_OPS
