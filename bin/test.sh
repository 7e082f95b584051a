#!/usr/bin/env bash
# The test suite: set up if needed, then run our unit tests and our own conformance suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash bin/setup.sh
exec .venv/bin/python -m pytest tests array_api_tests -q -p no:cacheprovider "$@"
