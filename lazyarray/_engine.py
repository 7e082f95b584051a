"""Materialization: pick the outputs, key the graph, find or compile its program, run it, and
realize the nodes. This is where laziness ends; everything above only records nodes.

Threads: every entry point that reads or changes computed state (`realize`, `maybe_cut`,
`cut_graph`, `to_numpy`, `clear_cache`) holds the engine lock (`_graph.lock`, re-entrant) for
the whole sync, so the caches, the sightings, the scalar buffers, the pool's free lists,
`_segment`'s loop state and the cut site are only touched by one thread at a time, one graph is
compiled once however many threads want it, and no thread realizes a node another is walking.
Tracing takes no lock (see `_graph`): a thread pays one uncontended lock per sync. The compile
thread never takes the engine lock (a sync may wait for it); the counters it shares with syncs
are updated under `metrics.lock`.

Failures: a sync that raises (a compile XLA rejects, an error while running) realizes nothing it
had not finished: nodes are realized only after their program ran, buffers taken from the pool
go back to it, and nothing is cached for a program that failed to build.
"""
from __future__ import annotations

import collections
import concurrent.futures
import hashlib
import math
import os
import struct
import time

import numpy as np

from . import _checks, _config, _dtypes, _interpret, _runtime, _segment
from ._emit import emit_module
from ._graph import Plan, lock as _lock, pending, split_leaves
from ._metrics import explain_miss, format_site, metrics, user_site
from ._pool import pool


class _Compiled:
    __slots__ = ("executable", "text_hash")

    def __init__(self, executable, text_hash):
        self.executable = executable
        self.text_hash = text_hash


_cache = {}  # (device, structural key) -> _Compiled; the oldest compiled is dropped first
_scalar_buffers = {}  # (device id, dtype str, shape, bytes) -> device buffer of host scalars (oldest dropped first)
_f64 = _dtypes.float64
_pack = struct.pack
_SCALAR_CACHE_SIZE = 4096


def clear_cache():
    with _lock:
        wait_for_compiles()
        _cache.clear()
        _sightings.clear()
        _scalar_buffers.clear()
        _unsplit_sites.clear()
        _variants.clear()
        pool.clear()


def realize(nodes, device, cause):
    """Compute `nodes` (and the pending arrays that share their graph) in one program."""
    with _lock:
        _realize(nodes, device, cause)


def _realize(nodes, device, cause):
    if len(nodes) == 1:
        targets = [nodes[0]] if nodes[0].op is not None else []
    else:
        targets = _unique(n for n in nodes if n.op is not None)
    if not targets:
        return
    site = user_site()
    metrics.count_sync(cause, site)
    target_ids = {id(t) for t in targets}
    candidates = [n for n in [h._pending_node() for h in pending.live() if h._device is device]
                  if id(n) not in target_ids]
    traced = pending.nodes_since_sync
    metrics.nodes_traced += traced
    big = traced >= _segment.MIN_NODES
    if cause == "cut":
        outputs = _unique(targets + candidates)
        plan = Plan(outputs)  # (before the count is reset: it tells Plan a deep graph is coming)
        pending.nodes_since_sync = 0
        if big and site not in _unsplit_sites:
            if _run_segmented(outputs, plan.order, device, site, keep_tail=True):
                return
            _unsplit_sites.add(site)  # the loop there is not worth splitting: do not look again
            if len(_unsplit_sites) > 256:
                _unsplit_sites.clear()
    else:
        plan = Plan(targets)
        pending.nodes_since_sync = 0
        outputs = targets
        extra = _overlapping(plan.order, candidates) if candidates else None
        if extra:
            outputs = _unique(targets + extra)
            plan.add(extra)  # the walk goes on from where the targets left it
        if _segment.worth_trying(len(plan.order)) and _run_segmented(outputs, plan.order, device, site, keep_tail=False):
            plan = Plan(outputs)  # what the chunks left: less than one chunk
            if not plan.order:
                return
    _run(plan, outputs, device, site)


_unsplit_sites = set()  # cut sites whose graphs had no loop worth splitting


