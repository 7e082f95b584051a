"""Memory: import cost and the working set of a training loop (issue 11 target 8).

``python -m benchmarks.memory`` writes benchmarks/memory.json; ``markdown(results)`` renders it
(report.py calls it). Every figure comes from a fresh subprocess, read from /proc/self/status
(VmRSS: resident now; VmHWM: the peak, reset by writing 5 to /proc/self/clear_refs).

- import: seconds and resident MB after ``import lib``, then after a first tiny computation
  ("ready": jax and lazyarray create their XLA client there, torch its thread pools).
- gradient descent: 500 steps of logistic regression on 10000x100 float64, written once against
  the namespace. Baseline: resident memory once ready (import and first computation done), before
  the data exists. Working set: the peak during data creation and the loop, above that baseline.
  The target: lazyarray's working set at most 3x numpy's. Its baseline above numpy's (importing
  jax) is in the import table, not counted in the working set.

lazyarray's loop runs three ways: cold (an empty compile cache directory: its programs compile,
so XLA's compiler is paged in and its heap grows, the larger part of the figure); cold with the
compiler in the baseline (the first tiny computation compiled instead of interpreted, so the
baseline is comparable to jax's 'ready' and the working set is the loop's own); and warm (the
same script run again, its programs loaded from the disk cache, on by default); for information,
cold with LAZYARRAY_COMPILE_PROCESS=1 (opt-in: XLA's compiler runs in a helper process, whose peak
resident memory the row names; no verdict). Columns that
explain the figure: the pages of shared libraries' code added (RssFile), the anonymous memory
added (RssAnon: heap, buffers; both at the loop's end), of that, for lazyarray, the XLA buffers
alive at the end (the data on the device: a large asarray'd array's host copy becomes its device
buffer, `_runtime.put_private`, so it is not counted twice; the loop's hoisted transpose of X,
`_segment._hoist_transposes`, is a second copy of X), and the resident size after
glibc's malloc_trim (free heap glibc still kept; lazyarray itself trims once compiles pause,
`_heap_trim`; its background work and a trim then due are done before the baseline is read).
"""
from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
IMPORT_LIBS = ("numpy", "array_api_strict", "torch", "jax", "lazyarray")
LOOP_LIBS = ("numpy", "lazyarray", "torch")
ROWS, COLS, STEPS, LR = 10_000, 100, 500, 0.5
TARGET_RATIO = 3.0
WARM = "warm cache"
COMPILER_READY = "compiler in the baseline"
HELPER = "cold, LAZYARRAY_COMPILE_PROCESS=1"


# -- in the child process -------------------------------------------------------------------------

def _status():
    """MB: resident now (VmRSS), its peak (VmHWM), and the resident pages that are the process's
    own (RssAnon: heap, buffers) or mapped from files (RssFile: shared libraries' code and data)."""
    text = open("/proc/self/status").read()
    return {k: int(re.search(rf"{k}:\s+(\d+)", text).group(1)) / 1024
            for k in ("VmRSS", "VmHWM", "RssAnon", "RssFile")}


