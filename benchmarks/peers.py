"""The namespaces compared ("peers") and the small adapter each needs.

A workload is written once against ``xp``. A peer says how to turn numpy input into its arrays
(``from_numpy``), how to force a result to be computed (``block``), how to call the workload
(``prepare``: jax.jit wraps the whole function), and what it can tell about compiles.
A peer whose import fails is kept with ``available=False`` and the reason, so the report shows it.
"""
from __future__ import annotations

import contextlib
import functools
import time

import numpy as np


def _flatten(result):
    if isinstance(result, (tuple, list)):
        out = []
        for r in result:
            out.extend(_flatten(r))
        return out
    return [result]


class Peer:
    """numpy with its default BLAS threads; the base class of the others."""

    name = "numpy"
    label = "numpy (default threads)"
    runs_sklearn = True       # can scikit-learn's array-API dispatch run on these arrays?
    sklearn_note = ""

    def __init__(self):
        self.available, self.reason, self.xp = True, "", None
        try:
            self.xp = self._load()
        except Exception as exc:  # noqa: BLE001 - any import failure means "unavailable"
            self.available, self.reason = False, f"{type(exc).__name__}: {exc}"

    def _load(self):
        return np

    def context(self):
        """Entered around every measurement of this peer (numpy-1t limits BLAS threads)."""
        return contextlib.nullcontext()

    def from_numpy(self, a):
        return a

    def block(self, result):
        """Force completion of everything in ``result`` (an array or a tuple of them)."""

    def prepare(self, fn):
        """The callable timed: ``fn(xp, *arrays)`` bound to this namespace."""
        return functools.partial(fn, self.xp)

    # Introspection hooks; only the compiling peers fill them in.
    def warm_up(self, call, args):
        """Calls between the cold one and the timed ones; returns their metrics."""
        return {}

    def metrics_reset(self):
        pass

    def metrics_read(self):
        return {}

    def compile_probe(self, fn, args):
        """Seconds to compile ``fn`` for ``args`` afresh, or None where it cannot be measured."""
        return None


class NumpyOneThread(Peer):
    name = "numpy-1t"
    label = "numpy (1 BLAS thread)"

    def _load(self):
        import threadpoolctl  # noqa: F401 - fail here, not mid-run
        return np

    def context(self):
        import threadpoolctl
        return threadpoolctl.threadpool_limits(limits=1)


class Strict(Peer):
    name = "strict"
    label = "array_api_strict"

    def _load(self):
        import array_api_strict
        return array_api_strict

    def from_numpy(self, a):
        return self.xp.asarray(a)


class JaxEager(Peer):
    name = "jax"
    label = "jax.numpy eager (x64)"
    runs_sklearn = False
    sklearn_note = "jax arrays are immutable; scikit-learn's array-API code assigns in place"

    def _load(self):
        import jax
        jax.config.update("jax_enable_x64", True)  # float64 must really be float64
        import jax.numpy as jnp
        return jnp

    def from_numpy(self, a):
        out = self.xp.asarray(a)
        out.block_until_ready()
        return out

    def block(self, result):
        import jax
        jax.block_until_ready(result)


class JaxJit(JaxEager):
    name = "jax.jit"
    label = "jax.jit of the whole workload (x64)"

    def prepare(self, fn):
        import jax
        return jax.jit(functools.partial(fn, self.xp))

    def compile_probe(self, fn, args):
        # A new partial object is a new jit cache entry, so this compiles afresh.
        import jax
        lowered = jax.jit(functools.partial(fn, self.xp)).lower(*args)
        t0 = time.perf_counter()
        lowered.compile()
        return time.perf_counter() - t0


class Lazy(Peer):
    name = "lazyarray"
    label = "lazyarray"

    def _load(self):
        import lazyarray
        if not hasattr(lazyarray, "asarray"):
            raise ImportError("lazyarray imports but has no namespace yet (no asarray)")
        return lazyarray

    def from_numpy(self, a):
        out = self.xp.asarray(a)
        self.block(out)
        return out

    def block(self, result):
        arrays = [r for r in _flatten(result) if hasattr(r, "__array_namespace__")]
        evaluate = getattr(self.xp, "evaluate", None)
        if evaluate is not None:
            evaluate(*arrays)
        else:
            for a in arrays:
                np.asarray(a)

    def _metrics(self):
        return getattr(self.xp, "metrics", None)

    def warm_up(self, call, args, seconds=30.0):
        """A new graph runs in the interpreter until it has been seen a few times and has cost its
        compile time, then compiles in the background: call until a call interprets nothing
        (waiting for the compiles after each), so the timed calls measure the compiled programs."""
        self.metrics_reset()
        m, end = self._metrics(), time.perf_counter() + seconds
        while True:
            before = m.interpreted
            self.block(call(*args))
            self._settle()
            if m.interpreted == before or time.perf_counter() > end:
                return self.metrics_read()

    def _settle(self):
        """Let background compiles finish, so each one counts in the window that started it."""
        from lazyarray import _engine
        _engine.wait_for_compiles()

    def metrics_reset(self):
        m = self._metrics()
        if m is not None and hasattr(m, "reset"):
            self._settle()
            m.reset()

    def metrics_read(self):
        m = self._metrics()
        if m is None:
            return {}
        self._settle()
        keys = ("compile_seconds", "compiles", "cache_hits", "cache_misses",
                "execute_seconds", "nodes_traced", "interpreted", "chunks_run")
        return {k: getattr(m, k) for k in keys if getattr(m, k, None) is not None}


ALL = (Lazy, JaxJit, JaxEager, NumpyOneThread, Peer, Strict)


def load_peers(names=None):
    """Instantiate the peers (jax before lazyarray, so x64 is on before lazyarray starts jax)."""
    order = (JaxEager, JaxJit, NumpyOneThread, Peer, Strict, Lazy)
    made = {cls: cls() for cls in order if names is None or cls.name in names}
    return [made[cls] for cls in ALL if cls in made]


def blas_info():
    """What threadpoolctl says about the BLAS numpy uses (kernel, threads, version)."""
    try:
        import threadpoolctl
        info = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    except Exception as exc:  # noqa: BLE001
        return f"threadpoolctl failed: {exc}"
    return "; ".join(
        f"{i.get('internal_api')} {i.get('version')} kernel={i.get('architecture')} "
        f"threads={i.get('num_threads')}" for i in info) or "no BLAS found"
