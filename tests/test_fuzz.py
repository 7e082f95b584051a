"""Differential fuzzing in CI (issue 9, item 9): a bounded number of random Array API programs,
each run on lazyarray lazily and eagerly and on array-api-strict, in both execution tiers; and
tests of the fuzzer itself (its comparison, that it finds a planted bug and shrinks it).

The long run is `bash bin/fuzz.sh N` (tests/fuzz/cli.py). Hypothesis shrinks a failure here to a
short program and prints it as Python (Program.__repr__).
"""
import numpy as np
from hypothesis import HealthCheck, given, settings

from fuzz.programs import Line, Program, programs
from fuzz.reference import REF, RefNamespace
from fuzz.runner import check, compare
from fuzz.shrink import shrink

# bug classes someone is fixing now, left out of the CI programs (bin/fuzz.sh runs them all);
# each has its regression tests in test_fuzz_regressions.py
CI_SKIP = frozenset()



def fuzz_settings(n):
    return settings(max_examples=n, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _assert_clean(program, interpret_first):
    out = check(program, interpret_first)
    assert out.reads > 0 or not program.lines
    assert not out.mismatches, "\n".join(f"{m[0]}: {m[1]}: {m[2]}" for m in out.mismatches)


@fuzz_settings(150)
@given(programs(max_lines=20, skip=CI_SKIP))
def test_programs_default_tier(program):
    """New graphs run in the numpy interpreter tier first (the default)."""
    _assert_clean(program, None)


@fuzz_settings(60)
@given(programs(max_lines=12, skip=CI_SKIP))
def test_programs_compiled_tier(program):
    """Every graph compiled by XLA at first sight (LAZYARRAY_INTERPRET_FIRST=0)."""
    _assert_clean(program, 0)


# -- the comparison ------------------------------------------------------------------------------

def test_compare_exact_and_tolerances():
    a = np.array([1.0, np.nan, np.inf, -0.0])
    assert compare(a, a.copy()) is None
    assert compare(a, np.array([1.0, np.nan, np.inf, 0.0])) is None          # sign of zero
    assert compare(a, np.array([np.nextafter(1.0, 2.0), np.nan, np.inf, 0.0]))[0] == "value"
    assert compare(a, np.array([1.0, 0.0, np.inf, 0.0]))[0] == "value"       # NaN position
    assert compare(a, np.array([1.0, np.nan, -np.inf, 0.0]))[0] == "value"
    assert compare(a, a.astype(np.float32))[0] == "dtype"
    assert compare(a, a[:3])[0] == "shape"
    # class 1: a few ulp; class 2: relative to the magnitude that went in
    x = np.array([3.0])
    assert compare(x, x + 2 * np.spacing(3.0), cls=1) is None
    assert compare(x, x + 64 * np.spacing(3.0), cls=1)[0] == "value"
    assert compare(np.array([1e-12]), np.array([2e-12]), cls=2, mag=1e4) is None
    assert compare(np.array([1e-12]), np.array([2e-12]), cls=2, mag=1e-6)[0] == "value"
    # XLA's CPU flushes subnormals to zero: tolerated
    sub = np.array([np.finfo(np.float64).smallest_subnormal])
    assert compare(sub, np.zeros(1)) is None
    assert compare(np.array([3], np.int8), np.array([4], np.int8))[0] == "value"
    # single precision went into a float64 value: single precision's tolerance
    third = np.array([np.float32(-1 / 3)], np.float64)
    assert compare(np.array([-1 / 3]), third, cls=2, mag=1.0)[0] == "value"
    assert compare(np.array([-1 / 3]), third, cls=2, mag=1.0, lowp=True) is None
    c = np.array([1 + 1e-17j])
    assert compare(np.array([1 + 0j]), c, cls=1) is None
    assert compare(np.array([1 + 0j]), c, cls=0)[0] == "value"


def test_reference_aliases_only_through_view_functions():
    """array-api-strict returns an integer array itself from floor; numpy's reshape is a view."""
    ns = {"xp": REF}
    exec("x = xp.asarray([5, 6]); f = xp.floor(x); r = xp.reshape(x, (2, 1)); x += 1", ns)
    assert np.asarray(ns["f"]._array).tolist() == [5, 6]
    assert np.asarray(ns["r"]._array).ravel().tolist() == [6, 7]


# -- the fuzzer finds and shrinks a planted bug ----------------------------------------------------

class _OffByOneAdd(RefNamespace):
    """array-api-strict with a wrong `add` for int16: the bug the fuzzer must find."""

    def __getattr__(self, name):
        fn = super().__getattr__(name)
        if name != "add":
            return fn

        def add(a, b):
            out = fn(a, b)
            return out + 1 if out.dtype == REF.int16 else out
        return add


def test_finds_and_shrinks_a_planted_bug():
    lines = [Line("v0 = xp.asarray([1, 2], dtype=xp.int16)", ("v0",)),
             Line("v1 = xp.asarray([1.0, 2.0], dtype=xp.float64)", ("v1",)),
             Line("v2 = xp.sin(v1)", ("v2",)),
             Line("v3 = xp.add(v0, 3)", ("v3",)),
             Line("v4 = xp.add(v1, v1)", ("v4",)),
             Line("v3", ("v3",), read="array")]
    program = Program(lines, {"v2": (1, 2.0, False)})
    bad = _OffByOneAdd()
    assert not check(program, subject=REF).mismatches          # the reference agrees with itself
    out = check(program, subject=bad)
    assert [m[:2] for m in out.mismatches] == [("lazy", "value"), ("eager", "value")]
    small, sout = shrink(program, subject=bad)
    assert [ln.code for ln in small.lines] == ["v0 = xp.asarray([1, 2], dtype=xp.int16)",
                                               "v3 = xp.add(v0, 3)"]
    assert sout.mismatches
    assert "v3 = xp.add(v0, 3)" in small.python()


def test_generated_programs_are_valid_standard_programs():
    """Every drawn line ran on array-api-strict, so the reference replays each program cleanly."""
    seen = []

    @fuzz_settings(40)
    @given(programs(max_lines=15))
    def collect(program):
        seen.append(program)
        assert not check(program, subject=REF).mismatches
    collect()
    assert sum(len(p.lines) for p in seen) > 100


def test_reference_floor_divide_follows_the_standard():
    """numpy floors 1 // -inf to -1 (Python's rule); the standard says -0, as lazyarray."""
    ns = {"xp": REF}
    exec("a = xp.asarray([1.0, -1.0, 2.0]); b = xp.asarray([-xp.inf, xp.inf, 4.0]); "
         "q = a // b; f = xp.floor_divide(a, b); c = xp.asarray([1.0, -1.0, 2.0]); c //= b", ns)
    for name in ("q", "f", "c"):
        got = ns[name]._array
        assert got.tolist() == [0.0, 0.0, 0.0]
        assert np.signbit(got).tolist() == [True, True, False]


def test_long_run_command_prints_counts(tmp_path, capsys):
    """bin/fuzz.sh's entry point: counts on stdout, failing programs appended to the log."""
    from fuzz.cli import main
    log = tmp_path / "failures.jsonl"
    status = main(["8", "--seed", "1", "--log", str(log), "--skip", "views"])
    out = capsys.readouterr().out
    assert "programs 8," in out and "reads compared" in out and "mismatching programs" in out
    n_bad = int(out.split("mismatching programs ")[1].split()[0])
    assert status == (1 if n_bad else 0)
    assert (log.read_text().count("\n") if log.exists() else 0) == n_bad
