"""The prepared dot step's full check (operands too small for `_finiteness`'s shortcuts) decides
finiteness from each operand's sum (`_ops.dot._sum_finite`): every input must take the path
`isfinite(x).all() and isfinite(y).all()` gives it (a finite sum of finite values that overflows
falls back to that exact check), so the bits are those of the full check, special values and
overflowing sums included, at the shapes scikit-learn's estimators run on 300x8 data."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray._ops import dot as D
from lazyarray._ops.core import host_step
from test_linalg_dot_finiteness import KINDS, _full_check, _node, _specials

DTYPES = {"float32": dt.float32, "float64": dt.float64}

# (x shape, y shape, attrs, same array): pass 2's commonest dots (X @ W, R.T @ X, X @ C.T, ...)
CASES = [
    ((300, 8), (8, 8), ((), (), (1,), (0,)), False),
    ((300, 3), (300, 8), ((), (), (0,), (0,)), False),
    ((300, 8), (3, 8), ((), (), (1,), (1,)), False),
    ((8, 300), (300, 8), ((), (), (1,), (0,)), False),
    ((8,), (8, 8), ((), (), (0,), (0,)), False),
    ((300, 8), (8,), ((), (), (1,), (0,)), False),
    ((8, 8), (8, 8), ((), (), (1,), (1,)), True),
    ((2, 5, 4), (2, 4, 3), ((0,), (0,), (2,), (1,)), False),
    ((0, 8), (8, 8), ((), (), (1,), (0,)), False),
    ((70, 70), (70, 70), ((), (), (1,), (0,)), False),  # from FINITENESS_FROM elements: isfinite
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}x{c[1]}{'-same' if c[3] else ''}" for c in CASES])
def test_same_path_and_bits_as_the_full_check(dtype, case):
    xshape, yshape, attrs, same = case
    d = DTYPES[dtype]
    node = _node(xshape, yshape, attrs, d)
    step = host_step(node)
    assert getattr(step, "func", None) is D._dot_step
    assert step.args[-2:] == (False, 0)  # the full check's branch
    rng = np.random.default_rng(sum(xshape) + 7 * len(yshape))
    paths = set()
    for kx, ky in itertools.product(KINDS + ["overflow", "infs"], KINDS if not same else [None]):
        x = _operand(rng, xshape, d.np, kx)
        y = x if same else _specials(rng, yshape, d.np, ky)
        with np.errstate(all="ignore"):
            got = step(x, y)
            want, path = _full_check(x, y, attrs)
        paths.add(path)
        want = want.reshape(node.shape)
        assert got.shape == node.shape and got.dtype == d.np
        assert got.tobytes() == want.tobytes(), (kx, ky, path)
    if np.prod(xshape) and np.prod(yshape):
        assert paths == {"blas", "einsum"}


def _operand(rng, shape, dtype, kind):
    """`_specials`' kinds, and two more: "overflow" (finite, every element near the largest float:
    the sum overflows, the product is BLAS's all the same), "infs" (+inf and -inf: a NaN sum)."""
    if kind not in ("overflow", "infs"):
        return _specials(rng, shape, dtype, kind)
    a = rng.standard_normal(shape).astype(dtype)
    if kind == "overflow":
        return np.full(shape, np.finfo(dtype).max / 4, dtype)
    if a.size >= 2:
        a.reshape(-1)[:2] = (np.inf, -np.inf)
    return a


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_finite(dtype):
    d = np.dtype(dtype)
    big = np.finfo(d).max
    assert D._sum_finite(np.ones((3, 4), d))
    assert D._sum_finite(np.zeros((0, 4), d))
    with np.errstate(all="ignore"):
        assert not D._sum_finite(np.array([1.0, np.nan], d))
        assert not D._sum_finite(np.array([np.inf, -np.inf], d))
        assert not D._sum_finite(np.array([1.0, -np.inf], d))
        assert not D._sum_finite(np.array([big, big], d))  # overflow: the exact check decides
    assert D._sum_finite(np.ones((8, 300), d).T)  # a strided operand
    large = np.ones(D.FINITENESS_FROM, d)  # (isfinite's pass from this size on)
    assert D._sum_finite(large) and D._sum_finite(np.full(D.FINITENESS_FROM, big, d))
    large[-1] = np.nan
    assert not D._sum_finite(large)


@pytest.mark.parametrize("tier", ["compiled", "interpreted"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul_values_in_both_tiers(monkeypatch, tier, dtype):
    monkeypatch.setattr(xp.config, "interpret_first", 0 if tier == "compiled" else 2)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 8)).astype(dtype)
    W = rng.standard_normal((8, 3)).astype(dtype)
    W[1, 2] = np.inf
    W[4, 0] = np.nan
    x, w = xp.asarray(X), xp.asarray(W)
    got = np.asarray(x @ w)
    with np.errstate(all="ignore"):
        want = np.einsum("mk,kn->mn", X.astype(np.float64), W.astype(np.float64))
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.isinf(got), np.isinf(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-5 if dtype == "float32" else 1e-12)
    W2 = rng.standard_normal((8, 3)).astype(dtype)
    got = np.asarray(x @ xp.asarray(W2))
    np.testing.assert_allclose(got, X.astype(np.float64) @ W2, rtol=1e-4 if dtype == "float32" else 1e-12)
