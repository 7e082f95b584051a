"""A graph interpreted again runs as a `HostProgram` (INTERP, issue 11 target 1's second calls).

The program is built from the graph's structure at its first run and kept with its sighting:
one function per node (`_ops.core.host_step`: the evaluation's prepared form, e.g. the ufunc
itself, or the evaluation bound to a structural stub), its constants computed once. Its values
must be exactly those of the node-by-node interpreter (`_interpret.interpret` with no program)
and numpy's, every run; it must keep no node of the graph it was built from (they hold the
user's values); a prepared form must give its evaluation's values bit for bit; an evaluation
replaced on its OpDef must be the one that runs. The tier policy leaves the host LAPACK calls'
time out of what interpreting a graph has cost (the compiled program calls the same routines).
"""
import gc
import itertools
import time
import types
import weakref

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine, _interpret, _tier_policy
from lazyarray._graph import Plan
from lazyarray._interpret import HostProgram, Stub
from lazyarray._ops import elementwise as ew
from lazyarray._ops import linalg as linalg_ops
from lazyarray._ops.core import host_step
from lazyarray import _dtypes as dt


def _graph(x, w, k):
    """Elementwise ops of several kinds (prepared ufuncs, compare, select, converts), a matmul,
    reductions, a broadcast, a constant and an iota: what a scikit-learn graph is made of."""
    z = (x - xp.mean(x, axis=0)) / (xp.std(x, axis=0) + 1e-3)
    s = z @ w
    p = xp.where(s > 0.25, xp.exp(-s), xp.log1p(s * s))
    ramp = xp.astype(xp.arange(x.shape[0]), x.dtype)
    ints = xp.astype(z * 7.0, xp.int32) % 5 + k
    return xp.sum(p, axis=1) + ramp, xp.maximum(ints, 2), xp.astype(ints, xp.float32) * 0.5


def _want(xn, wn, kn):
    z = (xn - xn.mean(axis=0)) / (xn.std(axis=0) + 1e-3)
    s = z @ wn
    with np.errstate(all="ignore"):
        p = np.where(s > 0.25, np.exp(-s), np.log1p(s * s))
    ints = (z * 7.0).astype(np.int32) % np.int32(5) + np.int32(kn)
    return p.sum(axis=1) + np.arange(xn.shape[0], dtype=xn.dtype), np.maximum(ints, 2), ints.astype(np.float32) * 0.5


def test_a_repeated_graph_gives_numpys_values_every_run_from_one_program(interpreted, rng):
    programs = []
    for run in range(5):
        xn, wn = rng.standard_normal((120, 6)), rng.standard_normal((6, 3))
        outs = _graph(xp.asarray(xn), xp.asarray(wn), xp.asarray(np.int32(run)))
        xp.evaluate(*outs)
        for got, want in zip(outs, _want(xn, wn, run)):
            got = np.asarray(got)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        programs += [s.steps for s in _engine.state.sightings.values()]
        # the first runs go node by node (most graphs are seen once or twice); the next builds the steps
        assert (programs[-1].steps is None) == (run < _interpret.NODE_BY_NODE_RUNS)
    assert interpreted.interpreted == 5 and interpreted.compiles == 0
    assert len({id(p) for p in programs}) == 1 and type(programs[0]) is HostProgram


def test_the_program_gives_the_node_by_node_interpreters_bits(rng):
    """(Also the prepared forms in context: the same graph through `interpret` without a
    program calls every evaluation as it is.)"""
    xn, wn = rng.standard_normal((90, 6)), rng.standard_normal((6, 3))
    xn[3, 2], xn[7, 1], wn[0, 0] = np.nan, np.inf, -0.0
    outs = [o._node for o in _graph(xp.asarray(xn), xp.asarray(wn), xp.asarray(np.int32(3)))]
    plan = Plan(outs)
    plain = _interpret.interpret(plan.order, plan.leaves, outs, plan)
    for frees in (True, False):
        program = HostProgram(plan, outs, frees)
        for _ in range(2):  # (a second run reads the kept constants)
            got = program.run(plan, outs)
            for g, p in zip(got, plain):
                assert g.dtype == p.dtype and g.shape == p.shape
                assert g.tobytes() == p.tobytes()
                assert g.flags.owndata and g.flags.writeable and g.flags.c_contiguous


