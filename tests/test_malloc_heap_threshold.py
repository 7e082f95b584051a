"""`_heap_threshold`: at import, glibc's dynamic malloc thresholds are raised to the size of the
host tier's temporaries, so megabyte temporaries stop faulting in fresh pages on every call (issue
11, targets 1 and 8). Faults are counted with `resource.getrusage` (a count, not a timing), each
case in a fresh process so glibc's thresholds start where a user's process starts."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from lazyarray import _config, _heap_threshold

glibc = pytest.mark.skipif(_heap_threshold._glibc() is None, reason="the C library is not glibc")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Three 2 MB temporaries (5000x50 float64) alive at once, then freed, as the interpreter's
# schedule of a scikit-learn call on 5000x50 data does; the same steps through lazyarray's
# interpreter tier (kept there: it never compiles), checked against numpy's values.
CHILD = r"""
import json, resource, sys
import numpy as np
import lazyarray as xp

def np_step(x):
    a = x * 2.0
    b = a + x
    c = np.sqrt(np.abs(b))
    return float(c[0, 0] + c[-1, -1])

def xp_step(x):
    a = x * 2.0
    b = a + x
    c = xp.sqrt(xp.abs(b))
    return xp.asarray(c[::1000, :]), float(xp.sum(c[0, :]))

def faults(fn, x):
    for _ in range(5):
        fn(x)
    r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        out = fn(x)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0) / 20, out

xn = np.random.default_rng(0).standard_normal((5000, 50))
np_faults, _ = faults(np_step, xn)
xp_faults, (rows, s) = faults(xp_step, xp.asarray(xn))
print(json.dumps({"numpy": np_faults, "lazyarray": xp_faults, "rows": np.asarray(rows).tolist(), "sum": s,
                  "compiles": xp.metrics.compiles + xp.metrics.background_compiles,
                  "interpreted": xp.metrics.interpreted}))
"""


def _child(**env):
    e = dict(os.environ, PYTHONPATH=ROOT, LAZYARRAY_INTERPRET_FIRST="1000000000", LAZYARRAY_CACHE_DIR="0")
    for k in ("LAZYARRAY_HEAP_THRESHOLD", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"):
        e.pop(k, None)
    e.update(env)
    r = subprocess.run([sys.executable, "-c", CHILD], env=e, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def _expected():
    xn = np.random.default_rng(0).standard_normal((5000, 50))
    c = np.sqrt(np.abs(xn * 2.0 + xn))
    return c[::1000, :], float(np.sum(c[0, :]))


@glibc
def test_megabyte_temporaries_reuse_the_heap_after_import():
    out = _child()
    # with LAZYARRAY_HEAP_THRESHOLD=0, ~1,900 faults a numpy step here and ~120 a lazyarray step
    # (each 2 MB array mmapped or the heap regrown afresh); with it, 0 and ~25
    assert out["numpy"] < 50, out
    assert out["lazyarray"] < 60, out
    assert out["compiles"] == 0 and out["interpreted"] >= 25  # the interpreter's temporaries
    rows, s = _expected()
    np.testing.assert_array_equal(np.asarray(out["rows"]), rows)
    assert out["sum"] == pytest.approx(s, rel=1e-12)


@glibc
def test_a_threshold_the_user_fixed_is_left_alone():
    # a fixed mmap threshold switches glibc's dynamic thresholds off: every 2 MB array is mmapped
    # and faulted in again (~490 faults each), with lazyarray imported as without it
    out = _child(MALLOC_MMAP_THRESHOLD_="131072")
    assert out["numpy"] > 3 * 400, out


@glibc
def test_opt_out_and_sizes(monkeypatch):
    monkeypatch.setattr(_config, "heap_threshold", 0)
    assert not _heap_threshold.raise_thresholds()
    assert not _heap_threshold.raise_thresholds(-1)
    assert _heap_threshold.raise_thresholds(1 << 20)
    assert _heap_threshold.raise_thresholds(1 << 40)  # capped at glibc's ceiling, never a huge block
    monkeypatch.setattr(_config, "heap_threshold", 4 << 20)
    assert _heap_threshold.raise_thresholds()


def test_other_c_libraries_do_nothing(monkeypatch):
    monkeypatch.setattr(_heap_threshold, "_glibc", lambda: None)
    assert not _heap_threshold.raise_thresholds(4 << 20)
