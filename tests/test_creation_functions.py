"""Creation functions against numpy."""
import numpy as np
import pytest

import lazyarray as xp


def test_asarray_infers_the_standard_defaults():
    assert xp.asarray(1).dtype == xp.int64
    assert xp.asarray(1.0).dtype == xp.float64
    assert xp.asarray(1j).dtype == xp.complex128
    assert xp.asarray([True, False]).dtype == xp.bool
    assert xp.asarray([[1, 2], [3, 4.5]]).dtype == xp.float64
    assert xp.asarray(np.array(3, dtype=np.int8)).shape == ()  # 0-D stays 0-D
    assert xp.asarray(np.float32(2.5)).dtype == xp.float32


def test_asarray_dtype_copy_and_errors():
    x = xp.asarray([1, 2, 3], dtype=xp.float32)
    assert x.dtype == xp.float32 and np.asarray(x).tolist() == [1.0, 2.0, 3.0]
    assert xp.asarray(x) is x
    y = xp.asarray(x, copy=True)
    y[0] = 10.0
    assert np.asarray(x)[0] == 1.0  # the copy is independent
    with pytest.raises(ValueError):
        xp.asarray(x, dtype=xp.float64, copy=False)
    with pytest.raises(OverflowError):
        xp.asarray(300, dtype=xp.int8)
    with pytest.raises(TypeError):
        xp.asarray(np.array([1], dtype=np.longdouble))
    with pytest.raises(TypeError):
        xp.asarray(["a"])


def test_asarray_copies_host_data():
    h = np.arange(4.0)
    x = xp.asarray(h)
    h[0] = 99.0
    assert np.asarray(x)[0] == 0.0
    big_endian = np.arange(3, dtype=">i4")
    assert np.asarray(xp.asarray(big_endian)).tolist() == [0, 1, 2]


def test_asarray_of_a_sequence_of_0d_arrays():
    a, b = xp.asarray(1.5), xp.asarray(2.5)
    assert np.asarray(xp.asarray([a, b])).tolist() == [1.5, 2.5]


@pytest.mark.parametrize("args,kw", [((5,), {}), ((2, 11, 3), {}), ((10, 0, -3), {}),
                                     ((0.0, 1.0, 0.25), {}), ((1, 2, 0.1), {}), ((3,), {"dtype": xp.float32}),
                                     ((10, 0, -3), {"dtype": xp.uint8}), ((5, 5), {})])
def test_arange(args, kw):
    npkw = {"dtype": kw["dtype"].np} if "dtype" in kw else {}
    got = np.asarray(xp.arange(*args, **kw))
    want = np.arange(*args, **npkw)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_arange_errors():
    with pytest.raises(ValueError):
        xp.arange(0, 5, 0)
    with pytest.raises(TypeError):
        xp.arange(1j)


@pytest.mark.parametrize("num,endpoint", [(0, True), (1, True), (5, True), (5, False), (7, False)])
def test_linspace(num, endpoint):
    got = np.asarray(xp.linspace(-1.0, 2.0, num, endpoint=endpoint))
    want = np.linspace(-1.0, 2.0, num, endpoint=endpoint)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    if endpoint and num > 1:
        assert got[-1] == 2.0
    z = np.asarray(xp.linspace(0j, 1 + 1j, 3))
    np.testing.assert_allclose(z, np.linspace(0j, 1 + 1j, 3))
    with pytest.raises(TypeError):
        xp.linspace(0, 1, 3, dtype=xp.bool)  # (integer dtypes: an extension, test_extensions.py)


def test_filled_creation():
    assert np.asarray(xp.zeros((2, 0))).shape == (2, 0)
    assert np.asarray(xp.ones(3, dtype=xp.int8)).tolist() == [1, 1, 1]
    assert np.asarray(xp.full((2,), True)).dtype == np.bool_
    assert xp.full((2,), 3).dtype == xp.int64
    assert np.asarray(xp.full((1,), 2 + 1j)).tolist() == [2 + 1j]
    x = xp.asarray([[1, 2]], dtype=xp.uint16)
    for f in (xp.zeros_like, xp.ones_like, xp.empty_like):
        y = f(x)
        assert y.shape == x.shape and y.dtype == x.dtype
    assert np.asarray(xp.full_like(x, 7)).tolist() == [[7, 7]]
    assert xp.zeros((0,), dtype=xp.complex64).dtype == xp.complex64
    with pytest.raises(ValueError):
        xp.zeros((-1,))
    with pytest.raises(TypeError):
        xp.full((2,), 1.5, dtype=xp.int32)


@pytest.mark.parametrize("n,m,k", [(3, None, 0), (3, 4, 1), (4, 2, -1), (2, 2, 5), (0, 3, 0)])
def test_eye(n, m, k):
    np.testing.assert_array_equal(np.asarray(xp.eye(n, m, k=k)), np.eye(n, m, k=k))


def test_eye_compiles_once_for_any_offset(fresh):
    for k in (-1, 0, 1, 2):
        np.testing.assert_array_equal(np.asarray(xp.eye(4, k=k)), np.eye(4, k=k))
    assert fresh.compiles <= 1


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_tril_triu(k, rng):
    a = rng.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(np.asarray(xp.tril(xp.asarray(a), k=k)), np.tril(a, k=k))
    np.testing.assert_array_equal(np.asarray(xp.triu(xp.asarray(a), k=k)), np.triu(a, k=k))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(indexing):
    a, b, c = np.arange(2.0), np.arange(3.0), np.arange(4.0)
    got = xp.meshgrid(xp.asarray(a), xp.asarray(b), xp.asarray(c), indexing=indexing)
    want = np.meshgrid(a, b, c, indexing=indexing)
    assert isinstance(got, tuple)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_dlpack_round_trip():
    h = np.arange(6.0).reshape(2, 3)
    x = xp.from_dlpack(h)
    np.testing.assert_array_equal(np.asarray(x), h)
    back = np.from_dlpack(x + 1)
    np.testing.assert_array_equal(back, h + 1)
    assert (x + 1).__dlpack_device__() == (1, 0)
    y = xp.from_dlpack(x)
    np.testing.assert_array_equal(np.asarray(y), h)
    capsule = x.__dlpack__(copy=True, max_version=(1, 0))
    assert capsule is not None
