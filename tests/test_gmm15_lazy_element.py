"""Session 15, issue 11 target 1 (GaussianMixture(full)): `x[i]` of a pending 1-D x is an element
read whose nodes are bound at its first use (`_deferred_elements.Element`); `a[i, j] = x[i]` takes the
element from it without binding them (`_deferred_elements.element_run`), and a run of such writes (or of one 0-D
value) is bound as one scatter at the array's next use (`_deferred_elements.Running`). The nodes, once
bound, are those the read bound at once before (the general path's), and the values numpy's in
both tiers, whatever happens to x and a between the writes and the use."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _deferred_elements, _indexing
from lazyarray._array_object import Array

pytestmark = pytest.mark.usefixtures("both_tiers")


def _pending(values, dtype=np.float64):
    """A pending 1-D array of `values` (a computed node, not a leaf) of `dtype`."""
    x = xp.asarray(np.asarray(values, dtype))
    out = xp.logical_not(xp.logical_not(x)) if dtype is np.bool_ else x + 0
    assert out.dtype == x.dtype and out._node.op is not None
    return out


def test_unbound_until_used():
    v = _pending([1.0, 2.0, 3.0])
    e = v[1]
    assert type(e) is _deferred_elements.Element
    assert e.shape == () and e.ndim == 0 and e.dtype == xp.float64 and e.device == v.device
    assert type(e) is _deferred_elements.Element  # (shape and dtype bind nothing)
    assert float(e) == 2.0
    assert type(e) is Array


def test_bound_nodes_are_the_general_paths():
    v = _pending(np.arange(5.0))
    lazy = v[3]
    general = v[(3,)]  # (the general path's nodes: a key of one integer in a tuple)
    assert type(general) is Array
    assert xp.graph_text(lazy + 1.0) == xp.graph_text(general + 1.0)
    assert float(lazy) == float(general) == 3.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.complex64, np.bool_])
def test_values_and_operators(dtype):
    a = (np.arange(1, 7) % 2 == 0) if dtype is np.bool_ else np.arange(1, 7).astype(dtype)
    v = _pending(a, dtype)
    m = xp.asarray(np.ones((2, 3), dtype))
    for i in (0, 4, -1, -6):
        e = v[i]
        np.testing.assert_array_equal(np.asarray(e), a[i])
        if dtype is not np.bool_:
            np.testing.assert_array_equal(np.asarray(m * v[i]), np.ones((2, 3), dtype) * a[i])
            np.testing.assert_array_equal(np.asarray(v[i] - m), a[i] - np.ones((2, 3), dtype))
            np.testing.assert_array_equal(np.asarray(xp.abs(v[i])), np.abs(a[i]))
        assert bool(v[i] == xp.asarray(a[i]))


def test_copy_semantics_and_syncs_between():
    v = _pending([1.0, 2.0, 3.0, 4.0])
    e = v[2]
    f = v[3]
    v[2] = 100.0  # (a write into x after the read: the element keeps its value, as numpy's copy)
    assert float(e) == 3.0
    float(xp.sum(v))  # (x computed before f's first use: f reads the value it had)
    assert float(f) == 4.0
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0, 100.0, 4.0])


def test_write_into_element_and_numpy_view():
    v = _pending([1.0, 2.0, 3.0])
    e = v[0]
    e[()] = 7.0  # (an unbound element written into: it becomes the written value, x unchanged)
    assert float(e) == 7.0
    g = v[1]
    h = np.asarray(g)  # (numpy's view of an unbound element)
    assert h.shape == () and float(h) == 2.0
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0, 3.0])


def test_errors_at_the_read():
    v = _pending([1.0, 2.0])
    with pytest.raises(IndexError):
        v[2]
    with pytest.raises(IndexError):
        v[-3]
    x = xp.asarray(np.zeros((2, 2), np.float32))
    e = v[0]  # float64 into float32: the general path's conversion
    x[1, 1] = e
    assert float(x[1, 1]) == 1.0
    with pytest.raises(TypeError):
        x[0, 0] = (xp.asarray(np.array([1j, 2j])) + 0)[0]


def _add_to_diagonal(array, value, bind_first):
    """scikit-learn's `_add_to_diagonal` for a non-numpy namespace (`bind_first`: each element
    used before its write, so the write gets a bound element)."""
    value = xp.linalg.diagonal(array) + xp.asarray(value, dtype=array.dtype)
    for i in range(min(array.shape)):
        e = value[i]
        if bind_first:
            e._node
        array[i, i] = e


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
def test_element_runs_unbound_as_bound(dtype, rng):
    a = (rng.standard_normal((3, 5, 5)) * 10).astype(dtype)
    texts, values = [], []
    for bind_first in (False, True):
        cov = xp.asarray(a) + 0
        for k in range(3):
            _add_to_diagonal(cov[k, :, :], 2, bind_first)
        texts.append(xp.graph_text(cov))
        values.append(np.asarray(cov))
    assert texts[0] == texts[1]
    assert texts[0].count("scatter") == 3 and "dynamic_update_slice" not in texts[0]
    want = a.copy()
    d = np.arange(5)
    want[:, d, d] += np.asarray(2, dtype)
    for got in values:
        np.testing.assert_array_equal(got, want)


def test_element_of_another_dtype_or_no_run(rng):
    """Elements written where the run cannot take them (another dtype, an element of a
    leaf) keep the element-by-element path, with numpy's values."""
    a = np.zeros((3, 3))
    x = xp.asarray(a) + 0
    v32 = _pending([1.5, 2.5, 3.5], np.float32)
    w = xp.asarray(np.array([4.0, 5.0, 6.0]))  # (a leaf: its elements are host leaves)
    for i in range(3):
        x[i, i] = v32[i]
        x[i, (i + 1) % 3] = w[i]
    want = a.copy()
    for i in range(3):
        want[i, i] = np.float32([1.5, 2.5, 3.5][i])
        want[i, (i + 1) % 3] = [4.0, 5.0, 6.0][i]
    np.testing.assert_array_equal(np.asarray(x), want)


