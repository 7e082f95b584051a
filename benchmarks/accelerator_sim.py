"""What a test suite would see on a GPU, measured on the CPU: a pytest plugin (`-p
benchmarks.accelerator_sim`) that makes the engine treat the CPU device as an accelerator, then
prints the compiles, interpreted graphs and host-device bytes the suite's tests caused.

ACCEL_SIM chooses the mode:
  gpu-before  every new graph compiles at first sight, as on a GPU before issue 13 item 3 (the
              interpreter tier served the CPU only): the same as LAZYARRAY_INTERPRET_FIRST=0
  gpu-after   the accelerator policy (`_tier_policy.may_interpret`): HOST_PLATFORMS emptied, so
              the transfer budget, the fetch of device inputs and the accelerator's compile
              estimate apply to the CPU device; decompositions are not interpretable (on a GPU
              they are cuSOLVER's kernels, which the host interpreter does not reproduce)
  gpu-after-host-linalg  gpu-after, but decompositions interpreted in host LAPACK (what serving
              them on the host too would save; not done: LAPACK's signs and bits are not cuSOLVER's)
  cpu         the CPU as it is (for reference)

What the simulation cannot show: real transfer and compile times (the "device" is host memory,
and compiles are XLA CPU's); a GPU compile is assumed to cost 0.3 s or more each.
"""
from __future__ import annotations

import os

import pytest

MODE = os.environ.get("ACCEL_SIM", "gpu-after")
FIELDS = ("compiles", "background_compiles", "disk_hits", "interpreted", "cache_hits", "bytes_to_host",
          "bytes_to_device", "compile_seconds", "interpret_seconds")
_totals = dict.fromkeys(FIELDS, 0)


def _apply(mode):
    from lazyarray import _config, _tier_policy
    from lazyarray._ops import linalg
    if mode == "gpu-before":
        _config.interpret_first = 0
    elif mode in ("gpu-after", "gpu-after-host-linalg"):
        _tier_policy.HOST_PLATFORMS = frozenset()
        if mode == "gpu-after":
            linalg.LINALG_KERNEL.covers = linalg.TRIANGULAR_SOLVE.covers = lambda node: False
    elif mode != "cpu":
        raise ValueError(f"ACCEL_SIM={mode!r}: expected gpu-before, gpu-after, gpu-after-host-linalg or cpu")


def pytest_configure(config):
    _apply(MODE)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    import lazyarray as xp
    from lazyarray import _config, _engine
    if MODE == "gpu-before":  # (a test's fixture may have set the tier back on)
        _config.interpret_first = 0
    before = {f: getattr(xp.metrics, f) for f in FIELDS}
    yield
    _engine.wait_for_compiles()
    for f in FIELDS:
        delta = getattr(xp.metrics, f) - before[f]
        if delta > 0:  # (a test that resets the metrics inside its body loses its own counts)
            _totals[f] += delta


def pytest_terminal_summary(terminalreporter):
    t = _totals
    foreground = t["compiles"] - t["background_compiles"]
    terminalreporter.write_line(
        f"accelerator_sim {MODE}: compiles={t['compiles']} (at first sight, blocking: {foreground}; "
        f"background: {t['background_compiles']}) interpreted={t['interpreted']} "
        f"cache_hits={t['cache_hits']} disk_hits={t['disk_hits']} bytes_to_host={t['bytes_to_host']} "
        f"bytes_to_device={t['bytes_to_device']} compile_s={t['compile_seconds']:.1f} "
        f"interpret_s={t['interpret_seconds']:.2f} blocking_gpu_compile_s>={0.3 * foreground:.0f}")
