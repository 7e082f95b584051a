"""The consumers benchmark's pieces (issue 11 target 1): the scikit-learn configuration table
follows scikit-learn's tags and computes what scikit-learn computes on plain numpy, lazyarray's
results through it equal numpy's, and the judging (exclusions, PyTorch's best thread setting,
the verdicts) does what benchmarks/consumers.py's docstring says. Nothing here is timed."""
from __future__ import annotations

import os
import warnings

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

from benchmarks import consumers                      # noqa: E402
from benchmarks import sklearn_configs as sc          # noqa: E402
from benchmarks.scipy_calls import to_numpy           # noqa: E402


@pytest.fixture(scope="module")
def configs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {c.name: c for c in sc.configs()}


def test_table_follows_the_tags(configs):
    from sklearn.utils import get_tags
    for name in ("StandardScaler", "PCA", "Ridge", "LogisticRegression", "GaussianNB",
                 "LDA(solver=eigen)", "GaussianMixture(random, full)",
                 "CalibratedClassifierCV(LogisticRegression, temperature)"):
        assert name in configs, name
    for cfg in configs.values():
        assert get_tags(cfg.make()).array_api_support, cfg.name
        assert cfg.methods, cfg.name
    # GaussianMixture's default init_params is k-means: tag false, so not discovered by default
    assert "GaussianMixture" not in configs
    assert configs["LinearDiscriminantAnalysis"].methods == sc.METHODS


@pytest.mark.parametrize("name", ["Ridge(solver=svd)", "LDA(solver=svd) 3 classes", "PCA(svd_solver=full)",
                                  "LogisticRegression 3 classes", "KernelCenterer", "PoissonRegressor"])
def test_run_config_is_what_sklearn_gives_on_numpy(configs, name):
    cfg = configs[name]
    data = sc.make_data()
    with sklearn.config_context(array_api_dispatch=False):
        got = [to_numpy(r) for r in sc.run_config(cfg, sc.to_namespace(data, np, "float64"))]
        est = cfg.make()
        X = data["X"] @ data["X"].T if cfg.data == "kernel" else data["X"]
        y = data.get(cfg.data)
        est.fit(X) if y is None else est.fit(X, y)
        want = [est.score(X) if m == "score" and y is None else
                est.score(X, y) if m == "score" else getattr(est, m)(X) for m in cfg.methods]
    assert len(got) == len(want) == len(cfg.methods)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["StandardScaler", "Ridge(solver=svd)", "LDA(solver=svd)"])
def test_run_config_on_lazyarray_equals_numpy(configs, name):
    import lazyarray as xp
    cfg = configs[name]
    data = sc.make_data()
    with sklearn.config_context(array_api_dispatch=True):
        got = [to_numpy(r) for r in sc.run_config(cfg, sc.to_namespace(data, xp, "float64"))]
        want = [to_numpy(r) for r in sc.run_config(cfg, sc.to_namespace(data, np, "float64"))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def _peer(first, second, errors=None, threads="t"):
    return {"first": first, "second": second, "errors": errors or {}, "threads": threads, "ready_s": 0.0}


def _synthetic():
    """numpy 1+2 s, strict slower, torch-2t slower than torch-1t, item c fails on strict."""
    return {
        "numpy": _peer({"a": 1.0, "b": 2.0, "c": 5.0}, {"a": 1.0, "b": 1.0, "c": 5.0}),
        "strict": _peer({"a": 2.0, "b": 2.0}, {"a": 2.0, "b": 2.0}, {"c": "TypeError: x"}),
        "torch-1t": _peer({"a": 1.0, "b": 1.0, "c": 1.0}, {"a": 0.5, "b": 0.5, "c": 1.0}),
        "torch-2t": _peer({"a": 4.0, "b": 4.0, "c": 1.0}, {"a": 2.0, "b": 2.0, "c": 1.0}),
        "lazyarray": _peer({"a": 6.0, "b": 4.0, "c": 9.0}, {"a": 1.5, "b": 1.0, "c": 9.0}),
    }


def test_failed_item_is_excluded_from_every_peer():
    s = consumers.sums(_synthetic())
    assert s["numpy"] == (3.0, 2.0, 2)
    assert s["lazyarray"] == (10.0, 2.5, 2)
    assert s["torch-1t"] == (2.0, 1.0, 2)


def test_verdicts_use_torch_at_its_best_setting():
    res = {"config": {"first_ratio": 3.0}, "scipy": _synthetic()}
    v = {what: verdict for what, verdict, _ in consumers.verdicts(res)}
    first = next(k for k in v if "first call" in k)
    strict = next(k for k in v if "array-api-strict" in k)
    torch = next(k for k in v if "PyTorch" in k)
    assert v[first] == "MISS"        # 10 s > 3 x 3 s
    assert v[strict] == "PASS"       # 2.5 s <= 4 s
    assert v[torch] == "MISS" and "torch-1t" in torch   # best = torch-1t's 1 s < 2.5 s
    top = consumers.offenders(_synthetic(), top=1)
    assert top[0][1] == "a" and top[0][0] == 6.0      # 6 s / 1 s; c is 9/5
    md = consumers.markdown(res)
    assert "`c`: strict: TypeError: x" in md and "**MISS**" in md
