"""The interpreter's dynamic_slice / dynamic_update_slice steps for a window that moves along one
axis only (`_ops.shape._one_axis`: `x[i]`, `x[:, k]`, `c[k, :, :]`, their writes): the same
values as the evaluations (StableHLO's clamping of every start, negative and past the end
included), bit for bit, and the same as the compiled program through the namespace."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt
from lazyarray import _interpret
from lazyarray._ops import core
from lazyarray._ops import shape as sh

S = _interpret.Stub

CASES = [  # (operand shape, window sizes)
    ((3, 8, 8), (1, 8, 8)), ((300, 3), (300, 1)), ((8,), (1,)), ((5, 4), (2, 4)), ((4, 5), (4, 3)),
    ((2, 3, 4), (2, 1, 4)), ((6,), (6,)), ((3, 4), (2, 3)), ((3, 4), (3, 4)), ((0, 4), (0, 4)),
]
STARTS = [-7, -1, 0, 1, 2, 5, 299, 400]


def _leaf(shape, dtype):
    return S(None, (), (), shape, dtype)


def _starts(n):
    """Start tuples for n axes: each of STARTS on one axis, the others 0 / mixed, as Python ints,
    numpy 0-D arrays and numpy integers."""
    out = []
    for s in STARTS:
        for axis in range(n):
            t = [0] * n
            t[axis] = s
            out.append(tuple(t))
    out += list(itertools.islice(itertools.product(STARTS, repeat=n), 40))
    kinds = [lambda v: v, lambda v: np.array(v, np.int64), lambda v: np.int32(v)]
    return [tuple(kinds[k % 3](v) for v in t) for k, t in enumerate(out)]


@pytest.mark.parametrize("shape,sizes", CASES)
@pytest.mark.parametrize("dtype", ["float64", "int8", "complex64"])
def test_dynamic_slice_step_is_its_evaluation(shape, sizes, dtype, rng):
    d = getattr(dt, dtype)
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    stub = S(sh.DYNAMIC_SLICE, (_leaf(shape, d),) + tuple(_leaf((), dt.int64) for _ in shape),
             sh.DYNAMIC_SLICE.Attrs(sizes), sizes, d)
    step = core.host_step(stub)
    for starts in _starts(len(shape)):
        got = step(x, *starts)
        want = x[sh._clamped_window(starts, x.shape, sizes)]
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("shape,sizes", CASES + [((3, 8, 8), ())])
@pytest.mark.parametrize("dtype", ["float64", "int8", "complex64"])
def test_dynamic_update_slice_step_is_its_evaluation(shape, sizes, dtype, rng):
    if not sizes and 0 in shape:
        return
    d = getattr(dt, dtype)
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    u = (rng.standard_normal(sizes) * 10).astype(dtype)
    stub = S(sh.DYNAMIC_UPDATE_SLICE, (_leaf(shape, d), _leaf(sizes, d)) + tuple(_leaf((), dt.int64) for _ in shape),
             (), shape, d)
    step = core.host_step(stub)
    for starts in _starts(len(shape)):
        got = step(x, u, *starts)
        want = x.copy()
        want[sh._clamped_window(starts, x.shape, sh._window_sizes(x.shape, u.shape))] = u
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
        assert got is not x


@pytest.mark.usefixtures("both_tiers")
def test_reads_and_writes_through_the_namespace(rng):
    a_np = rng.standard_normal((3, 8, 8))
    c_np = rng.standard_normal((300, 3))
    a, c = xp.asarray(a_np) + 0, xp.asarray(c_np) + 0
    for k in range(3):
        np.testing.assert_array_equal(np.asarray(a[k, :, :]), a_np[k])
        np.testing.assert_array_equal(np.asarray(c[:, k]), c_np[:, k])
        a[k, :, :] = a[k, :, :] * 2
        a_np[k] *= 2
        c[:, k] = c[:, k] + 1
        c_np[:, k] += 1
    np.testing.assert_array_equal(np.asarray(a), a_np)
    np.testing.assert_array_equal(np.asarray(c), c_np)


@pytest.mark.parametrize("dtype", ["float64", "complex64", "bool", "int16"])
@pytest.mark.parametrize("rows", [300, sh.COPY_STRIDED + 1])
@pytest.mark.parametrize("case", ["column", "reversed", "every_other_row", "transposed_column"])
def test_broadcast_step_of_a_strided_operand(dtype, rows, case, rng):
    """A strided operand up to COPY_STRIDED elements is copied and viewed (larger ones: numpy's
    general path): numpy's broadcast, bit for bit, read-only, never a view of the operand
    written through."""
    base = (rng.standard_normal((rows, 3)) * 10).astype(dtype)
    x, shape, dims = {
        "column": (base[:, 1], (8, rows), (1,)),
        "reversed": (base[::-1, 0], (rows, 2), (0,)),
        "every_other_row": (base[::2], (4, rows // 2 + rows % 2, 3), (1, 2)),
        "transposed_column": (base[:, 2], (rows, 5), (0,)),
    }[case]
    d = getattr(dt, dtype)
    stub = S(sh.BROADCAST_IN_DIM, (_leaf(x.shape, d),), sh.BROADCAST_IN_DIM.Attrs(shape, dims), shape, d)
    got = core.host_step(stub)(x)
    want = sh._broadcast_general(sh.BROADCAST_IN_DIM.Attrs(shape, dims), x)
    assert got.shape == shape and got.dtype == x.dtype and not got.flags.writeable
    np.testing.assert_array_equal(np.ascontiguousarray(got).view(np.uint8), np.ascontiguousarray(want).view(np.uint8))
