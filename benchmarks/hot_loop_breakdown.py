"""Where a steady-state hot-loop call's time goes (issue 11 target 5), next to jax.jit's.

``python -m benchmarks.hot_loop_breakdown [--only kmeans,logreg] [--rounds 25]``

Target 5 compares one lazyarray call of the `kmeans` / `logreg` workloads (trace the Python loop,
then compute it) with one call of jax.jit of the whole loop (cached trace, one program). This
splits the lazyarray call into

- trace: running the workload's Python code, which builds the pending graph, less the budget
  cuts that fall inside it (logreg's 100 steps pass the 1000-node budget once),
- sync host: the final `evaluate` and the cuts, less the programs they execute (walking the
  graph, `_segment`'s chunking (also shown alone), keys and bookkeeping),
- programs: the XLA executions (`_runtime.execute`), in the cut and in the final sync,
- programs replayed: the same executables with the same inputs run back to back, with nothing
  else around them (what the compiled code alone costs),

the trace and the sync host also as the main thread's CPU time (its CPU inside the programs'
executes left out: the caller runs part of each program), which the machine's load barely moves,
and times jax.jit's call beside it, all interleaved round by round (the machine is shared: the
medians and minimums of interleaved rounds are what to compare). Diagnostic only: the benchmark
harness (`benchmarks.run`) measures the verdicts; this measures nothing it reports.
"""
from __future__ import annotations

import argparse
import functools
import time

import numpy as np

from . import workloads as w


def _setup(name):
    rng = np.random.default_rng(0)
    if name == "kmeans":
        return w.kmeans, w._blobs(100_000, 16, 8, np.float32)(rng)
    return w.logreg, w._logistic(50_000, 32, np.float32)(rng)


def _warm_up(xp, engine, fn, lazy_in, seconds=60.0):
    """As the harness warms lazyarray up (`peers.Lazy.warm_up`): call until a call interprets
    nothing, letting the background compiles finish after each, so the timed calls run the
    compiled programs (a loop's prefix is interpreted until its compile has paid). Returns the
    number of calls; the metrics are reset after it."""
    end, calls = time.perf_counter() + seconds, 0
    while True:
        before = xp.metrics.interpreted
        xp.evaluate(fn(xp, *lazy_in))
        engine.wait_for_compiles()
        calls += 1
        if (xp.metrics.interpreted == before and calls > 2) or time.perf_counter() > end:
            xp.metrics.reset()
            return calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="kmeans,logreg")
    ap.add_argument("--rounds", type=int, default=25)
    args = ap.parse_args(argv)

    import jax
    jax.config.update("jax_enable_x64", True)  # as the harness's jax.jit peer
    import jax.numpy as jnp

    import lazyarray as xp
    from lazyarray import _engine, _runtime, _segment

    clock = {"exec": 0.0, "chunks": 0.0, "cut": 0.0, "exec cpu": 0.0, "cut cpu": 0.0}
    recorded = []
    execute, chunks, cut_graph = _runtime.execute, _segment.chunks, _engine.cut_graph

    def timed_execute(executable, inputs):
        t, c = time.perf_counter(), time.thread_time()
        out = execute(executable, inputs)
        for o in out:
            o.block_until_ready()
        clock["exec"] += time.perf_counter() - t
        clock["exec cpu"] += time.thread_time() - c
        recorded.append((executable, list(inputs)))
        return out

    def timed_chunks(*a, **k):
        t = time.perf_counter()
        try:
            return chunks(*a, **k)
        finally:
            clock["chunks"] += time.perf_counter() - t

    def timed_cut():
        t, c = time.perf_counter(), time.thread_time()
        try:
            return cut_graph()
        finally:
            clock["cut"] += time.perf_counter() - t
            clock["cut cpu"] += time.thread_time() - c

    _runtime.execute, _segment.chunks, _engine.cut_graph = timed_execute, timed_chunks, timed_cut
    try:
        for name in args.only.split(","):
            fn, arrays = _setup(name)
            lazy_in = [xp.asarray(a) for a in arrays]
            jax_in = [jnp.asarray(a) for a in arrays]
            jitted = jax.jit(functools.partial(fn, jnp))
            for _ in range(3):
                jitted(*jax_in).block_until_ready()
            warm = _warm_up(xp, _engine, fn, lazy_in)
            rows = {k: [] for k in ("lazy call", "trace", "sync host", "programs", "chunks", "replayed", "jax.jit",
                                    "trace CPU", "sync host CPU")}
            for _ in range(args.rounds):
                for k in clock:
                    clock[k] = 0.0
                recorded.clear()
                c0, t0 = time.thread_time(), time.perf_counter()
                r = fn(xp, *lazy_in)
                c1, t1 = time.thread_time(), time.perf_counter()
                cuts, cuts_cpu = clock["cut"], clock["cut cpu"]
                xp.evaluate(r)
                c2, t2 = time.thread_time(), time.perf_counter()
                rows["trace CPU"].append(c1 - c0 - cuts_cpu)
                rows["sync host CPU"].append(c2 - c1 + cuts_cpu - clock["exec cpu"])
                rows["lazy call"].append(t2 - t0)
                rows["trace"].append(t1 - t0 - cuts)
                rows["sync host"].append(t2 - t1 + cuts - clock["exec"])
                rows["programs"].append(clock["exec"])
                rows["chunks"].append(clock["chunks"])
                replay = list(recorded)
                t = time.perf_counter()
                for executable, inputs in replay:  # (no donated inputs in these loops' programs)
                    for o in execute(executable, inputs):
                        o.block_until_ready()
                rows["replayed"].append(time.perf_counter() - t)
                t = time.perf_counter()
                jitted(*jax_in).block_until_ready()
                rows["jax.jit"].append(time.perf_counter() - t)
            jit = np.median(rows["jax.jit"])
            print(f"== {name}: {len(replay)} programs a call, {args.rounds} interleaved rounds"
                  f" (after {warm} warm-up calls; {xp.metrics.interpreted} pieces interpreted since)")
            for k, v in rows.items():
                v = np.asarray(v)
                print(f"  {k:13s} median {np.median(v) * 1e3:7.2f} ms  min {v.min() * 1e3:7.2f} ms"
                      f"  median / jax.jit's {np.median(v) / jit:5.2f}")
    finally:
        _runtime.execute, _segment.chunks, _engine.cut_graph = execute, chunks, cut_graph


if __name__ == "__main__":
    main()
