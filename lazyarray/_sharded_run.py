"""Running a program over a mesh: the inputs' layouts checked, the outputs' layouts recorded.

XLA's compiled SPMD program assumes each input is laid out as its annotations say and does not
check it (a wrong layout silently gives wrong answers). So before every call each device input
is compared with the layout the program was compiled for (`_sharding_rules.Layout`, part of the
program's key); one that differs is resharded by XLA first and counted in
`metrics.unrequested_reshards` (the user did not ask for that move). Host inputs (0-D leaves,
packed scalars) are sent replicated. Each output comes back as one global buffer laid out as
its annotation pinned it, and that layout is recorded on its node (`_sharding.explicit`), so
the array keeps it after the program ran.
"""
from __future__ import annotations

from . import _runtime, _sharding
from ._graph import split_leaves
from ._metrics import metrics


def check_inputs(inputs, leaves, layout):
    """`inputs` (the program's parameters, device leaves first) with every device leaf laid out
    as `layout` expects."""
    mesh = layout.mesh._pjrt
    buffers, _ = split_leaves(leaves)
    specs = layout.leaf_specs
    for k, leaf in enumerate(buffers):
        spec = specs.get(id(leaf), ((),) * len(leaf.shape))
        buf = inputs[k]
        if not _runtime.has_sharding(buf, mesh, spec):
            buf = inputs[k] = _runtime.reshard(buf, mesh, spec)
            metrics.unrequested_reshards += 1
            if leaf.buffer is not None:  # the next program reads it as laid out now
                leaf.buffer = buf
                _pin(leaf, layout.mesh, spec)
    return inputs


def execute(executable, inputs, outputs, layout):
    results = _runtime.execute_on_mesh(executable, inputs, layout.mesh._pjrt,
                                       [(o.shape, s) for o, s in zip(outputs, layout.out_specs)])
    for o, spec in zip(outputs, layout.out_asked):  # (held as out_specs: `_sharding.stored`)
        _sharding.explicit[o] = _sharding.from_normalized(layout.mesh, spec)
    return results


def _pin(leaf, mesh, held):
    """Record that `leaf`'s buffer is held as `held`, unless the user asked for an uneven split
    that is held so (the array keeps the sharding asked for)."""
    asked = _sharding.explicit.get(leaf)
    if asked is not None and asked.mesh == mesh:
        spec = asked.normalized(len(leaf.shape))
        if _sharding.stored(mesh, spec, leaf.shape) == held:
            return
    _sharding.explicit[leaf] = _sharding.from_normalized(mesh, held)
