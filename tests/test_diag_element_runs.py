"""Runs of element writes of one vector's elements (`_deferred_elements.element_run`: scikit-learn's
`_add_to_diagonal`, `a[i, i] = value[i]`), recorded as one 'set' scatter instead of one
dynamic_update_slice per element: numpy's values bit for bit in both tiers, the writes reaching
the base through views, earlier graphs keeping the values they read, and the writes that keep
the element-by-element path. Also the interpreter's step for such a scatter
(`_ops.gather._set_elements_step`) against the general scatter evaluation."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _deferred_elements
from lazyarray._ops import gather

pytestmark = pytest.mark.usefixtures("both_tiers")

DTYPES = ["float64", "float32", "int32", "complex64"]


def _data(rng, shape, dtype):
    a = rng.standard_normal(shape) * 10
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _add_to_diagonal(array, value):
    """scikit-learn's `_add_to_diagonal` for a non-numpy namespace."""
    value = xp.linalg.diagonal(array) + xp.asarray(value, dtype=array.dtype)
    for i in range(min(array.shape)):
        array[i, i] = value[i]


def _ops_of(a):
    return [line.split(" = ")[1].split("(")[0] for line in xp.graph_text(a).splitlines()
            if line.startswith("n")]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 8, 8), (2, 5, 7), (1, 1, 1), (4, 3, 2)])
