"""Extensions beyond the standard that consumers rely on (SciPy, array-api-extra), each compared
with numpy, and the namespaces of earlier versions (`__array_namespace__(api_version=...)`)."""
import numpy as np
import pytest

import lazyarray as xp


pytestmark = pytest.mark.usefixtures("both_tiers")  # (tests/conftest.py)


def _np(x):
    return np.asarray(x)


# ---------------------------------------------------------------- full with a 0-D array

@pytest.mark.parametrize("fill, dtype", [(2.5, None), (3, None), (True, None), (2.5, xp.float32),
                                         (7, xp.float64), (1 + 2j, None)])
def test_full_with_0d_array_fill(fill, dtype):
    f = xp.asarray(fill)
    got = xp.full((2, 3), f, dtype=dtype)
    want = np.full((2, 3), np.asarray(fill), dtype=None if dtype is None else dtype.np)
    assert got.dtype.np == want.dtype
    np.testing.assert_array_equal(_np(got), want)


def test_full_with_0d_array_fill_stays_lazy_and_follows_writes():
    f = xp.asarray(1.0)
    f2 = f * 3
    got = xp.full(4, f2)
    assert got._node.op is not None  # nothing was read
    np.testing.assert_array_equal(_np(got), np.full(4, 3.0))
    np.testing.assert_array_equal(_np(xp.full_like(xp.ones(2), xp.asarray(5))), np.full(2, 5.0))


def test_full_rejects_non_0d_array_and_complex_into_real():
    with pytest.raises(ValueError, match="0-D"):
        xp.full(3, xp.ones(2))
    with pytest.raises(TypeError):
        xp.full(3, xp.asarray(1j), dtype=xp.float64)


def test_full_with_numpy_scalar():
    np.testing.assert_array_equal(_np(xp.full(2, np.float32(1.5))), np.full(2, np.float32(1.5)).astype(float))


# ---------------------------------------------------------------- array methods

def test_array_methods_match_numpy():
    a = np.arange(24.0).reshape(2, 3, 4) - 7.5
    x = xp.asarray(a)
    np.testing.assert_array_equal(_np(x.reshape(4, 6)), a.reshape(4, 6))
    np.testing.assert_array_equal(_np(x.reshape((6, -1))), a.reshape((6, -1)))
    for name in ("sum", "prod", "mean", "max", "min", "any", "all"):
        for axis in (None, 0, (0, 2), -1):
            np.testing.assert_allclose(_np(getattr(x, name)(axis=axis)), getattr(a, name)(axis=axis))
        np.testing.assert_allclose(_np(getattr(x, name)(axis=1, keepdims=True)),
                                   getattr(a, name)(axis=1, keepdims=True))
    assert int(x.argmax()) == a.argmax() and int(x.argmin()) == a.argmin()
    np.testing.assert_array_equal(_np(x.argmax(axis=1)), a.argmax(axis=1))
    np.testing.assert_array_equal(_np(x.flatten()), a.flatten())
    np.testing.assert_array_equal(_np(x.ravel()), a.ravel())
    np.testing.assert_array_equal(_np(x.clip(-1, 3)), a.clip(-1, 3))
    b = np.ones((1, 3, 1))
    assert xp.asarray(b).squeeze().shape == b.squeeze().shape
    assert xp.asarray(b).squeeze(axis=0).shape == b.squeeze(axis=0).shape
    c = np.asarray([1 + 2j, 3 - 1j])
    np.testing.assert_array_equal(_np(xp.asarray(c).conj()), c.conj())
    assert xp.asarray(2.5).item() == np.asarray(2.5).item()
    assert type(xp.asarray(3).item()) is int
    assert x.tolist() == a.tolist()
    assert x.sum(dtype=xp.float32).dtype is xp.float32


def test_flatten_is_a_copy_ravel_a_view():
    x = xp.reshape(xp.arange(6), (2, 3))
    f, r = x.flatten(), x.ravel()
    x[0, 0] = 100
    assert int(f[0]) == 0 and int(r[0]) == 100


# ---------------------------------------------------------------- isdtype with numpy dtypes

@pytest.mark.parametrize("npdtype", [np.float64, np.dtype("float32"), np.int8, np.dtype("uint64"),
                                     np.bool_, np.complex128])
@pytest.mark.parametrize("kind", ["bool", "signed integer", "unsigned integer", "integral",
                                  "real floating", "complex floating", "numeric"])
