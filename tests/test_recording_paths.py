"""Recording paths that build fewer nodes (issue 11, targets 4 and 5): each test compares the
value with numpy in both tiers (interpreted at first sight, and compiled), and checks the graph
it recorded (how many nodes a call adds to the pending graph), never a timing."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config
from lazyarray._graph import pending


@pytest.fixture(params=["interpreted", "compiled"])
def tier(request, monkeypatch):
    """The numpy tier (a graph seen once) or XLA's (every graph compiles at first sight)."""
    monkeypatch.setattr(_config, "interpret_first", 2 if request.param == "interpreted" else 0)
    return request.param


def _recorded(fn):
    """fn()'s result and how many nodes it recorded."""
    before = pending.nodes_since_sync
    out = fn()
    return out, pending.nodes_since_sync - before


def _close(a, b, dtype):
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(a), b, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matmul_with_vectors_is_one_node(tier, dtype):
    rng = np.random.default_rng(1)
    X_np = rng.standard_normal((7, 5)).astype(dtype)
    w_np = rng.standard_normal(5).astype(dtype)
    r_np = rng.standard_normal(7).astype(dtype)
    M_np = rng.standard_normal((5, 3)).astype(dtype)
    X, w, r, M = (xp.asarray(a) for a in (X_np, w_np, r_np, M_np))
    cases = [
        (lambda: X @ w, X_np @ w_np),            # matrix-vector
        (lambda: r @ X, r_np @ X_np),            # vector-matrix
        (lambda: w @ w, w_np @ w_np),            # inner product: 0-D
        (lambda: xp.matmul(w, M), w_np @ M_np),
    ]
    for fn, want in cases:
        got, nodes = _recorded(fn)
        assert nodes == 1
        assert got.shape == want.shape and got.dtype == X.dtype
        _close(got, want, dtype)
    # X.T @ r: one dot that reads X in place (r as the left operand); the transpose is never bound
    got, nodes = _recorded(lambda: X.T @ r)
    assert nodes == 1 and got._node.args[1] is X._node
    _close(got, X_np.T @ r_np, dtype)
    # a column keeps its (n, 1) shape
    got = X.T @ xp.reshape(r, (7, 1))
    assert got.shape == (5, 1)
    _close(got, X_np.T @ r_np[:, None], dtype)


def test_matmul_vector_errors_unchanged():
    X = xp.asarray(np.ones((3, 4)))
    with pytest.raises(ValueError, match="contracted dimensions differ"):
        X @ xp.asarray(np.ones(3))
    with pytest.raises(ValueError, match="contracted dimensions differ"):
        xp.asarray(np.ones(4)) @ X


def test_gradient_descent_loop_matches_numpy(tier):
    """The logistic-regression step of the benchmarks (X @ w and X.T @ r with a vector w), over
    enough steps to be cut and run as one loop program, against numpy's float64."""
    rng = np.random.default_rng(2)
    X_np = rng.standard_normal((400, 6))
    y_np = (X_np[:, 0] > 0).astype(np.float64)
    w_np = np.zeros(6)
    X, y, w = xp.asarray(X_np), xp.asarray(y_np), xp.asarray(w_np)
    for _ in range(150):
        p = 1.0 / (1.0 + xp.exp(-(X @ w)))
        w = w - 0.5 * (X.T @ (p - y) / 400)
        p_np = 1.0 / (1.0 + np.exp(-(X_np @ w_np)))
        w_np = w_np - 0.5 * (X_np.T @ (p_np - y_np) / 400)
    np.testing.assert_allclose(np.asarray(w), w_np, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_, np.complex128])
def test_equal_and_not_equal_operators_are_one_node(tier, dtype):
    rng = np.random.default_rng(3)
    a_np = (rng.integers(0, 3, 12)).astype(dtype)
    b_np = (rng.integers(0, 3, 12)).astype(dtype)
    if dtype == np.float64:
        a_np[0] = b_np[0] = np.nan  # NaN == NaN is False, NaN != NaN is True
    a, b = xp.asarray(a_np), xp.asarray(b_np)
    for fn, want in ((lambda: a == b, a_np == b_np), (lambda: a != b, a_np != b_np)):
        got, nodes = _recorded(fn)
        assert nodes == 1 and got.dtype == xp.bool
        np.testing.assert_array_equal(np.asarray(got), want)
    if np.dtype(dtype).kind in "fc":  # a Python scalar: its leaf, one node
        for fn, want in ((lambda: a == 1.0, a_np == 1.0), (lambda: a != 2, a_np != 2)):
            got, nodes = _recorded(fn)
            assert nodes == 1
            np.testing.assert_array_equal(np.asarray(got), want)
    # what the namespace function records, equal by structure
    assert xp.graph_text(a == b) == xp.graph_text(xp.equal(a, b))
    assert (a == "x") is False and (a != None) is True  # noqa: E711 (not ours: Python's fallback)


