"""A table of representative SciPy calls that take Array API arrays (issue 12 item 1, issue 11
target 1): what `tests/test_integration_scipy.py` checks on lazyarray against numpy, and what a
benchmark can time on numpy, array-api-strict, torch and lazyarray, each in a fresh process.

Every case is a named, seeded call: `data(rng)` builds numpy inputs (tens to hundreds of elements,
a few medium ones), `call(xp, *arrays)` runs the SciPy function on those inputs after
`xp.asarray`, and `run_case(case, xp)` returns the result converted back to numpy (tuples,
named tuples, result objects and dicts of arrays are walked). Nothing here imports lazyarray: the
namespace is a parameter, so the table runs on any Array API library.

Only calls SciPy 1.17.1 declares array-API capable are listed (its `xp_capabilities` table: not
`np_only`); `cpu_only` ones are included, as SciPy runs them by converting to numpy and back,
which on a lazy library is a sync (worth timing).

SciPy reads SCIPY_ARRAY_API once, at its first import: this module sets it (if unset) before it
imports SciPy, so import it before anything else imports SciPy.
"""
from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import scipy.cluster.hierarchy as hierarchy
import scipy.cluster.vq as vq
import scipy.differentiate as differentiate
import scipy.fft as sfft
import scipy.integrate as integrate
import scipy.interpolate as interpolate
import scipy.ndimage as ndimage
import scipy.optimize as optimize
import scipy.optimize.elementwise as elementwise
import scipy.signal as signal
import scipy.signal.windows as windows
import scipy.special as special
import scipy.stats as stats
from scipy.spatial.transform import RigidTransform, Rotation

MODULES = ("special", "stats", "signal", "fft", "ndimage", "integrate", "interpolate", "cluster",
           "optimize", "differentiate", "spatial.transform")

DEFAULT_RTOL = 1e-10   # float64 results: same algorithm, rounding differences only
DEFAULT_ATOL = 1e-13   # floor for entries that are zero up to rounding (O(1) data everywhere)

# Tag of the adaptive solvers (tanhsinh, find_root, derivative, ...): their active set shrinks
# every iteration, so a lazy library sees a new graph per size (dozens of compiles).
MANY_GRAPHS = ("many_graphs",)

# Backends SciPy 1.17.1 itself skips for a call (its xp_capabilities table or the error it gives):
# the benchmark leaves these cells empty rather than timing a failure.
_STRICT_SETITEM = {"array_api_strict": "SciPy skips array-api-strict here: its algorithm writes "
                                       "with fancy indices or array fill values, which strict refuses"}
_TORCH_COMPAT = {"torch": "SciPy skips torch here (data-apis/array-api-compat#271: minimum with a "
                          "Python scalar)"}


@dataclass(frozen=True)
class Case:
    """One SciPy call. `data(rng)` -> tuple of numpy arrays; `call(xp, *arrays)` -> the result
    (arrays already converted with `xp.asarray`). `rtol`/`atol`/`why` state a looser tolerance
    and its reason."""
    name: str
    module: str
    data: Callable[[np.random.Generator], tuple]
    call: Callable[..., Any]
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    why: str = ""
    tags: tuple = field(default=())
    skip_on: dict = field(default_factory=dict)   # backend name -> why SciPy cannot run it there

    def __repr__(self):
        return f"Case({self.name})"


# ----------------------------------------------------------------------------- data builders
def _normal(*shape):
    return lambda rng: (rng.standard_normal(shape),)


def _uniform(lo, hi, *shape):
    return lambda rng: (rng.uniform(lo, hi, shape),)


def _two_normal(n, m=None, shift=0.3):
    return lambda rng: (rng.standard_normal(n), rng.standard_normal(m or n) + shift)


def _pair_uniform(lo, hi, n):
    return lambda rng: (rng.uniform(lo, hi, n), rng.uniform(lo, hi, n))


def _probabilities(n):
    def build(rng):
        p, q = rng.uniform(0.1, 1.0, n), rng.uniform(0.1, 1.0, n)
        return p / p.sum(), q / q.sum()
    return build


def _signal_and_kernel(n, k):
    return lambda rng: (rng.standard_normal(n), rng.standard_normal(k))


def _image(*shape):
    return lambda rng: (rng.standard_normal(shape),)


def _blobs(rng, n=60, d=2):
    centres = np.array([[0.0, 0.0], [4.0, 4.0], [-4.0, 4.0]])[:, :d]
    return centres[np.arange(n) % len(centres)] + 0.5 * rng.standard_normal((n, d))


def _binary_image(rng):
    img = np.zeros((24, 24), dtype=bool)
    img[3:9, 4:12] = True
    img[14:21, 10:18] = True
    img[rng.integers(0, 24, 12), rng.integers(0, 24, 12)] = True
    return (img,)


def _labels(rng):
    img = rng.standard_normal((16, 16))
    lab = np.repeat(np.repeat(np.arange(4).reshape(2, 2), 8, axis=0), 8, axis=1).astype(np.int64)
    return img, lab


def _sorted_points(n, lo=0.0, hi=4.0):
    def build(rng):
        x = np.sort(rng.uniform(lo, hi, n))
        x[0], x[-1] = lo, hi
        return x, np.sin(x) + 0.1 * rng.standard_normal(n), np.linspace(lo, hi, 3 * n)
    return build


