"""Recipe matchers of one wiring share one compiled code (`_run_program._matcher_codes`): each
matcher still holds its own signature's values, accepts its own graph and rejects a graph of the
same wiring with another op, shape or dtype; recipe-served reads keep numpy's values."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _run_program
from lazyarray._graph import Plan


@pytest.fixture
def codes(monkeypatch):
    kept = {}
    monkeypatch.setattr(_run_program, "_matcher_codes", kept)
    compiled = []
    real = compile
    monkeypatch.setattr(_run_program, "compile", lambda text, *a: compiled.append(text) or real(text, *a), raising=False)
    return kept, compiled


def _matcher_of(y):
    plan = Plan([y._node])
    return _run_program._matcher(plan.sig), plan


def _graphs():
    a64, b64 = xp.asarray(np.arange(6.0)), xp.asarray(np.ones(6))
    a32, b32 = xp.asarray(np.arange(6.0), dtype=xp.float32), xp.asarray(np.ones(6), dtype=xp.float32)
    a7, b7 = xp.asarray(np.arange(7.0)), xp.asarray(np.ones(7))
    return [
        xp.sin(a64 * b64) - b64,   # float64, shape (6,)
        xp.sin(a32 * b32) - b32,   # float32
        xp.sin(a7 * b7) - b7,      # another shape
        xp.cos(a64 * b64) - b64,   # another op
        xp.sin(a64 + b64) - b64,   # another op, inner
    ]


def test_one_code_per_wiring_and_each_matcher_its_own_graph(codes):
    kept, compiled = codes
    ys = _graphs()
    matchers = []
    for y in ys:
        match, plan = _matcher_of(y)
        matchers.append((match, plan))
    assert len(compiled) == 1 and len(kept) == 1
    for i, (match, plan) in enumerate(matchers):
        for j, y in enumerate(ys):
            found = match(y._node)
            if i == j:
                leaves, order = found
                assert [id(n) for n in leaves] == [id(n) for n in plan.leaves]
                assert [id(n) for n in order] == [id(n) for n in plan.order]
            else:
                assert found is None


def test_another_wiring_compiles_its_own(codes):
    kept, compiled = codes
    x = xp.asarray(np.arange(5.0))
    _matcher_of(x * 2.0 + x)
    _matcher_of((x * 2.0) * (x * 2.0))
    _matcher_of(x * 3.0 + x)
    assert len(compiled) == 2 and len(kept) == 2


def test_kept_codes_are_bounded(codes, monkeypatch):
    kept, compiled = codes
    monkeypatch.setattr(_run_program, "MATCHER_CODES_KEPT", 2)
    x = xp.asarray(np.arange(5.0))
    y = x
    for k in range(4):
        y = y + 1.0
        _matcher_of(y)
    assert len(compiled) == 4 and list(kept) == compiled[-2:]  # (the newest two kept)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_recipe_reads_of_shared_code_keep_values(codes, dtype, monkeypatch):
    monkeypatch.setattr(_run_program, "RECIPE_AFTER_RUNS", 2)
    rng = np.random.default_rng(3)
    for n in (9, 9, 9, 9, 11, 11, 11, 11):
        for _ in range(3):
            an, bn = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
            a, b = xp.asarray(an), xp.asarray(bn)
            got = np.asarray(xp.sin(a * b) - b)
            want = np.sin(an * bn) - bn
            np.testing.assert_allclose(got, want, rtol=4 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).eps)
    kept, compiled = codes
    assert kept and len(compiled) == len(kept)  # (recipes were made: shapes 9 and 11, one text)
