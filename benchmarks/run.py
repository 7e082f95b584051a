"""Command line: ``python -m benchmarks.run [--quick] [--only NAME[,NAME]] [--peers P[,P]]``.

Runs every selected workload on every peer in this one process, prints each table as it
completes, then writes benchmarks/RESULTS.md, results.json, elementwise.png and speedup.png.
"""
from __future__ import annotations

import os

# Before numpy loads OpenBLAS: let it pick its own kernel and cache size for this CPU.
_UNSET = [k for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if os.environ.pop(k, None) is not None]
# scikit-learn's array-API dispatch refuses to run unless scipy's is on, before scipy is imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import argparse  # noqa: E402
import datetime  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from . import issue11, measure, peers, report, suites, workloads  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _versions():
    out = {"python": platform.python_version()}
    for mod in ("numpy", "jax", "jaxlib", "array_api_strict", "sklearn"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            out[mod] = "missing"
    return ", ".join(f"{k} {v}" for k, v in out.items())


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small sizes and few repeats (~1 minute)")
    ap.add_argument("--only", default="", help="workload names, prefixes or groups, comma-separated "
                    "(e.g. kmeans, elementwise-plain, loop, sklearn); 'overhead' selects the overhead probes, "
                    "'suites' scikit-learn's array-API test suite on array-api-strict and lazyarray, "
                    "'issue11' the fresh-process parts of issue 11's targets (benchmarks/issue11.py)")
    ap.add_argument("--peers", default="", help="peer names, comma-separated (default: all)")
    ap.add_argument("--out", default=HERE, help="directory for RESULTS.md and plots")
    ap.add_argument("--scipy-results", default="", help="LAZY_DIR,STRICT_DIR: scipy-suite output "
                    "directories (JUnit files) of lazyarray and array-api-strict for issue 11's target 7")
    args = ap.parse_args(argv)

    t_start = time.perf_counter()
    chosen = workloads.select(workloads.build(args.quick), args.only)
    names = [p.strip() for p in args.peers.split(",") if p.strip()] or None
    group = peers.load_peers(names)
    order = [p.name for p in group]
    budget = measure.QUICK if args.quick else measure.FULL
    lazy = next((p for p in group if p.name == "lazyarray"), None)

    env = {"command": "python -m benchmarks.run " + " ".join(argv if argv is not None else sys.argv[1:]),
           "date": datetime.datetime.now().isoformat(timespec="seconds"), "quick": args.quick,
           "facts": {"machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
                     "versions": _versions(),
                     "BLAS (threadpoolctl)": peers.blas_info(),
                     "OpenBLAS environment": ("unset " + ", ".join(_UNSET)) if _UNSET
                     else "OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE were not set",
                     "SCIPY_ARRAY_API": os.environ.get("SCIPY_ARRAY_API")}}
    print(f"lazyarray benchmarks ({'quick' if args.quick else 'full'}); peers: " + ", ".join(
        p.name if p.available else f"{p.name} (UNAVAILABLE: {p.reason})" for p in group))
    for k, v in env["facts"].items():
        print(f"  {k}: {v}")

    results = {"workloads": chosen, "peers": group, "peer_order": order,
               "cells": {}, "loops": {}, "overheads": {}}
    for w in chosen:
        row = {p.name: measure.measure_cell(w, p, budget) for p in group}
        results["cells"][w.name] = row
        print(report.console(w, row, order), flush=True)
        if w.loop and lazy is not None and lazy.available:
            results["loops"][w.name] = probe = measure.loop_probe(w, lazy)
            print("  lazyarray first-call compiles by iterations: " + ", ".join(
                f"{i}: {m.get('compiles', m.get('error', '?'))}" for i, m in probe.items()))

    if not args.only or "overhead" in args.only:
        results["overheads"] = measure.overheads(group, args.quick)
        print("\n== overheads (us): per op / materialize cached tiny graph / cached tiny call")
        for name, row in results["overheads"].items():
            print(f"  {name:10s} " + "  ".join(
                f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))

    if not args.quick and (not args.only or "suites" in args.only):
        print("\n== scikit-learn's array-API test suite (array-api-strict, then lazyarray)", flush=True)
        results["suites"] = suites.sklearn_suite()
        for name, row in results["suites"].items():
            print(f"  {name}: {row}")

    if not args.only or "issue11" in args.only:
        dirs = tuple(d for d in args.scipy_results.split(",") if d) or None
        results["issue11"] = issue11.measure(args.quick, dirs)
        print("\n== issue 11 targets")
        for t, v, f in issue11.verdicts(results, results["issue11"]):
            print(f"  {v:12s} {t}: {f}")

    print("\n== targets")
    for t, v, f in report.targets(results):
        print(f"  {v:12s} {t}: {f}")

    os.makedirs(args.out, exist_ok=True)
    report.write_markdown(os.path.join(args.out, "RESULTS.md"), results, env)
    report.write_json(os.path.join(args.out, "results.json"), results, env)
    report.write_plots(args.out, results)
    print(f"\nwrote {args.out}/RESULTS.md, results.json, elementwise.png, speedup.png "
          f"in {time.perf_counter() - t_start:.0f} s total")


if __name__ == "__main__":
    main()
