"""eye binds its nodes at once (the iotas' attributes kept per shape) and empty is zeros inside one
`placed` wrapper: node for node what the builders bind, numpy's values in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _dtypes as dt, _ops as ops
from lazyarray._array_object import Array

pytestmark = pytest.mark.usefixtures("both_tiers")

SHAPES = [(1, 1), (3, 3), (3, 5), (5, 2), (0, 3), (8, 8)]


def _eye_by_builders(shape, k, dtype):
    k = max(-shape[0], min(shape[1], k))
    r, c = ops.iota(shape, 0, dt.int64), ops.iota(shape, 1, dt.int64)
    diag = ops.compare(ops.ADD(r, ops.scalar(k, dt.int64)), c, "EQ")
    return Array._wrap(ops.convert(diag, dtype), xp.asarray(0.0).device)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool", "complex64"])
def test_eye_binds_the_builders_nodes(shape, dtype):
    d = getattr(xp, dtype)
    for k in (0, 1, -1, 2, -7, 9):
        for _ in range(2):  # (attributes made, then kept)
            got = xp.eye(*shape, k=k, dtype=d)
            ref = _eye_by_builders(shape, k, d)
            assert xp.graph_text(got) == xp.graph_text(ref), (shape, k)
            want = np.eye(*shape, k=k, dtype=np.dtype(dtype))
            out = np.asarray(got)
            assert out.dtype == want.dtype
            np.testing.assert_array_equal(out, want)


def test_eye_in_a_graph_and_its_errors():
    x = xp.asarray(np.arange(9.0).reshape(3, 3))
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(x @ xp.eye(3) + xp.eye(3, k=1)), np.arange(9.0).reshape(3, 3) + np.eye(3, k=1))
    np.testing.assert_array_equal(np.asarray(xp.eye(np.int64(2), k=np.int32(1))), np.eye(2, k=1))
    with pytest.raises(TypeError):
        xp.eye(3, k=1.5)
    with pytest.raises(ValueError):
        xp.eye(-1)


@pytest.mark.parametrize("shape", [(), (0,), (4,), (3, 8, 8), 5])
@pytest.mark.parametrize("dtype", [None, "float32", "int64", "bool"])
def test_empty_is_zeros(shape, dtype):
    d = None if dtype is None else getattr(xp, dtype)
    got, ref = xp.empty(shape, dtype=d), xp.zeros(shape, dtype=d)
    assert xp.graph_text(got) == xp.graph_text(ref)
    assert got.dtype == ref.dtype and got.shape == ref.shape and got.device == ref.device
    np.testing.assert_array_equal(np.asarray(got), np.asarray(ref))
    with pytest.raises(ValueError):
        xp.empty((2, -1), dtype=d)
