"""Python's cyclic garbage collector and the objects that importing lazyarray creates.

Importing lazyarray imports jax and jaxlib: ~100,000 objects (modules, functions, types) that
live as long as the process. Python's full collections (generation 2) scan every tracked object
each time; in a scikit-learn process, where a first pass over 36 estimator configurations triggers
a few of them, those ~100,000 objects make each full collection ~40% dearer (0.48-0.58 s against
0.33-0.36 s of collector time over one such process, measured with `gc.callbacks`). So, at the
end of the import, the objects that exist then are collected once (no garbage is left behind to
be kept for ever) and moved to the collector's permanent generation (`gc.freeze`): later full
collections skip them. They are still freed by reference counting as usual; what is given up is
only that a reference cycle among them that becomes garbage later is never collected (modules,
functions and types hardly ever do). `LAZYARRAY_GC_FREEZE=0` leaves the collector alone.
"""
from __future__ import annotations

import gc

from . import _config


def freeze_import_objects() -> bool:
    """Collect once, then move every tracked object to the permanent generation. Returns whether
    it did (not when opted out: `_config.gc_freeze`, LAZYARRAY_GC_FREEZE)."""
    if not _config.gc_freeze:
        return False
    gc.collect()
    gc.freeze()
    return True
