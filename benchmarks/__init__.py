"""Benchmarks of issue 4: lazyarray against numpy, array-api-strict and JAX in one process.

Run ``python -m benchmarks.run`` (``--quick`` for a short run, ``--only NAME`` to pick workloads).
Modules, one job each: ``workloads`` (the code measured, written once against ``xp``),
``peers`` (the namespaces and their adapters), ``measure`` (timing), ``report`` (RESULTS.md and
plots), ``run`` (the command line). This file imports nothing heavy: ``run`` must adjust the
OpenBLAS environment before numpy is imported.
"""
