"""lazyarray.fft against numpy.fft: 1-D and n-D, batched, both precisions, every norm, odd and
even lengths, crop and pad, more than XLA's three axes at once, and the errors."""
import numpy as np
import pytest

import lazyarray as xp

NORMS = ("backward", "ortho", "forward")
PRECISIONS = {  # real dtype, complex dtype, relative tolerance
    32: (xp.float32, xp.complex64, 2e-5),
    64: (xp.float64, xp.complex128, 1e-11),
}


def _data(rng, shape, complex_, bits):
    real = np.float32 if bits == 32 else np.float64
    a = rng.standard_normal(shape).astype(real)
    if complex_:
        a = (a + 1j * rng.standard_normal(shape)).astype(np.complex64 if bits == 32 else np.complex128)
    return a


def _check(out, expected, dtype, rtol):
    assert out.dtype == dtype
    got = np.asarray(out)
    assert got.shape == expected.shape
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale)


# name: (takes complex input, output is complex)
ONE_AXIS = {"fft": (True, True), "ifft": (True, True), "rfft": (False, True),
            "irfft": (True, False), "hfft": (True, False), "ihfft": (False, True)}


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("name", list(ONE_AXIS))
def test_one_axis_against_numpy(name, bits, rng):
    real, cplx, rtol = PRECISIONS[bits]
    complex_in, complex_out = ONE_AXIS[name]
    a = _data(rng, (3, 6, 4), complex_in, bits)
    # (n, axis): default, crop to odd, pad to even, pad to odd, length 1 on a middle axis
    x = xp.asarray(a)
    kwargs = [dict(n=n, axis=axis, norm=norm)
              for n, axis in [(None, -1), (3, -1), (10, 1), (7, 0), (1, 1)] for norm in NORMS]
    outs = xp.evaluate(*(getattr(xp.fft, name)(x, **kw) for kw in kwargs))  # one compile
    for out, kw in zip(outs, kwargs):
        _check(out, getattr(np.fft, name)(a, **kw), cplx if complex_out else real, rtol)


N_AXES = {"fftn": (True, True), "ifftn": (True, True), "rfftn": (False, True), "irfftn": (True, False)}


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("name", list(N_AXES))
def test_n_axes_against_numpy(name, bits, rng):
    real, cplx, rtol = PRECISIONS[bits]
    complex_in, complex_out = N_AXES[name]
    a = _data(rng, (2, 3, 4, 5, 3), complex_in, bits)
    cases = [
        (None, None),                        # every axis: 5 > 3, so two stablehlo.fft groups
        (None, (1, 3)),                      # a subset, batched around it
        ((5, 2), (3, 0)),                    # unsorted axes, pad one and crop the other
        ((3, 4, 7, 2), (-1, 0, 1, 3)),       # four axes with negatives, odd and even sizes
        ((-1, 6), (2, 4)),                   # -1 keeps the input's size
    ]
    x = xp.asarray(a)
    kwargs = [dict(s=s, axes=axes, norm=norm) for s, axes in cases for norm in NORMS]
    outs = xp.evaluate(*(getattr(xp.fft, name)(x, **kw) for kw in kwargs))  # one compile
    for out, kw in zip(outs, kwargs):
        _check(out, getattr(np.fft, name)(a, **kw), cplx if complex_out else real, rtol)


def test_round_trips(rng):
    a = _data(rng, (4, 7), True, 64)
    x = xp.asarray(a)
    for norm in NORMS:
        np.testing.assert_allclose(np.asarray(xp.fft.ifft(xp.fft.fft(x, norm=norm), norm=norm)), a, atol=1e-12)
        np.testing.assert_allclose(np.asarray(xp.fft.ifftn(xp.fft.fftn(x, norm=norm), norm=norm)), a, atol=1e-12)
    r = a.real
    back = xp.fft.irfftn(xp.fft.rfftn(xp.asarray(r)), s=r.shape, axes=(0, 1))
    np.testing.assert_allclose(np.asarray(back), r, atol=1e-12)
    back = xp.fft.hfft(xp.fft.ihfft(xp.asarray(r), n=7), n=7)
    np.testing.assert_allclose(np.asarray(back), r, atol=1e-12)


