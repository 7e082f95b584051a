"""Scalar reads (issue 11, target 3), session 11: an element of a large pending array computed
when it is indexed (`_host_sync.element_now`: array-api-compat's is_lazy_array probe), `any`/`all`
of a 0-D host value taken at once, and exact scalar ops by numpy's scalar math
(`_host_sync.scalar_evaluate`). Values are compared with numpy (bit for bit), and each test
checks which path ran through the metrics or the graph, never by timing."""
import gc
import threading

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _array_methods, _config, _graph, _host_sync
from lazyarray import _ops as ops
from lazyarray._interpret import numpy_errors_loud, numpy_errors_quiet
from lazyarray._metrics import metrics


@pytest.fixture(autouse=True)
def recorded(monkeypatch):
    """`a OP b` of two 0-D host values recorded as a node, as the namespace functions record it:
    these tests read such nodes. (The operators compute it when recorded, `_host_sync.fold_leaves`:
    tests/test_probe_fold.py.)"""
    monkeypatch.setattr(_array_methods, "_fold", lambda *args: None)


@pytest.fixture
def tiered(monkeypatch):
    """The default tiers (the conformance conftest may switch the interpreter tier off)."""
    monkeypatch.setattr(_config, "interpret_first", 2)


@pytest.fixture(params=["verify", "plain"])
def verifying(request, monkeypatch):
    monkeypatch.setattr(_config, "verify", request.param == "verify")


def _bits(v):
    return np.asarray(v).tobytes()


# ---------------------------------------------------------------- scalar math == the ufunc

_SPECIAL_FLOATS = [0.0, -0.0, 1.0, -2.5, 3.0e38, -3.0e38, 1e-310, -1e-40, np.inf, -np.inf, np.nan, 7.0]


def _samples(npdt):
    if np.dtype(npdt).kind == "f":
        with np.errstate(all="ignore"):
            return [npdt(v) for v in _SPECIAL_FLOATS]
    info = np.iinfo(npdt)
    return [npdt(v) for v in (0, 1, 3, info.max, info.min, info.max - 1, info.min + 1, 100 % (int(info.max) + 1))]


@pytest.mark.parametrize("npdt", [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                                  np.uint8, np.uint16, np.uint32, np.uint64])
@pytest.mark.parametrize("what", ["add", "subtract", "multiply", "LT", "LE", "GT", "GE", "EQ", "NE"])
def test_scalar_math_is_the_ufunc_bit_for_bit(npdt, what):
    """Every pair of special values (NaN, infinities, signed zeros, subnormals, the integer
    limits: overflow wraps): numpy's scalar math gives the evaluation's value, of its type."""
    x, y = xp.asarray(np.zeros((), npdt)), xp.asarray(np.zeros((), npdt))
    node = getattr(xp, {"LT": "less", "LE": "less_equal", "GT": "greater", "GE": "greater_equal",
                        "EQ": "equal", "NE": "not_equal"}.get(what, what))(x, y)._node
    op = node.op
    assert op in (ops.ADD, ops.SUBTRACT, ops.MULTIPLY, ops.COMPARE)
    samples = _samples(npdt)
    quiet = numpy_errors_quiet()
    try:
        for a in samples:
            for b in samples:
                fast = _host_sync.scalar_evaluate(op, node, [a, b])
                want = op.evaluate(node, np.asarray(a), np.asarray(b))
                assert type(fast) is np.asarray(want).dtype.type, (a, b)
                assert _bits(fast) == _bits(want), (what, a, b, fast, want)
    finally:
        numpy_errors_loud(quiet)


def test_scalar_math_leaves_other_operands_to_the_evaluation():
    """float16, mixed types and 0-D arrays take `op.evaluate` itself."""
    x = xp.asarray(np.float16(1.5))
    node = (x + x)._node
    assert type(_host_sync.scalar_evaluate(node.op, node, [np.float16(1.5), np.float16(0.25)])) is np.float16
    v = _host_sync.scalar_evaluate(node.op, node, [np.asarray(np.float16(1.5)), np.float16(0.25)])
    assert float(v) == 1.75


# ---------------------------------------------------------------- an element when indexed

def _graphs(base_np):
    """(name, lazy function, numpy function): elementwise graphs of exact ops over leaves."""
    return [
        ("affine", lambda b: b * 2.0 + 1.0, lambda b: b * 2.0 + 1.0),
        ("cmp", lambda b: b > 3.0, lambda b: b > 3.0),
        ("where", lambda b: xp.where(b > 0.0, b - 1.0, -b), lambda b: np.where(b > 0.0, b - 1.0, -b)),
        ("two leaves", lambda b: b * b - b, lambda b: b * b - b),
    ]


