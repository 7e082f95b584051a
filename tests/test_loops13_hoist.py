"""A loop's `X.T @ v` over a large invariant X reads transpose(X) along its rows, as the product
transpose(X) . v (`_segment._rewritten_attrs`: the vector swaps sides, as jax.jit's own `X.T @ r`),
in the REPEAT's body, in a first chunk run alone and in a replayed call; a column or row operand
keeps its side. Values against numpy, both tiers, bit for bit between a call and its replay."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config
from lazyarray._ops.dot import DOT_GENERAL
from loop_workloads import logreg


def _data(rng, n=2000, d=40, dtype=np.float64, column=False):  # 80000 elements: hoisted
    X = rng.standard_normal((n, d)).astype(dtype)
    y = (X @ rng.standard_normal(d) > 0).astype(dtype)
    w = np.zeros(d, dtype)
    if column:
        y, w = y[:, None], w[:, None]
    return X, y, w


def _transposed_dots(body, shape):
    return [t for t in body.nodes if t.op is DOT_GENERAL and any(a.shape == shape for a in t.args)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_vector_product_reads_the_transpose_as_its_left_operand(engine, both_tiers, rng, monkeypatch, bodies, dtype):
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _data(rng, dtype=dtype)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    rtol = 1e-4 if dtype == np.float32 else 1e-11
    first = np.asarray(logreg(xp, Xl, yl, wl, 30))
    np.testing.assert_allclose(first, logreg(np, X, y, w, 30), rtol=rtol, atol=rtol * 1e-2)
    assert bodies
    t, = _transposed_dots(bodies[0], (40, 2000))
    assert t.args[0].shape == (40, 2000) and t.args[1].shape == (2000,)
    assert (t.attrs.lhs_contract, t.attrs.rhs_contract) == ((1,), (0,)) and t.shape == (40,)
    for _ in range(3):  # the replayed chunking (the copy made by the first call serves it)
        np.testing.assert_array_equal(np.asarray(logreg(xp, Xl, yl, wl, 30)), first)


def test_the_tiers_agree_on_the_swapped_product(engine, rng, monkeypatch):
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _data(rng)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    out = {}
    for tier, first in (("compiled", 0), ("interpreted", 2)):
        monkeypatch.setattr(xp.config, "interpret_first", first)
        engine.reset()
        out[tier] = np.asarray(logreg(xp, Xl, yl, wl, 30))
    np.testing.assert_allclose(out["compiled"], out["interpreted"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out["compiled"], logreg(np, X, y, w, 30), rtol=1e-11)


@pytest.mark.parametrize("budget", [300, 10 ** 6])
def test_a_cut_loop_replays_the_swapped_product_bit_for_bit(fresh, rng, monkeypatch, budget, replays):
    """Budget cuts (the first chunk run alone, a pending tail that keeps the loop's form) and
    the read after them; the calls after the first replay the recipe with the same bits."""
    monkeypatch.setattr(_config, "node_budget", budget)
    X, y, w = _data(rng, dtype=np.float32)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    first = np.asarray(logreg(xp, Xl, yl, wl, 60))
    np.testing.assert_allclose(first, logreg(np, X, y, w, 60), rtol=1e-4, atol=1e-6)
    second = np.asarray(logreg(xp, Xl, yl, wl, 60))
    compiles = fresh.compiles
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(logreg(xp, Xl, yl, wl, 60)), second)
    np.testing.assert_allclose(second, first, rtol=1e-6, atol=1e-8)
    assert replays[0] >= 3 and fresh.compiles == compiles


def test_a_column_keeps_its_side(fresh, rng, monkeypatch, bodies):
    """(n, 1) columns: the product is row . X (a unit axis), rewritten to read the transpose
    along its rows without swapping sides (the result's axes would move)."""
    monkeypatch.setattr(_config, "node_budget", 10 ** 6)
    X, y, w = _data(rng, column=True)
    Xl, yl, wl = xp.asarray(X), xp.asarray(y), xp.asarray(w)
    out = np.asarray(logreg(xp, Xl, yl, wl, 30))
    np.testing.assert_allclose(out, logreg(np, X, y, w, 30), rtol=1e-11)
    t, = _transposed_dots(bodies[0], (40, 2000))
    assert t.args[1].shape == (40, 2000) and t.attrs.rhs_contract == (1,)
