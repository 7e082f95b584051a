"""Consumers' first and second calls, side by side across peers (issue 11 target 1).

    .venv/bin/python -m benchmarks.consumers [--quick] [--peers numpy,strict,...] [--repeats 3]

What a user of scikit-learn or SciPy meets: a fresh process imports the library and calls it
once (the first call: a lazy library traces, interprets or compiles every graph it has never
seen), then again (the second call). Each figure comes from a FRESH Python process per (peer,
part, dtype), repeated --repeats times (3) with medians taken; lazyarray gets an empty compile
cache directory per process (LAZYARRAY_CACHE_DIR), so its first call is a true first call (the
second process on a warm cache is `benchmarks.warm_start`'s target 2).

Parts, each in its own processes:
- sklearn (float64 and float32): every configuration of `benchmarks/sklearn_configs.py` on
  300x8 data, pass 1 (each config's first call: construct, fit, every method, results read back
  to numpy) then pass 2 over the same configs; then the 5000x50 rows: Pipeline(StandardScaler,
  PCA(10), LogisticRegression) fit+score and Ridge fit+predict, calls 1, 2, 3.
- scipy: the call table of `benchmarks/scipy_calls.py` (its own dtypes), pass 1 then pass 2.

Peers: numpy (plain numpy arrays, scikit-learn's array_api_dispatch ON, as for every peer) at
its default BLAS threads and as numpy-1t (every BLAS limited to one thread: on 2 shared cores
OpenBLAS's 2 threads spin-wait as PyTorch's do), strict (array-api-strict), torch-1t and
torch-2t (PyTorch on CPU with torch.set_num_threads(1) and (2)), lazyarray; on request
numpy-nodispatch (dispatch off). numpy and PyTorch are judged at their best thread setting. Before the timed calls each
process does one tiny computation ("ready", reported apart: lazyarray and torch set up their
runtime there). A config or case that fails on any peer is excluded from every peer's sums for
that part and dtype, and listed with its error.

Output: JSON (first thing on stdout) written to benchmarks/consumers.json (--out), then the
markdown section; `markdown(results)` and `verdicts(results)` are what benchmarks/issue11.py calls.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEERS = ("numpy", "numpy-1t", "strict", "torch-1t", "torch-2t", "lazyarray")
OPTIONAL_PEERS = ("numpy-nodispatch",)
DTYPES = ("float64", "float32")
BIG = (5000, 50)
BIG_CALLS = 3
FIRST_RATIO = 3.0      # target: lazyarray's first call <= 3x numpy's
QUICK_STRIDE = {"sklearn": 4, "scipy": 8}   # --quick: every n-th config / case


# ============================================================== the child (one fresh process)

def _load_peer(peer):
    """The namespace of `peer` (imports it) and a description of its thread setting."""
    if peer == "numpy-1t":
        import numpy as xp
        import scipy.linalg  # noqa: F401  (loads SciPy's own OpenBLAS, so that the limit reaches it)
        import threadpoolctl
        threadpoolctl.threadpool_limits(1)     # every BLAS in the process, for its lifetime
        return xp, "1 BLAS thread (threadpoolctl)"
    if peer.startswith("numpy"):
        import numpy as xp
        return xp, "default BLAS threads"
    if peer == "strict":
        import array_api_strict as xp
        return xp, "numpy underneath, default BLAS threads"
    if peer.startswith("torch"):
        import torch
        n = int(peer.split("-")[1].rstrip("t"))
        torch.set_num_threads(n)
        return torch, f"torch.set_num_threads({n}), get_num_threads()={torch.get_num_threads()}"
    if peer == "lazyarray":
        import lazyarray as xp
        return xp, "XLA CPU default"
    raise ValueError(f"unknown peer {peer!r}; expected one of {PEERS + OPTIONAL_PEERS}")


def _ready(xp):
    t0 = time.perf_counter()
    x = xp.ones(3, dtype=xp.float64)
    float(xp.sum(x * 2.0))
    return time.perf_counter() - t0


class _Counters:
    """lazyarray's metrics deltas around one call (None for the other peers)."""
    KEYS = ("compiles", "interpreted", "syncs", "disk_hits")

    def __init__(self, xp, peer):
        self.m = xp.metrics if peer == "lazyarray" else None

    def snap(self):
        if self.m is None:
            return None
        out = {k: getattr(self.m, k, 0) for k in self.KEYS}
        if isinstance(out["syncs"], dict):          # syncs by cause: their total
            out["syncs"] = sum(out["syncs"].values())
        return out

    def delta(self, before):
        if before is None:
            return None
        now = self.snap()
        return {k: now[k] - before[k] for k in self.KEYS}


