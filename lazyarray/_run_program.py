"""Running one plan: verify it, find its program (or let the interpreter tier serve it), send
its inputs, execute, check, realize.

Inputs: a leaf's device buffer, or its host value sent once (`input_buffer`); a program's host
scalars go as one vector per dtype (`_graph.split_leaves`), and a loop's constants (the same
values every step) are sent once: `state.scalar_buffers` keeps their device copies, keyed by
bytes. Outputs may be written into the memory of dead arrays (`_pool`): those outputs are
donated, which needs the program's donating variant (`_program_cache.donating_variant`).

The commonest sync (one output, or a decomposition's few, its program run before, no mesh, no
checks, outputs too small for the pool) takes a short path (`_run_cached_one`): the replay's
parameters, the execute, the realize, nothing else; everything else takes `run`'s general path.

Failures: nothing is realized before the program ran and its checks passed; buffers taken from
the pool for a program that did not run go back to it.
"""
from __future__ import annotations

import contextlib
import math
import struct
import time

import numpy as np

from . import _blas_threads, _checks, _config, _dtypes, _runtime, _segment, _sharded_run, _tier_policy, _verify
from ._bounded import keep
from ._engine_state import state
from ._graph import Plan, StructuralKey, pending, recorded, scalar_leaves, split_leaves
from ._metrics import metrics
from ._program_cache import COMPILE_FAILED, compile_program, donating_variant, program_key
from ._sharding_rules import program_layout

_f64 = _dtypes.float64
_NOT_SEEN = object()
SCALAR_CACHE_SIZE = 4096
_prod = math.prod
_perf_counter = time.perf_counter


_handed = [None, None]  # (plan, its structural key for the outputs it runs with): `hand_key`


def hand_key(plan, skey):
    """The structural key of `plan` with the outputs the next `run` of it computes, made by the
    caller already (`_engine._loop_search`; never while checks are pending, which change the
    outputs): `run` takes it instead of making it again."""
    _handed[0], _handed[1] = plan, skey


