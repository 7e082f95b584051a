"""Slices with numpy integer bounds (`x[:, :n]` of a numpy n, as SciPy computes them) take the
memoized basic plans of `_indexing._pattern` as Python int bounds do: node for node what the
general path (no pattern) binds, views where it makes views, numpy's values in both tiers,
writes through them, and the general path's errors."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _indexing
from pattern_checks import general, writes_bind_the_general_nodes

pytestmark = pytest.mark.usefixtures("both_tiers")

i64, i32, u8, ip = np.int64, np.int32, np.uint8, np.intp
S = slice
KEYS = {
    (7,): [S(i64(2)), S(i64(1), i64(5)), S(None, ip(-2)), S(i32(6), None, i64(-2)), S(u8(1), 6, u8(2)),
           (S(None, i64(3)), None), (Ellipsis, S(i64(2), None)), S(i64(-100), i64(100)), S(i64(4), i64(2))],
    (4, 6): [(S(None), S(None, i64(3))), (S(i64(1), None), S(None)), (i64(2), S(u8(1), u8(5), u8(2))),
             (S(None, None, i64(-1)), 3), (S(i32(0), i32(4), i32(3)), S(i64(-3), None)), (S(i64(1), i64(1)), 0)],
}


@pytest.mark.parametrize("shape", list(KEYS))
def test_numpy_bound_reads_bind_the_general_nodes(shape):
    a_np = np.arange(float(np.prod(shape))).reshape(shape) - 3.5
    for key in KEYS[shape]:
        for first in (True, False):
            if first:
                _indexing._read_plans.clear()
            for x in (xp.asarray(a_np), xp.asarray(a_np) * 1.0):
                got, ref = x[key], general(lambda: x[key])
                assert type(got) is type(ref) and got.shape == a_np[key].shape, (shape, key)
                assert xp.graph_text(got) == xp.graph_text(ref), (shape, key)
                np.testing.assert_array_equal(np.asarray(got), a_np[key])


@pytest.mark.parametrize("shape", list(KEYS))
def test_numpy_bound_writes_bind_the_general_nodes(shape):
    a_np = np.arange(float(np.prod(shape))).reshape(shape) + 0.5
    for key in KEYS[shape]:
        sel = a_np[key].shape
        writes_bind_the_general_nodes(a_np, key, (-2.0, -np.arange(float(np.prod(sel))).reshape(sel)))


def test_numpy_bound_view_writes_reach_the_base():
    b_np = np.arange(12.0).reshape(3, 4)
    b = xp.asarray(b_np) + 0.0
    v = b[:, i64(1):i64(3)]
    v[i64(0):i64(2), 1] = -5.0
    b_np[0:2, 2] = -5.0
    np.testing.assert_array_equal(np.asarray(b), b_np)
    b[:, :np.int32(2)] = 7.0
    b_np[:, :2] = 7.0
    np.testing.assert_array_equal(np.asarray(v), b_np[:, 1:3])


@pytest.mark.parametrize("key, exc", [
    (S(None, None, i64(0)), ValueError), ((S(i64(0), None), S(None), 0), IndexError),
    (S(np.float64(1.0), None), TypeError), ((S(None), S(i64(1), None), S(None)), IndexError),
])
def test_numpy_bound_bad_keys_keep_their_errors(key, exc):
    x = xp.asarray(np.zeros((3, 4)))
    for _ in range(2):
        with pytest.raises(exc) as got:
            x[key]
        with pytest.raises(exc) as ref:
            general(lambda: x[key])
        assert str(got.value) == str(ref.value)
        with pytest.raises(exc):
            x[key] = 1.0
