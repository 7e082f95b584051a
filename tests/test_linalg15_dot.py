"""The prepared dot step of two matrices (`_ops.dot._dot_step`'s `matrices` branch): np.matmul of
the 2-D views gives the bits of the (1, m, k) @ (1, k, n) product it replaced, transposed
operands, one array on both sides (numpy's syrk), special values and empty matrices included."""
import itertools

import numpy as np
import pytest

from lazyarray import _dtypes as dt
from lazyarray._ops import dot as D
from lazyarray._ops.core import host_step
from test_small_host_ops import _dot_stub, _reference

DTYPES = {"float32": dt.float32, "float64": dt.float64}
# (m, k, n): square, tall, wide, a row, a column, empty, at the window-free bound
SIZES = [(8, 8, 8), (300, 8, 8), (8, 300, 3), (1, 8, 8), (8, 8, 1), (0, 8, 8), (8, 0, 4), (64, 64, 64)]


def _operands(m, k, n, tx, ty, rng, npdt):
    x = rng.standard_normal((k, m) if tx else (m, k)).astype(npdt)
    y = rng.standard_normal((n, k) if ty else (k, n)).astype(npdt)
    attrs = ((), (), (0 if tx else 1,), (1 if ty else 0,))
    return x, y, attrs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("special", ["finite", "inf", "nan", "zero_inf", "overflow"])
def test_matrix_branch_gives_the_batched_products_bits(dtype, size, special):
    d = DTYPES[dtype]
    m, k, n = size
    rng = np.random.default_rng(m + 3 * k + 7 * n)
    for tx, ty in itertools.product([False, True], repeat=2):
        x, y, attrs = _operands(m, k, n, tx, ty, rng, d.np)
        if x.size and y.size:
            if special == "inf":
                x.flat[0] = np.inf
            elif special == "nan":
                y.flat[-1] = np.nan
            elif special == "zero_inf":  # 0 * inf in one product: NaN, which BLAS may skip
                x[...] = 0.0 if not tx else x
                y.flat[0] = np.inf
            elif special == "overflow":  # finite values whose sum overflows: the exact check decides
                x[...] = np.finfo(d.np).max
        node = _dot_stub(x.shape, y.shape, attrs, d)
        step = host_step(node)
        assert step.func is D._dot_step
        assert step.args[0] == (not step.args[5] and not step.args[-2] and not step.args[-1])
        with np.errstate(all="ignore"):
            got = step(x, y)
            want = _reference(x, y, attrs).reshape(node.shape)
            evaluated = D._dot(node, x, y)
        assert got.shape == node.shape == (m, n) and got.dtype == d.np
        assert got.tobytes() == want.tobytes() == evaluated.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(8, 8), (300, 8), (8, 300), (5, 1)], ids=str)
def test_matrix_branch_one_array_both_sides(dtype, shape):
    """x @ x.T and x.T @ x of one array (numpy's syrk where it applies), finite and not."""
    d = DTYPES[dtype]
    rng = np.random.default_rng(sum(shape))
    for attrs in [((), (), (1,), (1,)), ((), (), (0,), (0,))]:
        for special in (False, True):
            x = rng.standard_normal(shape).astype(d.np)
            if special:
                x.flat[0], x.flat[-1] = np.inf, 0.0
            node = _dot_stub(shape, shape, attrs, d)
            step = host_step(node)
            with np.errstate(all="ignore"):
                got, want = step(x, x), _reference(x, x, attrs).reshape(node.shape)
            assert got.tobytes() == want.tobytes()


def test_matrix_branch_is_taken_only_for_matrices_without_window_or_shortcut():
    def flag(xs, ys, attrs, d=dt.float64):
        return host_step(_dot_stub(xs, ys, attrs, d)).args[0]
    assert flag((8, 8), (8, 8), ((), (), (1,), (0,)))
    assert flag((8, 300), (8, 8), ((), (), (0,), (0,)))
    assert not flag((8,), (8, 8), ((), (), (0,), (0,)))  # a vector: the reshaped product
    assert not flag((2, 4, 4), (2, 4, 4), ((0,), (0,), (2,), (1,)))  # a batch
    assert not flag((100, 100), (100, 100), ((), (), (1,), (0,)))  # a one-thread window
    assert not flag((5000, 50), (5000, 50), ((), (), (0,), (0,)))  # gram's finiteness shortcut