def run(plan, outputs, device, site):
    """Compute `outputs` (the nodes of `plan` a later sync or the user needs) and realize them."""
    if _checks.pending:  # checked mode: the program also computes its pending checks (_checks)
        outputs = _checks.outputs_for(plan, outputs)
    if _config.verify or _config.debug >= 4:
        _verify.verify(plan.order, plan.leaves)
    skey = None
    if _handed[0] is not None:
        if _handed[0] is plan:
            skey = _handed[1]
        _handed[0] = _handed[1] = None
    if device.mesh is None and not _checks.pending:
        if skey is None:
            skey = plan.key(outputs)
        if _run_cached_one(plan, outputs, device, skey):
            return
    pool = state.pool
    recycled, donated = [], []
    layout = None if device.mesh is None else program_layout(device, plan.order, plan.leaves, outputs)
    if layout is None and (pool.held or pool.returned):  # (a mesh's buffers are not recycled)
        min_bytes = max(_config.pool_min_bytes, 1)
        for k, o in enumerate(outputs):
            # (an output under the pool's minimum never finds a buffer: none that small is kept)
            if _prod(o.shape) * o.dtype.bits >= 8 * min_bytes:
                buf = pool.take(device.id, o.shape, o.dtype)
                if buf is not None:
                    recycled.append(buf)
                    donated.append(k)
    donated = tuple(donated)
    try:
        if skey is None:
            skey = plan.key(outputs)
        if layout is not None:  # a program over a mesh: its layout is part of its key
            skey = (skey, layout.key)
        key = (device.id, device.platform, skey, donated)  # (`program_key`, inline: every sync)
        compiled = state.programs.get(key)
        if compiled is None and donated:
            # Donation never costs a compile the user waits for: run the plain program (or the
            # interpreter) with fresh outputs, and build the donating variant in the background
            # once the plain program exists (the graph is hot: reuse will pay).
            if program_key(device, skey) in state.programs:
                compiled = donating_variant(key, plan, outputs, device, site)
            if compiled is None:
                _give_back(recycled, donated, outputs, device)
                recycled, donated = [], ()
                key = program_key(device, skey)
                compiled = state.programs.get(key)
        if compiled is None and layout is None and _tier_policy.may_interpret(device, plan, outputs):
            # (on an accelerator only while the host-device copies cost less than a compile)
            if not donated and not _checks.pending:
                entry = state.sightings.get((device.id, skey))
                if entry is not None and entry.recipe is None and entry.runs >= RECIPE_AFTER_RUNS \
                        and entry.steps is not None and (len(outputs) == 1 or _multi_due(entry.runs, plan)):
                    # (the graph repeats: record how to match it; a matcher costs ~40 us an
                    # entry to make, and saves ~0.2 us an entry a read: only for repeated graphs)
                    entry.recipe = _recipe(plan, outputs, key, None, None, device, skey, entry)
            compiled = _tier_policy.serve(skey, plan, outputs, device, site, key)
            if compiled is _tier_policy.INTERPRETED:
                return
        if compiled is None:  # (a plain program: donating variants compile in the background)
            compiled = compile_program(key, plan.order, plan.leaves, outputs, device, site)
        else:
            metrics.cache_hits += 1
        replay = state.replays.get(key)
        if replay is None or replay.compiled is not compiled:
            replay = _replay(key, compiled, plan.leaves)
        inputs = replay.inputs(plan.leaves, device)
        if recycled:
            inputs += recycled
        t0 = time.perf_counter()
        if compiled.no_window and layout is None:  # (the common case: no LAPACK window to open)
            results = _runtime.execute(compiled.executable, inputs)
        else:
            window = _blas_threads.program_call(key, plan.order)  # LAPACK's thread count: the host tier's
            if compiled.no_window is None:
                compiled.no_window = type(window) is contextlib.nullcontext
            with window:
                if layout is None:
                    results = _runtime.execute(compiled.executable, inputs)
                else:
                    inputs = _sharded_run.check_inputs(inputs, plan.leaves, layout)
                    results = _sharded_run.execute(compiled.executable, inputs, outputs, layout)
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
        if layout is None:
            pool.watch(node, device.id)
    if _tier_policy.on_trial is not None:  # (TIERCOST's hook: a new program's timed trial run)
        _tier_policy.end_trial(compiled)


def _run_cached_one(plan, outputs, device, skey):
    """The commonest sync of a program, in short: its outputs (one, or several: a decomposition's
    factors) on one device, its program compiled and run before (its `Replay` kept), no LAPACK
    thread window, and outputs too small for the buffer pool (`_config.pool_min_bytes`: no dead
    buffer is taken for them, and their own are not watched). Only what applies to it runs: the
    parameters from the replay's recipe, the execute, the counters, the realize. Returns False,
    having done nothing, where any of that does not hold (`run`'s general path then takes the
    sync). Checked mode and a mesh never come here; the graph verifier has run (`run` does both
    first)."""
    key = (device.id, device.platform, skey, ())  # (`program_key`, inline)
    compiled = state.programs.get(key)
    if compiled is None or compiled.no_window is not True:
        return False  # (first: an interpreted graph's sync leaves here at once)
    limit = 8 * max(_config.pool_min_bytes, 1)
    for node in outputs:
        if _prod(node.shape) * node.dtype.bits >= limit:
            return False  # (the general path may recycle a dead buffer for it, and watches its own)
    replay = state.replays.get(key)
    if replay is None or replay.compiled is not compiled:
        return False
    if replay.recipe is None:  # (its second cached run: the graph repeats, record how to match it)
        if len(outputs) == 1:
            replay.recipe = _recipe(plan, outputs, key, compiled, replay, device)
        else:
            replay.runs += 1
            if _multi_due(replay.runs, plan):
                replay.recipe = _recipe(plan, outputs, key, compiled, replay, device)
    results = _execute_short(compiled, replay.inputs(plan.leaves, device))
    if len(outputs) == 1:
        outputs[0].realize(results[0])
    else:
        for node, buf in zip(outputs, results):
            node.realize(buf)
    return True


