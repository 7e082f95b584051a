"""What checked mode (`lazyarray/_checks.py`) costs: recording an advanced-index read, and a
read (sync) of a program with an index and with an inverse, with checks off and on, in the
compiled tier. CPU time per call, the best of several rounds (the machine is shared and noisy).

    .venv/bin/python -m benchmarks.checked_mode_cost
"""
import time

import numpy as np

import lazyarray as xp
from lazyarray import _checks, _config


def best_cpu_us(fn, n, rounds=7):
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        for i in range(n):
            fn(i)
        times.append((time.process_time() - t0) / n)
    return min(times) * 1e6


def main():
    _config.interpret_first = 0  # compiled tier
    rng = np.random.default_rng(0)
    a = xp.asarray(np.arange(1000.0))
    idxs = [xp.asarray(rng.integers(-1000, 1000, 64)) for _ in range(8)]
    m = xp.asarray(rng.standard_normal((8, 8)) + 8 * np.eye(8))
    xp.evaluate(*idxs, m)
    kept = []

    def record(i):
        kept.append(a[idxs[i & 7]])
        if len(kept) > 64:
            kept.clear()

    def read_index(i):
        return float(xp.sum(a[idxs[i & 7]]))

    def read_inv(i):
        return float(xp.sum(xp.linalg.inv(m * float((i & 3) + 1))))

    for checks in (False, True):
        _config.checks = checks
        for f in (read_index, read_inv):
            for i in range(4):
                f(i)  # compile
        rec = best_cpu_us(record, 2000)
        kept.clear()
        _checks.clear()
        print(f"checks={'on ' if checks else 'off'}  record a[idx] {rec:6.1f} us   "
              f"read sum(a[idx]) {best_cpu_us(read_index, 300):6.1f} us   "
              f"read sum(inv(m)) {best_cpu_us(read_inv, 300):6.1f} us")
    xp.clear_cache()


if __name__ == "__main__":
    main()