def _timed_passes(items, call, to_numpy, counters, passes=2):
    """Per pass: {name: seconds}; errors {name: message}; per pass, lazyarray's counters per item."""
    times = [{} for _ in range(passes)]
    counts = [{} for _ in range(passes)]
    errors = {}
    for p in range(passes):
        for name, item in items:
            if name in errors:
                continue
            before = counters.snap()
            t0 = time.perf_counter()
            try:
                to_numpy(call(item))
            except Exception as exc:  # noqa: BLE001 - recorded, the config is excluded
                errors[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
                continue
            times[p][name] = time.perf_counter() - t0
            if before is not None:
                counts[p][name] = counters.delta(before)
    return times, errors, counts


def _force(result):
    """scikit-learn's results read back to numpy (lists of arrays and Python floats)."""
    import numpy as np
    if isinstance(result, (list, tuple)):
        return [_force(r) for r in result]
    if isinstance(result, (int, float, np.generic, np.ndarray)):
        return result
    try:
        out = np.asarray(result)
        if out.dtype != object:
            return out
    except (TypeError, ValueError, RuntimeError):
        pass
    return np.from_dlpack(result)


def big_workloads(xp, dtype, to_numpy):
    """The 5000x50 rows' calls on `xp` (data of `dtype`): (name, call) pairs, Pipeline fit+score,
    Ridge fit+predict (also timed by benchmarks.blas_threads) and Ridge(solver="svd") fit+predict:
    scikit-learn's array-API path runs the svd solver for every namespace but numpy (numpy's
    default is cholesky), so that row compares the same algorithm on every peer."""
    import numpy as np
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    rng = np.random.default_rng(0)
    n, d = BIG
    Xn = rng.standard_normal((n, d))
    fdt = getattr(xp, dtype)
    X = xp.asarray(Xn, dtype=fdt)
    y = xp.asarray((Xn[:, :5].sum(axis=1) + 0.5 * rng.standard_normal(n) > 0).astype(np.int64))
    t = xp.asarray(Xn @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n), dtype=fdt)

    def pipeline():
        pipe = Pipeline([("scale", StandardScaler()), ("pca", PCA(10)), ("clf", LogisticRegression())])
        return float(pipe.fit(X, y).score(X, y))

    def ridge():
        return to_numpy(Ridge(alpha=1.0).fit(X, t).predict(X))

    def ridge_svd():
        return to_numpy(Ridge(alpha=1.0, solver="svd").fit(X, t).predict(X))

    return (("pipeline", pipeline), ("ridge", ridge), ("ridge_svd", ridge_svd))


def _big_rows(xp, dtype, to_numpy):
    """Calls 1..BIG_CALLS of each of big_workloads' calls."""
    out = {}
    for name, fn in big_workloads(xp, dtype, to_numpy):
        calls = []
        try:
            for _ in range(BIG_CALLS):
                t0 = time.perf_counter()
                fn()
                calls.append(time.perf_counter() - t0)
            out[name] = calls
        except Exception as exc:  # noqa: BLE001
            out[name] = {"error": f"{type(exc).__name__}: {str(exc)[:160]}"}
    return out