def _execute_short(compiled, inputs):
    """Run a cached program (a short sync: a cache hit), counted; its output buffers, which the
    caller realizes. (`replay_one`'s one-output read writes these steps inline.)"""
    metrics.cache_hits += 1
    t0 = _perf_counter()
    results = _runtime.execute(compiled.executable, inputs)
    metrics.execute_seconds += _perf_counter() - t0
    metrics.executions += 1
    metrics.short_syncs += 1
    return results


# A recipe: the short path of a repeated read without the plan walk and key lookup (a read whose
# target shares work with other live pending arrays, a decomposition's factors, included: below).
# `_run_cached_one` needs the graph's structural key to find its program, and the key needs the
# plan's walk over the graph (`Plan`, `Plan.key`: ~3 us of a ~20 us read of a 3-node graph). A
# graph read again is, nearly always, one recorded by the same user code: the same structure. So
# at a program's second short run its plan is turned into a matcher: Python code, generated for
# that one structure, that walks a candidate graph in the plan's order, checks every node's
# fields the signature holds (op, attributes, shape, dtype, operand positions; a leaf's shape,
# dtype and whether it is packed), that each operand the plan reached twice is the same object
# and each it reached once is a new one (no two positions hold one node), and returns the leaves (the program's parameters, in
# the plan's order) and the computed nodes. A graph it accepts has the plan's signature, so the
# plan's key: the program and replay found under that key serve it, as `_run_cached_one` would.
# Any difference returns None and the sync takes the usual path. A read whose plan had several
# outputs (the target, then the live pending arrays sharing its work: `_engine`) keeps two
# matchers: the target's graph's, whose computed nodes then find those arrays among the read's
# candidates (`overlapping`, as `_engine` finds them), and the whole graph's, of them all. `state.recipes` holds them by
# the output's (op, shape); each is checked against `state.programs` and `state.replays` at use
# (a program dropped or replaced is never run through a stale recipe).
RECIPE_MAX_ENTRIES = 64  # signature entries (nodes and leaves) a recipe is made for at most
RECIPE_AFTER_RUNS = 8    # interpreted runs of a graph before its recipe is made
# A recipe of several outputs compiles two matchers (~45 us an entry in all, thread CPU; an svd's
# 3 entries ~0.5 ms) and saves ~0.5 us an entry and ~4 us a read (the walk, the key, the general
# path's steps): it is made once the runs so far would have paid for it (ski rental), at
# MULTI_RECIPE_COST * entries / (entries + MULTI_RECIPE_FIXED) runs (an svd's ~25, 40 entries' ~75).
# (Single outputs keep RECIPE_AFTER_RUNS: reads of one output that repeat are a loop's, as a rule.)
MULTI_RECIPE_COST = 90
MULTI_RECIPE_FIXED = 8


def _multi_due(runs, plan):
    """Whether a sync of several outputs of `plan` that ran `runs` times is due for its recipe."""
    n = len(plan.sig)
    return n <= RECIPE_MAX_ENTRIES and runs * (n + MULTI_RECIPE_FIXED) >= MULTI_RECIPE_COST * n
RECIPES_PER_ROOT = 8     # recipes kept per output (op, shape): the newest first


class Recipe:
    """A matcher and what it finds: a program and its replay (`compiled`, `replay`), or, for a
    graph the interpreter serves (`compiled` None), its sighting (`entry`, under `tkey`), its
    structural key and the plan's signature (the interpreter's steps read it at their build)."""
    __slots__ = ("key", "hkey", "compiled", "replay", "device", "match", "bits", "skey", "entry", "tkey", "sig",
                 "extra", "match_all")

    def __init__(self, key, compiled, replay, device, match, bits, skey=None, entry=None, sig=None,
                 extra=0, match_all=None):
        self.key, self.compiled, self.replay, self.device = key, compiled, replay, device
        # (the same key, hashed once: each read looks it up in `state.programs` and `state.replays`,
        # and a tuple hashes its items again at every lookup, the structural key's Python __hash__ too)
        self.hkey = StructuralKey(key)
        self.match, self.bits = match, bits
        # a sync of several outputs: `match` matches the first output's graph (the read's target),
        # `extra` is the count of the others (the pending arrays sharing work with it, found as
        # `_engine` finds them) and `match_all(target, *others)` matches the whole graph
        self.extra, self.match_all = extra, match_all
        self.skey, self.entry, self.sig = skey, entry, sig
        self.tkey = None if skey is None else (device.id, skey)


