"""The interpreter's first run and small host reads call an evaluation with its operands as they
are for one or two operands, and through a list for more (select, concatenate): the values agree
with numpy in both tiers for nodes of 0 to 4 operands."""
import numpy as np
import pytest

import lazyarray as xp

pytestmark = pytest.mark.usefixtures("both_tiers")


def test_first_runs():
    an, bn = np.linspace(-2, 2, 7), np.linspace(3, -1, 7)
    for _ in range(3):
        a, b = xp.asarray(an), xp.asarray(bn)
        got = xp.where(a > b, a - b, xp.abs(b * 2.0)) + xp.concat([a[:3], b[:2], a[5:]])
        want = np.where(an > bn, an - bn, np.abs(bn * 2.0)) + np.concatenate([an[:3], bn[:2], an[5:]])
        np.testing.assert_array_equal(np.asarray(got), want)
        np.testing.assert_array_equal(np.asarray(xp.arange(7.0) * a), np.arange(7.0) * an)


def test_small_reads():
    an, bn = np.array([1.0, -2.0, 3.0]), np.array([0.5, 4.0, -1.0])
    a, b = xp.asarray(an), xp.asarray(bn)
    assert float(xp.max(xp.where(a < b, a, b) - b)) == float(np.max(np.where(an < bn, an, bn) - bn))
    assert bool(xp.all(xp.concat([a, b]) < 5.0))
    assert int(xp.sum(xp.astype(a > b, xp.int64) * 3)) == int(np.sum((an > bn).astype(np.int64) * 3))
    assert float(a[1] * b[1]) == -8.0