def _run_segmented(outputs, order, device, site, keep_tail):
    """Compute a loop's unrolled graph (`order`: its computed nodes) chunk by chunk (see
    `_segment`). Returns False when the graph is not periodic. With `keep_tail`, the nodes after
    the last whole chunk stay pending and count towards the next cut's budget."""
    found = _segment.chunks(outputs, order, keep_tail)
    if found is None:
        return False
    pieces, tail = found
    for piece in pieces:
        _run(Plan(piece), piece, device, site)
    metrics.segmented_syncs += 1
    metrics.chunks_run += len(pieces)
    if keep_tail:
        pending.nodes_since_sync += tail
    return True


_cut_site = None  # the user's line where the last budget cut happened


def maybe_cut():
    """Called when the traced graph has passed the node budget. Cuts at a repeating boundary:
    once a cut has happened at some line of the user's code, later cuts wait (up to twice the
    budget) until execution comes back to that line, so a loop is cut after the same number of
    whole iterations every time and every cut graph after the first is the same graph."""
    global _cut_site
    site = user_site()
    with _lock:
        budget = _config.node_budget
        if pending.nodes_since_sync < budget:
            return  # another thread cut while this one waited for the lock
        if _cut_site is None or site == _cut_site or pending.nodes_since_sync >= 2 * budget:
            _cut_site = site
            cut_graph()


def cut_graph():
    """Realize every live pending array, so a loop that never reads a value runs in bounded
    graphs. (With several threads tracing, a cut realizes every thread's pending arrays.)"""
    with _lock:
        by_device = collections.defaultdict(list)
        for h in pending.live():
            by_device[h._device].append(h._pending_node())
        if not by_device:
            pending.nodes_since_sync = 0
        for device, nodes in by_device.items():
            _realize(nodes, device, "cut")


def _unique(nodes):
    seen, out = set(), []
    for n in nodes:
        if id(n) not in seen:
            seen.add(id(n))
            out.append(n)
    return out


def _overlapping(order, candidates):
    """Candidates whose pending graph shares a computed node with the targets' graph (whose
    topological order is `order`). Computing them now (they would need the same work later)
    keeps a loop's graphs from growing."""
    if not candidates:
        return []
    in_target = {id(n) for n in order}
    known_disjoint = set()
    found = []
    for cand in candidates:
        if id(cand) in in_target:  # computed anyway: output it for free
            found.append(cand)
            continue
        stack, visited, hit = [cand], [], False
        seen = {id(cand)}
        while stack:
            n = stack.pop()
            visited.append(n)
            for a in n.args:
                if a.op is None or id(a) in known_disjoint or id(a) in seen:
                    continue
                if id(a) in in_target:
                    hit = True
                    break
                seen.add(id(a))
                stack.append(a)
            if hit:
                break
        if hit:
            found.append(cand)
        else:
            known_disjoint.update(id(n) for n in visited)
    return found