def test_the_program_keeps_no_node_of_its_graph(interpreted, rng):
    x = xp.asarray(rng.standard_normal((100, 4)))
    y = xp.sum(xp.exp(x) * 2.0 + 1.0, axis=0)
    node = weakref.ref(x._node)
    float(y[0] + y[1])  # (the sync: y's graph interpreted, its program kept)
    (seen,) = _engine.state.sightings.values()
    assert type(seen.steps) is HostProgram
    del x, y
    gc.collect()
    assert node() is None  # the input's node (and its value) died with the user's arrays


def _values(d, n=40, seed=0):
    """Values of dtype `d` with the awkward ones: zeros of both signs, NaN, infinities, extremes."""
    r = np.random.default_rng(seed)
    if d.kind == "b":
        return r.random(n) < 0.5
    if d.kind in "iu":
        info = np.iinfo(d.np)
        v = r.integers(info.min, info.max, n, dtype=d.np, endpoint=True)
        v[:4] = [0, 1, info.max, info.min]
        return v
    v = r.standard_normal(n) * 1e3
    v[:8] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e300, -1e300, 0.5]
    with np.errstate(all="ignore"):  # (1e300 overflows float32: inf, as wanted)
        if d.kind == "c":
            v = v + 1j * np.roll(v, 3)
        return v.astype(d.np)


def _stub(op, attrs, shape, out, *operands):
    return Stub(op, tuple(Stub(None, (), (), shape, d) for d in operands), attrs, shape, out)


_DTYPES = (dt.bool, dt.int8, dt.int32, dt.int64, dt.uint8, dt.uint32, dt.float32, dt.float64,
           dt.complex64, dt.complex128)


@pytest.mark.parametrize("source,target", list(itertools.product(_DTYPES, _DTYPES)))
def test_convert_prepared_is_its_evaluation(source, target):
    node = _stub(ew.CONVERT, ew.CONVERT.Attrs(target), (40,), target, source)
    x = _values(source)
    with np.errstate(all="ignore"):
        want = ew.CONVERT.evaluate(node, x)
        got = host_step(node)(x)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


_BINARY = [(ew.ADD, (dt.int32, dt.float64, dt.complex64)), (ew.SUBTRACT, (dt.uint8, dt.float32)),
           (ew.MULTIPLY, (dt.int64, dt.complex128)), (ew.DIVIDE, (dt.int32, dt.uint8, dt.float32, dt.float64, dt.complex128)),
           (ew.MAXIMUM, (dt.bool, dt.int8, dt.uint32, dt.float32, dt.float64)),
           (ew.MINIMUM, (dt.int64, dt.float64)), (ew.AND, (dt.bool, dt.uint8)), (ew.ATAN2, (dt.float64,))]


@pytest.mark.parametrize("op,d", [(op, d) for op, ds in _BINARY for d in ds], ids=str)
def test_binary_prepared_forms_are_their_evaluations(op, d):
    node = _stub(op, (), (40,), d, d, d)
    a, b = _values(d, seed=1), _values(d, seed=2)
    b[::5] = 0  # (division by zero: integer rules)
    with np.errstate(all="ignore"):
        want = op.evaluate(node, a, b)
        got = host_step(node)(a, b)
    assert np.asarray(got).dtype == np.asarray(want).dtype and np.asarray(got).tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("direction", ["EQ", "NE", "LT", "LE", "GT", "GE"])
def test_compare_and_select_prepared_are_their_evaluations(direction):
    d = dt.float64
    node = _stub(ew.COMPARE, ew.COMPARE.Attrs(direction), (40,), dt.bool, d, d)
    a, b = _values(d, seed=3), _values(d, seed=4)
    b[::3] = a[::3]
    with np.errstate(all="ignore"):
        mask = ew.COMPARE.evaluate(node, a, b)
        assert host_step(node)(a, b).tobytes() == mask.tobytes()
    sel = Stub(ew.SELECT, (Stub(None, (), (), (40,), dt.bool), Stub(None, (), (), (40,), d),
                           Stub(None, (), (), (40,), d)), (), (40,), d)
    assert host_step(sel)(mask, a, b).tobytes() == ew.SELECT.evaluate(sel, mask, a, b).tobytes()