def test_isdtype_accepts_numpy_dtypes(npdtype, kind):
    assert xp.isdtype(npdtype, kind) == np.isdtype(np.dtype(npdtype), kind)
    ours = xp.asarray(np.zeros(1, npdtype)).dtype
    assert xp.isdtype(ours, npdtype) and xp.isdtype(npdtype, ours)


def test_isdtype_numpy_dtype_outside_the_standard_and_junk():
    assert xp.isdtype(np.longdouble, "real floating") is False  # (float16 is ours: test_float16)
    assert xp.isdtype(np.dtype("datetime64[s]"), "numeric") is False
    with pytest.raises(TypeError):
        xp.isdtype("float64", "real floating")


# ---------------------------------------------------------------- linspace, arange

@pytest.mark.parametrize("start, stop, num, endpoint", [(0, 10, 7, True), (-5, 3, 7, True),
                                                       (0.5, 9.9, 5, False), (10, -3, 6, True),
                                                       (2, 2, 1, True)])
@pytest.mark.parametrize("dtype", [xp.int64, xp.int32, xp.uint8])
def test_linspace_integer_dtype(start, stop, num, endpoint, dtype):
    if dtype is xp.uint8 and min(start, stop) < 0:
        return
    got = xp.linspace(start, stop, num, dtype=dtype, endpoint=endpoint)
    want = np.linspace(start, stop, num, dtype=dtype.np, endpoint=endpoint)
    assert got.dtype is dtype
    np.testing.assert_array_equal(_np(got), want)


def test_linspace_with_0d_array_bounds():
    got = xp.linspace(xp.asarray(-1.0), xp.asarray(3.0), 9)
    np.testing.assert_allclose(_np(got), np.linspace(np.asarray(-1.0), np.asarray(3.0), 9))
    got = xp.linspace(np.float64(0.0), np.float64(1.0), 3)
    np.testing.assert_allclose(_np(got), np.linspace(0.0, 1.0, 3))


@pytest.mark.parametrize("args", [(3,), (1.0, 4), (2, 11, 3), (5, -1, -2.5)])
def test_arange_with_0d_array_bounds(args):
    got = xp.arange(*(xp.asarray(a) for a in args))
    want = np.arange(*(np.asarray(a) for a in args))
    assert got.dtype.np == want.dtype
    np.testing.assert_allclose(_np(got), want)


# ---------------------------------------------------------------- moveaxis, format, indexing

@pytest.mark.parametrize("src, dst", [([0, 1], [2, 0]), ([0], [-1]), ([], []), ([2, 0], (0, 1))])
def test_moveaxis_with_lists(src, dst):
    a = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(_np(xp.moveaxis(xp.asarray(a), src, dst)), np.moveaxis(a, src, dst))


@pytest.mark.parametrize("value, spec", [(3.14159, ".3f"), (2.5, "e"), (7, ">4d"), (7, ""),
                                         (True, ""), (1.5, "")])
def test_format_of_0d_array(value, spec):
    assert format(xp.asarray(value), spec) == format(np.asarray(value), spec)


def test_format_of_nd_array():
    assert format(xp.asarray([1.0, 2.0]), "") == format(np.asarray([1.0, 2.0]), "")
    with pytest.raises(TypeError):
        format(xp.asarray([1.0, 2.0]), ".3f")


@pytest.mark.parametrize("key", [[1, 3], [-1, 0, 0], [True, False, True, False, True], [],
                                 ([0, 1], slice(None)), (slice(None), [2, 0])])
def test_index_given_as_a_list(key):
    a = np.arange(20).reshape(5, 4) if isinstance(key, tuple) else np.arange(5)
    np.testing.assert_array_equal(_np(xp.asarray(a)[key]), a[key])
    x, b = xp.asarray(a), a.copy()
    x[key] = -1
    b[key] = -1
    np.testing.assert_array_equal(_np(x), b)


# ---------------------------------------------------------------- float into an integer array

@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint16, np.bool_])
@pytest.mark.parametrize("value", [1.9, -1.9, 0.0, 0.5, 100.7])
def test_float_scalar_into_integer_array_casts_like_numpy(dtype, value):
    a = np.zeros(4, dtype)
    x = xp.asarray(a)
    try:
        a[1:3] = value
    except OverflowError:
        with pytest.raises(OverflowError):
            x[1:3] = value
        return
    x[1:3] = value
    assert x.dtype.np == a.dtype
    np.testing.assert_array_equal(_np(x), a)
    x[xp.asarray([True, False, False, True])] = value  # a masked write casts the same way
    a[[0, 3]] = value
    np.testing.assert_array_equal(_np(x), a)


