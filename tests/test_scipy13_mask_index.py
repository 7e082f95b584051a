"""Session 13, issue 11 target 1 (SciPy's call table): `x[m]` and `x[m] = v` of a 1-D bool mask
over x's first axis bind their nodes at once (`_mask_index`): the general path's nodes
(`_advanced_indexing.getitem_advanced` / `setitem_advanced`), node for node; a read of a computed
host-readable array by a host mask is computed at once into a host leaf (a gather is exact).
Values against numpy, in both tiers; other keys and bad keys keep the general path and its errors."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _advanced_indexing, _indexing, _mask_index, _views
from lazyarray._basic_indexing import expand

pytestmark = pytest.mark.usefixtures("both_tiers")

rng = np.random.default_rng(13)
SHAPES = [(9,), (9, 2), (4, 3, 2), (1,), (0,), (0, 3)]
DENSITIES = [0.0, 0.4, 1.0]


def _data(shape, density, dtype=np.float64):
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    m = rng.random(shape[:1]) < density
    return x, m


def _pending(x):
    """A pending array of x's values (a node, not a leaf)."""
    a = xp.asarray(x)
    return a + xp.zeros_like(a)


def _general_read(x, key):
    return _advanced_indexing.getitem_advanced(x, expand(key, x.ndim))


def _general_write(x, key, value):
    vnode = _indexing._value_node(x, x.dtype, value)
    with _views.write_lock:
        _advanced_indexing.setitem_advanced(x, expand(key, x.ndim), vnode)


def _keys(m, ndim):
    return [m] + ([(m, slice(None))] if ndim > 1 else []) + ([(m, slice(None), slice(None))] if ndim > 2 else [])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
def test_read_values_and_nodes(shape, density):
    x, m = _data(shape, density)
    for mask in (xp.asarray(m), xp.asarray(m) | xp.asarray(m)):  # a host leaf, a pending mask
        for key in _keys(mask, len(shape)):
            a = _pending(x)
            got = a[key]
            want = _general_read(a, key)
            assert xp.graph_text(got) == xp.graph_text(want)
            np.testing.assert_array_equal(np.asarray(got), x[m])
            assert got.shape == x[m].shape and got.dtype == want.dtype


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
def test_read_of_computed_array_is_a_host_leaf(shape, density):
    x, m = _data(shape, density)
    a = xp.asarray(x)
    realized = _pending(x)
    np.asarray(realized)  # computed: a host value (interpreter) or a CPU buffer (compiled)
    for arr in (a, realized):
        got = arr[xp.asarray(m)]
        np.testing.assert_array_equal(np.asarray(got), x[m])
        if got.size:
            assert got._node.op is None  # no node to run: the gather's value, computed now
    # a write into the source afterwards leaves the read value as it was
    b = xp.asarray(x)
    got = b[xp.asarray(m)]
    b[...] = -1.0
    np.testing.assert_array_equal(np.asarray(got), x[m])


def test_large_read_stays_a_gather():
    n = _mask_index.EAGER_ELEMENTS + 1
    x = np.arange(n, dtype=np.float64)
    m = np.ones(n, bool)
    got = xp.asarray(x)[xp.asarray(m)]
    assert got._node.op is not None
    np.testing.assert_array_equal(np.asarray(got), x)


VALUES = [  # value for (count, rest): a function of (count, rest shape)
    lambda c, r: 2.5,                                  # Python scalar: the select path
    lambda c, r: np.float64(-3.0),
    lambda c, r: np.full((1,) + r, 7.0),               # broadcasts as one row: the select path
    lambda c, r: np.arange(c * int(np.prod(r)), dtype=np.float64).reshape((c,) + r) + 0.5,  # scatter
    lambda c, r: np.full(r, 4.0) if r else 4.0,        # trailing row
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("value", range(len(VALUES)))
def test_write_values_and_nodes(shape, density, value):
    x, m = _data(shape, density)
    count = int(m.sum())
    v = VALUES[value](count, tuple(shape[1:]))
    want = x.copy()
    want[m] = v
    for as_array in (False, True):
        for pending_mask in (False, True):
            mask = xp.asarray(m)
            if pending_mask:
                mask = mask | mask
            vv = xp.asarray(v) if as_array or not np.isscalar(v) else v
            for key in _keys(mask, len(shape)):
                fast, general = _pending(x), _pending(x)
                fast[key] = vv
                _general_write(general, key, vv)
                assert xp.graph_text(fast) == xp.graph_text(general)
                np.testing.assert_array_equal(np.asarray(fast), want)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float32, np.complex128])
