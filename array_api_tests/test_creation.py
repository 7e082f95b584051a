"""Creation functions (standard: "Creation Functions")."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from ._support import (
    ALL, INTEGRAL, NUMERIC, REAL, REAL_FLOAT, SEQ_TYPE, arrays, asx, assert_close, assert_dtype,
    assert_equal, assert_shape, default_name, dt, elements, only, shapes, to_np, xp,
)

small_shapes = shapes(min_dims=0, max_dims=3, max_side=4)
shape_args = st.one_of(small_shapes, st.integers(0, 5))


def as_tuple(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


# ---------------------------------------------------------------------------------------------
# arange

@given(st.integers(-20, 20), st.integers(-20, 20),
       st.integers(-5, 5).filter(lambda s: s != 0))
def test_arange_integers(start, stop, step):
    out = xp.arange(start, stop, step)
    expected = list(range(start, stop, step))
    assert_dtype(out, default_name("integral"))
    assert_shape(out, (len(expected),))
    assert to_np(out).tolist() == expected


@given(st.integers(0, 30))
def test_arange_stop_only(stop):
    out = xp.arange(stop)
    assert to_np(out).tolist() == list(range(stop))


@given(st.sampled_from(only(REAL_FLOAT)),
       st.floats(-10, 10, width=32), st.floats(-10, 10, width=32),
       st.sampled_from([0.25, 0.5, 1.0, 1.5, -0.5, -1.0, -2.0]))
def test_arange_floats(name, start, stop, step):
    # length ceil((stop - start) / step) when that is positive, else 0
    length = max(math.ceil((stop - start) / step), 0)
    out = xp.arange(start, stop, step, dtype=dt(name))
    assert_dtype(out, name)
    assert_shape(out, (length,))
    assert_close(to_np(out), (start + step * np.arange(length)).astype(name), name,
                 atol=1e-5 * (abs(start) + abs(step) * length + 1))


def test_arange_defaults():
    assert_dtype(xp.arange(5), default_name("integral"))
    assert_dtype(xp.arange(0.0, 1.0, 0.25), default_name("real floating"))
    assert to_np(xp.arange(0.0, 1.0, 0.25)).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert to_np(xp.arange(10, 0, -3)).tolist() == [10, 7, 4, 1]
    assert xp.arange(5, 5).shape == (0,)
    assert xp.arange(5, 0).shape == (0,)


@pytest.mark.parametrize("name", only(INTEGRAL + REAL_FLOAT))
def test_arange_dtype(name):
    out = xp.arange(1, 9, 2, dtype=dt(name))
    assert_dtype(out, name)
    assert to_np(out).tolist() == [1, 3, 5, 7]


# ---------------------------------------------------------------------------------------------
# asarray

def test_asarray_scalar_defaults():
    cases = [(True, "bool"), (7, default_name("integral")), (2.5, default_name("real floating")),
             (1 - 2j, default_name("complex floating"))]
    for value, name in cases:
        out = xp.asarray(value)
        assert_shape(out, ())
        assert_dtype(out, name, f"asarray({value!r})")
        assert to_np(out).item() == value


@given(st.sampled_from(["bool", "int", "float", "complex"]), st.data())
def test_asarray_nested_lists(kind, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    name = {"bool": "bool", "int": "int64", "float": "float64", "complex": "complex128"}[kind]
    a = data.draw(arrays(name, shape, lo=-1000, hi=1000))
    out = xp.asarray(a.tolist())
    default = {"bool": "bool", "int": default_name("integral"),
               "float": default_name("real floating"),
               "complex": default_name("complex floating")}[kind]
    assert_dtype(out, default)
    assert_shape(out, shape)
    assert_equal(to_np(out), a.astype(default))


@given(st.sampled_from(only(ALL)), st.data())
def test_asarray_dtype_and_buffer(name, data):
    a = data.draw(arrays(name, small_shapes))
    out = xp.asarray(a, dtype=dt(name))  # from an object with the buffer protocol
    assert_dtype(out, name)
    assert_equal(to_np(out), a)
    if a.size or a.ndim == 1:  # nested lists cannot say (0, 3)
        lst = xp.asarray(a.tolist() if a.ndim else a.item(), dtype=dt(name))
        assert_dtype(lst, name)
        assert_equal(to_np(lst), a)


@pytest.mark.parametrize("name", only(REAL))
def test_asarray_copy_true_is_independent(name):
    x = asx(np.array([1, 2, 3]).astype(name))
    y = xp.asarray(x, copy=True)
    x[0] = 0
    assert to_np(y).tolist() == [1, 2, 3]
    y[1] = 5
    assert to_np(x).tolist() == [0, 2, 3]
    assert to_np(y).tolist() == [1, 5, 3]


def test_asarray_from_array():
    x = asx(np.array([[1.5, 2.5]], dtype="float32"))
    for copy in (None, True, False):
        y = xp.asarray(x, copy=copy)
        assert_dtype(y, "float32")
        assert_equal(to_np(y), np.array([[1.5, 2.5]], dtype="float32"))
    if only(["float64"]):
        assert_dtype(xp.asarray(x, dtype=xp.float64), "float64")


# ---------------------------------------------------------------------------------------------
# empty / zeros / ones / full and their _like forms

@given(shape_args, st.sampled_from([None, *only(ALL)]))
def test_empty_zeros_ones(shape, name):
    kw = {} if name is None else {"dtype": dt(name)}
    want = default_name("real floating") if name is None else name
    for f, fill in ((xp.empty, None), (xp.zeros, 0), (xp.ones, 1)):
        out = f(shape, **kw)
        assert_shape(out, as_tuple(shape))
        assert_dtype(out, want)
        if fill is not None:
            assert_equal(to_np(out), np.full(as_tuple(shape), fill, dtype=want))


@given(shape_args, st.sampled_from(["bool", "int", "float", "complex"]), st.data())
def test_full_infers_dtype(shape, kind, data):
    value = data.draw({"bool": st.booleans(), "int": st.integers(-100, 100),
                       "float": st.floats(-100, 100, allow_subnormal=False),
                       "complex": st.complex_numbers(max_magnitude=100,
                                                     allow_subnormal=False)}[kind])
    want = {"bool": "bool", "int": default_name("integral"),
            "float": default_name("real floating"),
            "complex": default_name("complex floating")}[kind]
    out = xp.full(shape, value)
    assert_shape(out, as_tuple(shape))
    assert_dtype(out, want)
    assert_equal(to_np(out), np.full(as_tuple(shape), value, dtype=want))


@given(st.sampled_from(only(ALL)), st.data())
def test_full_dtype(name, data):
    value = data.draw(elements(name, lo=-100, hi=100))
    out = xp.full((2, 3), value, dtype=dt(name))
    assert_dtype(out, name)
    assert_equal(to_np(out), np.full((2, 3), value, dtype=name))


@given(st.sampled_from(only(ALL)), st.sampled_from([None, *only(ALL)]), st.data())
def test_like_functions(name, other, data):
    a = data.draw(arrays(name, small_shapes))
    x = asx(a)
    kw = {} if other is None else {"dtype": dt(other)}
    want = name if other is None else other
    fill = data.draw(elements(want, lo=-50, hi=50))
    for out, values in ((xp.empty_like(x, **kw), None),
                        (xp.zeros_like(x, **kw), 0),
                        (xp.ones_like(x, **kw), 1),
                        (xp.full_like(x, fill, **kw), fill)):
        assert_shape(out, a.shape)
        assert_dtype(out, want)
        if values is not None:
            assert_equal(to_np(out), np.full(a.shape, values, dtype=want))


# ---------------------------------------------------------------------------------------------
# eye, tril, triu

@given(st.integers(0, 6), st.one_of(st.none(), st.integers(0, 6)), st.integers(-7, 7),
       st.sampled_from([None, *only(ALL)]))
def test_eye(n_rows, n_cols, k, name):
    kw = {} if name is None else {"dtype": dt(name)}
    out = xp.eye(n_rows, n_cols, k=k, **kw)
    want = default_name("real floating") if name is None else name
    assert_dtype(out, want)
    assert_equal(to_np(out), np.eye(n_rows, n_cols, k=k, dtype=want))


@given(st.sampled_from(only(NUMERIC + ("bool",))), st.integers(-4, 4), st.data())
def test_tril_triu(name, k, data):
    a = data.draw(arrays(name, shapes(min_dims=2, max_dims=4, max_side=4)))
    x = asx(a)
    lo, hi = xp.tril(x, k=k), xp.triu(x, k=k)
    assert_dtype(lo, name)
    assert_dtype(hi, name)
    assert_equal(to_np(lo), np.tril(a, k=k))
    assert_equal(to_np(hi), np.triu(a, k=k))


# ---------------------------------------------------------------------------------------------
# linspace

@given(st.floats(-100, 100, width=32), st.floats(-100, 100, width=32), st.integers(0, 20),
       st.booleans(), st.sampled_from([None, *only(REAL_FLOAT)]))
def test_linspace(start, stop, num, endpoint, name):
    kw = {} if name is None else {"dtype": dt(name)}
    out = xp.linspace(start, stop, num, endpoint=endpoint, **kw)
    want = default_name("real floating") if name is None else name
    assert_dtype(out, want)
    assert_shape(out, (num,))
    expected = np.linspace(start, stop, num, endpoint=endpoint, dtype="float64")
    assert_close(to_np(out), expected.astype(want), want, atol=1e-4)
    if num >= 1:
        # the first element is start itself (start was drawn as a float32 value)
        assert float(to_np(out)[0]) == pytest.approx(start, rel=1e-6, abs=1e-6)
    if num >= 2 and endpoint:
        assert float(to_np(out)[-1]) == pytest.approx(stop, rel=1e-5, abs=1e-5)


def test_linspace_complex():
    out = xp.linspace(0 + 0j, 4 + 8j, 5)
    assert_dtype(out, default_name("complex floating"))
    assert_close(to_np(out), np.linspace(0, 4 + 8j, 5), default_name("complex floating"))


# ---------------------------------------------------------------------------------------------
# meshgrid

@given(st.lists(st.integers(0, 4), min_size=0, max_size=3), st.sampled_from(["xy", "ij"]),
       st.sampled_from(only(NUMERIC)), st.data())
def test_meshgrid(sizes, indexing, name, data):
    ins = [data.draw(arrays(name, (n,))) for n in sizes]
    outs = xp.meshgrid(*[asx(a) for a in ins], indexing=indexing)
    assert type(outs) is SEQ_TYPE, f"meshgrid returns {type(outs).__name__}"
    expected = np.meshgrid(*ins, indexing=indexing)
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        assert_dtype(o, name)
        assert_equal(to_np(o), e)


def test_meshgrid_default_is_xy():
    a, b = asx(np.arange(3.0)), asx(np.arange(2.0))
    X, Y = xp.meshgrid(a, b)
    assert X.shape == (2, 3) and Y.shape == (2, 3)


# ---------------------------------------------------------------------------------------------
# from_dlpack and device placement

@given(st.sampled_from(only(ALL)), st.data())
def test_from_dlpack(name, data):
    a = data.draw(arrays(name, small_shapes))
    x = asx(a)
    y = xp.from_dlpack(x)
    assert_dtype(y, name)
    assert_equal(to_np(y), a)
    z = xp.from_dlpack(x, copy=True)
    assert_equal(to_np(z), a)


def test_from_dlpack_numpy_producer():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    y = xp.from_dlpack(a)
    assert_dtype(y, "int32")
    assert_equal(to_np(y), a)


def test_creation_device_keyword():
    x = xp.zeros((2,))
    dev = x.device
    for out in (xp.zeros((2,), device=dev), xp.ones(3, device=dev), xp.arange(3, device=dev),
                xp.full((1,), 2.0, device=dev), xp.asarray([1, 2], device=dev),
                xp.eye(2, device=dev), xp.linspace(0, 1, 3, device=dev),
                xp.zeros_like(x, device=dev), xp.empty((0,), device=dev)):
        assert out.device == dev
