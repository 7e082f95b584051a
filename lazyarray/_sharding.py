"""Layouts over several devices: Mesh, PartitionSpec, NamedSharding (named as JAX users know them),
and the layouts the user asked for, recorded per graph node.

A `Mesh` is a grid of devices of one platform with a name per grid axis; a `PartitionSpec` says,
per array axis, which mesh axes split it (a name, a tuple of names, or None: not split); a
`NamedSharding(mesh, spec)` is the pair. lazyarray never distributes work itself: the layouts of
a program's inputs and outputs (and the user's explicit placements inside it) are written into
its StableHLO as Shardy annotations and XLA's SPMD partitioner inserts the collectives.

Internally a spec is normalized to one tuple of mesh-axis names per array axis (`normalize`),
hashable and part of a program's key. `explicit` holds the layouts the user asked for (creation
with `device=NamedSharding(...)`, `to_device`) and the layouts of computed buffers, keyed weakly
by node; `_sharding_rules` derives the rest.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import _runtime


class PartitionSpec(tuple):
    """One entry per array axis: a mesh axis name, a tuple of names, or None (not split). Axes past
    the end of the spec are not split."""

    def __new__(cls, *entries):
        return tuple.__new__(cls, entries)

    def __repr__(self):
        return f"PartitionSpec{tuple.__repr__(self)}"


class Mesh:
    """`Mesh(devices, axis_names)`: `devices` an array (or nested list) of lazyarray devices of one
    platform, one grid axis per name: `Mesh(info.devices()[:8], ("x",))`,
    `Mesh(np.array(devs).reshape(4, 2), ("data", "model"))`."""

    def __init__(self, devices, axis_names):
        grid = np.empty(np.shape(np.array(devices, dtype=object)), dtype=object)
        grid[...] = np.array(devices, dtype=object)
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        if grid.ndim != len(axis_names):
            raise ValueError(f"Mesh: devices of shape {grid.shape} need {grid.ndim} axis names, got {axis_names}")
        if len(set(axis_names)) != len(axis_names) or not all(isinstance(n, str) for n in axis_names):
            raise ValueError(f"Mesh: axis names must be distinct strings, got {axis_names}")
        flat = list(grid.reshape(-1))
        if not flat or not all(hasattr(d, "_pjrt") and getattr(d, "mesh", None) is None for d in flat):
            raise ValueError("Mesh: expected lazyarray devices (from __array_namespace_info__().devices())")
        if len({d.platform for d in flat}) != 1 or len(set(flat)) != len(flat):
            raise ValueError(f"Mesh: expected distinct devices of one platform, got {flat}")
        self.devices = grid
        self.axis_names = axis_names
        self.shape = dict(zip(axis_names, grid.shape))
        self._key = (axis_names, grid.shape, tuple((d.platform, d.id) for d in flat))
        self._pjrt = _runtime.PjrtMesh(np.vectorize(lambda d: d._pjrt, otypes=[object])(grid), axis_names)

    @property
    def size(self):
        return self.devices.size

    def __eq__(self, other):
        return isinstance(other, Mesh) and other._key == self._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        axes = ", ".join(f"{n}={k}" for n, k in self.shape.items())
        return f"Mesh({axes}; {self.devices.reshape(-1)[0].platform} {[d.id for d in self.devices.reshape(-1)]})"


class NamedSharding:
    """`NamedSharding(mesh, spec)`: an array laid out over `mesh`, its axes split as `spec` says."""

    def __init__(self, mesh, spec=PartitionSpec()):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding: expected a lazyarray.sharding.Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec)
        used = [n for entry in spec for n in _names(entry)]
        for n in used:
            if n not in mesh.shape:
                raise ValueError(f"NamedSharding: {n!r} is not an axis of {mesh}")
        if len(set(used)) != len(used):
            raise ValueError(f"NamedSharding: a mesh axis splits two array axes in {spec}")
        self.mesh = mesh
        self.spec = spec

    def normalized(self, ndim):
        """One tuple of mesh-axis names per array axis; ValueError when the spec is longer."""
        if len(self.spec) > ndim:
            raise ValueError(f"{self} has {len(self.spec)} entries for an array of {ndim} axes")
        return normalize(self.spec, ndim)

    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and other.mesh == self.mesh
                and normalize(other.spec, 0) == normalize(self.spec, 0))

    def __hash__(self):
        return hash((self.mesh, normalize(self.spec, 0)))

    def __repr__(self):
        return f"NamedSharding({self.mesh!r}, {self.spec!r})"


def _names(entry):
    if entry is None:
        return ()
    return (entry,) if isinstance(entry, str) else tuple(entry)


def normalize(spec, ndim):
    """`spec` as one tuple of names per axis, padded with () to `ndim` axes; trailing unsplit
    axes dropped when ndim is 0 (the form equality compares)."""
    out = tuple(_names(e) for e in spec)
    if ndim:
        return out + ((),) * (ndim - len(out))
    while out and not out[-1]:
        out = out[:-1]
    return out


def stored(mesh, spec, shape):
    """The layout a buffer of `shape` is held in when its layout is `spec`: each array axis keeps
    the longest prefix of its mesh axes whose device count divides it (jax's arrays, which hold
    our buffers, need equal shards), so an uneven split is held replicated along that axis (or
    split over fewer devices). Inside a program the uneven split itself is annotated and XLA's
    SPMD partitioner pads the shards; only the buffers between programs use this layout."""
    out = []
    for n, axes in zip(shape, spec):
        k, keep = 1, ()
        for a in axes:
            if n % (k * mesh.shape[a]):
                break
            k *= mesh.shape[a]
            keep += (a,)
        out.append(keep)
    return tuple(out)


def check_spec(sharding, shape):
    """The normalized spec of `sharding` for an array of `shape` (ValueError when the spec has
    more entries than the array has axes). A split need not divide its axis (see `stored`)."""
    return sharding.normalized(len(shape))


def from_normalized(mesh, spec):
    """The NamedSharding of a normalized spec."""
    return NamedSharding(mesh, PartitionSpec(*[None if not a else a[0] if len(a) == 1 else a for a in spec]))


# node -> NamedSharding asked for by the user, or pinned on a computed buffer
explicit = weakref.WeakKeyDictionary()


def mesh_text(mesh):
    """The module-level `sdy.mesh` declaration of a mesh."""
    axes = ", ".join(f'"{n}"={k}' for n, k in mesh.shape.items())
    return f"sdy.mesh @mesh = <[{axes}]>"


def sharding_text(spec):
    """A `#sdy.sharding` attribute of a normalized spec (closed dimensions: XLA keeps exactly it)."""
    dims = ", ".join("{" + ", ".join(f'"{n}"' for n in axes) + "}" for axes in spec)
    return f"#sdy.sharding<@mesh, [{dims}]>"