def _run(plan, outputs, device, site):
    if _checks.pending:  # checked mode: the program also computes its pending checks (_checks)
        outputs = _checks.outputs_for(plan, outputs)
    order, leaves = plan.order, plan.leaves
    recycled, donated = [], []
    if pool.held or pool.returned:
        for k, o in enumerate(outputs):
            buf = pool.take(device.id, o.shape, o.dtype) if math.prod(o.shape) > 0 else None
            if buf is not None:
                recycled.append(buf)
                donated.append(k)
    donated = tuple(donated)
    try:
        skey = plan.key(outputs)
        key = (device.id, device.platform, skey, donated)
        compiled = _cache.get(key)
        if compiled is None and donated:
            # Donation never costs a compile the user waits for: run the plain program (or the
            # interpreter) with fresh outputs, and build the donating variant in the background
            # once the plain program exists (the graph is hot: reuse will pay).
            if (device.id, device.platform, skey, ()) in _cache:
                compiled = _donating_variant(key, plan, outputs, device, site)
            if compiled is None:
                _give_back(recycled, donated, outputs, device)
                recycled, donated = [], ()
                key = (device.id, device.platform, skey, ())
                compiled = _cache.get(key)
        if compiled is None and _config.interpret_first and device.platform == "cpu":
            # (on an accelerator the interpreter would copy every input to the host; its rules were
            # checked against XLA's CPU results)
            compiled = _tier1(skey, plan, outputs, device, site)
            if compiled is True:  # interpreted
                return
        if compiled is None:  # (a plain program: donating variants compile in the background)
            compiled = _compile(key, order, leaves, outputs, device, site, ())
        else:
            metrics.cache_hits += 1
        buffers, packed = split_leaves(leaves)
        inputs = [leaf.buffer if leaf.buffer is not None else _input_buffer(leaf, device) for leaf in buffers]
        for dtype, group in packed.items():
            inputs.append(_packed_buffer([leaf.host for leaf in group], dtype, device))
        inputs += recycled
        t0 = time.perf_counter()
        results = _runtime.execute(compiled.executable, inputs)
    except BaseException:  # nothing was realized: the dead buffers taken for outputs go back
        _give_back(recycled, donated, outputs, device)
        raise
    metrics.recycled_buffers += len(donated)
    metrics.execute_seconds += time.perf_counter() - t0
    metrics.executions += 1
    if _checks.pending:  # a failed check raises here, before anything is realized
        _checks.verify(outputs, results)
    for node, buf in zip(outputs, results):
        node.realize(buf)
        pool.watch(node, device.id)


_variants = {}  # key of a donating variant -> future of its background compile


def _donating_variant(key, plan, outputs, device, site):
    """The donating variant of a cached program once its background compile is done (it is
    started on the first call), else None."""
    future = _variants.get(key)
    if future is None:
        if len(_variants) > _config.cache_size:
            _variants.clear()
        _variants[key] = _compile(key, plan.order, plan.leaves, outputs, device, site, key[3], background=True)
    elif future is not _COMPILE_FAILED and future.done():
        if future.exception() is not None:  # (XLA rejected it: the plain program serves)
            _variants[key] = _COMPILE_FAILED
            return None
        del _variants[key]
        return _install(key, future.result())
    return None


def _give_back(recycled, donated, outputs, device):
    for k, buf in zip(donated, recycled):
        pool.give_back(buf, device.id, outputs[k].shape, outputs[k].dtype)


def _packed_buffer(values, dtype, device):
    """The device vector of a program's host scalars of one dtype (graph.split_leaves)."""
    if dtype is _f64:  # the common case, keyed without a numpy round trip
        buf = _scalar_buffers.get((device.id, "<f8", (len(values),), _pack(f"<{len(values)}d", *values)))
        if buf is not None:
            return buf
    return _host_buffer(np.array(values, dtype=dtype.np), device)


def _host_buffer(vec, device):
    """The device copy of a small host array; a loop's constants (the same values every step)
    are sent once. Keyed by bytes, so -0.0 and 0.0 (equal as floats) and NaNs (unequal to
    themselves) are told apart correctly."""
    skey = (device.id, vec.dtype.str, vec.shape, vec.tobytes())  # a 0-D value and a 1-vector share bytes
    buf = _scalar_buffers.get(skey)
    if buf is None:
        buf = _scalar_buffers[skey] = _runtime.put(vec, device._pjrt)
        metrics.bytes_to_device += vec.nbytes
        if len(_scalar_buffers) > _SCALAR_CACHE_SIZE:
            del _scalar_buffers[next(iter(_scalar_buffers))]
    return buf


def _input_buffer(leaf, device):
    """A leaf's device buffer; a host leaf (a scalar, or a value the interpreter computed) is sent
    once."""
    if leaf.buffer is None:
        value = np.asarray(leaf.host, dtype=leaf.dtype.np)
        if leaf.shape:
            leaf.buffer = _runtime.put(value, device._pjrt)
            metrics.bytes_to_device += value.nbytes
        else:
            leaf.buffer = _host_buffer(value, device)
        leaf.host = None
    return leaf.buffer


