"""The XLA runtime: the ONLY module that imports jax/jaxlib.

jax is used for its PJRT client alone: compile StableHLO text, move buffers, execute. No
jax.numpy or jax.lax computation happens on lazyarray's behalf.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import sys
import threading

import numpy as np

import jax

# XLA's CPU client dispatches asynchronously by default; for small inputs a synchronous call
# costs 6-8 us against 20-46 us asynchronous (measured on this project's 2-core machine).
jax.config.update("jax_cpu_enable_async_dispatch", False)

from jax.core import ShapedArray  # noqa: E402
from jax.extend import backend as _backend  # noqa: E402
from jax.sharding import SingleDeviceSharding  # noqa: E402
from jaxlib import xla_client as _xc  # noqa: E402

from jaxlib import version as _jaxlib_version_module  # noqa: E402

from . import _compile_process, _config, _disk_cache  # noqa: E402
from ._bounded import keep  # noqa: E402

_jaxlib_version = _jaxlib_version_module.__version__

_clients = {}


def client(platform=None):
    platform = platform or _config.platform or default_platform()
    c = _clients.get(platform)
    if c is None:
        c = _clients[platform] = _backend.get_backend(platform)
    return c


def default_platform():
    for p in ("cuda", "rocm", "tpu"):
        try:
            _backend.get_backend(p)
            return p
        except Exception:  # no such backend on this machine
            continue
    return "cpu"


def devices(platform=None):
    return list(client(platform).devices())


PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def all_devices():
    """Every device of every PJRT platform installed here, the default platform's first (CPU is
    always there; CUDA when jax's CUDA plugin is installed, TPU likewise)."""
    first = client()
    out = list(first.devices())
    for p in PLATFORMS:
        if p == first.platform:
            continue
        try:
            c = client(p)
        except Exception:  # that plugin is not installed or finds no device
            continue
        if c is not first:
            out += [d for d in c.devices() if d not in out]
    return out


class PjrtMesh:
    """Several devices of one platform laid out as a named grid: what a sharded program is compiled
    for and run on (a `lazyarray.sharding.Mesh` holds one)."""

    def __init__(self, grid, axis_names):
        grid = np.asarray(grid, dtype=object)
        self.grid = grid
        self.devices = tuple(grid.reshape(-1))
        self.axis_names = tuple(axis_names)
        self.platform = self.devices[0].platform
        self.device_kind = (f"{self.devices[0].device_kind} mesh "
                            + ",".join(f"{n}={k}" for n, k in zip(self.axis_names, grid.shape))
                            + " ids " + ",".join(str(d.id) for d in self.devices))
        self.jax_mesh = jax.sharding.Mesh(grid, self.axis_names)
        here = jax.process_index()
        self.local = [d for d in self.devices if d.process_index == here]
        self._shardings = {}

    def sharding(self, spec):
        """jax's NamedSharding of a normalized spec (a tuple per axis of mesh-axis-name tuples)."""
        s = self._shardings.get(spec)
        if s is None:
            entries = [None if not a else a[0] if len(a) == 1 else a for a in spec]
            s = self._shardings[spec] = jax.sharding.NamedSharding(self.jax_mesh, jax.sharding.PartitionSpec(*entries))
        return s


def version_tag():
    return f"jaxlib-{jax.__version__}" + "".join(f"-no-{p}" for p in VALUE_CHANGING_PASSES)


# ---------------------------------------------------------------- transfers

_HOST_COPY = _xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL


def put(value: np.ndarray, device, spec=None):
    """Copy a host array to the device (the caller may go on mutating its numpy array). On a mesh,
    each device receives its shard of `spec` (replicated when None)."""
    value = np.asarray(value)
    if isinstance(device, PjrtMesh):
        if spec is None:
            spec = _requested_layout(device, value.shape)
        sharding = device.sharding(spec)
        where = sharding.devices_indices_map(value.shape)
        devs = device.local  # (with several processes, each sends the shards of its own devices)
        return _xc.batched_device_put(ShapedArray(value.shape, value.dtype), sharding,
                                      [value[where[d]] for d in devs], devs, True, True, _HOST_COPY, True)
    return _xc.batched_device_put(_aval(value.shape, value.dtype), _one_device(device),
                                  [value], [device], True, True, _HOST_COPY, True)


