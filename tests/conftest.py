import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before anything imports scipy or sklearn

import numpy as np
import pytest

import lazyarray as xp


@pytest.fixture
def fresh():
    """Empty compile cache and zeroed metrics, so a test can count compiles."""
    xp.clear_cache()
    xp.metrics.reset()
    yield xp.metrics


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