def _quaternions(n):
    def build(rng):
        q = rng.standard_normal((n, 4))
        return (q / np.linalg.norm(q, axis=1, keepdims=True),)
    return build


def _none(rng):
    return ()


def _f64(xp, value):
    return xp.asarray(value, dtype=xp.float64)


def _sos(xp):
    """A 4th-order Butterworth low-pass as second-order sections, built from a numpy design so
    every backend filters with the same coefficients."""
    return xp.asarray(signal.butter(4, 0.2, output="sos"))


_BA_B, _BA_A = signal.butter(3, 0.3)


# ----------------------------------------------------------------------------- the table
SPECIAL = [
    Case("special.erf", "special", _normal(200), lambda xp, x: special.erf(x)),
    Case("special.erfc", "special", _normal(200), lambda xp, x: special.erfc(x)),
    Case("special.erfinv", "special", _uniform(-0.99, 0.99, 200), lambda xp, x: special.erfinv(x)),
    Case("special.expit", "special", _normal(200), lambda xp, x: special.expit(x)),
    Case("special.logit", "special", _uniform(0.01, 0.99, 200), lambda xp, x: special.logit(x)),
    Case("special.gammaln", "special", _uniform(0.1, 20, 200), lambda xp, x: special.gammaln(x)),
    Case("special.gamma", "special", _uniform(0.1, 10, 200), lambda xp, x: special.gamma(x)),
    Case("special.gammainc", "special", _pair_uniform(0.5, 5, 200),
         lambda xp, a, x: special.gammainc(a, x)),
    Case("special.gammaincc", "special", _pair_uniform(0.5, 5, 200),
         lambda xp, a, x: special.gammaincc(a, x)),
    Case("special.i0e", "special", _normal(200), lambda xp, x: special.i0e(x)),
    Case("special.i1", "special", _normal(200), lambda xp, x: special.i1(x)),
    Case("special.ndtr", "special", _normal(200), lambda xp, x: special.ndtr(x)),
    Case("special.ndtri", "special", _uniform(0.01, 0.99, 200), lambda xp, x: special.ndtri(x)),
    Case("special.log_ndtr", "special", _uniform(-30, 5, 200), lambda xp, x: special.log_ndtr(x)),
    Case("special.psi", "special", _uniform(0.1, 10, 200), lambda xp, x: special.psi(x)),
    Case("special.xlogy", "special", _pair_uniform(0.0, 3, 200),
         lambda xp, x, y: special.xlogy(x, y)),
    Case("special.xlog1py", "special", _pair_uniform(0.0, 3, 200),
         lambda xp, x, y: special.xlog1py(x, y)),
    Case("special.rel_entr", "special", _pair_uniform(0.01, 1, 200),
         lambda xp, x, y: special.rel_entr(x, y)),
    Case("special.entr", "special", _uniform(0.0, 2, 200), lambda xp, x: special.entr(x)),
    Case("special.zeta", "special", _uniform(1.5, 6, 200), lambda xp, x: special.zeta(x, 1.0)),
    Case("special.chdtrc", "special", _uniform(0.1, 20, 200),
         lambda xp, x: special.chdtrc(_f64(xp, 4.0), x)),
    Case("special.betainc", "special",
         lambda rng: (rng.uniform(0.5, 4, 100), rng.uniform(0.5, 4, 100), rng.uniform(0, 1, 100)),
         lambda xp, a, b, x: special.betainc(a, b, x)),
    Case("special.j0", "special", _uniform(0, 20, 200), lambda xp, x: special.j0(x),
         skip_on={"torch": "SciPy delegates to torch.special.bessel_j0, which differs from cephes "
                              "in the 7th digit"}),
    Case("special.logsumexp", "special", _normal(8, 30),
         lambda xp, x: special.logsumexp(x, axis=1)),
    Case("special.logsumexp_weights", "special", lambda rng: (rng.standard_normal(50), rng.uniform(-1, 1, 50)),
         lambda xp, x, w: special.logsumexp(x, b=w, return_sign=True)),
    Case("special.softmax", "special", _normal(8, 30), lambda xp, x: special.softmax(x, axis=0)),
    Case("special.log_softmax", "special", _normal(8, 30),
         lambda xp, x: special.log_softmax(x, axis=-1)),
]

