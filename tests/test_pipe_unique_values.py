"""unique_values of integers and bools on the CPU sorts the values alone (`_set_functions._Runs`,
values_only: np.sort, no permutation): the same values, bit for bit, as unique_all's (the stable
sort's) and as the graph path's, pending or computed, one sync of cause "unique" either way."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _set_functions

pytestmark = pytest.mark.usefixtures("both_tiers")

_CASES = [
    np.array([[2, 7, 2], [7, 7, 1]], dtype=np.int32),
    np.array([-128, 127, 0, -128, 5], dtype=np.int8),
    np.array([4, 0, 2**32 - 1, 4], dtype=np.uint32),
    np.array([2**63 - 1, -2**63, 0, -1, 2**63 - 1], dtype=np.int64),
    np.array([True, False, True, True]),
    np.array([True, True]),
    np.array(7, dtype=np.int16),
    np.array([9], dtype=np.uint8),
    np.random.default_rng(3).integers(0, 3, 5000).astype(np.int64),
    np.random.default_rng(4).integers(-50, 50, (40, 30)).astype(np.int32),
]


def _values(values, host, pending):
    _set_functions._Runs.host_results = host
    try:
        x = xp.asarray(values)
        if pending:
            x = x * 1 if values.dtype.kind != "b" else xp.logical_not(xp.logical_not(x))
        return np.asarray(xp.unique_values(x)), np.asarray(xp.unique_all(x).values)
    finally:
        _set_functions._Runs.host_results = True


@pytest.mark.parametrize("pending", [False, True], ids=["computed", "pending"])
@pytest.mark.parametrize("values", _CASES, ids=lambda v: f"{v.dtype}{list(v.shape)}")
def test_unique_values_of_integers_are_unique_alls(values, pending):
    got, via_all = _values(values, True, pending)
    graph, _ = _values(values, False, pending)
    for other in (via_all, graph):
        assert got.dtype == other.dtype and got.shape == other.shape
        assert got.tobytes() == other.tobytes()
    np.testing.assert_array_equal(got, np.unique(values))
    assert got.dtype == values.dtype


@pytest.mark.parametrize("pending", [False, True], ids=["computed", "pending"])
def test_unique_values_one_sync(engine, pending):
    m = xp.metrics
    x = xp.asarray(np.array([3, 1, 3, 2, 1], dtype=np.int64))
    if pending:
        x = x + 0
    m.reset()
    out = xp.unique_values(x)
    assert sum(m.syncs.values()) == 1 and m.syncs["unique"] == 1
    np.testing.assert_array_equal(np.asarray(out), [1, 2, 3])
    y = x + 1  # (the input stays usable and unchanged)
    np.testing.assert_array_equal(np.asarray(y), [4, 2, 4, 3, 2])


def test_unique_values_of_empty_integers():
    out = xp.unique_values(xp.asarray(np.zeros((0, 3), np.int32)))
    assert out.shape == (0,) and out.dtype == xp.int32