def test_float_scalar_into_integer_array_errors_like_numpy():
    for value, error in ((float("nan"), ValueError), (float("inf"), OverflowError), (300.5, OverflowError)):
        a = np.zeros(2, np.int8)
        with pytest.raises(error):
            a[0] = value
        x = xp.asarray(a)
        with pytest.raises(error):
            x[0] = value
        np.testing.assert_array_equal(_np(x), a)


def test_inplace_op_that_changes_dtype_says_cast():
    x = xp.asarray([2, 4])
    with pytest.raises(ValueError, match="cast"):
        x += 1.1
    np.testing.assert_array_equal(_np(x), [2, 4])


# ---------------------------------------------------------------- bool + bool, axis errors

def test_bool_plus_bool_is_logical_or_like_numpy():
    a, b = np.array([True, False, False, True]), np.array([True, True, False, False])
    got = xp.asarray(a) + xp.asarray(b)
    assert got.dtype is xp.bool
    np.testing.assert_array_equal(_np(got), a + b)
    np.testing.assert_array_equal(_np(xp.add(xp.asarray(a), False)), a + False)
    with pytest.raises(TypeError):
        xp.subtract(xp.asarray(a), xp.asarray(b))  # numpy refuses bool - bool too


def test_axis_error_wording_matches_numpy():
    with pytest.raises(IndexError) as ours:
        xp.sum(xp.ones(3), axis=10)
    with pytest.raises(np.exceptions.AxisError) as theirs:
        np.sum(np.ones(3), axis=10)
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- devices()

def test_devices_is_a_tuple_that_concatenates_with_lists():
    devices = xp.__array_namespace_info__().devices()
    assert isinstance(devices, tuple) and len(devices) >= 1
    assert devices + [None] == list(devices) + [None]  # SciPy's test fixture
    assert [None] + devices == [None] + list(devices)
    assert devices + (None,) == tuple(devices) + (None,)
    assert type(devices + (None,)) is tuple


# ---------------------------------------------------------------- earlier versions

@pytest.mark.parametrize("version", ["2024.12", "2023.12"])
def test_namespace_of_an_earlier_version(version):
    x = xp.asarray([1.0, 2.0])
    ns = x.__array_namespace__(api_version=version)
    assert ns is not xp and ns.__array_api_version__ == version
    assert ns is x.__array_namespace__(api_version=version)  # built once
    grids = ns.meshgrid(x, x)
    assert type(grids) is list and len(grids) == 2
    np.testing.assert_array_equal(_np(grids[0]), np.meshgrid(_np(x), _np(x))[0])
    assert type(ns.broadcast_arrays(x, xp.ones((3, 1)))) is list
    info = ns.__array_namespace_info__()
    assert type(info.devices()) is list and info.devices() == list(xp.__array_namespace_info__().devices())
    # 2025.12's additions are absent, everything older is there and the same
    assert not hasattr(ns, "isin") and not hasattr(ns, "broadcast_shapes")
    assert not hasattr(ns.linalg, "eig") and ns.linalg.inv is xp.linalg.inv
    assert ns.sum is xp.sum and ns.float64 is xp.float64 and ns.moveaxis is xp.moveaxis
    if version == "2023.12":
        assert not hasattr(ns, "diff") and not hasattr(ns, "take_along_axis")
        assert "max dimensions" not in info.capabilities()
    else:
        assert ns.diff is xp.diff and "max dimensions" in info.capabilities()


def test_namespace_versions_default_latest_and_unknown():
    x = xp.ones(2)
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2025.12") is xp
    assert xp.__array_api_version__ == "2025.12"
    assert type(xp.meshgrid(x, x)) is tuple
    with pytest.raises(ValueError, match="2020.10"):
        x.__array_namespace__(api_version="2020.10")


# ---------------------------------------------------------------- logspace

@pytest.mark.parametrize("args, kwargs", [((-3, 0, 10), {}), ((0, 3), {"num": 4, "base": 2.0}),
                                          ((1, 2, 5), {"endpoint": False}), ((2, -1, 7), {}),
                                          ((0, 2, 3), {"dtype": xp.float32}),
                                          ((0, 2, 3), {"dtype": xp.int64}), ((0, 1, 0), {})])
def test_logspace_matches_numpy(args, kwargs):
    got = xp.logspace(*args, **kwargs)
    want = np.logspace(*args, **{k: getattr(v, "np", v) for k, v in kwargs.items()})
    assert got.dtype.np == want.dtype
    np.testing.assert_allclose(_np(got), want, rtol=1e-6 if got.dtype is xp.float32 else 1e-13)


