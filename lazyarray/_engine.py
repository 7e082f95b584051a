"""Syncs: where laziness ends. A sync picks the nodes to compute (the requested ones, plus the
live pending arrays whose graph shares work with them, or every live pending array at a budget
cut), splits a loop's unrolled graph into chunks (`_segment`), and hands each plan to
`_run_program`, which runs it through the tier policy (`_tier_policy`: interpret now or compile)
and the program cache (`_program_cache`). Everything the engine remembers between syncs is one
object, `_engine_state.state`; `clear_cache` resets it.

Threads: every entry point that reads or changes computed state (`realize`, `maybe_cut`,
`cut_graph`, `to_numpy`, `clear_cache`) holds the engine lock (`_graph.lock`, re-entrant) for
the whole sync, so the engine state (caches, sightings, scalar buffers, the pool's free lists,
loop state, the cut site) is only touched by one thread at a time, one graph is compiled once
however many threads want it, and no thread realizes a node another is walking. Tracing takes
no lock (see `_graph`): a thread pays one uncontended lock per sync (taken by `acquire` and
`release` in a try, not by `with`: an RLock's `__exit__` costs ~0.25 us more, at every read).
The compile thread never takes the engine lock (a sync may wait for it); the counters it shares
with syncs are updated under `metrics.lock`.

Failures: a sync that raises (a compile XLA rejects, an error while running) realizes nothing it
had not finished: nodes are realized only after their program ran, buffers taken from the pool
go back to it, and nothing is cached for a program that failed to build.
"""
from __future__ import annotations

import collections
import math

import numpy as np

from . import _checks, _config, _host_sync, _runtime, _segment
from ._bounded import keep
from ._engine_state import state
from ._graph import Plan, computed_nodes, lock as _lock, pending, recorded
from ._metrics import metrics, user_site

_prod = math.prod  # (a large read skips `_host_sync`'s set-up: `_realize`)
# (`_run` and `_input_buffer` are names other modules and tests use: test_interpret wraps `_run`)
from ._run_program import input_buffer as _input_buffer, run as _run  # noqa: F401
from ._run_program import hand_key as _hand_key, overlapping as _overlapping, replay_one as _replay_one


def clear_cache() -> None:
    """Forget compiled programs, sightings, loop state and kept buffers (`state.reset`); pending
    checked-mode checks stay, they belong to live arrays."""
    state.reset(keep_checks=True)


def wait_for_compiles():
    """Block until the background compiles started so far are done (tests and benchmarks that
    count compiles call it first)."""
    state.wait_for_compiles()


def realize(nodes, device, cause):
    """Compute `nodes` (and the pending arrays that share their graph) in one program."""
    _lock.acquire()
    try:
        _realize(nodes, device, cause)
    finally:
        _lock.release()


def _count_host_read(cause):
    """Count a small read computed on the host (`_host_sync`: a few microseconds in all) and the
    nodes traced up to it. By cause only: looking up the user's line would cost ~1 us more, and
    the report's sync sites are there to find the syncs that run programs. (In debug mode such
    reads take the usual path, which records their sites: `_host_sync.usable`.)"""
    syncs = metrics.syncs
    syncs[cause] = syncs.get(cause, 0) + 1
    traced = pending.nodes_since_sync
    if traced:
        metrics.nodes_traced += traced
        pending.nodes_since_sync = 0
    if recorded:  # (the graph's nodes, realized: `_graph.recorded` keeps them no longer)
        recorded.clear()


def _realize(nodes, device, cause):
    if len(nodes) == 1:
        targets = [nodes[0]] if nodes[0].op is not None else []
    else:
        targets = _unique(n for n in nodes if n.op is not None)
    if not targets:
        return
    site = None
    if cause != "cut" and (len(targets) > 1 or _prod(targets[0].shape) <= _host_sync.SMALL) \
            and _host_sync.usable(device):
        traced = pending.nodes_since_sync
        if traced >= HOST_MISS_NODES:  # (HOST_MISS_NODES <= _segment.MIN_NODES: split sites' test too)
            site = user_site(2)  # (this frame and its caller's, an `_engine` function: ours)
        # a loop's read again (its last read here was split into chunks): the small-read path
        # would walk into the loop before it gave up
        if not (state.split_sites and traced >= _segment.MIN_NODES and site in state.split_sites) \
                and _host_read(targets, site):
            _count_host_read(cause)
            return  # a small read, computed on the host (no program: see _host_sync)
    _realize_program(targets, device, cause, site)