# ---------------------------------------------------------------- element runs bound at the next use

def _running(a):
    return type(a) is _deferred_elements.Running


def test_a_run_is_bound_at_the_next_use(rng):
    a_np, v_np = rng.standard_normal((4, 4)), rng.standard_normal(4)
    want = a_np.copy()
    want[np.arange(4), np.arange(4)] = v_np
    uses = [(lambda a: a, lambda w: w), (lambda a: a * 1.0, lambda w: w * 1.0),
            (lambda a: a[1:, :], lambda w: w[1:, :]), (lambda a: a.T, lambda w: w.T),
            (xp.linalg.diagonal, np.diagonal), (lambda a: xp.sum(a, axis=0), lambda w: np.sum(w, axis=0)),
            (lambda a: xp.reshape(a, (16,)), lambda w: np.reshape(w, (16,)))]
    for use, use_np in uses:
        a, v = xp.asarray(a_np) + 0, _pending(v_np)
        for i in range(4):
            a[i, i] = v[i]
        assert _running(a) and a.shape == (4, 4) and a.dtype == xp.float64 and a.ndim == 2
        np.testing.assert_array_equal(np.asarray(use(a)), use_np(want))
        assert not _running(a)
        np.testing.assert_array_equal(np.asarray(a), want)


def test_a_run_across_syncs_and_other_writes(rng):
    a_np, v_np, b_np = rng.standard_normal((5, 5)), rng.standard_normal(5), rng.standard_normal(3)
    a, v, b = xp.asarray(a_np) + 0, _pending(v_np), _pending(b_np)
    want = a_np.copy()
    a[0, 0] = v[0]
    a[1, 1] = v[1]
    float(xp.sum(b))  # (a sync of another graph while the run is open)
    assert _running(a)
    a[2, 2] = v[2]
    a[4, :] = 9.0  # (a general write: the run bound first)
    a[3, 3] = v[3]
    float(xp.sum(a * 0.0 + v[0]))  # (a sync of a graph that reads the run)
    a[0, 4] = v[4]
    want[[0, 1, 2], [0, 1, 2]] = v_np[:3]
    want[4, :] = 9.0
    want[3, 3], want[0, 4] = v_np[3], v_np[4]
    np.testing.assert_array_equal(np.asarray(a), want)


def test_a_run_whose_array_dies_and_runs_of_two_arrays(rng):
    v_np = rng.standard_normal(3)
    v = _pending(v_np)
    a = xp.asarray(np.zeros((3, 3))) + 0
    a[0, 0] = v[0]
    del a  # (its run is dropped with it)
    b, c = xp.asarray(np.zeros((3, 3))) + 0, xp.asarray(np.ones((3, 3))) + 0
    b[0, 0] = v[0]
    c[1, 1] = v[1]  # (b's run bound: one run open at a time)
    assert not _running(b) and _running(c)
    b[2, 2] = v[2]
    wb, wc = np.zeros((3, 3)), np.ones((3, 3))
    wb[0, 0], wb[2, 2], wc[1, 1] = v_np[0], v_np[2], v_np[1]
    np.testing.assert_array_equal(np.asarray(c), wc)
    np.testing.assert_array_equal(np.asarray(b), wb)


def test_numpy_aliased_and_leaf_targets(rng):
    """A target numpy aliases writes element by element (no run); a run into a leaf (an array
    never computed) gives numpy's values too."""
    v_np = rng.standard_normal(3)
    v = _pending(v_np)
    a = xp.asarray(np.zeros((3, 3))) + 0
    alias = np.asarray(a)
    for i in range(3):
        a[i, i] = v[i]
    assert not _running(a)
    np.testing.assert_array_equal(alias, np.diag(v_np))  # (the alias sees the writes)
    leaf = xp.asarray(np.zeros((3, 3)))
    v = _pending(v_np)  # (v was computed for the alias: its elements are host values now)
    for i in range(3):
        leaf[i, 2 - i] = v[i]
    assert _running(leaf)
    np.testing.assert_array_equal(np.asarray(leaf), np.fliplr(np.diag(v_np)))


# ---------------------------------------------------------------- runs of one 0-D value

