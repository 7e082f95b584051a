"""The inspection API: __array_namespace_info__()."""
from __future__ import annotations

from . import _dtypes as dt
from ._devices import DeviceTuple, all_devices, check_device, default_device


class __array_namespace_info__:
    """What this namespace supports, as the standard's inspection API reports it."""

    def capabilities(self):
        # boolean indexing and nonzero need the count of True values first: a sync, but supported
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self):
        return default_device()

    def default_dtypes(self, *, device=None):
        check_device(device)
        return {"real floating": dt.DEFAULT_FLOAT, "complex floating": dt.DEFAULT_COMPLEX,
                "integral": dt.DEFAULT_INT, "indexing": dt.DEFAULT_INDEX}

    def dtypes(self, *, device=None, kind=None):
        check_device(device)
        if kind is None:
            return {d.name: d for d in dt.ALL}
        kinds = kind if isinstance(kind, tuple) else (kind,)
        selected = set()
        for k in kinds:
            if isinstance(k, dt.DType):
                selected.add(k)
            elif k in dt.CATEGORIES:
                selected |= dt.CATEGORIES[k]
            else:
                raise ValueError(f"dtypes: unknown kind {k!r}")
        return {d.name: d for d in dt.ALL if d in selected}

    def devices(self):
        return DeviceTuple(all_devices())