STATS = [
    Case("stats.moment", "stats", _normal(5, 40), lambda xp, x: stats.moment(x, order=3, axis=1)),
    Case("stats.skew", "stats", _normal(5, 40), lambda xp, x: stats.skew(x, axis=1)),
    Case("stats.kurtosis", "stats", _normal(5, 40), lambda xp, x: stats.kurtosis(x, axis=1)),
    Case("stats.describe", "stats", _normal(60, 3), lambda xp, x: stats.describe(x)),
    Case("stats.zscore", "stats", _normal(50, 4), lambda xp, x: stats.zscore(x, axis=0)),
    Case("stats.zmap", "stats", _two_normal(30, 80), lambda xp, x, ref: stats.zmap(x, ref)),
    Case("stats.sem", "stats", _normal(100), lambda xp, x: stats.sem(x)),
    Case("stats.gmean", "stats", _uniform(0.5, 3, 4, 50), lambda xp, x: stats.gmean(x, axis=1)),
    Case("stats.hmean", "stats", _uniform(0.5, 3, 50), lambda xp, x: stats.hmean(x)),
    Case("stats.pmean", "stats", _uniform(0.5, 3, 50), lambda xp, x: stats.pmean(x, 2.5)),
    Case("stats.variation", "stats", _uniform(0.5, 3, 4, 50), lambda xp, x: stats.variation(x, axis=1)),
    Case("stats.tmean", "stats", _normal(100), lambda xp, x: stats.tmean(x, (-1.0, 1.5))),
    Case("stats.tstd", "stats", _normal(100), lambda xp, x: stats.tstd(x, (-1.0, 1.5))),
    Case("stats.entropy", "stats", _probabilities(40), lambda xp, p, q: stats.entropy(p, q)),
    Case("stats.differential_entropy", "stats", _normal(200),
         lambda xp, x: stats.differential_entropy(x)),
    Case("stats.ttest_1samp", "stats", _normal(60), lambda xp, x: stats.ttest_1samp(x, 0.2)),
    Case("stats.ttest_ind", "stats", _two_normal(50, 40), lambda xp, a, b: stats.ttest_ind(a, b)),
    Case("stats.ttest_ind_welch", "stats", _two_normal(50, 40),
         lambda xp, a, b: stats.ttest_ind(a, b, equal_var=False)),
    Case("stats.ttest_rel", "stats", _two_normal(50), lambda xp, a, b: stats.ttest_rel(a, b)),
    Case("stats.pearsonr", "stats", _two_normal(80), lambda xp, a, b: stats.pearsonr(a, a + b)),
    Case("stats.skewtest", "stats", _normal(80), lambda xp, x: stats.skewtest(x)),
    Case("stats.normaltest", "stats", _normal(80), lambda xp, x: stats.normaltest(x)),
    Case("stats.jarque_bera", "stats", _normal(80), lambda xp, x: stats.jarque_bera(x)),
    Case("stats.bartlett", "stats", _two_normal(40, 50), lambda xp, a, b: stats.bartlett(a, 2.0 * b)),
    Case("stats.f_oneway", "stats", _two_normal(40, 50), lambda xp, a, b: stats.f_oneway(a, b)),
    Case("stats.chisquare", "stats", _uniform(5, 15, 12), lambda xp, f: stats.chisquare(f)),
    Case("stats.circmean", "stats", _uniform(0, 6, 100), lambda xp, x: stats.circmean(x)),
    Case("stats.circstd", "stats", _uniform(0, 6, 100), lambda xp, x: stats.circstd(x)),
    Case("stats.kstat", "stats", _normal(100), lambda xp, x: stats.kstat(x, 3)),
    Case("stats.rankdata", "stats", lambda rng: (rng.integers(0, 10, 50).astype(np.float64),),
         lambda xp, x: stats.rankdata(x)),
    Case("stats.quantile", "stats", _normal(4, 51),
         lambda xp, x: stats.quantile(x, _f64(xp, [0.1, 0.5, 0.9]), axis=-1)),
    Case("stats.iqr", "stats", _normal(101), lambda xp, x: stats.iqr(x)),
    Case("stats.mannwhitneyu", "stats", _two_normal(30, 35),
         lambda xp, a, b: stats.mannwhitneyu(a, b)),
    Case("stats.kruskal", "stats", _two_normal(30, 35), lambda xp, a, b: stats.kruskal(a, b)),
    Case("stats.boxcox_llf", "stats", _uniform(0.5, 3, 60), lambda xp, x: stats.boxcox_llf(0.5, x)),
    Case("stats.false_discovery_control", "stats", _uniform(0, 0.2, 40),
         lambda xp, p: stats.false_discovery_control(p)),
]

