"""A window write's reshape of its value (`_indexing._window_write`: `covariances[k, :, :] = c`,
`log_prob[:, k] = v`) is bound at once for a value that is no pending reshape or broadcast, and
through `ops.reshape`'s rewrites for one that is: node for node what the general path (no key
pattern) binds, for leaves, pending values, reshapes, broadcasts and views, numpy's values in both
tiers."""
import numpy as np
import pytest

import lazyarray as xp
from pattern_checks import general

pytestmark = pytest.mark.usefixtures("both_tiers")


def _values(sel, rng):
    n = int(np.prod(sel))
    flat = rng.standard_normal(n)
    row = rng.standard_normal(sel[-1:])
    return {
        "leaf": lambda: (xp.asarray(flat.reshape(sel)), flat.reshape(sel)),
        "pending": lambda: (xp.asarray(flat.reshape(sel)) * 2.0, flat.reshape(sel) * 2.0),
        "reshape": lambda: (xp.reshape(xp.asarray(flat) + 1.0, sel), flat.reshape(sel) + 1.0),
        "broadcast": lambda: (xp.broadcast_to(xp.asarray(row) - 1.0, sel), np.broadcast_to(row - 1.0, sel)),
        "view": lambda: (xp.stack([xp.asarray(flat.reshape(sel))] * 2)[1], flat.reshape(sel)),
    }


@pytest.mark.parametrize("shape,key", [((3, 8, 8), (1, slice(None), slice(None))), ((30, 3), (slice(None), 2)),
                                       ((6, 5), (slice(1, 4), slice(0, 2))), ((4, 1, 5), (2, 0, slice(None)))])
@pytest.mark.parametrize("kind", ["leaf", "pending", "reshape", "broadcast", "view"])
def test_window_value_nodes_as_the_general_path(shape, key, kind):
    rng = np.random.default_rng(3)
    a_np = rng.standard_normal(shape)
    sel = a_np[key].shape
    make = _values(sel, rng)[kind]
    for _ in range(2):  # (the window made, then kept)
        fast, slow = xp.asarray(a_np) * 1.0, xp.asarray(a_np) * 1.0
        value, value_np = make()
        fast[key] = value
        general(lambda: slow.__setitem__(key, value))
        assert xp.graph_text(fast) == xp.graph_text(slow), (kind, key)
        want = a_np.copy()
        want[key] = value_np
        np.testing.assert_array_equal(np.asarray(fast), want)
        np.testing.assert_array_equal(np.asarray(slow), want)
