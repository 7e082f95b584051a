"""Issue 11, targets 3 and 4: what a scalar read, a traced op and a cached replay cost.

Scalar reads (target 3): `bool(t[i] <= x)` per read with 0 / 300 / 3000 unrelated live pending
arrays around (a sync must not scan them), and a de Boor-style recursive B-spline evaluation
(SciPy's naive one: a `bool()` per knot comparison, results kept pending until the end) at
2 / 4 / 8 / 16 points, with numpy and array-api-strict in the same run: its time must grow
linearly with the points. The `is_lazy_array` probe of array-api-compat
(`bool(xp.any(xp.reshape(x, (-1,))[0]))`) on a pending array is timed too.

Tracing and replay (target 4): microseconds per op of a long unread chain (budget cuts
included), to materialize a small cached graph, and the floor under it: the same program's
PJRT execute plus the copy to numpy, called directly.

Tracing is pure Python, and this shared VM runs Python at one of two speeds, a process at a time
(the same pure-Python loop takes 15-17 ms in some fresh processes and 20-29 ms in others), so the
per-op figure is the median of three processes (this one and two fresh ones, `--tracing`), each
reported with the time of a fixed pure-Python reference loop taken in it beside the chain: a
slow figure with a slow reference is the machine, a slow figure with a fast one is the code.

Run from a checkout (`.venv/bin/python benchmarks/overheads.py`): prints one JSON object.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time

import numpy as np

# the checkout this file is in, not the working directory's: run from elsewhere, "." would
# measure whatever lazyarray that directory holds
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _median_us(fn, reps):
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def naive_b(xp, x, k, i, t):
    """B-spline basis B_{i,k}(x), recursively (as SciPy's test helper `_naive_B`)."""
    if k == 0:
        return xp.asarray(1.0 if bool(t[i] <= x) and bool(x < t[i + 1]) else 0.0, dtype=xp.float64)
    if bool(t[i + k] == t[i]):
        c1 = 0.0
    else:
        c1 = (x - t[i]) / (t[i + k] - t[i]) * naive_b(xp, x, k - 1, i, t)
    if bool(t[i + k + 1] == t[i + 1]):
        c2 = 0.0
    else:
        c2 = (t[i + k + 1] - x) / (t[i + k + 1] - t[i + 1]) * naive_b(xp, x, k - 1, i + 1, t)
    return c1 + c2


def naive_eval(xp, x, t, c, k):
    """The spline's value at x, summing the basis (as SciPy's `_naive_eval`)."""
    if bool(x == t[k]):
        i = k
    else:
        i = int(xp.searchsorted(t, xp.reshape(x, (1,)))[0]) - 1
    return sum(c[i - j] * naive_b(xp, x, k, i - j, t) for j in range(k + 1))


def spline_case(xp, n_points, k=3):
    rng = np.random.default_rng(0)
    t_np = np.sort(rng.random(2 * k + 12))
    t_np[:k + 1], t_np[-k - 1:] = t_np[k], t_np[-k - 1]  # clamped knots
    c_np = rng.random(len(t_np) - k - 1)
    xs = np.linspace(t_np[k], t_np[-k - 1], n_points + 2)[1:-1]
    t, c = xp.asarray(t_np), xp.asarray(c_np)
    points = [xp.asarray(v) for v in xs]

    def run():
        values = [naive_eval(xp, x, t, c, k) for x in points]  # pending until read
        return np.asarray(xp.stack(values))
    return run


def spline_scaling(namespaces, sizes=(2, 4, 8, 16), reps=3):
    out = {}
    for name, xp in namespaces.items():
        row = {}
        for n in sizes:
            run = spline_case(xp, n)
            run()  # warm
            row[str(n)] = round(_median_us(run, reps) / 1e3, 3)  # ms
        out[name] = row
    return out


def scalar_read(xp, live, reads=300):
    t = xp.asarray(np.linspace(0.0, 1.0, 64))
    x = xp.asarray(0.5)
    a = xp.asarray(np.ones(8))
    keep = [a + float(j) for j in range(live)]  # unrelated pending arrays, alive during the reads
    for i in range(20):
        bool(t[i] <= x)
    samples = []
    for r in range(reads):
        i = r % 64
        t0 = time.perf_counter()
        bool(t[i] <= x)
        samples.append(time.perf_counter() - t0)
    del keep
    return statistics.median(samples) * 1e6


def lazy_probe(xp, reps=300):
    """array-api-compat's is_lazy_array probe on a pending array."""
    base = xp.asarray(np.arange(100.0))
    samples = []
    for _ in range(reps):
        y = base * 2.0 + 1.0
        t0 = time.perf_counter()
        bool(xp.any(xp.reshape(y, (-1,))[0]))
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def execute_floor(calls=2000, n=1000):
    """The cached `a * 2.0 + 1.0` program's PJRT execute plus the copy to numpy, called directly,
    and lazyarray's whole materialize-and-read of the same graph. n elements: above
    `_host_sync.SMALL`, so the graph gets a program (smaller ones are computed on the host).

    The program is compiled at the graph's first sight (`interpret_first` 0 while it is made):
    with the default tiers the tier policy's trial finds this graph cheaper interpreted and keeps
    it in the interpreter (`_tier_policy.end_trial`), so no program would be cached. The same
    read with the default tiers (interpreted) is measured beside it."""
    import lazyarray as xp
    from lazyarray import _config, _engine, _engine_state, _runtime
    from lazyarray._run_program import _inputs
    from lazyarray._graph import Plan
    from benchmarks import peers
    p, = peers.load_peers(["lazyarray"])
    # with the default tiers first (another shape: a structure of its own), in their steady state:
    # the ski rental compiles this graph after ~2,000 interpreted reads and the trial that follows
    # keeps it in the interpreter, so `warm_up` (until a call interprets nothing) would not end
    fn = p.prepare(lambda xp, a: a * 2.0 + 1.0)
    x = xp.asarray(np.full(n + 1, 3.0))
    for _ in range(2):
        _read_median_us(fn, x, 4000)
        _engine.wait_for_compiles()
    default_read = _read_median_us(fn, x, calls)
    first = _config.interpret_first
    _config.interpret_first = 0
    try:
        x = xp.asarray(np.ones(n))
        p.warm_up(fn, [x])
        y = fn(x)
    finally:
        _config.interpret_first = first
    plan = Plan([y._node])
    key = next(k for k in _engine_state.state.programs if k[2][:-1] == tuple(plan.sig))
    exe = _engine_state.state.programs[key].executable
    inputs = _inputs(plan.leaves, x._device)
    np.asarray(fn(x))

    def direct():
        _runtime.to_numpy(_runtime.execute(exe, inputs)[0])

    def pjrt_only():
        _runtime.execute(exe, inputs)
    read = _read_median_us(fn, x, calls)  # (first, as the floor's figures always followed it)
    return {"execute_us": round(_median_us(pjrt_only, calls), 2),
            "execute_and_copy_us": round(_median_us(direct, calls), 2),
            "materialize_and_read_us": round(read, 2),
            "default_tiers_read_us": round(default_read, 2)}


def _read_median_us(fn, x, calls):
    """Median microseconds of `np.asarray(fn(x))`, the graph recorded outside the timed span."""
    samples = []
    for _ in range(calls):
        y = fn(x)
        t0 = time.perf_counter()
        np.asarray(y)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def reference_loop_ms(rounds=5, n=300_000):
    """Median milliseconds of a fixed pure-Python loop (integer arithmetic and a list append): the
    speed at which this process runs Python, to read the tracing figure beside."""
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        acc, out = 0, []
        for i in range(n):
            acc += (i * 7) & 15
            if not i & 1023:
                out.append(acc)
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def tracing_in_this_process():
    """per_op (measure.per_op, 20 repetitions) with the reference loop timed before and after."""
    from benchmarks import measure, peers
    p, = peers.load_peers(["lazyarray"])
    before = reference_loop_ms()
    with p.context():
        per_op = measure.per_op(p, reps=20)
    after = reference_loop_ms()
    return {"per_op_us": round(per_op, 2), "reference_ms": round(statistics.median([before, after]), 1)}


def tracing_in_fresh_process():
    import subprocess
    proc = subprocess.run([sys.executable, __file__, "--tracing"], capture_output=True, text=True,
                          timeout=600)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    if "--tracing" in sys.argv[1:]:
        print(json.dumps(tracing_in_this_process()))
        return None
    import array_api_strict
    import lazyarray
    from benchmarks import measure, peers
    namespaces = {"numpy": np, "array_api_strict": array_api_strict, "lazyarray": lazyarray}
    result = {"spline_ms": spline_scaling(namespaces)}
    result["scalar_read_us"] = {name: {str(live): round(scalar_read(xp, live), 2) for live in (0, 300, 3000)}
                                for name, xp in namespaces.items()}
    result["is_lazy_probe_us"] = {name: round(lazy_probe(xp), 2) for name, xp in namespaces.items()}
    p, = peers.load_peers(["lazyarray"])
    runs = [tracing_in_this_process(), tracing_in_fresh_process(), tracing_in_fresh_process()]
    result["per_op_us"] = statistics.median(r["per_op_us"] for r in runs)
    result["per_op_runs"] = runs  # (per process: per_op_us and its reference_ms)
    with p.context():
        result["materialize_us"] = round(measure.materialize_overhead(p, 2000), 2)
    result["floor"] = execute_floor()
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