SIGNAL = [
    Case("signal.convolve", "signal", _signal_and_kernel(200, 9),
         lambda xp, x, k: signal.convolve(x, k, method="direct")),
    Case("signal.convolve_fft", "signal", _signal_and_kernel(200, 9),
         lambda xp, x, k: signal.convolve(x, k, mode="same", method="fft")),
    Case("signal.correlate", "signal", _signal_and_kernel(200, 9),
         lambda xp, x, k: signal.correlate(x, k, mode="valid")),
    Case("signal.fftconvolve", "signal", _signal_and_kernel(300, 31),
         lambda xp, x, k: signal.fftconvolve(x, k)),
    Case("signal.fftconvolve_2d", "signal",
         lambda rng: (rng.standard_normal((20, 24)), rng.standard_normal((5, 5))),
         lambda xp, x, k: signal.fftconvolve(x, k, mode="same")),
    Case("signal.oaconvolve", "signal", _signal_and_kernel(400, 21),
         lambda xp, x, k: signal.oaconvolve(x, k)),
    Case("signal.convolve2d", "signal",
         lambda rng: (rng.standard_normal((16, 16)), rng.standard_normal((3, 3))),
         lambda xp, x, k: signal.convolve2d(x, k, mode="same", boundary="symm")),
    Case("signal.lfilter", "signal", _normal(200),
         lambda xp, x: signal.lfilter(xp.asarray(_BA_B), xp.asarray(_BA_A), x)),
    Case("signal.sosfilt", "signal", _normal(200), lambda xp, x: signal.sosfilt(_sos(xp), x)),
    Case("signal.sosfiltfilt", "signal", _normal(200), lambda xp, x: signal.sosfiltfilt(_sos(xp), x),
         skip_on={"torch": "SciPy skips torch (negative strides)"}),
    Case("signal.filtfilt", "signal", _normal(200),
         lambda xp, x: signal.filtfilt(xp.asarray(_BA_B), xp.asarray(_BA_A), x)),
    Case("signal.detrend", "signal", _normal(150),
         lambda xp, x: signal.detrend(x + xp.linspace(0.0, 3.0, 150, dtype=xp.float64))),
    Case("signal.hilbert", "signal", _normal(128), lambda xp, x: signal.hilbert(x)),
    Case("signal.freqz", "signal", _none,
         lambda xp: signal.freqz(xp.asarray(_BA_B), xp.asarray(_BA_A), worN=64)),
    Case("signal.butter_sos", "signal", _none,
         lambda xp: signal.butter(4, _f64(xp, [0.1, 0.4]), btype="band", output="sos")),
    Case("signal.savgol_filter", "signal", _normal(100),
         lambda xp, x: signal.savgol_filter(x, 11, 3)),
    Case("signal.medfilt", "signal", _normal(100), lambda xp, x: signal.medfilt(x, 5)),
    Case("signal.resample_poly", "signal", _normal(120), lambda xp, x: signal.resample_poly(x, 3, 2)),
    Case("signal.upfirdn", "signal", _signal_and_kernel(80, 7),
         lambda xp, x, h: signal.upfirdn(h, x, up=2, down=3)),
    Case("signal.windows.hann", "signal", _none, lambda xp: windows.hann(64, xp=xp)),
    Case("signal.windows.kaiser", "signal", _none, lambda xp: windows.kaiser(51, 8.6, xp=xp)),
    Case("signal.get_window", "signal", _none,
         lambda xp: signal.get_window(("tukey", 0.3), 40, xp=xp)),
]

FFT = [
    Case("fft.fft", "fft", _normal(128), lambda xp, x: sfft.fft(x)),
    Case("fft.ifft", "fft", _normal(4, 32), lambda xp, x: sfft.ifft(x, axis=0)),
    Case("fft.rfft", "fft", _normal(100), lambda xp, x: sfft.rfft(x, n=128)),
    Case("fft.irfft", "fft", _normal(65), lambda xp, x: sfft.irfft(x)),
    Case("fft.fft2", "fft", _normal(16, 12), lambda xp, x: sfft.fft2(x, norm="ortho")),
    Case("fft.rfftn", "fft", _normal(6, 8, 10), lambda xp, x: sfft.rfftn(x)),
    Case("fft.irfftn", "fft", _normal(8, 9), lambda xp, x: sfft.irfftn(x, s=(8, 16), axes=(0, 1))),
    Case("fft.irfftn_s_only", "fft", _normal(8, 9), lambda xp, x: sfft.irfftn(x, s=(8, 16))),
    Case("fft.hfft", "fft", _normal(33), lambda xp, x: sfft.hfft(x)),
    Case("fft.ihfft", "fft", _normal(64), lambda xp, x: sfft.ihfft(x)),
    Case("fft.fftshift", "fft", _normal(9, 10), lambda xp, x: sfft.fftshift(x)),
    Case("fft.ifftshift", "fft", _normal(11), lambda xp, x: sfft.ifftshift(x)),
    Case("fft.fftfreq", "fft", _none, lambda xp: sfft.fftfreq(20, d=0.1, xp=xp)),
    Case("fft.rfftfreq", "fft", _none, lambda xp: sfft.rfftfreq(21, xp=xp)),
    Case("fft.dct", "fft", _normal(64), lambda xp, x: sfft.dct(x, type=2, norm="ortho")),
    Case("fft.idst", "fft", _normal(64), lambda xp, x: sfft.idst(x, type=3)),
    Case("fft.dctn", "fft", _normal(10, 12), lambda xp, x: sfft.dctn(x)),
    Case("fft.fht", "fft", lambda rng: (np.exp(-np.linspace(-3, 3, 64) ** 2),),
         lambda xp, a: sfft.fht(a, dln=0.1, mu=0.5)),
]

