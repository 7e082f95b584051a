"""Putting arrays where the user asked: `device=` of the creation functions and `x.to_device`
given a `NamedSharding` (or a mesh), and `x.sharding`.

A creation function builds its array on the mesh (`_devices.check_device` turns a NamedSharding
into its `MeshDevice`) and then `place` lays the fresh node out as asked: a leaf's buffer is
re-laid out at once (XLA moves the shards), a pending node records the layout, which its program
pins (an output's annotation, or an `sdy.sharding_constraint` inside). A split that does not
divide its axis is allowed: the buffer is held in `_sharding.stored`'s layout and programs
annotate the uneven split itself (XLA pads the shards inside). `to_device` to another layout
of the same mesh is lazy for a pending x (an identity node laid out as asked: the program that
computes x moves it); otherwise it is eager: a computed buffer is moved at once (device to
device within a mesh), and x on another device is computed (a sync) and sent through the host.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from . import _engine, _runtime, _sharding
from ._devices import check_device, check_dtype
from ._graph import leaf_from_buffer
from ._ops.shape import RESHAPE
from ._sharding_rules import spec_of


_Creator = TypeVar("_Creator", bound=Callable[..., Any])


def placed(like: bool = False) -> Callable[[_Creator], _Creator]:
    """Decorates a creation function: its `device=` may be a NamedSharding (the new array is laid
    out so) and its result's dtype must exist on its device. With `like`, `*_like(x)` without a
    device keeps x's layout when x is on a mesh, as its device."""
    def decorate(fn: _Creator) -> _Creator:
        @functools.wraps(fn)  # (inspect.signature reports fn's own signature)
        def create(*args, device=None, **kwargs):
            if isinstance(device, _sharding.NamedSharding):  # host data goes out in shards
                with _runtime.requested_layout(device.mesh._pjrt, functools.partial(_spec_if_fits, device)):
                    out = fn(*args, device=device, **kwargs)
            else:
                out = fn(*args, device=device, **kwargs)
            if device is None and like and out._device.mesh is not None:
                device = sharding(args[0])
            return place(out, device)
        return create  # type: ignore[return-value]  (the same signature: functools.wraps)
    return decorate


def _spec_if_fits(requested, shape):
    if len(requested.spec) <= len(shape):
        return _sharding.stored(requested.mesh, requested.normalized(len(shape)), shape)
    return None


def place(array, requested):
    """`array`, just created on `requested`'s device, with the dtype and layout `requested` asks
    for (ValueError for a dtype the device lacks)."""
    check_dtype(array._device, array.dtype)  # (.dtype: a borrowed host array stays unread, `_borrowed_host`)
    if isinstance(requested, _sharding.NamedSharding):
        node = array._node
        spec = _sharding.stored(requested.mesh, _sharding.check_spec(requested, node.shape), node.shape)
        if node.buffer is not None and not _runtime.has_sharding(node.buffer, requested.mesh._pjrt, spec):
            node.buffer = _runtime.reshard(node.buffer, requested.mesh._pjrt, spec)
        _sharding.explicit[node] = requested
    return array


def moves(array, target):
    """Whether `asarray(array, device=target)` must move or re-lay-out `array`."""
    if check_device(target) != array._device:
        return True
    return isinstance(target, _sharding.NamedSharding) and sharding(array) != target


def sharding(array):
    """`x.sharding`: the NamedSharding of an array on a mesh (the one asked for, else the one
    propagated through the graph); None for an array on one device."""
    mesh = array._device.mesh
    if mesh is None:
        return None
    node = array._node
    s = _sharding.explicit.get(node)
    if s is not None and s.mesh == mesh:
        return s
    return _sharding.from_normalized(mesh, spec_of(node, mesh))


def to_device(array, target):
    """`x.to_device(target)` when target is a mesh or a NamedSharding, or x is on a mesh: a new
    leaf holding x's value laid out there (eager), or for a pending x on that mesh, a pending
    identity node laid out there (lazy)."""
    device = check_device(target)
    check_dtype(device, array._node.dtype)
    node = array._node
    shape = node.shape
    if device.mesh is None:  # from a mesh to one device: gathered through the host
        value = _engine.to_numpy(node, array._device, "to_device")
        return type(array)._wrap(leaf_from_buffer(_runtime.put(value, device._pjrt), shape, node.dtype), device)
    if array._device is device and not isinstance(target, _sharding.NamedSharding):
        return array  # (the mesh itself: already there, in whatever layout)
    requested = target if isinstance(target, _sharding.NamedSharding) else _sharding.NamedSharding(device.mesh)
    spec = _sharding.stored(requested.mesh, _sharding.check_spec(requested, shape), shape)
    if array._device is device and sharding(array) == requested:
        return array
    if array._device is device and node.op is not None and node.buffer is None and node.host is None:
        # pending on this mesh: lazy, an identity node laid out as asked (its program moves it)
        moved = RESHAPE.bind((node,), RESHAPE.Attrs(shape))
        _sharding.explicit[moved] = requested
        return type(array)._wrap(moved, device)
    if array._device is device:
        buf = node.buffer if node.buffer is not None else _runtime.put(np.asarray(node.host), device._pjrt)
        buf = _runtime.reshard(buf, device._pjrt, spec)
    else:
        value = _engine.to_numpy(node, array._device, "to_device")
        buf = _runtime.put(value, device._pjrt, spec)
    leaf = leaf_from_buffer(buf, shape, node.dtype)
    _sharding.explicit[leaf] = requested
    return type(array)._wrap(leaf, device)
