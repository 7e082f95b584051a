"""A call that raises leaves no trace: every existing array keeps its value and its pending graph,
the pending set and the compile cache are as they were, and the next read gives numpy's value.

Each test snapshots the state (`_State`), makes a call fail (bad arguments at trace time; a
compile XLA rejects, an interpreter error, an error while running, in the middle of a chunked
loop, at sync time), checks the snapshot, then reads the arrays and compares with numpy.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _engine, _interpret, _runtime, _segment, _tier_policy
from lazyarray._engine_state import state
from lazyarray._graph import pending
from lazyarray._pool import pool


class _State:
    """What a failed call must not change: each array's node and pending graph text, the live
    pending handles, the compile cache's keys."""

    def __init__(self, *arrays):
        self.arrays = arrays
        self.nodes = [a._node for a in arrays]
        self.texts = [xp.graph_text(a) for a in arrays]
        self.live = {id(h) for h in pending.live()}
        self.cache = list(state.programs)

    def check(self):
        assert [a._node for a in self.arrays] == self.nodes
        assert [xp.graph_text(a) for a in self.arrays] == self.texts
        assert {id(h) for h in pending.live()} >= self.live  # (a new failed call may add none)
        assert list(state.programs) == self.cache


@pytest.fixture
def arrays(rng):
    a_np = rng.standard_normal((3, 4))
    b_np = rng.standard_normal(4)
    a = xp.asarray(a_np) * 2.0 + 1.0      # pending
    b = xp.exp(xp.asarray(b_np))          # pending
    return a, b, a_np * 2.0 + 1.0, np.exp(b_np)


def _values_ok(a, b, a_want, b_want):
    np.testing.assert_allclose(np.asarray(a), a_want, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(b), b_want, rtol=1e-13)


BAD_CALLS = [  # (call on the arrays a and b, the error it raises, id)
    (lambda a, b: a + xp.ones((5,)), ValueError, "broadcast"),            # shapes do not broadcast
    (lambda a, b: xp.bitwise_and(a, b), TypeError, "dtype"),              # float operands
    (lambda a, b: a[7], IndexError, "index"),                             # index out of range
    (lambda a, b: a[0, 0, 0], IndexError, "too-many-indices"),
    (lambda a, b: xp.matmul(a, xp.ones((3,))), ValueError, "matmul"),     # contracted sizes differ
    (lambda a, b: xp.reshape(a, (5,)), ValueError, "reshape"),            # sizes differ
    (lambda a, b: xp.sum(a, axis=3), (ValueError, IndexError), "axis"),   # no such axis
    (lambda a, b: xp.astype(a, object), TypeError, "astype"),             # not a dtype
    # failed in-place updates
    (lambda a, b: a.__setitem__(7, 1.0), IndexError, "setitem-index"),
    (lambda a, b: a.__setitem__((slice(None), 0), xp.ones(4)), ValueError, "setitem-shape"),
    (lambda a, b: a.__setitem__(0, xp.asarray([1, 2, 3, 4], dtype=xp.complex128)), TypeError,
     "setitem-dtype"),
    (lambda a, b: a.__iadd__(xp.ones((2, 3, 4))), ValueError, "iadd-shape"),  # would change a's shape
    (lambda a, b: b.__iand__(b), TypeError, "iand-dtype"),
]


@pytest.mark.parametrize("call, error", [c[:2] for c in BAD_CALLS], ids=[c[2] for c in BAD_CALLS])
def test_bad_call_leaves_no_trace(arrays, call, error):
    """A call that raises, an in-place update included, leaves both arrays as they were."""
    a, b, a_want, b_want = arrays
    state = _State(a, b)
    with pytest.raises(error):
        call(a, b)
    state.check()
    _values_ok(a, b, a_want, b_want)


def test_failing_compile_leaves_no_trace(arrays, fresh, monkeypatch):
    a, b, a_want, b_want = arrays
    c = xp.sum(a * b)
    state = _State(a, b, c)
    pool_bytes = pool.bytes

    def reject(text, device):
        raise RuntimeError("injected compile failure")

    monkeypatch.setattr(_runtime, "compile_text", reject)
    with pytest.raises(RuntimeError, match="injected compile failure"):
        float(c)
    state.check()
    assert pool.bytes == pool_bytes
    monkeypatch.undo()
    monkeypatch.setattr(_config, "interpret_first", 0)
    assert float(c) == pytest.approx(float(np.sum(a_want * b_want)), rel=1e-13)
    _values_ok(a, b, a_want, b_want)


