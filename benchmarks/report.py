"""Turning measured cells into the console table, RESULTS.md, results.json and PNG plots."""
from __future__ import annotations

import json
import os

REFS = ("numpy-1t", "numpy", "jax.jit")   # speedup columns: ref median / peer median


def fmt_s(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_x(x):
    return "-" if x is None else f"{x:.2f}x"


def speedup(cells, peer, ref):
    """How many times faster ``peer`` is than ``ref`` (steady-state medians); >1 means faster."""
    a, b = cells.get(peer), cells.get(ref)
    if not a or not b or a.median is None or b.median is None or a.median == 0:
        return None
    return b.median / a.median


def _compiles(cell):
    """lazyarray's counters: compiles in the cold call, then compiles / cache hits in steady state."""
    m, st = cell.cold_metrics, cell.steady_metrics
    if "compiles" not in m:
        return ""
    text = f"cold: {m['compiles']} compiles"
    if m.get("interpreted"):
        text += f" ({m['interpreted']} programs interpreted meanwhile)"
    w = getattr(cell, "warm_metrics", {}) or {}
    if w.get("compiles"):
        text += f"; warm-up: {w['compiles']} compiles in the background"
    if "compiles" in st:
        text += f"; steady: {st['compiles']} compiles"
        if "cache_hits" in st:
            text += f", {st['cache_hits']} cache hits"
        text += f" in {st.get('calls')} calls"
    return text


def table_rows(workload, cells, peer_order):
    head = ["peer", "cold", "median", "compile", "reps"] + [f"speedup vs {r}" for r in REFS] + ["notes"]
    rows = []
    for name in peer_order:
        c = cells.get(name)
        if c is None:
            continue
        if c.status != "ok":
            rows.append([name, c.status.upper(), "-", "-", "-"] + ["-"] * len(REFS) + [c.note])
            continue
        rows.append([name, fmt_s(c.cold), fmt_s(c.median), fmt_s(c.compile), str(len(c.times))]
                    + [fmt_x(speedup(cells, name, r)) for r in REFS] + [_compiles(c)])
    return head, rows


def console(workload, cells, peer_order):
    head, rows = table_rows(workload, cells, peer_order)
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head) - 1)]
    lines = [f"\n== {workload.name}: {workload.title}"]
    for r in [head] + rows:
        lines.append("  ".join(str(v).ljust(w) for v, w in zip(r, widths)) + "  " + str(r[-1]))
    return "\n".join(lines)


def _md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(v) for v in r) + " |" for r in rows]
    return "\n".join(out)


# -- targets -------------------------------------------------------------------------------------


def verdict_word(ok):
    """PASS / MISS, or NOT MEASURED when there is no figure (ok is None)."""
    return "NOT MEASURED" if ok is None else ("PASS" if ok else "MISS")


def _verdict(ok, text):
    return verdict_word(ok), text