def child(peer, part, dtype, quick):
    os.environ.setdefault("SCIPY_ARRAY_API", "1")
    import warnings
    warnings.simplefilter("ignore")
    t_start = time.perf_counter()
    xp, threads = _load_peer(peer)
    if part == "scipy":
        from benchmarks import scipy_calls        # imports SciPy's modules (SCIPY_ARRAY_API is set)
        to_numpy = scipy_calls.to_numpy
    else:
        to_numpy = _force
    import sklearn
    sklearn.set_config(array_api_dispatch=(peer != "numpy-nodispatch"))
    out = {"peer": peer, "part": part, "dtype": dtype, "threads": threads,
           "dispatch": peer != "numpy-nodispatch", "import_s": time.perf_counter() - t_start,
           "ready_s": _ready(xp)}
    counters = _Counters(xp, peer)
    if part == "sklearn":
        from benchmarks import sklearn_configs as sc
        cfgs = sc.configs()
        if quick:
            cfgs = cfgs[::QUICK_STRIDE["sklearn"]]
        arrays = sc.to_namespace(sc.make_data(), xp, dtype)
        items = [(c.name, c) for c in cfgs]
        times, errors, counts = _timed_passes(items, lambda c: sc.run_config(c, arrays), to_numpy, counters)
        out.update(dropped=sc.dropped(), methods={c.name: list(c.methods) for c in cfgs},
                   sources={c.name: c.source for c in cfgs})
        out["big"] = _big_rows(xp, dtype, to_numpy)
    else:
        cases = scipy_calls.CASES[::QUICK_STRIDE["scipy"]] if quick else scipy_calls.CASES
        items = [(c.name, c) for c in cases]
        times, errors, counts = _timed_passes(items, lambda c: scipy_calls.run_case(c, xp), to_numpy, counters)
        out["modules"] = {c.name: c.module for c in cases}
    out.update(first=times[0], second=times[1], errors=errors, counts=counts[0], counts_second=counts[1])
    if peer == "lazyarray":
        from lazyarray import _engine
        out["totals_before_wait"] = counters.snap()
        _engine.wait_for_compiles()
        out["totals"] = counters.snap()
    print(json.dumps(out))


# ============================================================== the parent