class _Walked:
    """What `_tier_policy.serve` and the interpreter read of a `Plan`, for a graph a recipe
    matched: its computed nodes and leaves (this graph's), the signature (the recipe's: equal
    by the match) and the interpreter's steps (`steps`, set by `serve`)."""
    __slots__ = ("order", "leaves", "sig", "steps")

    def __init__(self, order, leaves, sig):
        self.order, self.leaves, self.sig, self.steps = order, leaves, sig, None


def _recipe(plan, outputs, key, compiled, replay, device, skey=None, entry=None):
    """The `Recipe` of a plan whose outputs are `outputs` (pending still; a read's target first,
    then the pending arrays that share work with it, as `_engine._realize_program` adds them),
    installed in `state.recipes` under the first output; False where none is made (a large graph,
    a structure the matchers would not reproduce exactly: they are checked against the plan
    before it is kept)."""
    sig = plan.sig
    node = outputs[0]
    index = plan.index
    at = index.get(node)
    if len(sig) > RECIPE_MAX_ENTRIES or at is None or (len(outputs) == 1 and at != len(sig) - 1):
        return False
    try:
        if len(outputs) == 1:
            match = match_all = _matcher(sig)
            found = found_all = match(node)
        else:  # (the plan walked the first output first: its graph is the signature's start)
            match = _matcher(sig[:at + 1])
            match_all = _matcher(sig, [index[o] for o in outputs])
            found, found_all = match(node), match_all(*outputs)
    except Exception:  # (an attribute without a usable repr or equality: no recipe)
        return False
    if found is None or found_all is None or not _same(found_all, plan.leaves, plan.order) \
            or not _same(found, [n for n in plan.leaves if index[n] <= at], [n for n in plan.order if index[n] <= at]):
        return False
    bits = max(_prod(o.shape) * o.dtype.bits for o in outputs)
    recipe = Recipe(key, compiled, replay, device, match, bits, skey, entry, None if entry is None else list(sig),
                    len(outputs) - 1, match_all)
    recipes = state.recipes
    fp = (node.op, node.shape)
    kept = recipes.get(fp)
    if kept is None:
        keep(recipes, fp, [recipe], max(_config.cache_size, 1), oldest=True)
    else:
        kept.insert(0, recipe)
        del kept[RECIPES_PER_ROOT:]
    return recipe


def _same(found, leaves, order):
    """Whether a matcher's (leaves, computed nodes) are `leaves` and `order`, node for node."""
    return len(found[0]) == len(leaves) and len(found[1]) == len(order) \
        and all(a is b for a, b in zip(found[0], leaves)) and all(a is b for a, b in zip(found[1], order))