# A host array whose memory starts at a multiple of XLA's CPU buffer alignment (64 bytes) can
# become a CPU device buffer without a copy (`put_private`); numpy's memory starts 16 bytes into
# glibc's blocks, so a large array never does by chance: `private_copy` makes such arrays.
HOST_ALIGN = 64
# Below this size `private_copy` is numpy's plain copy and `put_private` copies: such arrays come
# from glibc's heap (under the mmap threshold `_heap_threshold` raises to 4 MiB), where a freed
# host copy is reused by the next allocation without new pages, and its short-lived duplicate is
# noise in the peak; a larger one is mmapped, faulted in afresh and unmapped each time. (With
# 1 MiB, 5000x50 float64 Ridge's first call took ~0.4-1 ms more thread CPU: the aligned copies of
# its interpreter outputs, for no memory gain there.)
PRIVATE_MIN_BYTES = 4 << 20
_ZERO_COPY = _xc.HostBufferSemantics.ZERO_COPY
_uint8 = np.dtype(np.uint8)


def private_copy(value: np.ndarray, dtype=None) -> np.ndarray:
    """A C-ordered copy of `value` (cast to `dtype` when given, as `np.array` casts) that nobody
    else holds; from `PRIVATE_MIN_BYTES` on, at an address XLA's CPU client can adopt as a device
    buffer (`put_private`). Such a copy is a view of a private uint8 block (its `base`), whose
    views hold that block: `sole_value` counts them."""
    dtype = value.dtype if dtype is None else np.dtype(dtype)
    nbytes = value.size * dtype.itemsize
    if nbytes < PRIVATE_MIN_BYTES:
        return np.array(value, dtype=dtype, copy=True, order="C")
    block = np.empty(nbytes + HOST_ALIGN, _uint8)
    start = -block.ctypes.data % HOST_ALIGN
    out = block[start:start + nbytes].view(dtype).reshape(value.shape)
    np.copyto(out, value, casting="unsafe")
    return out


def sole_value(host: np.ndarray, refs: int) -> bool:
    """Whether nothing but its `refs` references (the caller's count, `sys.getrefcount`'s
    argument included) can reach `host`'s memory: an array that owns it (no base), or a
    `private_copy` whose block is held by `host` alone (every numpy view of such an array holds
    the block, not the array)."""
    base = host.base
    if base is None:
        return sys.getrefcount(host) <= refs + 1  # (+1: this function's parameter)
    return (type(base) is np.ndarray and base.base is None and base.dtype is _uint8
            and sys.getrefcount(base) <= 3  # (`host.base`, the local name, the argument)
            and sys.getrefcount(host) <= refs + 1)


def put_private(value: np.ndarray, device):
    """`put` of a host array that nothing else holds and nobody will read or write again (the
    caller drops it; `sole_value` said so): on a CPU device, a `private_copy`'s memory becomes
    the device buffer itself (jaxlib keeps the array alive as long as the buffer), so the data
    is never twice in memory; otherwise, or when XLA will not adopt it, a copy as `put` makes."""
    if (value.nbytes >= PRIVATE_MIN_BYTES and device.platform == "cpu" and not isinstance(device, PjrtMesh)
            and value.flags.c_contiguous
            and not value.ctypes.data % HOST_ALIGN and value.flags.writeable):
        return _xc.batched_device_put(_aval(value.shape, value.dtype), _one_device(device),
                                      [value], [device], True, False, _ZERO_COPY, True)
    return put(value, device)


