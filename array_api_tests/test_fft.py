"""The ``fft`` extension (standard: "Fourier Transform Functions"); numpy.fft is the oracle
(it keeps single precision since numpy 2, as the standard asks)."""

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from hypothesis.extra import numpy as hnp

from ._support import (
    COMPLEX, COMPLEX_OF, REAL_FLOAT, REAL_OF, asx, assert_close, assert_dtype, assert_equal,
    default_name, dt, has_extension, only, to_np, xp,
)

pytestmark = pytest.mark.skipif(not has_extension("fft"), reason="no fft extension")

norms = st.sampled_from(["backward", "ortho", "forward"])
SHAPES = [(1,), (4,), (5,), (2, 3), (3, 4), (2, 2, 3)]


@st.composite
def signal(draw, name, shape):
    vals = hnp.arrays(np.int8, shape, elements=st.integers(-8, 8)).map(lambda a: a / 4)
    a = draw(vals)
    if name in COMPLEX:
        a = a + 1j * draw(vals)
    return np.asarray(a, dtype=name)


def check(out, expected, name):
    expected = np.asarray(expected)
    scale = max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    r = REAL_OF[name]
    assert_close(to_np(out), expected.astype(name), name,
                 rtol=1e-4 if r == "float32" else 1e-10,
                 atol=(1e-4 if r == "float32" else 1e-10) * scale)


def _wide(a):
    return a.astype("complex128" if a.dtype.kind == "c" else "float64")


@pytest.mark.parametrize("fname", ["fft", "ifft"])
@given(st.sampled_from(only(COMPLEX)), st.sampled_from(SHAPES), norms, st.data())
def test_fft_ifft(fname, name, shape, norm, data):
    a = data.draw(signal(name, shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.one_of(st.none(), st.integers(1, 6)))
    out = getattr(xp.fft, fname)(asx(a), n=n, axis=axis, norm=norm)
    assert_dtype(out, name)
    check(out, getattr(np.fft, fname)(_wide(a), n=n, axis=axis, norm=norm), name)


@pytest.mark.parametrize("fname", ["fftn", "ifftn"])
@given(st.sampled_from(only(COMPLEX)), st.sampled_from(SHAPES), norms, st.data())
def test_fftn_ifftn(fname, name, shape, norm, data):
    a = data.draw(signal(name, shape))
    axes = data.draw(st.one_of(st.none(), st.lists(st.integers(0, len(shape) - 1), min_size=1,
                                                    unique=True).map(tuple)))
    s = None
    if axes is not None and data.draw(st.booleans()):
        s = tuple(data.draw(st.integers(1, 5)) for _ in axes)
    out = getattr(xp.fft, fname)(asx(a), s=s, axes=axes, norm=norm)
    assert_dtype(out, name)
    check(out, getattr(np.fft, fname)(_wide(a), s=s, axes=axes, norm=norm), name)


@given(st.sampled_from(only(REAL_FLOAT)), st.sampled_from(SHAPES), norms, st.data())
def test_rfft_ihfft(name, shape, norm, data):
    a = data.draw(signal(name, shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.one_of(st.none(), st.integers(1, 6)))
    for fname in ("rfft", "ihfft"):
        out = getattr(xp.fft, fname)(asx(a), n=n, axis=axis, norm=norm)
        assert_dtype(out, COMPLEX_OF[name])
        check(out, getattr(np.fft, fname)(_wide(a), n=n, axis=axis, norm=norm),
              COMPLEX_OF[name])


@given(st.sampled_from(only(COMPLEX)), st.sampled_from(SHAPES), norms, st.data())
def test_irfft_hfft(name, shape, norm, data):
    a = data.draw(signal(name, shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.one_of(st.none(), st.integers(1, 8)))
    assume(n is not None or shape[axis] >= 2)   # the default n = 2 (m - 1) must be positive
    for fname in ("irfft", "hfft"):
        out = getattr(xp.fft, fname)(asx(a), n=n, axis=axis, norm=norm)
        assert_dtype(out, REAL_OF[name])
        expected = getattr(np.fft, fname)(_wide(a), n=n, axis=axis, norm=norm)
        assert out.shape == expected.shape
        check(out, expected, REAL_OF[name])


@given(st.sampled_from(only(REAL_FLOAT)), st.sampled_from(SHAPES), norms, st.data())
def test_rfftn_irfftn(name, shape, norm, data):
    a = data.draw(signal(name, shape))
    axes = data.draw(st.one_of(st.none(), st.lists(st.integers(0, len(shape) - 1), min_size=1,
                                                    unique=True).map(tuple)))
    s = None
    if axes is not None and data.draw(st.booleans()):
        s = tuple(data.draw(st.integers(2, 5)) for _ in axes)
    spec = xp.fft.rfftn(asx(a), s=s, axes=axes, norm=norm)
    assert_dtype(spec, COMPLEX_OF[name])
    expected = np.fft.rfftn(_wide(a), s=s, axes=axes, norm=norm)
    check(spec, expected, COMPLEX_OF[name])
    # and back: the real lengths go in s, for every transformed axis
    axes_back = tuple(range(len(shape))) if axes is None else axes
    s_back = tuple(s[i] if s else shape[ax] for i, ax in enumerate(axes_back))
    back = xp.fft.irfftn(spec, s=s_back, axes=axes_back, norm=norm)
    assert_dtype(back, name)
    check(back, np.fft.irfftn(expected, s=s_back, axes=axes_back, norm=norm), name)
    if s is None:
        check(back, a, name)   # the round trip returns the input


@given(st.integers(1, 9), st.sampled_from([1.0, 0.5, 2.0]),
       st.sampled_from([None, *only(REAL_FLOAT)]))
def test_fftfreq_rfftfreq(n, d, name):
    kw = {} if name is None else {"dtype": dt(name)}
    want = default_name("real floating") if name is None else name
    f = xp.fft.fftfreq(n, d=d, **kw)
    r = xp.fft.rfftfreq(n, d=d, **kw)
    assert_dtype(f, want)
    assert_dtype(r, want)
    check(f, np.fft.fftfreq(n, d=d), want)
    check(r, np.fft.rfftfreq(n, d=d), want)


@pytest.mark.parametrize("fname", ["fftshift", "ifftshift"])
@given(st.sampled_from(only(REAL_FLOAT + COMPLEX)), st.sampled_from(SHAPES), st.data())
def test_shifts(fname, name, shape, data):
    a = data.draw(signal(name, shape))
    axes = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1),
                               st.lists(st.integers(0, len(shape) - 1), min_size=1,
                                        unique=True).map(tuple)))
    out = getattr(xp.fft, fname)(asx(a), axes=axes)
    assert_dtype(out, name)
    assert_equal(to_np(out), getattr(np.fft, fname)(a, axes=axes))
