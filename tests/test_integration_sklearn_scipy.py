"""Array API consumers run on lazyarray unchanged: scikit-learn with array_api_dispatch and SciPy
with SCIPY_ARRAY_API=1 (set in conftest before they are imported)."""
import numpy as np
import pytest

import lazyarray as xp

sklearn = pytest.importorskip("sklearn")


@pytest.fixture
def dispatch():
    with sklearn.config_context(array_api_dispatch=True):
        yield


@pytest.fixture
def data(rng):
    X = rng.standard_normal((300, 6))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 1)
    return X, y


def test_pca_matches_numpy(dispatch, data):
    from sklearn.decomposition import PCA
    X, _ = data
    for solver in ("full", "covariance_eigh"):
        ref = PCA(n_components=3, svd_solver=solver).fit(X)
        got = PCA(n_components=3, svd_solver=solver).fit(xp.asarray(X))
        assert isinstance(got.components_, xp.Array)
        np.testing.assert_allclose(np.abs(np.asarray(got.components_)), np.abs(ref.components_), atol=1e-8)
        np.testing.assert_allclose(np.asarray(got.explained_variance_), ref.explained_variance_, rtol=1e-8)


def test_lda_matches_numpy(dispatch, data):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    X, y = data
    ref = LinearDiscriminantAnalysis().fit(X, y)
    got = LinearDiscriminantAnalysis().fit(xp.asarray(X), xp.asarray(y))
    np.testing.assert_allclose(np.asarray(got.coef_), ref.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(np.asarray(got.predict(xp.asarray(X))), ref.predict(X))


def test_standard_scaler_and_ridge(dispatch, data):
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import StandardScaler
    X, y = data
    Xs_ref = StandardScaler().fit_transform(X)
    Xs = StandardScaler().fit_transform(xp.asarray(X))
    np.testing.assert_allclose(np.asarray(Xs), Xs_ref, rtol=1e-10, atol=1e-12)
    yf = y.astype(np.float64)
    ref = Ridge(alpha=1.0).fit(X, yf)
    got = Ridge(alpha=1.0, solver="svd").fit(xp.asarray(X), xp.asarray(yf))
    np.testing.assert_allclose(np.asarray(got.coef_), ref.coef_, rtol=1e-7, atol=1e-10)


def test_metrics_with_inplace_writes(dispatch, data):
    from sklearn.metrics import accuracy_score, confusion_matrix
    _, y = data
    pred = y.copy()
    pred[::7] = 0
    assert float(accuracy_score(xp.asarray(y), xp.asarray(pred))) == pytest.approx(accuracy_score(y, pred))
    np.testing.assert_array_equal(np.asarray(confusion_matrix(xp.asarray(y), xp.asarray(pred))),
                                  confusion_matrix(y, pred))


def test_scipy_special_and_signal_accept_lazyarray():
    scipy_special = pytest.importorskip("scipy.special")
    x = xp.asarray(np.linspace(-3, 3, 11))
    got = scipy_special.logsumexp(x)
    assert float(got) == pytest.approx(scipy_special.logsumexp(np.linspace(-3, 3, 11)))


@pytest.mark.parametrize("covariance_type", ["full", "spherical"])
def test_gaussian_mixture_matches_numpy(dispatch, covariance_type):
    """Exercises views written in place (_add_to_diagonal) and masked writes in logsumexp; the
    spherical case once gave NaN under XLA's backend optimisation level 0."""
    from sklearn.mixture import GaussianMixture
    rng = np.random.RandomState(0)
    X = np.concatenate([rng.randn(50, 2) + 3, rng.randn(50, 2) - 3])
    kw = dict(n_components=2, covariance_type=covariance_type, init_params="random", random_state=0)
    ref = GaussianMixture(**kw).fit(X)
    got = GaussianMixture(**kw).fit(xp.asarray(X))
    np.testing.assert_allclose(np.asarray(got.weights_), ref.weights_, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got.means_), ref.means_, rtol=1e-6, atol=1e-9)
