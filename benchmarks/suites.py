"""Whole test suites as workloads: scikit-learn's own array-API tests, run by the shared
sklearn-suite tool once on array-api-strict and once on lazyarray, one after the other.

The tool lives outside this repository (``../shared/tools/sklearn-suite`` beside a checkout, or
``$SKLEARN_SUITE``); where it is missing the step is skipped and said so.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TOOL = os.path.join(os.path.dirname(REPO), "shared", "tools", "sklearn-suite")
_LAST = re.compile(r"sklearn-suite: (\S+) passed=(\d+) failed=(\d+) skipped=(\d+)")
_WALL = re.compile(r"wall: (\d+)s")


def tool_dir():
    path = os.environ.get("SKLEARN_SUITE", DEFAULT_TOOL)
    return path if os.path.isfile(os.path.join(path, "run")) else None


def _run(tool, module, timeout):
    env = dict(os.environ, XP_MODULE=module, PYTHON=sys.executable,
               XP_OUT=os.path.join("/tmp", f"lazyarray-bench-sklearn-suite-{module}"))
    proc = subprocess.run(["bash", os.path.join(tool, "run"), "-q", "-p", "no:cacheprovider"], cwd=tool,
                          env=env, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    last, wall = _LAST.search(out), _WALL.search(out)
    if not last or not wall:
        return {"error": f"no summary line (exit {proc.returncode}): {out[-300:]}"}
    return {"seconds": float(wall.group(1)), "passed": int(last.group(2)),
            "failed": int(last.group(3)), "skipped": int(last.group(4))}


def sklearn_suite(timeout=1800):
    """{'array_api_strict': {...}, 'lazyarray': {...}} with wall seconds and test counts."""
    tool = tool_dir()
    if tool is None:
        return {"error": f"sklearn-suite tool not found (looked at {DEFAULT_TOOL}; set SKLEARN_SUITE)"}
    return {m: _run(tool, m, timeout) for m in ("array_api_strict", "lazyarray")}
