"""Devices: thin, hashable names for PJRT devices."""
from __future__ import annotations

from . import _runtime


class Device:
    __slots__ = ("_pjrt", "platform", "id", "device_kind", "_hash")

    def __init__(self, pjrt):
        self._pjrt = pjrt
        # plain attributes, read on every sync: properties into the PJRT object cost more
        self.platform = pjrt.platform
        self.id = pjrt.id
        self.device_kind = pjrt.device_kind
        self._hash = hash((self.platform, self.id))

    def __eq__(self, other):
        return self is other or (isinstance(other, Device) and other._pjrt == self._pjrt)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"Device({self.platform}:{self.id})"


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


_all = None


def all_devices():
    global _all
    if _all is None:
        _all = [Device(d) for d in _runtime.devices()]
    return _all


def default_device():
    return all_devices()[0]


def check_device(device):
    """The device a call asked for, or the default; ValueError for anything that is not ours."""
    if device is None:
        return default_device()
    if isinstance(device, Device):
        return device
    if device == "cpu" or (isinstance(device, str) and device.split(":")[0] == default_device().platform):
        return default_device()
    raise ValueError(f"unsupported device {device!r}: expected one of {all_devices()}")