def _matcher(sig, roots=None):
    """Generate the matcher of a plan's signature `sig` (its output last): a function of a node
    that returns (leaves, computed nodes), in the plan's order, for a graph with this signature,
    else None. `roots`: the positions of a plan's several outputs, in the order the plan walked
    them (a matcher of as many nodes, walked in that order; an output its predecessors reached
    must be the node at its position)."""
    consts = {}

    def const(value):
        name = f"k{len(consts)}"
        consts[name] = value
        return name

    lines = []
    done = []     # positions reached so far, in the walk's order

    def emit(p):
        entry = sig[p]
        v = f"n{p}"
        pad = " " * 4
        if len(entry) == 3:  # a leaf: (shape, dtype, packed)
            shape, dtype, packed = entry
            lines.append(f"{pad}if {v}.op is not None or {v}.dtype is not {const(dtype)} or {v}.shape != {const(shape)}: return None")
            if not shape:
                test = f"({v}.buffer is None and not {v}.computed)"
                lines.append(f"{pad}if {'not ' if packed else ''}{test}: return None")
        else:
            op, attrs, shape, dtype, positions = entry
            lines.append(f"{pad}if {v}.op is not {const(op)} or {v}.dtype is not {const(dtype)} or {v}.shape != {const(shape)}"
                         f" or {v}.attrs != {const(attrs)}: return None")
        if len(entry) == 5:
            positions = entry[4]
            lines.append(f"{pad}a{p} = {v}.args")
            lines.append(f"{pad}if len(a{p}) != {len(positions)}: return None")
            reached = set(done)
            for j, i in enumerate(positions):
                if i in reached:
                    lines.append(f"{pad}if a{p}[{j}] is not n{i}: return None")
                else:
                    lines.append(f"{pad}n{i} = a{p}[{j}]")
                    emit(i)
                    reached = set(done)
        done.append(p)

    if roots is None:
        roots = (len(sig) - 1,)
    params = [f"n{roots[0]}"]  # (the first output names its position: no assignment)
    emit(roots[0])
    for j, root in enumerate(roots[1:], 1):
        params.append(f"r{j}")
        if root in done:
            lines.append(f"    if r{j} is not n{root}: return None")
        else:
            lines.append(f"    n{root} = r{j}")
            emit(root)
    if sorted(done) != list(range(len(sig))):
        raise ValueError("signature not reached in one walk")
    leaves = [p for p in range(len(sig)) if len(sig[p]) == 3]
    order = [p for p in range(len(sig)) if len(sig[p]) == 5]
    # each position a node of its own (a node the plan reached twice has one position); positions
    # whose ops, dtypes (both compared by identity) or shapes differ cannot hold one node: only
    # those alike are compared with each other
    alike = {}
    for p, entry in enumerate(sig):
        group = (None, id(entry[1]), entry[0]) if len(entry) == 3 else (id(entry[0]), id(entry[3]), entry[2])
        alike.setdefault(group, []).append(p)
    for group in alike.values():
        if len(group) == 2:
            lines.append(f"    if n{group[0]} is n{group[1]}: return None")
        elif len(group) > 2:
            lines.append(f"    if len({{{', '.join(f'n{p}' for p in group)}}}) != {len(group)}: return None")
    body = "\n".join(lines)
    text = (f"def match({', '.join(params)}):\n{body}\n"
            f"    return [{', '.join(f'n{p}' for p in leaves)}], ({''.join(f'n{p}, ' for p in order)})\n")
    namespace = dict(consts)
    code = _matcher_codes.get(text)
    if code is None:  # (the text names the signature's values, kept in `consts`: equal texts, one code)
        code = keep(_matcher_codes, text, compile(text, "<lazyarray recipe>", "exec"), MATCHER_CODES_KEPT,
                    oldest=True)
    exec(code, namespace)
    return namespace["match"]


# A matcher's text -> its compiled code (`_matcher`): compile() is most of a matcher's cost (~30 us
# an entry), and graphs of one wiring with other ops, shapes or dtypes (a float32 run of a
# float64 workload) generate the same text; the oldest dropped past MATCHER_CODES_KEPT
_matcher_codes = {}
MATCHER_CODES_KEPT = 128


