"""Basic keys with an ellipsis (`x[..., j]`, `x[i, ...]`, `x[...]`: SciPy's elementwise code
indexes so) take the memoized plans of `_indexing._pattern` like keys without one: node for node
what the general path (no pattern) binds, views where it makes views, numpy's values in both
tiers, writes through them reaching the base, and the general path's errors."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _indexing
from lazyarray._array_object import _View
from pattern_checks import writes_bind_the_general_nodes

pytestmark = pytest.mark.usefixtures("both_tiers")

E = Ellipsis
KEYS = {  # shape -> keys with an ellipsis
    (): [E, (E,), (E, None), (None, E)],
    (5,): [E, (E, 3), (3, E), (E, -1), (E, slice(1, 4)), (slice(None, None, -2), E), (E, None),
           (None, E, 2), (E, slice(None))],
    (3, 4): [E, (E, 1), (2, E), (E, -1), (E, 1, 2), (1, E, 2), (E, slice(1, 3)), (slice(0, 2), E),
             (E, None), (None, E, 0), (E, slice(None, None, 2)), (0, E, slice(3, 0, -1)),
             (E, np.int64(2)), (np.int32(-1), E)],
    (2, 3, 4): [(E, 1), (E, 1, 2), (0, E, 3), (1, E), (E, slice(1, 3), 0), (E, 0, 0, 0), (0, 1, 2, E)],
    (0, 3): [(E, 1), (E, slice(1, 2)), E],
}


def _general(x, key, monkeypatch):
    """x[key] by the general path (no key has a pattern)."""
    with monkeypatch.context() as m:
        m.setattr(_indexing, "_pattern", lambda key: None)
        return x[key]


def _operands(a_np):
    """(array, its numpy value): a leaf, a pending node, a view (a row or column block)."""
    yield xp.asarray(a_np), a_np
    yield xp.asarray(a_np) * 2.0, a_np * 2.0
    if a_np.ndim >= 1 and a_np.shape[0] > 1:
        big = np.concatenate([a_np, a_np + 100.0])
        yield xp.asarray(big)[a_np.shape[0]:], big[a_np.shape[0]:]


@pytest.mark.parametrize("shape", list(KEYS))
def test_ellipsis_reads_bind_the_general_nodes(shape, monkeypatch):
    a_np = np.asarray(np.arange(float(np.prod(shape)), dtype=np.float64).reshape(shape) - 2.5)
    for key in KEYS[shape]:
        for first in (True, False):  # a plan made at this call, then the memoized one
            if first:
                _indexing._read_plans.clear()
            for x, x_np in _operands(a_np):
                want = x_np[key]
                got, ref = x[key], _general(x, key, monkeypatch)
                assert type(got) is type(ref), (shape, key)
                assert got.shape == want.shape == ref.shape, (shape, key)
                assert xp.graph_text(got) == xp.graph_text(ref), (shape, key)
                np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("shape", [s for s in KEYS if 0 not in s])
def test_ellipsis_writes_bind_the_general_nodes(shape):
    a_np = np.asarray(np.arange(float(np.prod(shape)), dtype=np.float64).reshape(shape) + 0.5)
    for key in KEYS[shape]:
        sel_shape = a_np[key].shape
        writes_bind_the_general_nodes(a_np, key, (-7.0, np.full(sel_shape, -3.0) - np.arange(np.prod(sel_shape)).reshape(sel_shape)))


def test_ellipsis_views_stay_views_both_ways():
    b_np = np.arange(12.0).reshape(3, 4)
    b = xp.asarray(b_np) + 0.0
    col = b[..., 1]
    assert type(col) is _View
    col[2] = -1.0          # a write into the view reaches the base
    b_np[2, 1] = -1.0
    np.testing.assert_array_equal(np.asarray(b), b_np)
    b[0, ...] = 5.0        # a write into the base reaches the view
    b_np[0, ...] = 5.0
    np.testing.assert_array_equal(np.asarray(col), b_np[..., 1])
    row = b[1, ...]
    row[..., 3] = 9.0      # an ellipsis write through a view composes to the base
    b_np[1, 3] = 9.0
    np.testing.assert_array_equal(np.asarray(b), b_np)
    np.testing.assert_array_equal(np.asarray(row), b_np[1])
    e = b[..., 2][...]     # a view of a view, written element-wise
    e[..., 0] = 4.0
    b_np[0, 2] = 4.0
    np.testing.assert_array_equal(np.asarray(b), b_np)
    s = xp.asarray(np.float64(3.0)) + 0.0
    whole = s[...]
    assert type(whole) is _View and whole.shape == ()
    s[...] = 8.0
    assert float(whole) == 8.0


@pytest.mark.parametrize("key, exc", [
    ((E, E), IndexError), ((E, 1, E), IndexError), ((E, 0, 0, 0), IndexError), ((E, 4), IndexError),
    ((5, E), IndexError), ((E, -5), IndexError),
])
def test_ellipsis_bad_keys_keep_their_errors(key, exc, monkeypatch):
    x = xp.asarray(np.zeros((3, 4)))
    for _ in range(2):  # (never stored: the same error every call)
        with pytest.raises(exc) as got:
            x[key]
        with pytest.raises(exc) as ref:
            _general(x, key, monkeypatch)
        assert str(got.value) == str(ref.value)
        with pytest.raises(exc):
            x[key] = 1.0
    np.testing.assert_array_equal(np.asarray(x), np.zeros((3, 4)))