# Small reads the host path gives up on (a float sum, a transcendental function deep in the graph)
# cost what it evaluated before it met that node, ~10-70 us, and then take the engine's path. A
# read site whose last small read there failed usually fails again (SciPy's table, first pass: 124
# of 145 reads after a failure at their site; 2.7 of its 2.9 ms of failed reads), so a read at
# such a site goes straight to the engine for the next 1, 2, 4, ... up to HOST_MISS_SKIPS reads,
# then tries the host path again; a success forgets the site. Only for reads with at least
# HOST_MISS_NODES nodes traced since the last sync: the site costs a frame walk (~1-2 us), and
# smaller graphs rarely fail (33 of 162 failures, 0.3 ms, against 124 of 215 successes). A read
# sent to the engine computes the same values (the interpreter tier evaluates the same nodes with
# the same numpy evaluations, or their compiled program: exact ops, bit for bit).
HOST_MISS_NODES = 8
HOST_MISS_SKIPS = 16
HOST_MISSES_KEPT = 256  # sites remembered (`state.host_misses`); emptied when full


def _host_read(targets, site):
    """`_host_sync.run(targets)` at a read whose user site is `site` (None: not looked up, the
    read is tried), skipped while the site's last failures say so (the comment above)."""
    if site is None:
        return _host_sync.run(targets)
    misses = state.host_misses
    m = misses.get(site)
    if m is not None and m[0]:
        m[0] -= 1
        return False
    if _host_sync.run(targets):
        if m is not None:
            del misses[site]
        return True
    if m is None:
        keep(misses, site, [1, 2], HOST_MISSES_KEPT)
    else:
        m[0] = m[1]
        m[1] = min(2 * m[1], HOST_MISS_SKIPS)
    return False


def _realize_program(targets, device, cause, site=None):
    """`_realize` past the small host reads: the targets' graph (with the live pending arrays that
    share work with it) runs through the tier policy. (`site`: the user's line, when known.)

    `read_scalar` and `host_view` (private: only lazyarray code calls them, so their callers'
    frames are ours too) ask `user_site` themselves and pass the site: the walk to the user's
    frame then starts two frames above them (`user_site(internal)`: each frame the walk reaches
    costs a frame object, ~0.1 us, thread CPU, in the 4b read: np.asarray of a cached program's
    output)."""
    if site is None:  # (called by `_realize`, itself called by an `_engine` function: 3 frames ours)
        site = user_site(3)
    metrics.count_sync(cause, site)
    if len(targets) == 1 and cause != "cut":
        # One read (the commonest sync), straight: what shares work with it, its plan, its run.
        # (The general path below does the same steps for it, with tests it does not need.)
        target = targets[0]
        candidates = pending.pending_beside(target, device)
        if state.recipes and _replay_one(target, device, pending.nodes_since_sync, site, candidates):
            return  # a graph read before: its recipe found its program without a plan (`_run_program`)
        _read_planned(target, device, site, candidates)
        return
    # (several targets, or a budget cut; only the targets' graph components can share work
    # with them: `_graph.Component`)
    live = pending.live() if cause == "cut" else pending.live_with(targets)
    candidates = []
    if len(targets) == 1 and live:
        target = targets[0]
        for h in live:
            if h._device is device:
                n = h._pending_node()
                if n is not target:
                    candidates.append(n)
    elif live:
        target_ids = {id(t) for t in targets}
        for h in live:
            if h._device is device:
                n = h._pending_node()
                if id(n) not in target_ids:
                    candidates.append(n)
    traced = pending.nodes_since_sync
    metrics.nodes_traced += traced
    big = traced >= _segment.MIN_NODES
    if cause == "cut":
        outputs = _unique(targets + candidates)
        unsplit = state.unsplit_sites
        if big and site not in unsplit:
            # (chunking reads the computed nodes alone: no plan's signature, positions, leaves;
            # it tries the nodes recorded since the last sync before it walks the graph)
            pending.nodes_since_sync = 0
            if _run_segmented(outputs, None, device, site, keep_tail=True):
                return
            unsplit.add(site)  # the loop there is not worth splitting: do not look again
            if len(unsplit) > 256:
                unsplit.clear()
            pending.nodes_since_sync = traced
        plan = Plan(outputs)  # (before the count is reset: it tells Plan a deep graph is coming)
        pending.nodes_since_sync = 0
    else:
        plan = Plan(targets)
        pending.nodes_since_sync = 0
        outputs = targets
        extra = _overlapping(plan.index, candidates) if candidates else None
        if extra:
            outputs = _unique(targets + extra)
            plan.add(extra)  # the walk goes on from where the targets left it
        plan = _loop_search(plan, outputs, traced, device, site)
        if plan is None:
            return
    _run(plan, outputs, device, site)