def test_failing_execute_leaves_no_trace_and_returns_pool_buffers(fresh, monkeypatch, rng):
    """An error while the program runs: nothing realized, the dead buffers taken for its outputs
    go back to the pool."""
    monkeypatch.setattr(_config, "pool_min_bytes", 1024)
    x_np = rng.standard_normal(1000)
    x = xp.asarray(x_np)
    from lazyarray import _engine
    for _ in range(3):  # the donated variant compiles in the background; dead 8 KB buffers pool
        y = x * 2.0
        xp.evaluate(y)
        del y
        _engine.wait_for_compiles()
    held = pool.bytes
    assert held >= 8000
    y = x * 2.0
    state = _State(x, y)
    real_execute = _runtime.execute

    def fail(executable, inputs):
        raise RuntimeError("injected execute failure")

    monkeypatch.setattr(_runtime, "execute", fail)
    with pytest.raises(RuntimeError, match="injected execute failure"):
        np.asarray(y)
    state.check()
    assert pool.bytes == held, "the buffer taken for the output was not given back"
    monkeypatch.setattr(_runtime, "execute", real_execute)
    np.testing.assert_allclose(np.asarray(y), x_np * 2.0, rtol=1e-15)


def test_interpreter_error_falls_back_to_compiling(arrays, monkeypatch):
    a, b, a_want, b_want = arrays
    monkeypatch.setattr(_config, "interpret_first", 2)
    xp.metrics.reset()

    def broken(order, leaves, outputs, plan=None):
        raise ZeroDivisionError("injected interpreter failure")

    monkeypatch.setattr(_interpret, "interpret", broken)
    c = xp.sum(a * b + 0.25)
    assert float(c) == pytest.approx(float(np.sum(a_want * b_want + 0.25)), rel=1e-13)
    assert any("injected interpreter failure" in e for e in xp.metrics.interpreter_errors)
    _values_ok(a, b, a_want, b_want)


def test_failing_background_compile_keeps_interpreting(engine, monkeypatch, rng):
    """A program XLA rejects on the compile thread: the interpreter, which ran the graph, goes on
    serving it (no error for the user, no retry storm); the failure is in the metrics."""
    monkeypatch.setattr(_config, "interpret_first", 1)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda n: 0.0)  # compile at the 1st sighting

    def reject(text, device):
        raise RuntimeError("injected background compile failure")

    monkeypatch.setattr(_runtime, "compile_text", reject)
    x_np = rng.standard_normal(17)
    for i in range(6):
        got = float(xp.sum(xp.cos(xp.asarray(x_np) * float(i))))
        assert got == pytest.approx(float(np.sum(np.cos(x_np * float(i)))), rel=1e-13)
        _engine.wait_for_compiles()
    assert xp.metrics.background_compiles == 1
    assert any("injected background compile failure" in e for e in xp.metrics.compile_errors)
    assert xp.metrics.interpreted == 6


def test_failure_in_the_middle_of_a_chunked_loop(fresh, monkeypatch, rng):
    """A loop's graph runs chunk by chunk (_segment); an error at the third chunk: the chunks
    already run realized intermediate nodes only (values unchanged), the arrays stay pending, and
    the next read finishes the loop with numpy's values. (Chunks run one program each here: a
    REPEAT program's failure is tests/test_hot_loops.py's.)"""
    monkeypatch.setattr(_segment, "_repeat", lambda nodes, ranges, need, rank: None)
    A_np = rng.standard_normal((6, 6)) / 6
    v_np = rng.standard_normal(6)
    A, v = xp.asarray(A_np), xp.asarray(v_np)
    for _ in range(30):
        v = A @ v
        v = v / xp.sqrt(xp.sum(v * v))
        v_np = A_np @ v_np
        v_np = v_np / np.sqrt(np.sum(v_np * v_np))
    state = _State(v)
    real_execute, calls = _runtime.execute, [0]

    def fail_third(executable, inputs):
        calls[0] += 1
        if calls[0] == 3:
            raise RuntimeError("injected failure at chunk 3")
        return real_execute(executable, inputs)

    monkeypatch.setattr(_runtime, "execute", fail_third)
    with pytest.raises(RuntimeError, match="chunk 3"):
        np.asarray(v)
    assert v._node is state.nodes[0] and v._node.op is not None
    assert fresh.chunks_run == 0  # the failed sync did not count as a segmented one
    np.testing.assert_allclose(np.asarray(v), v_np, rtol=1e-12)


def test_failed_sync_at_a_graph_cut(monkeypatch, fresh, rng, fail_next_execute):
    """An error inside an automatic cut surfaces at the traced call; the arrays stay pending
    and keep their values."""
    monkeypatch.setattr(_config, "node_budget", 50)
    fail_next_execute("injected failure at a cut")
    x_np = rng.standard_normal(5)
    x, want = xp.asarray(x_np), x_np.copy()
    with pytest.raises(RuntimeError, match="at a cut"):
        for _ in range(100):
            x = x * 0.5 + 1.0
            want = want * 0.5 + 1.0
    for _ in range(100):  # go on: the cuts work again
        x = x * 0.5 + 1.0
        want = want * 0.5 + 1.0
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-13)
