"""Run one program three ways and compare every value read.

  ref    array-api-strict (numpy underneath, the standard's rules enforced), read after every line
  lazy   lazyarray, values read only where the program reads them, and every variable at the end
  eager  lazyarray, every variable a line writes read right after it (so each op runs alone)

Both lazyarray runs are compared with the reference at the same points. The execution tier is a
parameter: `tier` is lazyarray's interpret_first (0: every graph compiled by XLA at first sight;
2, the default: new graphs run in the numpy interpreter tier).

Comparison (compare): shapes and dtypes equal; integers and booleans exactly; floats by the
variable's tolerance class from programs.py (0: equal, where XLA's flush of a subnormal to zero is
allowed; 1: within 4 ulp; 2: within a relative 1e-9 (float64) or 1e-4 (float32) of the largest
magnitude that went into the value; 3: NaN and infinity positions only); NaN and infinity
positions always equal; complex values part by part, a complex NaN being one with either part
NaN. The sign of zero is not compared.
"""
from __future__ import annotations

import re
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

import lazyarray as lazy_xp
from lazyarray import _config

from .reference import REF, RefArray

_VAR = re.compile(r"^v\d+$")
RTOL = {"float64": 1e-9, "float32": 1e-4, "complex128": 1e-9, "complex64": 1e-4}


@dataclass
class Outcome:
    reads: int = 0                                  # values compared
    mismatches: list = field(default_factory=list)  # (mode, category, message)

    @property
    def category(self):
        return self.mismatches[0][:2] if self.mismatches else None


@contextmanager
def tier(interpret_first):
    old = _config.interpret_first
    _config.interpret_first = interpret_first
    try:
        yield
    finally:
        _config.interpret_first = old


def _value(x, how, is_ref):
    if how == "array":
        return np.array(x._array if is_ref else _to_numpy(x), copy=True)
    return {"float": float, "int": int, "bool": bool, "complex": complex}[how](x)


def _to_numpy(x):
    return x._array if isinstance(x, RefArray) else np.asarray(x)


def execute(program, xp, mode):
    """Run program on namespace xp; returns ({read key: value}, error or None).

    mode 'ref' or 'eager' records after every line; 'lazy' only at reads and at the end."""
    is_ref = xp is REF
    ns = {"xp": xp}
    seen = {}
    every = mode in ("ref", "eager")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # numpy's mean of an empty slice ...
        for i, line in enumerate(program.lines):
            if line.read:
                v = line.targets[0]
                if v not in ns:
                    return seen, ("missing", i, f"{v} undefined")
                try:
                    seen[("read", i, v, line.read)] = _value(ns[v], line.read, is_ref)
                except Exception as e:  # noqa: BLE001
                    return seen, ("raise", i, f"read {line.python()}: {type(e).__name__}: {e}")
                continue
            try:
                exec(line.code, ns)
            except Exception as e:  # noqa: BLE001
                if line.expect_error:
                    continue
                return seen, ("raise", i, f"{line.code}: {type(e).__name__}: {e}")
            if line.expect_error:
                return seen, ("noerror", i, f"{line.code}: no error (numpy: read-only)")
            if every:
                for v in line.targets:
                    try:
                        seen[("after", i, v)] = _value(ns[v], "array", is_ref)
                    except Exception as e:  # noqa: BLE001
                        return seen, ("raise", i, f"read {v} after {line.code}: {type(e).__name__}: {e}")
        for v in sorted((k for k in ns if _VAR.match(k)), key=lambda k: int(k[1:])):
            try:
                seen[("final", v)] = _value(ns[v], "array", is_ref)
            except Exception as e:  # noqa: BLE001
                return seen, ("raise", len(program.lines), f"final read {v}: {type(e).__name__}: {e}")
    return seen, None


