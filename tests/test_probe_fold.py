"""Session 12, issue 11 target 3 (the scalar read `bool(t[i] <= x)`): an add, subtract, multiply
(integers) or compare of two 0-D host values is computed when the operator records it
(`_host_sync.fold_leaves`), a host leaf instead of a node. Values are checked bit for bit against
the op's evaluation (numpy's ufunc: the interpreter tier) and the compiled program."""
import warnings

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _host_sync
from lazyarray import _ops as ops
from lazyarray._metrics import metrics


@pytest.fixture(autouse=True)
def tiered(monkeypatch):
    """The default tiers (the conformance conftest may switch the interpreter tier off)."""
    monkeypatch.setattr(_config, "interpret_first", 2)


def _bits(v):
    return np.asarray(v).tobytes()


_SPECIAL_FLOATS = [0.0, -0.0, 1.0, -2.5, 3.0e38, -3.0e38, 1e-310, -1e-40, np.inf, -np.inf, np.nan, 7.0]
_TYPES = [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
          np.uint32, np.uint64]
_OPS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
        "divide": lambda a, b: a / b,
        "less": lambda a, b: a < b, "less_equal": lambda a, b: a <= b, "greater": lambda a, b: a > b,
        "greater_equal": lambda a, b: a >= b, "equal": lambda a, b: a == b,
        "not_equal": lambda a, b: a != b}


def _samples(npdt):
    if np.dtype(npdt).kind == "f":
        with np.errstate(all="ignore"):
            return [npdt(v) for v in _SPECIAL_FLOATS]
    info = np.iinfo(npdt)
    return [npdt(v) for v in (0, 1, 3, info.max, info.min, info.max - 1, info.min + 1, 100 % (int(info.max) + 1))]


def _pairs(npdt):
    s = _samples(npdt)
    return np.array([a for a in s for b in s], npdt), np.array([b for a in s for b in s], npdt)


def _same(a, b):
    """Bit for bit; two NaNs of either sign alike (vectorized loops may take either operand's NaN
    when both are NaN: not a value the tiers promise)."""
    if _bits(a) == _bits(b):
        return True
    return np.asarray(a).dtype.kind == "f" and bool(np.isnan(a)) and bool(np.isnan(b))


def _folds(npdt, what):
    if what == "divide":  # (a float quotient only: integer division is StableHLO's)
        return np.dtype(npdt).kind == "f"
    return not (what == "multiply" and np.dtype(npdt).kind == "f")


@pytest.mark.parametrize("npdt", _TYPES)
@pytest.mark.parametrize("what", list(_OPS))
def test_folded_values_are_the_evaluation_bit_for_bit(npdt, what):
    """Every pair of special values (NaN, infinities, signed zeros, subnormals, the integer
    limits: overflow wraps), as elements read when indexed: the folded value is the namespace
    function's evaluation's (numpy's ufunc on arrays), of its type, with no warning."""
    A, B = _pairs(npdt)
    ta, tb = xp.asarray(A), xp.asarray(B)
    f = _OPS[what]
    with np.errstate(all="ignore"):
        want = getattr(np, what)(A, B)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(len(A)):
            folds = metrics.host_folds
            r = f(ta[i], tb[i])
            assert r.shape == () and r.dtype == (xp.bool if want.dtype == np.bool_ else r.dtype)
            if _folds(npdt, what):
                assert r._node.op is None and metrics.host_folds == folds + 1
                v = r._node.host
                assert type(v) is want.dtype.type, (A[i], B[i], type(v))
            else:  # (a float product stays a node: a program may contract it into an FMA)
                assert r._node.op is not None and metrics.host_folds == folds
                v = np.asarray(r)
            assert _bits(v) == _bits(want[i]), (A[i], B[i], v, want[i])