# ---------------------------------------------------------------- numpy scalars in sequences

@pytest.mark.parametrize("seq", [[np.int32(1), np.int32(2)], [[np.float32(1)], [np.float32(2)]],
                                 [1, np.int32(2)], [np.uint8(3), 1.5], [True, np.bool_(False)],
                                 [np.int16(-4), np.int8(2)], [np.complex64(1j)]])
def test_asarray_of_a_sequence_with_numpy_scalars_infers_like_numpy(seq):
    got, want = xp.asarray(seq), np.asarray(seq)
    assert got.dtype.np == want.dtype
    np.testing.assert_array_equal(_np(got), want)


def test_asarray_of_a_sequence_with_0d_arrays_keeps_their_dtype():
    got = xp.asarray([xp.asarray(1, dtype=xp.int32), xp.asarray(3, dtype=xp.int32)])
    want = np.asarray([np.asarray(1, np.int32), np.asarray(3, np.int32)])
    assert got.dtype.np == want.dtype
    np.testing.assert_array_equal(_np(got), want)
    assert xp.asarray([1, 2]).dtype is xp.int64 and xp.asarray([1.0, 2]).dtype is xp.float64


def test_earlier_namespace_functions_keep_their_signatures():
    import inspect
    ns = xp.ones(1).__array_namespace__(api_version="2024.12")
    for name in ("meshgrid", "broadcast_arrays"):
        assert inspect.signature(getattr(ns, name)) == inspect.signature(getattr(xp, name))


# ---------------------------------------------------------------- in-place same-kind casting

@pytest.mark.parametrize("target, source", [(np.int32, np.int64), (np.int8, np.int16), (np.uint8, np.uint16),
                                            (np.int64, np.uint32), (np.float32, np.float64),
                                            (np.complex64, np.complex128)])
@pytest.mark.parametrize("op", ["__iadd__", "__imul__", "__isub__"])
def test_inplace_same_kind_downcast_like_numpy(target, source, op):
    a = np.asarray([1, 2, 3], target)
    b = np.asarray([5, 7, 9], source)
    x = xp.asarray(a)
    x_alias = x
    getattr(x, op)(xp.asarray(b))
    getattr(a, op)(b)
    assert x is x_alias and x.dtype.np == a.dtype
    np.testing.assert_array_equal(_np(x), a)


def test_inplace_into_a_view_downcasts_like_numpy():
    a, b = np.zeros(4, np.int32), np.asarray([3, 4], np.int64)
    x = xp.asarray(a)
    x[1:3] += xp.asarray(b)
    a[1:3] += b
    np.testing.assert_array_equal(_np(x), a)


@pytest.mark.parametrize("target, source", [(np.uint8, np.int64), (np.int32, np.float64),
                                            (np.float64, np.complex128)])
def test_inplace_other_kinds_still_raise(target, source):
    with pytest.raises(TypeError):
        a = np.ones(2, target)
        a += np.ones(2, source)
    x = xp.asarray(np.ones(2, target))
    with pytest.raises(ValueError, match="cast"):
        x += xp.asarray(np.ones(2, source))
    np.testing.assert_array_equal(_np(x), np.ones(2, target))


# ---------------------------------------------------------------- where with two scalars

@pytest.mark.parametrize("x1, x2", [(-0.6931471805599453, 0), (1, 2), (True, False), (1j, 2.0), (3, 0.5)])
def test_where_with_two_python_scalars(x1, x2):
    c = np.asarray([True, False, True])
    got, want = xp.where(xp.asarray(c), x1, x2), np.where(c, x1, x2)
    assert got.dtype.np == want.dtype
    np.testing.assert_array_equal(_np(got), want)
    with pytest.raises(TypeError):
        xp.where(xp.asarray(c), "a", 1)


@pytest.mark.parametrize("k", [0, 1, -2, 4])
def test_diag_as_numpy(k):
    """xp.diag (numpy, PyTorch, JAX, CuPy; SciPy's RBFInterpolator): 1-D -> matrix, 2-D -> a
    read-only view of the diagonal."""
    v = np.arange(1.0, 4.0)
    np.testing.assert_array_equal(np.asarray(xp.diag(xp.asarray(v), k=k)), np.diag(v, k))
    m = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(m)
    d = xp.diag(x, k)
    np.testing.assert_array_equal(np.asarray(d), np.diag(m, k))
    with pytest.raises(ValueError, match="read-only"):
        d[...] = 0.0
    x[1, 1 + k if 0 <= 1 + k < 4 else 1] = 100.0
    m[1, 1 + k if 0 <= 1 + k < 4 else 1] = 100.0
    np.testing.assert_array_equal(np.asarray(d), np.diag(m, k))


