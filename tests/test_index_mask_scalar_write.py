"""x[m] = c of a 1-D bool mask of x's length and a Python float, int or bool (SciPy's elementwise
solvers: `x[m] = np.nan`, `done[m] = True`) binds at once in `setitem` what `_mask_index.write`
binds for it (the value's leaf as `_value_node` makes it, its broadcast and the select): node for
node, numpy's values in both tiers, the general path's errors."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _indexing, _mask_index, _views

pytestmark = pytest.mark.usefixtures("both_tiers")

DTYPES = ["float64", "float32", "complex64", "int64", "int32", "uint8", "int8", "bool"]
VALUES = [1.5, -0.0, float("nan"), float("inf"), 3, -2, 0, True, False, 200]


def _np_write(a, m, value):
    """numpy's a[m] = value, or the exception type it raises."""
    want = a.copy()
    try:
        want[m] = value
    except (ValueError, OverflowError, TypeError) as e:
        return type(e)
    return want


def _reference(a_np, m, value):
    """What the general path binds: `_mask_index.write` of `_value_node`'s node."""
    ref = xp.asarray(a_np)
    ref = ref + ref if a_np.dtype != bool else ref | ref  # (pending, as x)
    vnode = _indexing._value_node(ref, ref._node.dtype, value)
    with _views.write_lock:
        _mask_index.write(ref, m, vnode)
    return ref


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_scalar_mask_writes_bind_the_general_nodes(dtype, n):
    rng = np.random.default_rng(n)
    a_np = (rng.standard_normal(n) * 5).astype(dtype)
    for m_np in (rng.random(n) < 0.5, np.ones(n, bool), np.zeros(n, bool)):
        for pending_mask in (False, True):
            m = xp.asarray(m_np)
            if pending_mask:
                m = m & True
            for value in VALUES:
                if isinstance(value, float) and np.dtype(dtype).kind in "biu" and value != value:
                    continue  # (numpy writes NaN into ints with a warning; ours raises: below)
                x = xp.asarray(a_np)
                x = x + x if dtype != "bool" else x | x
                want = _np_write(a_np + a_np if dtype != "bool" else a_np, m_np, value)
                try:
                    ref = _reference(a_np, m, value)
                except (ValueError, OverflowError, TypeError) as e:
                    with pytest.raises(type(e)):  # (the general path's error)
                        x[m] = value
                    continue
                x[m] = value
                assert xp.graph_text(x) == xp.graph_text(ref), (dtype, n, value)
                if isinstance(want, type):
                    continue  # (-2 into uint8: numpy raises at the write, the general path at the read)
                np.testing.assert_array_equal(np.asarray(x), want)
                np.testing.assert_array_equal(np.asarray(ref), want)


def test_bad_scalar_mask_writes_raise_and_leave_x():
    a_np = np.arange(5.0)
    x = xp.asarray(a_np) + 0.0
    before = xp.graph_text(x)
    with pytest.raises(IndexError):
        x[xp.asarray(np.ones(4, bool))] = 1.0   # a mask of another length
    xi = xp.asarray(np.arange(5)) + 0
    with pytest.raises(ValueError):
        xi[xp.asarray(np.ones(5, bool))] = float("nan")
    with pytest.raises(OverflowError):
        xi[xp.asarray(np.ones(5, bool))] = float("inf")
    with pytest.raises(TypeError):
        x[xp.asarray(np.ones(5, bool))] = 1j
    assert xp.graph_text(x) == before
    np.testing.assert_array_equal(np.asarray(x), a_np)
    np.testing.assert_array_equal(np.asarray(xi), np.arange(5))
    c = xp.asarray(np.zeros(3, np.complex64))
    c[xp.asarray(np.array([True, False, True]))] = 1j  # (complex into complex: the general path)
    np.testing.assert_array_equal(np.asarray(c), np.array([1j, 0, 1j], np.complex64))


def test_scalar_mask_writes_through_views_and_readonly():
    base_np = np.arange(8.0)
    base = xp.asarray(base_np) + 0.0
    v = base[2:6]
    m_np = np.array([True, False, True, True])
    v[xp.asarray(m_np)] = -1.0        # a view: the general path, reaching the base
    base_np[2:6][m_np] = -1.0
    np.testing.assert_array_equal(np.asarray(base), base_np)
    w = base[:]
    base[xp.asarray(base_np > 3)] = 9.0  # a write into the base reaches its view
    base_np[base_np > 3] = 9.0
    np.testing.assert_array_equal(np.asarray(w), base_np)
    alias = np.asarray(base)           # (base is host-aliased now: the general path)
    base[xp.asarray(base_np < 2)] = 5.0
    base_np[base_np < 2] = 5.0
    np.testing.assert_array_equal(np.asarray(base), base_np)
    np.testing.assert_array_equal(np.asarray(w), base_np)
    del alias