def _spawn(peer, part, dtype, quick):
    with tempfile.TemporaryDirectory(prefix="lazyarray-consumers-") as cache:
        env = dict(os.environ, SCIPY_ARRAY_API="1", LAZYARRAY_CACHE_DIR=cache)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        cmd = [sys.executable, "-m", "benchmarks.consumers", "--child", peer, part, dtype]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd + (["--quick"] if quick else []), cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=900)
        except subprocess.TimeoutExpired:
            return {"error": "timed out after 900 s"}
        wall = time.perf_counter() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {proc.returncode}: {tail[:300]}"}
    out = json.loads(lines[-1])
    out["process_wall_s"] = wall
    return out


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _aggregate(runs):
    """Medians over the repeats of one (peer, part, dtype): per-item first/second times."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return {"error": runs[0].get("error", "no run")}
    agg = {k: ok[0][k] for k in ("threads", "dispatch")}
    agg["repeats"] = len(ok)
    for k in ("import_s", "ready_s", "process_wall_s"):
        agg[k] = _median([r.get(k) for r in ok])
    errors = {}
    for r in ok:
        errors.update(r["errors"])
    agg["errors"] = errors
    for key in ("first", "second"):
        names = set().union(*(r[key] for r in ok))
        agg[key] = {n: _median([r[key].get(n) for r in ok]) for n in sorted(names) if n not in errors}
    agg["counts"] = ok[len(ok) // 2].get("counts", {})
    agg["counts_second"] = ok[len(ok) // 2].get("counts_second", {})
    for k in ("totals", "totals_before_wait", "dropped", "methods", "sources", "modules"):
        if k in ok[0]:
            agg[k] = ok[0][k]
    if "big" in ok[0]:
        agg["big"] = {}
        for row in ok[0]["big"]:
            calls = [r["big"][row] for r in ok if isinstance(r["big"].get(row), list)]
            agg["big"][row] = ([_median(c) for c in zip(*calls)] if calls
                               else ok[0]["big"][row])
    return agg


def measure(peers, quick=False, repeats=3, log=None):
    log = log or (lambda *a: print(*a, file=sys.stderr, flush=True))
    jobs = [(p, "sklearn", d) for d in DTYPES for p in peers] + [(p, "scipy", "float64") for p in peers]
    runs = {job: [] for job in jobs}
    load = [os.getloadavg()[0]]
    t0 = time.perf_counter()
    for rep in range(repeats):           # repeats outermost: noise spreads over every peer
        for job in jobs:
            r = _spawn(*job, quick)
            runs[job].append(r)
            log(f"[{time.perf_counter() - t0:6.0f} s] rep {rep + 1}/{repeats} {job}: "
                + (r["error"] if "error" in r else f"{r['process_wall_s']:.1f} s, first "
                   f"{sum(r['first'].values()):.2f} s, second {sum(r['second'].values()):.2f} s, "
                   f"{len(r['errors'])} errors"))
        load.append(os.getloadavg()[0])
    results = {"config": {"peers": list(peers), "dtypes": list(DTYPES), "repeats": repeats,
                          "quick": quick, "big_shape": list(BIG), "big_calls": BIG_CALLS,
                          "first_ratio": FIRST_RATIO, "machine": f"{os.cpu_count()} cores, {platform.machine()}",
                          "load_1min": load, "seconds": time.perf_counter() - t0,
                          "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
               "versions": _versions(), "sklearn": {}, "scipy": {}}
    for (peer, part, dtype), rs in runs.items():
        agg = _aggregate(rs)
        if part == "sklearn":
            results["sklearn"].setdefault(dtype, {})[peer] = agg
        else:
            results["scipy"][peer] = agg
    return results


def _versions():
    code = ("import json, numpy, scipy, sklearn, array_api_strict\n"
            "v = {'python': __import__('platform').python_version(), 'numpy': numpy.__version__, "
            "'scipy': scipy.__version__, 'scikit-learn': sklearn.__version__, "
            "'array_api_strict': array_api_strict.__version__}\n"
            "try:\n import torch; v['torch'] = torch.__version__\nexcept ImportError: pass\n"
            "print(json.dumps(v))")
    try:
        return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                         timeout=120).stdout)
    except (ValueError, subprocess.TimeoutExpired):
        return {}


# ============================================================== judging and the markdown

def _excluded(peer_results):
    """Items that failed on any peer (excluded from every peer's sums), with who failed."""
    out = {}
    for peer, agg in peer_results.items():
        for name, msg in agg.get("errors", {}).items():
            out.setdefault(name, []).append(f"{peer}: {msg}")
    return out


def sums(peer_results):
    """{peer: (first_s, second_s, n_items)} over the items that ran on every peer."""
    ok = {p: a for p, a in peer_results.items() if "error" not in a}
    if not ok:
        return {}
    excluded = _excluded(ok)
    common = set.intersection(*(set(a["first"]) & set(a["second"]) for a in ok.values())) - set(excluded)
    return {p: (sum(a["first"][n] for n in common), sum(a["second"][n] for n in common), len(common))
            for p, a in ok.items()}


def pairwise(peer_results, a="lazyarray", b="numpy"):
    """(first_a, first_b, second_a, second_b, n) over every item both `a` and `b` ran (the
    exclusion rule of `sums` drops items that only a third peer failed)."""
    pa, pb = peer_results.get(a, {}), peer_results.get(b, {})
    if "first" not in pa or "first" not in pb:
        return None
    common = [n for n in pa["first"] if n in pb["first"] and n in pa["second"] and n in pb["second"]]
    return (sum(pa["first"][n] for n in common), sum(pb["first"][n] for n in common),
            sum(pa["second"][n] for n in common), sum(pb["second"][n] for n in common), len(common))


def _best_torch(s):
    """(label, first, second) of PyTorch at its best thread setting (by the second call)."""
    cands = [(p, v) for p, v in s.items() if p.startswith("torch")]
    if not cands:
        return None
    p, v = min(cands, key=lambda pv: pv[1][1])
    return p, v[0], v[1]


NUMPY_SETTINGS = ("numpy", "numpy-1t")   # numpy at default BLAS threads, at one thread


def _best_numpy(s, index):
    """The numpy setting (of NUMPY_SETTINGS present in `s`) with the smaller figure at `index`."""
    cands = [p for p in NUMPY_SETTINGS if s.get(p)]
    return min(cands, key=lambda p: s[p][index]) if cands else None


def _judge_set(label, peer_results, ratio_max):
    rows = []
    s = sums(peer_results)
    lz, ref = s.get("lazyarray"), _best_numpy(s, 0)
    if not lz or not ref:
        return [(f"{label}: lazyarray vs numpy", "NOT MEASURED", "a peer is missing or failed")]
    npy = s[ref]
    r = lz[0] / npy[0]
    pw = pairwise(peer_results, b=ref)
    also = (f"; over the {pw[4]} items both lazyarray and {ref} ran: {pw[0]:.2f} s vs {pw[1]:.2f} s, "
            f"{pw[0] / pw[1]:.2f}x" if pw and pw[4] != lz[2] and pw[1] > 0 else "")
    other = "".join(f"; {p}: {s[p][0]:.2f} s" for p in NUMPY_SETTINGS if p in s and p != ref)
    rows.append((f"{label}: lazyarray's first call <= {ratio_max:g}x numpy's at its best thread setting ({ref})",
                 "PASS" if r <= ratio_max else "MISS",
                 f"{lz[0]:.2f} s vs {npy[0]:.2f} s: {r:.2f}x ({lz[2]} items run by every peer{other}{also})"))
    if "strict" in s:
        st = s["strict"]
        rows.append((f"{label}: lazyarray's second call <= array-api-strict's", "PASS" if lz[1] <= st[1] else "MISS",
                     f"{lz[1]:.3f} s vs {st[1]:.3f} s: {lz[1] / st[1]:.2f}x"))
    bt = _best_torch(s)
    if bt:
        others = ", ".join(f"{p} {v[1]:.3f} s" for p, v in s.items() if p.startswith("torch"))
        rows.append((f"{label}: lazyarray's second call <= PyTorch's at its best thread setting ({bt[0]})",
                     "PASS" if lz[1] <= bt[2] else "MISS",
                     f"{lz[1]:.3f} s vs {bt[2]:.3f} s: {lz[1] / bt[2]:.2f}x ({others})"))
    return rows


def _same_algorithm(peers, lz, ref):
    """The Ridge verdict's context: second calls of Ridge(solver="svd"), the solver scikit-learn
    runs for lazyarray (numpy's default is cholesky)."""
    a = (lz.get("big") or {}).get("ridge_svd")
    b = (peers.get(ref, {}).get("big") or {}).get("ridge_svd")
    if not (isinstance(a, list) and isinstance(b, list)):
        return ""
    return (f"; with solver='svd', the one scikit-learn runs for every namespace but numpy: "
            f"{a[1] * 1e3:.1f} ms vs {ref} {b[1] * 1e3:.1f} ms, {a[1] / b[1]:.2f}x")


def verdicts(results):
    """(what, PASS/MISS/NOT MEASURED, figure) for target 1."""
    cfg = results.get("config", {})
    ratio_max = cfg.get("first_ratio", FIRST_RATIO)
    out = []
    for dtype, peers in results.get("sklearn", {}).items():
        out += _judge_set(f"scikit-learn configurations, {dtype}", peers, ratio_max)
        lz = peers.get("lazyarray", {})
        shape = "x".join(map(str, cfg.get("big_shape", BIG)))
        for row, what in (("pipeline", "Pipeline(StandardScaler, PCA(10), LogisticRegression) fit+score"),
                          ("ridge", "Ridge fit+predict")):
            a = (lz.get("big") or {}).get(row)
            refs = {p: (peers[p].get("big") or {}).get(row) for p in NUMPY_SETTINGS if p in peers}
            refs = {p: v for p, v in refs.items() if isinstance(v, list)}
            label = f"{shape} {what}, {dtype}: lazyarray's second call <= numpy's at its best thread setting"
            if not isinstance(a, list) or not refs:
                out.append((label, "NOT MEASURED", str(a if not isinstance(a, list) else "numpy failed")))
                continue
            ref = min(refs, key=lambda p: refs[p][1])
            b = refs[ref]
            other = "".join(f"; {p}: {v[1] * 1e3:.1f} ms" for p, v in refs.items() if p != ref)
            if row == "ridge":
                other += _same_algorithm(peers, lz, ref)
            out.append((f"{label} ({ref})", "PASS" if a[1] <= b[1] else "MISS",
                        f"{a[1] * 1e3:.1f} ms vs {b[1] * 1e3:.1f} ms: {a[1] / b[1]:.2f}x{other}"))
    if results.get("scipy"):
        out += _judge_set("SciPy call table", results["scipy"], ratio_max)
    return out


def _fmt_ms(s):
    return "-" if s is None else f"{s * 1e3:.0f}"


def _sum_table(peer_results):
    s = sums(peer_results)
    npy = s.get("numpy")
    md = ["| peer | thread setting | ready (ms) | first call (ms) | second call (ms) | first / numpy's "
          "| second / numpy's | items |", "|---|---|---|---|---|---|---|---|"]
    for peer, agg in peer_results.items():
        if "error" in agg:
            md.append(f"| {peer} | failed: {agg['error']} | | | | | | |")
            continue
        f, sec, n = s[peer]
        rf = f"{f / npy[0]:.2f}x" if npy else "-"
        rs = f"{sec / npy[1]:.2f}x" if npy else "-"
        md.append(f"| {peer} | {agg['threads']} | {_fmt_ms(agg['ready_s'])} | {_fmt_ms(f)} | {_fmt_ms(sec)} "
                  f"| {rf} | {rs} | {n} |")
    tot = peer_results.get("lazyarray", {}).get("totals")
    if tot:
        md += ["", f"lazyarray in one such process: {tot['interpreted']} programs interpreted, {tot['compiles']} "
               f"compiled in the background (counted after waiting for them at the end), {tot['syncs']} syncs."]
    return md


def offenders(peer_results, top=5):
    """The items with the largest lazyarray/numpy first-call ratio, with lazyarray's counters."""
    lz, npy = peer_results.get("lazyarray", {}), peer_results.get("numpy", {})
    if "first" not in lz or "first" not in npy:
        return []
    rows = []
    for name, t in lz["first"].items():
        if name in npy["first"] and npy["first"][name] > 0:
            c = lz.get("counts", {}).get(name) or {}
            rows.append((t / npy["first"][name], name, t, npy["first"][name], c))
    rows.sort(reverse=True)
    return rows[:top]


def _offender_lines(peer_results):
    md = ["| item | lazyarray first (ms) | numpy first (ms) | ratio | lazyarray second (ms) "
          "| lazyarray first call: compiles finished / programs interpreted / syncs | second call: same |",
          "|---|---|---|---|---|---|---|"]
    lz = peer_results.get("lazyarray", {})
    for ratio, name, t, tn, c in offenders(peer_results):
        sec = lz.get("second", {}).get(name)
        c2 = lz.get("counts_second", {}).get(name) or {}
        md.append(f"| {name} | {t * 1e3:.1f} | {tn * 1e3:.1f} | {ratio:.1f}x | {_fmt_ms(sec)} | "
                  + " | ".join(f"{d.get('compiles', '-')} / {d.get('interpreted', '-')} / {d.get('syncs', '-')}"
                               for d in (c, c2)) + " |")
    return md


def _excluded_lines(peer_results):
    ex = _excluded({p: a for p, a in peer_results.items() if "error" not in a})
    return [f"- `{name}`: " + "; ".join(msgs) for name, msgs in sorted(ex.items())]


def markdown(results) -> str:
    """The consumers section of RESULTS.md: sums per peer, the 5000x50 rows, the worst
    offenders, what was excluded, and the verdict lines."""
    cfg, ver = results.get("config", {}), results.get("versions", {})
    md = ["## Consumers' first and second calls (issue 11 target 1)", "",
          f"`python -m benchmarks.consumers`{' --quick' if cfg.get('quick') else ''}: a fresh process per "
          f"(peer, part, dtype), {cfg.get('repeats')} process(es) each, medians; lazyarray on an empty compile "
          "cache directory per process. First call: construct, fit, every method of the configuration, "
          "results read back to numpy; second call: the same again in the same process. scikit-learn's "
          "array_api_dispatch is on for every peer (numpy too: plain numpy arrays). *ready*: one tiny "
          "computation before the timed calls (runtime set-up), not counted. "
          f"{cfg.get('machine', '')}, load average {', '.join(f'{x:.1f}' for x in cfg.get('load_1min', []))} "
          f"(shared machine: timings are rough), {cfg.get('date', '')}; "
          + ", ".join(f"{k} {v}" for k, v in ver.items()) + "."]
    for run in cfg.get("added_runs", []):
        md[-1] += (f" Peers {', '.join(run['peers'])} measured in a later run ({run['date']}, load average "
                   f"{', '.join(f'{x:.1f}' for x in run['load_1min'])}).")
    md.append("")
    for dtype, peers in results.get("sklearn", {}).items():
        n_cfg = max((len(a.get("methods", {})) for a in peers.values()), default=0)
        md += [f"### scikit-learn, {dtype}: {n_cfg} configurations on 300x8", ""] + _sum_table(peers) + [""]
        shape = "x".join(map(str, cfg.get("big_shape", BIG)))
        md += [f"{shape} {dtype}, calls 1 / 2 / 3 (ms):", "",
               "| peer | Pipeline(StandardScaler, PCA(10), LogisticRegression) fit+score | Ridge fit+predict "
               "| Ridge(solver='svd') fit+predict |", "|---|---|---|---|"]
        for peer, agg in peers.items():
            big = agg.get("big") or {}
            cells = [" / ".join(_fmt_ms(c) for c in v) if isinstance(v, list) else "-" if v is None
                     else f"failed: {v}" for v in (big.get("pipeline"), big.get("ridge"), big.get("ridge_svd"))]
            md.append(f"| {peer} | {cells[0]} | {cells[1]} | {cells[2]} |")
        md += ["", f"Largest lazyarray/numpy first-call ratios ({dtype}):", ""] + _offender_lines(peers) + [""]
        ex = _excluded_lines(peers)
        if ex:
            md += [f"Excluded from every peer's {dtype} sums (failed on some peer):", ""] + ex + [""]
        dropped = next((a.get("dropped") for a in peers.values() if a.get("dropped")), None)
        if dropped:
            md += ["Not in the table (tag false): " + "; ".join(f"{n} ({why})" for n, why in dropped), ""]
    sp = results.get("scipy")
    if sp:
        n_cases = max((len(a.get("modules", {})) for a in sp.values()), default=0)
        md += [f"### SciPy call table: {n_cases} calls (`benchmarks/scipy_calls.py`, its own dtypes)", ""]
        md += _sum_table(sp) + ["", "Largest lazyarray/numpy first-call ratios (SciPy):", ""]
        md += _offender_lines(sp) + [""]
        ex = _excluded_lines(sp)
        if ex:
            md += ["Excluded from every peer's SciPy sums (failed on some peer):", ""] + ex + [""]
    md += ["Verdicts:", ""] + [f"- **{v}** {what}: {fig}" for what, v, fig in verdicts(results)] + [""]
    return "\n".join(md)


def merge(path, added):
    """The results in `path` with the peers of `added` put in (their config and load noted)."""
    with open(path) as f:
        base = json.load(f)
    for dtype, peers in added.get("sklearn", {}).items():
        base.setdefault("sklearn", {}).setdefault(dtype, {}).update(peers)
    base.setdefault("scipy", {}).update(added.get("scipy", {}))
    cfg = base.setdefault("config", {})
    cfg["peers"] = list(dict.fromkeys(cfg.get("peers", []) + added["config"]["peers"]))
    cfg.setdefault("added_runs", []).append({k: added["config"][k] for k in ("peers", "date", "load_1min", "seconds")})
    return base


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3, metavar=("PEER", "PART", "DTYPE"), help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="1 process each, every 4th config / 8th SciPy case")
    ap.add_argument("--peers", default=",".join(PEERS),
                    help=f"comma-separated subset of {', '.join(PEERS + OPTIONAL_PEERS)}")
    ap.add_argument("--repeats", type=int, default=None, help="fresh processes per cell (3; --quick: 1)")
    ap.add_argument("--out", default=os.path.join(HERE, "consumers.json"))
    ap.add_argument("--add-to", default=None, metavar="JSON",
                    help="merge these peers' figures into an earlier run's results (written to --out)")
    a = ap.parse_args(argv)
    if a.child:
        return child(*a.child, a.quick)
    peers = [p for p in a.peers.split(",") if p]
    bad = [p for p in peers if p not in PEERS + OPTIONAL_PEERS]
    if bad:
        ap.error(f"unknown peers {bad}; expected a subset of {PEERS + OPTIONAL_PEERS}")
    repeats = a.repeats or (1 if a.quick else 3)
    results = measure(peers, quick=a.quick, repeats=repeats)
    if a.add_to:
        results = merge(a.add_to, results)
    with open(a.out, "w") as f:
        json.dump(results, f, indent=1)
    print(json.dumps(results))
    print(markdown(results))
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
