"""Devices: thin, hashable names for PJRT devices, a mesh of them, and the default device.

`all_devices()` is every device of every PJRT platform installed (the default platform's first).
An array lives on one `Device`, or on a `MeshDevice`: a mesh of devices (`lazyarray.sharding`),
each array on it laid out as its `x.sharding` says. Arrays of one operation must share one.

The default device, in order: the innermost `with device:` block of this thread; the
environment variable `LAZYARRAY_DEVICE` (`cpu`, `cpu:3`, `cuda:0`, read once in `_config`);
the first device of the best platform installed (`LAZYARRAY_PLATFORM` chooses the platform).

Dtypes per platform: a platform without 64-bit floating point (TPU) lacks float64 and
complex128; `__array_namespace_info__().dtypes(device=...)` leaves them out, its default dtypes
there are float32 and complex64, and creating such an array there raises ValueError (never a
silent downcast).
"""
from __future__ import annotations

import threading

from . import _config, _runtime
from . import _dtypes as dt

# platforms whose XLA backend has no 64-bit floating point
_NO_FLOAT64 = frozenset({"tpu"})


class _DefaultInBlock:
    """`with device:` makes it this thread's default device for the block (nestable)."""
    __slots__ = ()

    def __enter__(self):
        _push(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()


class Device(_DefaultInBlock):
    __slots__ = ("_pjrt", "platform", "id", "device_kind", "_hash", "missing_dtypes")
    mesh = None  # (a MeshDevice's mesh; a Device is one device)

    def __init__(self, pjrt):
        self._pjrt = pjrt
        # plain attributes, read on every sync: properties into the PJRT object cost more
        self.platform = pjrt.platform
        self.id = pjrt.id
        self.device_kind = pjrt.device_kind
        self._hash = hash((self.platform, self.id))
        self.missing_dtypes = (frozenset({dt.float64, dt.complex128}) if self.platform in _NO_FLOAT64
                               else frozenset())

    def __eq__(self, other):
        return self is other or (isinstance(other, Device) and other._pjrt == self._pjrt)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"Device({self.platform}:{self.id})"



class MeshDevice(_DefaultInBlock):
    """`x.device` of an array laid out over a mesh: the mesh's devices taken as one (interned: one
    object per mesh, so the engine's identity checks hold). `x.sharding` says how x is split."""
    __slots__ = ("mesh", "_pjrt", "platform", "id", "device_kind", "missing_dtypes")

    def __init__(self, mesh):
        first = mesh.devices.reshape(-1)[0]
        self.mesh = mesh
        self._pjrt = mesh._pjrt
        self.platform = first.platform
        self.id = f"mesh{len(_meshes)}"  # never an int: keys of per-device caches stay apart
        self.device_kind = mesh._pjrt.device_kind
        self.missing_dtypes = first.missing_dtypes

    def __repr__(self):
        return f"MeshDevice({self.mesh!r})"


class DeviceTuple(tuple):
    """What `__array_namespace_info__().devices()` returns: a tuple, as the standard (2025.12)
    asks, that also concatenates with a list either way (`devices() + [None]`, SciPy's test
    fixture, written for the lists that 2024.12 and numpy return). The result is then a list."""
    __slots__ = ()

    def __add__(self, other):
        if isinstance(other, list):
            return list(self) + other
        return tuple.__add__(self, other)

    def __radd__(self, other):
        if isinstance(other, list):
            return other + list(self)
        return NotImplemented


_meshes = {}


def mesh_device(mesh):
    d = _meshes.get(mesh)
    if d is None:
        d = _meshes[mesh] = MeshDevice(mesh)
    return d


_all = None
_local = threading.local()


def all_devices():
    global _all
    if _all is None:
        _all = [Device(d) for d in _runtime.all_devices()]
    return _all


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def _push(device):
    _stack().append(device)


_env_default = (None, None)  # (the setting it was parsed from, the device)


def default_device():
    s = getattr(_local, "stack", None)
    if s:
        return s[-1]
    global _env_default
    name, device = _env_default
    if device is None or name != _config.device:  # (`xp.config.device = "cpu:1"` applies at once)
        device = _parse(_config.device) if _config.device else all_devices()[0]
        _env_default = (_config.device, device)
    return device


def _parse(name):
    """`cpu`, `cpu:3`, `cuda:0`: a device of ours; ValueError naming the ones there are."""
    platform, _, index = name.partition(":")
    found = [d for d in all_devices() if d.platform == platform]
    if found and not index:
        return found[0]
    for d in found:
        if str(d.id) == index:
            return d
    raise ValueError(f"unsupported device {name!r}: expected one of "
                     f"{[f'{d.platform}:{d.id}' for d in all_devices()]}")


def check_device(device):
    """The device a call asked for, or the default; ValueError for anything that is not ours.
    A `NamedSharding` stands for its mesh (the caller lays the array out: `_sharding_place`)."""
    if device is None:
        return default_device()
    if isinstance(device, (Device, MeshDevice)):
        return device
    if isinstance(device, str):
        return _parse(device)
    mesh = getattr(device, "mesh", None)
    if mesh is not None and hasattr(device, "spec"):  # a lazyarray.sharding.NamedSharding
        return mesh_device(mesh)
    if hasattr(device, "axis_names") and hasattr(device, "_pjrt"):
        return mesh_device(device)  # a Mesh: replicated over it
    raise ValueError(f"unsupported device {device!r}: expected one of {all_devices()}, a "
                     "lazyarray.sharding.NamedSharding or Mesh, or None")


def check_dtype(device, dtype):
    """ValueError when `device` has no `dtype` (float64 on a TPU): never a silent downcast."""
    if dtype in device.missing_dtypes:
        raise ValueError(f"{dtype} is not supported on {device} (its platform has no 64-bit "
                         f"floating point); use float32/complex64 there")


def dtypes_of(device):
    """The standard's dtypes `device` supports, in the standard's order (float16, an extension,
    works everywhere but is not listed: _dtypes.STANDARD)."""
    return [d for d in dt.STANDARD if d not in device.missing_dtypes]