def replay_one(node, device, traced, site, candidates):
    """Compute the pending `node`, the one output of a sync, through a recipe whose matcher
    accepts its graph, when none of `candidates` (the other live pending nodes of its component)
    shares work with it (`_overlapping`), that recipe's program and replay are still the cached
    ones (or, for an interpreted graph, its sighting is, with no program and no finished compile
    to install), and the usual path would have taken the same way (no checks pending, an output
    too small for the pool, no loop worth looking for in `traced` + the graph's nodes:
    `_segment.worth_trying`). Starts the sync as a `Plan` would (`_graph.scalar_leaves` emptied,
    the traced nodes counted), verifies when asked, runs (or has `_tier_policy.serve` interpret),
    counts, realizes; returns True. Returns False, having done nothing, otherwise."""
    kept = state.recipes.get((node.op, node.shape))
    if kept is None:
        return False
    extra = None  # (the candidates sharing work with the target's graph: found once, when needed)
    for recipe in kept:
        found = recipe.match(node)
        if found is None:
            continue
        if not candidates:  # (nothing pending beside it: a recipe of one output serves, straight)
            if recipe.extra:
                continue
            outputs = None
            break
        if extra is None:
            extra = _unique_nodes(overlapping(set(found[1]), candidates))
        if len(extra) != recipe.extra:
            continue
        if not extra:
            outputs = None
            break
        outputs = [node, *extra]  # (the outputs `_engine._realize_program` would give the plan)
        found = recipe.match_all(*outputs)
        if found is not None:
            break
    else:
        return False
    compiled = recipe.compiled
    leaves, order = found
    if recipe.device is not device or _checks.pending:
        return False
    if compiled is not None:
        replay = recipe.replay
        hkey = recipe.hkey
        bits = recipe.bits  # (`8 * max(_config.pool_min_bytes, 1) <= bits`, without the call)
        if state.programs.get(hkey) is not compiled or state.replays.get(hkey) is not replay \
                or compiled.no_window is not True or (bits >= 8 * _config.pool_min_bytes and bits >= 8):
            return False
    else:
        key = recipe.key
        entry = recipe.entry
        future = entry.future
        if state.sightings.get(recipe.tkey) is not entry or entry.steps is None or not _config.interpret_first \
                or device.platform not in _tier_policy.HOST_PLATFORMS or key in state.programs \
                or (future is not None and future is not COMPILE_FAILED and future.done()):
            return False
    if _segment.worth_trying(len(order) if len(order) > traced else traced) \
            and state.loop_free.get(recipe.skey, _NOT_SEEN) is not state.last_chunk:
        return False  # (the usual path would look for a loop in it: `_engine._loop_search`)
    if scalar_leaves:  # (the sync starts as a `Plan` starts it)
        scalar_leaves.clear()
    if recorded:
        recorded.clear()
    metrics.nodes_traced += traced
    pending.nodes_since_sync = 0
    if _config.verify or _config.debug >= 4:
        _verify.verify(order, leaves)
    if compiled is None:
        if outputs is None:
            outputs = [node]
        done = _tier_policy.serve(recipe.skey, _Walked(order, leaves, recipe.sig), outputs, device, site, key)
        if done is not _tier_policy.INTERPRETED:  # (a compile finished meanwhile: run it as usual)
            run(Plan(outputs), outputs, device, site)
        return True
    if outputs is None:  # (`_execute_short`, inline: the commonest repeated read, ~0.3 us a call in situ)
        metrics.cache_hits += 1
        t0 = _perf_counter()
        results = _runtime.execute(compiled.executable, replay.inputs(leaves, device))
        metrics.execute_seconds += _perf_counter() - t0
        metrics.executions += 1
        metrics.short_syncs += 1
        node.realize(results[0])
        return True
    for node, buf in zip(outputs, _execute_short(compiled, replay.inputs(leaves, device))):
        node.realize(buf)
    return True


def _unique_nodes(nodes):
    """`nodes` without repeats, in first-seen order (a handle met twice: `_engine._unique`)."""
    return nodes if len(nodes) < 2 else list(dict.fromkeys(nodes))


def overlapping(in_target, candidates):
    """Candidates whose pending graph shares a computed node with the targets' graph (`in_target`:
    holds each of its computed nodes, the plan's `index` or a set; only computed nodes are looked
    up). Computing them now (they would need the same work later) keeps a loop's graphs from
    growing. (Nodes hash by identity: the sets hold the nodes themselves, no id ints; a
    candidate's walk that finds no shared node leaves every node it reached known disjoint.)"""
    if not candidates:
        return []
    known_disjoint = set()
    found = []
    for cand in candidates:
        if cand in in_target:  # computed anyway: output it for free
            found.append(cand)
            continue
        stack, seen, hit = [cand], {cand}, False
        while stack:
            for a in stack.pop().args:
                if a.op is None or a in seen or a in known_disjoint:
                    continue
                if a in in_target:
                    hit = True
                    break
                seen.add(a)
                stack.append(a)
            if hit:
                break
        if hit:
            found.append(cand)
        else:
            known_disjoint |= seen
    return found