@pytest.mark.parametrize("npdt", [np.float64, np.float32])
def test_element_of_a_large_pending_array_when_indexed(tiered, verifying, npdt):
    base_np = (np.arange(100.0) * 0.37 - 11.0).astype(npdt)
    base_np[5], base_np[6] = np.nan, -0.0
    base = xp.asarray(base_np)
    for name, lazy, eager in _graphs(base_np):
        y = lazy(base)
        want = eager(base_np)
        for i in (0, 5, 6, 17, 99, -1, -100):
            reads = metrics.host_element_reads
            e = y[i]
            assert metrics.host_element_reads == reads + 1, name
            assert e._node.op is None and e.shape == () and e.dtype == y.dtype  # a host value
            assert _bits(np.asarray(e)) == _bits(want[i]), (name, i)
        assert y._node.op is not None, name  # y stays pending: its program still fuses it
        assert _bits(np.asarray(y)) == _bits(want)


@pytest.mark.parametrize("npdt", [np.int8, np.int32, np.uint8, np.int64])
def test_integer_elements_wrap_as_the_program(tiered, npdt):
    info = np.iinfo(npdt)
    base_np = (np.arange(80) * 37 % (int(info.max) // 2 + 1)).astype(npdt)
    base_np[3] = info.max
    base = xp.asarray(base_np)
    y = base * base + base - base * base * base
    with np.errstate(all="ignore"):
        want = base_np * base_np + base_np - base_np * base_np * base_np
    for i in (0, 3, 79):
        reads = metrics.host_element_reads
        assert int(y[i]) == int(want[i])
        assert metrics.host_element_reads == reads + 1
    np.testing.assert_array_equal(np.asarray(y), want)


def test_element_through_reshape_transpose_and_broadcast(tiered, verifying):
    m_np = np.arange(120.0).reshape(8, 15) * 0.5 - 7.0
    row_np = np.linspace(-1.0, 1.0, 15)
    m, row = xp.asarray(m_np), xp.asarray(row_np)
    flat = xp.reshape(xp.permute_dims(m * 3.0 - row, (1, 0)), (-1,))
    want = np.reshape(np.transpose(m_np * 3.0 - row_np), (-1,))
    for k in (0, 1, 7, 8, 119, 60):
        reads = metrics.host_element_reads
        assert float(flat[k]) == want[k]
        assert metrics.host_element_reads == reads + 1


def test_graphs_this_path_leaves_to_the_read(tiered):
    """A small pending array (a read computes it whole and realizes it), an op that is not exact
    on the host (exp), a sum, a written array and a graph past ELEMENT_OPS record the usual nodes
    and read the same values."""
    base_np = np.linspace(-2.0, 2.0, 100)
    base = xp.asarray(base_np)
    deep, deep_np = base, base_np
    for _ in range(_host_sync.ELEMENT_OPS + 2):
        deep, deep_np = deep * 1.5 - 0.25, deep_np * 1.5 - 0.25
    written = base * 2.0
    written[7] = 5.0
    written_np = base_np * 2.0
    written_np[7] = 5.0
    cases = [
        (xp.asarray(base_np[:10]) * 2.0, base_np[:10] * 2.0),
        (xp.exp(base), np.exp(base_np)),
        (xp.cumulative_sum(base), np.cumsum(base_np)),
        (written, written_np),
        (deep, deep_np),
    ]
    for y, want in cases:
        reads = metrics.host_element_reads
        e = y[7]
        assert e._node.op is not None and metrics.host_element_reads == reads  # recorded
        assert float(e) == pytest.approx(want[7], rel=1e-15)
        assert float(y[-1]) == pytest.approx(want[-1], rel=1e-15)


def test_a_refused_graph_is_not_tried_again(tiered):
    base = xp.asarray(np.ones(100))
    deep = base
    for _ in range(_host_sync.ELEMENT_OPS + 1):
        deep = deep + 1.0
    deep[0]  # tried, refused (over budget)
    assert _host_sync._refused[0]() is deep._node
    ops_before = metrics.host_sync_ops
    e = deep[1]
    assert e._node.op is not None and metrics.host_sync_ops == ops_before
    assert float(e) == _host_sync.ELEMENT_OPS + 2


def test_a_sync_running_in_another_thread_leaves_the_index_recorded(tiered):
    base_np = np.arange(100.0)
    y = xp.asarray(base_np) * 3.0
    held, release = threading.Event(), threading.Event()

    def hold():
        with _graph.lock:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(10)
        e = y[4]  # the engine lock is held elsewhere: the usual nodes, never a wait
        assert e._node.op is not None
    finally:
        release.set()
        t.join()
    assert float(e) == 12.0 and float(y[5]) == 15.0


def test_probe_value_and_fusion(tiered):
    """array-api-compat's is_lazy_array probe: no sync at all, y pending, then one run for y."""
    for value in (0.0, -0.0, np.nan, np.inf, 2.5):
        base_np = np.full(90, value)
        y = xp.asarray(base_np) * 1.0 + 0.0
        syncs, runs = metrics.host_syncs, metrics.interpreted + metrics.executions
        assert bool(xp.any(xp.reshape(y, (-1,))[0])) == bool(np.any((base_np * 1.0 + 0.0)[0]))
        assert bool(xp.all(xp.reshape(y, (-1,))[0])) == bool(np.all((base_np * 1.0 + 0.0)[0]))
        assert (metrics.host_syncs, metrics.interpreted + metrics.executions) == (syncs, runs)
        assert y._node.op is not None
        assert _bits(np.asarray(y)) == _bits(base_np * 1.0 + 0.0)


# ---------------------------------------------------------------- any/all of a 0-D host value

@pytest.mark.parametrize("value", [0.0, -0.0, np.nan, np.inf, -2.5, 1e-310, 0, 7, -1, np.uint8(0),
                                   np.uint64(2 ** 63), 0j, 1j, complex(np.nan, 0.0), complex(0.0, -0.0),
                                   True, False])
def test_any_all_of_a_host_scalar(value):
    a_np = np.asarray(value)
    t = xp.asarray(np.stack([a_np, a_np]))
    e = t[1]  # a 0-D host value (the element of a computed array)
    assert e._node.op is None
    for fn, ref in ((xp.any, np.any), (xp.all, np.all)):
        r = fn(e)
        assert r.dtype == xp.bool and r.shape == ()
        assert bool(r) == bool(ref(a_np))
        assert np.asarray(r).item() == bool(ref(a_np))


# ---------------------------------------------------------------- the element == the whole read

def _unary(rng, npdt):
    kind = np.dtype(npdt).kind
    choices = [lambda v: -v if kind != "u" else v, lambda v: xp.abs(v) if kind != "u" else v]
    if kind == "f":
        choices += [xp.floor, xp.ceil, xp.round, lambda v: xp.astype(v, xp.int32),
                    lambda v: xp.astype(v > 0.5, xp.float64)]
    else:
        choices += [lambda v: v & npdt(6), lambda v: v ^ npdt(5), lambda v: v | npdt(3),
                    lambda v: xp.astype(v, xp.float64), lambda v: v << npdt(1), lambda v: v >> npdt(2)]
    return choices[rng.integers(len(choices))]


def _binary(rng, npdt):
    kind = np.dtype(npdt).kind
    choices = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, xp.maximum, xp.minimum,
               lambda a, b: xp.where(a > b, a, b)]
    if kind == "f":
        choices += [lambda a, b: a / b, lambda a, b: a * 0.5 - b]
    else:
        choices += [lambda a, b: a // xp.where(b == 0, xp.ones_like(b), b),
                    lambda a, b: a % xp.where(b == 0, xp.ones_like(b), b)]
    return choices[rng.integers(len(choices))]


@pytest.mark.parametrize("seed", range(40))
def test_the_element_when_indexed_is_the_whole_reads(tiered, seed):
    """Random graphs of the host path's exact ops on large leaves: x[i] (computed when indexed,
    or recorded where the path refuses) has the bits of the whole array's read (the interpreter
    tier: the same evaluations, op by op, on arrays)."""
    rng = np.random.default_rng(seed)
    npdt = [np.float64, np.float32, np.int32, np.int64, np.uint8, np.int16][seed % 6]
    n = 70 + int(rng.integers(60))
    if np.dtype(npdt).kind == "f":
        data = [(rng.standard_normal(n) * 4).astype(npdt) for _ in range(2)]
        data[0][:3] = [np.nan, -0.0, np.inf]
    else:
        data = [rng.integers(0, 100, n).astype(npdt) for _ in range(2)]
    a, b = xp.asarray(data[0]), xp.asarray(data[1])
    y = a
    for step in range(int(rng.integers(1, 5))):
        y = _binary(rng, npdt)(y, b) if rng.integers(2) else _unary(rng, npdt)(y)
        if y.dtype != a.dtype:
            y = xp.astype(y, a.dtype)
    with np.errstate(all="ignore"):
        idx = [int(i) for i in rng.integers(0, n, 4)] + [0, n - 1]
        elements = [y[i] for i in idx]
        whole = np.asarray(y)
    for i, e in zip(idx, elements):
        assert e.dtype == y.dtype
        assert _bits(np.asarray(e)) == _bits(whole[i]), (seed, i, xp.graph_text(y))


# ---------------------------------------------------------------- components of dead temporaries

def test_pruning_keeps_every_live_pending_array(tiered):
    """`_Pending._prune_components` (at each new component past the bound) drops the components
    of the reads' dead temporaries and keeps every one with a live pending array: a cut still
    sees them all."""
    pending = _graph.pending
    gc.collect()  # (earlier tests' arrays held in cycles keep their components until collected)
    before = len(pending._components)
    t = xp.asarray(np.linspace(0.0, 1.0, 64))
    x = xp.asarray(0.5)
    keep_np = np.arange(8.0)
    keep = [xp.asarray(keep_np) + float(j) for j in range(300)]  # one component each
    for r in range(3 * pending._compact_at):  # several prunes: a new component per temporary
        assert bool(t[r % 64] <= x) == (np.linspace(0.0, 1.0, 64)[r % 64] <= 0.5)
    # the dead temporaries' were dropped (all but at most one bound's worth of the 3 made)
    assert len(pending._components) < before + len(keep) + pending._compact_at
    live = {id(h) for h in pending.live()}
    assert all(id(k) in live for k in keep)
    for j in (0, 150, 299):
        np.testing.assert_array_equal(np.asarray(keep[j]), keep_np + float(j))


# ---------------------------------------------------------------- the leaf op's scalar read

_SCALAR_DTYPES = [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
                  np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("npdt", _SCALAR_DTYPES)
def test_scalar_math_ops_pass_the_exact_check_for_every_scalar_type(npdt):
    """`_host_sync._scalar_leaf_op` skips the EXACT check for add, subtract, multiply and compare
    on the dtypes of `_SCALAR_TYPES`: every such node passes it."""
    assert {np.dtype(t).type for t in _SCALAR_DTYPES} == set(_host_sync._SCALAR_TYPES)
    x = xp.asarray(np.zeros((), npdt))
    nodes = [(x + x)._node, (x - x)._node, (x * x)._node]
    nodes += [fn(x, x)._node for fn in (xp.less, xp.less_equal, xp.greater, xp.greater_equal,
                                         xp.equal, xp.not_equal)]
    for node in nodes:
        assert node.op in _host_sync._SCALAR_MATH or node.op is ops.COMPARE
        assert _host_sync._takes(node), node


@pytest.mark.parametrize("npdt", _SCALAR_DTYPES)
def test_leaf_op_reads_of_every_scalar_type(tiered, npdt):
    """`bool(t[i] <= x)`, `t[i] + x`, ... with x a 0-D array and a Python scalar: numpy's values
    (integers wrap), one host sync each, no program."""
    info = np.finfo(npdt) if np.dtype(npdt).kind == "f" else np.iinfo(npdt)
    t_np = np.array([0, 1, 3, info.max, info.min, 7], dtype=npdt)
    if np.dtype(npdt).kind == "f":
        t_np = np.append(t_np, np.array([np.nan, -0.0, np.inf], dtype=npdt))
    t = xp.asarray(t_np)
    x_np = npdt(3)
    x = xp.asarray(x_np)
    syncs, runs = metrics.host_syncs, metrics.interpreted + metrics.executions
    reads = 0
    with np.errstate(all="ignore"):
        for i in range(len(t_np)):
            for fn, ref in ((lambda a, b: a <= b, np.less_equal), (lambda a, b: a > b, np.greater),
                            (lambda a, b: a == b, np.equal), (lambda a, b: a != b, np.not_equal)):
                assert bool(fn(t[i], x)) == bool(ref(t_np[i], x_np))
                reads += 1
            for fn, ref in ((lambda a, b: a + b, np.add), (lambda a, b: a - b, np.subtract),
                            (lambda a, b: a * b, np.multiply)):
                got = fn(t[i], x)
                assert _bits(got._scalar_value("float")) == _bits(ref(t_np[i], x_np)), (i, ref)
                reads += 1
            if np.dtype(npdt).kind == "f":  # (a Python scalar operand: its leaf in the dtype)
                assert bool(t[i] < 2.5) == bool(t_np[i] < npdt(2.5))
                reads += 1
    assert metrics.host_syncs == syncs + reads
    assert metrics.interpreted + metrics.executions == runs


def test_an_array_made_at_a_prune_is_seen_by_cuts(monkeypatch):
    """The component made when the list reaches its bound was pruned before its array was
    registered (no handle yet), so `pending.live()` (a cut's list) missed that array: 3 of 3000
    at ced0ef8. Pruning now runs before the new component joins the list."""
    monkeypatch.setattr(xp.config, "node_budget", 10**9)  # (no cut while they are made)
    a = xp.asarray(np.ones(8))
    keep = [a + float(j) for j in range(3000)]
    live = {id(h) for h in _graph.pending.live()}
    assert [j for j, k in enumerate(keep) if id(k) not in live] == []
    xp.evaluate(*keep[:3])
    np.testing.assert_array_equal(np.asarray(keep[2999]), np.full(8, 3000.0))