# jax's descriptions of a transfer, immutable and reused: making them costs ~6 us of a ~15 us put
_avals = {}      # (shape, numpy dtype) -> ShapedArray
_shardings = {}  # device -> SingleDeviceSharding
_DESCRIPTIONS_KEPT = 1024


def _aval(shape, dtype):
    key = (shape, dtype)
    aval = _avals.get(key)
    if aval is None:
        if len(_avals) >= _DESCRIPTIONS_KEPT:
            _avals.clear()
        aval = _avals[key] = ShapedArray(shape, dtype)
    return aval


def _one_device(device):
    sharding = _shardings.get(device)
    if sharding is None:
        sharding = _shardings[device] = SingleDeviceSharding(device)
    return sharding


def to_numpy(buffer) -> np.ndarray:
    """A host copy the caller owns (`host_view` is the zero-copy read). A buffer spread over
    several processes' devices is gathered from all of them (every process must read it)."""
    if not getattr(buffer, "is_fully_addressable", True):
        from jax.experimental import multihost_utils
        with jax.enable_x64(True):
            return np.array(multihost_utils.process_allgather(buffer, tiled=True), copy=True)
    return np.array(buffer, copy=True)


class HostMemory:
    """The base object of a numpy array over a CPU buffer's memory whose layout is not dense
    row-major (`host_view`'s fallback; `_memory` is the usual base). It holds the buffer, so the
    memory outlives every numpy array made from it; each numpy view of such an array holds the
    array, so it lives exactly as long as some numpy array shows the memory (the pool watches it
    by weak reference: `_pool.BufferPool.lend` and `show`)."""
    __slots__ = ("buffer", "__array_interface__", "__weakref__")

    def __init__(self, buffer, interface):
        self.buffer = buffer
        self.__array_interface__ = interface  # (jax's read-only view's, made writable)


_ndarray = np.ndarray
_frombuffer = np.frombuffer

# nbytes -> a ctypes char-array type of that length with a `buffer` slot (asking ctypes for one
# costs ~0.3 us, making the subclass more: made once per length)
_memory_types = {}
_MEMORY_TYPES_KEPT = 256


def _memory(buffer, nbytes):
    """A writable ctypes block of `nbytes` bytes at the CPU buffer's address, holding the buffer
    (`.buffer`), so the memory outlives every numpy array made over it: the base of a
    `host_view` array (numpy keeps it as the array's base, and each numpy view of that array
    holds the array, so the block lives exactly as long as some numpy array shows the memory;
    it takes weak references, which is how the pool learns of its death)."""
    kind = _memory_types.get(nbytes)
    if kind is None:  # (a slot for the buffer: storing it costs ~0.2 us instead of a plain block's ~0.5)
        kind = keep(_memory_types, nbytes, type("Memory", (ctypes.c_char * nbytes,), {"__slots__": ("buffer",)}),
                    _MEMORY_TYPES_KEPT, oldest=True)
    memory = kind.from_address(buffer.unsafe_buffer_pointer())
    memory.buffer = buffer
    return memory


