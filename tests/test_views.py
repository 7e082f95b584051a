"""numpy's aliasing rules, function by function: a write through a view reaches its base, the
view shows later writes to its base, read-only views raise, and copies stay copies. Every case
runs the same code on numpy and on lazyarray and compares base and result afterwards."""
import numpy as np
import pytest

import lazyarray as xp


def _pair(shape=(2, 3, 4)):
    base = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    return base, xp.asarray(base)


# name -> (numpy call, lazyarray call); each takes the base and returns the result
VIEWS = {
    "reshape": (lambda a: np.reshape(a, (6, 4)), lambda a: xp.reshape(a, (6, 4))),
    "reshape_flat": (lambda a: np.reshape(a, (-1,)), lambda a: xp.reshape(a, (-1,))),
    "permute_dims": (lambda a: np.permute_dims(a, (2, 0, 1)), lambda a: xp.permute_dims(a, (2, 0, 1))),
    "matrix_transpose": (lambda a: np.matrix_transpose(a), lambda a: xp.matrix_transpose(a)),
    "mT": (lambda a: a.mT, lambda a: a.mT),
    "expand_dims": (lambda a: np.expand_dims(a, 1), lambda a: xp.expand_dims(a, axis=1)),
    "flip": (lambda a: np.flip(a, axis=(0, 2)), lambda a: xp.flip(a, axis=(0, 2))),
    "flip_all": (lambda a: np.flip(a), lambda a: xp.flip(a)),
    "moveaxis": (lambda a: np.moveaxis(a, 0, -1), lambda a: xp.moveaxis(a, 0, -1)),
    "slice": (lambda a: a[1:, ::2], lambda a: a[1:, ::2]),
    "negative_step": (lambda a: a[::-1, 1, 1:3], lambda a: a[::-1, 1, 1:3]),
    "ellipsis_newaxis": (lambda a: a[..., None, 1], lambda a: a[..., None, 1]),
    "unstack": (lambda a: np.unstack(a, axis=1)[2], lambda a: xp.unstack(a, axis=1)[2]),
    "view_of_view": (lambda a: np.reshape(np.permute_dims(a, (1, 0, 2))[1], (2, 2, 2)),
                     lambda a: xp.reshape(xp.permute_dims(a, (1, 0, 2))[1], (2, 2, 2))),
    "transpose_of_slice": (lambda a: a[:, 1:].mT, lambda a: a[:, 1:].mT),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_write_through_view_reaches_base(name):
    f_np, f_xp = VIEWS[name]
    a, b = _pair()
    va, vb = f_np(a), f_xp(b)
    assert np.shares_memory(va, a)  # the case is a view in numpy
    va[(0,) * va.ndim] = -1.0
    vb[(0,) * vb.ndim] = -1.0
    va += 100.0
    vb += 100.0
    np.testing.assert_array_equal(np.asarray(b), a)
    np.testing.assert_array_equal(np.asarray(vb), va)


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_shows_later_base_writes(name):
    f_np, f_xp = VIEWS[name]
    a, b = _pair()
    va, vb = f_np(a), f_xp(b)
    a[1] = -5.0
    b[1] = -5.0
    a *= 2.0
    b *= 2.0
    np.testing.assert_array_equal(np.asarray(vb), va)


def test_sibling_views_see_each_other():
    a, b = _pair((4, 4))
    ta, tb = a.T, b.T
    ra, rb = np.reshape(a, (16,)), xp.reshape(b, (16,))
    ta[0, 3] = 77.0
    tb[0, 3] = 77.0
    np.testing.assert_array_equal(np.asarray(rb), ra)
    rb[5] = -3.0
    ra[5] = -3.0
    np.testing.assert_array_equal(np.asarray(tb), ta)


def test_reshape_copies_where_numpy_copies():
    a, b = _pair((3, 4))
    ta, tb = a.T, b.T
    ra, rb = np.reshape(ta, (12,)), xp.reshape(tb, (12,))
    assert not np.shares_memory(ra, a)
    ra[0] = 99.0
    rb[0] = 99.0
    np.testing.assert_array_equal(np.asarray(b), a)
    with pytest.raises(ValueError, match="without a copy"):
        xp.reshape(tb, (12,), copy=False)


def test_reshape_copy_true_is_a_copy():
    a, b = _pair((3, 4))
    r = xp.reshape(b, (12,), copy=True)
    r[0] = 50.0
    np.testing.assert_array_equal(np.asarray(b), a)


@pytest.mark.parametrize("shape,new", [((2, 3, 4), (2, 12)), ((2, 3, 4), (4, 3, 2)),
                                       ((1, 6, 1), (2, 3)), ((2, 1, 3), (3, 2, 1))])
def test_reshape_of_slices_follows_numpy(shape, new):
    a, b = _pair(shape)
    sa, sb = a[..., ::-1], b[..., ::-1]
    view_np = True
    try:
        ra = sa.reshape(new, copy=False)
    except ValueError:
        view_np = False
    if view_np:
        rb = xp.reshape(sb, new, copy=False)
        ra[(0,) * len(new)] = -7.0
        rb[(0,) * len(new)] = -7.0
        np.testing.assert_array_equal(np.asarray(b), a)
    else:
        with pytest.raises(ValueError):
            xp.reshape(sb, new, copy=False)


@pytest.mark.parametrize("make", [
    lambda m: m.broadcast_to(m.asarray([1.0, 2.0, 3.0]), (2, 3)),
    lambda m: m.broadcast_arrays(m.asarray([1.0, 2.0, 3.0]), m.zeros((2, 1)))[0],
    lambda m: m.linalg.diagonal(m.reshape(m.arange(9.0), (3, 3))),
])
def test_read_only_views_raise(make):
    v = make(xp)
    with pytest.raises(ValueError, match="read-only"):
        v[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        v += 1.0


def test_read_only_view_shows_base_writes():
    a, b = _pair((3, 3))
    da, db = np.linalg.diagonal(a), xp.linalg.diagonal(b)
    assert not da.flags.writeable
    a[1, 1] = 1000.0
    b[1, 1] = 1000.0
    np.testing.assert_array_equal(np.asarray(db), da)


def test_integer_index_for_every_axis_is_a_copy():
    a, b = _pair((2, 3))
    ea, eb = a[1, 2], b[1, 2]
    a[1, 2] = 0.0
    b[1, 2] = 0.0
    assert float(eb) == float(ea) == 5.0
    # with an ellipsis numpy gives a 0-D view
    za, zb = a[1, 2, ...], b[1, 2, ...]
    a[1, 2] = 8.0
    b[1, 2] = 8.0
    assert float(zb) == float(za) == 8.0


def test_copies_stay_copies():
    a, b = _pair((2, 3))
    for c in (xp.asarray(b, copy=True), xp.astype(b, xp.float64), b + 0, xp.concat([b, b]),
              xp.meshgrid(b[0], b[1])[0], xp.roll(b, 1), xp.tile(b, (1, 1))):
        c[(0,) * c.ndim] = -1.0
    np.testing.assert_array_equal(np.asarray(b), a)


def test_asarray_of_an_array_is_the_array():
    b = xp.zeros(3)
    assert xp.asarray(b) is b
    c = xp.asarray(b)
    c[0] = 1.0
    assert float(b[0]) == 1.0


def test_recorded_ops_keep_the_old_value():
    b = xp.zeros((2, 2))
    v = xp.reshape(b, (4,))
    s = xp.sum(b)  # recorded before the write
    v[0] = 5.0
    assert float(s) == 0.0
    assert float(xp.sum(b)) == 5.0


def test_oaconvolve_pattern():
    """scipy.signal.oaconvolve writes with += through a slice of a permute_dims result."""
    a = np.zeros((3, 5))
    b = xp.zeros((3, 5))
    ta, tb = np.permute_dims(a, (1, 0)), xp.permute_dims(b, (1, 0))
    ta[1:4, :] += np.ones((3, 3))
    tb[1:4, :] += xp.ones((3, 3))
    np.testing.assert_array_equal(np.asarray(b), a)


@pytest.mark.parametrize("src,dst", [("complex128", "float64"), ("float64", "complex128"),
                                     ("float64", "int64"), ("complex64", "float32"), ("float64", "float64")])
def test_dtype_view_is_numpys_and_aliases(src, dst):
    """x.view(dtype) (numpy, PyTorch, JAX, CuPy; SciPy's RBFInterpolator calls it): the same
    bytes as another dtype, and a view: a write through it reaches x."""
    base = (np.arange(12.0) - 5.5).reshape(3, 4)
    a = base.astype(src) if src.startswith("float") else (base + 1j * base[::-1]).astype(src)
    b = xp.asarray(a)
    va, vb = a.view(dst), b.view(getattr(xp, dst))
    np.testing.assert_array_equal(np.asarray(vb), va)
    va[1, 1] = va[0, 0]
    vb[1, 1] = vb[0, 0]
    np.testing.assert_array_equal(np.asarray(b), a)


def test_dtype_view_errors():
    with pytest.raises(TypeError, match="same size"):
        xp.ones(4).view(xp.int8)
    with pytest.raises(ValueError, match="contiguous last axis"):
        xp.ones((2, 2), dtype=xp.complex128).mT.view(xp.float64)


def test_view_as_real_after_a_reshape_to_a_unit_last_axis():
    """SciPy's RBFInterpolator: reshape(y, (n, -1)) of a complex vector, then .view(float64)."""
    y = np.arange(4) + 1j * np.arange(4)[::-1]
    got = xp.reshape(xp.asarray(y), (4, -1)).view(xp.float64)
    want = y.reshape(4, -1).view(np.float64)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert got.shape == want.shape
