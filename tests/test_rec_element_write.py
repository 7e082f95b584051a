"""`x[i, j] = v` of two Python ints and a 0-D array of x's dtype (scikit-learn's `_add_to_diagonal`:
`a[i, i] = value[i]`) takes setitem's shortcut once the key's write plan is known: node for node
what the pattern path binds (the same key of numpy integers, which the shortcut leaves alone),
through views too, numpy's values in both tiers, and the general path's errors."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _indexing

pytestmark = pytest.mark.usefixtures("both_tiers")


def _diagonal_writes(a_np, value_np, through_view, as_numpy_int, keys):
    base = xp.asarray(a_np) * 1.0
    target = base[1, :, :] if through_view else base
    vec = xp.asarray(value_np) + 0.0
    for i, j in keys:
        key = (np.int64(i), j) if as_numpy_int else (i, j)
        target[key] = vec[i]
    return base, target


@pytest.mark.parametrize("through_view", [False, True])
@pytest.mark.parametrize("keys", [[(i, i) for i in range(4)], [(0, 1), (3, 2), (2, 2), (0, 1)],
                                  [(-1, -1), (1, -3)], [(i, i) for i in range(4)] * 20])
def test_shortcut_binds_the_pattern_path_nodes(through_view, keys):
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal((3, 4, 4) if through_view else (4, 4))
    value_np = rng.standard_normal(4)
    for first in (True, False):
        if first:
            _indexing._write_plans.clear()
        got_base, got = _diagonal_writes(a_np, value_np, through_view, False, keys)
        ref_base, ref = _diagonal_writes(a_np, value_np, through_view, True, keys)
        assert xp.graph_text(got_base) == xp.graph_text(ref_base)
        expect = a_np.copy()
        view = expect[1] if through_view else expect
        for i, j in keys:
            view[i, j] = value_np[i]
        np.testing.assert_array_equal(np.asarray(got_base), expect)
        np.testing.assert_array_equal(np.asarray(got), view)


def test_shortcut_other_values_keep_their_paths():
    a_np = np.arange(16.0).reshape(4, 4)
    for value, expect in ((xp.asarray(np.float32(2.5)), 2.5), (xp.asarray(7), 7.0), (xp.asarray(-1.5) * 2.0, -3.0)):
        a = xp.asarray(a_np) + 0.0
        a[1, 2] = value
        a[1, 2] = value  # (the plan now known)
        want = a_np.copy(); want[1, 2] = expect
        np.testing.assert_array_equal(np.asarray(a), want)
    a = xp.asarray(a_np) + 0.0
    a[1, 1] = xp.asarray(9.0)
    with pytest.raises(IndexError):  # (True == 1 as a dict key: the plan of (1, 1) is no plan for it)
        a[True, 1] = xp.asarray(9.0)
    want = a_np.copy(); want[1, 1] = 9.0
    np.testing.assert_array_equal(np.asarray(a), want)
    a = xp.asarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    a[1, 1] = xp.asarray(np.int32(40))
    a[1, 1] = xp.asarray(np.int32(41))
    np.testing.assert_array_equal(np.asarray(a), [[0, 1, 2], [3, 41, 5]])


def test_shortcut_errors_unchanged():
    a = xp.asarray(np.zeros((3, 3))) + 0.0
    a[0, 0] = xp.asarray(1.0)
    with pytest.raises(IndexError):
        a[3, 0] = xp.asarray(1.0)
    with pytest.raises(TypeError):
        a[0, 0] = xp.asarray(1.0 + 2.0j)
    with pytest.raises(ValueError):
        a[0, 0] = xp.asarray([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(a), np.diag([1.0, 0, 0]))
