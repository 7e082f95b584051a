#!/usr/bin/env bash
# The benchmark suite: set up if needed (with the benchmark extras), then run it side by side
# against the peers; writes benchmarks/RESULTS.md and the plots. Extra arguments go to the runner
# (--quick, --only NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
bash bin/setup.sh
if ! .venv/bin/python -c "import threadpoolctl, matplotlib" 2>/dev/null; then
    .venv/bin/python -m pip install -q -e ".[bench]"
fi
exec .venv/bin/python -m benchmarks.run "$@"
