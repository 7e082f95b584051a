#!/usr/bin/env bash
# Run the official Array API test suite (data-apis/array-api-tests) against lazyarray.
#
# Usage:
#   array_api_tests/run_official.sh SUITE_DIR [OUT_DIR] [-- extra pytest args...]
#
#   SUITE_DIR  a checkout of data-apis/array-api-tests whose `array-api` folder holds the
#              spec (the git submodule data-apis/array-api; stubs under array-api/src/).
#   OUT_DIR    where the junit xml and the log go (default: ./official-suite-results).
#
# Environment:
#   ARRAY_API_TESTS_MODULE   namespace to test (default: lazyarray)
#   ARRAY_API_TESTS_VERSION  spec version to test (default: the namespace's __array_api_version__);
#                            with the default module, the namespace tested is the one a consumer
#                            of that version gets: x.__array_namespace__(api_version=VERSION)
#   MAX_EXAMPLES             hypothesis examples per test (default: the suite's own default, 100)
#   PYTHON                   interpreter (default: the repo's .venv, else python3)
#
# Linalg and fft are tested (no --disable-extension). Deadlines are off and hypothesis is
# derandomized so the counts are stable from run to run. Exits with pytest's status.
set -u -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 2
fi
suite="$(cd "$1" && pwd)" || { echo "no such suite dir: $1" >&2; exit 2; }
shift
out="./official-suite-results"
if [[ $# -gt 0 && "$1" != "--" ]]; then out="$1"; shift; fi
[[ $# -gt 0 && "$1" == "--" ]] && shift
mkdir -p "$out" && out="$(cd "$out" && pwd)"

if [[ ! -d "$suite/array_api_tests" ]]; then
    echo "$suite does not look like an array-api-tests checkout (no array_api_tests/)" >&2
    exit 2
fi
if [[ ! -d "$suite/array-api/src/array_api_stubs" ]]; then
    echo "$suite/array-api is empty: put data-apis/array-api there (git submodule update --init)" >&2
    exit 2
fi

py="${PYTHON:-}"
if [[ -z "$py" ]]; then
    if [[ -x "$repo/.venv/bin/python" ]]; then py="$repo/.venv/bin/python"; else py=python3; fi
fi
for mod in pytest hypothesis ndindex pytest_jsonreport; do
    if ! "$py" -c "import $mod" 2>/dev/null; then
        echo "missing python package '$mod' for $py (pip install pytest hypothesis ndindex pytest-json-report)" >&2
        exit 2
    fi
done

tag="${ARRAY_API_TESTS_MODULE:-lazyarray}"
tag="${tag//[^A-Za-z0-9_]/_}"
if [[ -z "${ARRAY_API_TESTS_MODULE:-}" && -n "${ARRAY_API_TESTS_VERSION:-}" ]]; then
    # The suite only sets its expectations from ARRAY_API_TESTS_VERSION; the namespace must be
    # the versioned one (2024.12's meshgrid returns a list, 2025.12's a tuple). The suite runs
    # the script inside exec('...') and tests its `xp`.
    ver="$ARRAY_API_TESTS_VERSION"
    [[ "$ver" =~ ^[0-9]{4}\.[0-9]{2}$ ]] || { echo "bad ARRAY_API_TESTS_VERSION: $ver" >&2; exit 2; }
    export ARRAY_API_TESTS_MODULE="exec('import lazyarray; xp = lazyarray.asarray(0).__array_namespace__(api_version=\"$ver\")')"
    tag="lazyarray_${ver//./_}"
fi
export ARRAY_API_TESTS_MODULE="${ARRAY_API_TESTS_MODULE:-lazyarray}"
# Import lazyarray from this checkout even when it is not installed. Not by putting the repo
# on PYTHONPATH: our own conformance package is also named `array_api_tests` and must not
# shadow the suite's. A folder holding only a link to lazyarray/ does the job.
shim="$(mktemp -d)"
trap 'rm -rf "$shim"' EXIT
ln -s "$repo/lazyarray" "$shim/lazyarray"
export PYTHONPATH="$shim${PYTHONPATH:+:$PYTHONPATH}"
found="$(cd "$suite" && "$py" -c 'import importlib.util as u; print(u.find_spec("array_api_tests").origin)')"
if [[ "$found" != "$suite/array_api_tests/__init__.py" ]]; then
    echo "array_api_tests resolves to $found, not the suite's; fix PYTHONPATH" >&2
    exit 2
fi

junit="$out/official-$tag.xml"
log="$out/official-$tag.log"

args=(array_api_tests/ --disable-deadline --derandomize -p no:cacheprovider
      -rfE --tb=short --junitxml="$junit")
[[ -n "${MAX_EXAMPLES:-}" ]] && args+=(--max-examples "$MAX_EXAMPLES")

echo "suite:   $suite"
echo "module:  $ARRAY_API_TESTS_MODULE   version: ${ARRAY_API_TESTS_VERSION:-<namespace default>}"
echo "python:  $py"
echo "log:     $log"
echo "junit:   $junit"

start=$(date +%s)
( cd "$suite" && "$py" -m pytest "${args[@]}" "$@" ) >"$log" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))

# Summarise from the junit xml (counts per test file, then totals).
"$py" - "$junit" "$elapsed" <<'EOF'
import sys
import xml.etree.ElementTree as ET
from collections import Counter

path, elapsed = sys.argv[1], int(sys.argv[2])
try:
    root = ET.parse(path).getroot()
except (OSError, ET.ParseError) as e:
    print(f"no junit report ({e}); see the log")
    sys.exit(0)

status = Counter()
failed_by_file = Counter()
for case in root.iter("testcase"):
    kinds = {child.tag for child in case}
    if "failure" in kinds:
        s = "failed"
    elif "error" in kinds:
        s = "errors"
    elif "skipped" in kinds:
        s = "skipped"
    else:
        s = "passed"
    status[s] += 1
    if s in ("failed", "errors"):
        failed_by_file[case.get("classname", "?").rsplit(".", 1)[-1]] += 1

if failed_by_file:
    print("failures by file:")
    for name, n in failed_by_file.most_common():
        print(f"  {n:5d}  {name}")
total = sum(status.values())
print(f"passed {status['passed']}  failed {status['failed']}  errors {status['errors']}  "
      f"skipped {status['skipped']}  total {total}  ({elapsed // 60}m{elapsed % 60:02d}s)")
EOF
tail -n 1 "$log"
exit $rc