def test_broadcast_stretches_unit_axes_in_place(tier):
    """(n, 1) against (1, m): each operand is one broadcast node, without a reshape dropping its
    unit axis first; `x[:, None]` broadcasts x itself (the reshape it made is not in the graph)."""
    rng = np.random.default_rng(4)
    c_np = rng.standard_normal((6, 1))
    r_np = rng.standard_normal((1, 5))
    v_np = rng.standard_normal(6)
    c, r, v = xp.asarray(c_np) * 1.0, xp.asarray(r_np) * 1.0, xp.asarray(v_np)
    got, nodes = _recorded(lambda: c - r)
    assert nodes == 3  # two broadcasts and the subtraction
    np.testing.assert_allclose(np.asarray(got), c_np - r_np, rtol=0, atol=0)
    ids = xp.arange(5)
    labels = xp.asarray(np.array([0, 4, 2, 2, 1, 3]))
    got = labels[:, None] == ids[None, :]
    np.testing.assert_array_equal(np.asarray(got), np.array([0, 4, 2, 2, 1, 3])[:, None] == np.arange(5)[None, :])
    e = v[:, None] + r
    text = xp.graph_text(e)
    assert text.count("broadcast_in_dim") == 2 and text.count("reshape") == 0
    np.testing.assert_allclose(np.asarray(e), v_np[:, None] + r_np, rtol=0, atol=0)


@pytest.mark.parametrize("itype", [np.int64, np.int32, np.uint8, np.intp, np.uint64])
def test_numpy_integer_keys_act_as_python_ints(tier, itype):
    X_np = np.arange(24.0).reshape(4, 6)
    v_np = np.arange(5.0) * 1.5
    X, v = xp.asarray(X_np) * 1.0, xp.asarray(v_np) * 1.0
    i, j = itype(2), itype(3)
    for key, want in ((i, X_np[2]), ((slice(None), j), X_np[:, 3]), ((i, j), X_np[2, 3]),
                      ((None, i), X_np[None, 2]), ((i, slice(1, 4)), X_np[2, 1:4])):
        got = X[key]
        python_key = tuple(int(k) if isinstance(k, np.integer) else k for k in key) if isinstance(key, tuple) else int(key)
        assert xp.graph_text(got) == xp.graph_text(X[python_key])
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(v[itype(4)]), v_np[4])
    # writes
    w_np = v_np.copy()
    w = xp.asarray(w_np)
    w[itype(1)] = 7.0
    w[(itype(3),)] = -1.0
    w_np[1], w_np[3] = 7.0, -1.0
    np.testing.assert_array_equal(np.asarray(w), w_np)
    # the messages of Python ints
    with pytest.raises(IndexError) as numpy_key:
        X[itype(4)]
    with pytest.raises(IndexError) as python_key:
        X[4]
    assert str(numpy_key.value) == str(python_key.value)
    if np.dtype(itype).kind == "i":
        np.testing.assert_array_equal(np.asarray(v[itype(-1)]), v_np[-1])
        np.testing.assert_array_equal(np.asarray(X[itype(-1), itype(-2)]), X_np[-1, -2])



def test_bare_slice_and_none_keys_read_and_write_as_one_item_tuples(tier):
    X_np = np.arange(24.0).reshape(4, 6)
    X = xp.asarray(X_np) * 1.0
    for key in (slice(1, 3), slice(None, None, -1), slice(-3, None, 2), None):
        got = X[key]
        assert xp.graph_text(got) == xp.graph_text(X[(key,)])
        np.testing.assert_array_equal(np.asarray(got), X_np[key])
        np.testing.assert_array_equal(np.asarray(X[key]), X_np[key])  # (the memoized plan)
    W_np = X_np.copy()
    W = xp.asarray(W_np)
    W[1:3] = -1.0
    W[::-2] = 5.0
    W_np[1:3] = -1.0
    W_np[::-2] = 5.0
    np.testing.assert_array_equal(np.asarray(W), W_np)
    v = W[1:3]  # a view: writes through it reach W, as numpy's
    v[0] = 9.0
    W_np[1] = 9.0
    np.testing.assert_array_equal(np.asarray(W), W_np)
    with pytest.raises(IndexError) as bare:
        X[None][0, 0, 0, 0]
    with pytest.raises(IndexError) as general:
        X[(None,)][0, 0, 0, 0]
    assert str(bare.value) == str(general.value)
