"""XLA's compiler in a helper process (`LAZYARRAY_COMPILE_PROCESS=1`; off by default).

A compile in the user's process leaves it larger for good: XLA's and LLVM's code pages that the
compile touched (~39 MB in the memory benchmark's cold loop, issue 11 target 8) and the heap
glibc keeps from the compiler's allocations (`_heap_trim` returns the free part once compiles
pause, but the peak is reached during the compile). With this setting on, a CPU program is
compiled by a helper Python process that imports only jaxlib's XLA client: it sends back the
serialized executable, which this process deserializes (what a disk-cache load does: a few
megabytes, no compiler). The helper starts at the first compile (~0.2 s, ~100 MB) and exits after
`IDLE_SECONDS` without a request, so a process whose compiles are over holds neither the
compiler nor the helper. Its memory is the machine's all the same: the memory benchmark reports
the helper's peak beside the process's own.

Only plain single-device CPU programs go there: a program with custom calls (LAPACK kernels,
registered in this process by `_runtime_lapack`) or for a mesh compiles in this process, as does
every program once the helper failed to start or to answer (the setting then falls back for the
process's life). A program XLA rejects in the helper is compiled here again, so the error raised
is XLA's own, as without the helper.
"""
from __future__ import annotations

import os
import select
import struct
import subprocess
import sys
import threading

IDLE_SECONDS = 2.0   # the helper exits after this long without a request
START_SECONDS = 60.0  # a helper not ready this long after its start is given up (and the setting with it)

# The helper: reads (options, text) frames on stdin, answers (status, payload) frames on stdout;
# exits at end of input or after IDLE_SECONDS without one.
_WORKER = r"""
import os, select, struct, sys
from jaxlib import xla_client as xc
idle = float(sys.argv[1])
inp, out = sys.stdin.buffer, sys.stdout.buffer
client = xc.make_cpu_client(asynchronous=False)
devices = xc.DeviceList(tuple(client.devices()[:1]))
def read(n):
    data = b""
    while len(data) < n:
        chunk = inp.read(n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data
out.write(b"R"); out.flush()
while True:
    ready, _, _ = select.select([inp], [], [], idle)
    if not ready:
        sys.exit(0)
    n_opts, n_text = struct.unpack("<QQ", read(16))
    opts = xc.CompileOptions.ParseFromString(read(n_opts))
    text = read(n_text).decode()
    try:
        payload, status = bytes(client.serialize_executable(client.compile_and_load(text, devices, opts))), 0
    except Exception as exc:
        payload, status = str(exc).encode(errors="replace"), 1
    out.write(struct.pack("<BQ", status, len(payload)) + payload); out.flush()
"""

_lock = threading.Lock()  # one request at a time (the helper compiles one program at a time)
_proc = None              # the running helper, or None
_broken = False           # the helper failed: compile in this process from now on
peak_rss_kb = 0           # the largest resident size a helper of this process reached (ru_maxrss)
compiles = 0              # programs the helper compiled (tests read it)


def _start():
    global _proc
    proc = subprocess.Popen([sys.executable, "-c", _WORKER, repr(IDLE_SECONDS)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
    try:  # (it could not import jaxlib or make its client, or hangs: this process compiles instead)
        ready, _, _ = select.select([proc.stdout], [], [], START_SECONDS)
        if not ready or proc.stdout.read(1) != b"R":
            raise OSError("the compile helper did not start")
    except (OSError, ValueError):
        proc.kill()
        proc.wait()
        raise OSError("the compile helper did not start") from None
    _proc = proc


def _stop():
    """Forget the helper (it exited, or answers no more); note its peak memory."""
    global _proc
    proc, _proc = _proc, None
    if proc is None:
        return
    for f in (proc.stdin, proc.stdout):
        try:
            f.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    _note_peak()


def shutdown():
    """Stop the helper now (it would exit by itself once idle); returns the largest resident size
    in MB a helper of this process reached (0.0: none ran; on Linux, of any child process waited
    for: the helper is the only one lazyarray starts)."""
    with _lock:
        _stop()
    _note_peak()
    return peak_rss_kb / 1024


def _note_peak():
    global peak_rss_kb
    try:
        import resource
        peak_rss_kb = max(peak_rss_kb, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    except (ImportError, OSError):
        pass


def _ask(options, text):
    """One request to a running helper: (status, payload); OSError or EOFError when it is gone."""
    head = struct.pack("<QQ", len(options), len(text))
    _proc.stdin.write(head + options + text)
    _proc.stdin.flush()
    answer = _proc.stdout.read(9)
    if len(answer) < 9:
        raise EOFError
    status, n = struct.unpack("<BQ", answer)
    payload = _proc.stdout.read(n)
    if len(payload) < n:
        raise EOFError
    return status, payload


def compile_serialized(options: bytes, text: str):
    """The serialized executable of `text` compiled with `options` (a serialized CompileOptions)
    by the helper, or None: the helper is unavailable or XLA rejected the program there (the
    caller then compiles in this process)."""
    global _broken, compiles
    if _broken:
        return None
    data = text.encode()
    with _lock:
        for attempt in (0, 1):  # (a helper that just exited for idleness: start another, once)
            try:
                if _proc is None or _proc.poll() is not None:
                    _stop()
                    _start()
                status, payload = _ask(options, data)
            except (OSError, EOFError, ValueError):
                _stop()
                if attempt:
                    _broken = True
                    return None
                continue
            if status != 0:
                return None
            compiles += 1
            return payload
    return None


def wanted(text: str, device) -> bool:
    """Whether the setting sends this program to the helper: a single-device CPU program with no
    custom call."""
    return device.platform == "cpu" and "custom_call" not in text


def _forget_after_fork():
    """A forked child shares the parent's pipes: it starts a helper of its own when it needs one."""
    global _proc, _lock
    _proc = None
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