NDIMAGE = [
    Case("ndimage.gaussian_filter", "ndimage", _image(24, 24),
         lambda xp, x: ndimage.gaussian_filter(x, 1.5)),
    Case("ndimage.gaussian_filter_output", "ndimage", _image(24, 24),
         lambda xp, x: _with_output(xp, x, lambda out: ndimage.gaussian_filter(x, 1.0, output=out))),
    Case("ndimage.uniform_filter", "ndimage", _image(20, 20),
         lambda xp, x: ndimage.uniform_filter(x, 5, mode="nearest")),
    Case("ndimage.median_filter", "ndimage", _image(20, 20), lambda xp, x: ndimage.median_filter(x, 3)),
    Case("ndimage.maximum_filter1d", "ndimage", _image(20, 20),
         lambda xp, x: ndimage.maximum_filter1d(x, 4, axis=0)),
    Case("ndimage.convolve", "ndimage",
         lambda rng: (rng.standard_normal((20, 20)), rng.standard_normal((3, 3))),
         lambda xp, x, k: ndimage.convolve(x, k, mode="reflect")),
    Case("ndimage.correlate1d_output", "ndimage", _image(20, 20),
         lambda xp, x: _with_output(xp, x, lambda out: ndimage.correlate1d(
             x, xp.asarray([1.0, 2.0, -1.0]), axis=1, output=out))),
    Case("ndimage.sobel", "ndimage", _image(20, 20), lambda xp, x: ndimage.sobel(x, axis=0)),
    Case("ndimage.laplace", "ndimage", _image(20, 20), lambda xp, x: ndimage.laplace(x)),
    Case("ndimage.zoom", "ndimage", _image(12, 12), lambda xp, x: ndimage.zoom(x, 1.5, order=3)),
    Case("ndimage.shift", "ndimage", _image(16, 16),
         lambda xp, x: ndimage.shift(x, (1.5, -2.25), order=1)),
    Case("ndimage.rotate", "ndimage", _image(16, 16),
         lambda xp, x: ndimage.rotate(x, 30.0, reshape=False, order=1)),
    Case("ndimage.map_coordinates", "ndimage",
         lambda rng: (rng.standard_normal((12, 12)), rng.uniform(0, 11, (2, 30))),
         lambda xp, x, c: ndimage.map_coordinates(x, c, order=1)),
    Case("ndimage.label", "ndimage", _binary_image, lambda xp, b: ndimage.label(b)),
    Case("ndimage.sum_labels", "ndimage", _labels,
         lambda xp, x, lab: ndimage.sum_labels(x, lab, index=xp.asarray([0, 1, 2, 3]))),
    Case("ndimage.center_of_mass", "ndimage", _labels,
         lambda xp, x, lab: ndimage.center_of_mass(x * x, lab, xp.asarray([1, 2]))),
    Case("ndimage.binary_dilation", "ndimage", _binary_image,
         lambda xp, b: ndimage.binary_dilation(b, iterations=2)),
    Case("ndimage.distance_transform_edt", "ndimage", _binary_image,
         lambda xp, b: ndimage.distance_transform_edt(b)),
    Case("ndimage.grey_opening", "ndimage", _image(20, 20),
         lambda xp, x: ndimage.grey_opening(x, size=(3, 3))),
]

INTEGRATE = [
    Case("integrate.trapezoid", "integrate", _sorted_points(50),
         lambda xp, x, y, _: integrate.trapezoid(y, x)),
    Case("integrate.trapezoid_dx", "integrate", _normal(4, 30),
         lambda xp, y: integrate.trapezoid(y, dx=0.5, axis=1)),
    Case("integrate.cumulative_trapezoid", "integrate", _sorted_points(50),
         lambda xp, x, y, _: integrate.cumulative_trapezoid(y, x, initial=0)),
    Case("integrate.cumulative_simpson", "integrate", _sorted_points(40),
         lambda xp, x, y, _: integrate.cumulative_simpson(y, x=x)),
    Case("integrate.romb", "integrate", _normal(33), lambda xp, y: integrate.romb(y, dx=0.25)),
    Case("integrate.tanhsinh", "integrate", _uniform(0.5, 2.0, 8),
         lambda xp, c: integrate.tanhsinh(lambda t, c: xp.exp(-c * t * t), _f64(xp, 0.0), _f64(xp, 2.0),
                                         args=(c,)).integral,
         tags=MANY_GRAPHS,
         skip_on=_STRICT_SETITEM),
    Case("integrate.nsum", "integrate", _uniform(1.5, 3.0, 6),
         lambda xp, p: integrate.nsum(lambda k, p: 1.0 / k ** p, _f64(xp, 1.0), _f64(xp, math.inf), args=(p,)).sum,
         tags=MANY_GRAPHS,
         skip_on={**_STRICT_SETITEM, **_TORCH_COMPAT}),
    Case("integrate.cubature", "integrate", _uniform(0.5, 1.5, 3),
         lambda xp, c: integrate.cubature(
             lambda x: xp.exp(-xp.sum(x * x, axis=-1, keepdims=True) * c), _f64(xp, [0.0, 0.0]),
             _f64(xp, [1.0, 1.0])).estimate),
]


def _spline_eval(make):
    return lambda xp, x, y, xn: make(xp, x, y)(xn)


