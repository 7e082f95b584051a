"""Session 12, issue 11 target 3 (the is_lazy_array probe): an element of a large pending float64
array computed when indexed by Python's float math (`_host_sync._float_element`), checked bit for
bit against the general element read (`_host_sync._at`, numpy's scalar math) and numpy; and
`reshape` to an array's own shape returning the array itself."""
import warnings

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _host_sync
from lazyarray import _ops as ops
from lazyarray._interpret import numpy_errors_loud, numpy_errors_quiet
from lazyarray._metrics import metrics


@pytest.fixture(autouse=True)
def tiered(monkeypatch):
    """The default tiers (the conformance conftest may switch the interpreter tier off)."""
    monkeypatch.setattr(_config, "interpret_first", 2)


@pytest.fixture(params=["verify", "plain"])
def verifying(request, monkeypatch):
    monkeypatch.setattr(_config, "verify", request.param == "verify")


def _bits(v):
    return np.asarray(v).tobytes()


_SPECIAL = [0.0, -0.0, 1.0, -2.5, 1.7e308, -1.7e308, 5e-324, -1e-310, np.inf, -np.inf, np.nan, 0.1, 3.0]


def _base():
    """100 float64 values: every special value at each of the positions 0..12 of each block."""
    v = np.array((_SPECIAL * 8)[:100], dtype=np.float64)
    v[50:] = v[50:][::-1]
    return v


def _general(node, i, seen=None):
    quiet = numpy_errors_quiet()
    try:
        return _host_sync._at(node, (i,), [_host_sync.ELEMENT_OPS], seen)
    finally:
        numpy_errors_loud(quiet)


_SCALARS = [2.0, -0.0, 3, np.float64(0.5), 1e308, np.nan]
_BINARY = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b]
_COMPARES = [lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b,
             lambda a, b: a == b, lambda a, b: a != b]


def _graphs(base, other, s):
    """(lazy graph, numpy function of (base, other)) pairs over every op of the float path."""
    out = []
    for f in _BINARY:
        out.append((f(base, s), lambda b, o, f=f: f(b, np.float64(s))))
        out.append((f(s, base), lambda b, o, f=f: f(np.float64(s), b)))
        out.append((f(base, other), lambda b, o, f=f: f(b, o)))
        out.append((f(-(base * s), other - 1.0), lambda b, o, f=f: f(-(b * np.float64(s)), o - 1.0)))
    for f in _COMPARES:
        out.append((f(base * s + 1.0, other), lambda b, o, f=f: f(b * np.float64(s) + 1.0, o)))
        out.append((f(base, s), lambda b, o, f=f: f(b, np.float64(s))))
    return out


@pytest.mark.parametrize("s", _SCALARS, ids=repr)
def test_float_path_is_the_general_read_bit_for_bit(s):
    base_np, other_np = _base(), np.roll(_base(), 5)
    base, other = xp.asarray(base_np), xp.asarray(other_np)
    with np.errstate(all="ignore"):
        for y, eager in _graphs(base, other, s):
            node = y._node
            want = eager(base_np, other_np)
            for i in range(0, 100, 3):
                fast = _host_sync._float_element(node, (i,), None)
                general = _general(node, i)
                if fast is None:  # (Python's float math raised: a division by zero)
                    assert node.op is ops.DIVIDE, (node, i)
                    continue
                assert type(fast) is type(general) is want.dtype.type, (node, i)
                assert _bits(fast) == _bits(general), (node, i, fast, general)
                # (numpy's vectorized loops may take either operand's NaN when both are NaN:
                # the sign of such a NaN is not a value the tiers promise)
                assert _bits(fast) == _bits(want[i]) or (np.isnan(fast) and np.isnan(want[i])), (node, i)


def test_every_node_of_the_float_path_passes_the_exact_check():
    """`_float_at` takes its ops without `_takes`: each passes it on float64 operands."""
    a = xp.asarray(np.ones(100))
    nodes = [(a + a)._node, (a - a)._node, (a * a)._node, (a / a)._node, (-a)._node]
    nodes += [xp.less(a, a)._node, xp.less_equal(a, a)._node, xp.greater(a, a)._node,
              xp.greater_equal(a, a)._node, xp.equal(a, a)._node, xp.not_equal(a, a)._node]
    nodes.append(xp.reshape(a * 2.0, (10, 10))._node)
    ops_seen = {n.op for n in nodes}
    assert ops_seen == set(_host_sync._FLOAT_OPS) | {ops.COMPARE}
    for n in nodes:
        assert _host_sync._takes(n), n


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_division_by_zero_takes_the_general_read(verifying, zero):
    """Python raises where numpy divides by zero: the element is numpy's, with no warning."""
    base_np = np.array([1.0, -1.0, 0.0, np.nan] * 25)
    base = xp.asarray(base_np)
    y = base / zero
    with np.errstate(all="ignore"):
        want = base_np / zero
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(4):
            reads = metrics.host_element_reads
            e = y[i]
            assert metrics.host_element_reads == reads + 1
            assert _bits(np.asarray(e)) == _bits(want[i])
    assert y._node.op is not None


