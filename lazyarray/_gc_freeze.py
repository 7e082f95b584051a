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
(the old generation doubled), the next automatic full collection unfreezes everything first and
scans it all (a complete one): a cycle among frozen objects that became garbage is collected then,
at the latest, so memory held by such garbage stays bounded by the live heap. An explicit
`gc.collect()` is always complete, and leaves its survivors unfrozen (`gc.get_objects` and
`gc.get_referrers` see them, as without lazyarray): what a test or a leak hunt asks of it still
holds. An automatic collection is told from an explicit one by the young generation's count (only
an allocation past the threshold starts one, and it has not reset the count yet).

With the policy, the program's setup is frozen once more at the first graph the process sees
(`freeze_setup`): what was imported after lazyarray and set up before that graph, unscanned.

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
                    # an upper bound, as some die by reference count later)
    scanned = 0     # objects the last complete collection scanned
    partial = 0     # partial collections made (for tests and reports)
    complete = 0    # complete ones made by the policy (explicit collections not counted)
    running = None  # the running full collection: "partial", "complete", "explicit" or None


oldest = _Oldest()
_setup = False  # whether what the program set up is still to be frozen (`freeze_setup`)


def freeze_import_objects() -> bool:
    """Collect once, then move every tracked object to the permanent generation, and (unless
    LAZYARRAY_GC_FREEZE=import) install the survivors' policy (`_on_collection`). Returns whether
    it froze (not when opted out: `_config.gc_freeze`, LAZYARRAY_GC_FREEZE)."""
    global _setup
    if not _config.gc_freeze:
        return False
    gc.collect()
    if _config.gc_freeze_survivors and _SUPPORTED and _on_collection not in gc.callbacks:
        oldest.base = len(gc.get_objects())
        gc.callbacks.append(_on_collection)
        _setup = True
    gc.freeze()
    return True


def freeze_setup():
    """At the first graph the process sees (`_tier_policy.first_sight`): what exists then and has
    survived the young collections is frozen without a full scan (the young ones are collected
    first): the modules imported after lazyarray (SciPy's, scikit-learn's: ~43,000 objects in
    SciPy's call table) and the data the program set up, which the first automatic full
    collection would otherwise scan once (12-28 ms, in the table's first pass) before freezing
    them. A cycle among them that is garbage already, or becomes garbage, waits for the next
    complete scan or explicit collection (this one freeze is not counted towards the doubling
    that starts a complete scan)."""
    global _setup
    if _setup:
        _setup = False
        gc.collect(1)
        gc.freeze()


def _on_collection(phase, info):
    """`gc.callbacks` hook: a full collection starting is partial (the frozen objects stay out of
    it) when it is automatic and the old generation has not doubled since the last complete scan;
    otherwise everything is unfrozen first. When it ends, an automatic one's survivors are frozen."""
    if info["generation"] != 2:
        return
    o = oldest
    if phase == "start":
        if not (gc.isenabled() and gc.get_count()[0] > gc.get_threshold()[0]):
            gc.unfreeze()  # an explicit collection: everything, as without lazyarray
            o.running = "explicit"
            return
        old = len(gc.get_objects(2))  # (not frozen: promoted since the last full collection)
        if o.pending + old < o.base:
            o.pending += old
            o.partial += 1
            o.running = "partial"
            return
        gc.unfreeze()
        # (counted, not estimated: frozen objects that reference counting freed since are gone,
        # and an estimate that kept them would grow from one complete scan to the next; the
        # count costs ~1/4 of the scan itself, once per complete scan)
        o.scanned = len(gc.get_objects())
        o.complete += 1
        o.running = "complete"
        return
    running, o.running = o.running, None
    if running == "explicit":
        return  # its survivors stay where gc.collect() leaves them (the next automatic full
        # collection finds them all unfrozen, so it is a complete one)
    if running == "complete":  # what it left is the new base
        o.base, o.pending = max(o.scanned - info["collected"], 1), 0
    gc.freeze()
