"""The inspection API: __array_namespace_info__()."""
from __future__ import annotations

from . import _dtypes as dt
from ._devices import DeviceTuple, all_devices, check_device, default_device, dtypes_of
from ._typing import DeviceLike, DType, DTypeKind, MeshDevice, Device


class __array_namespace_info__:
    """What this namespace supports, as the standard's inspection API reports it."""

    def capabilities(self) -> dict[str, bool | int | None]:
        # boolean indexing and nonzero need the count of True values first: a sync, but supported
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self) -> Device | MeshDevice:
        return default_device()

    def default_dtypes(self, *, device: DeviceLike | None = None) -> dict[str, DType]:
        """On a device without 64-bit floating point (TPU): float32 and complex64."""
        missing = check_device(device).missing_dtypes
        real = dt.float32 if dt.DEFAULT_FLOAT in missing else dt.DEFAULT_FLOAT
        complex_ = dt.complex64 if dt.DEFAULT_COMPLEX in missing else dt.DEFAULT_COMPLEX
        return {"real floating": real, "complex floating": complex_,
                "integral": dt.DEFAULT_INT, "indexing": dt.DEFAULT_INDEX}

    def dtypes(self, *, device: DeviceLike | None = None,
               kind: DTypeKind | None = None) -> dict[str, DType]:
        """The dtypes `device` supports (all of them on CPU and GPU; no float64/complex128 on TPU)."""
        have = dtypes_of(check_device(device))
        if kind is None:
            return {d.name: d for d in have}
        kinds = kind if isinstance(kind, tuple) else (kind,)
        selected = set()
        for k in kinds:
            if isinstance(k, dt.DType):
                selected.add(k)
            elif k in dt.CATEGORIES:
                selected |= dt.CATEGORIES[k]
            else:
                raise ValueError(f"dtypes: unknown kind {k!r}")
        return {d.name: d for d in have if d in selected}

    def devices(self) -> DeviceTuple:
        return DeviceTuple(all_devices())
