"""The workloads: each is written once against ``xp`` with array-API calls only.

``fn(xp, *arrays)`` returns an array (or a tuple); the peer's adapter forces it. Inputs come from
``make(rng)`` as numpy arrays and are converted outside the timed region. Loop workloads carry a
``Loop`` so the harness can count compiles for other iteration counts on fresh shapes.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

# -- the code measured ---------------------------------------------------------------------------


def chain_plain(xp, x):
    """11 elementwise ops, no transcendental functions."""
    y = x * 1.5 + 0.5
    y = xp.abs(y - 1.0)
    y = xp.maximum(y, 0.25)
    y = xp.sqrt(y)
    y = y / (y + 1.0)
    y = y * y - 0.5
    return xp.minimum(y, 0.75)


def chain_sin(xp, x):
    """The same chain with one ``sin``."""
    y = xp.sin(x) * 1.5 + 0.5
    y = xp.abs(y - 1.0)
    y = xp.maximum(y, 0.25)
    y = xp.sqrt(y)
    y = y / (y + 1.0)
    y = y * y - 0.5
    return xp.minimum(y, 0.75)


def chain_plain_read(xp, x):
    """``chain_plain`` read back into numpy with ``np.asarray`` (where results usually go: a
    plot, a file, another library). Returned in a dict: the value is already on the host, so the
    adapters' ``block`` finds nothing left to force."""
    return {"host": np.asarray(chain_plain(xp, x))}


def standardise(xp, X):
    Z = (X - xp.mean(X, axis=0)) / xp.std(X, axis=0)
    return xp.sum(Z)


def matmul(xp, a, b):
    return a @ b


def kmeans(xp, X, C, iters=20):
    """Lloyd's iterations: distances by expansion, argmin, one-hot, centroids by matmul."""
    k = C.shape[0]
    x2 = xp.sum(X * X, axis=1, keepdims=True)
    ids = xp.arange(k)
    for _ in range(iters):
        c2 = xp.sum(C * C, axis=1)
        d = x2 - 2.0 * (X @ C.T) + c2[None, :]
        labels = xp.argmin(d, axis=1)
        onehot = xp.astype(labels[:, None] == ids[None, :], X.dtype)
        counts = xp.sum(onehot, axis=0)
        C = (onehot.T @ X) / xp.maximum(counts, 1.0)[:, None]
    return C


def logreg(xp, X, y, w, steps=100, lr=0.5):
    """Gradient descent on the logistic loss, a plain Python loop."""
    n = X.shape[0]
    for _ in range(steps):
        p = 1.0 / (1.0 + xp.exp(-(X @ w)))
        g = X.T @ (p - y) / n
        w = w - lr * g
    return w


def tiny_ops(xp, x, ops=1000):
    """Pure per-op overhead: ``ops`` dependent scalar-sized ops, one result."""
    for i in range(ops):
        x = x * 1.0001 if i % 2 == 0 else x + 0.0001
    return x


def sklearn_pca(xp, X):
    import sklearn
    from sklearn.decomposition import PCA
    with sklearn.config_context(array_api_dispatch=True):
        return PCA(n_components=8, svd_solver="full").fit(X).components_


def sklearn_lda(xp, X, y):
    import sklearn
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    with sklearn.config_context(array_api_dispatch=True):
        return LinearDiscriminantAnalysis().fit(X, y).coef_


# -- the data ------------------------------------------------------------------------------------


def _uniform(n, dtype):
    return lambda rng: (rng.uniform(-1.0, 1.0, n).astype(dtype),)


def _blobs(n, d, k, dtype):
    def make(rng):
        centres = rng.normal(0.0, 4.0, (k, d))
        X = (centres[rng.integers(0, k, n)] + rng.normal(size=(n, d))).astype(dtype)
        return X, X[:k].copy()
    return make


def _logistic(n, d, dtype):
    def make(rng):
        X = rng.normal(size=(n, d)).astype(dtype)
        y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(dtype)
        return X, y, np.zeros(d, dtype)
    return make


def _classes(n, d, k):
    def make(rng):
        y = rng.integers(0, k, n)
        X = rng.normal(size=(n, d)) + rng.normal(0.0, 2.0, (k, d))[y]
        return X, y.astype(np.int64)
    return make