def host_view(buffer, one_cpu_device=False, vector=None) -> np.ndarray | None:
    """A writable numpy array over a CPU device buffer's own memory (no copy), or None where
    there is none to be had: another platform, a buffer over several devices, an empty array,
    or a layout jax would copy to read. The array's `base` holds the buffer (a `_memory` block, or
    a `HostMemory`) and takes weak references: the caller keeps the buffer out of donation and
    reuse while it lives (`_pool.BufferPool.lend`).

    `vector`: (shape, numpy dtype) of a non-empty 1-D buffer of one CPU device, as the caller
    knows it. A 1-D array has one layout (XLA's CPU buffers are neither tiled nor padded), so its
    memory is dense at the buffer's address and the array is made from that alone, over a ctypes
    block of its bytes (`_memory`), without jax's own view or an `__array_interface__` for numpy
    to parse (~2.5 us less per read than a `HostMemory`, ~3-8 us less than jax's view). Other
    shapes are checked through jaxlib's buffer protocol, then made the same way where dense."""
    if vector is not None:
        shape, dtype = vector
        return vector_view(buffer, shape[0], np.dtype(dtype))
    if not one_cpu_device:  # (the engine knows its buffers' device: asking jax costs ~2 us)
        devices = buffer.devices()
        if len(devices) != 1 or next(iter(devices)).platform != "cpu":
            return None
    # jaxlib's buffer protocol: the memory of a CPU buffer of the default (row-major) layout,
    # once the program that writes it is done, never a copy (any other buffer raises
    # BufferError). It replaces jax's `np.asarray` view checked against `unsafe_buffer_pointer`
    # (~9 us of a fresh buffer's ~24 us read, measured in thread CPU: that call waits apart).
    try:
        exported = memoryview(buffer)
    except BufferError:
        return None
    with exported:
        shape = exported.shape
        if 0 in shape:
            return None  # (an empty array has no memory to share)
        if exported.c_contiguous:  # (row-major and dense: the array is made from the address)
            fmt = exported.format
            dtype = _formats.get(fmt)
            if dtype is None:  # (numpy's reading of the format, asked once per format)
                dtype = _formats[fmt] = np.asarray(exported).dtype
            return _ndarray(shape, dtype, _memory(buffer, exported.nbytes))
        interface = np.asarray(exported).__array_interface__
    interface["data"] = (interface["data"][0], False)  # (address, read-only flag)
    return np.asarray(HostMemory(buffer, interface))


_formats = {}  # buffer-protocol format -> the numpy dtype numpy reads it as ('=Zd': complex128)


def vector_view(buffer, n, dtype):
    """`host_view(buffer, vector=((n,), dtype))`: a writable numpy array of the n > 0 elements of
    a 1-D CPU buffer of one device, as the caller knows it (`dtype` a numpy dtype), made from
    the buffer's address alone (see `host_view`)."""
    if not buffer.is_ready():  # (jax's own view waits for the program that writes it too;
        buffer.block_until_ready()  # asking first is ~3 us cheaper: blocking releases the GIL)
    # (numpy's frombuffer over the block: ~0.25 us less than ndarray(shape, dtype, buffer=...);
    # the same writable array, whose base is the block)
    return _frombuffer(_memory(buffer, n * dtype.itemsize), dtype)


def initialize_distributed(coordinator_address, num_processes, process_id, local_device_ids=None):
    """Join a multi-process run (one process per host, or several on one machine) before any
    array exists: afterwards every platform's device list is the global one (all processes'
    devices) and a Mesh may span them. CPU processes exchange data through gloo."""
    if _clients:
        raise RuntimeError("initialize_distributed must come before the first array is made")
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address=coordinator_address, num_processes=num_processes,
                               process_id=process_id, local_device_ids=local_device_ids)


_put_layout = threading.local()


class requested_layout:
    """`with requested_layout(mesh, sharding_of_shape):` host data this thread sends to `mesh`
    without a spec (a creation function's leaf) goes out as `sharding_of_shape(shape)` says
    (None: replicated), so `asarray(data, device=NamedSharding(...))` sends each device its shard
    once instead of the whole array to every device."""

    def __init__(self, mesh, sharding_of_shape):
        self.mesh, self.of_shape = mesh, sharding_of_shape

    def __enter__(self):
        self.saved = getattr(_put_layout, "current", None)
        _put_layout.current = self

    def __exit__(self, *exc):
        _put_layout.current = self.saved


def _requested_layout(mesh, shape):
    current = getattr(_put_layout, "current", None)
    if current is not None and current.mesh is mesh:
        spec = current.of_shape(shape)
        if spec is not None:
            return spec
    return ((),) * len(shape)


def has_sharding(buffer, mesh, spec):
    """Whether a device buffer is laid out as `spec` over `mesh` (a PjrtMesh)."""
    sharding = mesh.sharding(spec)
    return buffer.sharding is sharding or buffer.sharding.is_equivalent_to(sharding, len(spec))


