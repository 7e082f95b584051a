"""The scikit-learn estimator configurations that run on Array API arrays (issue 11 target 1).

Two sources, so the table follows scikit-learn instead of a hand-kept list:

- discovered: every class of `sklearn.utils.all_estimators()` whose default construction has
  `get_tags(est).array_api_support` true (meta-estimators that need a sub-estimator cannot be
  default-constructed and come from the second list);
- parameter-dependent: configurations whose tag depends on their parameters (LDA's solvers, Ridge's
  and RidgeCV's solvers, PCA's solvers, GaussianMixture's init_params, CalibratedClassifierCV with
  method="temperature", FeatureUnion, a Pipeline, multiclass LogisticRegression). Each is checked
  against its tag; one whose tag is false is dropped with the reason (`dropped()`).

A configuration is a name, a constructor, the kind of data it fits (300x8 binary or 3-class
classification, regression, a positive target, a kernel matrix, labels alone) and the methods
called after `fit`: those of predict / transform / score / predict_proba / decision_function
that the estimator has. `run_config(cfg, data)` fits a fresh estimator and calls each method,
returning the results for the caller to force (read back to numpy).
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Callable

os.environ.setdefault("SCIPY_ARRAY_API", "1")   # scikit-learn's array API paths need it at import

import numpy as np

METHODS = ("predict", "transform", "score", "predict_proba", "decision_function")
N_SAMPLES, N_FEATURES = 300, 8


@dataclass(frozen=True)
class Config:
    """One estimator configuration. `make()` -> an unfitted estimator; `data` names the input:
    "binary", "multiclass" (3 classes), "regression", "poisson" (positive target), "kernel" (a
    300x300 Gram matrix, no target), "unsupervised" (X only), "labels" (fit/transform on y)."""
    name: str
    make: Callable
    data: str
    methods: tuple
    source: str          # "discovered" or "parameter-dependent"

    def __repr__(self):
        return f"Config({self.name})"


def _methods(est):
    return tuple(m for m in METHODS if hasattr(est, m))


def _data_kind(name, est):
    from sklearn.base import is_classifier, is_regressor
    if name == "KernelCenterer":
        return "kernel"
    if name == "LabelEncoder":
        return "labels"
    if name == "PoissonRegressor":
        return "poisson"
    if is_classifier(est):
        return "binary"
    if is_regressor(est):
        return "regression"
    return "unsupervised"


def discovered():
    """Configurations from all_estimators(): default-constructed, tag array_api_support true."""
    from sklearn.utils import all_estimators, get_tags
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, cls in all_estimators():
            try:
                est = cls()
                supported = get_tags(est).array_api_support
            except Exception:  # noqa: BLE001 - needs a sub-estimator / no tags: not default-usable
                continue
            if supported:
                out.append(Config(name, cls, _data_kind(name, est), _methods(est), "discovered"))
    return out


def _parameter_dependent():
    """(name, constructor, data kind) of the configurations whose tag depends on parameters."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as LDA
    from sklearn.linear_model import LogisticRegression, Ridge, RidgeCV
    from sklearn.mixture import GaussianMixture
    from sklearn.pipeline import FeatureUnion, Pipeline
    from sklearn.preprocessing import StandardScaler
    return [
        ("LDA(solver=svd)", lambda: LDA(solver="svd"), "binary"),
        ("LDA(solver=eigen)", lambda: LDA(solver="eigen"), "binary"),
        ("LDA(solver=eigen, shrinkage=auto)", lambda: LDA(solver="eigen", shrinkage="auto"), "binary"),
        ("LDA(solver=svd) 3 classes", lambda: LDA(solver="svd"), "multiclass"),
        ("Ridge(solver=svd)", lambda: Ridge(solver="svd"), "regression"),
        ("Ridge(solver=auto)", lambda: Ridge(solver="auto"), "regression"),
        ("Ridge(solver=cholesky)", lambda: Ridge(solver="cholesky"), "regression"),
        ("RidgeCV(gcv_mode=svd)", lambda: RidgeCV(gcv_mode="svd"), "regression"),
        ("RidgeCV(gcv_mode=eigen)", lambda: RidgeCV(gcv_mode="eigen"), "regression"),
        ("PCA(svd_solver=full)", lambda: PCA(3, svd_solver="full"), "unsupervised"),
        ("PCA(svd_solver=covariance_eigh)", lambda: PCA(3, svd_solver="covariance_eigh"), "unsupervised"),
        ("PCA(svd_solver=randomized, QR)",
         lambda: PCA(3, svd_solver="randomized", power_iteration_normalizer="QR", random_state=0),
         "unsupervised"),
        ("PCA(whiten=True)", lambda: PCA(3, whiten=True), "unsupervised"),
        ("GaussianMixture(random, full)",
         lambda: GaussianMixture(3, init_params="random", covariance_type="full", random_state=0),
         "unsupervised"),
        ("GaussianMixture(random_from_data, diag)",
         lambda: GaussianMixture(3, init_params="random_from_data", covariance_type="diag", random_state=0),
         "unsupervised"),
        ("GaussianMixture(random, tied)",
         lambda: GaussianMixture(3, init_params="random", covariance_type="tied", random_state=0),
         "unsupervised"),
        ("GaussianMixture(random_from_data, spherical)",
         lambda: GaussianMixture(3, init_params="random_from_data", covariance_type="spherical",
                                 random_state=0),
         "unsupervised"),
        ("CalibratedClassifierCV(LogisticRegression, temperature)",
         lambda: CalibratedClassifierCV(LogisticRegression(), method="temperature"), "binary"),
        ("FeatureUnion(StandardScaler, PCA(3))",
         lambda: FeatureUnion([("scale", StandardScaler()), ("pca", PCA(3))]), "unsupervised"),
        ("Pipeline(StandardScaler, PCA(3), LogisticRegression)",
         lambda: Pipeline([("scale", StandardScaler()), ("pca", PCA(3)), ("clf", LogisticRegression())]),
         "binary"),
        ("LogisticRegression 3 classes", lambda: LogisticRegression(), "multiclass"),
    ]


