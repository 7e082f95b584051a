"""lazyarray under scikit-learn and SciPy, unchanged: a pipeline (StandardScaler, PCA,
LogisticRegression) fitted on lazyarray inputs (scikit-learn's array-API dispatch) and a few SciPy
calls (SCIPY_ARRAY_API=1), each checked against the same code on numpy and followed by the
metrics report of what it ran.

    bash bin/setup.sh && .venv/bin/python examples/with_sklearn_scipy.py
"""
import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before SciPy is imported

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from scipy import signal, special, stats  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import lazyarray as xp  # noqa: E402


def pipeline_scores(X, y):
    model = make_pipeline(StandardScaler(), PCA(n_components=10, svd_solver="full"),
                          LogisticRegression())
    model.fit(X, y)
    return float(model.score(X, y)), model.predict(X[:5])


def scipy_calls(m, x):
    """The same SciPy calls on the namespace m's arrays."""
    a = m.asarray(x)
    return {
        "special.erf": special.erf(a),
        "stats.zscore": stats.zscore(a),
        "signal.oaconvolve": signal.oaconvolve(a, m.asarray([1.0, -2.0, 1.0])),
        "special.logsumexp": special.logsumexp(a),
    }


def main():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 20))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)

    score_np, pred_np = pipeline_scores(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        score_xp, pred_xp = pipeline_scores(xp.asarray(X), xp.asarray(y))
    assert abs(score_xp - score_np) < 1e-12, (score_xp, score_np)
    assert np.array_equal(np.asarray(pred_xp), pred_np)
    print(f"scikit-learn StandardScaler + PCA + LogisticRegression on lazyarray: accuracy "
          f"{score_xp:.4f}, matches numpy")
    print(xp.report())
    xp.metrics.reset()

    x = rng.standard_normal(300)
    want, got = scipy_calls(np, x), scipy_calls(xp, x)
    for name in want:
        np.testing.assert_allclose(np.asarray(got[name]), want[name], rtol=1e-12, atol=1e-12)
        assert isinstance(got[name], type(xp.asarray(0.0))), name  # results stay lazyarray arrays
    print(f"SciPy {', '.join(want)} on lazyarray: match numpy")
    print(xp.report())


if __name__ == "__main__":
    main()