def reshard(buffer, mesh, spec):
    """The buffer laid out as `spec` over `mesh` (XLA moves the shards device to device). jax's
    device_put narrows 64-bit values to 32 bits unless x64 is on: on for this call only."""
    with jax.enable_x64(True):
        return jax.device_put(buffer, mesh.sharding(spec))


def buffer_device(buffer):
    return next(iter(buffer.devices()))


def buffer_nbytes(buffer):
    return buffer.nbytes


# ---------------------------------------------------------------- compile and execute

# XLA's algebraic simplifier ("algsimp") rewrites float arithmetic in ways that change IEEE
# results, so a value would depend on which ops were fused into one program, i.e. on where the
# user reads: log(pow(x, y)) => y * log(x) (finite where pow overflows to inf), log(exp(x)) => x,
# exp(a) * exp(b) => exp(a + b), x / c => x * (1 / c), (a + c1) + c2 => a + (c1 + c2),
# a * c + b * c => (a + b) * c, x + 0.0 => x (keeps -0.0), ... It has no switch for the
# value-changing subset alone, so it is off; the remaining passes and LLVM (no fast-math: XLA's
# CPU default) keep IEEE results, except that LLVM may contract a * b + c into one fused
# multiply-add (one rounding fewer). LAZYARRAY_XLA_SIMPLIFIER=1 turns it back on (to measure it).
_SIMPLIFIER = os.environ.get("LAZYARRAY_XLA_SIMPLIFIER", "0") not in ("", "0")
VALUE_CHANGING_PASSES = () if _SIMPLIFIER else ("algsimp",)


def compile_options(mesh=None):
    """The options of every compile (and deserialisation) of a program of ours; for a mesh, XLA's
    SPMD partitioner with Shardy reads the program's `sdy.sharding` annotations, one partition
    per device of the mesh in the mesh's order."""
    if mesh is None:
        opts = _backend.get_compile_options(num_replicas=1, num_partitions=1)
    else:
        n = len(mesh.devices)
        opts = _backend.get_compile_options(num_replicas=1, num_partitions=n,
                                            device_assignment=np.array([[d.id for d in mesh.devices]]).reshape(1, n))
        opts.executable_build_options.use_spmd_partitioning = True
        opts.executable_build_options.use_shardy_partitioner = True
    if VALUE_CHANGING_PASSES:
        opts.executable_build_options.debug_options.xla_disable_hlo_passes = ",".join(VALUE_CHANGING_PASSES)
    return opts


def compile_text(text: str, device):
    """Compile StableHLO text for one device. (XLA's backend optimisation level 0 compiles ~3x
    faster but was seen to miscompile: NaN from a graph the optimised build gets right.)"""
    c = client(device.platform)
    if isinstance(device, PjrtMesh):
        return c.compile_and_load(text, _xc.DeviceList(device.devices), compile_options(device))
    options = compile_options()
    if _config.compile_process and _compile_process.wanted(text, device):
        payload = _compile_process.compile_serialized(options.SerializeAsString(), text)
        if payload is not None:  # (else: the helper is unavailable, or XLA rejected it: here, as ever)
            try:
                executable = c.deserialize_executable(payload, _xc.DeviceList((device,)), options)
            except Exception:  # (a payload this client refuses: compile here)
                pass
            else:
                keep(_helper_payloads, id(executable), (executable, payload), HELPER_PAYLOADS_KEPT, oldest=True)
                return executable
    return c.compile_and_load(text, _xc.DeviceList((device,)), options)


# id(executable) -> (executable, the helper's serialized form of it): what `store_serialized`
# writes for a program the helper compiled (serializing a deserialized executable again gives an
# entry that fails at its first run: "Function ... not found"); taken at the store, which follows
# the compile (`_program_cache._build`); bounded for compiles with no disk cache to store in
_helper_payloads = {}
HELPER_PAYLOADS_KEPT = 64


