"""Does the second process start warm? (issue 11, target 2)

Each workload runs in fresh processes against one fresh on-disk compile cache directory: the
first process finds it empty and compiles, the second should load every program from disk and
compile nothing, so its first call costs about what a warm call costs. numpy runs the same code
in a fresh process of its own for scale. Two tier settings: the default (a new graph is
interpreted first and compiled in the background) and LAZYARRAY_INTERPRET_FIRST=0 (every graph
compiles at first sight, so the first call pays every compile and the disk cache matters most).

    .venv/bin/python -m benchmarks.warm_start            # JSON line, then a table
    .venv/bin/python -m benchmarks.warm_start --only ridge --repeats 3

Times are wall seconds of the first and the second call inside each process (imports and data
generation excluded, reported separately as the process's wall time), and beside them the same
calls' process CPU time (a diagnostic less moved by other processes' load); compiles and disk hits are
lazyarray's metrics after the background compiles have finished. Medians over --repeats, each
repeat with its own fresh cache directory.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ("demo", "pipeline", "ridge")
VARIANTS = {"default tiers": {}, "INTERPRET_FIRST=0": {"LAZYARRAY_INTERPRET_FIRST": "0"}}


# ------------------------------------------------------------------ the workloads (child side)

def _demo(xp):
    """The README demo's work (examples/demo.py): 200 logistic-regression steps and 20 k-means
    iterations on 20000x16, results read back to numpy."""
    import numpy as np
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import demo
    rng = np.random.default_rng(0)
    n, d = 20000, 16
    Xn = rng.standard_normal((n, d))
    yn = (Xn @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0).astype(np.float64)
    blobs = rng.standard_normal((8, d)) * 4
    Xk = blobs[rng.integers(0, 8, n)] + rng.standard_normal((n, d))

    def call():
        w, b, losses = demo.logistic_regression(xp, xp.asarray(Xn), xp.asarray(yn))
        c, labels = demo.kmeans(xp, xp.asarray(Xk), xp.asarray(Xk[:8].copy()))
        return [float(np.asarray(w).sum()), losses[-1], float(np.asarray(c).sum())]
    return call


def _sk_data(xp):
    import numpy as np
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5000, 50))
    y = (X[:, :5].sum(axis=1) + 0.5 * rng.standard_normal(5000) > 0).astype(np.int64)
    t = X @ rng.standard_normal(50) + 0.1 * rng.standard_normal(5000)
    return xp.asarray(X), xp.asarray(y), xp.asarray(t)


def _pipeline(xp):
    import sklearn
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    sklearn.set_config(array_api_dispatch=True)
    X, y, _ = _sk_data(xp)

    def call():
        pipe = Pipeline([("scale", StandardScaler()), ("pca", PCA(10)), ("clf", LogisticRegression())])
        return [float(pipe.fit(X, y).score(X, y))]
    return call


def _ridge(xp):
    import numpy as np
    import sklearn
    from sklearn.linear_model import Ridge
    sklearn.set_config(array_api_dispatch=True)
    X, _, t = _sk_data(xp)

    def call():
        return [float(np.asarray(Ridge(alpha=1.0).fit(X, t).predict(X)).sum())]
    return call


def child(case, backend):
    t_start = time.perf_counter()
    if backend == "numpy":
        import numpy as xp
    else:
        import lazyarray as xp
    call = {"demo": _demo, "pipeline": _pipeline, "ridge": _ridge}[case](xp)
    c0, t0 = time.process_time(), time.perf_counter()
    first = call()
    c1, t1 = time.process_time(), time.perf_counter()
    second = call()
    c2, t2 = time.process_time(), time.perf_counter()
    out = {"first_s": t1 - t0, "second_s": t2 - t1, "first_cpu_s": c1 - c0, "second_cpu_s": c2 - c1,
           "values": first, "values_second": second}
    if backend == "lazyarray":
        from lazyarray import _config, _engine
        _engine.wait_for_compiles()
        out.update(compiles=xp.metrics.compiles, disk_hits=xp.metrics.disk_hits, cache_dir=_config.cache_dir)
    out["process_s"] = time.perf_counter() - t_start
    print(json.dumps(out))


# ------------------------------------------------------------------ the driver (parent side)

def _spawn(case, backend, env_extra):
    env = dict(os.environ, SCIPY_ARRAY_API="1", **env_extra)
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "benchmarks.warm_start", "--child", case, backend],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"{case}/{backend} failed:\n{res.stderr[-3000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["spawn_wall_s"] = wall
    return out


def _rel_diff(a, b):
    return max(abs(x - y) / max(abs(y), 1e-300) for x, y in zip(a, b))


def _median(runs, key):
    return statistics.median(r[key] for r in runs)


def measure(cases, repeats):
    rows = []
    for case in cases:
        numpy_runs = [_spawn(case, "numpy", {}) for _ in range(repeats)]
        for variant, env in VARIANTS.items():
            p1, p2 = [], []
            for _ in range(repeats):
                with tempfile.TemporaryDirectory(prefix="lazyarray-warm-") as cache:
                    e = dict(env, LAZYARRAY_CACHE_DIR=cache)
                    p1.append(_spawn(case, "lazyarray", e))
                    p2.append(_spawn(case, "lazyarray", e))
            rows.append({
                "case": case, "variant": variant, "repeats": repeats,
                "numpy_first_s": _median(numpy_runs, "first_s"),
                "numpy_second_s": _median(numpy_runs, "second_s"),
                "p1_first_s": _median(p1, "first_s"), "p1_second_s": _median(p1, "second_s"),
                "p2_first_s": _median(p2, "first_s"), "p2_second_s": _median(p2, "second_s"),
                "numpy_first_cpu_s": _median(numpy_runs, "first_cpu_s"),
                "numpy_second_cpu_s": _median(numpy_runs, "second_cpu_s"),
                "p1_second_cpu_s": _median(p1, "second_cpu_s"), "p2_first_cpu_s": _median(p2, "first_cpu_s"),
                "p1_compiles": max(r["compiles"] for r in p1), "p2_compiles": max(r["compiles"] for r in p2),
                "p2_disk_hits": min(r["disk_hits"] for r in p2),
                "p1_process_s": _median(p1, "process_s"), "p2_process_s": _median(p2, "process_s"),
                "max_rel_diff_p1_p2": max(_rel_diff(a["values"], b["values"]) for a, b in zip(p1, p2)),
                "max_rel_diff_numpy": max(_rel_diff(a["values"], numpy_runs[0]["values"]) for a in p2),
            })
    return rows


def _cpu_cell(r):
    """The same ratio in process CPU time (all threads: XLA's and the compile thread's included),
    which load from other processes on a shared machine moves less than wall time; numpy's own
    first / second call beside it (a consumer's one-time work, e.g. scikit-learn's first
    dataframe check, is in every library's first call). Diagnostic: the verdict is wall time."""
    if "p2_first_cpu_s" not in r:
        return "-"
    return (f"{r['p2_first_cpu_s'] * 1e3:.0f} / {r['p1_second_cpu_s'] * 1e3:.0f} ms = "
            f"{r['p2_first_cpu_s'] / r['p1_second_cpu_s']:.2f}x ({r['numpy_first_cpu_s'] * 1e3:.0f} / "
            f"{r['numpy_second_cpu_s'] * 1e3:.0f} ms)")


def table(rows):
    lines = ["| workload | tiers | numpy first | process 1: first / second call, compiles "
             "| process 2: first call, compiles (disk hits) | p2 first / p1 second "
             "| process CPU: p2 first / p1 second (numpy first / second) | rel. diff p2 vs numpy |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['variant']} | {r['numpy_first_s'] * 1e3:.0f} ms "
            f"| {r['p1_first_s'] * 1e3:.0f} / {r['p1_second_s'] * 1e3:.0f} ms, {r['p1_compiles']} "
            f"| {r['p2_first_s'] * 1e3:.0f} ms, {r['p2_compiles']} ({r['p2_disk_hits']}) "
            f"| {r['p2_first_s'] / r['p1_second_s']:.2f}x | {_cpu_cell(r)} | {r['max_rel_diff_numpy']:.1e} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=2, metavar=("CASE", "BACKEND"), help=argparse.SUPPRESS)
    ap.add_argument("--only", default="", help="comma-separated subset of: " + ", ".join(CASES))
    ap.add_argument("--repeats", type=int, default=1)
    a = ap.parse_args(argv)
    if a.child:
        return child(*a.child)
    cases = [c for c in a.only.split(",") if c] or list(CASES)
    rows = measure(cases, a.repeats)
    print(json.dumps(rows))
    print(table(rows))


if __name__ == "__main__":
    main()
