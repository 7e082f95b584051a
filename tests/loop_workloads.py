"""The hot-loop workloads the loop tests run, written once for lazyarray and numpy (`ns`)."""


def logreg(ns, X, y, w, steps, lr=0.5):
    """Gradient descent on the logistic loss (with (n, 1) columns for y and w too: `X.T @ r` of a
    column is then a row . X in `_ops.dot`)."""
    n = X.shape[0]
    for _ in range(steps):
        p = 1.0 / (1.0 + ns.exp(-(X @ w)))
        w = w - lr * (X.T @ (p - y) / n)
    return w


def kmeans(ns, X, C, iters):
    """Lloyd's iterations from centres C: squared distances, nearest labels, new centres."""
    k = C.shape[0]
    x2 = ns.sum(X * X, axis=1, keepdims=True)
    ids = ns.arange(k)
    for _ in range(iters):
        d = x2 - 2.0 * (X @ C.T) + ns.sum(C * C, axis=1)[None, :]
        labels = ns.argmin(d, axis=1)
        onehot = ns.astype(labels[:, None] == ids[None, :], X.dtype)
        C = (onehot.T @ X) / ns.maximum(ns.sum(onehot, axis=0), 1.0)[:, None]
    return C