def test_a_replaced_evaluation_is_the_one_that_runs(monkeypatch):
    """The prepared form is the evaluation's own: an OpDef given another evaluation (as a test or
    a fix does) never keeps running the old fast form."""
    node = _stub(ew.EXP, (), (3,), dt.float64, dt.float64)
    assert host_step(node) is np.exp
    monkeypatch.setattr(ew.EXP, "evaluate", lambda node, x: np.full(x.shape, 7.0))
    np.testing.assert_array_equal(host_step(node)(np.zeros(3)), [7.0, 7.0, 7.0])


# ---------------------------------------------------------------- the tier policy and LAPACK


def _burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@pytest.fixture
def slow_ops(engine, monkeypatch):
    """Cholesky's host kernel and exp each burn 8 ms of CPU per call on top of their work; a
    compile estimate of 30 ms; the interpreter serves from the second run on."""
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    monkeypatch.setattr(xp.config, "node_budget", 10**9)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 0.03)
    monkeypatch.setattr(_tier_policy, "learnt_seconds", lambda skey, device: None)
    for op in (linalg_ops.LINALG_KERNEL, ew.EXP):
        real = op.evaluate
        monkeypatch.setattr(op, "evaluate", lambda node, *xs, real=real: (_burn(0.008), real(node, *xs))[1])
    yield
    _engine.wait_for_compiles()


def test_a_first_run_that_is_timed_clocks_its_lapack_calls(slow_ops, monkeypatch, rng):
    """(LAZYARRAY_INTERPRET_FIRST=1 times the first run: the program is built for it.)"""
    monkeypatch.setattr(xp.config, "interpret_first", 1)
    a = _spd(rng)
    np.testing.assert_allclose(np.asarray(xp.linalg.cholesky(xp.asarray(a)) + 0.0), np.linalg.cholesky(a),
                               rtol=1e-12, atol=1e-12)
    seen = _seen()
    assert seen.runs == 1 and seen.timed == 1 and seen.steps.steps is not None
    assert seen.steps.lapack_seconds >= 0.008 and seen.seconds < 0.008 and seen.future is None


def _spd(rng, n=12):
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def _seen():
    (seen,) = _engine.state.sightings.values()
    return seen


def test_lapack_time_is_not_counted_as_saved_by_compiling(slow_ops, rng):
    """A graph whose interpreting is mostly a LAPACK call never reaches its compile estimate;
    the same CPU time spent in an ordinary op (exp) does (the control)."""
    for run in range(8):
        a = _spd(rng)
        got = np.asarray(xp.linalg.cholesky(xp.asarray(a)) + 0.0)
        np.testing.assert_allclose(got, np.linalg.cholesky(a), rtol=1e-12, atol=1e-12)
    seen = _seen()
    assert seen.runs >= 7 and seen.future is None  # 7 x 8 ms of LAPACK: no compile
    assert seen.seconds < 0.02  # (what it counted: the rest of the graph, not the 56 ms)
    _engine.state.reset()
    for run in range(8):
        a = rng.standard_normal((12, 12))
        np.testing.assert_allclose(np.asarray(xp.exp(xp.asarray(a)) + 0.0), np.exp(a), rtol=1e-15)
    seen = _seen()
    assert seen.future is not None  # 8 ms a run of numpy work: compiled once it passed 30 ms


def test_integer_leaves_share_read_only_values_and_outputs_stay_the_callers(interpreted, rng):
    """A Python int leaf's value is kept (read-only, per value, dtype and shape); an output that
    is such a value (or computed from it) is still the caller's own writeable memory."""
    xn = rng.standard_normal(100)
    x = xp.asarray(xn)
    for run in range(4):
        i = 3 + run % 2
        outs = (x[i:i + 80] * 2.0, xp.asarray(i) + 0 * xp.sum(x[:70]))
        xp.evaluate(*outs)
        got = [np.asarray(o) for o in outs]
        np.testing.assert_array_equal(got[0], xn[i:i + 80] * 2.0)
        assert int(got[1]) == i
    kept = [v for k, v in _interpret._INT_VALUES.items() if k[0] in (3, 4)]
    assert kept and all(not v.flags.writeable for v in kept)
    leaf = types.SimpleNamespace(host=5, dtype=dt.int64, shape=())  # (what a leaf node holds)
    v = _interpret.int_value(leaf)
    assert v.dtype == np.int64 and v.shape == () and int(v) == 5 and _interpret.int_value(leaf) is v
    with pytest.raises(ValueError):
        v[()] = 6  # read-only: a buggy in-place evaluation fails instead of changing every 5