_DROPPED = []


def parameter_dependent():
    """The parameter-dependent configurations whose tag is true (the others go to `dropped()`).
    Ridge's tag is true whatever the solver, though scikit-learn runs only 'svd' off numpy: its
    cholesky row is kept so the table shows that (it fails on the other peers and is excluded)."""
    from sklearn.utils import get_tags
    out = []
    _DROPPED.clear()
    for name, make, kind in _parameter_dependent():
        est = make()
        if not get_tags(est).array_api_support:
            _DROPPED.append((name, "array_api_support tag is false"))
            continue
        out.append(Config(name, make, kind, _methods(est), "parameter-dependent"))
    return out


def dropped():
    return list(_DROPPED)


def configs():
    """Every configuration: the discovered ones, then the parameter-dependent ones."""
    return discovered() + parameter_dependent()


# ----------------------------------------------------------------------------- data and calls

def make_data(n=N_SAMPLES, d=N_FEATURES, seed=0):
    """numpy inputs (float64; the caller casts X and the float targets): X, binary labels,
    3-class labels, regression target, positive (Poisson) target."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    z = X @ w
    return {
        "X": X,
        "binary": (z + 0.5 * rng.standard_normal(n) > 0).astype(np.int64),
        "multiclass": np.digitize(z + 0.5 * rng.standard_normal(n), np.quantile(z, [1 / 3, 2 / 3])),
        "regression": z + 0.1 * rng.standard_normal(n),
        "poisson": rng.poisson(np.exp(0.3 * z / np.abs(z).max())).astype(np.float64),
    }


def to_namespace(data, xp, dtype):
    """`data` (from make_data) as `xp` arrays: X and the float targets in `dtype` (a name),
    labels int64, plus the kernel matrix X @ X.T."""
    fdt = getattr(xp, dtype)
    X = xp.asarray(data["X"], dtype=fdt)
    out = {"X": X, "K": xp.asarray(data["X"] @ data["X"].T, dtype=fdt)}
    for k in ("binary", "multiclass"):
        out[k] = xp.asarray(data[k], dtype=xp.int64)
    for k in ("regression", "poisson"):
        out[k] = xp.asarray(data[k], dtype=fdt)
    return out


def run_config(cfg, arrays):
    """Fit a fresh estimator of `cfg` on `arrays` (from to_namespace) and call its methods;
    returns the list of results (arrays or floats), not yet forced."""
    est = cfg.make()
    kind = cfg.data
    if kind == "labels":
        y = arrays["binary"]
        return [est.fit(y).transform(y)]
    X = arrays["K"] if kind == "kernel" else arrays["X"]
    y = arrays[kind] if kind in ("binary", "multiclass", "regression", "poisson") else None
    est.fit(X) if y is None else est.fit(X, y)
    out = []
    for m in cfg.methods:
        if m == "score":
            out.append(est.score(X) if y is None else est.score(X, y))
        else:
            out.append(getattr(est, m)(X))
    return out