def test_diagonal_of_each_component_through_views(shape, dtype, rng):
    a_np = _data(rng, shape, dtype)
    cov = xp.asarray(a_np) + 0
    want = a_np.copy()
    for k in range(shape[0]):
        _add_to_diagonal(cov[k, :, :], 2)
        d = np.arange(min(shape[1:]))
        want[k, d, d] += np.asarray(2, dtype)
    if min(shape[1:]) > 1:  # (a vector of one element is read by a reshape alone: no run)
        ops = _ops_of(cov)
        assert ops.count("scatter") == shape[0] and "dynamic_update_slice" not in ops
    np.testing.assert_array_equal(np.asarray(cov), want)
    # the view reads the base's new value
    np.testing.assert_array_equal(np.asarray(cov[shape[0] - 1, :, :]), want[-1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_plain_matrix_and_view_of_view(dtype, rng):
    a_np = _data(rng, (6, 6), dtype)
    a = xp.asarray(a_np) + 0
    _add_to_diagonal(a, 3)
    want = a_np.copy()
    want[np.arange(6), np.arange(6)] += np.asarray(3, dtype)
    np.testing.assert_array_equal(np.asarray(a), want)
    b_np = _data(rng, (4, 9, 9), dtype)
    b = xp.asarray(b_np) + 0
    inner = b[1:4][1, 2:7, 1:8]  # a view of a view: (5, 7)
    _add_to_diagonal(inner, 1)
    want = b_np.copy()
    want[2, 2:7, 1:8][np.arange(5), np.arange(5)] += np.asarray(1, dtype)
    np.testing.assert_array_equal(np.asarray(b), want)
    np.testing.assert_array_equal(np.asarray(inner), want[2, 2:7, 1:8])


@pytest.mark.parametrize("order", ["reversed", "shuffled", "repeated", "from_two"])
def test_any_positions_and_targets(order, rng):
    """Positions other than 0, 1, 2, ... (a gather of vec), targets in any order, the same
    element written twice (the last write wins), and a vector's elements written where another
    vector's were."""
    a_np = rng.standard_normal((5, 6))
    v_np = rng.standard_normal(7)
    w_np = rng.standard_normal(7)
    a, v, w = xp.asarray(a_np) + 0, xp.asarray(v_np) * 1, xp.asarray(w_np) * 1
    want = a_np.copy()
    if order == "reversed":
        writes = [((i, 5 - i), v, v_np, 6 - i) for i in range(5)]
    elif order == "shuffled":
        writes = [((int(r), int(c)), v, v_np, int(j)) for r, c, j in zip(
            rng.integers(0, 5, 12), rng.integers(0, 6, 12), rng.integers(0, 7, 12))]
    elif order == "repeated":
        writes = [((1, 1), v, v_np, 0), ((2, 3), v, v_np, 1), ((1, 1), v, v_np, 2), ((2, 3), v, v_np, 2)]
    else:
        writes = [((0, 0), v, v_np, 0), ((0, 1), w, w_np, 1), ((1, 1), v, v_np, 1), ((0, 0), w, w_np, 3)]
    for (r, c), vec, vec_np, j in writes:
        a[r, c] = vec[j]
        want[r, c] = vec_np[j]
    np.testing.assert_array_equal(np.asarray(a), want)


def test_negative_indices_and_numpy_integers(rng):
    a_np = rng.standard_normal((4, 4))
    v_np = rng.standard_normal(4)
    a, v = xp.asarray(a_np) + 0, xp.asarray(v_np) + 0
    want = a_np.copy()
    for i in range(4):
        a[-1 - i, np.int64(i)] = v[-1 - i]
        want[-1 - i, i] = v_np[-1 - i]
    np.testing.assert_array_equal(np.asarray(a), want)


def test_runs_longer_than_one_scatter(rng):
    n = _deferred_elements.RUN_MAX * 2 + 5
    a_np = rng.standard_normal((n, n))
    v_np = rng.standard_normal(n)
    # (a long vector of exact ops on leaves would give each element at once: `_host_sync.element_now`)
    a, v = xp.asarray(a_np) + 0, xp.exp(xp.asarray(v_np))
    for i in range(n):
        a[i, i] = v[i]
    assert _ops_of(a).count("scatter") == 3
    want = a_np.copy()
    want[np.arange(n), np.arange(n)] = np.asarray(v)
    np.testing.assert_array_equal(np.asarray(a), want)


def test_earlier_graphs_keep_what_they_read(rng):
    a_np = rng.standard_normal((5, 5))
    v_np = rng.standard_normal(5)
    a, v = xp.asarray(a_np) + 0, xp.asarray(v_np) + 0
    snaps, want, wants = [], a_np.copy(), []
    for i in range(5):
        a[i, i] = v[i]
        want[i, i] = v_np[i]
        snaps.append(a * 1)  # a graph of the run so far
        wants.append(want.copy())
    alias = a  # the same handle
    for s, w in zip(snaps, wants):
        np.testing.assert_array_equal(np.asarray(s), w)
    np.testing.assert_array_equal(np.asarray(alias), want)


def test_two_runs_interleaved_and_a_run_after_a_read(rng):
    a_np, b_np = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    v_np = rng.standard_normal(4)
    a, b, v = xp.asarray(a_np) + 0, xp.asarray(b_np) + 0, xp.asarray(v_np) + 0
    wa, wb = a_np.copy(), b_np.copy()
    for i in range(4):
        a[i, i] = v[i]
        b[i, 3 - i] = v[i]
        wa[i, i] = v_np[i]
        wb[i, 3 - i] = v_np[i]
        if i == 1:
            np.testing.assert_array_equal(np.asarray(a), wa)  # a's run so far computed
    np.testing.assert_array_equal(np.asarray(a), wa)
    np.testing.assert_array_equal(np.asarray(b), wb)


def test_other_values_keep_the_element_write(rng):
    """A value of another dtype (a convert), of a computed vector (a host leaf), a 0-D array and a
    Python scalar write element by element, with numpy's values."""
    a_np = rng.standard_normal((3, 3))
    a = xp.asarray(a_np) + 0
    f32 = xp.asarray(rng.standard_normal(3).astype("float32")) * 1
    host = xp.asarray(rng.standard_normal(3))
    want = a_np.copy()
    a[0, 0] = f32[0]
    want[0, 0] = np.asarray(f32)[0]
    a[1, 1] = host[1]
    want[1, 1] = np.asarray(host)[1]
    a[2, 2] = xp.asarray(5.0)
    a[2, 1] = 7.0
    want[2, 2], want[2, 1] = 5.0, 7.0
    assert "scatter" not in _ops_of(a)
    np.testing.assert_array_equal(np.asarray(a), want)


def test_errors_leave_the_array_as_it_was(rng):
    a_np = rng.standard_normal((3, 3))
    v_np = rng.standard_normal(3)
    a, v = xp.asarray(a_np) + 0, xp.asarray(v_np) + 0
    a[0, 0] = v[0]
    with pytest.raises(IndexError):
        a[3, 1] = v[1]
    with pytest.raises(IndexError):
        a[1, 1] = v[3]
    ro = xp.linalg.diagonal(a)
    with pytest.raises(ValueError):
        ro[1] = v[1]
    a[1, 1] = v[1]
    want = a_np.copy()
    want[0, 0], want[1, 1] = v_np[0], v_np[1]
    np.testing.assert_array_equal(np.asarray(a), want)


@pytest.mark.parametrize("case", ["increasing", "unordered", "duplicates", "outside", "negative", "one"])
@pytest.mark.parametrize("dtype", ["float64", "int8", "bool", "complex128"])
def test_set_elements_step_is_the_general_scatter(case, dtype, rng):
    shape = (3, 4, 5)
    x = _data(rng, shape, dtype) if dtype != "bool" else rng.random(shape) > 0.5
    flat = {"increasing": np.sort(rng.choice(60, 9, replace=False)),
            "unordered": rng.choice(60, 9, replace=False),
            "duplicates": np.array([3, 7, 3, 59, 7, 0]),
            "outside": np.array([1, 5, 8]), "negative": np.array([0, 2, 4]),
            "one": np.array([17])}[case]
    rows = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64)
    if case == "outside":
        rows[1, 2] = 5
    if case == "negative":
        rows[2, 0] = -1
    upd = _data(rng, (rows.shape[0],), dtype) if dtype != "bool" else rng.random(rows.shape[0]) > 0.5
    from lazyarray import _dtypes
    from lazyarray._graph import leaf_from_host
    dt = getattr(_dtypes, dtype)
    node = gather.scatter_points(leaf_from_host(x, shape, dt), leaf_from_host(rows, rows.shape, _dtypes.int64),
                                 leaf_from_host(upd, upd.shape, dt), (0, 1, 2))
    step = gather._prepare_scatter(node)
    assert step is not None
    got = step(x, rows, upd)
    want = gather._scatter_values((0, 1, 2), "set", node.dtype, x, rows, upd)  # (the general evaluation)
    np.testing.assert_array_equal(gather._scatter(node, x, rows, upd).view(np.uint8), want.view(np.uint8))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_numpy_aliases_see_the_run_and_their_writes_stay(rng):
    """A base a numpy array aliases (`np.asarray`): the run's writes reach the alias, and the
    alias's writes between runs reach the base."""
    a_np = rng.standard_normal((3, 4, 4))
    c = xp.asarray(a_np) + 0
    alias = np.asarray(c)
    want = a_np.copy()
    for k in range(3):
        v = xp.linalg.diagonal(c[k, :, :]) + 1
        for i in range(4):
            c[k, :, :][i, i] = v[i]
        d = np.arange(4)
        want[k, d, d] += 1
        alias[k, 0, 1] = -1.0
        want[k, 0, 1] = -1.0
    np.testing.assert_array_equal(np.asarray(c), want)
    np.testing.assert_array_equal(alias, want)
