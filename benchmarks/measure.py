"""Timing: one (workload, peer) cell, lazyarray's loop compile probes, and per-op overheads.

Every timed call includes forcing the result (``peer.block``). Steady state is the median over
repeats, which run until a time budget is spent (at least ``min_reps``, at most ``max_reps``).
Failures are caught per cell and reported, never raised.
"""
from __future__ import annotations

import dataclasses
import gc
import statistics
import time

import numpy as np

SEED = 0


@dataclasses.dataclass
class Budget:
    seconds: float   # steady-state time budget per cell
    min_reps: int
    max_reps: int


FULL = Budget(seconds=2.5, min_reps=3, max_reps=200)
QUICK = Budget(seconds=0.2, min_reps=2, max_reps=50)


@dataclasses.dataclass
class Cell:
    workload: str
    peer: str
    status: str = "ok"          # ok | fail | n/a | unavailable
    note: str = ""
    cold: float | None = None   # first call, seconds (includes compiles)
    times: list = dataclasses.field(default_factory=list)
    compile: float | None = None
    cold_metrics: dict = dataclasses.field(default_factory=dict)
    warm_metrics: dict = dataclasses.field(default_factory=dict)
    steady_metrics: dict = dataclasses.field(default_factory=dict)  # summed over the repeats

    @property
    def median(self):
        return statistics.median(self.times) if self.times else None


def _timed(call, block, args):
    t0 = time.perf_counter()
    block(call(*args))
    return time.perf_counter() - t0


def _short(exc):
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ").replace("|", "/")
    return text if len(text) <= 160 else text[:157] + "..."


def measure_cell(workload, peer, budget):
    cell = Cell(workload.name, peer.name)
    if not peer.available:
        cell.status, cell.note = "unavailable", peer.reason
        return cell
    if workload.sklearn and not peer.runs_sklearn:
        cell.status, cell.note = "n/a", peer.sklearn_note
        return cell
    try:
        with peer.context():
            args = [peer.from_numpy(a) for a in workload.make(np.random.default_rng(SEED))]
            call = peer.prepare(workload.fn)
            gc.collect()
            peer.metrics_reset()
            cell.cold = _timed(call, peer.block, args)
            cell.cold_metrics = peer.metrics_read()
            cell.warm_metrics = peer.warm_up(call, args)
            peer.metrics_reset()
            start = time.perf_counter()
            while len(cell.times) < budget.min_reps or (
                    len(cell.times) < budget.max_reps and time.perf_counter() - start < budget.seconds):
                cell.times.append(_timed(call, peer.block, args))
            cell.steady_metrics = peer.metrics_read()
            cell.steady_metrics["calls"] = len(cell.times)
            probe = peer.compile_probe(workload.fn, args)
            if probe is None and "compile_seconds" in cell.cold_metrics:
                probe = cell.cold_metrics["compile_seconds"] + cell.warm_metrics.get("compile_seconds", 0.0)
            cell.compile = probe
    except Exception as exc:  # noqa: BLE001 - a failure is a result
        cell.status, cell.note = "fail", _short(exc)
    return cell


def loop_probe(workload, peer):
    """Compiles and compile time of the loop at 1, 10 and 20 iterations, each on a fresh shape.

    Each count gets inputs with a few rows fewer than the main cell's, so nothing is cached yet
    and the count is what that iteration count compiles from scratch. The interpreter tier is off
    here (every graph compiles at first sight), so the counts are the loop's distinct graphs and
    the 1-iteration time is one step's real compile, whatever the background thread's timing.
    """
    from lazyarray import _config
    out, tier = {}, _config.interpret_first
    _config.interpret_first = 0
    try:
        _loop_probe(workload, peer, out)
    finally:
        _config.interpret_first = tier
    return out


def _loop_probe(workload, peer, out):
    for shift, iters in enumerate((1,) + tuple(workload.loop.counts), start=1):
        try:
            make = workload.loop.make_rows(workload.loop.rows - shift)
            args = [peer.from_numpy(a) for a in make(np.random.default_rng(SEED))]
            call = peer.prepare(workload.loop.with_iters(iters))
            peer.metrics_reset()
            seconds = _timed(call, peer.block, args)
            out[iters] = dict(peer.metrics_read(), seconds=seconds)
        except Exception as exc:  # noqa: BLE001
            out[iters] = {"error": _short(exc)}


def per_op(peer, ops=1000, reps=20):
    """Microseconds per ``x = x + 1.0`` on 10 elements (lazyarray: traced, never read; the window
    includes the budget cut that runs the chain, after a warm-up that gets its chunks compiled)."""
    x = peer.from_numpy(np.ones(10))

    def chain():
        y = x
        for _ in range(ops):
            y = y + 1.0
        return y

    peer.warm_up(chain, [])
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        y = chain()
        samples.append((time.perf_counter() - t0) / ops * 1e6)
        del y
    return statistics.median(samples)


def materialize_overhead(peer, calls=2000):
    """Microseconds to force a tiny graph whose program is cached (lazyarray: evaluate only)."""
    x = peer.from_numpy(np.ones(10))
    fn = peer.prepare(lambda xp, a: a * 2.0 + 1.0)
    peer.block(fn(x))  # compile once
    peer.warm_up(fn, [x])  # (lazyarray: until the interpreter tier hands the graph to its program)
    samples = []
    for _ in range(calls):
        y = fn(x)
        t0 = time.perf_counter()
        peer.block(y)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def dispatch_overhead(peer, calls=2000):
    """Microseconds per call of a cached tiny function, building and forcing included."""
    x = peer.from_numpy(np.ones(10))
    fn = peer.prepare(lambda xp, a: a * 2.0 + 1.0)
    peer.block(fn(x))
    peer.warm_up(fn, [x])
    samples = []
    for _ in range(calls):
        t0 = time.perf_counter()
        peer.block(fn(x))
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def overheads(peers, quick):
    """Per-op and per-materialization overheads for every available peer, errors caught."""
    reps, calls = (5, 300) if quick else (20, 2000)
    out = {}
    for peer in peers:
        if not peer.available:
            continue
        row = {}
        for key, probe in (("per_op_us", lambda p: per_op(p, reps=reps)),
                           ("materialize_us", lambda p: materialize_overhead(p, calls)),
                           ("call_us", lambda p: dispatch_overhead(p, calls))):
            if key == "per_op_us" and peer.name == "jax.jit":
                continue  # per-op cost outside jit is the eager peer's
            try:
                with peer.context():
                    row[key] = probe(peer)
            except Exception as exc:  # noqa: BLE001
                row[key] = _short(exc)
        out[peer.name] = row
    return out