def _compile(key, order, leaves, outputs, device, site, donated, background=False):
    """Compile the graph's program and cache it under `key`. With `background`, only emit it here
    and return a future of the _Compiled, built on the compile thread (XLA releases the GIL)."""
    metrics.cache_misses += 1
    site = format_site(site)
    if _config.explain_misses or _config.max_graphs_per_site:
        if key[3] and (key[0], key[1], key[2], ()) in _cache:
            reason = (f"the cached program's variant whose outputs {list(key[3])} reuse dead buffers "
                      "(donation), built in the background")
        else:
            reason = explain_miss(key[2], [k[2] for k in list(_cache)[-64:]])
        metrics.miss_explanations.append(f"{site}: {reason}")
        del metrics.miss_explanations[:-100]
        if _config.explain_misses:
            print(f"lazyarray: cache miss at {site}: {reason}")
    else:
        metrics.miss_explanations.append(f"{site}: cache miss ({len(order)} ops)")
        del metrics.miss_explanations[:-100]
    text = emit_module(order, leaves, outputs, donated=donated)
    text_hash = _text_hash(text)
    if _config.max_graphs_per_site:
        graphs = metrics.graphs_per_site[site]
        graphs.add(text_hash)
        if len(graphs) > _config.max_graphs_per_site:
            raise RuntimeError(
                f"lazyarray: {site} has produced {len(graphs)} distinct graphs (limit "
                f"LAZYARRAY_MAX_GRAPHS_PER_SITE={_config.max_graphs_per_site}); last miss: "
                f"{metrics.miss_explanations[-1]}")
    if _config.dump_dir:
        os.makedirs(_config.dump_dir, exist_ok=True)
        with open(os.path.join(_config.dump_dir, f"{text_hash}.mlir"), "w") as f:
            f.write(text)
    if background:
        metrics.background_compiles += 1
        return _compile_thread().submit(_build, text, text_hash, device, site)
    return _install(key, _build(text, text_hash, device, site))


def _text_hash(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _from_disk(text, path, device):
    """The program an earlier process compiled for `text` (on-disk cache at `path`), or None."""
    executable = _runtime.load_serialized(path, device._pjrt) if path else None
    if executable is None:
        return None
    with metrics.lock:
        metrics.disk_hits += 1
    return _Compiled(executable, _text_hash(text))


def _build(text, text_hash, device, site):
    t0 = time.perf_counter()
    path = _runtime.disk_path(text, device._pjrt)
    compiled = _from_disk(text, path, device)
    if compiled is None:
        try:
            executable = _runtime.compile_text(text, device._pjrt)
        except Exception as exc:
            raise RuntimeError(f"lazyarray: XLA rejected the program built at {site}: {exc}\n{text}") from exc
        with metrics.lock:
            metrics.compiles += 1
        if path:
            _runtime.store_serialized(path, executable, device._pjrt)
        compiled = _Compiled(executable, text_hash)
    with metrics.lock:
        metrics.compile_seconds += time.perf_counter() - t0
    return compiled


def _install(key, compiled):
    _cache[key] = compiled
    if len(_cache) > _config.cache_size:
        del _cache[next(iter(_cache))]
    return compiled


# ---------------------------------------------------------------- tier 1: interpret, compile later

_sightings = {}  # (device id, structural key) -> [runs interpreted, future of its compile or None,
#                                                  seconds spent interpreting it]
# Elements computed by a graph (summed over its nodes) above which compiling beats interpreting:
# numpy takes ~1-5 ns an element and op, so 2^22 element-ops cost ~4-20 ms against a 30+ ms compile.
_INTERPRET_MAX_WORK = 1 << 22
_executor = None
_COMPILE_FAILED = "compile failed"  # in a sighting's future slot: interpret this graph for good


def _note(log, text):
    """Append to one of the metrics' bounded logs."""
    log.append(text)
    del log[:-100]


def _compile_thread():
    global _executor
    if _executor is None:
        _executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="lazyarray-compile")
    return _executor