class Replay:
    """What running one program again needs that its leaves' values do not change, found at its
    first run: which leaves are parameters of their own and which host scalars are packed into
    one vector per dtype (`split_leaves`: a function of the structural key). Kept per program
    key in `state.replays`, beside the program it was made for (`compiled`).

    `last`: the packed host scalars of the last run and their device vectors, kept when every
    one is an immutable Python number. A run whose scalars are the same objects (a function's
    constants: the `2.0` of `a * 2.0 + 1.0`, the same object at every call) sends the same
    vectors without packing and looking them up again (`packed_buffer`, ~2-3 us a read)."""
    __slots__ = ("compiled", "own", "packed", "packed_at", "last", "recipe", "runs")

    def __init__(self, compiled, leaves):
        self.compiled = compiled
        index = {id(leaf): i for i, leaf in enumerate(leaves)}
        buffers, packed = split_leaves(leaves)
        self.own = tuple(index[id(leaf)] for leaf in buffers)
        self.packed = tuple((dtype, tuple(index[id(leaf)] for leaf in group)) for dtype, group in packed.items())
        self.packed_at = tuple(i for _, group in self.packed for i in group)  # (every group's, in order)
        self.last = None
        self.recipe = None  # its `Recipe` (False: none can be made), made at its second short run
        self.runs = 0  # short runs of several outputs before its recipe (`_multi_due`)

    def inputs(self, leaves, device):
        """The program's parameters (as `_inputs` gives them) for this run's `leaves`."""
        inputs = []
        for i in self.own:
            leaf = leaves[i]
            buf = leaf.buffer
            inputs.append(buf if buf is not None else input_buffer(leaf, device))
        if self.packed:
            last = self.last
            if last is not None:
                for i, value in last[0]:
                    if leaves[i].host is not value:
                        break
                else:  # the same objects as last time: the same bytes, the same vectors
                    inputs += last[1]
                    return inputs
            values = [leaves[i].host for i in self.packed_at]
            vectors, at = [], 0
            for dtype, group in self.packed:
                vectors.append(packed_buffer(values[at:at + len(group)], dtype, device))
                at += len(group)
            for v in values:
                if type(v) not in _IMMUTABLE_SCALARS:  # (a 0-D numpy array may change in place)
                    self.last = None
                    break
            else:  # ((leaf position, value) pairs: the check above builds no list)
                self.last = (tuple(zip(self.packed_at, values)), vectors)
            inputs += vectors
        return inputs


# host scalar types whose value cannot change while an object of them lives (identity => bytes)
_IMMUTABLE_SCALARS = frozenset((float, int, bool, complex))


def _replay(key, compiled, leaves):
    return keep(state.replays, key, Replay(compiled, leaves), max(_config.cache_size, 1),  # (as many
                oldest=True)                                                             # as the programs kept)


def _inputs(leaves, device):
    """The program's parameters: one buffer per device leaf, then one vector per scalar dtype."""
    buffers, packed = split_leaves(leaves)
    inputs = [leaf.buffer if leaf.buffer is not None else input_buffer(leaf, device) for leaf in buffers]
    for dtype, group in packed.items():
        inputs.append(packed_buffer([leaf.host for leaf in group], dtype, device))
    return inputs


def _give_back(recycled, donated, outputs, device):
    for k, buf in zip(donated, recycled):
        state.pool.give_back(buf, device.id, outputs[k].shape, outputs[k].dtype)


