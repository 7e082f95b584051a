"""A loop's next call is matched to its recipe from the operands' ranks and the outside operands
alone (`_segment._memo_key`): a replayed chunking builds no `_Reads`, and gives the bits of the
call that worked the chunking out; one that is worked out (a changed scalar) builds them."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _segment


def decay(ns, x, W, steps, a=0.5):
    for _ in range(steps):
        x = ns.tanh(W @ x) * a + x * (1.0 - a)
    return x


@pytest.fixture
def built(monkeypatch):
    counts, real = [0], _segment._Reads

    class Counting(real):
        __slots__ = ()

        def __init__(self, *args):
            counts[0] += 1
            super().__init__(*args)

    monkeypatch.setattr(_segment, "_Reads", Counting)
    return counts


@pytest.mark.parametrize("budget", [10 ** 6, 200])
def test_a_replayed_call_builds_no_reads(engine, both_tiers, rng, monkeypatch, built, budget):
    monkeypatch.setattr(_config, "node_budget", budget)
    W = rng.standard_normal((30, 30)) / 6
    x = rng.standard_normal(30)
    Wl, xl = xp.asarray(W), xp.asarray(x)
    want = decay(np, x, W, 40)
    first = np.asarray(decay(xp, xl, Wl, 40))
    np.testing.assert_allclose(first, want, rtol=1e-12, atol=1e-14)
    second = np.asarray(decay(xp, xl, Wl, 40))  # (the call that records the recipe)
    np.testing.assert_allclose(second, want, rtol=1e-12, atol=1e-14)
    before = built[0]
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(decay(xp, xl, Wl, 40)), second)
    assert built[0] == before
    got = np.asarray(decay(xp, xl, Wl, 40, a=0.25))  # another scalar: worked out again
    np.testing.assert_allclose(got, decay(np, x, W, 40, a=0.25), rtol=1e-12, atol=1e-14)
    assert built[0] > before
