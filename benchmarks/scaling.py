"""Scaling over several devices (issue 13, item 6): the k-means and logistic-regression loops of
`workloads` with X's rows split over 1, 2, 4 and 8 devices (`lazyarray.sharding`), each device
count in its own process (XLA_FLAGS=--xla_force_host_platform_device_count=N must be set before
jax starts). Strong scaling: the same rows split further; weak scaling: rows grow with the
devices. Also one device without a mesh (the plain single-device path), as the baseline.

On the CPU the forced host devices share this machine's cores (2 here): the figures show what
partitioning costs and that answers and compile counts do not change, not a speedup.

    .venv/bin/python -m benchmarks.scaling            # writes benchmarks/SCALING.md and scaling.json
    .venv/bin/python -m benchmarks.scaling --quick
    .venv/bin/python -m benchmarks.scaling --mesh-overhead   # only the no-mesh / 1-device-mesh rounds
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _child(args):
    """One process: time each workload on `args.devices` devices (a mesh; 0: no mesh)."""
    import numpy as np

    import lazyarray as xp
    from lazyarray import _engine
    from benchmarks import workloads as w
    from lazyarray.sharding import Mesh, NamedSharding, PartitionSpec as P

    devs = xp.__array_namespace_info__().devices()
    n = args.devices
    if n:
        mesh = Mesh(devs[:n], ("x",))
        rows, rep = NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P())
        vec_rows = NamedSharding(mesh, P("x"))
    else:
        rows = rep = vec_rows = devs[0]
    out = {}
    rng = np.random.default_rng(0)
    for name, total in (("kmeans", args.kmeans_rows), ("logreg", args.logreg_rows)):
        if name == "kmeans":
            X, C = w._blobs(total, 16, 8, np.float32)(rng)
            arrays = (xp.asarray(X, device=rows), xp.asarray(C, device=rep))
            fn = lambda X, C: w.kmeans(xp, X, C, iters=args.iters)  # noqa: E731
        else:
            X, y, w0 = w._logistic(total, 32, np.float32)(rng)
            arrays = (xp.asarray(X, device=rows), xp.asarray(y, device=vec_rows), xp.asarray(w0, device=rep))
            fn = lambda X, y, w0: w.logreg(xp, X, y, w0, steps=args.iters)  # noqa: E731
        with arrays[0].device:  # arrays the loop creates (arange) go where X is
            xp.metrics.reset()
            first = time.perf_counter()
            np.asarray(fn(*arrays))
            first = time.perf_counter() - first
            _engine.wait_for_compiles()
            compiles = xp.metrics.compiles
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                result = np.asarray(fn(*arrays))
                times.append(time.perf_counter() - t0)
        out[name] = {"rows": total, "first_s": first, "best_s": min(times), "compiles": compiles,
                     "checksum": float(np.abs(result).sum())}
    print(json.dumps(out))


def _mesh_overhead(args):
    """One process, one device: the same workloads without a mesh and on a 1-device mesh,
    alternated round by round (so both see the same machine load); best and median per side."""
    import numpy as np

    import lazyarray as xp
    from lazyarray import _engine
    from benchmarks import workloads as w
    from lazyarray.sharding import Mesh, NamedSharding, PartitionSpec as P

    dev = xp.__array_namespace_info__().devices()[0]
    mesh = Mesh([dev], ("x",))
    places = {"no mesh": (dev, dev, dev),
              "1-device mesh": (NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P("x")), NamedSharding(mesh, P()))}
    rng = np.random.default_rng(0)
    X, C = w._blobs(args.kmeans_rows, 16, 8, np.float32)(rng)
    Xl, y, w0 = w._logistic(args.logreg_rows, 32, np.float32)(rng)
    runs = {}
    for side, (rows, vec, rep) in places.items():
        Xa = xp.asarray(X, device=rows)
        runs[(side, "kmeans")] = (Xa.device, lambda Xa=Xa, Ca=xp.asarray(C, device=rep): w.kmeans(xp, Xa, Ca, iters=args.iters))
        La = xp.asarray(Xl, device=rows)
        runs[(side, "logreg")] = (La.device, lambda La=La, ya=xp.asarray(y, device=vec), wa=xp.asarray(w0, device=rep):
                                  w.logreg(xp, La, ya, wa, steps=args.iters))
    times = {k: [] for k in runs}
    for r in range(args.repeats + 2):
        for k, (device, fn) in runs.items():
            with device:
                t0 = time.perf_counter()
                np.asarray(fn())
                if r >= 2:  # (two warm-up rounds: compiles, the interpreter tier's handover)
                    times[k].append(time.perf_counter() - t0)
        _engine.wait_for_compiles()
    out = {f"{side}/{name}": {"best_s": min(v), "median_s": sorted(v)[len(v) // 2]} for (side, name), v in times.items()}
    print(json.dumps(out))


def _run(n, kmeans_rows, logreg_rows, args):
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={max(n, 1)}", JAX_PLATFORMS="cpu",
               LAZYARRAY_CACHE_DIR="0")  # (first runs and compile counts without the disk cache)
    cmd = [sys.executable, "-m", "benchmarks.scaling", "--child", "--devices", str(n), "--iters", str(args.iters),
           "--repeats", str(args.repeats), "--kmeans-rows", str(kmeans_rows), "--logreg-rows", str(logreg_rows)]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def _run_overhead(args):
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=1", JAX_PLATFORMS="cpu", LAZYARRAY_CACHE_DIR="0")
    cmd = [sys.executable, "-m", "benchmarks.scaling", "--child", "--mesh-overhead", "--iters", str(args.iters),
           "--repeats", str(max(args.repeats, 15)), "--kmeans-rows", str(args.kmeans_rows), "--logreg-rows", str(args.logreg_rows)]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    res = json.loads(r.stdout.strip().splitlines()[-1])
    for k, v in res.items():
        print("overhead", k, {n: f"{t * 1e3:.1f} ms" for n, t in v.items()}, flush=True)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--devices", type=int, default=1)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--kmeans-rows", type=int, default=80_000)
    ap.add_argument("--logreg-rows", type=int, default=80_000)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--mesh-overhead", action="store_true", help="only the no-mesh / 1-device-mesh comparison")
    args = ap.parse_args()
    if args.child:
        return _mesh_overhead(args) if args.mesh_overhead else _child(args)
    if args.quick:
        args.kmeans_rows = args.logreg_rows = 16_000
        args.repeats = 3
    overhead = _run_overhead(args)
    if args.mesh_overhead:
        return
    rows = []
    for mode in ("strong", "weak"):
        for n in (0, 1, 2, 4, 8):
            scale = max(n, 1) if mode == "weak" else 1
            base_k, base_l = (args.kmeans_rows // 8, args.logreg_rows // 8) if mode == "weak" else (args.kmeans_rows, args.logreg_rows)
            res = _run(n, base_k * scale, base_l * scale, args)
            for name, r in res.items():
                rows.append({"mode": mode, "devices": n, "workload": name, **r})
                print(mode, n, name, r, flush=True)
    with open(os.path.join(HERE, "scaling.json"), "w") as f:
        json.dump(rows, f, indent=1)
    lines = ["# Scaling over forced host devices (issue 13, item 6)", "",
             f"`python -m benchmarks.scaling{' --quick' if args.quick else ''}` on {platform.machine()}, "
             f"{os.cpu_count()} cores shared by every forced host device (so no speedup is possible here: "
             "the figures show the cost of partitioning and that answers and compile counts hold). "
             f"{args.iters} iterations per loop, best of {args.repeats} warm runs; 'devices 0' is one device "
             "without a mesh. X's rows are split over the mesh (`PartitionSpec('x', None)`), the model "
             "replicated; XLA inserts the all-reduces.", "",
             "| scaling | workload | devices | rows | warm run | first run (with compiles) | compiles | checksum |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['mode']} | {r['workload']} | {r['devices'] or '1 (no mesh)'} | {r['rows']} | "
                     f"{r['best_s'] * 1e3:.1f} ms | {r['first_s'] * 1e3:.0f} ms | {r['compiles']} | {r['checksum']:.6g} |")
    lines += ["", "## A 1-device mesh against no mesh",  "",
              f"The same loops ({args.kmeans_rows} / {args.logreg_rows} rows, {args.iters} iterations) in one process "
              "on one device, without a mesh and on a 1-device mesh, alternated round by round so both sides see "
              f"the same machine load (`python -m benchmarks.scaling --mesh-overhead`; {max(args.repeats, 15)} rounds "
              "after 2 warm-up rounds). The table above times each device count in its own process, one after "
              "another, and on this shared machine differs by more than this between runs.", "",
              "| workload | no mesh: best | median | 1-device mesh: best | median |", "|---|---|---|---|---|"]
    for name in ("kmeans", "logreg"):
        a, b = overhead[f"no mesh/{name}"], overhead[f"1-device mesh/{name}"]
        lines.append(f"| {name} | {a['best_s'] * 1e3:.1f} ms | {a['median_s'] * 1e3:.1f} ms | "
                     f"{b['best_s'] * 1e3:.1f} ms | {b['median_s'] * 1e3:.1f} ms |")
    lines += ["", "No GPU was available to this work: GPU figures are still to be measured."]
    with open(os.path.join(HERE, "SCALING.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