def execute(executable, inputs):
    """Run a compiled program on one device; returns its outputs as device buffers. From its
    second run on, an executable's outputs are made by C++ result handlers (`_handlers`) taken
    from the arrays jax made at its first run: jax's own path builds each output's sharding and
    array in Python (~5 us of a ~10 us call)."""
    entry = _handlers.get(id(executable))
    if entry is not None and entry[0] is executable:
        return executable.execute_sharded(inputs).consume_with_handlers(entry[1])
    results = [o[0] for o in executable.execute_sharded(inputs).disassemble_into_single_device_arrays()]
    keep(_handlers, id(executable), (executable, result_handlers(results)), HANDLERS_KEPT, oldest=True)
    return results


# id(executable) -> (executable, the result handlers of its outputs): the executable is held, so
# its id is not reused while the entry lives; the oldest entry goes first (`forget_executables`
# empties it when the engine forgets its programs)
_handlers = {}
HANDLERS_KEPT = 1024


def forget_executables():
    """Let go of the executables `execute` keeps result handlers for."""
    _handlers.clear()


def forget_executable(executable):
    """Let go of one executable's result handlers (its program left the in-memory cache)."""
    entry = _handlers.get(id(executable))
    if entry is not None and entry[0] is executable:
        del _handlers[id(executable)]


def result_handlers(results):
    """The handlers that make, from one executable's later outputs, arrays like `results` (its
    outputs from jax's own path): the same shape, dtype, device and commitment, so an output is
    never described otherwise than jax would describe it."""
    return [_xc.array_result_handler(r.aval, r.sharding, committed=r.committed, _skip_checks=True)
            for r in results]


def execute_on_mesh(executable, inputs, mesh, outputs):
    """Run a program compiled for `mesh`; `outputs` is a (shape, spec) pair per output, the layout
    its annotations pinned. Returns one global (sharded) buffer per output."""
    out = executable.execute_sharded(inputs).disassemble_into_single_device_arrays()
    return [jax.make_array_from_single_device_arrays(shape, mesh.sharding(spec), shards)
            for (shape, spec), shards in zip(outputs, out)]


def disk_path(key_text: str, device):
    if not _config.cache_dir:
        return None
    h = hashlib.sha256(f"{version_tag()}|{device.platform}|{device.device_kind}|{key_text}".encode()).hexdigest()
    return os.path.join(_config.cache_dir, h[:2], h + _disk_cache.SUFFIX)


def disk_tag(device):
    """What an on-disk entry's header must name to be loaded here (`_disk_cache`)."""
    return f"{version_tag()} jaxlib-{_jaxlib_version} {device.platform} {device.device_kind}"


def load_serialized(path, device):
    """The executable stored at `path`, or None when the entry is absent, partial, corrupt or
    another version's (checked before XLA sees a byte of it)."""
    payload = _disk_cache.read(path, disk_tag(device))
    if payload is None:
        return None
    if b"lapack_" in payload:  # LAPACK custom calls crash unless LAPACK was set up (on import)
        from . import _runtime_lapack  # noqa: F401 - a program loaded by its structural key was never lowered here
    c = client(device.platform)
    try:
        if isinstance(device, PjrtMesh):
            return c.deserialize_executable(payload, _xc.DeviceList(device.devices), compile_options(device))
        return c.deserialize_executable(payload, _xc.DeviceList((device,)), compile_options())
    except Exception:  # a whole entry XLA still refuses: compile again and overwrite it
        return None


def store_serialized(path, executable, device):
    entry = _helper_payloads.pop(id(executable), None)
    if entry is not None and entry[0] is executable:
        return _disk_cache.write(path, entry[1], disk_tag(device))
    c = client(device.platform)
    return _disk_cache.write(path, c.serialize_executable(executable), disk_tag(device))
