"""The multi-device cases (tests/sharding_cases.py) on 8 forced host devices, in a subprocess:
XLA_FLAGS=--xla_force_host_platform_device_count=8 only acts before jax starts, and this process
has started it with one device. A second run with LAZYARRAY_DEVICE=cpu:3 checks the environment
variable that chooses the default device."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _run_cases(extra_env, *select):
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu",
               **extra_env)
    cmd = [sys.executable, "-m", "pytest", str(ROOT / "tests" / "sharding_cases.py"), "-q",
           "-p", "no:cacheprovider", "-rs", *select]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def test_sharding_cases_on_eight_host_devices():
    r = _run_cases({})
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    assert "skipped" not in r.stdout.splitlines()[-1], r.stdout[-3000:]


def test_default_device_from_the_environment():
    r = _run_cases({"LAZYARRAY_DEVICE": "cpu:3"}, "-k", "default_device")
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]