def test_write_dtypes(dtype):
    x, m = _data((9,), 0.5, dtype)
    a = xp.asarray(x)
    v = x[:int(m.sum())][::-1].copy()
    a[xp.asarray(m)] = xp.asarray(v)
    want = x.copy()
    want[m] = v
    np.testing.assert_array_equal(np.asarray(a), want)
    np.testing.assert_array_equal(np.asarray(a[xp.asarray(m)]), want[m])


def test_write_through_view_and_alias():
    x = np.arange(12.0)
    base = xp.asarray(x)
    view = base[2:8]                       # a basic view: the write lands in the base
    m = np.array([True, False, True, True, False, False])
    view[xp.asarray(m)] = xp.asarray(np.array([-1.0, -2.0, -3.0]))
    want = x.copy()
    want[2:8][m] = [-1.0, -2.0, -3.0]
    np.testing.assert_array_equal(np.asarray(base), want)
    np.testing.assert_array_equal(np.asarray(view), want[2:8])
    alias = np.asarray(base)               # a numpy alias sees our writes, and we see its
    base[xp.asarray(want > 0)] = 0.5
    want[want > 0] = 0.5
    np.testing.assert_array_equal(alias, want)
    alias[0] = 9.0
    want[0] = 9.0
    np.testing.assert_array_equal(np.asarray(base[xp.asarray(want > 1)]), want[want > 1])


def test_errors_keep_the_general_path():
    a = xp.asarray(np.arange(6.0))
    with pytest.raises(IndexError):
        a[xp.asarray(np.ones(5, bool))]
    with pytest.raises(IndexError):
        a[xp.asarray(np.ones(5, bool))] = 1.0
    m = xp.asarray(np.array([True, False, True, False, False, False]))
    with pytest.raises(ValueError):
        a[m] = xp.asarray(np.ones(3))     # 3 values for 2 places
    with pytest.raises(TypeError):
        a[m] = 1j
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.0))  # nothing written


# ---------------------------------------------------------------- 1-D integer arrays

INT_KEYS = [np.array([0, 2, 2, -1, 3]), np.array([4, 0]), np.array([], dtype=np.int64), np.array([-3])]


@pytest.fixture
def unchecked(monkeypatch):
    """Integer indices take `_mask_index`'s path outside checked mode only (the test command
    runs in checked mode: LAZYARRAY_CHECKS=1)."""
    monkeypatch.setattr(xp.config, "checks", False)


@pytest.mark.parametrize("shape", [(5,), (5, 2), (5, 3, 2)])
@pytest.mark.parametrize("which", range(len(INT_KEYS)))
@pytest.mark.parametrize("itype", [np.int64, np.int32, np.uint8])
def test_int_read_values_and_nodes(shape, which, itype, unchecked):
    k = INT_KEYS[which]
    if itype is np.uint8:
        k = k % 5
    k = k.astype(itype)
    x = rng.standard_normal(shape)
    for idx in (xp.asarray(k), xp.asarray(k) + xp.zeros_like(xp.asarray(k))):  # host leaf, pending
        for key in _keys(idx, len(shape)):
            a = _pending(x)
            assert _mask_index.index_of(a, key) is idx  # (this path, not the general one)
            got = a[key]
            want = _general_read(a, key)
            assert xp.graph_text(got) == xp.graph_text(want)
            np.testing.assert_array_equal(np.asarray(got), x[k])
        got = xp.asarray(x)[idx]  # a host leaf read: numpy's at once when idx is a host leaf
        np.testing.assert_array_equal(np.asarray(got), x[k])
        if idx._node.op is None and k.size:
            assert got._node.op is None


def test_int_read_out_of_range_keeps_the_gather(unchecked):
    x = np.arange(5.0)
    got = xp.asarray(x)[xp.asarray(np.array([1, 7]))]
    assert got._node.op is not None  # (XLA clamps out-of-range gather indices: unspecified)
    assert got.shape == (2,)


