"""What turning off XLA's algebraic simplifier costs (issue 9, item 2): lazyarray's steady-state
time for the benchmark workloads, compiled (`LAZYARRAY_INTERPRET_FIRST=0`), with the simplifier
off (our default: values never depend on where the user reads) and back on
(`LAZYARRAY_XLA_SIMPLIFIER=1`). Each setting runs in its own process; medians of the repeats.

    .venv/bin/python -m benchmarks.simplifier_cost [--reps N] [--only NAME,...]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def _child(only, reps):
    import lazyarray as xp
    from benchmarks import workloads as W
    out = {}
    for w in W.select(W.build(quick=True), only):
        if w.sklearn:
            continue
        args = [xp.asarray(a) for a in w.make(np.random.default_rng(0))]

        def once():
            r = w.fn(xp, *args)
            xp.evaluate(*(r if isinstance(r, tuple) else (r,)))
        t0 = time.perf_counter()
        once()  # compiles
        cold = time.perf_counter() - t0
        for _ in range(2):
            once()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            once()
            times.append(time.perf_counter() - t0)
        out[w.name] = {"median_ms": 1e3 * statistics.median(times), "cold_ms": 1e3 * cold}
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--only", default="")
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    if a.child:
        return _child(a.only, a.reps)
    results = {}
    for setting in ("0", "1"):
        env = dict(os.environ, LAZYARRAY_INTERPRET_FIRST="0", LAZYARRAY_XLA_SIMPLIFIER=setting)
        env["LAZYARRAY_CACHE_DIR"] = "0"  # no disk cache: every compile is cold
        cmd = [sys.executable, "-m", "benchmarks.simplifier_cost", "--child", "--reps", str(a.reps)]
        if a.only:
            cmd += ["--only", a.only]
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        results[setting] = json.loads(res.stdout.strip().splitlines()[-1])
    print("| workload | simplifier on (ms) | off, our default (ms) | off / on | cold on (ms) | cold off (ms) |")
    print("|---|---|---|---|---|---|")
    for name, on in results["1"].items():
        off = results["0"][name]
        print(f"| {name} | {on['median_ms']:.3f} | {off['median_ms']:.3f} | "
              f"{off['median_ms'] / on['median_ms']:.2f} | {on['cold_ms']:.0f} | {off['cold_ms']:.0f} |")


if __name__ == "__main__":
    main()
