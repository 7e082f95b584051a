"""A kept `HostProgram` gives the garbage collector few objects to visit (FIRSTCALL, issue 11
target 1; the collector's full passes over a long process's kept programs).

A process keeps up to 4 x LAZYARRAY_CACHE_SIZE sightings, each with its program. Every object of
a program that the collector tracks is visited by each full collection, and each one kept counts
towards the next: a scikit-learn pass once kept ~320 tracked objects a program (closures with
their cells, a structural stub per node holding the whole graph of stubs above it). The
prepared steps are now partials (over tuples of ints, which a collection untracks, or over a
ufunc and a dtype), a step keeps no stub, and a stub bound to an evaluation has shallow
operands (shape and dtype only).
These tests pin that, and that the values stay numpy's and the evaluations' bit for bit.
"""
import functools
import gc
import types

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine
from lazyarray._interpret import NODE_BY_NODE_RUNS, HostProgram, Stub
from lazyarray._ops import shape as shape_ops
from lazyarray._ops.core import host_step


def _tracked_reachable(root):
    """The objects reachable from `root` that the collector tracks, except what modules own
    (functions and classes defined at import, op definitions, dtypes, memoized attributes): the
    program's own share of every full collection."""
    shared = (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)
    seen, todo, out = {id(root)}, [root], []
    while todo:
        o = todo.pop()
        for r in gc.get_referents(o):
            if id(r) in seen or not gc.is_tracked(r):
                continue
            seen.add(id(r))
            if isinstance(r, shared) or type(r).__module__.startswith(("lazyarray._ops", "lazyarray._dtypes")) \
                    and type(r).__name__ != "Stub":
                continue  # (module-level: one per op or dtype, not per program)
            if isinstance(r, np.ndarray):
                continue  # (a kept constant's value: one object, its memory not visited)
            out.append(r)
            todo.append(r)
    return out


def _program_of_one_graph(run):
    (seen,) = _engine.state.sightings.values()
    for _ in range(NODE_BY_NODE_RUNS):  # (the run after the node-by-node ones builds the steps)
        run()
    assert type(seen.steps) is HostProgram and seen.steps.steps is not None
    return seen.steps


def _prepared_graph(x, w):
    """Broadcasts, reductions, a dot, basic reads (dynamic slices) and an in-place write
    (dynamic update slice): the prepared steps scikit-learn's graphs are mostly made of."""
    z = (x - xp.mean(x, axis=0)) / (xp.max(x, axis=0) + 1.0)
    s = z @ w
    t = s[2:7, :]
    u = xp.zeros((10, 3), dtype=x.dtype)
    u[1:6, :] = t
    return xp.sum(u, axis=0) + xp.min(s, axis=0)


def _prepared_want(xn, wn):
    z = (xn - xn.mean(axis=0)) / (xn.max(axis=0) + 1.0)
    s = z @ wn
    u = np.zeros((10, 3))
    u[1:6, :] = s[2:7, :]
    return u.sum(axis=0) + s.min(axis=0)


def test_a_program_of_prepared_steps_keeps_no_stub_cell_or_closure(interpreted, rng):
    xn, wn = rng.standard_normal((40, 6)), rng.standard_normal((6, 3))

    def run():
        got = np.asarray(_prepared_graph(xp.asarray(xn), xp.asarray(wn)))
        np.testing.assert_allclose(got, _prepared_want(xn, wn), rtol=1e-12, atol=1e-12)

    run()
    program = _program_of_one_graph(run)
    gc.collect()  # (tuples of atoms are untracked by a collection that visits them)
    kept = _tracked_reachable(program)
    kinds = {type(o).__name__ for o in kept}
    assert not kinds & {"Stub", "cell", "function"}, sorted(kinds)
    # one step tuple and at most one step function (partial or its args) a node, and the lists
    assert len(kept) <= 3 * len(program.steps) + 6, sorted(type(o).__name__ for o in kept)


