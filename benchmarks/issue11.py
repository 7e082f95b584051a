"""Issue 11's eight targets, measured in one full benchmark run and judged.

`python -m benchmarks.run` measures the workloads in its own process (the elementwise chains,
the 1e7 chain read back with np.asarray, the k-means and logistic-regression loops against
jax.jit, per-op and materialize overheads, scikit-learn's test suite). The rest runs here, each
part in fresh processes by its own module, so imports, caches and allocator state never leak
between parts:

| target | measured by |
|---|---|
| 1 first calls | `benchmarks.consumers` (scikit-learn configurations, the 5000x50 Pipeline and Ridge, the SciPy call table; numpy, array-api-strict, PyTorch, lazyarray) |
| 2 second process warm | `benchmarks.warm_start` (the same script in two processes on one cache) |
| 3 scalar reads, 4 tracing and replay | `benchmarks/overheads.py` |
| 5 hot loops | the `kmeans`/`logreg` workloads of the main run against `jax.jit` |
| 6 results come home without a copy | the `elementwise-plain-read-1e7` workload against numpy |
| 7 consumer suites | scikit-learn's suite (main run) and SciPy's (the harness's JUnit files) |
| 8 memory | `benchmarks.memory` |

Each verdict is computed from the figures by `verdicts`; nothing here is timed by a unit test.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _child(args, timeout):
    """Run `python args...` from the checkout; its last JSON line (or list) or an error."""
    try:
        proc = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    text = proc.stdout.strip()
    start = next((i for i, ch in enumerate(text) if ch in "[{"), None)
    if proc.returncode != 0 or start is None:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {proc.returncode}: {tail[:200]}"}
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except ValueError as exc:
        return {"error": f"unreadable output: {exc}"}


def measure(quick=False, scipy_results=None, log=print):
    """Every part but the main run's; `scipy_results` = (lazyarray dir, array-api-strict dir) of
    scipy-suite runs (their JUnit files), or None to leave target 7's SciPy half unmeasured."""
    out = {}
    log("== issue 11: consumers' first and second calls (fresh processes)", flush=True)
    path = os.path.join(HERE, "consumers.json")
    res = _child(["-m", "benchmarks.consumers", *(["--quick"] if quick else [])], timeout=3600)
    if "error" in res and os.path.exists(path):
        res = {"error": res["error"]}
    elif os.path.exists(path):
        with open(path) as f:
            res = json.load(f)
    out["consumers"] = res
    log("== issue 11: the second process starts warm", flush=True)
    out["warm_start"] = _child(["-m", "benchmarks.warm_start", "--repeats", "1" if quick else "3"], timeout=1800)
    log("== issue 11: scalar reads, tracing, replay", flush=True)
    out["overheads"] = _child([os.path.join("benchmarks", "overheads.py")], timeout=1800)
    log("== issue 11: memory", flush=True)
    from . import memory
    out["memory"] = memory.measure(repeats=1 if quick else 3)
    if scipy_results:
        try:
            out["scipy_suite"] = scipy_suite(*scipy_results)
        except (OSError, ET.ParseError, StopIteration, TypeError) as exc:
            out["scipy_suite_error"] = f"{scipy_results}: {exc}"
    return out


def _tracing_runs(ov):
    """The per-process figures behind the tracing median, each with its reference loop's time."""
    runs = ov.get("per_op_runs")
    if not runs:
        return ""
    each = ", ".join(f"{r['per_op_us']:.2f} us (reference loop {r['reference_ms']:.0f} ms)" for r in runs)
    return f" (median of 3 processes: {each})"


# ------------------------------------------------------------------ SciPy's suite from JUnit files

_PARAM = re.compile(r"(lazyarray|array_api_strict|fakexp)")


def _times(xp_out):
    """test id (backend name masked) -> (seconds, failed?)"""
    root = ET.parse(os.path.join(xp_out, "junit.xml")).getroot()
    suite = next(root.iter("testsuite"))
    times = {}
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        if "skipped" in tags:
            continue
        key = case.get("classname", "") + "::" + _PARAM.sub("XP", case.get("name", ""))
        times[key] = (float(case.get("time") or 0.0), bool(tags & {"failure", "error"}))
    return float(suite.get("time") or 0.0), times


