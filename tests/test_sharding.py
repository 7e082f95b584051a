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


def test_two_processes_share_one_mesh():
    """Multi-host as far as one machine allows: two processes (tests/multihost_worker.py) of 4
    forced host devices each join through jax's distributed service (`sharding.initialize`) and
    compute on one 8-device mesh spanning both; each checks its gathered results against numpy."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    cmd = [sys.executable, str(ROOT / "tests" / "multihost_worker.py"), f"127.0.0.1:{port}"]
    procs = [subprocess.Popen(cmd + [str(i)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for i in range(2)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=300)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for i, (p, out) in enumerate(zip(procs, outs)):
        assert p.returncode == 0 and f"OK {i}" in out, out[-3000:]
