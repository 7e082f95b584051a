"""The 5000x50 Pipeline and Ridge rows of benchmarks.consumers, with lazyarray's OpenBLAS thread
policy (`lazyarray._blas_threads`) on and off, in alternating fresh processes.

    .venv/bin/python -m benchmarks.blas_threads [--processes 3] [--calls 4] [--dtype float64]

"off" is LAZYARRAY_BLAS_THREADS=own: every OpenBLAS on its own thread count, what lazyarray did
before the policy.
Each process gets an empty compile cache. Prints per process the call times (ms) and the load
average, then medians of calls 2.. per setting.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child(policy, calls, dtype):
    import time
    import warnings
    warnings.simplefilter("ignore")
    import numpy as np
    import lazyarray as xp
    from lazyarray import _blas_threads
    assert _blas_threads.MODE == ("own" if policy == "off" else "auto")
    import sklearn
    from benchmarks.consumers import big_workloads
    sklearn.set_config(array_api_dispatch=True)
    out = {}
    for name, fn in big_workloads(xp, dtype, np.asarray):
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            fn()
            times.append(round((time.perf_counter() - t0) * 1e3, 1))
        out[name] = times
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=3, help="fresh processes per setting")
    ap.add_argument("--calls", type=int, default=4)
    ap.add_argument("--dtype", default="float64")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.calls, args.dtype)
    later = {"on": {"pipeline": [], "ridge": []}, "off": {"pipeline": [], "ridge": []}}
    for k in range(args.processes):
        for policy in ("on", "off") if k % 2 == 0 else ("off", "on"):
            with tempfile.TemporaryDirectory(prefix="lazyarray-blas-threads-") as cache:
                env = dict(os.environ, LAZYARRAY_CACHE_DIR=cache, SCIPY_ARRAY_API="1",
                           LAZYARRAY_BLAS_THREADS="own" if policy == "off" else "auto")
                proc = subprocess.run([sys.executable, "-m", "benchmarks.blas_threads", "--child", policy,
                                       "--calls", str(args.calls), "--dtype", args.dtype],
                                      cwd=ROOT, env=env, capture_output=True, text=True, check=True)
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"policy {policy:3s} load {os.getloadavg()[0]:4.1f}  {res}", flush=True)
            for name, times in res.items():
                later[policy].setdefault(name, []).extend(times[1:])
    for policy, rows in later.items():
        print(policy, {name: f"median of calls 2..: {statistics.median(v):.1f} ms" for name, v in rows.items()})


if __name__ == "__main__":
    main()