@pytest.mark.parametrize("shape", [(5,), (5, 2)])
@pytest.mark.parametrize("which", range(len(INT_KEYS)))
@pytest.mark.parametrize("value", ["scalar", "row", "full"])
def test_int_write_values_and_nodes(shape, which, value, unchecked):
    k = INT_KEYS[which]
    if which == 0:
        k = np.array([0, 2, -1, 3])  # (distinct positions: duplicates' order is unspecified)
    x = rng.standard_normal(shape)
    v = {"scalar": 1.5, "row": np.full(shape[1:], -2.0) if len(shape) > 1 else np.float64(-2.0),
         "full": np.arange(len(k) * int(np.prod(shape[1:])), dtype=np.float64).reshape((len(k),) + shape[1:])}[value]
    want = x.copy()
    want[k] = v
    for idx in (xp.asarray(k), xp.asarray(k) + xp.zeros_like(xp.asarray(k))):
        for key in _keys(idx, len(shape)):
            assert _mask_index.index_of(_pending(x), key) is idx  # (this path, not the general one)
            fast, general = _pending(x), _pending(x)
            vv = v if np.isscalar(v) else xp.asarray(v)
            fast[key] = vv
            _general_write(general, key, vv)
            assert xp.graph_text(fast) == xp.graph_text(general)
            np.testing.assert_array_equal(np.asarray(fast), want)


def test_int_errors_and_checked_mode(monkeypatch, unchecked):
    empty = xp.asarray(np.zeros((0, 2)))
    with pytest.raises(IndexError):
        empty[xp.asarray(np.array([0]))]
    with pytest.raises(IndexError):
        empty[xp.asarray(np.array([0]))] = 1.0
    a = xp.asarray(np.arange(5.0))
    with pytest.raises(ValueError):
        a[xp.asarray(np.array([0, 1]))] = xp.asarray(np.ones(3))
    with pytest.raises(IndexError):
        a[xp.asarray(np.array([0.0, 1.0]))]
    np.testing.assert_array_equal(np.asarray(a), np.arange(5.0))
    monkeypatch.setattr(xp.config, "checks", True)
    assert _mask_index.index_of(a, xp.asarray(np.array([0, 1]))) is None  # (checked mode: general path)
    np.testing.assert_array_equal(np.asarray(a[xp.asarray(np.array([4, 0]))]), [4.0, 0.0])


# ---------------------------------------------------------------- the interpreter's scatter

@pytest.mark.parametrize("positions", [[1, 3, 4], [0], [4], [3, 1], [1, 1, 2], [-1, 2], [2, 5], [0, 1, 2, 3, 4]])
@pytest.mark.parametrize("rest", [(), (2,)])
def test_first_axis_scatter_evaluation(positions, rest):
    """`_ops.gather._scatter` of one axis, mode set: increasing positions inside the axis take a
    short path; others (repeats, out of range, decreasing) the general one; both as XLA's
    program (updates out of range dropped, the last of repeated ones kept)."""
    from lazyarray import _ops
    from lazyarray._graph import Node
    from lazyarray import _dtypes as dt
    x = np.arange(5.0 * int(np.prod(rest))).reshape((5,) + rest)
    idx = np.array(positions, np.int64).reshape(-1, 1)
    upd = -np.arange(1.0, 1 + len(positions) * int(np.prod(rest))).reshape((len(positions),) + rest)
    node = Node(_ops.SCATTER, (), _ops.SCATTER.Attrs((0,), "set"), x.shape, dt.float64)
    got = _ops.SCATTER.evaluate(node, x, idx, upd)
    want = x.copy()
    for p, v in zip(positions, upd):
        if 0 <= p < 5:
            want[p] = v
    np.testing.assert_array_equal(got, want)
    assert got is not x and np.array_equal(x, np.arange(5.0 * int(np.prod(rest))).reshape((5,) + rest))
    # the same node run by the tier at hand (compiled: XLA's scatter)
    a = xp.asarray(x)
    node = _ops.scatter_points(a._node, xp.asarray(idx)._node, xp.asarray(upd)._node, (0,))
    np.testing.assert_array_equal(np.asarray(xp.Array._wrap(node, a.device)), want)