def _read_planned(target, device, site, candidates):
    """A one-target read (counted) that no recipe served: `candidates` (`pending.pending_beside`)
    are the live pending nodes that may share work with it; a split loop's site again, or a
    plan of its graph and the candidates sharing it, searched for a loop, run."""
    traced = pending.nodes_since_sync
    metrics.nodes_traced += traced
    if not candidates and site in state.split_sites and _split_read(target, traced, device, site):
        return  # a loop read here before, split again from its computed nodes alone
    targets = [target]
    plan = Plan(targets)
    pending.nodes_since_sync = 0
    outputs = targets
    if candidates:
        extra = _overlapping(plan.index, candidates)
        if extra:
            outputs = _unique(targets + extra)
            plan.add(extra)
    plan = _loop_search(plan, outputs, traced, device, site)
    if plan is not None:
        _run(plan, outputs, device, site)


_NOT_SEEN = object()
LOOP_FREE_KEPT = 1024        # structures remembered as loop-free (`state.loop_free`); emptied when full
LOOP_FREE_MAX_NODES = 4096   # larger graphs are searched every time (their key is not made first)


def _loop_search(plan, outputs, traced, device, site):
    """A read's search for a loop in its graph (`_segment.chunks`), when one may pay: the plan
    left to run (the whole graph's, or what the chunks left), or None when the chunks computed
    everything. (traced: the nodes recorded since the last sync, a small complex function's one
    node counted as its formula's: `_complex_math`; a short chain of them compiles like a long
    one.) A graph of a structure searched before with no loop found, while the last loop chunk
    is still the one it was searched against, is not searched again (`state.loop_free`: the
    search reads the nodes' ops, attributes, shapes and dtypes, in creation order, and that chunk;
    a structure traced in another order keeps its first answer, and an answer only ever costs or
    saves compiles): a scikit-learn pass reads ~110 such graphs, ~45 us of search each. The
    structural key, made first for that, is handed to `_run_program.run`."""
    n = len(plan.order)
    if not _segment.worth_trying(n if n > traced else traced):
        return plan
    skey = None
    if n <= LOOP_FREE_MAX_NODES and not _checks.pending:
        skey = plan.key(outputs)
        if state.loop_free.get(skey, _NOT_SEEN) is state.last_chunk:
            _hand_key(plan, skey)
            return plan
    if _run_segmented(outputs, plan.order, device, site, keep_tail=False):
        _split_at(site)
        plan = Plan(outputs)  # what the chunks left: less than one chunk
        return plan if plan.order else None
    if skey is not None:
        keep(state.loop_free, skey, state.last_chunk, LOOP_FREE_KEPT)
        _hand_key(plan, skey)
    return plan


SPLIT_SITES_KEPT = 256  # read sites remembered as splitting a loop (`state.split_sites`); emptied when full


def _split_at(site):
    """Remember that the read at `site` split its graph into loop chunks."""
    sites = state.split_sites
    if site not in sites:
        if len(sites) >= SPLIT_SITES_KEPT:
            sites.clear()
        sites.add(site)


def _split_read(target, traced, device, site):
    """A one-target read with nothing pending beside it, at a site whose last read split a loop:
    the same chunks `_loop_search` would find (`_segment.chunks` sorts the computed nodes by
    creation, so the order they come in does not matter), found from `computed_nodes` as at a
    budget cut, without the whole graph's `Plan` and structural key; then a plan of what the
    chunks left. False, with the traced count restored and nothing run, when the graph is not
    one to split (the usual path then plans and searches it). (`_segment.chunks` finds the
    nodes: a loop's next call is replayed from those recorded since the last sync, no walk.)"""
    pending.nodes_since_sync = 0
    if not _run_segmented([target], None, device, site, keep_tail=False, traced=traced):
        state.split_sites.discard(site)
        pending.nodes_since_sync = traced
        return False
    plan = Plan([target])  # what the chunks left: less than one chunk
    if plan.order:
        _run(plan, [target], device, site)
    return True