INTERPOLATE = [
    Case("interpolate.make_interp_spline", "interpolate", _sorted_points(30),
         _spline_eval(lambda xp, x, y: interpolate.make_interp_spline(x, y, k=3))),
    Case("interpolate.BSpline", "interpolate", _none,
         lambda xp: interpolate.BSpline(_f64(xp, [0, 0, 0, 0, 1, 2, 3, 3, 3, 3]),
                                        _f64(xp, [1.0, -1.0, 2.0, 0.5, 1.5, -0.5]), 3)(
             xp.linspace(0.0, 3.0, 40, dtype=xp.float64))),
    Case("interpolate.BSpline.derivative", "interpolate", _sorted_points(30),
         _spline_eval(lambda xp, x, y: interpolate.make_interp_spline(x, y, k=3).derivative())),
    Case("interpolate.CubicSpline", "interpolate", _sorted_points(30),
         _spline_eval(lambda xp, x, y: interpolate.CubicSpline(x, y))),
    Case("interpolate.CubicHermiteSpline", "interpolate", _sorted_points(30),
         _spline_eval(lambda xp, x, y: interpolate.CubicHermiteSpline(x, y, xp.cos(x)))),
    Case("interpolate.PPoly", "interpolate", _sorted_points(12),
         lambda xp, x, y, xn: interpolate.PPoly(xp.reshape(y[:-1] * 0.1, (1, 11)) + xp.zeros((3, 11),
                                                dtype=xp.float64), x)(xn)),
    Case("interpolate.Akima1DInterpolator", "interpolate", _sorted_points(30),
         _spline_eval(lambda xp, x, y: interpolate.Akima1DInterpolator(x, y)),
         skip_on={"array_api_strict": "SciPy xfails array-api-strict (fancy-index __setitem__)"}),
    Case("interpolate.make_lsq_spline", "interpolate", _sorted_points(60),
         _spline_eval(lambda xp, x, y: interpolate.make_lsq_spline(
             x, y, _f64(xp, [0, 0, 0, 0, 1, 2, 3, 4, 4, 4, 4]), k=3))),
    Case("interpolate.RegularGridInterpolator", "interpolate",
         lambda rng: (rng.standard_normal((8, 9)), rng.uniform(0, 1, (25, 2))),
         lambda xp, v, pts: interpolate.RegularGridInterpolator(
             (xp.linspace(0.0, 1.0, 8, dtype=xp.float64), xp.linspace(0.0, 1.0, 9, dtype=xp.float64)),
             v)(pts)),
    Case("interpolate.RBFInterpolator", "interpolate",
         lambda rng: (rng.uniform(-1, 1, (40, 2)), rng.standard_normal(40), rng.uniform(-1, 1, (20, 2))),
         lambda xp, x, y, xn: interpolate.RBFInterpolator(x, y)(xn),
         skip_on={"array_api_strict": "SciPy skips array-api-strict (needs Array.view)"}),
]

CLUSTER = [
    Case("cluster.vq.whiten", "cluster", _image(40, 3), lambda xp, x: vq.whiten(x)),
    Case("cluster.vq.vq", "cluster", lambda rng: (_blobs(rng), _blobs(rng, 3)),
         lambda xp, obs, code: vq.vq(obs, code)),
    Case("cluster.vq.kmeans2", "cluster", lambda rng: (_blobs(rng), _blobs(rng, 3)),
         lambda xp, obs, init: vq.kmeans2(obs, init, minit="matrix", iter=5)),
    Case("cluster.vq.kmeans", "cluster", lambda rng: (_blobs(rng), _blobs(rng, 3)),
         lambda xp, obs, init: vq.kmeans(obs, init)),
    Case("cluster.hierarchy.linkage", "cluster", lambda rng: (_blobs(rng, 20),),
         lambda xp, x: hierarchy.linkage(x, "average")),
    Case("cluster.hierarchy.ward_fcluster", "cluster", lambda rng: (_blobs(rng, 20),),
         lambda xp, x: hierarchy.fcluster(hierarchy.ward(x), 3, criterion="maxclust")),
    Case("cluster.hierarchy.cophenet", "cluster", lambda rng: (_blobs(rng, 20),),
         lambda xp, x: hierarchy.cophenet(hierarchy.single(x))),
    Case("cluster.hierarchy.is_valid_linkage", "cluster", lambda rng: (_blobs(rng, 20),),
         lambda xp, x: hierarchy.is_valid_linkage(hierarchy.complete(x))),
]

OPTIMIZE = [
    Case("optimize.elementwise.find_root", "optimize", _uniform(1.0, 3.0, 10),
         lambda xp, c: elementwise.find_root(lambda x, c: x ** 3 - c, (_f64(xp, 0.0), _f64(xp, 2.0)),
                                             args=(c,)).x,
         tags=MANY_GRAPHS,
         skip_on=_STRICT_SETITEM),
    Case("optimize.elementwise.bracket_root", "optimize", _uniform(1.0, 3.0, 10),
         lambda xp, c: elementwise.bracket_root(lambda x, c: x - c, _f64(xp, 0.0), args=(c,)).bracket,
         tags=MANY_GRAPHS,
         skip_on={**_STRICT_SETITEM, **_TORCH_COMPAT}),
    Case("optimize.elementwise.find_minimum", "optimize", _uniform(-1.0, 1.0, 10),
         lambda xp, c: elementwise.find_minimum(lambda x, c: (x - c) ** 2 + 1.0,
                                                (_f64(xp, -2.0), _f64(xp, 0.1), _f64(xp, 2.0)),
                                                args=(c,)).x,
         tags=MANY_GRAPHS,
         skip_on=_STRICT_SETITEM),
    Case("optimize.elementwise.bracket_minimum", "optimize", _uniform(-1.0, 1.0, 10),
         lambda xp, c: elementwise.bracket_minimum(lambda x, c: (x - c) ** 2, _f64(xp, 0.3),
                                                   args=(c,)).bracket,
         tags=MANY_GRAPHS,
         skip_on={**_STRICT_SETITEM, **_TORCH_COMPAT}),
    Case("optimize.rosen", "optimize", _uniform(-1, 2, 8), lambda xp, x: optimize.rosen(x)),
    Case("optimize.rosen_der", "optimize", _uniform(-1, 2, 6), lambda xp, x: optimize.rosen_der(x)),
    Case("optimize.rosen_hess", "optimize", _uniform(-1, 2, 6), lambda xp, x: optimize.rosen_hess(x)),
    Case("optimize.rosen_hess_prod", "optimize", _pair_uniform(-1, 2, 6),
         lambda xp, x, p: optimize.rosen_hess_prod(x, p)),
]

