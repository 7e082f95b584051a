"""unique_* on one CPU device sorts in numpy from x's value (`_set_functions._Runs._host_runs`,
INTERP, issue 11 target 1: scikit-learn asks unique_values(y) at every fit and score, ~110 times
a pass of its estimators, each a graph's sync of ~300 us before).

The host path must give the graph path's results bit for bit (the graph's sort runs in either
tier: the same stable sort by the same order keys), numpy's values under the standard's
equality (each NaN its own value, -0.0 == +0.0), and still cost one sync of cause "unique" per
call, whether x was pending (its own sync) or already computed (a host read, no program).
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _set_functions

pytestmark = pytest.mark.usefixtures("both_tiers")

_NAN2 = np.frombuffer(np.array([0x7FF8000000000123], np.uint64).tobytes(), np.float64)[0]  # a NaN payload

_CASES = [
    np.array([3.0, np.nan, -0.0, 0.0, 1.0, _NAN2, 3.0, -np.inf, 1.0, 0.0, -0.0, np.inf]),
    np.array([-0.0, 0.0, -0.0, 2.5, np.nan, -np.nan], dtype=np.float32),
    np.array([[2, 7, 2], [7, 7, 1]], dtype=np.int32),
    np.array([-128, 127, 0, -128, 5], dtype=np.int8),
    np.array([4, 0, 2**32 - 1, 4], dtype=np.uint32),
    np.array([1 + 1j, complex(np.nan, 1), 1 + 1j, 2j, complex(1, np.nan), -0.0 + 2j, 0.0 + 2j], dtype=np.complex128),
    np.array([1 + 2j, 1 - 2j, 1 + 2j], dtype=np.complex64),
    np.array(5.0),
    np.array([True, False, True, True]),
    np.random.default_rng(3).integers(0, 3, 300).astype(np.int64),
    np.round(np.random.default_rng(4).standard_normal((30, 10)), 1),
]


def _all(values, host, pending):
    _set_functions._Runs.host_results = host
    try:
        x = xp.asarray(values)
        if pending:
            x = x * 1 if values.dtype.kind != "b" else xp.logical_not(xp.logical_not(x))
        return [np.asarray(a) for a in xp.unique_all(x)]
    finally:
        _set_functions._Runs.host_results = True


@pytest.mark.parametrize("pending", [False, True], ids=["computed", "pending"])
@pytest.mark.parametrize("values", _CASES, ids=lambda v: f"{v.dtype}{list(v.shape)}")
def test_host_runs_are_the_graphs_bits(values, pending):
    got = _all(values, True, pending)
    want = _all(values, False, pending)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.atleast_1d(a).tobytes() == np.atleast_1d(b).tobytes()
    values_, indices, inverse, counts = got
    flat = values.reshape(-1)
    # numpy's view of the same answer: first indices point at the values, inverse rebuilds x,
    # counts add up, the values sorted ascending with NaNs last, each NaN its own value
    np.testing.assert_array_equal(flat[indices], values_)
    np.testing.assert_array_equal(values_[inverse].reshape(values.shape), values)
    assert counts.sum() == flat.size and (counts > 0).all()
    nan = np.isnan(flat) if flat.dtype.kind in "fc" else np.zeros(flat.shape, bool)
    finite = flat[~nan]
    np.testing.assert_array_equal(values_[:values_.size - nan.sum()], np.unique(finite))
    assert np.isnan(values_[values_.size - nan.sum():]).all()


@pytest.mark.parametrize("pending", [False, True], ids=["computed", "pending"])
def test_one_sync_either_way(engine, pending):
    m = xp.metrics
    x = xp.asarray(np.array([3, 1, 3, 2, 1]))
    if pending:
        x = x + 0
    m.reset()
    out = xp.unique_values(x)
    assert sum(m.syncs.values()) == 1 and m.syncs["unique"] == 1
    if not pending:
        assert m.interpreted == 0 and m.compiles == 0  # (no program: a host read)
    np.testing.assert_array_equal(np.asarray(out), [1, 2, 3])