def test_probe_reads_leaves_of_every_kind(verifying):
    """Scalar leaves holding Python floats, ints, numpy scalars and 0-D arrays, and a realized
    operand (a buffer or a host value): the element is numpy's, and the array stays pending."""
    base_np = np.arange(100.0) * 0.37 - 11.0
    base = xp.asarray(base_np)
    realized = base * 3.0
    np.asarray(realized)  # (computed now: a leaf)
    zero_d = xp.asarray(np.float64(1.25))
    cases = [
        (base * 2.0 + 1.0, base_np * 2.0 + 1.0),
        (base * 2 - 7, base_np * 2 - 7),
        (base * zero_d, base_np * 1.25),
        (realized - base, base_np * 3.0 - base_np),
        (base + np.float64(0.1), base_np + 0.1),
    ]
    for y, want in cases:
        for i in (0, 7, 99):
            reads = metrics.host_element_reads
            assert _bits(np.asarray(xp.reshape(y, (-1,))[i])) == _bits(want[i])
            assert metrics.host_element_reads == reads + 1
        assert bool(xp.any(xp.reshape(y, (-1,))[0])) is bool(want[0] != 0)
        assert y._node.op is not None  # still pending: its program fuses it
        assert _bits(np.asarray(y)) == _bits(want)


def test_float32_and_integer_graphs_keep_the_general_read():
    """Only float64 graphs take Python's float math; others read as before (numpy's scalars)."""
    for npdt in (np.float32, np.int64):
        base_np = np.arange(100).astype(npdt)
        y = xp.asarray(base_np) * npdt(3) + npdt(1)
        assert _host_sync._float_element(y._node, (4,), None) is None
        e = y[4]
        assert type(e._node.host) is npdt and e._node.host == npdt(13)


def test_reshape_to_its_own_shape_is_the_array():
    """A reshape that changes nothing returns x (a view of x to x's shape would be x): writes
    through either are seen by both, as through a view."""
    x = xp.asarray(np.arange(6.0))
    y = x * 2.0
    for shape in ((-1,), (6,)):
        assert xp.reshape(y, shape) is y
        assert xp.reshape(y, shape, copy=False) is y
    c = xp.reshape(y, (6,), copy=True)
    assert c is not y
    r = xp.reshape(y, (-1,))
    r[1] = 100.0
    np.testing.assert_array_equal(np.asarray(y), [0.0, 100.0, 4.0, 6.0, 8.0, 10.0])
    np.testing.assert_array_equal(np.asarray(c), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0])
    # a view's own-shape reshape is the view; a write through it reaches the base
    m = xp.asarray(np.arange(12.0).reshape(3, 4))
    row = m[1, :]
    assert xp.reshape(row, (4,)) is row
    xp.reshape(row, (-1,))[0] = -1.0
    assert float(m[1, 0]) == -1.0
    # a real reshape is still a view of its own
    flat = xp.reshape(m, (-1,))
    assert flat is not m and flat.shape == (12,)
    flat[0] = 42.0
    assert float(m[0, 0]) == 42.0


@pytest.mark.parametrize("value", [0.0, -0.0, np.nan, 2.5, -np.inf, 5e-324])
@pytest.mark.parametrize("keepdims", [False, True])
def test_any_all_of_an_element_read_when_indexed(value, keepdims):
    """`any`/`all` of the 0-D host value `y[i]` (the probe's second step): numpy's truth, a 0-D
    bool array, for float64 and the other dtypes (int, complex: the general 0-D path)."""
    base_np = np.full(100, value)
    for npdt in (np.float64, np.float32, np.int64, np.complex128):
        with np.errstate(all="ignore"):
            b_np = base_np.astype(npdt) if npdt is not np.int64 else np.nan_to_num(base_np).astype(npdt)
        y = xp.asarray(b_np) * npdt(1)
        want = bool(b_np[3] != 0)
        for f in (xp.any, xp.all):
            r = f(y[3], keepdims=keepdims)
            assert r.dtype == xp.bool and r.shape == ()
            assert bool(r) is want, (npdt, f)
            assert np.asarray(r).dtype == np.bool_ and bool(np.asarray(r)) is want
            assert f(y[3], axis=()).shape == () and bool(f(y[3], axis=())) is want


@pytest.mark.parametrize("shape", [(10, 10), (4, 5, 5), (100, 1)])
def test_probe_through_a_reshape(verifying, shape):
    """The probe of a y of several axes: `reshape(y, -1)[i]` pushes i through the reshape (and
    through a reshape of a leaf) by the float path; y stays pending."""
    base_np = _base().reshape(shape)
    other_np = np.roll(_base(), 7).reshape(shape)
    base, other = xp.asarray(base_np), xp.asarray(other_np)
    with np.errstate(all="ignore"):
        cases = [(base * 2.0 + 1.0, base_np * 2.0 + 1.0), (base - other, base_np - other_np),
                 (xp.reshape(xp.reshape(base, (-1,)) * 3.0, shape) / 7.0, base_np * 3.0 / 7.0)]
    for y, want in cases:
        flat_want = want.reshape(-1)
        flat = xp.reshape(y, (-1,))
        for i in (0, 1, 13, 57, 99):
            assert _host_sync._float_element(flat._node, (i,), None) is not None
            reads = metrics.host_element_reads
            e = flat[i]
            assert metrics.host_element_reads == reads + 1
            assert _bits(np.asarray(e)) == _bits(flat_want[i]) or (np.isnan(flat_want[i]) and np.isnan(np.asarray(e)))
            assert _bits(np.asarray(e)) == _bits(_general(flat._node, i))
        assert bool(xp.any(xp.reshape(y, (-1,))[0])) is bool(flat_want[0] != 0)
        assert y._node.op is not None