def _fill_diagonal(array, value):
    """scikit-learn's `_fill_diagonal` for a non-numpy namespace, a 0-D value."""
    value = xp.asarray(value, dtype=array.dtype)
    for i in range(min(array.shape)):
        array[i, i] = value


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_])
def test_one_value_written_along_a_diagonal(dtype, rng):
    a = rng.random((6, 6)) > 0.5 if dtype is np.bool_ else (rng.standard_normal((6, 6)) * 10).astype(dtype)
    x = xp.asarray(a)
    if dtype is not np.bool_:
        x = x + 0
    _fill_diagonal(x, 0)
    ops_ = [line.split(" = ")[1].split("(")[0] for line in xp.graph_text(x).splitlines() if line.startswith("n")]
    assert ops_.count("scatter") == 1 and "dynamic_update_slice" not in ops_  # (the first write's is left unused)
    want = a.copy()
    np.fill_diagonal(want, 0)
    np.testing.assert_array_equal(np.asarray(x), want)


def test_value_writes_one_by_one_and_mixed(rng):
    """A value written once stays one dynamic_update_slice; values that change, a vector's
    elements between, and a value computed in the graph give numpy's values."""
    a = rng.standard_normal((4, 4))
    x = xp.asarray(a) + 0
    x[0, 1] = 5.0
    x[1, 2] = 6.0  # (another Python scalar: its own leaf)
    ops_ = [line.split(" = ")[1].split("(")[0] for line in xp.graph_text(x).splitlines() if line.startswith("n")]
    assert "scatter" not in ops_ and ops_.count("dynamic_update_slice") == 2
    v = _pending([1.0, 2.0, 3.0, 4.0])
    c = xp.sum(v)  # (a computed 0-D value)
    want = a.copy()
    want[0, 1], want[1, 2] = 5.0, 6.0
    for i, (r, col) in enumerate([(0, 0), (1, 1), (2, 2), (3, 3), (3, 0)]):
        if i == 2:
            x[2, 3] = v[1]
            want[2, 3] = 2.0
        x[r, col] = c
        want[r, col] = 10.0
    np.testing.assert_array_equal(np.asarray(x), want)


def test_runs_from_threads(rng):
    """Threads writing runs into arrays of their own (each write may close another thread's
    run: one run open at a time) and reading them: numpy's values in every array."""
    import threading
    n, t = 24, 4
    vs = [rng.standard_normal(n) for _ in range(t)]
    out = [None] * t
    errors = []

    def work(w):
        try:
            for rep in range(5):
                a = xp.asarray(np.zeros((n, n))) + 0
                v = _pending(vs[w])
                for i in range(n):
                    a[i, (i + w) % n] = v[i]
                    if i % 7 == 3:
                        float(xp.sum(a[i, :]))  # (a read mid-run: the run so far bound)
                out[w] = np.asarray(a)
        except BaseException as e:  # pragma: no cover (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(t)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    for w in range(t):
        want = np.zeros((n, n))
        want[np.arange(n), (np.arange(n) + w) % n] = vs[w]
        np.testing.assert_array_equal(out[w], want)


# ---------------------------------------------------------------- window writes of a known key

class _NoStore(dict):
    def __setitem__(self, key, value):
        pass


def _window_writes(m, rng_seed=3):
    r = np.random.default_rng(rng_seed)
    cov = m.asarray(r.standard_normal((3, 4, 4))) * 1.0
    lp = m.asarray(r.standard_normal((5, 3))) * 1.0
    c = m.asarray(r.standard_normal((4, 4))) + 0.0
    col = m.asarray(r.standard_normal(5)) + 0.0
    for k in range(3):
        cov[k, :, :] = c * float(k)
        lp[:, k] = col - float(k)
        cov[k, :, :] = cov[(k + 1) % 3, :, :].T  # (a view of the array written as the value)
        lp[1:3, k] = col[:2]
    return cov, lp


def test_known_window_writes_bind_the_general_paths_nodes(monkeypatch):
    _window_writes(xp)  # (the keys seen: the second run takes the direct path)
    fast = _window_writes(xp)
    fast_text = [xp.graph_text(a) for a in fast]
    with monkeypatch.context() as m:
        m.setattr(_indexing, "_direct_windows", _NoStore())
        general = _window_writes(xp)
        general_text = [xp.graph_text(a) for a in general]
    assert fast_text == general_text
    want = _window_writes(np)
    for got, g, w in zip(fast, general, want):
        np.testing.assert_array_equal(np.asarray(got), w)
        np.testing.assert_array_equal(np.asarray(g), w)


def test_known_window_writes_check_the_value():
    x = xp.asarray(np.zeros((2, 3)))
    x[0, :] = xp.asarray(np.ones(3))  # (the key seen)
    with pytest.raises(ValueError):
        x[0, :] = xp.asarray(np.ones(4))
    x[1, :] = xp.asarray(np.arange(3, dtype=np.float32))  # (another dtype: converted, as numpy)
    x[0, :] = xp.asarray(np.ones(1))  # (a broadcast value)
    with pytest.raises(TypeError):
        x[0, :] = xp.asarray(np.ones(3) * 1j)
    np.testing.assert_array_equal(np.asarray(x), [[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]])