# -- the registry --------------------------------------------------------------------------------


@dataclasses.dataclass
class Loop:
    """How to rebuild a loop workload for another iteration count and a fresh input shape."""
    with_iters: object      # iters -> fn
    make_rows: object       # rows -> make(rng)
    rows: int
    counts: tuple = (10, 20)


@dataclasses.dataclass
class Workload:
    name: str
    group: str
    title: str
    fn: object
    make: object
    size: int = 0           # x axis of the elementwise plot
    sklearn: bool = False   # peers whose arrays are immutable cannot run it
    loop: Loop | None = None


def build(quick=False):
    """All workloads; ``quick`` shrinks sizes and iteration counts, not the code."""
    w = []
    sizes = (1_000, 100_000, 1_000_000) if quick else (1_000, 100_000, 10_000_000)
    for form, fn in (("plain", chain_plain), ("sin", chain_sin)):
        for n in sizes:
            w.append(Workload(f"elementwise-{form}-{n:.0e}".replace("+0", ""), "elementwise",
                              f"11-op elementwise chain ({form}), {n:,} float32", fn,
                              _uniform(n, np.float32), size=n))
    n = sizes[-1]
    w.append(Workload(f"elementwise-plain-read-{n:.0e}".replace("+0", ""), "readback",
                      f"11-op elementwise chain (plain), {n:,} float32, read back with np.asarray",
                      chain_plain_read, _uniform(n, np.float32)))
    rows = 20_000 if quick else 100_000
    w.append(Workload("standardise", "array", f"(X - mean) / std then sum, {rows}x100 float64",
                      standardise, lambda rng: (rng.normal(size=(rows, 100)),)))
    m = 512 if quick else 1024
    for dt in (np.float32, np.float64):
        w.append(Workload(f"matmul-{np.dtype(dt).name}", "array", f"matmul {m}x{m} {np.dtype(dt).name}",
                          matmul, lambda rng, dt=dt: (rng.normal(size=(m, m)).astype(dt),
                                                      rng.normal(size=(m, m)).astype(dt))))
    km_rows, km_iters = (20_000, 10) if quick else (100_000, 20)
    w.append(Workload("kmeans", "loop", f"k-means, {km_iters} iterations, {km_rows}x16 float32, 8 clusters",
                      functools.partial(kmeans, iters=km_iters), _blobs(km_rows, 16, 8, np.float32),
                      loop=Loop(lambda it: functools.partial(kmeans, iters=it),
                                lambda r: _blobs(r, 16, 8, np.float32), km_rows)))
    lr_rows, lr_steps = (10_000, 20) if quick else (50_000, 100)
    w.append(Workload("logreg", "loop", f"logistic regression, {lr_steps} GD steps, {lr_rows}x32 float32",
                      functools.partial(logreg, steps=lr_steps), _logistic(lr_rows, 32, np.float32),
                      loop=Loop(lambda it: functools.partial(logreg, steps=it),
                                lambda r: _logistic(r, 32, np.float32), lr_rows)))
    ops = 200 if quick else 1000
    w.append(Workload("tiny-ops", "overhead", f"{ops} dependent ops on 10 float64, one result",
                      functools.partial(tiny_ops, ops=ops),
                      lambda rng: (rng.uniform(size=10),)))
    w.append(Workload("sklearn-pca", "sklearn", "sklearn PCA(8, svd_solver='full').fit, 20000x32 float64",
                      sklearn_pca, lambda rng: (rng.normal(size=(20_000, 32)),), sklearn=True))
    w.append(Workload("sklearn-lda", "sklearn", "sklearn LinearDiscriminantAnalysis.fit, 20000x32, 3 classes",
                      sklearn_lda, _classes(20_000, 32, 3), sklearn=True))
    return w


def select(workloads, only):
    """Workloads whose name equals, or starts with, one of the comma-separated names in ``only``."""
    if not only:
        return workloads
    wanted = [s.strip() for s in only.split(",") if s.strip()]
    return [w for w in workloads if any(w.name == s or w.name.startswith(s) or w.group == s
                                        for s in wanted)]