def _reset_peak():
    """Make VmHWM the current VmRSS (Linux: clear_refs 5); False where that is refused."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _namespace(lib):
    if lib == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        return jnp
    if lib == "torch":
        import torch
        return torch
    return __import__(lib)


def _first_computation(lib, xp):
    """A tiny computation whose value is read: what any real use does first."""
    x = xp.ones(3, dtype=xp.float64)
    return float(xp.sum(x * 2.0))


def _logistic_gd(xp, X, y, steps, lr):
    """Gradient descent on the mean logistic loss; returns the final loss (a read)."""
    n, d = X.shape
    w = xp.zeros(d, dtype=X.dtype)
    for _ in range(steps):
        p = 1.0 / (1.0 + xp.exp(-(X @ w)))
        w = w - lr * (X.T @ (p - y)) / n
    p = 1.0 / (1.0 + xp.exp(-(X @ w)))
    return float(-xp.mean(y * xp.log(p) + (1.0 - y) * xp.log(1.0 - p)))


def child_import(lib):
    start = _status()
    t0 = time.perf_counter()
    xp = _namespace(lib)
    seconds = time.perf_counter() - t0
    imported = _status()
    t0 = time.perf_counter()
    _first_computation(lib, xp)
    first = time.perf_counter() - t0
    ready = _status()
    return {"lib": lib, "import_seconds": seconds, "first_seconds": first,
            "start_mb": start["VmRSS"], "import_mb": imported["VmRSS"], "ready_mb": ready["VmRSS"]}


def child_loop(lib, compiled_first=False):
    """The loop's figures; with `compiled_first` (lazyarray), the first tiny computation is
    compiled rather than interpreted, so the baseline holds XLA's compiler (as jax's 'ready')."""
    import numpy as np
    xp = _namespace(lib)
    imported = _status()["VmRSS"]
    if compiled_first:
        tier, xp.config.interpret_first = xp.config.interpret_first, 0
        _first_computation(lib, xp)
        xp.config.interpret_first = tier
    else:
        _first_computation(lib, xp)
    if lib == "lazyarray":  # (its background work done, the heap trim due after a compile included:
        xp._engine.wait_for_compiles()  # the baseline must not hold memory the loop's time gives back)
        xp._heap_trim.flush()
    ready = _status()
    baseline = ready["VmRSS"]
    peak_reset = _reset_peak()
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((ROWS, COLS))
    y = (X @ rng.standard_normal(COLS) + rng.standard_normal(ROWS) > 0).astype(np.float64)
    if lib != "numpy":
        X, y = xp.asarray(X), xp.asarray(y)  # (the numpy originals die here)
    loss = _logistic_gd(xp, X, y, STEPS, LR)
    seconds = time.perf_counter() - t0
    end = _status()
    out = {"lib": lib, "import_mb": imported, "baseline_mb": baseline, "peak_mb": end["VmHWM"],
           "end_mb": end["VmRSS"], "anon_added_mb": end["RssAnon"] - ready["RssAnon"],
           "file_added_mb": end["RssFile"] - ready["RssFile"], "seconds": seconds, "loss": loss,
           "peak_reset": peak_reset}
    if lib == "lazyarray":
        m = xp.metrics
        out.update(compiles=m.compiles, loaded=getattr(m, "disk_hits", None),
                   pool_mb=xp._pool.pool.bytes / 2**20, xla_buffers_mb=_live_buffers_mb())
        xp._engine.wait_for_compiles()
        if xp._compile_process.compiles:  # (LAZYARRAY_COMPILE_PROCESS=1: the compiler's memory was the helper's)
            out["helper_peak_mb"] = xp._compile_process.shutdown()
        import ctypes
        try:  # what of the anonymous growth is freed heap glibc kept (not returned to the OS)
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            out["trimmed_mb"] = _status()["VmRSS"]
        except (OSError, AttributeError):
            pass
    return out


def _live_buffers_mb():
    """MB of lazyarray's XLA buffers alive now (the loop's data and state on the device: on the
    CPU they are anonymous memory of this process), or None where jaxlib cannot list them."""
    try:
        from lazyarray import _runtime
        return sum(a.nbytes for a in _runtime.client().live_arrays()) / 2**20
    except Exception:  # (another jaxlib)
        return None


# -- in the parent --------------------------------------------------------------------------------

def _run_child(kind, lib, env):
    proc = subprocess.run([sys.executable, "-m", "benchmarks.memory", "--child", kind, lib],
                          capture_output=True, text=True, env=env, cwd=os.path.dirname(HERE))
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"lib": lib, "error": tail[:200]}
    return json.loads(lines[-1])


def measure(repeats=3):
    """The median (by the figure that matters) of `repeats` fresh processes per cell."""
    results = {"import": {}, "loop": {}, "config": {"rows": ROWS, "cols": COLS, "steps": STEPS,
                                                     "repeats": repeats, "target_ratio": TARGET_RATIO}}
    env = dict(os.environ)
    for lib in IMPORT_LIBS:
        runs = [_run_child("import", lib, env) for _ in range(repeats)]
        results["import"][lib] = _medians(runs)
        print(f"import {lib}: {results['import'][lib]}", flush=True)
    by_ws = lambda r: r["peak_mb"] - r["baseline_mb"]  # noqa: E731
    for lib in LOOP_LIBS:
        runs, warm, ready, helper = [], [], [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as cache:
                runs.append(_run_child("loop", lib, dict(env, LAZYARRAY_CACHE_DIR=cache)))
                if lib == "lazyarray":  # the same script run again: its programs load from disk
                    warm.append(_run_child("loop", lib, dict(env, LAZYARRAY_CACHE_DIR=cache)))
            if lib == "lazyarray":  # cold again, but the baseline holds XLA's compiler
                with tempfile.TemporaryDirectory() as cache:
                    ready.append(_run_child("loop-compiled-first", lib, dict(env, LAZYARRAY_CACHE_DIR=cache)))
                with tempfile.TemporaryDirectory() as cache:  # cold, the compiler in a helper process (opt-in)
                    helper.append(_run_child("loop", lib, dict(env, LAZYARRAY_CACHE_DIR=cache,
                                                               LAZYARRAY_COMPILE_PROCESS="1")))
        results["loop"][lib] = _median_run(runs, "peak_mb", by_ws)
        print(f"loop {lib}: {results['loop'][lib]}", flush=True)
        for label, extra in ((COMPILER_READY, ready), (WARM, warm), (HELPER, helper)):
            if extra:
                results["loop"][f"{lib} ({label})"] = r = _median_run(extra, "peak_mb", by_ws)
                print(f"loop {lib} ({label}): {r}", flush=True)
    return results


def _medians(runs):
    """Each figure's median over the runs (times and sizes vary independently)."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0]
    return {k: (statistics.median(r[k] for r in ok) if isinstance(v, float) else v)
            for k, v in ok[0].items()}