@pytest.mark.parametrize("fname", ["exp", "log", "sin", "sqrt", "tanh", "log1p", "acos", "expm1"])
@pytest.mark.parametrize("npdtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64, np.uint32, np.uint64])
def test_floating_functions_of_integer_arrays_like_numpy(fname, npdtype):
    a = np.array([0, 1, 2, 7, 100], npdtype)
    if fname == "acos":
        a = np.array([0, 1, 1, 0, 1], npdtype)
    got = getattr(xp, fname)(xp.asarray(a))
    want = getattr(np, {"acos": "arccos"}.get(fname, fname))(a)
    if want.dtype == np.float16:  # numpy's choice for 8-bit integers; ours is float32
        want = getattr(np, {"acos": "arccos"}.get(fname, fname))(a.astype(np.float32))
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=4 * np.finfo(want.dtype).eps)


def test_floating_functions_of_bool_arrays_and_real_only_functions_still_raise():
    got = xp.exp(xp.asarray([True, False]))
    assert got.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(got), np.exp(np.array([1.0, 0.0], np.float32)))
    with pytest.raises(TypeError, match="real floating"):
        xp.signbit(xp.asarray([1, 2]))  # outside the floating-point functions of one argument
    with pytest.raises(TypeError, match="floating"):
        xp.atan2(xp.asarray([1, 2]), xp.asarray([1, 2]))


@pytest.mark.parametrize("values", [np.array([1 + 2j, -0.0 - 3j, np.nan + 1j], np.complex128),
                                    np.array([[1 + 2j], [3 - 4j]], np.complex64), np.array([1.5, -2.0])])
def test_real_and_imag_attributes_like_numpy(values):
    x = xp.asarray(values)
    for name in ("real", "imag"):
        got, want = getattr(x, name), getattr(values, name)
        assert got.shape == want.shape and np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_real_and_imag_of_complex_are_read_only_views_that_follow_writes():
    x = xp.asarray(np.array([1 + 2j, 3 - 4j]))
    re = x.real
    x[0] = 5 + 6j
    np.testing.assert_array_equal(np.asarray(re), [5.0, 3.0])  # a view sees later writes
    with pytest.raises(ValueError, match="read-only"):
        re[0] = 1.0  # numpy's would write into x: ours refuses rather than lose the write
    r = xp.asarray([1.0, 2.0])
    r.real[0] = 9.0  # a real array's .real is the array itself, as numpy's
    np.testing.assert_array_equal(np.asarray(r), [9.0, 2.0])


@pytest.mark.filterwarnings("ignore:`axes` should not be `None`:DeprecationWarning")
@pytest.mark.parametrize("fname,s", [("fftn", (4, 6)), ("rfftn", (6,)), ("irfftn", (8, 16)), ("ifftn", (5,))])
def test_fft_s_without_axes_takes_the_last_axes_like_numpy(fname, s):
    a = np.random.default_rng(5).standard_normal((3, 8, 9))
    if fname in ("irfftn", "ifftn"):
        a = a + 1j * a[::-1]
    got = getattr(xp.fft, fname)(xp.asarray(a), s=s)
    want = getattr(np.fft, fname)(a, s=s)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_numpy_reduction_functions_call_our_methods():
    # np.sum(x, axis=0) calls x.sum(axis=0, dtype=None, out=None) on any array with a sum method
    # (scikit-learn's Ledoit-Wolf does this on array-API inputs)
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a)
    for fn in (np.sum, np.prod, np.mean, np.max, np.min, np.any, np.all):
        got = fn(x, axis=0)
        np.testing.assert_allclose(np.asarray(got), fn(a, axis=0))
    assert np.asarray(x.sum(0, xp.float32)).dtype == np.float32  # numpy's positional order
    with pytest.raises(TypeError, match="out= is not supported"):
        x.sum(axis=0, out=xp.zeros(4))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_arange_with_a_complex_dtype_like_numpy(dtype):
    for args in ((5,), (1, 7, 2), (0.5, 3.0, 0.75)):
        got = xp.arange(*args, dtype=getattr(xp, dtype))
        want = np.arange(*args, dtype=dtype)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
