"""`_interpret._leaf_values`, the leaf loop of `HostProgram.run`: each kind of leaf gets the value
`leaf_value` / `int_value` gives it (a host array as it is, a Python int's shared read-only
value, a float or bool converted), and a built program's runs over such leaves give numpy's
results with their outputs writeable."""
import numpy as np
import pytest

from lazyarray import _dtypes as dt
from lazyarray import _interpret
from lazyarray import _ops as ops
from lazyarray._graph import Plan, leaf_from_host


def _leaves():
    a = np.arange(6.0).reshape(2, 3)
    return [
        leaf_from_host(a, (2, 3), dt.float64),                      # exact host array: itself
        leaf_from_host(np.arange(6, dtype=np.int32), (6,), dt.int64),  # another dtype: converted
        leaf_from_host(np.arange(6.0), (2, 3), dt.float64),         # another shape: reshaped
        leaf_from_host(7, (), dt.int64),                            # Python ints: shared values
        leaf_from_host(7, (), dt.int32),
        leaf_from_host(-3, (), dt.float64),
        leaf_from_host(2.5, (), dt.float32),                        # a float, a bool: converted
        leaf_from_host(True, (), dt.bool),
    ]


def test_each_leaf_gets_leaf_value_s_value():
    leaves = _leaves()
    for _ in range(2):  # (the int values' table cold, then warm)
        vals = _interpret._leaf_values([None] * (len(leaves) + 1), range(1, len(leaves) + 1), leaves)
        assert vals[0] is None
        for leaf, v in zip(leaves, vals[1:]):
            want = _interpret.leaf_value(leaf)
            assert type(v) is np.ndarray and v.dtype == leaf.dtype.np and v.shape == leaf.shape
            np.testing.assert_array_equal(v, want)
            if type(leaf.host) is int:
                assert v is _interpret.int_value(leaf) and not v.flags.writeable
        assert vals[1] is leaves[0].host


@pytest.mark.parametrize("runs", [1, 5])
def test_built_program_over_int_and_float_leaves(runs):
    x = np.arange(40.0).reshape(10, 4)
    xl = leaf_from_host(x, x.shape, dt.float64)
    for _ in range(runs):
        for i in (0, 3, 7, 12):
            n = ops.dynamic_slice(xl, [leaf_from_host(i, (), dt.int64), leaf_from_host(1, (), dt.int64)], (3, 2))
            out = ops.ADD(n, ops.broadcast_in_dim(leaf_from_host(0.5, (), dt.float64), (3, 2), ()))
            plan = Plan([out])
            hp = _interpret.HostProgram(plan, [out])
            hp.build(plan.sig)
            plan.steps = hp
            got = hp.run(plan, [out])[0]
            lo = min(i, 7)
            np.testing.assert_array_equal(got, x[lo:lo + 3, 1:3] + 0.5)
            assert got.flags.writeable and got.flags.owndata