def wait_for_compiles():
    """Block until the background compiles started so far are done (tests and benchmarks that
    count compiles call it first)."""
    if _executor is not None:
        _executor.submit(lambda: None).result()  # one worker: everything queued before is done


def compile_estimate(n_nodes):
    """Seconds XLA's CPU compile takes for a graph of n_nodes computed nodes (measured here: ~28 ms
    for one op, ~110 ms for 100)."""
    return 0.025 + 0.001 * n_nodes


def _tier1(skey, plan, outputs, device, site):
    """A graph not compiled yet runs in numpy (`_interpret`). Its program is compiled, on a
    background thread, once it has been seen `interpret_first` times AND interpreting it has cost
    as much as compiling it would (the ski-rental rule: a graph never costs more than about twice
    the better of the two tiers, whatever its future). Until the program is ready the interpreter
    keeps serving the graph, never waiting for the compile. One-off and rarely repeated graphs
    (most graphs of a test suite) thus never pay XLA's 30-500 ms compile, and a hot loop's graph
    compiles after a few dozen runs. Returns True when the graph was interpreted, the compiled
    program when one is ready, or None to compile now (ops the interpreter lacks)."""
    plain_key = (device.id, device.platform, skey, ())
    compiled = _cache.get(plain_key)
    if compiled is not None:
        return compiled
    tkey = (device.id, skey)
    entry = _sightings.get(tkey)
    if entry is None:
        if sum(math.prod(n.shape) for n in plan.order) > _INTERPRET_MAX_WORK or not _interpret.supports(plan.order):
            return None
        if _config.cache_dir:  # compiled by an earlier process: loading it is cheap
            text = emit_module(plan.order, plan.leaves, outputs)
            compiled = _from_disk(text, _runtime.disk_path(text, device._pjrt), device)
            if compiled is not None:
                return _install(plain_key, compiled)
        entry = _sightings[tkey] = [0, None, 0.0]
        if len(_sightings) > 4 * _config.cache_size:
            del _sightings[next(iter(_sightings))]
    future = entry[1]
    if future is not None and future is not _COMPILE_FAILED and future.done():
        exc = future.exception()
        if exc is None:
            del _sightings[tkey]
            return _install(plain_key, future.result())
        # XLA rejected the program: the interpreter, which ran this graph, keeps serving it
        _note(metrics.compile_errors, f"{format_site(site)}: {exc}")
        entry[1] = future = _COMPILE_FAILED
    t0 = time.perf_counter()
    try:
        values = _interpret.interpret(plan.order, plan.leaves, outputs)
    except Exception as exc:  # an interpreter bug must not fail the user's program: compile it
        _note(metrics.interpreter_errors, f"{format_site(site)}: {type(exc).__name__}: {exc}")
        del _sightings[tkey]
        if future is not None and future is not _COMPILE_FAILED:
            # compiling already: wait for that program rather than compile the graph twice
            return _install(plain_key, future.result())
        return None
    seconds = time.perf_counter() - t0
    metrics.interpret_seconds += seconds
    metrics.interpreted += 1
    entry[0] += 1
    entry[2] += seconds
    if future is None and entry[0] >= _config.interpret_first and entry[2] >= compile_estimate(len(plan.order)):
        # emitted before the nodes turn into leaves
        entry[1] = _compile(plain_key, plan.order, plan.leaves, outputs, device, site, (), background=True)
    if _checks.pending:  # a failed check raises here, before anything is realized
        _checks.verify(outputs, values)
    for node, value in zip(outputs, values):
        node.realize_host(value)
    return True


def to_numpy(node, device, cause):
    """The node's value as a numpy array the caller owns."""
    with _lock:  # (another thread's sync may move a host leaf to the device meanwhile)
        if node.op is not None:
            _realize([node], device, cause)
        if node.buffer is None:  # a host leaf never sent to the device
            return np.array(node.host, dtype=node.dtype.np, copy=True)
        out = _runtime.to_numpy(node.buffer)
        metrics.bytes_to_host += out.nbytes
        return out
