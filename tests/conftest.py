import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before anything imports scipy or sklearn
# checked mode: out-of-bounds index arrays and failed factorisations raise at the read
os.environ.setdefault("LAZYARRAY_CHECKS", "1")

import numpy as np
import pytest

import lazyarray as xp

xp.config.checks = os.environ["LAZYARRAY_CHECKS"] not in ("", "0")  # (if imported before us)


@pytest.fixture
def fresh(monkeypatch):
    """Empty compile cache and zeroed metrics, so a test can count compiles; every graph is
    compiled at first sight (no interpreter tier: tests/test_tiers.py covers it)."""
    from lazyarray import _config
    monkeypatch.setattr(_config, "interpret_first", 0)
    xp.clear_cache()  # waits for background compiles, which would count in the new metrics
    xp.metrics.reset()
    yield xp.metrics


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(params=["compiled", "interpreted"])
def both_tiers(request, monkeypatch):
    """Run a test in both tiers: compiled at first sight, and the numpy interpreter. A module
    opts in with `pytestmark = pytest.mark.usefixtures("both_tiers")`."""
    monkeypatch.setattr(xp.config, "interpret_first", 0 if request.param == "compiled" else 2)
    return request.param
