"""Several devices at once, named as JAX users know them: `Mesh(devices, axis_names)`,
`PartitionSpec(...)` (one entry per array axis: a mesh axis name, a tuple of names, or None) and
`NamedSharding(mesh, spec)`.

    import lazyarray as xp
    from lazyarray.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(xp.__array_namespace_info__().devices()[:8], ("x",))
    X = xp.asarray(data, device=NamedSharding(mesh, P("x", None)))   # rows split over 8 devices
    (X.T @ X).sharding                                               # XLA inserted the all-reduce

`device=` of every creation function and `x.to_device(...)` take a NamedSharding (or a Mesh:
replicated over it); `x.sharding` returns it and `x.device` is the mesh taken as one device.
Programs over a mesh are annotated for Shardy and compiled by XLA's SPMD partitioner.
"""
from ._sharding import Mesh, NamedSharding, PartitionSpec

__all__ = ["Mesh", "NamedSharding", "PartitionSpec"]


def initialize(coordinator_address, num_processes, process_id, local_device_ids=None):
    """Join a multi-process run (one process per host; or several on one machine, as the tests
    do) before making any array: `info.devices()` then lists every process's devices and a `Mesh`
    may span them. Every process runs the same program on the same global values (each sends the
    shards of its own devices); reading a sharded result gathers it from every process, so every
    process must read it. jax's distributed service underneath: `coordinator_address` is the
    host:port of process 0."""
    from . import _runtime
    _runtime.initialize_distributed(coordinator_address, num_processes, process_id, local_device_ids)


__all__ += ["initialize"]
