"""Diagnostic: CPU time of one sync alone (`_engine.read_scalar`, thread CPU time) for an
LBFGS-like graph (~22 computed nodes, 9 leaves, 10 live intermediates), the fixed host cost of
issue 11's targets 1 and 5. Not a verdict benchmark.

``LAZYARRAY_CACHE_DIR=off python -m benchmarks.sync_host_cost interp 20`` (every sync
interpreted) or ``... compiled 20`` (after warm-up: mostly its cached program)."""
import sys, time, statistics
import numpy as np
import lazyarray as xp
from lazyarray import _config, _engine
rng = np.random.default_rng(0)
n = 30
x = xp.asarray(rng.random(n)); g = xp.asarray(rng.random(n)); s = xp.asarray(rng.random(n)); y = xp.asarray(rng.random(n))
acc = [0.0]
orig = _engine.read_scalar
pt = time.thread_time
def timed(node, device, cause):
    t = pt(); v = orig(node, device, cause); acc[0] += pt() - t; return v
_engine.read_scalar = timed
def step():
    ys = xp.sum(y * s); yy = xp.sum(y * y)
    gamma = ys / yy
    a = xp.sum(s * g) / ys
    q = g - a * y
    r = gamma * q
    b = xp.sum(y * r) / ys
    d = r + s * (a - b)
    xn = x - 0.5 * d
    f = xp.sum(xn * xn) + xp.sum(xp.abs(d)) * 1e-3
    return float(f)
mode = sys.argv[1] if len(sys.argv) > 1 else "interp"
if mode == "interp":
    _config.interpret_first = 10**9
    for _ in range(20): step()
else:
    for _ in range(1500): step()
    _engine.wait_for_compiles()
    for _ in range(20): step()
ts = []
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 20):
    acc[0] = 0.0
    for _ in range(100): step()
    ts.append(acc[0] / 100 * 1e6)
from lazyarray._metrics import metrics
print(f"{mode}: sync min {min(ts):.1f} us median {statistics.median(ts):.1f} us (thread CPU)  interpreted={metrics.interpreted} hits={metrics.cache_hits}")
