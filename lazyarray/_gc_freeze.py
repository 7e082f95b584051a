"""Python's cyclic garbage collector and the objects that importing lazyarray creates, and those
that survive a full collection.

Importing lazyarray imports jax and jaxlib: ~100,000 objects (modules, functions, types) that
live as long as the process. Python's full collections (generation 2) scan every tracked object
each time; in a scikit-learn process, where a first pass over 36 estimator configurations triggers
a few of them, those ~100,000 objects make each full collection ~40% dearer (0.48-0.58 s against
0.33-0.36 s of collector time over one such process, measured with `gc.callbacks`). So, at the
end of the import, the objects that exist then are collected once (no garbage is left behind to
be kept for ever) and moved to the collector's permanent generation (`gc.freeze`): later full
collections skip them. They are still freed by reference counting as usual; what is given up is
only that a reference cycle among them that becomes garbage later waits for the next complete scan
below (with LAZYARRAY_GC_FREEZE=import: is never collected; modules, functions and types hardly
ever become garbage).

The same holds, more weakly, for whatever survives a full collection later: the modules imported
after lazyarray (SciPy's, scikit-learn's: ~43,000 objects in SciPy's call table), the engine's
kept caches. A lazyarray process allocates many short-lived tracked objects (nodes, handles,
their argument tuples: ~60 young collections in a pass over SciPy's table, where
array-api-strict makes 3), so full collections come often, and each one scans all of that again
(~20 ms of the table's ~110 ms second pass when one lands there). So the collector gets one more,
older generation (`_on_collection`, a `gc.callbacks` hook): after each full collection the
survivors are frozen, so the next automatic full collection scans only what was promoted since
(a partial one). Once the objects frozen that way are as many as the last complete scan left
(the old generation doubled: an estimate, counted before it is acted on, and only once the
small-object heap, `sys.getallocatedblocks`, doubled too), the next automatic full collection
unfreezes everything first and scans it all (a complete one): a cycle among frozen objects that
became garbage is collected then, at the latest, so memory held by such garbage stays bounded by
the live heap. An explicit
`gc.collect()` is always complete, and leaves its survivors unfrozen (`gc.get_objects` and
`gc.get_referrers` see them, as without lazyarray): what a test or a leak hunt asks of it still
holds. An automatic collection is told from an explicit one by the young generation's count (only
an allocation past the threshold starts one, and it has not reset the count yet).

With the policy, the program's setup is frozen too, unscanned: what was imported after lazyarray
and set up before the first graph the process sees. Each middle collection before that graph
freezes what it promoted at its end (`_freeze_promoted`), counted while the collector's scan left
it in the cache (counting the whole setup at the first graph cost ~1-1.7 ms of a scikit-learn
process's first call, ~60-100 ns an object). At the first graph (`freeze_setup`) it counts as old
generation already there (the doubling that starts a complete scan is measured from it): a test
runner's collected tests, a consumer's imported modules are the live heap of what follows, not
growth of it (SciPy's signal tests: 3 complete scans, one in a test, -> 2, both in the collection
phase). A freeze resets CPython's count of middle collections, so while each one freezes, no
automatic full collection comes: that stops once what was frozen since the last complete scan
reaches its base (the doubling), and the policy goes on as below, also in a process that never
makes a graph.

How big a partial collection is, and so how long it pauses the program, is what was promoted
since the last full collection: CPython starts one after 10 collections of the middle generation,
once the objects promoted since reach a quarter of what the last one left. In a long run whose
objects mostly survive (a test runner keeps every test's report; SciPy's whole suite) that is
~50,000-190,000 objects, up to ~0.12 s landing in one short test. So once the program has had a
full collection (a short one that never reaches CPython's trigger pays nothing new: SciPy's call
table has none in either pass), the first sight after half as many middle collections
(`_on_collection`, `EARLY`) runs the partial collection itself (`early_collection`): each scans
half as much, as often as needed (SciPy's signal tests: the largest pause inside a test 0.026 ->
0.014 s). After a complete scan
the same runs at the next first sight: CPython's trigger is measured against the whole heap that
scan left, frozen since, so its next partial one would wait for ~1/4 of the heap to be promoted
and scan all of that at once (a probe with small thresholds: the next partial after 27,507
allocations, 1,316 with the early one). After an explicit `gc.collect()` (everything unfrozen,
just scanned), the next full collection freezes everything at its start instead of scanning it
all again: what was promoted since is frozen unscanned, and counted into the base.

`LAZYARRAY_GC_FREEZE=import` keeps the import-time freeze alone, `LAZYARRAY_GC_FREEZE=0` leaves
the collector alone. (Frozen objects are invisible to `gc.get_objects()` and `gc.get_referrers()`
until the next complete or explicit collection; a program that calls `gc.freeze` itself, before a
fork, should opt out: a complete scan unfreezes its objects too, and freezes the survivors again.)
"""
from __future__ import annotations