@pytest.mark.parametrize("npdt", [np.float32, np.float64, np.int8, np.uint64])
def test_folded_values_are_the_compiled_programs(monkeypatch, npdt):
    """The same pairs computed by XLA (one program per op over all pairs)."""
    A, B = _pairs(npdt)
    ta, tb = xp.asarray(A), xp.asarray(B)
    folded = {what: [f(ta[i], tb[i])._node.host for i in range(len(A))]
              for what, f in _OPS.items() if _folds(npdt, what)}
    monkeypatch.setattr(_config, "interpret_first", 0)  # (compiled programs, nothing folded)
    for what, values in folded.items():
        compiled = np.asarray(_OPS[what](xp.asarray(A), xp.asarray(B)))
        for i, v in enumerate(values):
            if _subnormal(v) or _subnormal(A[i]) or _subnormal(B[i]):
                continue  # (XLA's CPU backend flushes subnormals to zero, operands and results;
                # the interpreter tier, and the host reads before this fold, do not: README)
            assert _same(v, compiled[i]), (what, A[i], B[i], v, compiled[i])


def _subnormal(v):
    if np.asarray(v).dtype.kind != "f":
        return False
    return v != 0 and abs(v) < np.finfo(np.asarray(v).dtype).tiny


def test_operand_order_python_scalars_and_0d_arrays():
    """Reflected operators keep the order; a Python scalar and a 0-D array are folded too."""
    t = xp.asarray(np.array([0.25, 3.0, -1.5]))
    x = xp.asarray(0.5)  # (a 0-D host array)
    for i, v in enumerate([0.25, 3.0, -1.5]):
        folds = metrics.host_folds
        assert float(t[i] - x) == v - 0.5 and float(x - t[i]) == 0.5 - v
        assert float(2.5 - t[i]) == 2.5 - v and float(t[i] - 2.5) == v - 2.5
        assert float(t[i] + 1.0) == v + 1.0 and float(1.0 + t[i]) == 1.0 + v
        assert bool(t[i] <= x) is (v <= 0.5) and bool(x <= t[i]) is (0.5 <= v)
        assert bool(t[i] < 1) is (v < 1) and bool(1 < t[i]) is (1 < v)
        assert metrics.host_folds == folds + 10


def test_a_scalar_read_is_no_sync():
    """`bool(t[i] <= x)`: no node, no sync, no program."""
    t = xp.asarray(np.linspace(0.0, 1.0, 64))
    x = xp.asarray(0.5)
    syncs, host_syncs = sum(metrics.syncs.values()), metrics.host_syncs
    runs = metrics.executions + metrics.interpreted
    for i in range(64):
        assert bool(t[i] <= x) is bool(i / 63 <= 0.5)
    assert sum(metrics.syncs.values()) == syncs and metrics.host_syncs == host_syncs
    assert metrics.executions + metrics.interpreted == runs


def test_not_folded():
    """Recorded as before: float16, complex and bool operands, a pending or device operand, and
    every setting that asks for the engine's path (compiled programs, debug, checks)."""
    for v in (np.float16(1.5), np.complex128(1 + 2j), np.bool_(True)):
        a = xp.asarray(np.array([v, v]))
        assert (a[0] == a[1])._node.op is not None
    t = xp.asarray(np.arange(4.0))
    s = xp.sum(t)  # a pending 0-D value
    assert (s + t[1])._node.op is not None
    d = xp.asarray(np.arange(4.0)) + 1.0
    np.asarray(d)  # (realized: a buffer or a host value)
    assert float(d[1] + t[1]) == 3.0


@pytest.mark.parametrize("setting", [("interpret_first", 0), ("debug", 1)])
def test_settings_that_record(monkeypatch, setting):
    t = xp.asarray(np.arange(4.0))
    monkeypatch.setattr(_config, *setting)
    r = t[1] <= t[2]
    assert r._node.op is not None
    assert bool(r) is True


def test_the_verifier_checks_the_folded_node(monkeypatch):
    """With the graph verifier on, the node a folded value stands for is checked (its rule)."""
    seen = []
    real = _host_sync._verify.verify
    monkeypatch.setattr(_config, "verify", True)
    monkeypatch.setattr(_host_sync._verify, "verify", lambda order, leaves: (seen.append(order), real(order, leaves)))
    t = xp.asarray(np.arange(4, dtype=np.int32))
    assert int(t[1] * t[3]) == 3
    assert len(seen) == 1 and seen[0][0].op is ops.MULTIPLY