# dtypes whose host scalars are keyed without a numpy round trip: dtype -> (numpy's dtype.str,
# struct code). struct packs exactly the bytes numpy would (little-endian, same width) for the
# values it accepts, and refuses (struct.error, OverflowError, TypeError) the ones numpy would
# convert otherwise (an int out of range, a float for an integer dtype): those take numpy's path.
# float32 packs a double rounded once to float32, as numpy's cast does; values a double may not
# hold exactly (ints past 2**53), NaNs (their payloads), infinities and numpy scalars take numpy's
# path (`_f32_exact`). (A float32 loop's Python scalars: 1.0, n, lr, ... every program call.)
_f32 = _dtypes.float32
_STRUCT_CODES = {_f64: ("<f8", "d"), _f32: ("<f4", "f"), _dtypes.int64: ("<i8", "q"), _dtypes.int32: ("<i4", "i")}
_F32_EXACT = float(2 ** 53)


def _f32_exact(values):
    """Whether struct's float32 packing of `values` is numpy's: Python floats and ints a double
    holds exactly (numpy scalars, NaNs and infinities take numpy's path)."""
    for v in values:
        kind = type(v)
        if (kind is not float and kind is not int) or not -_F32_EXACT <= v <= _F32_EXACT:
            return False
    return True


def packed_buffer(values, dtype, device):
    """The device vector of a program's host scalars of one dtype (graph.split_leaves)."""
    codes = _STRUCT_CODES.get(dtype)
    if codes is not None:  # the common cases (float scalars, index starts)
        n = len(values)
        packer = _packers.get((n, codes[1]))
        if packer is None:
            packer = keep(_packers, (n, codes[1]), struct.Struct(f"<{n}{codes[1]}").pack, 1024, oldest=True)
        try:
            if dtype is _f32 and not _f32_exact(values):
                raise OverflowError  # (see _STRUCT_CODES)
            data = packer(*values)
        except (struct.error, OverflowError, TypeError):
            data = None
        if data is not None:
            buf = state.scalar_buffers.get((device.id, codes[0], (n,), data))
            if buf is not None:
                return buf
    return host_buffer(np.array(values, dtype=dtype.np), device)


_packers = {}  # (count, struct code) -> the compiled Struct's pack: parsing the format each call costs ~0.3 us


def host_buffer(vec, device):
    """The device copy of a small host array; a loop's constants (the same values every step)
    are sent once. Keyed by bytes, so -0.0 and 0.0 (equal as floats) and NaNs (unequal to
    themselves) are told apart correctly."""
    scalar_buffers = state.scalar_buffers
    skey = (device.id, vec.dtype.str, vec.shape, vec.tobytes())  # a 0-D value and a 1-vector share bytes
    buf = scalar_buffers.get(skey)
    if buf is None:
        buf = keep(scalar_buffers, skey, _runtime.put(vec, device._pjrt), SCALAR_CACHE_SIZE, oldest=True)
        metrics.bytes_to_device += vec.nbytes
    return buf


def exported_buffer(leaf, device):
    """A leaf's device buffer to hand to a consumer outside lazyarray (dlpack, jax): as
    `input_buffer`, except that a 0-D host value gets a buffer of its own, never the one
    `host_buffer` shares between every small value of the same bytes (a consumer that writes
    through its view, torch's in-place ops on a dlpack tensor, must not change them all)."""
    return input_buffer(leaf, device, own=True)


# sys.getrefcount of a leaf's host value inside `input_buffer` when only the leaf holds it: the
# leaf's slot, the local name and getrefcount's argument
_LEAF_VALUE_REFS = 3


def input_buffer(leaf, device, own=False):
    """A leaf's device buffer; a host leaf (a scalar, or a value the interpreter computed) is sent
    once (a 0-D one through `host_buffer`'s cache, and it stays a host leaf, unless `own`)."""
    if leaf.buffer is None:
        value = np.asarray(leaf.host, dtype=leaf.dtype.np)
        if not leaf.shape and not own:  # (shared by every 0-D input of these bytes: never the leaf's own)
            return host_buffer(value, device)
        if value is leaf.host and _runtime.sole_value(value, _LEAF_VALUE_REFS):
            leaf.buffer = _runtime.put_private(value, device._pjrt)  # (its memory becomes the buffer)
        else:
            leaf.buffer = _runtime.put(value, device._pjrt)
        metrics.bytes_to_device += value.nbytes
        leaf.host = None
    return leaf.buffer