import gc
import sys

from . import _config

# The generational collector this policy is written for: CPython's three generations with a
# young-generation count that an allocation past its threshold starts a collection at
# (3.10-3.13 with the GIL; 3.14's incremental collector and the free-threaded build's have other
# generations).
_SUPPORTED = (sys.implementation.name == "cpython" and sys.version_info < (3, 14)
              and getattr(sys, "_is_gil_enabled", lambda: True)())


class _Oldest:
    """The policy's estimate of the old generation (object counts)."""
    base = 0        # frozen after the last complete scan (or the import's freeze)
    pending = 0     # frozen since then (the old generation's size at each partial collection:
                    # an upper bound, as some die by reference count later; counted exactly
                    # when it reaches `base`)
    partial = 0     # partial collections made (for tests and reports)
    complete = 0    # complete ones made by the policy (explicit collections not counted)
    early = 0       # full collections lazyarray ran at a first sight (`early_collection`)
    counts = 0      # times the estimate said doubled and the frozen objects were counted
    blocks = 0      # the small-object heap's blocks (sys.getallocatedblocks) when `base` was set
    unfrozen = False  # whether the last full collection was explicit (everything unfrozen)
    running = None  # the running full collection: "partial", "complete", "explicit" or None


oldest = _Oldest()
_setup = False  # whether the next first sight has work here (`freeze_setup`)
_setup_frozen = False  # whether what the program set up has been frozen
_early = False  # whether the next first sight runs a full collection (`early_collection`)
_ours = False  # while that collection runs
# middle-generation collections since the last full one after which the next first sight runs a
# full collection: half of the program's threshold for it (CPython's 10)
EARLY = 0.5
# how much the small-object heap (sys.getallocatedblocks) must have grown since `base` was set
# before the frozen objects are counted and a complete scan may follow (`_on_collection`): the
# old generation doubled in memory too (tracked objects are ~1/4 of the blocks, 99k of 380k after
# importing lazyarray; what they hold grows with them)
GROWN = 2.0


def freeze_import_objects() -> bool:
    """Collect once, then move every tracked object to the permanent generation, and (unless
    LAZYARRAY_GC_FREEZE=import) install the survivors' policy (`_on_collection`). Returns whether
    it froze (not when opted out: `_config.gc_freeze`, LAZYARRAY_GC_FREEZE)."""
    global _setup
    if not _config.gc_freeze:
        return False
    gc.collect()
    if _config.gc_freeze_survivors and _SUPPORTED and _on_collection not in gc.callbacks:
        oldest.base, oldest.blocks = len(gc.get_objects()), sys.getallocatedblocks()
        gc.callbacks.append(_on_collection)
        _setup = True
    gc.freeze()
    return True


def freeze_setup():
    """At a first sight (`_tier_policy.first_sight`, when `_setup` says there is work here). At
    the first graph the process sees: what the program set up before it and has survived a
    middle collection is frozen already (`_freeze_promoted`, as each was promoted): the modules
    imported after lazyarray (SciPy's, scikit-learn's: ~43,000 objects in SciPy's call table) and
    the data the program set up, which the first automatic full collection would otherwise scan
    once (12-28 ms, in the table's first pass) before freezing them. Those objects, and the ones
    frozen since the last complete scan, become the base the next doubling is measured from; the
    young ones (not promoted yet) are left to the policy, as the work's own. A cycle among the
    frozen ones that is garbage already, or becomes garbage, waits for the next complete scan or
    explicit collection. (After an explicit collection nothing is frozen as it is promoted: the
    young ones are collected, what exists then counted and frozen here, ~60-100 ns an object.)
    Then the full collection `_on_collection` asked for, if any."""
    global _setup, _setup_frozen, _early
    _setup = False
    if not _setup_frozen:
        _setup_frozen = True
        o = oldest
        if o.unfrozen:
            gc.collect(1)
            o.pending += len(gc.get_objects(2))  # (not frozen yet: the setup, young ones included)
            gc.freeze()
        o.base += o.pending
        o.pending, o.blocks = 0, sys.getallocatedblocks()
    if _early:
        _early = False
        early_collection()


