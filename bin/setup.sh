#!/usr/bin/env bash
# Create .venv (once) with lazyarray installed in editable mode and its test dependencies.
# Idempotent: a second run only checks that the install is there.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
if ! .venv/bin/python -c "import lazyarray, jax, pytest, hypothesis, sklearn, scipy, array_api_strict" 2>/dev/null; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[test]"
fi