def compare(ref, got, cls=0, mag=0.0, lowp=False):
    """None when got matches ref under tolerance class cls, else what differs. lowp: single
    precision values went into an inexact (class 1 or 2) value: single precision's tolerance."""
    r, g = np.asarray(ref), np.asarray(got)
    rtol_name = r.dtype.name
    if lowp and cls in (1, 2):
        cls, rtol_name = 2, "float32"
    if r.shape != g.shape:
        return "shape", f"shape {g.shape}, numpy {r.shape}"
    if r.dtype != g.dtype:
        return "dtype", f"dtype {g.dtype}, numpy {r.dtype}"
    if r.dtype.kind == "c":   # a complex NaN is one with either part NaN (the standard's reading)
        rn = np.isnan(r.real) | np.isnan(r.imag)
        gn = np.isnan(g.real) | np.isnan(g.imag)
        r = np.where(rn, np.asarray(complex(np.nan, np.nan), r.dtype), r)
        g = np.where(gn, np.asarray(complex(np.nan, np.nan), g.dtype), g)
    if r.dtype.kind in "biu":
        bad = r != g
    elif r.dtype.kind == "c" and cls in (1, 3):
        b1 = _float_bad(r.real, g.real, None, 0.0, r.dtype.name)   # NaN and infinity positions
        b2 = _float_bad(r.imag, g.imag, None, 0.0, r.dtype.name)
        with np.errstate(all="ignore"):
            far = np.abs(g - r) > 4 * np.finfo(r.dtype).eps * np.abs(r)
        bad = b1 | b2 | (np.isfinite(r) & np.isfinite(g) & far & (cls == 1))
    elif r.dtype.kind == "c":
        b1 = _float_bad(r.real, g.real, cls, mag, rtol_name)
        b2 = _float_bad(r.imag, g.imag, cls, mag, rtol_name)
        bad = b1 | b2
    else:
        bad = _float_bad(r, g, cls, mag, rtol_name)
    if not np.any(bad):
        return None
    at = tuple(int(i) for i in np.argwhere(bad)[0]) if r.ndim else ()
    rv, gv = (r[at], g[at])
    return "value", f"at {at}: {gv!r}, numpy {rv!r} (class {cls}; {int(np.sum(bad))} of {r.size} differ)"


def _float_bad(r, g, cls, mag, dtname):
    r = np.asarray(r)
    g = np.asarray(g)
    rn, gn = np.isnan(r), np.isnan(g)
    bad = rn != gn
    both = ~(rn | gn)
    inf = both & (np.isinf(r) | np.isinf(g))
    bad |= inf & (r != g)
    fin = both & ~inf
    with np.errstate(all="ignore"):
        diff = np.abs(g - r)
        tiny = np.finfo(r.dtype).smallest_normal
        flushed = (np.abs(r) < tiny) & (np.abs(g) < tiny)
        if cls is None or cls == 3:    # NaN and infinity positions only
            ok = np.ones(r.shape, bool)
        elif cls == 0:
            ok = (diff == 0) | flushed
        elif cls == 1:
            ok = (diff <= 4 * np.spacing(np.abs(r))) | flushed
        else:
            rtol = RTOL[dtname if dtname in RTOL else "float64"]
            ok = diff <= rtol * np.maximum(np.abs(r), mag) + 4 * tiny
    bad |= fin & ~ok
    return bad


def check(program, interpret_first=None, modes=("lazy", "eager"), subject=lazy_xp):
    """Run the program on the reference and on `subject` (lazyarray) in each mode; compare
    every read. interpret_first: lazyarray's tier setting for the run (None: as configured)."""
    out = Outcome()
    ref, err = execute(program, REF, "ref")
    if err:   # the program is not valid any more (a shrink step removed what it needed)
        out.mismatches.append(("ref", "invalid", err[2]))
        return out
    for mode in modes:
        if interpret_first is None:
            seen, err = execute(program, subject, mode)
        else:
            with tier(interpret_first):
                seen, err = execute(program, subject, mode)
        for key, got in seen.items():
            var = key[2] if key[0] != "final" else key[1]
            cls, mag, lowp = program.tol.get(var, (0, 0.0, False))
            out.reads += 1
            diff = compare(ref[key], got, cls, mag, lowp)
            if diff:
                out.mismatches.append((mode, diff[0], f"{_where(program, key)}: {diff[1]}"))
                break
        if err:
            out.mismatches.append((mode, err[0], f"line {err[1] + 1}: {err[2]}"))
    return out


def _where(program, key):
    if key[0] == "final":
        return f"{key[1]} at the end"
    if key[0] == "read":
        return f"{key[3]}({key[2]}) at line {key[1] + 1}"
    return f"{key[2]} after line {key[1] + 1} `{program.lines[key[1]].code}`"
