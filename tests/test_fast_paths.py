"""The fast paths of scalar code (issue 11, target 3): `x[i]` of a computed 1-D array read at
once into a host scalar (`_indexing._element`), small syncs computed on the host with no
program (`_host_sync`), an element read of a large pending array that leaves it pending, and
the scalar read itself (`_engine.read_scalar`). Each test compares with numpy, and checks that
the fast path was (or was not) taken through the metrics that count it, never by timing."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config
from lazyarray._metrics import metrics


@pytest.fixture
def tiered(monkeypatch):
    """The default tiers (the conformance conftest may switch the interpreter tier off)."""
    monkeypatch.setattr(_config, "interpret_first", 2)


def _counts():
    return (metrics.host_syncs, metrics.host_element_reads, metrics.executions, metrics.interpreted)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_])
def test_element_of_a_computed_array(tiered, dtype):
    t_np = (np.arange(-5, 11) * 3 % 7).astype(dtype)
    t = xp.asarray(t_np)
    before = metrics.host_element_reads
    for i in (0, 3, 15, -1, -16):
        e = t[i]
        assert e.shape == () and e.dtype == xp.asarray(t_np[i]).dtype
        assert e.item() == t_np[i].item()
    assert metrics.host_element_reads == before + 5


def test_element_of_a_pending_array_and_of_a_view(tiered):
    t_np = np.linspace(-1.0, 1.0, 9)
    t = xp.asarray(t_np) * 2.0  # pending: the general path's dynamic_slice
    v = xp.asarray(t_np)[1:]     # a view: the general path
    before = metrics.host_element_reads
    assert float(t[-9]) == t_np[0] * 2.0
    assert t._node.op is None and metrics.host_element_reads == before  # t (small) realized with the read
    assert [float(t[i]) for i in range(-8, 9)] == [float(t_np[i] * 2.0) for i in range(-8, 9)]
    assert metrics.host_element_reads == before + 17
    assert [float(v[i]) for i in range(8)] == list(t_np[1:])
    assert [float(v[i]) for i in range(-8, 0)] == list(t_np[1:])
    assert metrics.host_element_reads > before + 17  # the view's (small) node realized by its first read


def test_element_errors_unchanged():
    t = xp.asarray(np.arange(4.0))
    for i in (4, -5, 10 ** 20):
        with pytest.raises(IndexError) as fast:
            t[i]
        with pytest.raises(IndexError) as general:
            t[(i,)]  # a tuple key: the general path
        assert str(fast.value) == str(general.value) == f"index {i} is out of bounds for axis 0 with size 4"
    with pytest.raises(IndexError, match="bool"):
        t[True]
    with pytest.raises(IndexError, match="too many indices"):
        xp.asarray(1.0)[0]


def test_element_then_write_keeps_the_old_value(tiered):
    t = xp.asarray(np.arange(5.0))
    e = t[2]
    t[2] = -1.0
    assert float(e) == 2.0 and float(t[2]) == -1.0


@pytest.mark.parametrize("i", [0, 1, 31, 63])
def test_scalar_read_is_a_host_sync(tiered, i):
    t_np = np.linspace(0.0, 1.0, 64)
    t, x = xp.asarray(t_np), xp.asarray(0.5)
    syncs, reads, execs, interp = _counts()
    folds = metrics.host_folds
    assert bool(t[i] <= x) == bool(t_np[i] <= 0.5)
    assert float((x - t[i]) / (t[i] + 1.0) * 3.0) == (0.5 - t_np[i]) / (t_np[i] + 1.0) * 3.0
    # (`t[i] <= x`, `x - t[i]`, `t[i] + 1.0` and their quotient are computed when recorded:
    # _host_sync.fold_leaves; the float product is read by one host sync)
    assert metrics.host_folds == folds + 4
    assert metrics.host_syncs == syncs + 1 and metrics.host_element_reads == reads + 3
    assert (metrics.executions, metrics.interpreted) == (execs, interp)  # no program, no interpreter tier


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64])
def test_integer_semantics_on_the_host_path(tiered, dtype):
    a_np = np.array([127, -7, 5, 100, 3], dtype=dtype) if np.dtype(dtype).kind == "i" else \
        np.array([65535, 7, 5, 100, 3], dtype=dtype)
    b_np = np.array([1, 2, -2, 0, 3], dtype=dtype) if np.dtype(dtype).kind == "i" else \
        np.array([1, 2, 2, 0, 3], dtype=dtype)
    a, b = xp.asarray(a_np), xp.asarray(b_np)
    syncs = metrics.host_syncs
    with np.errstate(all="ignore"):
        for i in range(5):
            if b_np[i] != 0:
                assert int(a[i] // b[i]) == int(a_np[i] // b_np[i])
                assert int(a[i] % b[i]) == int(a_np[i] % b_np[i])
            assert int(a[i] + a[i]) == int(a_np[i] + a_np[i])  # wraps as numpy
            assert int(a[i] * b[i]) == int(a_np[i] * b_np[i])
    assert metrics.host_syncs > syncs


def test_small_arrays_and_reductions(tiered):
    a_np = np.array([[1.5, -2.0, 3.0], [0.0, -0.0, 7.25]])
    a = xp.asarray(a_np)
    syncs = metrics.host_syncs
    assert float(xp.max(a)) == a_np.max() and float(xp.min(a * -1.0)) == (a_np * -1.0).min()
    assert bool(xp.any(a > 7.0)) and not bool(xp.all(a > -1.0))
    assert int(xp.sum(xp.astype(a > 0, xp.int64))) == int((a_np > 0).sum())
    np.testing.assert_array_equal(np.asarray(xp.where(a > 0, a, -a)), np.where(a_np > 0, a_np, -a_np))
    assert metrics.host_syncs >= syncs + 4


def test_probe_leaves_a_large_pending_array_pending(tiered):
    """array-api-compat's is_lazy_array probe reads one element: y is not computed (its later
    program still fuses it), only its first element is, when it is indexed (no sync at all)."""
    base_np = np.arange(100.0) - 3.0
    base = xp.asarray(base_np)
    y = base * 2.0 + 1.0
    syncs, reads = metrics.host_syncs, metrics.host_element_reads
    assert bool(xp.any(xp.reshape(y, (-1,))[0])) == bool(np.any(np.reshape(base_np * 2.0 + 1.0, (-1,))[0]))
    assert metrics.host_syncs == syncs and metrics.host_element_reads == reads + 1
    assert y._node.op is not None  # still pending
    np.testing.assert_array_equal(np.asarray(y), base_np * 2.0 + 1.0)


def test_element_pushed_through_shape_ops(tiered):
    m_np = np.arange(200.0).reshape(10, 20) - 50.0
    m = xp.asarray(m_np) * 1.5  # pending, larger than a small node
    want = m_np * 1.5
    syncs, reads = metrics.host_syncs, metrics.host_element_reads
    assert float(m[3, 7]) == want[3, 7]
    assert float(m.T[7, 3]) == want.T[7, 3]
    assert float(m[::-1, ::3][2, 4]) == want[::-1, ::3][2, 4]
    assert float(xp.reshape(m, (-1,))[-1]) == want.reshape(-1)[-1]
    assert float(xp.broadcast_to(m[:, :1], (10, 20))[4, 9]) == want[4, 0]
    # (the 1-D read `reshape(m, -1)[-1]` is computed when indexed: `_host_sync.element_now`)
    assert metrics.host_syncs == syncs + 4 and metrics.host_element_reads == reads + 1
    assert m._node.op is not None


def test_small_live_arrays_computed_on_the_way_are_realized(tiered):
    """A loop reading a small state each step: the state is realized with the read, so its graph
    does not grow."""
    w_np = np.array([1.0, 2.0, 3.0])
    w = xp.asarray(w_np)
    for _ in range(5):
        w = w * 0.5 + 1.0
        w_np = w_np * 0.5 + 1.0
        assert bool(xp.max(w) < 10.0)
        assert w._node.op is None  # realized on the host with the read
    np.testing.assert_array_equal(np.asarray(w), w_np)


def test_graphs_outside_the_path(tiered, monkeypatch):
    x_np = np.array([0.25, 0.5])
    x = xp.asarray(x_np)
    syncs = metrics.host_syncs
    assert float(xp.exp(x)[0]) == pytest.approx(np.exp(0.25), rel=1e-15)  # transcendental: not exact
    assert float(xp.sum(x * 3.0)) == pytest.approx(2.25)                   # a float sum: its order
    big = xp.asarray(np.arange(5000.0)) + 1.0                               # (over _host_sync.REDUCED)
    assert float(xp.max(big)) == 5000.0                                     # a large graph
    c_np = np.array([1.5 + 2j, -0.25 + 3.1j])
    c = xp.asarray(c_np)
    assert complex((c * c)[1]) == pytest.approx(complex((c_np * c_np)[1]))  # a complex product: XLA's rounding
    assert metrics.host_syncs == syncs
    monkeypatch.setattr(_config, "interpret_first", 0)  # compiled programs asked for
    assert bool(x[0] < x[1]) and metrics.host_syncs == syncs


def test_scalar_conversions_and_errors(tiered):
    v = xp.asarray(np.array([np.nan, np.inf, 2.5, 3.0]))
    with pytest.raises(ValueError):
        int(v[0] * 1.0)
    with pytest.raises(OverflowError):
        int(v[1] + 0.0)
    assert int(v[2] * 2.0) == 5 and float(v[3] - 1.0) == 2.0 and complex(v[2] + 0.0) == 2.5
    with pytest.raises(TypeError, match="one element"):
        float(v * 2.0)
    assert isinstance(bool(v[2] > 0), bool) and isinstance(float(v[2] + 1.0), float)
    big = xp.asarray(np.arange(5000.0))
    assert float(xp.sum(big * 2.0)) == float(np.sum(np.arange(5000.0) * 2.0))  # from a device buffer