def read_scalar(node, device, cause):
    """The value of a one-element node as a numpy scalar (bool(), int(), float(), ...): a sync
    when it is pending, then its element read without an intermediate host array."""
    if node.op is None:  # (a host value: the element `x[i]` read when indexed, `_indexing`)
        v = node.host
        if type(v) is node.dtype.np.type:
            return v
    _lock.acquire()
    try:
        if node.op is not None:
            if _host_sync.usable(device):
                v = _host_sync.run_leaf_op(node)
                site = None
                if v is None:  # (the small read `_realize` would try)
                    if pending.nodes_since_sync >= HOST_MISS_NODES:
                        site = user_site(2)  # (see `_realize_program`)
                    if _host_read([node], site):
                        v = node.host
                if v is not None:
                    _count_host_read(cause)
                    if type(v) is not np.ndarray:  # (a 0-D node's numpy scalar: `run_leaf_op`)
                        return v
                    return v[()] if not node.shape else v.reshape(())[()]
                _realize_program([node], device, cause, site if site is not None else user_site(2))
            else:
                _realize([node], device, cause)
        if node.buffer is None:  # a host value (a leaf, or computed by the interpreter tier)
            v = node.host
            if type(v) is not np.ndarray or v.dtype != node.dtype.np:
                v = np.asarray(v, dtype=node.dtype.np)
            return v.reshape(())[()]
        if device.platform == "cpu" and device.mesh is None:
            v = np.asarray(node.buffer)  # (the CPU buffer's memory: the element is copied out)
        else:
            v = _runtime.to_numpy(node.buffer)
        metrics.bytes_to_host += v.itemsize
        return v.reshape(())[()]
    finally:
        _lock.release()


def _run_segmented(outputs, order, device, site, keep_tail, traced=None):
    """Compute a loop's unrolled graph (`order`: its computed nodes; None: `_segment.chunks`
    finds them, and at a read (`traced`: the nodes traced) looks for a loop only where
    `_segment.worth_trying`) chunk by chunk (see `_segment`). Returns False when the graph is
    not periodic. With `keep_tail`, the nodes after the last whole chunk stay pending and count
    towards the next cut's budget."""
    found = _segment.chunks(outputs, order, keep_tail, repeat=True, traced=traced)  # (on a mesh too: _sharding_rules has REPEAT's rule)
    if found is None:
        return False
    pieces, tail = found
    for piece in pieces:
        _run(Plan(piece), piece, device, site)
    metrics.segmented_syncs += 1
    metrics.chunks_run += len(pieces)
    if keep_tail:
        pending.nodes_since_sync += tail
        _segment.restore_tail()
    return True


def maybe_cut():
    """Called when the traced graph has passed the node budget. Cuts at a repeating boundary:
    once a cut has happened at some line of the user's code, later cuts wait (up to twice the
    budget) until execution comes back to that line, so a loop is cut after the same number of
    whole iterations every time and every cut graph after the first is the same graph."""
    site = user_site()
    with _lock:
        budget = _config.node_budget
        if pending.nodes_since_sync < budget:
            return  # another thread cut while this one waited for the lock
        if state.cut_site is None or site == state.cut_site or pending.nodes_since_sync >= 2 * budget:
            state.cut_site = site  # the user's line where the last budget cut happened
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
    """`nodes` without repeats, in first-seen order (nodes hash by identity: a dict keyed by them)."""
    return list(dict.fromkeys(nodes))


