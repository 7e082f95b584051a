"""Long runs: does anything grow? A loop of small ops run for many iterations, never reading a
value (graph cuts) or reading one every step (a sync each), measuring resident memory (RSS)
after a warm-up and at the end, the compile count and the size of every engine structure that
is kept between syncs.

    .venv/bin/python tests/long_runs.py [--iterations 100000] [--mode noread|read|both]

prints one JSON line per mode. The warm-up (a tenth of the iterations, at least 2000, and then
blocks of 500 until one starts no compile) comes on top of the measured 90%. tests/test_long_runs.py runs it with fewer iterations in CI.
"""
import argparse
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import lazyarray as xp  # noqa: E402
from lazyarray import _config, _engine, _graph, _metrics  # noqa: E402
from lazyarray._engine_state import state  # noqa: E402


def rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def sizes():
    """The engine's structures that live between syncs."""
    m = _metrics.metrics
    return {
        **state.sizes(),  # programs, sightings, scalar buffers, unsplit sites, checks, ...
        "pending_refs": len(_graph.pending),
        "pool_free_bytes": state.pool.bytes,
        "pool_returned": len(state.pool.returned),
        "sync_sites": len(m.sync_sites),
        "miss_explanations": len(m.miss_explanations),
        "interpreter_errors": len(m.interpreter_errors),
        "gc_objects": len(gc.get_objects()),
    }


def step(x, big, i, read):
    """One iteration: elementwise ops with a Python scalar that changes every step (a graph
    parameter), an in-place write at a changing index, a reduction, a 64 KiB temporary that
    dies (the buffer pool) and, with `read`, a read."""
    x = x * 0.5 + float(i % 1000)
    x[i % 16] = 1.0
    x += xp.sum(x) * 1e-3
    b = big * 1.0001
    x = x + b[:16]
    if read:
        float(x[3])
    return x


def run(iterations, read):
    _config.pool_min_bytes = 32 << 10  # the 64 KiB temporaries go through the buffer pool
    rng = np.random.default_rng(0)
    x = xp.asarray(rng.standard_normal(16))
    big = xp.asarray(rng.standard_normal(8192))
    warm = max(iterations // 10, 2000)  # past the first compiles (XLA itself takes ~60 MiB then)
    t0 = time.perf_counter()
    for i in range(warm):
        x = step(x, big, i, read)
    # Go on until a block of iterations starts no compile: the process's first XLA compile
    # alone takes ~60 MiB that stay, and the tier's compiles come when interpreting has paid.
    for _ in range(20):
        float(x[0])
        _engine.wait_for_compiles()
        started = xp.metrics.compiles + xp.metrics.background_compiles
        for i in range(warm, warm + 500):
            x = step(x, big, i, read)
        warm += 500
        float(x[0])
        _engine.wait_for_compiles()
        if xp.metrics.compiles + xp.metrics.background_compiles == started:
            break
    # The process's first XLA compile allocates ~60 MiB that stay (LLVM, the compiler's own
    # state): make sure it happened before measuring, whatever the interpreter tier's timing
    # (its ski rental compiles a graph once interpreting it has cost as much, later on a slow
    # machine), so growth measures leaks, not XLA's one-time set-up.
    first, _config.interpret_first = _config.interpret_first, 0
    float(xp.sum(xp.ones(7) * 3.0 + 1.0))
    _config.interpret_first = first
    measured = iterations - max(iterations // 10, 2000)
    gc.collect()
    rss0, compiles0, sizes0 = rss_bytes(), xp.metrics.compiles, sizes()
    t1 = time.perf_counter()
    for i in range(warm, warm + measured):
        x = step(x, big, i, read)
    value = float(x[0])
    _engine.wait_for_compiles()
    t2 = time.perf_counter()
    gc.collect()
    return {
        "mode": "read" if read else "noread",
        "iterations": warm + measured,
        "measured_iterations": measured,
        "warmup_iterations": warm,
        "rss_after_warmup_mib": round(rss0 / 2**20, 2),
        "rss_at_end_mib": round(rss_bytes() / 2**20, 2),
        "rss_growth_mib": round((rss_bytes() - rss0) / 2**20, 2),
        "compiles_after_warmup": compiles0,
        "compiles_at_end": xp.metrics.compiles,
        "us_per_iteration": round((t2 - t1) / max(measured, 1) * 1e6, 1),
        "seconds_total": round(t2 - t0, 1),
        "sizes_after_warmup": sizes0,
        "sizes_at_end": sizes(),
        "value_is_finite": bool(np.isfinite(value)),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=100_000)
    ap.add_argument("--mode", choices=("noread", "read", "both"), default="both")
    args = ap.parse_args(argv)
    for read in {"noread": (False,), "read": (True,), "both": (False, True)}[args.mode]:
        print(json.dumps(run(args.iterations, read)), flush=True)


if __name__ == "__main__":
    main()