def test_an_evaluation_bound_to_a_stub_keeps_only_its_operands_shapes(interpreted, rng):
    a = rng.standard_normal((6, 6))
    an = a @ a.T + 6 * np.eye(6)

    def run():
        x = xp.asarray(an)
        got = np.asarray(xp.linalg.cholesky(x * 2.0 + 1.0))
        np.testing.assert_allclose(got, np.linalg.cholesky(an * 2.0 + 1.0), rtol=1e-12, atol=1e-12)

    run()
    program = _program_of_one_graph(run)
    stubs = [o for o in _tracked_reachable(program) if type(o) is Stub]
    bound = [s for s in stubs if s.op is not None]
    assert bound  # (the kernel's evaluation is bound to its stub)
    for s in bound:  # its operands: shape and dtype only, no graph above them
        assert all(type(a) is Stub and a.op is None and a.args == () for a in s.args)
    assert len(stubs) <= sum(1 + len(s.args) for s in bound)


@pytest.mark.parametrize("layout", ["c", "f", "reversed", "strided"])
@pytest.mark.parametrize("x_shape, shape, dims", [
    ((3,), (3, 4), (0,)), ((3, 4), (4, 5, 3), (2, 0)), ((2, 3), (2, 5, 3), (0, 2)),
    ((3, 1), (3, 7), (0, 1)), ((), (2, 2), ())])
def test_prepared_broadcast_step_is_numpys_broadcast_in_every_layout(layout, x_shape, shape, dims):
    """The prepared step's own path (a strided view) and its fallback (numpy's general path, for
    a layout the view cannot take) both give numpy's broadcast of x."""
    x = np.random.default_rng(5).standard_normal(x_shape)
    if layout == "f" and x.ndim:  # (asfortranarray makes a 0-D value 1-D)
        x = np.asfortranarray(x)
    elif layout == "reversed":
        x = np.flip(x)
    elif layout == "strided" and x.ndim:
        x = np.repeat(x, 2, axis=-1)[..., ::2]
    node = Stub(shape_ops.BROADCAST_IN_DIM, (Stub(None, (), (), x_shape, None),),
                shape_ops.BROADCAST_IN_DIM.Attrs(shape, dims), shape, None)
    step = host_step(node)
    assert step.func is shape_ops._broadcast_step  # (the prepared form, not the evaluation)
    got = step(x)
    expand = [1] * len(shape)
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    xt = np.transpose(x, order) if x.ndim else x
    for i, d in enumerate(sorted(dims)):
        expand[d] = xt.shape[i]
    want = np.broadcast_to(xt.reshape(expand), shape)
    assert got.shape == shape and got.dtype == x.dtype and not got.flags.writeable
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape, perm", [((3, 4), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 2, 1)),
                                         ((5,), (0,)), ((2, 1, 3), (1, 2, 0))])
@pytest.mark.parametrize("layout", ["c", "f", "reversed"])
def test_prepared_transpose_is_np_transpose(shape, perm, layout):
    """The prepared transpose (the ndarray method, one methodcaller) is np.transpose's view: the
    same values, shape, strides and memory, for every layout."""
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    if layout == "f":
        x = np.asfortranarray(x)
    elif layout == "reversed":
        x = np.flip(x)
    node = Stub(shape_ops.TRANSPOSE, (Stub(None, (), (), shape, None),), shape_ops.TRANSPOSE.Attrs(perm),
                tuple(shape[i] for i in perm), None)
    step = host_step(node)
    assert step is not shape_ops.TRANSPOSE.evaluate and not isinstance(step, functools.partial)
    got, want = step(x), np.transpose(x, perm)
    assert got.shape == want.shape and got.strides == want.strides
    assert np.shares_memory(got, x) and got.__array_interface__["data"] == want.__array_interface__["data"]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, shape_ops.TRANSPOSE.evaluate(node, x))
