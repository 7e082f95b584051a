"""What a process's first decomposition no longer pays on its main thread (target 2's Ridge row).

- `_ops.lapack_host` is imported with the package (it was imported by the first decomposition,
  inside the consumer's first call: 3-10 ms of compiling its source without a bytecode cache),
  and importing lazyarray still imports no SciPy: SciPy's LAPACK module is loaded at the first
  LAPACK call.
- A command whose last run left learnt costs but no programs (every graph interpreted, as
  Ridge's) hashes lazyarray's sources on the compile thread from import on
  (`_prefetch._hash_sources_if_costs_learnt`): its first tier decision named an entry and paid
  that hash (~5 ms) on the main thread. A first run (no costs yet) does not hash at import.
"""
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(code, env_extra):
    env = dict(os.environ, **env_extra)
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout.strip().splitlines()[-1]


def test_import_loads_lapack_host_but_no_scipy():
    out = _run("import sys, lazyarray; "
               "print(sorted(m for m in ('lazyarray._ops.lapack_host', 'scipy', 'scipy.linalg') if m in sys.modules))",
               {"LAZYARRAY_CACHE_DIR": "0"})
    assert out == "['lazyarray._ops.lapack_host']"


def test_first_decomposition_imports_nothing():
    code = (
        "import sys, numpy as np, lazyarray as xp\n"
        "a = np.random.default_rng(0).standard_normal((60, 6))\n"
        "before = set(sys.modules)\n"
        "u, s, vt = xp.linalg.svd(xp.asarray(a), full_matrices=False)\n"
        "got = np.asarray(s)\n"
        "new = sorted(m for m in set(sys.modules) - before if m.startswith('lazyarray'))\n"
        "ok = np.allclose(got, np.linalg.svd(a, compute_uv=False), rtol=1e-12)\n"
        "print(new, ok)\n")
    assert _run(code, {"LAZYARRAY_CACHE_DIR": "0"}) == "[] True"


_HASH_PROBE = """
import os, numpy as np
import lazyarray as xp
from lazyarray import _structural_key as sk
from lazyarray._engine_state import state
state.compile_thread().submit(lambda: None).result()  # what was queued at import has run
hashed = sk._fingerprint
sk._fingerprint = None
fresh = sk.code_fingerprint()
x = xp.asarray(np.arange(5000.0))
for i in range(6):  # interpreted graphs: the run leaves learnt costs, no programs
    float(xp.sum(xp.sin(x) * 2.0 + i))
print(hashed is not None, hashed in (None, fresh))
"""


def test_sources_hashed_at_import_when_costs_were_learnt(tmp_path):
    env = {"LAZYARRAY_CACHE_DIR": str(tmp_path)}
    assert _run(_HASH_PROBE, env) == "False True"  # first run: nothing learnt yet, nothing hashed
    costs = [f for f in os.listdir(tmp_path / "manifests") if f.endswith(".costs")]
    programs = [f for f in os.listdir(tmp_path / "manifests") if f.endswith(".txt")]
    assert costs and not programs
    assert _run(_HASH_PROBE, env) == "True True"  # second run: hashed on the compile thread, same value
