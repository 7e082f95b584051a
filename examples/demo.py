"""End-to-end demo: logistic regression by gradient descent and k-means, written only against the
Array API namespace `xp`, run lazily on XLA, checked against numpy, with the metrics report.

    python examples/demo.py
"""
from __future__ import annotations

import time

import numpy as np

import lazyarray


def logistic_regression(xp, X, y, steps=200, lr=0.5, report_every=1):
    n, d = X.shape
    w = xp.zeros((d,), dtype=X.dtype)
    b = xp.zeros((), dtype=X.dtype)
    losses = []
    for step in range(steps):
        z = X @ w + b
        p = 1.0 / (1.0 + xp.exp(-z))
        err = p - y
        w = w - lr * (X.T @ err) / n   # nothing runs here: each line records graph nodes
        b = b - lr * xp.mean(err)
        if (step + 1) % report_every == 0:
            eps = 1e-12
            loss = -xp.mean(y * xp.log(p + eps) + (1.0 - y) * xp.log(1.0 - p + eps))
            losses.append(float(loss))   # a sync: the steps since the last one run as one program
    return w, b, losses


def kmeans(xp, X, centers, iters=20):
    k = centers.shape[0]
    for _ in range(iters):
        # squared distances by expansion: |x|^2 - 2 x.c + |c|^2
        d2 = xp.sum(X * X, axis=1)[:, None] - 2.0 * (X @ centers.T) + xp.sum(centers * centers, axis=1)[None, :]
        labels = xp.argmin(d2, axis=1)
        onehot = xp.astype(labels[:, None] == xp.arange(k)[None, :], X.dtype)
        counts = xp.sum(onehot, axis=0)
        centers = (onehot.T @ X) / xp.maximum(counts, 1.0)[:, None]
    return centers, labels


def main():
    xp = lazyarray
    xp.metrics.reset()  # the report below covers this demo only
    rng = np.random.default_rng(0)
    n, d = 20000, 16
    Xn = rng.standard_normal((n, d))
    w_true = rng.standard_normal(d)
    yn = (Xn @ w_true + 0.3 * rng.standard_normal(n) > 0).astype(np.float64)

    print(f"lazyarray {xp.__array_api_version__} on {xp.__array_namespace_info__().default_device()}")
    X, y = xp.asarray(Xn), xp.asarray(yn)

    t0 = time.perf_counter()
    w, b, losses = logistic_regression(xp, X, y)
    w_np, b_np, losses_np = logistic_regression(np, Xn, yn)
    t1 = time.perf_counter()
    np.testing.assert_allclose(np.asarray(w), w_np, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(losses, losses_np, rtol=1e-9)
    print(f"logistic regression: 200 steps, loss {losses[0]:.4f} -> {losses[-1]:.4f}, "
          f"matches numpy (max |dw| {np.max(np.abs(np.asarray(w) - w_np)):.2e}), {t1 - t0:.2f} s")

    blobs = rng.standard_normal((8, d)) * 4
    Xk = (blobs[rng.integers(0, 8, n)] + rng.standard_normal((n, d))).astype(np.float64)
    init = Xk[:8].copy()
    c, labels = kmeans(xp, xp.asarray(Xk), xp.asarray(init))
    c_np, labels_np = kmeans(np, Xk, init)
    np.testing.assert_allclose(np.asarray(c), c_np, rtol=1e-9, atol=1e-9)
    assert (np.asarray(labels) == labels_np).all()
    print("k-means: 20 iterations, centers and labels match numpy")

    m = xp.metrics
    from lazyarray import _engine
    _engine.wait_for_compiles()  # let the background compiles finish, so the report counts them
    print()
    print(xp.report())
    runs = m.executions + m.interpreted
    print(f"\n{runs} graph runs: {m.interpreted} by the interpreter tier while {m.compiles} programs "
          f"compiled in the background, {m.executions} by compiled programs")
    assert m.cache_misses <= 5, "the demo's loops should compile a handful of programs, not one per step"


if __name__ == "__main__":
    main()
