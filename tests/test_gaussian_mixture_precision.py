"""GaussianMixture float64 against scikit-learn's value check (issue 12, item 4).

sklearn's `check_array_api_input_and_values` fits GaussianMixture (full covariance) on
make_classification(30 samples, 10 features) and wants the fitted precisions within rtol 1e-7
of numpy's and the score within 1000 eps. That data's covariance has condition number 4.4e6
(reg_covar keeps it invertible), so the check asks for the same roundings as numpy's:

- the interpreter tier evaluates with numpy and passes bit for bit;
- the compiled tier's (1, 30) @ (30, 10) product resp.T @ X (the means) rounds 7 of its 10
  entries 1 ulp away from numpy's (both are within 3 ulp of the exact sums), the covariance
  moves by 4.4e-16 and its inverse's Cholesky factor by 9.6e-8 (relative 1.3e-10 = a few
  cond * eps): numpy's own cholesky + solve_triangular on the compiled covariance moves as far.
  cholesky and solve themselves agree with LAPACK to the last bits.

So what these tests pin down is that the linear algebra is not where the difference comes from.
"""
import numpy as np
import pytest

import lazyarray as xp

sklearn = pytest.importorskip("sklearn")
scipy_linalg = pytest.importorskip("scipy.linalg")


@pytest.fixture
def data():
    from sklearn.datasets import make_classification
    X, _ = make_classification(n_samples=30, n_features=10, random_state=42)
    return X


def _fit(X):
    from sklearn.mixture import GaussianMixture
    est = GaussianMixture(max_iter=5, n_init=2, init_params="random_from_data", random_state=0)
    return est.fit(X)


def _precision_cholesky(covariance):
    """sklearn's numpy path: scipy's cholesky, then solve_triangular against the identity."""
    chol = scipy_linalg.cholesky(covariance, lower=True)
    return scipy_linalg.solve_triangular(chol, np.eye(len(covariance)), lower=True).T


def test_interpreted_tier_passes_sklearns_value_check(monkeypatch):
    from sklearn.mixture import GaussianMixture
    from sklearn.utils.estimator_checks import check_array_api_input_and_values
    monkeypatch.setattr(xp.config, "interpret_first", 10 ** 9)
    xp.clear_cache()
    est = GaussianMixture(max_iter=5, n_init=2, init_params="random_from_data")
    check_array_api_input_and_values("GaussianMixture", est, "lazyarray", dtype_name="float64")


def test_compiled_tier_differs_only_through_the_conditioning(monkeypatch, data):
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    xp.clear_cache()
    ref = _fit(data)
    with sklearn.config_context(array_api_dispatch=True):
        got = sklearn.clone(ref).fit(xp.asarray(data))
    cov = np.asarray(got.covariances_)
    # the means and covariance: a few ulp of numpy's
    np.testing.assert_allclose(np.asarray(got.means_), ref.means_, rtol=0, atol=4 * np.spacing(1.0))
    np.testing.assert_allclose(cov, ref.covariances_, rtol=0, atol=4 * np.spacing(4.0))
    # lazyarray's cholesky + solve on its covariance = LAPACK's on the same covariance
    mine = np.asarray(got.precisions_cholesky_)[0]
    lapack = _precision_cholesky(cov[0])
    scale = np.abs(lapack).max()
    assert np.abs(mine - lapack).max() <= 10 * np.finfo(float).eps * scale
    # and the distance to numpy's fit is what the condition number allows for those inputs
    cond = np.linalg.cond(ref.covariances_[0])
    assert cond > 1e6
    far = np.abs(mine - ref.precisions_cholesky_[0]).max()
    assert far <= 10 * cond * np.finfo(float).eps * scale
