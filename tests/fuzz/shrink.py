"""Reduce a failing program to a few lines, keeping the kind of failure.

Hypothesis shrinks a failing example itself under `pytest` (tests/test_fuzz.py); the long run
(cli.py) keeps going after a failure, so it reduces each failing program here instead: remove
chunks of lines, then single lines, then the reads that are not needed, as long as the program
stays valid on the reference and lazyarray still fails in the same way (same mode and category,
e.g. ('lazy', 'value')). Line tolerances stay those of the original program, which are never
tighter than the reduced program's.
"""
from __future__ import annotations

from .programs import Program
from .runner import check


def same_failure(program, key, interpret_first, **kw):
    out = check(program, interpret_first, **kw)
    return any(m[:2] == key for m in out.mismatches)


def shrink(program, interpret_first=None, budget=400, **kw):
    """The smallest program found (by line count) that fails like program; kw go to check."""
    out = check(program, interpret_first, **kw)
    if not out.mismatches or out.mismatches[0][0] == "ref":
        return program, out
    key = out.mismatches[0][:2]
    lines = list(program.lines)
    tries = 0

    def fails(cand):
        nonlocal tries
        tries += 1
        return same_failure(Program(cand, program.tol), key, interpret_first, **kw)

    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and tries < budget:
        i = 0
        changed = False
        while i < len(lines) and tries < budget:
            cand = lines[:i] + lines[i + chunk:]
            if cand and fails(cand):
                lines = cand
                changed = True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    small = Program(lines, program.tol)
    return small, check(small, interpret_first, **kw)