def scipy_suite(lazy_dir, strict_dir, floor=0.1):
    """Wall seconds of both runs, and the tests over 10x array-api-strict's time (ignoring tests
    under `floor` seconds on lazyarray, whose ratios are timer noise)."""
    lazy_wall, lazy = _times(lazy_dir)
    strict_wall, strict = _times(strict_dir)
    slow = sorted(((t, strict[k][0], k) for k, (t, _) in lazy.items()
                   if k in strict and t >= floor and t > 10 * max(strict[k][0], 1e-3)), reverse=True)
    return {"lazyarray_seconds": lazy_wall, "strict_seconds": strict_wall,
            "lazyarray_failed": sum(f for _, f in lazy.values()), "strict_failed": sum(f for _, f in strict.values()),
            "over_10x": len(slow), "compared": len(set(lazy) & set(strict)), "floor_s": floor,
            "slowest": [{"test": k, "lazyarray_s": a, "strict_s": b} for a, b, k in slow[:10]]}


# ------------------------------------------------------------------ verdicts

def verdicts(main, part):
    """(target, verdict, figure) rows. `main`: benchmarks.run's results; `part`: `measure`'s."""
    from .report import speedup, verdict_word as _v
    rows = []
    cons = part.get("consumers") or {}
    if "error" in cons or not cons:
        rows.append(("1 first calls (consumers)", "NOT MEASURED", cons.get("error", "-")))
    else:
        from . import consumers
        rows += [("1 " + t, v, f) for t, v, f in consumers.verdicts(cons)]

    ws = part.get("warm_start")
    if isinstance(ws, list) and ws:
        for r in ws:
            ok = r["p2_compiles"] == 0 and r["p2_first_s"] <= 1.5 * r["p1_second_s"]
            rows.append((f"2 second process warm: {r['case']} ({r['variant']}): compiles nothing, first "
                         "call <= 1.5x a warm call", _v(ok),
                         f"{r['p2_compiles']} compiles; first call {r['p2_first_s'] * 1e3:.0f} ms vs warm "
                         f"{r['p1_second_s'] * 1e3:.0f} ms (numpy in a fresh process: first call "
                         f"{r['numpy_first_s'] * 1e3:.0f} ms, second {r['numpy_second_s'] * 1e3:.0f} ms)"))
    else:
        rows.append(("2 second process warm", "NOT MEASURED", (ws or {}).get("error", "-")))

    ov = part.get("overheads") or {}
    if "error" in ov or not ov:
        rows.append(("3-4 overheads", "NOT MEASURED", ov.get("error", "-")))
    else:
        reads = ov["scalar_read_us"]["lazyarray"]
        worst = max(reads.values())
        rows.append(("3 scalar read `bool(t[i] <= x)` <= 10 us, with 0/300/3000 live pending arrays",
                     _v(worst <= 10.0), " / ".join(f"{v:.1f}" for v in reads.values()) + " us (numpy "
                     + " / ".join(f"{v:.1f}" for v in ov["scalar_read_us"]["numpy"].values()) + ")"))
        probe = ov["is_lazy_probe_us"]["lazyarray"]
        rows.append(("3 array-api-compat's is_lazy_array probe <= 10 us", _v(probe <= 10.0), f"{probe:.1f} us"))
        sp = ov["spline_ms"]["lazyarray"]
        sizes = sorted(sp, key=int)
        lo, hi = sizes[0], sizes[-1]
        growth = (sp[hi] / int(hi)) / (sp[lo] / int(lo))
        rows.append((f"3 recursive B-spline scales linearly ({lo} -> {hi} points: time per point grows <= 1.5x)",
                     _v(growth <= 1.5), " / ".join(f"{sp[s]:.0f}" for s in sizes) + " ms; array-api-strict "
                     + " / ".join(f"{ov['spline_ms']['array_api_strict'][s]:.0f}" for s in sizes) + " ms"))
        rows.append(("4 tracing <= 2 us per op (long unread chain, cuts included)", _v(ov["per_op_us"] <= 2.0),
                     f"{ov['per_op_us']:.2f} us" + _tracing_runs(ov)))
        fl = ov["floor"]
        extra = fl["materialize_and_read_us"] - fl["execute_and_copy_us"]
        rows.append(("4 materialize a small cached graph and read it: <= 10 us beyond XLA's execute + copy",
                     _v(extra <= 10.0), f"{fl['materialize_and_read_us']:.1f} us vs floor "
                     f"{fl['execute_and_copy_us']:.1f} us: {extra:.1f} us overhead"
                     + (f" (with the default tiers, which keep this graph interpreted: "
                        f"{fl['default_tiers_read_us']:.1f} us)" if "default_tiers_read_us" in fl else "")))

    cells = main.get("cells", {})
    for name in ("kmeans", "logreg"):
        w = next((n for n in cells if n.startswith(name)), None)
        s = speedup(cells[w], "jax.jit", "lazyarray") if w else None
        rows.append((f"5 {name} steady state <= 1.0x jax.jit", _v(None if s is None else s <= 1.0),
                     "-" if s is None else f"{s:.2f}x jax.jit's time"))
    w = next((n for n in cells if n.startswith("elementwise-plain-read")), None)
    s = None
    if w:
        ss = [speedup(cells[w], "lazyarray", r) for r in ("numpy", "numpy-1t")]
        s = None if None in ss else min(ss)
    rows.append(("6 1e7 chain read back with np.asarray >= 4x numpy", _v(None if s is None else s >= 4.0),
                 "-" if s is None else f"{s:.2f}x (slower of the two numpy peers)"))

    suite = main.get("suites") or {}
    a, b = suite.get("array_api_strict", {}), suite.get("lazyarray", {})
    if "seconds" in a and "seconds" in b:
        r = b["seconds"] / a["seconds"]
        rows.append(("7 scikit-learn's array-API suite <= 1.5x array-api-strict's wall", _v(r <= 1.5),
                     f"{r:.2f}x ({b['seconds']:.0f} s vs {a['seconds']:.0f} s; lazyarray {b['passed']} passed "
                     f"/ {b['failed']} failed)"))
    else:
        rows.append(("7 scikit-learn's suite", "NOT MEASURED", suite.get("error", "-")))
    sc = part.get("scipy_suite")
    if sc:
        r = sc["lazyarray_seconds"] / sc["strict_seconds"]
        rows.append(("7 SciPy's array-API suite <= 2x array-api-strict's wall", _v(r <= 2.0),
                     f"{r:.2f}x ({sc['lazyarray_seconds']:.0f} s vs {sc['strict_seconds']:.0f} s)"))
        rows.append((f"7 no SciPy test over 10x its array-api-strict time (tests >= {sc['floor_s']} s)",
                     _v(sc["over_10x"] == 0), f"{sc['over_10x']} of {sc['compared']} compared tests"))
    else:
        rows.append(("7 SciPy's suite", "NOT MEASURED",
                     part.get("scipy_suite_error", "pass --scipy-results LAZY_DIR,STRICT_DIR")))

    mem = part.get("memory")
    if mem:
        from . import memory
        rows += [("8 " + t, v, f) for t, v, f in memory.verdicts(mem)]
    return rows


def markdown(main, part):
    rows = verdicts(main, part)
    md = ["## Issue 11 targets", "", "| target | verdict | figure |", "|---|---|---|"]
    md += [f"| {t} | **{v}** | {f} |" for t, v, f in rows]
    md.append("")
    cons = part.get("consumers") or {}
    if cons and "error" not in cons:
        from . import consumers
        md += [consumers.markdown(cons), ""]
    ws = part.get("warm_start")
    if isinstance(ws, list) and ws:
        from . import warm_start
        md += ["## The second process starts warm", "", warm_start.table(ws), ""]
    ov = part.get("overheads") or {}
    if ov and "error" not in ov:
        md += ["## Scalar reads, tracing and replay", "", "```", json.dumps(ov, indent=1), "```", ""]
    sc = part.get("scipy_suite")
    if sc:
        md += ["## SciPy's suite: slowest tests against array-api-strict", "",
               "| test | lazyarray | array-api-strict |", "|---|---|---|"]
        md += [f"| `{t['test']}` | {t['lazyarray_s']:.2f} s | {t['strict_s']:.3f} s |" for t in sc["slowest"]]
        md.append("")
    if part.get("memory"):
        from . import memory
        md += [memory.markdown(part["memory"]), ""]
    return "\n".join(md)
