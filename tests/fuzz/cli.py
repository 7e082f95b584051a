"""The long fuzzing run: `bash bin/fuzz.sh N [options]` (python -m fuzz.cli from tests/).

Draws N programs with hypothesis (no shrinking phase: a failure is recorded and the run goes on),
checks each (runner.check) in the chosen execution tier, writes every failing program to a
JSON-lines log as it is found, and at the end reduces up to --shrink failures (shrink.shrink),
grouped by (mode, category), and prints the counts and the reduced programs.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from collections import Counter

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hyp_seed

from .programs import programs
from .runner import check
from .shrink import shrink


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bin/fuzz.sh", description=__doc__)
    ap.add_argument("n", type=int, help="programs to run")
    ap.add_argument("--tier", default="default", choices=("default", "compiled", "interpreted"),
                    help="default: LAZYARRAY_INTERPRET_FIRST as set (2 unless overridden); "
                         "compiled: every graph compiled at first sight (0); interpreted: 1000")
    ap.add_argument("--skip", default="", help="comma-separated known bug classes to leave out of "
                    "the programs: views, intpow, precision")
    ap.add_argument("--max-lines", type=int, default=25)
    ap.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: random)")
    ap.add_argument("--shrink", type=int, default=12, help="failing programs to reduce at the end")
    ap.add_argument("--log", default=os.path.join(tempfile.gettempdir(), "lazyarray-fuzz-failures.jsonl"),
                    help="failing programs are appended here, one JSON a line (default: %(default)s)")
    ap.add_argument("--progress", type=int, default=500, help="print counts every this many programs")
    a = ap.parse_args(argv)
    tier = {"default": None, "compiled": 0, "interpreted": 1000}[a.tier]
    skip = frozenset(s for s in a.skip.split(",") if s)
    warnings.filterwarnings("ignore")

    counts = Counter()
    failures = []
    t0 = time.time()
    log = open(a.log, "a")

    @settings(max_examples=a.n, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(programs(max_lines=a.max_lines, skip=skip))
    def one(program):
        out = check(program, tier)
        counts["programs"] += 1
        counts["lines"] += len(program.lines)
        counts["reads"] += out.reads
        if out.mismatches:
            counts["mismatching programs"] += 1
            counts[out.category] += 1
            failures.append((program, out))
            log.write(json.dumps({"tier": a.tier, "program": program.python(),
                                  "mismatches": out.mismatches}) + "\n")
            log.flush()
        if counts["programs"] % a.progress == 0:
            print(f"[{time.time() - t0:7.0f}s] {counts['programs']} programs, {counts['reads']} reads "
                  f"compared, {counts['mismatching programs']} mismatching", flush=True)

    if a.seed is not None:
        one = hyp_seed(a.seed)(one)
    one()
    elapsed = time.time() - t0

    print(f"\n== fuzz: tier {a.tier} (interpret_first={tier}), skip={sorted(skip)}, "
          f"{elapsed:.0f} s")
    print(f"programs {counts['programs']}, lines {counts['lines']}, reads compared "
          f"{counts['reads']}, mismatching programs {counts['mismatching programs']} (logged in {a.log})")
    for k, v in sorted(((k, v) for k, v in counts.items() if isinstance(k, tuple)), key=str):
        print(f"  {k[0]:5s} {k[1]:8s} {v}")
    per_key = Counter()
    shown = set()
    done = 0
    for program, out in failures:
        if done >= a.shrink:
            break
        if per_key[out.category] >= max(2, a.shrink // 4):
            continue
        per_key[out.category] += 1
        done += 1
        small, sout = shrink(program, tier)
        text = small.python()
        if text in shown:
            continue
        shown.add(text)
        print(f"\n-- minimal failing program ({len(small.lines)} lines, from {len(program.lines)}):")
        print(text)
        for m in sout.mismatches:
            print(f"   # {m[0]}: {m[1]}: {m[2][:300]}")
    log.close()
    return 1 if counts["mismatching programs"] else 0


if __name__ == "__main__":
    sys.exit(main())