DIFFERENTIATE = [
    Case("differentiate.derivative", "differentiate", _uniform(0.0, 2.0, 10),
         lambda xp, x: differentiate.derivative(xp.exp, x).df,
         tags=MANY_GRAPHS,
         skip_on=_STRICT_SETITEM),
    Case("differentiate.derivative_order", "differentiate", _uniform(0.0, 2.0, 10),
         lambda xp, x: differentiate.derivative(xp.sin, x, order=4, initial_step=0.1).df,
         tags=MANY_GRAPHS,
         skip_on=_STRICT_SETITEM),
    Case("differentiate.jacobian", "differentiate", _uniform(0.5, 1.5, 3),
         lambda xp, x: differentiate.jacobian(
             lambda v: xp.stack([v[0] * v[1], xp.sin(v[2]), v[0] ** 2]), x).df,
         atol=1e-12, why="finite differences: entries that are exactly zero come out as ~1e-13 noise",
         tags=MANY_GRAPHS,
         skip_on=_STRICT_SETITEM),
    Case("differentiate.hessian", "differentiate", _uniform(0.5, 1.5, 2),
         lambda xp, x: differentiate.hessian(lambda v: xp.sin(v[0]) * xp.exp(v[1]), x).ddf,
         tags=MANY_GRAPHS,
         skip_on=_STRICT_SETITEM),
]

SPATIAL = [
    Case("spatial.transform.Rotation.as_matrix", "spatial.transform", _quaternions(10),
         lambda xp, q: Rotation.from_quat(q).as_matrix()),
    Case("spatial.transform.Rotation.apply", "spatial.transform",
         lambda rng: (_quaternions(10)(rng)[0], rng.standard_normal((10, 3))),
         lambda xp, q, v: Rotation.from_quat(q).apply(v)),
    Case("spatial.transform.Rotation.as_euler", "spatial.transform", _quaternions(10),
         lambda xp, q: Rotation.from_quat(q).as_euler("zyx")),
    Case("spatial.transform.Rotation.from_euler", "spatial.transform", _uniform(-1, 1, 10, 3),
         lambda xp, a: Rotation.from_euler("xyz", a).as_quat(canonical=True)),
    Case("spatial.transform.Rotation.as_rotvec", "spatial.transform", _quaternions(10),
         lambda xp, q: (Rotation.from_quat(q) * Rotation.from_quat(q[:5, :]).inv()[0]).as_rotvec()),
    Case("spatial.transform.Rotation.from_matrix", "spatial.transform", _quaternions(6),
         lambda xp, q: Rotation.from_matrix(Rotation.from_quat(q).as_matrix()).as_quat(canonical=True)),
    Case("spatial.transform.Rotation.mean", "spatial.transform", _quaternions(10),
         lambda xp, q: Rotation.from_quat(q).mean().as_quat(canonical=True)),
    Case("spatial.transform.RigidTransform.apply", "spatial.transform",
         lambda rng: (_quaternions(5)(rng)[0], rng.standard_normal((5, 3)), rng.standard_normal((5, 3))),
         lambda xp, q, t, v: RigidTransform.from_components(t, Rotation.from_quat(q)).apply(v)),
]


_F32 = dict(rtol=1e-5, atol=1e-6, why="float32 data (eps 1.2e-7): numpy's and XLA's float32 kernels differ by "
                                           "a few ulps (up to ~7e-7 relative measured)")


def _float32(*shape):
    return lambda rng: (rng.standard_normal(shape).astype(np.float32),)


def _complex(*shape):
    return lambda rng: (rng.standard_normal(shape) + 1j * rng.standard_normal(shape),)