def _freeze_promoted():
    """(`_on_collection`, at the end of a middle collection before the first graph.) Freeze what
    it promoted to the old generation, counted while the collector's scan left it in the cache
    (~15 ns an object, against ~60-100 ns for the whole setup at once at the first graph: ~1-1.7
    ms of a scikit-learn process's first call). Counted as frozen since the last complete scan
    (`pending`): the doubling that starts a complete scan includes them, and the first graph
    makes them the base (`freeze_setup`)."""
    oldest.pending += len(gc.get_objects(2))
    gc.freeze()


def early_collection():
    """A full collection run by lazyarray (partial, or complete when due, like an automatic
    one): it scans what was promoted since the last one, and CPython measures its own trigger for
    the next from what this one leaves."""
    global _ours
    if not gc.isenabled():
        return  # (the program turned the collector off: no collection of ours either)
    _ours = True
    try:
        gc.collect(2)
    finally:
        _ours = False
    oldest.early += 1


def _on_collection(phase, info):
    """`gc.callbacks` hook: a full collection starting is partial (the frozen objects stay out of
    it) when it is automatic (or ours) and the old generation has not doubled since the last
    complete scan; otherwise everything is unfrozen first (after an explicit one: everything is
    frozen first). When it ends, an automatic one's survivors are frozen. After enough middle
    collections, or a complete scan, the next first sight runs a full collection."""
    generation = info["generation"]
    if generation != 2:
        if generation == 1 and phase == "stop":
            if not _setup_frozen and not oldest.unfrozen and oldest.pending < oldest.base:
                _freeze_promoted()
            if not _early and (oldest.partial or oldest.complete) and gc.isenabled() \
                    and gc.get_count()[2] >= max(1, int(gc.get_threshold()[2] * EARLY)):
                _ask_early()
        return
    o = oldest
    if phase == "start":
        if not _ours and not (gc.isenabled() and gc.get_count()[0] > gc.get_threshold()[0]):
            gc.unfreeze()  # an explicit collection: everything, as without lazyarray
            o.running = "explicit"
            return
        if o.unfrozen:  # everything was scanned by the explicit one (or promoted since)
            o.unfrozen = False
            gc.freeze()
            o.partial += 1
            o.running = "partial"
            return
        old = len(gc.get_objects(2))  # (not frozen: promoted since the last full collection)
        if o.pending + old >= o.base:
            # the estimate says doubled (it keeps what reference counting freed since it was
            # frozen: in SciPy's whole suite it reached 1.36M against 0.37M of real growth).
            # Counting walks the frozen list once (~1/20 of a complete scan, but 0.08 s at 0.9M
            # objects, in whatever test it lands): only once the small-object heap doubled too
            # since `base` was set; until then no complete scan either (garbage among frozen
            # objects holds at most as much memory as the heap had then)
            if sys.getallocatedblocks() >= GROWN * o.blocks:
                o.pending = max(gc.get_freeze_count() - o.base, 0)
                o.counts += 1
            else:
                o.pending = o.base - old - 1  # (checked again at the next full collection)
        if o.pending + old < o.base:
            o.pending += old
            o.partial += 1
            o.running = "partial"
            return
        gc.unfreeze()
        o.complete += 1
        o.running = "complete"
        return
    running, o.running = o.running, None
    if running == "explicit":
        # what it left is the new base, counted inside the scan the program asked for (the next
        # full collection freezes it all at its start, neither scanning nor counting it again);
        # its survivors stay where gc.collect() leaves them: unfrozen
        gc.freeze()
        o.base, o.pending, o.blocks = max(gc.get_freeze_count(), 1), 0, sys.getallocatedblocks()
        gc.unfreeze()
        o.unfrozen = True
        return
    gc.freeze()
    if running == "complete":
        # what it left is the new base: counted, not estimated (frozen objects that reference
        # counting freed since are gone, and an estimate that kept them would grow from one
        # complete scan to the next; the count walks the frozen list once, ~1/6 of the scan)
        o.base, o.pending, o.blocks = max(gc.get_freeze_count(), 1), 0, sys.getallocatedblocks()
        _ask_early()


def _ask_early():
    """A full collection (`early_collection`) at the next first sight (a collection cannot start
    another from its callback)."""
    global _setup, _early
    _early = _setup = True
