"""A loaded program's first run, made on zeros before anyone asks for its results.

XLA's CPU client builds part of an executable's runtime state at its first execution, not when
the executable is compiled or deserialised: each YNNPACK fusion (dots, reductions, elementwise
chains) builds its runtime there (a slinky pipeline, built and simplified for the fusion's
shapes, ~0.3-3 ms each) and keeps it in the executable for the later runs. A second process
that loads its programs from the disk cache (`_prefetch`) would pay all of that in its first
call: a scikit-learn Pipeline with 17 programs paid ~15-20 ms of CPU there (issue 11 target 2).
`run_on_zeros` runs a loaded CPU executable once on zero-filled inputs of its parameters'
shapes, on the compile thread, so the caller's first run finds that state built.

A run on zeros computes nothing anyone reads (its outputs are dropped) and terminates as any
run does: the one data-dependent loop lazyarray emits (`_ops/loop`'s `stablehlo.while`) counts
to a parameter, zero here; LAPACK's kernels return on a zero matrix as on any other. It costs
one run's work and memory, so only programs whose inputs, outputs and temporaries together take
at most `MAX_BYTES` and whose cost analysis counts at most `MAX_FLOPS` are run; and none with a
buffer (an input, an output, XLA's temporaries) of glibc's mmap threshold or more (as
`_heap_threshold` raised it: 4 MiB; else glibc's initial 128 KiB): such a block is mmapped, and
freeing it moves glibc's dynamic thresholds (the memory benchmark's warm run, whose 8 MB input a
run on zeros put and freed, kept 8 MB more heap resident from then on). Anything that cannot be
described or run is skipped (returns False), never raised: the caller's own run then builds the
state, as before.
"""
from __future__ import annotations

import math

import numpy as np

from jaxlib import xla_client as _xc

from . import _config, _heap_threshold, _runtime

MAX_BYTES = 32 << 20   # inputs + outputs + XLA's temporaries of one run on zeros
MAX_FLOPS = 1e8        # ~10-50 ms of one core at most, on the compile thread
GLIBC_MMAP_THRESHOLD = 128 << 10  # glibc's initial mmap threshold (when `_heap_threshold` did not raise it)
runs = 0               # programs run on zeros in this process (tests read it)


def _arrays(shapes):
    """[(shape, dtype)] of XLA shapes, or None when one is not a plain array (a token, a
    nested tuple, a dynamic or foreign shape)."""
    out = []
    for s in shapes:
        if not s.is_array() or not s.is_static():
            return None
        out.append((tuple(s.dimensions()), np.dtype(s.numpy_dtype())))
    return out


def _inputs_if_small(executable):
    """[(shape, dtype)] of the executable's parameters when a run on zeros is within the bounds
    (module docstring), else None."""
    stats = executable.get_compiled_memory_stats()
    nbytes = stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes
    if nbytes > MAX_BYTES:
        return None
    program = _xc.XlaComputation(executable.hlo_modules()[0].as_serialized_hlo_module_proto()).program_shape()
    result = program.result_shape()
    params = _arrays(program.parameter_shapes())
    outputs = _arrays(result.tuple_shapes() if result.is_tuple() else [result])
    if params is None or outputs is None:
        return None
    block = _config.heap_threshold if _heap_threshold.raised else GLIBC_MMAP_THRESHOLD
    largest = max([math.prod(shape) * dtype.itemsize for shape, dtype in params + outputs] + [stats.temp_size_in_bytes])
    if largest >= block:
        return None
    cost = executable.cost_analysis() or {}
    return params if float(cost.get("flops", 0.0)) <= MAX_FLOPS else None


def run_on_zeros(executable, device) -> bool:
    """Run a single-device CPU `executable` once on zero-filled inputs and drop its outputs
    (see the module docstring); True when it ran."""
    global runs
    if device.platform != "cpu" or isinstance(device, _runtime.PjrtMesh):
        return False
    try:
        params = _inputs_if_small(executable)
        if params is None:
            return False
        inputs = [_runtime.put(np.zeros(shape, dtype), device) for shape, dtype in params]
        outputs = executable.execute_sharded(inputs).disassemble_into_single_device_arrays()
        for out in outputs:
            for shard in out:
                shard.block_until_ready()
    except Exception:  # (an executable this cannot describe or run: its first real run builds it)
        return False
    runs += 1
    return True
