"""Basic reads by a memoized plan share one view step (`_indexing._basic_read`): views made by
the same key on arrays of the same shape hold the same step object, and each is still a live
alias of its own base, both ways, with numpy's values."""
import numpy as np

import lazyarray as xp
from lazyarray._basic_indexing import BasicIndex


def test_views_of_one_key_share_the_step_and_stay_independent_aliases():
    a_np, b_np = np.arange(12.0).reshape(3, 4), np.arange(12.0).reshape(3, 4) * 10.0
    a, b = xp.asarray(a_np), xp.asarray(b_np)
    va, vb = a[:, 1], b[:, 1]
    assert type(va._step) is BasicIndex and va._step is vb._step
    va[0] = -1.0  # a write through one view reaches its base only
    a_np[0, 1] = -1.0
    np.testing.assert_array_equal(np.asarray(a), a_np)
    np.testing.assert_array_equal(np.asarray(b), b_np)
    b[2, 1] = 7.0  # a write to the other base shows in its view only
    b_np[2, 1] = 7.0
    np.testing.assert_array_equal(np.asarray(vb), b_np[:, 1])
    np.testing.assert_array_equal(np.asarray(va), a_np[:, 1])


def test_none_and_slice_keys_read_as_numpy():
    v_np = np.arange(5.0)
    v = xp.asarray(v_np) * 1.0
    for _ in range(2):  # the second read takes the memoized plan and its step
        np.testing.assert_array_equal(np.asarray(v[:, None]), v_np[:, None])
        np.testing.assert_array_equal(np.asarray(v[None, :]), v_np[None, :])
        np.testing.assert_array_equal(np.asarray(v[1:4]), v_np[1:4])
    w = v[1:4]
    w[...] = 0.0
    v_np[1:4] = 0.0
    np.testing.assert_array_equal(np.asarray(v), v_np)
