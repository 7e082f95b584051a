"""The basic plans `_indexing` keeps hold one `_Axis` per distinct value and the builders'
memoized attributes (fewer objects kept alive for the collector to scan): reads and writes still
bind the general path's nodes and give numpy's values, views still write through."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _indexing
from lazyarray import _ops as ops
from lazyarray._basic_indexing import expand, plan, read_recipe

pytestmark = pytest.mark.usefixtures("both_tiers")


def test_plans_share_axes_of_equal_values():
    _indexing._read_plans.clear()
    a = xp.asarray(np.arange(200.0).reshape(5, 40)) * 1.0
    b = xp.asarray(np.arange(150.0).reshape(5, 30)) * 1.0
    a[:, 3], b[:, 2], b[..., 2]
    plans = {k[0]: v for k, v in _indexing._read_plans.items()}
    first_a, first_b = plans[(5, 40)][0][0], plans[(5, 30)][0][0]
    assert first_a is first_b  # (the whole first axis of 5, kept once)
    assert (first_a.start, first_a.span, first_a.step, first_a.count, first_a.drop) == (0, 5, 1, 5, False)
    keys = [k for k in _indexing._read_plans if k[0] == (5, 30)]
    assert len(keys) == 2
    p1, p2 = (_indexing._read_plans[k] for k in keys)
    assert all(x is y for x, y in zip(p1[0], p2[0]))  # x[:, 2] and x[..., 2]: the same axes


def test_recipes_hold_the_builders_attributes():
    shape = (6, 7)
    x = xp.asarray(np.zeros(shape))._node
    for key in [(slice(1, 4), 2), (2,), (slice(None), slice(2, 5)), (3, slice(1, 2))]:
        axes, out_shape, _ = plan(shape, expand(key, 2))
        recipe = read_recipe(shape, axes, out_shape)
        ds = ops.dynamic_slice(x, [ops.scalar(0, dt.int64)] * 2, recipe[1])
        assert recipe[0] is ds.attrs
        if recipe[3] is not None:
            assert recipe[3] is ops.reshape(ds, out_shape).attrs


@pytest.mark.parametrize("shape", [(5, 8), (3, 4, 6)])
def test_kept_plans_read_and_write_numpy_values(shape):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    keys = [(1,), (slice(None), 2), (Ellipsis, 3), (slice(1, 3), slice(None)), (0, slice(None, None, 2)),
            (slice(None), slice(2, 5)), (-1, -1)]
    for _ in range(2):  # (plans made, then kept)
        x = xp.asarray(a) + 0.0
        want = a.copy()
        for i, key in enumerate(keys):
            np.testing.assert_array_equal(np.asarray(x[key]), want[key])
            x[key] = -1.0 - i
            want[key] = -1.0 - i
            v = x[:, 1:]          # a view, written through with a kept composition
            v[0, 0] = 50.0 + i
            want[:, 1:][0, 0] = 50.0 + i
        np.testing.assert_array_equal(np.asarray(x), want)
