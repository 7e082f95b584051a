#!/usr/bin/env bash
# The main job: set up if needed, then run the end-to-end lazy execution demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash bin/setup.sh
exec .venv/bin/python examples/demo.py "$@"
