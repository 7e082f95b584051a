"""numpy's ufuncs on our arrays return our arrays (`_array_ufunc`), with numpy's values."""
import numpy as np
import pytest

import lazyarray as xp

special = pytest.importorskip("scipy.special")

A = np.array([0.25, 1.5, -2.0, 3.0])
B = np.array([1.0, -0.5, 2.0, 0.75])


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.divide, np.power, np.arctan2,
                                   np.maximum, np.hypot, np.less_equal, np.logaddexp])
def test_binary_ufunc_equals_numpy(ufunc):
    r = ufunc(xp.asarray(A), xp.asarray(B))
    assert isinstance(r, xp.Array)
    np.testing.assert_allclose(np.asarray(r), ufunc(A, B), rtol=1e-14)
    assert np.asarray(r).dtype == ufunc(A, B).dtype


@pytest.mark.parametrize("ufunc", [np.sin, np.exp, np.absolute, np.arcsinh, np.isnan, np.negative,
                                   np.sqrt, np.square, np.conjugate])
def test_unary_ufunc_equals_numpy(ufunc):
    x = np.abs(A) if ufunc is np.sqrt else A
    r = ufunc(xp.asarray(x))
    assert isinstance(r, xp.Array)
    np.testing.assert_allclose(np.asarray(r), ufunc(x), rtol=1e-14)


def test_mapped_ufunc_stays_lazy():
    """np.sin of a pending array builds a node: nothing is computed until a read."""
    x = xp.asarray(A) * 2.0
    r = np.sin(x)
    assert r._node.op is not None  # still a pending graph node
    np.testing.assert_allclose(np.asarray(r), np.sin(A * 2.0), rtol=1e-14)


def test_cython_ufunc_returns_our_array():
    r = special.erf(xp.asarray([6.0, 7.0]))
    assert isinstance(r, xp.Array)
    np.testing.assert_array_equal(np.asarray(r), special.erf(np.array([6.0, 7.0])))


def test_methods_and_keywords_are_numpy_computed():
    x = xp.asarray(A)
    r = np.add.reduce(x)
    assert isinstance(r, xp.Array) and r.shape == ()
    assert float(r) == np.add.reduce(A)
    acc = np.multiply.accumulate(x)
    np.testing.assert_array_equal(np.asarray(acc), np.multiply.accumulate(A))
    w = np.add(x, 1.0, where=np.asarray([True, False, True, False]), out=np.zeros(4))
    assert isinstance(w, np.ndarray)
    np.testing.assert_array_equal(w, [A[0] + 1, 0, A[2] + 1, 0])


def test_mixed_kinds_follow_numpy_promotion():
    i = np.array([1, 2], dtype=np.int32)
    f = np.array([0.5, 1.5], dtype=np.float32)
    r = np.add(xp.asarray(i), xp.asarray(f))
    assert np.asarray(r).dtype == np.add(i, f).dtype  # float64: numpy's rule
    np.testing.assert_array_equal(np.asarray(r), np.add(i, f))


def test_out_our_array_is_written():
    x = xp.asarray(A)
    r = np.add(x, 1.0, out=x)
    assert r is x
    np.testing.assert_array_equal(np.asarray(x), A + 1.0)
    y = xp.zeros(4)
    np.sin(xp.asarray(A), out=(y,))
    np.testing.assert_array_equal(np.asarray(y), np.sin(A))


def test_numpy_inplace_into_numpy_stays_numpy():
    a = np.ones(4)
    a += xp.asarray(A)
    assert isinstance(a, np.ndarray)
    np.testing.assert_array_equal(a, 1.0 + A)


def test_numpy_scalar_operands_keep_behaviour():
    x = xp.asarray(A)
    for r in (np.float64(2.0) * x, x * np.float64(2.0), np.float32(2.0) * x):
        assert isinstance(r, xp.Array)
        np.testing.assert_array_equal(np.asarray(r), A * 2.0)


def test_object_results_are_returned_as_numpy():
    x = xp.asarray(A)
    r = np.frompyfunc(lambda v: str(v), 1, 1)(x)
    assert isinstance(r, np.ndarray) and r.dtype == object
