"""repeat with array repeats on one CPU device reads the counts once and numbers the output's
sources by numpy (`_manipulation_functions._repeat_array` where `_host_counts`): the same
values and errors as the device path (cumulative sum and scatter in the graph) and as numpy, in both tiers, for counts
that are a leaf, a pending graph (SciPy's rankdata: `repeat(ranks, diff(indices))`) or one count
broadcast."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _manipulation_functions as mf

pytestmark = pytest.mark.usefixtures("both_tiers")

X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) * 1.5 - 7.0

CASES = [([2, 0, 3], 1), ([1], 0), ([0, 1, 4, 2], -1), (list(range(24)), None), ([0, 0], 0),
         ([3, 1], 0), ([5], 2)]


@pytest.fixture(params=["host", "device"])
def path(request, monkeypatch):
    if request.param == "device":
        monkeypatch.setattr(mf, "_host_counts", lambda device: False)
    return request.param


def _eq(got, expected):
    got = np.asarray(got)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("repeats,axis", CASES)
def test_leaf_counts(path, repeats, axis):
    r = np.array(repeats, dtype=np.int16)
    _eq(xp.repeat(xp.asarray(X), xp.asarray(r), axis=axis), np.repeat(X, r, axis=axis))


@pytest.mark.parametrize("repeats,axis", CASES)
def test_pending_counts_and_x(path, repeats, axis):
    """counts computed by a pending graph (a difference of cumulative ends), x pending too."""
    r = np.array(repeats, dtype=np.int64)
    ends = np.concatenate([[0], np.cumsum(r)])
    counts = xp.asarray(ends)[1:] - xp.asarray(ends)[:-1]
    x = xp.asarray(X) * 2.0 + 1.0
    _eq(xp.repeat(x, counts, axis=axis), np.repeat(X * 2.0 + 1.0, r, axis=axis))


def test_rankdata_pattern(path):
    """SciPy's rankdata steps: unique positions by a mask, their counts by diff, ranks repeated."""
    v = np.array([3.0, 1.0, 2.0, 2.0, 5.0, 1.0, 1.0, 7.0, 3.0])
    y = np.sort(v)
    i = np.concatenate([[True], y[:-1] != y[1:]])
    idx = np.arange(y.size)[i]
    counts = np.diff(idx, append=y.size)
    ranks = (idx + 1) + (counts - 1) / 2
    ya = xp.asarray(y)
    ia = xp.concat([xp.ones((1,), dtype=xp.bool), ya[:-1] != ya[1:]])
    idxa = xp.arange(y.size)[ia]
    countsa = xp.diff(idxa, append=xp.asarray([y.size], dtype=idxa.dtype))
    ranksa = xp.astype(idxa + 1, xp.float64) + (xp.astype(countsa, xp.float64) - 1) / 2
    _eq(xp.repeat(ranksa, countsa), np.repeat(ranks, counts))


def test_negative_count_raises_and_leaves_x(path):
    x = xp.asarray(X)
    counts = xp.asarray(np.array([1, 3, 2])) - xp.asarray(np.array([0, 4, 0]))  # [1, -1, 2], pending
    with pytest.raises(ValueError):
        xp.repeat(x, counts, axis=1)
    _eq(x, X)
    _eq(xp.repeat(x, counts * counts, axis=1), np.repeat(X, [1, 1, 4], axis=1))


def test_one_sync(path, monkeypatch):
    from lazyarray import _engine
    calls = []
    for name in ("realize", "to_numpy"):
        real = getattr(_engine, name)
        monkeypatch.setattr(_engine, name, lambda *a, _r=real, _n=name, **k: (calls.append((_n, a[2])), _r(*a, **k))[1])
    out = xp.repeat(xp.asarray(X), xp.asarray(np.array([1, 0, 2])) + 0, axis=1)
    engine_work = [c for c in calls if c[1] == "repeat"]
    assert engine_work == ([("to_numpy", "repeat")] if path == "host" else
                           [("realize", "repeat"), ("to_numpy", "repeat"), ("to_numpy", "repeat")])
    _eq(out, np.repeat(X, [1, 0, 2], axis=1))
