"""What the indexing pattern tests share: running a call by the general path (no key has a
pattern), and the write check: `x[key] = value` through `_indexing._pattern`'s memoized plans
binds node for node what the general path binds, and gives numpy's values."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _indexing


def general(fn):
    """fn() run by the general path (no key has a pattern)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_indexing, "_pattern", lambda key: None)
        return fn()


def writes_bind_the_general_nodes(a_np, key, values):
    """For each value (a float, or a numpy array of the selection's shape): a write with a plan
    made at the call, then with the memoized one, against the general path's write."""
    for value in values:
        for first in (True, False):
            if first:
                _indexing._write_plans.clear()
            x, ref = xp.asarray(a_np) + 0.0, xp.asarray(a_np) + 0.0
            v = value if isinstance(value, float) else xp.asarray(value)
            x[key] = v
            general(lambda: ref.__setitem__(key, v))
            assert xp.graph_text(x) == xp.graph_text(ref), (a_np.shape, key)
            want = a_np.copy()
            want[key] = value
            np.testing.assert_array_equal(np.asarray(x), want)
