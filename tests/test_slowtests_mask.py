"""k-D boolean masks beside slices and None index the mask's axes merged into one (one column of
flat positions, no unravel); host scatters of strictly increasing positions skip the duplicate
sort. Values against numpy, in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray._ops import gather as gather_ops

pytestmark = pytest.mark.usefixtures("both_tiers")

rng = np.random.default_rng(7)

KEYS = [
    lambda m: m,                                   # x[mask] over every axis
    lambda m: (Ellipsis, m),
    lambda m: (slice(None), m),                    # mask on trailing axes
    lambda m: (m, slice(None)),                    # mask on leading axes
    lambda m: (slice(1, None), m),
    lambda m: (None, m),
    lambda m: (m, None),
    lambda m: (slice(None, None, -1), m, None),
]
SHAPES = [  # (x shape, mask shape, key index)
    ((5, 4), (5, 4), 0), ((3, 5, 4), (3, 5, 4), 0), ((3, 5, 4), (5, 4), 1), ((3, 5, 4), (5, 4), 2),
    ((5, 4, 3), (5, 4), 3), ((4, 5, 4), (5, 4), 4), ((5, 4), (5, 4), 5), ((5, 4), (5, 4), 6),
    ((3, 5, 4), (5, 4), 7), ((2, 3, 4, 5), (3, 4, 5), 2),
]


def _case(xs, ms, density):
    x = rng.standard_normal(xs)
    m = rng.random(ms) < density
    return x, m


@pytest.mark.parametrize("xs, ms, key", SHAPES)
@pytest.mark.parametrize("density", [0.0, 0.5, 1.0])
def test_mask_read(xs, ms, key, density):
    x, m = _case(xs, ms, density)
    k = KEYS[key]
    want = x[k(m)]
    got = np.asarray(xp.asarray(x)[k(xp.asarray(m))])
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("xs, ms, key", SHAPES)
@pytest.mark.parametrize("density", [0.0, 0.5, 1.0])
def test_mask_write_counted(xs, ms, key, density):
    """A value whose shape needs the count (the scatter path, not the select)."""
    x, m = _case(xs, ms, density)
    k = KEYS[key]
    shape = x[k(m)].shape
    v = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 3.5
    want = x.copy()
    want[k(m)] = v
    a = xp.asarray(x)
    a[k(xp.asarray(m))] = xp.asarray(v)
    np.testing.assert_array_equal(np.asarray(a), want)


def test_mask_read_of_pending_and_written_again():
    """The SciPy cubature pattern: x = copy(t); x[m] = f(t[m]) with a tiled 2-D mask."""
    t = rng.random((50, 4)) * 2 - 1
    m = np.tile(np.array([True, False, True, True]), (50, 1))
    want = t.copy()
    want[m] = (1 - np.abs(t[m])) / t[m]
    jac = 1 / np.prod(np.reshape(t[m] ** 2, (-1, 3)), axis=-1)
    tl, ml = xp.asarray(t), xp.asarray(m)
    x = xp.asarray(tl, copy=True)
    x[ml] = (1 - xp.abs(tl[ml])) / tl[ml]
    jl = 1 / xp.prod(xp.reshape(tl[ml] ** 2, (-1, 3)), axis=-1)
    np.testing.assert_array_equal(np.asarray(x), want)
    np.testing.assert_allclose(np.asarray(jl), jac, rtol=1e-15)


def test_mask_beside_integer_keeps_unravel():
    x = rng.standard_normal((3, 5, 4))
    m = rng.random((5, 4)) < 0.5
    np.testing.assert_array_equal(np.asarray(xp.asarray(x)[1, xp.asarray(m)]), x[1, m])
    a, want = xp.asarray(x), x.copy()
    want[2, m] = -1.0 - np.arange(m.sum())
    a[2, xp.asarray(m)] = xp.asarray(-1.0 - np.arange(m.sum()))
    np.testing.assert_array_equal(np.asarray(a), want)


@pytest.mark.parametrize("rows", [[0, 2, 3, 7], [3, 1, 3, 0], [1, 1], [0, 5, 9, 12], [-1, 2, 4]])
def test_host_scatter_set_sorted_and_not(rows):
    """The host scatter's values with and without the sorted shortcut: last update wins,
    out-of-range updates dropped."""
    x = np.zeros((10, 2))
    idx = np.array(rows, np.int64)[:, None]
    upd = np.arange(2 * len(rows), dtype=np.float64).reshape(len(rows), 2) + 1
    want = x.copy()
    for r, u in zip(rows, upd):
        if 0 <= r < 10:
            want[r] = u
    node = gather_ops.scatter_points(xp.asarray(x)._node, xp.asarray(idx)._node,
                                     xp.asarray(upd)._node, (0,))
    got = gather_ops._scatter(node, x, idx, upd)
    np.testing.assert_array_equal(got, want)
    assert gather_ops._increasing(idx[:, 0]) == (list(rows) == sorted(set(rows)))