def targets(results):
    """The issue-4 targets, each as (target, verdict, figure), computed from the numbers."""
    lazy = "lazyarray"
    cells = results["cells"]
    over = results["overheads"].get(lazy, {})
    out = []

    v = over.get("per_op_us")
    out.append(("tracing <= 2 us per op",) + _verdict(
        None if not isinstance(v, float) else v <= 2.0,
        f"{v:.2f} us/op" if isinstance(v, float) else str(v or "lazyarray unavailable")))
    v = over.get("materialize_us")
    out.append(("cached-graph materialization overhead <= 10 us",) + _verdict(
        None if not isinstance(v, float) else v <= 10.0,
        f"{v:.1f} us per evaluate" if isinstance(v, float) else str(v or "lazyarray unavailable")))

    plain = sorted((w for w in results["workloads"] if w.name.startswith("elementwise-plain")),
                   key=lambda w: w.size)
    if plain:
        big = plain[-1]
        s = [speedup(cells[big.name], lazy, r) for r in ("numpy", "numpy-1t")]
        s = None if None in s else min(s)
        out.append((f"elementwise chain without trig at {big.size:.0e} >= 4x faster than numpy"
                    .replace("e+0", "e"),)
                   + _verdict(None if s is None else s >= 4.0,
                              "-" if s is None else f"{s:.2f}x (slower of the two numpy peers)"))
        mid = [w for w in plain if w.size == 100_000]
        if mid:
            s = [speedup(cells[mid[0].name], lazy, r) for r in ("numpy", "numpy-1t")]
            s = None if None in s else min(s)
            out.append(("elementwise chain without trig faster than numpy at 1e5",)
                       + _verdict(None if s is None else s > 1.0, "-" if s is None else f"{s:.2f}x"))

    for w in results["workloads"]:
        if not w.loop:
            continue
        c = cells[w.name]
        s = speedup(c, "jax.jit", lazy)   # lazy median / jit median
        out.append((f"{w.name} steady state within 1.25x of jax.jit",) + _verdict(
            None if s is None else s <= 1.25,
            "-" if s is None else f"{s:.2f}x jax.jit's time"))
        probe = results["loops"].get(w.name, {})
        a, b = probe.get(w.loop.counts[0], {}), probe.get(w.loop.counts[1], {})
        if "compiles" in a and "compiles" in b:
            ok, fig = b["compiles"] <= a["compiles"] + 2, (
                f"{a['compiles']} compiles for {w.loop.counts[0]} iterations, "
                f"{b['compiles']} for {w.loop.counts[1]} (PASS if growth <= 2)")
        else:
            ok, fig = None, (a.get("error") or b.get("error") or "no compile counts")
        out.append((f"{w.name} compile count bounded",) + _verdict(ok, fig))
        lc = c.get(lazy)
        one = probe.get(1, {}).get("compile_seconds")
        if lc and lc.median is not None and one is not None:
            limit = 2 * lc.median + one
            out.append((f"{w.name} cold <= 2x steady + one step's compile",) + _verdict(
                lc.cold <= limit, f"cold {fmt_s(lc.cold)} vs limit {fmt_s(limit)} "
                                  f"(steady {fmt_s(lc.median)}, one step's compile {fmt_s(one)})"))
        else:
            out.append((f"{w.name} cold <= 2x steady + one step's compile",)
                       + _verdict(None, "-"))
    suite = results.get("suites")
    if suite is not None:
        s, z = suite.get("array_api_strict", {}), suite.get("lazyarray", {})
        if "seconds" in s and "seconds" in z:
            ratio = z["seconds"] / s["seconds"]
            out.append(("scikit-learn's array-API suite on lazyarray within 3x of array-api-strict",)
                       + _verdict(ratio <= 3.0, f"{ratio:.2f}x ({z['seconds']:.0f} s vs {s['seconds']:.0f} s; "
                                                f"lazyarray {z['passed']} passed / {z['failed']} failed, "
                                                f"array-api-strict {s['passed']} passed / {s['failed']} failed)"))
        else:
            out.append(("scikit-learn's array-API suite on lazyarray within 3x of array-api-strict",)
                       + _verdict(None, suite.get("error") or s.get("error") or z.get("error") or "-"))
    return out


# -- files ---------------------------------------------------------------------------------------


def write_markdown(path, results, env):
    peers, order = results["peers"], results["peer_order"]
    md = ["# lazyarray benchmarks", "",
          f"Generated by `{env['command']}` on {env['date']}"
          + (" — QUICK run: reduced sizes and repeats, figures indicative only." if env["quick"] else "."),
          "", "## Setup", ""]
    md += [f"- {k}: {v}" for k, v in env["facts"].items()]
    md += ["- Peers: " + "; ".join(
        f"`{p.name}` = {p.label}" + ("" if p.available else f" (**unavailable**: {p.reason})")
        for p in peers)]
    md += ["- Times: `cold` is the first call (includes compiling for lazyarray and jax.jit); "
           "`median` is the steady-state median over `reps` repeats (machines are shared and noisy: "
           "trust medians and ratios, not single times). Each timed call includes forcing the "
           "result (lazyarray `evaluate`, jax `block_until_ready`).",
           "- `compile`: jax.jit = XLA compile of the whole function (`jit(f).lower(...).compile()`, "
           "measured separately); lazyarray = `metrics.compile_seconds` during the cold call.",
           "- `speedup vs R` = R's median / this peer's median (> 1: this peer is faster).",
           "- scikit-learn workloads cannot run on jax: its arrays are immutable and scikit-learn's "
           "array-API code assigns in place (scikit-learn#29647).", ""]

    if results.get("issue11"):
        from . import issue11
        md += [issue11.markdown(results, results["issue11"]), ""]

    md += ["## Earlier targets (issue 4)", "", "| target | verdict | figure |", "|---|---|---|"]
    md += [f"| {t} | **{v}** | {f} |" for t, v, f in targets(results)]
    md.append("")

    md += ["## Results", ""]
    for w in results["workloads"]:
        head, rows = table_rows(w, results["cells"][w.name], order)
        md += [f"### {w.name}", "", w.title, "", _md_table(head, rows), ""]

    if results["loops"]:
        md += ["## lazyarray compiles per loop length", "",
               "Each row is a first call on a fresh input shape, so nothing was cached.", "",
               "| workload | iterations | compiles | compile time | cold call |", "|---|---|---|---|---|"]
        for name, probe in results["loops"].items():
            for iters, m in probe.items():
                if "error" in m:
                    md.append(f"| {name} | {iters} | FAIL: {m['error']} | | |")
                else:
                    md.append(f"| {name} | {iters} | {m.get('compiles', '-')} | "
                              f"{fmt_s(m.get('compile_seconds'))} | {fmt_s(m.get('seconds'))} |")
        md.append("")

    if results["overheads"]:
        md += ["## Overheads", "",
               "`per op`: one `x = x + 1.0` on 10 float64 (lazyarray: building the node only). "
               "`materialize`: forcing an already-built tiny graph whose program is cached "
               "(lazyarray `evaluate`; jax `block_until_ready`; numpy: nothing to do). "
               "`call`: building and forcing that tiny function, cached.", "",
               "| peer | per op | materialize | call |", "|---|---|---|---|"]
        for name in order:
            row = results["overheads"].get(name)
            if row is None:
                continue
            cells = [f"{v:.2f} us" if isinstance(v, float) else (v or "-")
                     for v in (row.get("per_op_us"), row.get("materialize_us"), row.get("call_us"))]
            md.append(f"| {name} | " + " | ".join(cells) + " |")
        md.append("")
    scaling = os.path.join(os.path.dirname(os.path.abspath(__file__)), "SCALING.md")
    if os.path.exists(scaling):  # issue 13's figures, from `python -m benchmarks.scaling` (its own run)
        with open(scaling) as f:
            body = f.read().split("\n", 1)[1]
        md += ["## Several devices (from benchmarks/SCALING.md, `python -m benchmarks.scaling`)", body, ""]
    md += ["## Plots", "", "![elementwise](elementwise.png)", "", "![speedup](speedup.png)", ""]
    with open(path, "w") as f:
        f.write("\n".join(md))


