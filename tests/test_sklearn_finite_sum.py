"""Session 12, issue 11 target 1 (scikit-learn's second call): `bool(isfinite(sum(x)))` of a leaf
x, scikit-learn's `_assert_all_finite` at every fit, predict and score, is answered on the host
(`_host_sync.finite_sum`) when the answer does not depend on the summation order: x holds a NaN
or an infinity (False), or no partial sum can overflow (True). Checked against the compiled
program (XLA's order) and numpy; an input whose sum might overflow takes the usual path."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _host_sync
from lazyarray._metrics import metrics


@pytest.fixture(autouse=True)
def tiered(monkeypatch):
    """The default tiers (the conformance conftest may switch the interpreter tier off)."""
    monkeypatch.setattr(_config, "interpret_first", 2)


def _read(x_np, dtype):
    x = xp.asarray(x_np, dtype=dtype)
    before = metrics.host_syncs
    v = bool(xp.isfinite(xp.sum(x)))
    return v, metrics.host_syncs - before


def _compiled(x_np, dtype, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(_config, "interpret_first", 0)
        return bool(xp.isfinite(xp.sum(xp.asarray(x_np, dtype=dtype))))


_rng = np.random.default_rng(0)
_CASES = {
    "normal": _rng.standard_normal((300, 8)),
    "nan": np.where(np.arange(2400).reshape(300, 8) == 17, np.nan, 1.0),
    "inf": np.where(np.arange(40).reshape(5, 8) == 3, np.inf, 2.0),
    "-inf": np.where(np.arange(40) == 39, -np.inf, 2.0),
    "inf and -inf": np.array([np.inf, 1.0, -np.inf]),
    "nan and inf": np.array([np.nan, np.inf, 0.0]),
    "one element": np.array([[3.5]]),
    "large but safe": np.full((4, 4), 1e300),
    "zeros": np.zeros((3, 0 + 3)),
    "0-D": np.array(2.0),
}


@pytest.mark.parametrize("name", sorted(_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_host_answer_is_the_compiled_one(name, dtype, monkeypatch):
    x_np = _CASES[name]
    if dtype == "float32" and name == "large but safe":
        x_np = np.full((4, 4), 1e37)
    v, host = _read(x_np, getattr(xp, dtype))
    with np.errstate(all="ignore"):
        expected = bool(np.isfinite(np.sum(x_np.astype(dtype))))
    assert v == expected
    assert v == _compiled(x_np, getattr(xp, dtype), monkeypatch)
    assert host == 1  # answered on the host


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_empty(dtype, monkeypatch):
    v, host = _read(np.zeros((0, 5)), getattr(xp, dtype))
    assert v is True and host == 1
    assert _compiled(np.zeros((0, 5)), getattr(xp, dtype), monkeypatch) is True


@pytest.mark.parametrize("values", [[1e308, 1e308, -1e308], [1e308, -1e308, 1e308], [1.7e308, 1.7e308]])
def test_order_dependent_takes_the_usual_path(values, monkeypatch):
    """A sum that might overflow: the order decides, so the host answer is not given."""
    x_np = np.array(values)
    x = xp.asarray(x_np)
    assert _host_sync.finite_sum(xp.isfinite(xp.sum(x))._node) is None
    v, _ = _read(x_np, xp.float64)
    assert v == _compiled(x_np, xp.float64, monkeypatch)


def test_float32_order_dependent():
    x = xp.asarray(np.full(4, 3e38, np.float32))
    assert _host_sync.finite_sum(xp.isfinite(xp.sum(x))._node) is None


def _finite_sum_of(f):
    node = f._node
    assert node.op is xp._ops.IS_FINITE if hasattr(xp, "_ops") else True
    return _host_sync.finite_sum(node)


def test_other_graphs_are_not_taken():
    x = xp.asarray(np.arange(12.0).reshape(3, 4)) * 1.0  # (pending: a computed operand)
    assert _finite_sum_of(xp.isfinite(xp.sum(x))) is None
    y = xp.asarray(np.arange(12.0).reshape(3, 4))
    f = xp.isfinite(xp.prod(y))
    if f._node.op is not None:
        assert _finite_sum_of(f) is None                   # (a product)
    f = xp.isfinite(xp.sum(y, axis=0))
    if f._node.op is not None:
        assert _host_sync.finite_sum(f._node) is None     # (not every axis)
    # the usual path's values for these
    assert bool(xp.all(xp.isfinite(xp.sum(y, axis=0))))
    assert bool(xp.isfinite(xp.sum(x)))
    assert bool(xp.isfinite(xp.prod(y)))


def test_live_sum_stays_right():
    """A live handle on the sum: the read realizes the is_finite only; the sum is computed by its
    own read, with the usual path's value."""
    x_np = _rng.standard_normal((50, 3))
    x = xp.asarray(x_np)
    s = xp.sum(x)
    f = xp.isfinite(s)
    assert bool(f) is True
    assert float(s) == pytest.approx(float(np.sum(x_np)), rel=1e-12)
    assert bool(f) is True  # (read again: the realized value)


def test_leaf_from_a_computed_array():
    """x realized by an earlier read (a leaf holding the computed value) is a leaf like any other."""
    x = xp.asarray(_rng.standard_normal((20, 4))) * 2.0
    np.asarray(x)
    v, host = _read(np.asarray(x), xp.float64)
    assert v is True and host == 1
    assert bool(xp.isfinite(xp.sum(x))) is True
