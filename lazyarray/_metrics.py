"""Counters and the report a user prints: what was traced, compiled, cached, run and synced.

Updated by syncs under the engine lock (`_graph.lock`); the counters the background compile
thread also updates (compiles, compile_seconds, disk_hits) are changed under `Metrics.lock`.
Everything kept per site or per event is bounded, so a long run's metrics stay small.
"""
from __future__ import annotations

import collections
import os
import sys
import threading

from . import _config

MAX_SITES = 1000  # sync sites kept; past it the least frequent half is dropped


class _Counts(collections.Counter):
    """A Counter whose item assignment is dict's own: Counter's Python `__delitem__` makes
    CPython route every `c[k] = n` through a Python-level slot (~0.2 us instead of ~0.05), and
    each sync counts itself twice (`count_sync`). Deleting a missing key raises, as a dict's."""
    __delitem__ = dict.__delitem__


class Metrics:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.nodes_traced = 0
        self.compiles = 0
        self.cache_hits = 0
        self.cache_misses = 0
        self.disk_hits = 0
        self.compile_seconds = 0.0
        self.execute_seconds = 0.0
        self.executions = 0
        self.bytes_to_device = 0
        self.bytes_to_host = 0
        self.recycled_buffers = 0       # outputs written into the memory of dead arrays
        self.interpreted = 0            # programs run by the numpy interpreter (tier 1)
        self.interpret_seconds = 0.0
        self.host_syncs = 0             # small reads computed on the host without a program (_host_sync)
        self.host_sync_ops = 0          # ops those reads evaluated
        self.host_element_reads = 0     # x[i] read at once into a host scalar: of a computed array, or of a large pending one (_indexing, _host_sync.element_now)
        self.host_folds = 0             # ops on two 0-D host values computed when recorded (t[i] <= x: _host_sync.fold_leaves)
        self.zero_copy_reads = 0        # np.asarray reads handed the device buffer's memory (_engine.host_view)
        self.short_syncs = 0            # program syncs on the short path (_run_program._run_cached_one)
        self.interpreter_errors = []    # interpreter failures (the graph was compiled instead)
        self.compile_errors = []        # background compiles XLA rejected (the interpreter serves those graphs)
        self.background_compiles = 0    # compiles started on the compile thread
        self.segmented_syncs = 0        # syncs that ran a loop's graph chunk by chunk (_segment)
        self.chunks_run = 0             # programs those syncs ran
        self.unrequested_reshards = 0   # mesh inputs XLA had to re-lay-out before a program (_sharded_run)
        self.syncs = _Counts()        # cause -> count
        self.sync_sites = _Counts()   # (cause, (file, line)) -> count
        self.miss_explanations = []               # newest last, bounded
        self.graphs_per_site = collections.defaultdict(set)

    def count_sync(self, cause, site):
        """One sync caused by `cause` at the user's `site` (a (file, line) tuple)."""
        syncs = self.syncs
        syncs[cause] = syncs.get(cause, 0) + 1
        sites = self.sync_sites
        key = (cause, site)
        n = sites.get(key)
        if n is not None:  # (the common case: a site seen before)
            sites[key] = n + 1
            return
        if len(sites) >= MAX_SITES:  # code generated at run time: many distinct sites
            kept = sites.most_common(MAX_SITES // 2)
            sites.clear()
            sites.update(dict(kept))
        sites[key] = 1

    def as_dict(self):
        return {
            "nodes_traced": self.nodes_traced,
            "compiles": self.compiles,
            "cache_hits": self.cache_hits,
            "cache_misses": self.cache_misses,
            "disk_cache_hits": self.disk_hits,
            "compile_seconds": self.compile_seconds,
            "execute_seconds": self.execute_seconds,
            "executions": self.executions,
            "bytes_to_device": self.bytes_to_device,
            "bytes_to_host": self.bytes_to_host,
            "recycled_buffers": self.recycled_buffers,
            "interpreted": self.interpreted,
            "interpret_seconds": self.interpret_seconds,
            "host_syncs": self.host_syncs,
            "zero_copy_reads": self.zero_copy_reads,
            "short_syncs": self.short_syncs,
            "background_compiles": self.background_compiles,
            "segmented_syncs": self.segmented_syncs,
            "chunks_run": self.chunks_run,
            "unrequested_reshards": self.unrequested_reshards,
            "syncs": dict(self.syncs),
        }

    def hit_rate(self):
        total = self.cache_hits + self.cache_misses
        return self.cache_hits / total if total else 0.0

    def report(self):
        lines = [
            "lazyarray metrics",
            f"  nodes traced        {self.nodes_traced}",
            f"  programs executed   {self.executions}",
            f"  cache hits/misses   {self.cache_hits}/{self.cache_misses} ({100 * self.hit_rate():.1f}% hits)",
            f"  compiles            {self.compiles} ({self.disk_hits} loaded from disk)",
            f"  compile time        {self.compile_seconds * 1e3:.1f} ms ({self.background_compiles} compiles started in the background)",
            f"  interpreted         {self.interpreted} programs in {self.interpret_seconds * 1e3:.1f} ms (tier 1)",
            f"  small host reads    {self.host_syncs} ({self.host_sync_ops} ops, no program); "
            f"{self.host_element_reads} x[i] read when indexed, {self.host_folds} scalar ops computed when recorded",
            f"  execute time        {self.execute_seconds * 1e3:.1f} ms",
            f"  bytes to device     {self.bytes_to_device}",
            f"  bytes to host       {self.bytes_to_host}",
            f"  recycled buffers    {self.recycled_buffers}",
            f"  loop chunks         {self.chunks_run} programs in {self.segmented_syncs} segmented syncs",
            "  syncs by cause      " + (", ".join(f"{k}={v}" for k, v in sorted(self.syncs.items())) or "none"),
        ]
        if self.sync_sites:
            lines.append("  top sync sites")
            for (cause, site), n in self.sync_sites.most_common(5):
                lines.append(f"    {n:6d}  {cause:10s} {format_site(site)}")
        if self.compile_errors:
            lines.append(f"  compile errors      {len(self.compile_errors)} (interpreted instead); last:")
            lines.append(f"    {self.compile_errors[-1]}")
        if self.interpreter_errors:
            lines.append(f"  interpreter errors  {len(self.interpreter_errors)} (compiled instead); last:")
            lines.append(f"    {self.interpreter_errors[-1]}")
        if self.miss_explanations:
            lines.append("  last cache misses")
            for text in self.miss_explanations[-5:]:
                lines.append(f"    {text}")
        return "\n".join(lines)


metrics = Metrics()

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


_internal = {}  # co_filename -> whether it is one of our modules (cached: abspath is slow)


def _is_internal(filename):
    r = _internal.get(filename)
    if r is None:
        r = _internal[filename] = os.path.dirname(os.path.abspath(filename)).startswith(_PKG_DIR)
    return r


def user_site(internal=0):
    """(file, line) of the innermost frame outside lazyarray: where the user's code caused this.
    A tuple, formatted only when shown (this runs at every sync).

    A frame's `f_lineno` scans its code's line table up to the current instruction: ~0.6 us in a
    short function, ~4.5 us at the end of a 400-line one (SciPy's and scikit-learn's functions are
    long). The line is a function of the code and the instruction offset (`f_lasti`, ~40 ns), so
    each (code, offset) asks it once: `_sites`.

    `internal`: how many frames, the caller's first, are lazyarray's by construction (the
    caller's own, and the caller of a private function that only lazyarray code calls): the walk
    starts above them. Python 3.11 makes a frame object for each frame the walk reaches (~0.1 us
    each at a read, thread CPU), so skipping the frames known to be ours saves that. With
    `_config.verify` (on in the tests) the frames skipped are checked to be lazyarray's, so a
    caller whose promise does not hold fails loudly."""
    f = sys._getframe(1 + internal)
    code = f.f_code
    entry = _sites.get(id(code))
    if entry is not None and entry[0] is code and not _config.verify:
        # (the commonest: a user's code seen before, kept there alone, at an offset seen before)
        site = entry[1].get(f.f_lasti)
        if site is not None:
            return site
    if internal and _config.verify:
        for depth in range(1, 1 + internal):
            name = sys._getframe(depth).f_code.co_filename
            if not _is_internal(name):
                raise AssertionError(f"user_site(internal={internal}): frame {depth} up is {name}'s, not lazyarray's")
    internal = _internal
    while f is not None:
        code = f.f_code
        name = code.co_filename
        r = internal.get(name)
        if r is None:
            r = _is_internal(name)
        if not r:
            entry = _sites.get(id(code))
            if entry is None or entry[0] is not code:
                if len(_sites) >= SITE_CODES_KEPT:
                    _sites.clear()
                entry = _sites[id(code)] = (code, {})
            at = entry[1]
            lasti = f.f_lasti
            site = at.get(lasti)
            if site is None:
                site = at[lasti] = (name, f.f_lineno)
            return site
        f = f.f_back
    return ("<unknown>", 0)


# id(code object) -> (the code, {instruction offset: its (file, line)}): the user's code objects
# that caused syncs, held so their ids are not reused while kept; emptied when it reaches
# SITE_CODES_KEPT (code generated at run time: many code objects)
_sites = {}
SITE_CODES_KEPT = 4096


def format_site(site):
    return f"{site[0]}:{site[1]}"


def explain_miss(key, cached_keys):
    """Why `key` missed: the nearest cached graph and the first place where the two differ."""
    best, best_score = None, None
    for other in cached_keys:
        if len(other) != len(key):
            score = (1, abs(len(other) - len(key)))
        else:
            score = (0, sum(1 for a, b in zip(key, other) if a != b))
        if best_score is None or score < best_score:
            best, best_score = other, score
    if best is None:
        return "first graph compiled"
    if best_score[0]:
        return f"no cached graph of this size ({len(key) - 1} nodes); nearest has {len(best) - 1}"
    for i, (a, b) in enumerate(zip(key, best)):
        if a != b:
            return f"{best_score[1]} node(s) differ from the nearest cached graph; first at #{i}: {_describe(a)} vs cached {_describe(b)}"
    return "identical key (evicted from the in-memory cache)"


def _describe(sig):
    if len(sig) == 3 and type(sig[2]) is bool:  # a leaf (`_graph.Plan`): (shape, dtype, packs)
        shape, dtype, packed = sig
        how = "a host scalar packed with its dtype's others" if packed else "a parameter of its own"
        return f"input shape={shape} dtype={getattr(dtype, 'name', dtype)} ({how})"
    if len(sig) == 2:
        shape, dtype = sig
        return f"input shape={shape} dtype={dtype}"
    if len(sig) == 5:
        op, attrs, shape, dtype, _ = sig
        attrs = [a for a in attrs if not isinstance(a, bytes)]  # constants' bytes say nothing
        return f"{getattr(op, 'name', op)}{attrs if attrs else ''} shape={shape} dtype={dtype}"
    return f"outputs {sig}"


def _report_at_exit():
    print(metrics.report(), file=sys.stderr)


def install_exit_report():
    import atexit
    atexit.register(_report_at_exit)