def _median_run(runs, key, by=None):
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0]
    ok.sort(key=by or (lambda r: r[key]))
    return ok[len(ok) // 2]


def verdicts(results):
    """(what, verdict, figure) lines for the target: the cold run (compiles happen) and the warm
    one (the same script again, its programs loaded from the disk cache)."""
    loop, cfg = results.get("loop", {}), results.get("config", {})
    ratio_max = cfg.get("target_ratio", TARGET_RATIO)
    np_run = loop.get("numpy", {})
    out = []
    for name, label in (("lazyarray", "cold compile cache"),
                        (f"lazyarray ({COMPILER_READY})", "cold, baseline after one compiled program"),
                        (f"lazyarray ({WARM})", "warm disk cache")):
        lz_run = loop.get(name, {})
        what = (f"lazyarray's working set <= {ratio_max:g}x numpy's ({cfg.get('steps', STEPS)}-step "
                f"logistic GD, {cfg.get('rows', ROWS)}x{cfg.get('cols', COLS)} float64, {label})")
        if "peak_mb" not in np_run or "peak_mb" not in lz_run:
            out.append((what, "NOT MEASURED", lz_run.get("error") or np_run.get("error") or "-"))
            continue
        ws_np = np_run["peak_mb"] - np_run["baseline_mb"]
        ws_lz = lz_run["peak_mb"] - lz_run["baseline_mb"]
        ratio = ws_lz / ws_np if ws_np > 0 else float("inf")
        out.append((what, "PASS" if ratio <= ratio_max else "MISS",
                    f"{ws_lz:.1f} MB vs {ws_np:.1f} MB: {ratio:.2f}x (of it, pages of shared "
                    f"libraries' code: {lz_run['file_added_mb']:.1f} MB)"))
        rel = abs(lz_run["loss"] - np_run["loss"]) / abs(np_run["loss"])
        out.append((f"{name}: final loss equals numpy's (rel 1e-9)", "PASS" if rel <= 1e-9 else "MISS",
                    f"{lz_run['loss']:.12g} vs {np_run['loss']:.12g}"))
    return out


def markdown(results) -> str:
    """The memory section of RESULTS.md: two tables and the verdict lines."""
    md = ["## Memory", "",
          "Fresh process per figure; resident memory from /proc/self/status (VmRSS, peak VmHWM). "
          "*Ready*: after a first tiny computation (the XLA client exists).", "",
          "| library | import (s) | first computation (s) | RSS after import (MB) | RSS when ready (MB) |",
          "|---|---|---|---|---|"]
    for lib, r in results.get("import", {}).items():
        if "error" in r:
            md.append(f"| {lib} | failed: {r['error']} | | | |")
        else:
            md.append(f"| {lib} | {r['import_seconds']:.2f} | {r['first_seconds']:.3f} | "
                      f"{r['import_mb']:.0f} | {r['ready_mb']:.0f} |")
    cfg = results.get("config", {})
    md += ["", f"{cfg.get('steps', STEPS)}-step logistic-regression gradient descent on "
           f"{cfg.get('rows', ROWS)}x{cfg.get('cols', COLS)} float64, data made inside the window. "
           "Working set = peak minus the ready baseline. lazyarray: cold (empty compile cache), "
           "cold with one compiled program in the baseline (XLA's compiler loaded, as in jax's "
           "'ready'), warm (programs loaded from the disk cache); and, for information only (no verdict), "
           "cold with the opt-in LAZYARRAY_COMPILE_PROCESS=1 (XLA's compiler in a helper process that exits "
           "once compiles pause, `lazyarray._compile_process`: its own peak resident memory is named "
           "beside, memory the machine holds while it compiles).", "",
           "| library | baseline (MB) | peak (MB) | working set (MB) | of it, library code pages (MB) "
           "| anonymous memory added, at the end (MB) | of it, XLA buffers alive (MB) | after (MB) "
           "| after malloc_trim (MB) | loop (s) | final loss |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for lib, r in results.get("loop", {}).items():
        if "error" in r:
            md.append(f"| {lib} | failed: {r['error']} | | | | | | | | | |")
        else:
            trimmed = f"{r['trimmed_mb']:.0f}" if "trimmed_mb" in r else "-"
            buffers = f"{r['xla_buffers_mb']:.1f}" if r.get("xla_buffers_mb") is not None else "-"
            name = lib if "helper_peak_mb" not in r else f"{lib} (the helper process's peak: {r['helper_peak_mb']:.0f} MB)"
            md.append(f"| {name} | {r['baseline_mb']:.0f} | {r['peak_mb']:.0f} | "
                      f"{r['peak_mb'] - r['baseline_mb']:.1f} | {r['file_added_mb']:.1f} | "
                      f"{r.get('anon_added_mb', float('nan')):.1f} | {buffers} | {r['end_mb']:.0f} | "
                      f"{trimmed} | {r['seconds']:.2f} | {r['loss']:.10g} |")
    md += [""] + [f"- **{v}** {what}: {fig}" for what, v, fig in verdicts(results)] + [""]
    return "\n".join(md)


def main(argv):
    if argv[:1] == ["--child"]:
        kind, lib = argv[1], argv[2]
        out = child_import(lib) if kind == "import" else child_loop(lib, kind == "loop-compiled-first")
        print(json.dumps(out))
        return
    repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else 3
    results = measure(repeats)
    path = os.path.join(HERE, "memory.json")
    if "--out" in argv:
        path = argv[argv.index("--out") + 1]
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(markdown(results))
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