def test_real_input_to_complex_transforms_is_promoted(rng):
    a = rng.standard_normal((5, 6)).astype(np.float32)
    out = xp.fft.fftn(xp.asarray(a))
    assert out.dtype == xp.complex64
    np.testing.assert_allclose(np.asarray(out), np.fft.fftn(a), rtol=1e-4, atol=1e-4)
    out = xp.fft.irfft(xp.asarray(a.astype(np.float64)))
    assert out.dtype == xp.float64
    np.testing.assert_allclose(np.asarray(out), np.fft.irfft(a.astype(np.float64)), atol=1e-12)


def test_empty_batch_and_stays_lazy(fresh):
    x = xp.zeros((0, 4), dtype=xp.complex64)
    out = xp.fft.fft(x, n=6)
    assert out.shape == (0, 6) and out.dtype == xp.complex64
    assert np.asarray(out).shape == (0, 6)
    before = sum(fresh.syncs.values())
    y = xp.fft.rfft(xp.ones((3, 8), dtype=xp.float64))
    pending = y._node.op is not None
    assert pending and sum(fresh.syncs.values()) == before  # nothing ran yet
    np.testing.assert_allclose(np.asarray(y), np.fft.rfft(np.ones((3, 8))))


@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_frequencies(n):
    for d in (1.0, 0.25, 3):
        np.testing.assert_allclose(np.asarray(xp.fft.fftfreq(n, d=d)), np.fft.fftfreq(n, d=d), rtol=1e-15)
        np.testing.assert_allclose(np.asarray(xp.fft.rfftfreq(n, d=d)), np.fft.rfftfreq(n, d=d), rtol=1e-15)
    out = xp.fft.fftfreq(n, dtype=xp.float32)
    assert out.dtype == xp.float32 and xp.fft.fftfreq(n).dtype == xp.float64
    np.testing.assert_allclose(np.asarray(out), np.fft.fftfreq(n), rtol=1e-6)


def test_new_spacing_reuses_the_program(fresh):
    for d in (0.5, 1.5, 2.5):
        np.testing.assert_allclose(np.asarray(xp.fft.fftfreq(9, d=d)), np.fft.fftfreq(9, d=d), rtol=1e-15)
    assert fresh.compiles == 1


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(name, rng):
    a = _data(rng, (4, 5, 3), True, 32)
    for axes in (None, 1, [0, 2], (-1,), [2, 0, 1]):
        out = getattr(xp.fft, name)(xp.asarray(a), axes=axes)
        assert out.dtype == xp.complex64
        np.testing.assert_array_equal(np.asarray(out), getattr(np.fft, name)(a, axes=axes))
    r = np.arange(7.0)
    both = xp.fft.ifftshift(xp.fft.fftshift(xp.asarray(r)))
    np.testing.assert_array_equal(np.asarray(both), r)


def test_errors():
    c = xp.ones((4, 4), dtype=xp.complex128)
    r = xp.ones((4, 4), dtype=xp.float64)
    i = xp.ones((4, 4), dtype=xp.int64)
    with pytest.raises(TypeError):
        xp.fft.fft(i)
    with pytest.raises(TypeError):
        xp.fft.rfft(c)
    with pytest.raises(TypeError):
        xp.fft.ihfft(c)
    with pytest.raises(TypeError):
        xp.fft.fft(np.ones(4, dtype=complex))
    with pytest.raises(ValueError, match="norm"):
        xp.fft.fft(c, norm="none")
    with pytest.raises(ValueError, match="at least 1"):
        xp.fft.fft(c, n=0)
    with pytest.raises(ValueError, match="at least 1"):
        xp.fft.irfft(xp.ones((3, 1), dtype=xp.complex64))  # n defaults to 2*(1-1) = 0
    with pytest.raises(TypeError):
        xp.fft.fft(c, n=2.5)
    with pytest.raises(IndexError):
        xp.fft.fft(c, axis=2)
    with pytest.raises(ValueError, match="entries but the array has"):
        xp.fft.fftn(c, s=(2, 2, 2))  # s without axes: its last len(s) axes, which must exist
    with pytest.raises(ValueError, match="entries"):
        xp.fft.fftn(c, s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match="repeated"):
        xp.fft.fftn(c, axes=(0, 0))
    with pytest.raises(ValueError):
        xp.fft.rfftn(r, axes=())
    with pytest.raises(ValueError):
        xp.fft.fftfreq(0)
    with pytest.raises(TypeError):
        xp.fft.fftfreq(4, dtype=xp.int32)
    with pytest.raises(TypeError):
        xp.fft.rfftfreq(4, dtype=xp.complex64)
