"""The prepared dot step decides its operands' finiteness from the product where that is cheaper
(`_ops.dot._finiteness`): every input must still take the path the full check gives it, so the
result's bits are those of the full check (np.matmul of finite operands, einsum's NaN-exact
loops otherwise), special values included."""
import itertools

import numpy as np
import pytest

from lazyarray import _blas_threads as bt, _dtypes as dt
from lazyarray._interpret import Stub
from lazyarray._ops import dot as D
from lazyarray._ops.core import host_step

DTYPES = {"float32": dt.float32, "float64": dt.float64}


def _node(xshape, yshape, attrs, dtype):
    lx, ly = Stub(None, (), (), xshape, dtype), Stub(None, (), (), yshape, dtype)
    node = Stub(D.DOT_GENERAL, (lx, ly), D.DOT_GENERAL.Attrs(*attrs), None, dtype)
    node.shape = D._dot_shape(xshape, yshape, node.attrs, dtype)
    return node


def _full_check(x, y, attrs):
    """The full check, spelled out: transpose, reshape to (b, m, k) @ (b, k, n), np.matmul (in
    the window rule's thread setting) when both operands are finite, else einsum."""
    lb, rb, lc, rc = attrs
    lfree = [i for i in range(x.ndim) if i not in lb and i not in lc]
    rfree = [i for i in range(y.ndim) if i not in rb and i not in rc]
    size = lambda s, axes: int(np.prod([s[i] for i in axes], dtype=np.int64))  # noqa: E731
    b, m, n, k = size(x.shape, lb), size(x.shape, lfree), size(y.shape, rfree), size(x.shape, lc)
    xm = np.transpose(x, list(lb) + lfree + list(lc)).reshape(b, m, k)
    ym = np.transpose(y, list(rb) + list(rc) + rfree).reshape(b, k, n)
    if np.isfinite(xm).all() and np.isfinite(ym).all():
        if bt.numpy_matmul_window(b, m, n, k):
            with bt.numpy_one_thread():
                return np.matmul(xm, ym), "blas"
        return np.matmul(xm, ym), "blas"
    return np.einsum("bmk,bkn->bmn", xm, ym), "einsum"


# (x shape, y shape, attrs, same array, the strategy expected: (gram, side))
CASES = [
    ((800, 6), (800, 6), ((), (), (0,), (0,)), True, (True, 0)),     # X.T @ X: gram
    ((6, 800), (6, 800), ((), (), (1,), (1,)), True, (True, 0)),     # X @ X.T: gram
    ((800, 6), (6,), ((), (), (1,), (0,)), False, (False, 2)),      # X @ w: w the smaller
    ((800,), (800, 6), ((), (), (0,), (0,)), False, (False, 1)),    # r @ X (X.T @ r folded)
    ((1, 800), (800, 6), ((), (), (1,), (0,)), False, (False, 1)),  # a row times a matrix
    ((800, 6), (3, 6), ((), (), (1,), (1,)), False, (False, 2)),    # X @ C.T (PCA's transform)
    ((2, 500, 5), (2, 5), ((0,), (0,), (2,), (1,)), False, (False, 2)),  # batched
    ((800, 6), (800, 6), ((), (), (0,), (0,)), False, (True, 0)),   # a gram's structure, two arrays: full check
    ((8, 600), (8, 600), ((), (), (0,), (0,)), True, (False, 0)),   # a gram larger than x: full check
    ((0, 5000), (5000,), ((), (), (1,), (0,)), False, (False, 1)),  # empty
    ((800, 6), (6, 0), ((), (), (1,), (0,)), False, (False, 2)),    # empty result
    ((40, 6), (6,), ((), (), (1,), (0,)), False, (False, 0)),       # small: the full check
]


def _specials(rng, shape, dtype, kind):
    """An operand of `shape`: "finite", "zero" (finite with zeros), "inf", "nan", "huge" (finite,
    the product overflows)."""
    a = rng.standard_normal(shape).astype(dtype)
    if a.size == 0 or kind == "finite":
        return a
    flat = a.reshape(-1)
    idx = rng.choice(a.size, size=min(3, a.size), replace=False)
    flat[idx] = {"zero": 0.0, "inf": np.inf, "nan": np.nan, "huge": np.finfo(dtype).max / 2}[kind]
    if kind == "inf":
        flat[idx[-1]] = -np.inf
    return a


KINDS = ["finite", "zero", "inf", "nan", "huge"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}x{c[1]}{'-same' if c[3] else ''}" for c in CASES])
def test_same_path_and_bits_as_the_full_check(dtype, case):
    xshape, yshape, attrs, same, strategy = case
    d = DTYPES[dtype]
    node = _node(xshape, yshape, attrs, d)
    step = host_step(node)
    assert getattr(step, "func", None) is D._dot_step
    assert step.args[-2:] == strategy
    rng = np.random.default_rng(sum(xshape) + len(yshape))
    paths = set()
    for kx, ky in itertools.product(KINDS, KINDS if not same else [None]):
        x = _specials(rng, xshape, d.np, kx)
        y = x if same else _specials(rng, yshape, d.np, ky)
        if kx == "zero" and ky in ("inf", "nan") and x.size and y.size:
            # the case a BLAS may get wrong: a zero of one operand against an infinity or NaN of
            # the other, in one product (here x[0, ..., 0] against y's first contracted row)
            y = y.copy()
            y.reshape(-1)[:] = np.where(np.isfinite(y.reshape(-1)), y.reshape(-1), 1.0)
            y.reshape(-1)[0] = np.inf if ky == "inf" else np.nan
        with np.errstate(all="ignore"):
            got = step(x, y)
            evaluated = D._dot(node, x, y)
            want, path = _full_check(x, y, attrs)
        paths.add(path)
        want = want.reshape(node.shape)
        assert got.shape == node.shape and got.dtype == d.np
        assert got.tobytes() == want.tobytes() == evaluated.tobytes(), (kx, ky, path)
    if np.prod(xshape) and np.prod(yshape):
        assert paths == {"blas", "einsum"}


def test_zero_against_infinity_is_nan():
    """The product a skipped zero would lose, 0 * inf, gives NaN; and an infinity of the larger
    operand against the smaller's nonzero entries shows in its row."""
    d = dt.float64
    node = _node((1200, 4), (4,), ((), (), (1,), (0,)), d)  # X @ w: side 2
    step = host_step(node)
    assert step.args[-2:] == (False, 2)
    x = np.ones((1200, 4))
    x[7, 2] = np.inf
    rows = np.arange(1200) != 7
    with np.errstate(all="ignore"):
        got = step(x, np.array([1.0, 1.0, 0.0, 1.0]))  # the infinity meets the zero only
        assert np.isnan(got[7]) and (got[rows] == 3).all()
        got = step(x, np.array([1.0, 1.0, -2.0, 1.0]))
        assert got[7] == -np.inf and (got[rows] == 1).all()
        got = step(np.ones((1200, 4)), np.array([1.0, np.nan, 1.0, 1.0]))
        assert np.isnan(got).all()
