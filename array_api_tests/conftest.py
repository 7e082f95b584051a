import os
import sys

# checked mode: out-of-bounds index arrays and failed factorisations raise at the read
os.environ.setdefault("LAZYARRAY_CHECKS", "1")
# the graph verifier: every sync re-checks each node's shape/dtype rule before it runs
os.environ.setdefault("LAZYARRAY_VERIFY", "1")
# the on-disk compile cache: a per-session temp dir, never the user's home cache
if "LAZYARRAY_CACHE_DIR" not in os.environ:
    import atexit, shutil, tempfile
    os.environ["LAZYARRAY_CACHE_DIR"] = tempfile.mkdtemp(prefix="lazyarray-test-cache-")
    atexit.register(shutil.rmtree, os.environ["LAZYARRAY_CACHE_DIR"], True)
if "lazyarray" in sys.modules:  # imported before this file: set the switches themselves
    sys.modules["lazyarray"].config.checks = os.environ["LAZYARRAY_CHECKS"] not in ("", "0")
    sys.modules["lazyarray"].config.verify = os.environ["LAZYARRAY_VERIFY"] not in ("", "0")

from hypothesis import HealthCheck, settings

from ._support import API_VERSION, NS_NAME, xp

settings.register_profile(
    "lazyarray-conformance",
    max_examples=int(os.environ.get("LAZYARRAY_TEST_MAX_EXAMPLES", "20")),
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)
settings.load_profile("lazyarray-conformance")


def pytest_report_header(config):
    version = getattr(xp, "__version__", "?")
    return (f"array API conformance: namespace {NS_NAME} ({version}), "
            f"holding it to the {API_VERSION} standard")


def pytest_collection_modifyitems(config, items):
    # numpy (the oracle, and array_api_strict underneath) warns on log(0), 0/0 and friends:
    # those values are on purpose here.
    import pytest

    for item in items:
        if "array_api_tests" in str(item.fspath):
            item.add_marker(pytest.mark.filterwarnings("ignore::RuntimeWarning"))