def _with_nans(*shape):
    def build(rng):
        x = rng.standard_normal(shape)
        x.flat[rng.choice(x.size, x.size // 10, replace=False)] = np.nan
        return (x,)
    return build


# Other dtypes, NaN policies, keyword variants and a few medium sizes, spread over the modules.
VARIANTS = [
    Case("special.erf_float32", "special", _float32(200), lambda xp, x: special.erf(x), **_F32),
    Case("special.logsumexp_complex", "special", _complex(40),
         lambda xp, x: special.logsumexp(x)),
    Case("special.softmax_float32", "special", _float32(6, 20), lambda xp, x: special.softmax(x, axis=1),
         **_F32),
    Case("stats.describe_axis_none", "stats", _normal(20, 5), lambda xp, x: stats.describe(x, axis=None)),
    Case("stats.moment_keepdims", "stats", _normal(4, 30),
         lambda xp, x: stats.moment(x, order=2, axis=1, keepdims=True)),
    Case("stats.zscore_nan_omit", "stats", _with_nans(40), lambda xp, x: stats.zscore(x, nan_policy="omit")),
    Case("stats.ttest_ind_nan_omit", "stats", _with_nans(2, 40),
         lambda xp, x: stats.ttest_ind(x[0, :], x[1, :] + 0.5, nan_policy="omit")),
    Case("stats.entropy_axis_base", "stats", _uniform(0.1, 1, 5, 8),
         lambda xp, p: stats.entropy(p, base=2, axis=1)),
    Case("stats.gmean_weights", "stats", _pair_uniform(0.5, 3, 40), lambda xp, x, w: stats.gmean(x, weights=w)),
    Case("stats.pearsonr_2d", "stats", lambda rng: (rng.standard_normal((3, 50)), rng.standard_normal((3, 50))),
         lambda xp, a, b: stats.pearsonr(a, a + b, axis=1)),
    Case("stats.quantile_methods", "stats", _normal(3, 40),
         lambda xp, x: tuple(stats.quantile(x, _f64(xp, [0.25, 0.75]), method=m, axis=-1)
                             for m in ("linear", "weibull", "hazen", "inverted_cdf"))),
    Case("signal.convolve_complex", "signal", lambda rng: (_complex(100)(rng)[0], _complex(7)(rng)[0]),
         lambda xp, x, k: signal.convolve(x, k)),
    Case("signal.lfilter_zi", "signal", _normal(100),
         lambda xp, x: signal.lfilter(xp.asarray(_BA_B), xp.asarray(_BA_A), x,
                                      zi=signal.lfilter_zi(xp.asarray(_BA_B), xp.asarray(_BA_A)) * x[0])),
    Case("fft.fft_complex_medium", "fft", _complex(256, 64), lambda xp, x: sfft.fft(x, axis=0)),
    Case("fft.rfft_float32", "fft", _float32(128), lambda xp, x: sfft.rfft(x), **_F32),
    Case("ndimage.gaussian_filter_medium_f32", "ndimage", _float32(128, 128),
         lambda xp, x: ndimage.gaussian_filter(x, 2.0), **_F32),
    Case("ndimage.median_filter_output_view", "ndimage", _image(12, 12),
         lambda xp, x: _into_view(xp, x, lambda out: ndimage.median_filter(x[2:10, 2:10], 3, output=out))),
    Case("integrate.cumulative_trapezoid_axis0", "integrate", _normal(20, 3),
         lambda xp, y: integrate.cumulative_trapezoid(y, dx=0.1, axis=0)),
    Case("interpolate.BSpline_no_extrapolate", "interpolate", _none,
         lambda xp: interpolate.BSpline(_f64(xp, [0, 0, 0, 1, 2, 2, 2]), _f64(xp, [1.0, 2.0, -1.0, 0.5]), 2,
                                        extrapolate=False)(xp.linspace(-0.5, 2.5, 13, dtype=xp.float64))),
    Case("cluster.vq.whiten_float32", "cluster", _float32(30, 3), lambda xp, x: vq.whiten(x), **_F32),
]


def _into_view(xp, x, fill):
    """Run `fill(out)` where `out` is a view (a slice) of a larger preallocated array; return
    the larger array, which must hold the result in the slice and zeros around it."""
    big = xp.zeros((x.shape[0], x.shape[1]), dtype=x.dtype)
    fill(big[2:10, 2:10])
    return big

def _with_output(xp, x, fill):
    """Run `fill(out)` with a preallocated `out` like `x`; return `out` (what a caller reads)."""
    out = xp.zeros_like(x)
    fill(out)
    return out


CASES = SPECIAL + STATS + SIGNAL + FFT + NDIMAGE + INTEGRATE + INTERPOLATE + CLUSTER + OPTIMIZE \
    + DIFFERENTIATE + SPATIAL + VARIANTS


def case_named(name):
    for c in CASES:
        if c.name == name:
            return c
    raise KeyError(f"no SciPy case named {name!r}; known: {', '.join(c.name for c in CASES)}")


# ----------------------------------------------------------------------------- running a case
def inputs(case, xp, seed=0):
    """The case's inputs on `xp` (numpy data from a seeded generator, then `xp.asarray`)."""
    return tuple(xp.asarray(a) for a in case.data(np.random.default_rng(seed)))


def to_numpy(result):
    """`result` with every array converted to numpy: tuples (named ones too) and lists element by
    element, dicts value by value, SciPy result objects by their public array attributes, Python
    and numpy scalars as 0-d arrays."""
    if isinstance(result, (tuple, list)):
        return tuple(to_numpy(r) for r in result)
    if isinstance(result, dict):
        return {k: to_numpy(v) for k, v in result.items()}
    if isinstance(result, (bool, int, float, complex, np.generic, np.ndarray)):
        return np.asarray(result)
    if hasattr(result, "__array_namespace__") or hasattr(result, "__dlpack__"):
        return _array_to_numpy(result)
    attrs = {k: v for k, v in vars(result).items() if not k.startswith("_")} if hasattr(result, "__dict__") else {}
    if attrs:
        return {k: to_numpy(v) for k, v in attrs.items()}
    return np.asarray(result)


def _array_to_numpy(x):
    if hasattr(x, "resolve_conj"):     # torch: conjugate views refuse np.asarray
        x = x.resolve_conj()
    try:
        return np.asarray(x)
    except (TypeError, ValueError, RuntimeError):
        pass
    if hasattr(x, "detach"):           # torch (a conjugate view cannot be read as numpy)
        return x.detach().cpu().resolve_conj().numpy()
    return np.from_dlpack(x)


def skip_reason(case, xp):
    """Why SciPy cannot run `case` on namespace `xp` (None when it can)."""
    name = getattr(xp, "__name__", "")
    for backend, why in case.skip_on.items():
        if backend in name:
            return why
    return None


def run_case(case, xp, seed=0):
    """Run `case` on namespace `xp` and return its result converted to numpy."""
    return to_numpy(case.call(xp, *inputs(case, xp, seed)))