def write_json(path, results, env):
    data = {"env": env, "overheads": results["overheads"], "suites": results.get("suites"),
            "issue11": results.get("issue11"),
            "loops": {k: {str(i): m for i, m in v.items()} for k, v in results["loops"].items()},
            "cells": {w: {p: {"status": c.status, "note": c.note, "cold": c.cold, "median": c.median,
                              "times": c.times, "compile": c.compile,
                              "cold_metrics": c.cold_metrics,
                              "warm_metrics": c.warm_metrics, "steady_metrics": c.steady_metrics}
                          for p, c in row.items()} for w, row in results["cells"].items()}}
    with open(path, "w") as f:
        json.dump(data, f, indent=1, default=str)


def write_plots(outdir, results):
    try:
        import matplotlib
    except ImportError:  # the bench extra brings it (bin/bench.sh); the tables are written already
        print("matplotlib is not installed: plots not written")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order, cells = results["peer_order"], results["cells"]
    colour = {p: f"C{i}" for i, p in enumerate(("lazyarray", "jax.jit", "jax", "numpy-1t", "numpy", "strict"))}
    elem = [w for w in results["workloads"] if w.group == "elementwise"]
    if elem:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
        for ax, form in zip(axes, ("plain", "sin")):
            ws = sorted((w for w in elem if w.name.startswith(f"elementwise-{form}")), key=lambda w: w.size)
            for peer in order:
                pts = [(w.size, cells[w.name][peer].median / w.size * 1e9) for w in ws
                       if peer in cells[w.name] and cells[w.name][peer].median]
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=peer, color=colour.get(peer),
                            ls="--" if peer == "numpy-1t" else "-")
            ax.set(xscale="log", yscale="log", xlabel="elements", title=f"11-op chain ({form})")
            ax.grid(True, which="both", alpha=0.3)
        axes[0].set_ylabel("steady-state ns per element (median)")
        axes[1].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "elementwise.png"), dpi=110)
        plt.close(fig)

    other = [w for w in results["workloads"] if w.group != "elementwise"]
    peers = [p for p in order if p != "numpy-1t"]
    if other:
        fig, ax = plt.subplots(figsize=(11, 4.5))
        width = 0.8 / max(len(peers), 1)
        for i, peer in enumerate(peers):
            xs, ys = [], []
            for j, w in enumerate(other):
                s = speedup(cells[w.name], peer, "numpy-1t")
                if s:
                    xs.append(j + (i - (len(peers) - 1) / 2) * width)
                    ys.append(s)
            if xs:
                ax.bar(xs, ys, width, label=peer, color=colour.get(peer))
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(other)), [w.name for w in other], rotation=20, ha="right")
        ax.set_ylabel("speedup vs numpy 1 thread (median, log)")
        ax.legend(fontsize=8)
        ax.grid(True, axis="y", which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "speedup.png"), dpi=110)
        plt.close(fig)
