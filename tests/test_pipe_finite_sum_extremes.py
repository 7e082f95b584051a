"""Session 13 (issue 11, the 5000x50 Pipeline): `_host_sync.finite_sum` takes max|x| as
max(max x, -min x) instead of np.abs(x).max() (no temporary copy of x). The answer must be the
one np.abs(x).max() gave on every input: the negative side dominating, NaN or an infinity at
either end or alone, signed zeros, the bound crossed on either side; and the read's value the
compiled program's and numpy's."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _host_sync


@pytest.fixture(autouse=True)
def tiered(monkeypatch):
    monkeypatch.setattr(_config, "interpret_first", 2)


def _old_answer(v, bound):
    """The previous rule, written out: np.abs(v).max() against the bound."""
    n = v.size
    if n == 0:
        return True
    m = float(np.abs(v).max())
    if m != m or m == float("inf"):
        return False
    return True if m * n <= bound else None


def _answer(x_np, dtype):
    r = _host_sync.finite_sum(xp.isfinite(xp.sum(xp.asarray(x_np, dtype=dtype)))._node)
    return None if r is None else bool(r)


_BIG = {"float32": float(np.finfo(np.float32).max), "float64": float(np.finfo(np.float64).max)}


def _cases(dtype):
    big = _BIG[dtype]
    rng = np.random.default_rng(13)
    out = {
        "normal": rng.standard_normal((500, 7)),
        "negative dominates": np.array([1.0, -5.0, 2.0]),
        "positive dominates": np.array([-1.0, 5.0, -2.0]),
        "all negative": -np.abs(rng.standard_normal(50)) - 1.0,
        "nan first": np.array([np.nan, 1.0, -2.0]),
        "nan last": np.array([1.0, -2.0, np.nan]),
        "nan only": np.array([np.nan]),
        "-inf only": np.array([-np.inf, 1.0]),
        "+inf only": np.array([np.inf, -1.0]),
        "both infinities": np.array([np.inf, -np.inf]),
        "nan and -inf": np.array([-np.inf, np.nan]),
        "signed zeros": np.array([-0.0, 0.0, -0.0]),
        "negative zero only": np.array([-0.0]),
        "negative side crosses the bound": np.array([-big / 3, 1.0, 2.0]),
        "positive side crosses the bound": np.array([big / 3, -1.0, -2.0]),
        "negative side just safe": np.array([-big / 8, 1.0]),
    }
    return {k: v.astype(dtype) for k, v in out.items()}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_same_answer_as_abs_max(dtype):
    bound = _host_sync._FINITE_SUM_BOUND[getattr(xp, dtype)]
    for name, x_np in _cases(dtype).items():
        assert _answer(x_np, getattr(xp, dtype)) == _old_answer(x_np, bound), name


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_read_is_numpy_and_compiled(dtype, monkeypatch):
    d = getattr(xp, dtype)
    for name, x_np in _cases(dtype).items():
        v = bool(xp.isfinite(xp.sum(xp.asarray(x_np, dtype=d))))
        with monkeypatch.context() as m:
            m.setattr(_config, "interpret_first", 0)
            compiled = bool(xp.isfinite(xp.sum(xp.asarray(x_np, dtype=d))))
        assert v == compiled, name
        if _answer(x_np, d) is not None:  # (order-independent: numpy's order gives it too)
            with np.errstate(all="ignore"):
                assert v == bool(np.isfinite(np.sum(x_np))), name


def test_random_nan_positions_match():
    rng = np.random.default_rng(1)
    bound = _host_sync._FINITE_SUM_BOUND[xp.float64]
    for _ in range(50):
        x_np = rng.standard_normal(rng.integers(1, 40)) * 10.0 ** rng.integers(-3, 300)
        k = rng.integers(0, 4)
        if k == 1:
            x_np[rng.integers(0, x_np.size)] = np.nan
        elif k == 2:
            x_np[rng.integers(0, x_np.size)] = -np.inf
        assert _answer(x_np, xp.float64) == _old_answer(x_np, bound)