def host_view(node, device, cause, sole_user):
    """The node's value as a writable numpy array over its CPU device buffer's own memory (no
    copy), or None where a copy is needed: not a single CPU device, a 0-D value (its buffer may
    be a shared scalar constant), a buffer already shared outside (dlpack, jax), no zero-copy
    layout, or `sole_user(node)` (asked once the node is realized) says someone else holds it.
    The buffer is lent (`_pool`): never reused while the numpy array lives."""
    _lock.acquire()
    try:
        shape = node.shape
        pending_now = node.op is not None  # (computed below: a buffer a program made of its dtype)
        if pending_now:
            if _prod(shape) > _host_sync.SMALL:  # (what `_realize` does with it: no small host read)
                # `_realize_program`'s one-target read, its first steps inline (a call and its
                # list less, ~0.5 us of the 4b read in situ). (`user_site`: see `_realize_program`;
                # this function's one caller, `_host_alias.export`, is called by `Array.__array__`
                # alone: three frames ours.)
                site = user_site(3)
                metrics.count_sync(cause, site)
                candidates = pending.pending_beside(node, device)
                if not (state.recipes and _replay_one(node, device, pending.nodes_since_sync, site, candidates)):
                    _read_planned(node, device, site, candidates)
            else:
                _realize([node], device, cause)
        buf = node.buffer
        if buf is None and node.host is not None:
            return _host_leaf_view(node, device) if sole_user(node) else None
        if buf is None or device.platform != "cpu" or device.mesh is not None or not shape \
                or node.host is not None:
            return None
        pool = state.pool
        if (not pending_now and pool.is_pinned(buf)) or not sole_user(node):  # (a buffer made now is nobody's yet)
            return None
        npdt = node.dtype.np
        if len(shape) == 1:  # (one layout: the view is made from the address alone)
            # (a buffer this sync's program wrote has the node's dtype, the program's result type:
            # only an older one's is asked, through jax's Python-level `dtype`, ~0.3 us at a read)
            if not shape[0] or (not pending_now and buf.dtype != npdt):
                return None
            view = _runtime.vector_view(buf, shape[0], npdt)
        else:
            view = _runtime.host_view(buf, one_cpu_device=True)  # (checked above)
            if view is None or view.dtype != npdt or view.shape != shape:
                return None
        if view.nbytes >= pool.smallest_watched:  # (`pool.recyclable`, inline: kept out of reuse until the view's base dies)
            pool.lend(buf, view.base)
        elif _config.verify or _config.debug:
            # (no program can be handed its memory: only `is_lent` needs to know, which tests and
            # debugging read; a weak reference a read costs ~0.8 us of a ~16 us 4b read in situ)
            pool.show(buf, view.base)
        metrics.zero_copy_reads += 1
        return view
    finally:
        _lock.release()


# sys.getrefcount of a host leaf's numpy value inside `_host_leaf_view` when only the node holds
# it: the node's slot, the local name and getrefcount's argument (test_host_leaf_reads.py)
_HOST_VALUE_SOLE_REFS = 3


def _host_leaf_view(node, device):
    """A CPU host leaf's own value (a copy `asarray` took, or a value the interpreter computed)
    as the zero-copy read: a numpy view of it, where that value is memory nobody else can see: an
    array that owns its memory (no base), writable, held by nothing but the node (reference
    count: never a kept constant, an operand's value or another node's), and the node held by
    nothing but its array (`host_view` asks). Else None (the caller copies). The view is the node's value until
    `unshare` gives the node a copy; no device buffer is lent, so the pool is not involved."""
    host = node.host
    if type(host) is not np.ndarray or not host.flags.writeable \
            or device.platform != "cpu" or device.mesh is not None or not node.shape \
            or host.shape != node.shape or host.dtype != node.dtype.np or not host.size:
        return None
    if not _runtime.sole_value(host, _HOST_VALUE_SOLE_REFS):  # (owning its memory, or a private copy's)
        return None
    metrics.zero_copy_reads += 1
    return host.view()


def unshare(node, device, host):
    """`host` (a numpy array over the memory of node's buffer, `host_view`) stops being the
    node's value: the node gets a buffer of its own holding the memory's current value, so later
    writes into `host` never reach it. A host leaf's (`_host_leaf_view`) gets a host copy."""
    with _lock:
        if node.buffer is None:
            node.host = np.array(host, copy=True)
            return
        node.buffer = _runtime.put(host, device._pjrt)
        metrics.bytes_to_device += host.nbytes


def to_numpy(node, device, cause):
    """The node's value as a numpy array the caller owns."""
    _lock.acquire()  # (another thread's sync may move a host leaf to the device meanwhile)
    try:
        if node.op is not None:
            _realize([node], device, cause)
        if node.buffer is None:  # a host leaf never sent to the device
            return np.array(node.host, dtype=node.dtype.np, copy=True)
        out = _runtime.to_numpy(node.buffer)
        metrics.bytes_to_host += out.nbytes
        return out
    finally:
        _lock.release()
