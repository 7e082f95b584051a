"""Loop segmentation: computing a long pending graph one iteration at a time.

A Python loop that never reads its values unrolls into one pending graph: 100 steps of logistic
regression are ~1200 nodes, and compiling them as one program costs seconds (and a different
program for every iteration count). In creation order the nodes of such a graph repeat with a
period: one iteration's ops (compared by op, attributes, type and arity: `_describe`). `chunks`
finds the longest periodic run that ends at the newest node and splits the graph into chunks of
whole periods (one iteration each, or a few when an iteration has under 8 nodes; loops of one or
two ops stay whole). The first chunk compiles; every later chunk is the same graph applied to the
previous chunk's outputs, so it is a cache hit. The price is the fusion across iterations, which
for whole loop steps is small next to a compile per unrolled length.

Correctness never depends on the period found: every chunk is keyed and compiled like any other
graph, so a wrong guess costs a compile, never a wrong value.

Loop invariants: a chunk takes every value from outside it as a parameter, so work that depends
only on such values would be redone by every chunk. The one that costs is reading a large matrix
`M` the loop never changes across its leading axis: `M.T @ v` (gradient descent's `X.T @ r`)
contracts axis 0 of a row-major M, a strided read that XLA's CPU matrix-vector product does ~1.7x
slower than a contiguous one (0.24 vs 0.14 ms a step for 50000x32 float32). `_hoist_transposes`
computes `transpose(M)` once, before the chunks, and the chunks' dots read it along its rows
instead (jax.jit of the whole loop does the same: XLA hoists the transpose out of the unrolled
steps). The copy is kept beside M while M lives (`_transposed`), so later runs of the loop reuse it.
"""
from __future__ import annotations

import operator
import weakref
from itertools import chain as _chain, count as _count, islice as _islice, repeat as _forever
from sys import getrefcount as _refcount

import numpy as np

from . import _checks, _dtypes
from ._bounded import keep
from ._complex_math import nodes_in
from ._engine_state import state  # the last loop chunk found and how many of its chunks ran
from ._graph import StructuralKey, computed_nodes, leaf_from_host, pending, recorded as _recorded, scalar_leaves
from ._ops.dot import DOT_GENERAL
from ._ops.loop import REPEAT, STACK, template
from ._ops.shape import transpose

MIN_NODES = 48    # smaller graphs compile as one program
MIN_REPEATS = 3   # a run counts as periodic once it repeats at least this often
MIN_PERIOD = 3    # shorter periods are not split (see chunks)
MIN_CHUNK = 32    # nodes per chunk when the period is under MIN_CHUNK / 4: several periods a chunk
MAX_SKIP = 8      # newest nodes that may fall outside the periodic run (a cut lands mid-expression:
                  # the handle being created when the budget ran out is an output of the cut)


HOT_CHUNKS = 256    # after this many chunks a loop is hot (more than a cold run of 100 steps) ...
FUSE = 8            # ... and its chunks cover this many iterations

HOIST_MIN_ELEMENTS = 1 << 16   # smaller invariant matrices: the strided read costs little
HOIST_AFTER = 8                # dots reading a matrix in one sync before copying it pays
HOIST_MAX_BYTES = 1 << 30      # transposed copies kept at once, in bytes (past it: no new ones)


_serial = operator.attrgetter("serial")  # (C-level: the sort runs over every node of a loop)


def _describe(node):
    """What must match for two nodes to be the same step of a loop: op, attributes, type and
    operand count. Where the operands come from is left out on purpose: a chunk's program takes
    every value from outside the chunk as a parameter, so the first iteration (reading the loop's
    input leaves) and the later ones (reading the previous chunk's outputs) are the same program,
    and a loop's reference to a value computed before it is farther back every iteration."""
    return (node.op, node.attrs, node.shape, node.dtype, len(node.args))


def _descriptions(nodes):
    """`_describe` of each node (inline: this runs over every node of a loop at every sync)."""
    return [(n.op, n.attrs, n.shape, n.dtype, len(n.args)) for n in nodes]


def _codes(descs):
    """One small int per description, equal for equal descriptions."""
    table = {}
    return [table.setdefault(d, len(table)) for d in descs]


def _periodic_suffix(seq):
    """(period, length) of the longest suffix of `seq` that repeats its smallest period at least
    MIN_REPEATS times, or None. Prefix function of the reversed sequence: for its prefix of length
    m, m - pi[m - 1] is the smallest period."""
    r = seq[::-1]
    n = len(r)
    pi = [0] * n
    k = 0
    for i in range(1, n):
        c = r[i]
        while k and c != r[k]:
            k = pi[k - 1]
        if c == r[k]:
            k += 1
        pi[i] = k
    for m in range(n, 0, -1):
        p = m - pi[m - 1]
        if p * MIN_REPEATS <= m:
            return p, m
    return None


def _may_repeat(seq, q):
    """Whether `seq[:q + 1]` may end in a run that repeats a period p at least MIN_REPEATS times
    (`_periodic_suffix`): such a run holds seq[q] == seq[q - p] == seq[q - 2p] ... and
    MIN_REPEATS * p <= q + 1. False rules a run out for every p (a graph with no loop, most
    searched graphs: each search is a Python loop over its nodes, and up to MAX_SKIP + 1 are
    made); the candidates j = q - p are found by C-level list searches for seq[q]'s value."""
    v, index = seq[q], seq.index
    j = q - (q + 1) // MIN_REPEATS
    while True:
        try:
            j = index(v, j, q)
        except ValueError:
            return False
        p, k = q - j, 2
        while k < MIN_REPEATS and seq[q - k * p] == v:
            k += 1
        if k == MIN_REPEATS:
            return True
        j += 1


_last_search = [None, None, 0]  # the last graph's descriptions, and its period and skip found


def _period_of(descs):
    """((period, length), skip) of the periodic run of `descs` that ends at most MAX_SKIP nodes
    before the newest (a cut lands mid-expression: the newest nodes may be a half-built one), or
    (None, MAX_SKIP). A loop's graph at every sync is the same sequence: the last answer is kept
    for it (comparing the descriptions costs a tenth of coding them and searching again). Only
    the ends a run may have (`_may_repeat`: a graph with no loop has few) are searched."""
    if descs == _last_search[0]:
        return _last_search[1], _last_search[2]
    seq = _codes(descs)
    n, found, skip = len(seq), None, MAX_SKIP
    for end in range(min(MAX_SKIP + 1, n)):
        if _may_repeat(seq, n - 1 - end):
            found = _periodic_suffix(seq[:n - end])
            if found is not None:
                skip = end
                break
    _last_search[:] = descs, found, skip
    return found, skip


def _weight(nodes):
    """Nodes counted as what they compile to (`_complex_math.nodes_in`: a complex function on a
    small array is one node standing for its formula's tens). SCIPY hook."""
    return sum(map(nodes_in, nodes))


def worth_trying(n_nodes):
    """Whether a read of a graph of n_nodes computed nodes should look for a loop in it."""
    last = state.last_chunk
    return n_nodes >= MIN_NODES or (last is not None and n_nodes >= len(last))


def chunks(outputs, order, keep_tail, repeat=True, traced=None):
    """Split the graph behind `outputs` (`order`: its computed nodes, any order) into pieces to
    compute in order, or None if it is small or not periodic. Returns (pieces, tail_size): each
    piece is the list of its nodes that later pieces or `outputs` need. With `keep_tail` (a budget
    cut) the trailing nodes after the last chunk that looks like the first stay pending
    (tail_size of them); otherwise the caller computes whatever the pieces left with `outputs`.

    `order` None (the engine's budget cut, and its read at a site that split a loop): the sync
    starts here. The nodes recorded since the last sync (`_graph.recorded`, creation order) are
    tried first as a loop's next call (`_replay_call`): its key holds which operands come from
    outside and which nodes are outputs, so it equals a recorded key only when they are exactly
    the graph's computed nodes (all pending, each read by an output); otherwise the graph is
    walked (`computed_nodes`) and sorted, as for a given `order`, and at a read (`traced`: the
    nodes traced since the last sync) split only where `worth_trying`. A cut's pending tail
    starts the recorded nodes again once its pieces ran (`restore_tail`)."""
    last = state.last_chunk  # descriptions of the nodes of the last loop chunk found
    if last is None:
        _recipes.clear()  # (a reset engine: nothing recorded before it is replayed)
    if order is None:
        nodes = _recorded[:]
        _recorded.clear()
        if scalar_leaves:  # (the sync starts, as `computed_nodes` starts it)
            scalar_leaves.clear()
        # the recorded nodes as they are, then only those held (`_held`): a key's proof
        # (`_known_key`) shows its list is a whole graph (every operand a node of the list or a
        # leaf), so one dead node in it fails it, and a list that passes needs no filtering
        done, memo, _ = _replay_call(nodes, outputs, keep_tail, repeat, last, "known")
        if done is None and memo is None:
            n = len(nodes)
            nodes = _held(nodes)
            done = _replay_call(nodes, outputs, keep_tail, repeat, last, "made" if len(nodes) == n else None)[0]
        if done is None:
            nodes = computed_nodes(outputs)
            n = len(nodes)
            if traced is not None and not worth_trying(n if n > traced else traced):
                return None
            nodes.sort(key=_serial)
            done = _chunks(nodes, outputs, keep_tail, repeat, last)
        _tail[:] = nodes[len(nodes) - done[1]:] if done is not None and keep_tail and done[1] else ()
        return done
    return _chunks(sorted(order, key=_serial), outputs, keep_tail, repeat, last)


def _held(nodes):
    """The nodes of the list `nodes` some other object holds: one no node reads and no handle
    holds is not the graph's (`.T` before `@` makes one an iteration: `@` reads the matrix)."""
    return [n for n in nodes if _refcount(n) > _ALONE]


def _alone():
    """`_held`'s count of an object only its list holds (the list, the loop's name, the call's
    argument), measured as `_held` counts (a comprehension in a function)."""
    return [_refcount(n) for n in [object()]][0]


_ALONE = _alone()


_tail = []  # the pending tail of the last budget cut chunked (`chunks`), until `restore_tail`


def restore_tail():
    """After a budget cut's pieces ran: its pending tail is what the recorded nodes start with
    (`_graph.recorded`, emptied by the pieces' plans), the nodes traced next follow it."""
    _recorded[:] = _tail
    _tail.clear()


def _replay_call(nodes, outputs, keep_tail, repeat, last, proof=None):
    """(pieces and tail size, or None; the graph's key (`_memo_key`) or None; its descriptions or
    None): a loop's next call, `nodes` (its computed nodes, creation order) made like an earlier
    graph under the same last chunk, split as that one was (`_memo_key`, `_replay`), without
    deciding again (the decision reads the descriptions and the last chunk alone: one compare of
    each). (Only where a recipe of as many nodes is kept: other graphs make their key if they
    split.) The key is first checked against the last one found (`_known_key`: no dict of
    positions), and made (`_memo_key`) only where that check fails. `proof` "known": only the
    check (None, None, None when it fails: `nodes` may hold nodes outside the graph); "made":
    the key is made at once (the check failed on this list already)."""
    n = len(nodes)
    if not (repeat and last is not None and (n >= len(last) or n >= MIN_NODES) and not _checks.pending
            and any(key[1] == n for key in _recipes)):
        return None, None, None
    params = (keep_tail,)
    memo, kept = _known_key(nodes, outputs, params) if proof != "made" else (None, None)
    found = _recipes.get(memo[0]) if memo is not None else None
    descs = _descriptions(nodes) if found is not None and found[0] is kept else None
    alike = descs is not None and kept == descs
    if not alike:  # (`_known_key`'s proof is not whole: the key is made)
        if proof == "known":
            return None, None, None
        memo = _memo_key(nodes, outputs, params)
        found = _recipes.get(memo[0])
        if found is None:
            return None, memo, None
        _keep_known(found[2].key, found)  # (the dict's own key object, not the equal one just made)
        if descs is None:
            descs = _descriptions(nodes)
        alike = found[0] == descs
    if alike and _decided_alike(found, last, descs, memo[0]):
        recipe = found[2]
        done = _replay(recipe, nodes, memo[1])
        if done is not None:
            if recipe.chunk is not last and recipe.chunk != last:  # (as the call recorded)
                state.last_chunk, state.chunks_seen = recipe.chunk, 0
            state.chunks_seen += recipe.full
            return done, memo, descs
    return None, memo, descs


def _chunks(nodes, outputs, keep_tail, repeat, last):
    """`chunks` of the computed nodes `nodes` in creation order."""
    n = len(nodes)
    done, memo, descs = _replay_call(nodes, outputs, keep_tail, repeat, last)
    if done is not None:
        return done
    recorded = (memo, last)
    if last is not None and n >= len(last):
        if descs is None:
            descs = _descriptions(nodes)
        full = _continued(descs, last)
        if full:
            return _split(nodes, outputs, 0, len(last), full, 0, keep_tail, repeat, descs, recorded)
    if n < MIN_NODES and _weight(nodes) < MIN_NODES:
        return None
    if descs is None:
        descs = _descriptions(nodes)
    found, skip = _period_of(descs)
    if found is None:
        return None
    period, length = found
    if period < MIN_PERIOD:
        # a loop of one or two tiny ops (x = x * a + b): one program for the whole graph costs
        # less than a program call and a plan per few nodes, and cuts repeat the same graph
        return None
    start = n - skip - length
    weight = period if period >= MIN_CHUNK // 4 else _weight(nodes[start:start + period])
    size = period if weight >= MIN_CHUNK // 4 else -(-MIN_CHUNK // weight) * period
    full = length // size
    if not full or (not keep_tail and (full - 1) * size * weight < MIN_NODES * period):
        return None  # at a read, splitting pays only when it saves compiling many repeated nodes
    chunk = descs[start:start + size]
    if chunk != last:  # (the same loop run again keeps counting towards hot)
        state.last_chunk, state.chunks_seen = chunk, 0
    return _split(nodes, outputs, start, size, full, 1 if start else 0, keep_tail, repeat, descs, recorded)


def _decided_alike(found, last, descs, key):
    """Whether `chunks`, under the last loop chunk `last`, would split a graph of descriptions
    `descs` as the recorded one (`found`: its entry of `_recipes`) was: it was decided under an
    equal last chunk, or it was split into whole copies of `last` from its first node, as the
    graph continuing `last` is (`_continued`; the entry is then kept as decided under `last`)."""
    before, recipe = found[1], found[2]
    if before is last or before == last:
        return True
    if recipe.at != (0, len(last), 0) or not (recipe.chunk is last or recipe.chunk == last) \
            or _continued(descs, last) != recipe.full:
        return False
    _recipes[key] = (found[0], last, recipe)
    return True


def _wiring(nodes):
    """(rank, flat, ranks) of `nodes` (creation order): node -> position, every operand in
    order, and each operand's position (-1: from outside the graph)."""
    rank = dict(zip(nodes, range(len(nodes))))  # node -> position (C-level; keyed by node as `Plan.index`)
    flat = list(_chain.from_iterable([n.args for n in nodes]))  # (map and chain: C-level loops over every operand)
    ranks = np.fromiter(map(rank.get, flat, _forever(-1)), dtype=np.int64, count=len(flat))
    return rank, flat, ranks


def _split(nodes, outputs, start, size, full, first_chunk, keep_tail, repeat, descs=None, recorded=(None, None)):
    """The pieces to run (see `chunks`): the prefix (nodes before `start`), then `full` chunks of
    `size` nodes. With `repeat`, chunks that each hand one value to the next run as ONE program
    (`_repeat`). Otherwise each chunk is a program; a loop that has run HOT_CHUNKS chunks is hot:
    its chunks then cover FUSE iterations each, a program compiled once more (in the background,
    through the interpreter tier) that saves dispatches; at a read, the iterations left over run
    as single chunks.

    `recorded`: (the graph's recipe key and outside objects (`_memo_key`) or None, the last loop
    chunk when `chunks` was called). What this split did is kept for a graph made like this one
    (a loop's next call: `chunks` replays it when the last chunk it was decided under is still
    the last one: `_record`)."""
    memo, before = recorded
    state.chunks_seen += full  # chunks of the last loop run so far
    plain = ([0] if start else []) + [start + j * size for j in range(full + 1)]
    hot = state.chunks_seen > HOT_CHUNKS and full >= FUSE
    rank, flat, ranks = _wiring(nodes)
    if memo is None and repeat and descs is not None and not _checks.pending:
        memo = _memo_key(nodes, outputs, (keep_tail,))  # (to record: `chunks` made none)
    reads = _Reads(nodes, rank, flat, ranks)
    bounds = plain if repeat or not hot else _fused(start, size, full, keep_tail)
    need = _needs(reads, rank, outputs, bounds)
    pieces, last = _take(nodes, need, bounds, first_chunk, keep_tail)
    hoisted, rewritten = [], []
    _hoist_fixed[0] = True
    if first_chunk < len(bounds) - 1:
        hoisted, rewritten = _hoist_transposes(nodes[bounds[first_chunk]:last])
        reads.rewrite(rank, rewritten)
    if repeat:
        ranges = [(lo, hi) for lo, hi in zip(bounds[first_chunk:], bounds[first_chunk + 1:]) if hi <= last]
        _made.clear()
        done = _repeat(nodes, ranges, need, reads)
        if done is not None:
            alone, loops = done  # (the first chunk runs alone when its inputs differ from the rest's)
            pieces = pieces[:first_chunk + alone] + [[node] for node in loops]
            if memo is not None and not hoisted and _hoist_fixed[0]:
                _record(memo, descs, before, (start, size, first_chunk), full, pieces, last, rewritten, list(_made), rank)
        elif len(ranges) == 1 and not hot:
            # one chunk, which no REPEAT makes (a loop's read of the one iteration a budget cut
            # left pending, each call): its pieces are kept too, a recipe of no REPEAT
            if memo is not None and not hoisted and _hoist_fixed[0]:
                _record(memo, descs, before, (start, size, first_chunk), full, pieces, last, rewritten, [], rank)
        elif hot:
            bounds = _fused(start, size, full, keep_tail)
            need = _needs(reads, rank, outputs, bounds)
            pieces, fused_last = _take(nodes, need, bounds, first_chunk, keep_tail)
            for node, args, attrs in rewritten:  # a pending tail keeps the loop's form (see _hoist_transposes)
                if rank[node] >= fused_last:
                    node.args, node.attrs = args, attrs
            last = fused_last
    if hoisted:
        pieces.insert(0, hoisted)  # (they read only values from before the loop)
    return pieces, len(nodes) - last


def _fused(start, size, full, keep_tail):
    """Piece bounds of a hot loop: groups of FUSE chunks, then (at a read) the rest one by one."""
    groups = full // FUSE
    fused = [start + j * size * FUSE for j in range(groups + 1)]
    rest = [] if keep_tail else [start + (groups * FUSE + j) * size for j in range(1, full - groups * FUSE + 1)]
    return ([0] if start else []) + fused + rest


def _continued(descs, chunk):
    """How many whole copies of the last loop chunk the graph (`descs`: its nodes' descriptions,
    creation order) starts with: after a budget cut the pending rest of a loop starts at a chunk
    boundary, and its end (the read after the loop) may be too short to look periodic on its
    own. (The descriptions are made once, for the whole graph: the period search reuses them.)"""
    size = len(chunk)
    full = len(descs) // size
    if descs[:full * size] == chunk * full:  # (the usual answer: every whole chunk, one compare)
        return full
    full = 0
    while (full + 1) * size <= len(descs) and descs[full * size:(full + 1) * size] == chunk:
        full += 1
    return full


class _Reads:
    """Who reads what in `nodes` (creation order), as flat arrays over every operand of every
    node: `rank[j]` the position in `nodes` of operand j (-1: from outside the graph: a leaf, a
    hoisted transpose), `start[i]` where node i's operands begin. Built with comprehensions and
    read with numpy: the per-operand loops of the chunk checks were most of a sync's
    segmentation time (~1700 nodes for 100 steps of gradient descent)."""

    __slots__ = ("rank", "ids", "start", "owner")

    def __init__(self, nodes, rank, flat=None, ranks=None):
        """`flat`, `ranks`: every operand of `nodes` in order and its position (`rank`; -1:
        from outside), when the caller has them (`_split`)."""
        if flat is None:
            flat = list(_chain.from_iterable([n.args for n in nodes]))
            ranks = np.fromiter(map(rank.get, flat, _forever(-1)), dtype=np.int64, count=len(flat))
        counts = np.fromiter(map(len, [n.args for n in nodes]), dtype=np.int64, count=len(nodes))
        self.start = np.zeros(len(nodes) + 1, dtype=np.int64)
        np.cumsum(counts, out=self.start[1:])
        self.ids = np.fromiter(map(id, flat), dtype=np.uint64, count=len(flat))  # (the operand itself: ids of live objects)
        self.rank = ranks
        self.owner = np.repeat(np.arange(len(nodes), dtype=np.int64), counts)

    def rewrite(self, rank, rewritten):
        """Follow `_hoist_transposes`' rewrites (an operand from outside the graph replaced by
        another, and the operands of a dot that swapped sides)."""
        if not rewritten:
            return
        firsts = self.start[[rank[node] for node, _, _ in rewritten]].tolist()
        at, ids, ranks = [], [], []
        for (node, _, _), j in zip(rewritten, firsts):  # (one assignment: a loop rewrites ~100 dots)
            for a in node.args:
                at.append(j)
                ids.append(id(a))
                ranks.append(rank.get(a, -1))
                j += 1
        self.ids[at] = np.array(ids, dtype=np.uint64)
        self.rank[at] = np.array(ranks, dtype=np.int64)


def _needs(reads, rank, outputs, bounds):
    """need[i]: whether nodes[i] is read outside its piece [bounds[k], bounds[k+1]) (by a later
    piece, the tail or `outputs`): what each piece must output (a numpy bool array)."""
    n = len(reads.start) - 1
    edges = np.asarray(bounds[1:], dtype=np.int64)
    piece = np.searchsorted(edges, np.arange(n, dtype=np.int64), side="right")  # tail: len(bounds) - 1
    r = reads.rank
    inside = r >= 0
    src, dst = r[inside], reads.owner[inside]
    need = np.zeros(n, dtype=bool)
    need[src[piece[src] != piece[dst]]] = True
    for o in outputs:
        if o.op is not None:
            need[rank[o]] = True
    return need


def _take(nodes, need, bounds, first_chunk, keep_tail):
    """The pieces (each the list of its nodes that must be output) and where the last one ends.
    Pieces before `first_chunk` are the prefix; nodes after the end stay pending (the tail)."""
    pieces, masks, last = [], {}, bounds[-1]
    found = np.flatnonzero(need)
    cuts = np.searchsorted(found, bounds).tolist()
    found = found.tolist()
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        part = found[cuts[k]:cuts[k + 1]]
        if keep_tail and k >= first_chunk:
            mask = tuple([i - lo for i in part])
            if masks.setdefault(hi - lo, mask) != mask:
                last = lo  # a chunk holding other live arrays: leave it to a later cut
                break
        pieces.append([nodes[i] for i in part])
    return pieces, last


_transposed = weakref.WeakKeyDictionary()  # invariant matrix (a leaf node) -> its transpose's node


def _hoist_transposes(chunk_nodes):
    """Rewrite the matrix-vector dots of the chunks about to run (`chunk_nodes`) that contract a
    large invariant matrix M (a leaf: computed before this sync, so the same in every chunk)
    along its leading axis, to read transpose(M) along its trailing one instead: the same value,
    read contiguously (the module docstring). A matrix is copied once at least HOIST_AFTER of
    these dots read it (a copy costs about what a few strided reads lose); a copy made for an
    earlier run of the loop is used at once. Returns the transposes not yet computed (a piece to
    run before the chunks) and the rewrites made, (dot, its operands, its attributes) before.

    Only the rewritten dots change, in place: their operand and contracting axis, never their
    shape or value. Nodes outside the chunks run now (a cut's pending tail) must keep their form
    (`_split` undoes a rewrite there), so the next sync finds the same period."""
    found = {}  # id(M) -> (M, [(dot, side)])
    for node in [n for n in chunk_nodes if n.op is DOT_GENERAL]:  # (the filter in one comprehension)
        a = node.attrs
        if a.lhs_batch or len(a.lhs_contract) != 1:
            continue
        x, y = node.args
        for side, m, other, contract in ((0, x, y, a.lhs_contract), (1, y, x, a.rhs_contract)):
            if (m.op is None and contract == (0,) and len(m.shape) == 2 and other.op is not None
                    and m.shape[0] * m.shape[1] >= HOIST_MIN_ELEMENTS
                    and (len(other.shape) == 1 or sum(n != 1 for n in other.shape) <= 1)):  # other: a vector (or a row or column)
                found.setdefault(id(m), (m, []))[1].append((node, side))
                break
    new, rewritten = [], []
    for m, dots in found.values():
        t = _transposed.get(m)
        if t is None:
            if len(dots) >= HOIST_AFTER:
                _hoist_fixed[0] = False  # (a copy made now, or refused for the bytes held: state)
            if len(dots) < HOIST_AFTER or _held_bytes() + m.dtype.np.itemsize * m.shape[0] * m.shape[1] > HOIST_MAX_BYTES:
                continue
            traced = pending.nodes_since_sync
            t = _transposed[m] = transpose(m, (1, 0))
            pending.nodes_since_sync = traced  # (not the user's node: no count towards a cut)
        if t.op is not None:
            new.append(t)
        replaced = {}  # (the loop's dots share a few attributes: one _replace each)
        for node, side in dots:
            a = node.attrs
            rewritten.append((node, node.args, a))
            swap = side == 1 and len(node.args[0].shape) == 1
            b = replaced.get((a, side, swap))
            if b is None:
                b = replaced[(a, side, swap)] = _rewritten_attrs(a, side, swap)
            node.args = (t, node.args[1]) if side == 0 else (t, node.args[0]) if swap else (node.args[0], t)
            node.attrs = b
    return new, rewritten


def _rewritten_attrs(a, side, swap):
    """The dimension numbers of a dot rewritten to read transpose(M) along its rows: M's
    contracting axis 0 becomes axis 1. A vector v times M (`v . M`, how `_ops.dot` writes
    `M.T @ v`) also swaps sides, to transpose(M) . v: the same value and shape (v has no free
    axis) and the product XLA's CPU does as jax.jit's `M.T @ v` (rows of transpose(M) against
    v; ~2% less work a logistic-regression step than v against its rows, single core)."""
    if side == 0:
        return a._replace(lhs_contract=(1,))
    if swap:
        return a._replace(lhs_contract=(1,), rhs_contract=a.lhs_contract)
    return a._replace(rhs_contract=(1,))


def _held_bytes():
    return sum(t.shape[0] * t.shape[1] * t.dtype.np.itemsize for t in list(_transposed.values()))


# -- one program for all the chunks ---------------------------------------------------------------


def _repeat(nodes, ranges, need, reads):
    """Make the chunks `ranges` ((lo, hi) each, in order, of one size) one REPEAT node when each
    of them outputs one value (`need`) that the next one reads, and reads everything else from
    the same place as the others (the same node, or a host scalar of the same value); see
    `_ops.loop`. The last chunk's output node becomes that node (in place: its value is the
    same). Returns (alone, node), `alone` being 1 when the first chunk's inputs differ and it
    must run on its own first, or None when the chunks do not qualify. Each REPEAT's making
    is also put in `_made`, as positions (`_record`).

    Compared operand by operand, as arrays (`_Reads`): chunk k's operand j must be the same
    node of the chunk as the reference chunk's (chunk 1), or from outside it: the previous
    chunk's output where the reference reads chunk 0's (the carry), else what the reference
    reads there. The ops and attributes were compared when the period was found; a hoisted
    transpose rewrites every dot of its matrix the same way (its operand is then compared)."""
    if len(ranges) < 2 or _checks.pending:  # (a pending check may read a chunk's inner nodes)
        return None
    m = len(ranges)
    lo0, size = ranges[0][0], ranges[0][1] - ranges[0][0]
    if any(hi - lo != size for lo, hi in ranges):
        return None
    found = np.flatnonzero(need[lo0:lo0 + m * size])
    if len(found) != m or not (found // size == np.arange(m)).all():
        return None  # (not one output per chunk)
    outs = (found + lo0).tolist()
    start = reads.start
    width = int(start[lo0 + size] - start[lo0])
    if int(start[lo0 + m * size] - start[lo0]) != m * width:
        return None
    ref_rows = reads.rank[start[lo0]:start[lo0 + m * size]].reshape(m, width)
    base = np.arange(lo0, lo0 + m * size, size, dtype=np.int64)[:, None]
    rel = ref_rows - base  # >= 0: a node of the same chunk, at that offset
    inner = rel >= 0
    ref = 1
    carry = ref_rows[ref] == outs[0]  # where the reference chunk reads the previous output
    if not carry.any():
        return None
    # the rows from the reference on: the same inner wiring, the carry from the previous chunk
    later = slice(ref, m)
    if not (inner[later] == inner[ref]).all() or not (np.where(inner[later], rel[later], 0) == np.where(inner[ref], rel[ref], 0)).all():
        return None
    prev = np.asarray(outs[ref - 1:m - 1], dtype=np.int64)[:, None]
    if not (ref_rows[later][:, carry] == prev).all():
        return None
    outside = ~inner[ref] & ~carry  # operands read from before the loop: the same in every chunk
    base = int(start[lo0])
    ids = reads.ids[base:base + m * width].reshape(m, width)
    stacked = _differing(nodes, reads, base, width, ids, outside, ref, ref + 1, m)
    if stacked is None:
        return None
    lo, hi = ranges[ref]
    chunk = nodes[lo:hi]
    inputs, slot_at, slots = _slots(chunk, lo, reads, int(start[lo]), stacked, ids[ref:])
    alone = 0
    if not ((inner[0] == inner[ref]).all() and (np.where(inner[0], rel[0], 0) == np.where(inner[ref], rel[ref], 0)).all()
            and len(set(ids[0][carry].tolist())) == 1):
        alone = 1
    else:
        differ = _differing(nodes, reads, base, width, ids, outside, ref, 0, 1)
        alone = 0 if differ is not None and differ <= stacked and _read_alike(ids[0], slot_at, slots) else 1
    if m - alone < 2:
        return None
    carry_slot = slot_at[int(np.flatnonzero(carry)[0])]
    body = template(chunk, inputs, carry_slot, outs[ref] - lo, slots, slot_at)
    first_use = {}
    for j, k in enumerate(slot_at):
        if k is not None and k not in first_use:
            first_use[k] = j
    columns = [first_use[k] for k in range(len(inputs))]
    if alone == 0 and not _fits(body, _operands_at(nodes, reads, np.asarray([base + j for j in columns], dtype=np.int64))):
        alone = 1  # the first chunk reads values of other shapes (a 0-D first carry): run it alone
        if m - alone < 2:
            return None
    # the REPEAT's operands: what the first chunk it runs reads at each input's first position;
    # with per-pass scalars, STACK passes a REPEAT, each reading its passes' scalars as a vector
    step = STACK if slots else m
    loops = []
    for g0 in range(alone, m, step):
        g1 = min(g0 + step, m)
        at = np.asarray([base + g0 * width + j for j in columns], dtype=np.int64)
        values = _operands_at(nodes, reads, at)
        stacks = []
        for k in slots:
            flat = base + np.arange(g0, g1, dtype=np.int64) * width + columns[k]
            stacks.append(_positions(reads, flat))
            values[k] = _stacked(_operands_at(nodes, reads, flat), inputs[k].dtype)
        last = nodes[outs[g1 - 1]]
        made = _repeat_operands(body, values, g1 - g0, last)
        if made is None:
            return None
        loops.append((last, *made))
        _made.append((outs[g1 - 1], g1 - g0, body, _positions(reads, at), tuple(zip(slots, stacks)), ranges[g0][0]))
    for last, op_args, attrs in loops:  # (in place only once every group qualified)
        last.op, last.args, last.attrs = REPEAT, op_args, attrs
    return alone, [last for last, _, _ in loops]


# -- a loop's next call: the same graph again ----------------------------------------------------
#
# A loop called again (the same code on the same arrays) makes a graph equal to the last call's
# in everything `_split` reads: the nodes' descriptions, who reads whom (`_Reads.rank`), which
# operands from outside are one object, and what each of those is (leaf or not, type, a host
# scalar's value, its kept transpose). Its pieces are then those of the last call at the same
# positions, so they are rebuilt from positions (`_Recipe`) without the checks. Anything that
# could decide otherwise is in the key; a graph whose hoisting made or refused a copy, or whose
# checks are pending, is not recorded.

MEMO_KEPT = 16  # recipes kept (a loop's cut and read are two)


class _Recipe:
    """What `_split` did, by position: `pieces` (node positions, each piece), `last` (where the
    pending tail starts), `rewrites` (dot position, operand position (2: the matrix was the
    right operand and the sides swapped, `_rewritten_attrs`), the matrix's class among
    the outside operands, the new attributes: the dots computed or read from, see `_record`)
    and `groups` (one per REPEAT: the position of
    the node it replaces, its pass count, its body, the (node, operand) positions of its values
    and, per stacked slot, of that slot's scalar in each pass, and its attributes), `at` and `full` (the split:
    (start, chunk size, first chunk) and the chunks) and `chunk` (the last loop chunk it left:
    `state.last_chunk`); `key` is its key in `_recipes`, the dict's own object (`_known` keeps
    it: a lookup by it hashes nothing and compares by identity)."""

    __slots__ = ("pieces", "last", "rewrites", "groups", "at", "full", "chunk", "key")

    def __init__(self, pieces, last, rewrites, groups, at, full, chunk, key):
        self.pieces, self.last, self.rewrites, self.groups = pieces, last, rewrites, groups
        self.at, self.full, self.chunk, self.key = at, full, chunk, key


_recipes = {}        # key (`_memo_key`) -> (descriptions, last chunk before, _Recipe); emptied when the engine
                     # forgets its last loop (`state.reset`: chunks() then finds no last_chunk)
_made = []           # the REPEATs the last `_repeat` made (see `_Recipe.groups`)
_hoist_fixed = [True]  # False when the last `_hoist_transposes` decided on state (bytes held, a new copy)


def _outside(a):
    """What `_split` may read of an operand from outside the graph."""
    t = _transposed.get(a) if a.op is None else None
    return (a.op is None, a.shape, a.dtype, _value_key(a), t is not None, t is not None and t.op is None)


def _memo_key(nodes, outputs, params):
    """(key, outside operands in first-use order) of the graph of `nodes` (creation order): the
    key holds `params`, the wiring, which outside operands are one object and what each is
    (`_outside`), and which nodes are outputs; the descriptions are compared apart (`_recipes`
    keeps them). The wiring is one label an operand, in order: a node's position, or for a value
    from outside, len(nodes) + the first position (flat, over every operand) where it is read,
    so equal labels are one object. One pass of C-level calls makes them (a dict of the
    positions that gives each new outside object the count at its first use) and Python
    objects alone: a loop's read runs this after a program that left numpy's code cold, where
    each numpy call of the earlier key (ranks, mask, labels, bytes) cost ~5-20 us."""
    n = len(nodes)
    label = dict(zip(nodes, range(n)))  # (nodes hash by identity)
    labels = tuple(map(label.setdefault, _chain.from_iterable([a.args for a in nodes]), _count(n)))
    objects = list(_islice(label, n, None))  # (insertion order: first use first)
    outs = tuple(sorted({label.get(o, -1) for o in outputs if o.op is not None}))  # (-1: not in `nodes`)
    key = StructuralKey((params, n, labels, tuple(map(_outside, objects)), outs))  # (its hash made once)
    return key, objects


_known = {}  # params -> (key, operand lookups, first positions, its descriptions): the last
             # kept key `_replay_call` found (`_known_key`)


def _keep_known(key, found):
    """Remember `key` (just found in `_recipes`, as `found`) for `_known_key`: per flat operand,
    its node position or len(nodes) + its outside object's class (first-use order), and the
    output positions; kept only where every kept description is of a computed node (op not None)
    and no output lay outside the graph (label -1)."""
    n, labels, outs = key[1], key[2], key[4]
    if outs and outs[0] < 0 or any(d[0] is None for d in found[0]):
        return
    firsts = sorted({label for label in labels if label >= n})
    cls = {label: n + k for k, label in enumerate(firsts)}
    lookups = [label if label < n else cls[label] for label in labels]
    _known[key[0]] = (key, lookups, [label - n for label in firsts], found[0])


def _known_key(nodes, outputs, params):
    """(`_memo_key(nodes, outputs, params)`, the descriptions kept with it) when it equals the
    last kept key `_replay_call` found for `params` (`_keep_known`), else (None, None), without
    the dict of positions: each operand is the
    object that key's labels name (one list compare: `is`, as Node has no __eq__), the outside
    objects are distinct leaves (op None) and describe alike (`_outside`), and the outputs
    (op not None) are the key's output nodes. Whole once the caller's descriptions equal the
    kept ones (still the key's entry), all of computed nodes: no leaf is then one of `nodes`."""
    known = _known.get(params)
    if known is None:
        return None, None
    key, lookups, firsts, kept = known
    n = len(nodes)
    if key[1] != n:
        return None, None
    flat = list(_chain.from_iterable([a.args for a in nodes]))
    if len(flat) != len(lookups):
        return None, None
    objects = [flat[j] for j in firsts]
    if flat != list(map((nodes + objects).__getitem__, lookups)):
        return None, None
    if any(a.op is not None for a in objects) or len({id(a) for a in objects}) != len(objects) \
            or tuple(map(_outside, objects)) != key[3]:
        return None, None
    outs = key[4]
    ids = {id(nodes[k]): k for k in outs}
    if len(ids) != len(outs) or {ids.get(id(o), -1) for o in outputs if o.op is not None} != set(outs):
        return None, None
    return (key, objects), kept


def _record(memo, descs, before, at, full, pieces, last, rewritten, groups, rank):
    """Keep what `_split` just did (`full` chunks of `at`: (start, size, first chunk)) for the
    graph of key `memo` and descriptions `descs`, decided when the last loop chunk was `before`
    (see `_Recipe`)."""
    key, objects = memo
    where = {id(a): k for k, a in enumerate(objects)}
    # a rewritten dot inside a REPEAT's chunks is never computed (the body is a template): only
    # those that run (a first chunk run alone) or that a REPEAT's values are read from matter
    first = min((g[5] for g in groups), default=len(rank))  # (no REPEAT: every rewritten dot runs)
    read = {o for g in groups for o, _ in g[3]}
    rewrites = []
    for node, args, _ in rewritten:
        if rank[node] >= first and rank[node] not in read:
            continue
        pos = 2 if node.args[1] is args[0] else 0 if node.args[0] is not args[0] else 1  # (2: sides swapped)
        k = where.get(id(args[pos if pos < 2 else 1]))
        if k is None:
            return
        rewrites.append((rank[node], pos, k, node.attrs))
    recipe = _Recipe([[rank[node] for node in piece] for piece in pieces], last, rewrites, [g[:5] + (REPEAT.Attrs(g[2]),) for g in groups],
                     at, full, state.last_chunk, key)
    keep(_recipes, key, (list(descs), before, recipe), MEMO_KEPT, oldest=True)


def _replay(recipe, nodes, objects):
    """`_split`'s answer for a graph made like the recipe's, or None (nothing changed) when a
    value does not fit the REPEAT it would feed."""
    undo, kept = [], {}
    for i, pos, k, attrs in recipe.rewrites:
        node = nodes[i]
        undo.append((node, node.args, node.attrs))
        t = kept.get(k)
        if t is None:  # (one weak-dictionary lookup a matrix: a loop rewrites ~100 dots)
            t = kept[k] = _transposed[objects[k]]
        node.args = (t, node.args[1]) if pos == 0 else (node.args[0], t) if pos == 1 else (t, node.args[0])
        node.attrs = attrs
    loops = []
    for i, passes, body, at, stacks, attrs in recipe.groups:
        values = [nodes[o].args[f] for o, f in at]
        for k, column in stacks:
            values[k] = _stacked([nodes[o].args[f] for o, f in column], body.params[k].dtype)
        last = nodes[i]
        made = _repeat_operands(body, values, passes, last, attrs)
        if made is None:
            for node, args, a in undo:
                node.args, node.attrs = args, a
            return None
        loops.append((last, *made))
    for last, op_args, attrs in loops:
        last.op, last.args, last.attrs = REPEAT, op_args, attrs
    return [[nodes[i] for i in piece] for piece in recipe.pieces], len(nodes) - recipe.last


def _positions(reads, flat):
    """(node position, operand position) of each flat operand position in `flat`."""
    owners = reads.owner[flat]
    return tuple(zip(owners.tolist(), (flat - reads.start[owners]).tolist()))


def _stacked(column, dtype):
    """A REPEAT's per-pass scalars (`column`: one 0-D host leaf a pass, in order) as one vector
    leaf of STACK, the last repeated to fill it."""
    vec = np.array([np.asarray(a.host, dtype=dtype.np) for a in column], dtype=dtype.np)
    vec = np.concatenate([vec, np.repeat(vec[-1:], STACK - len(vec))])
    return leaf_from_host(vec, (STACK,), dtype)


_COUNTS = {}  # passes -> its int64 0-D value, read-only (a REPEAT's trip count leaf: one each call)


def _count_value(passes):
    """A REPEAT's trip count as the read-only int64 0-D array its leaf holds, kept by value (a
    loop's next call needs the same counts; a numpy call per REPEAT cost ~10 us in a loop's read,
    after a program left numpy's code cold)."""
    v = _COUNTS.get(passes)
    if v is None:
        if len(_COUNTS) >= 256:
            _COUNTS.clear()
        v = _COUNTS[passes] = np.asarray(passes, dtype=np.int64)
        v.flags.writeable = False
    return v


def _repeat_operands(body, values, passes, last, attrs=None):
    """(operands, attributes) of a REPEAT of `passes` passes of `body` on `values`, to replace
    the node `last`; None where they do not fit the body or `last`'s shape and dtype. `attrs`:
    a recipe's (`_replay`), whose REPEAT passed the rule on a graph of the same descriptions
    (`last`'s included) and the same operand types: only the values' fit is checked again."""
    op_args = (leaf_from_host(_count_value(passes), (), _dtypes.int64),) + tuple(values)
    if attrs is not None:
        return (op_args, attrs) if _fits(body, values) else None
    attrs = REPEAT.Attrs(body)
    if not _fits(body, values) or REPEAT.rule(op_args, attrs) != (last.shape, last.dtype):
        return None
    return op_args, attrs


def _fits(body, values):
    """Whether a chunk's operands have the shapes and dtypes of the body's parameters (the
    stacked ones are vectors built for it)."""
    return all(k in body.stacked or (v.shape == p.shape and v.dtype is p.dtype)
               for k, (v, p) in enumerate(zip(values, body.params)))


def _inputs(chunk, lo, rank_of, offset):
    """The values the chunk (at `lo` in the nodes) reads from outside, first use first, and for
    each of its operands (flat, in order) the index of its input (None: a node of the chunk)."""
    rank = rank_of.rank
    where, inputs, slot_at = {}, [], []
    j = offset
    for node in chunk:
        for a in node.args:
            if rank[j] >= lo:
                slot_at.append(None)
            else:
                s = where.get(id(a))
                if s is None:
                    s = where[id(a)] = len(inputs)
                    inputs.append(a)
                slot_at.append(s)
            j += 1
    return inputs, slot_at


def _slots(chunk, lo, reads, offset, stacked, rows):
    """The chunk's parameters: (inputs, slot_at, stacked slots), as `_inputs` gives them (one
    parameter per object the reference chunk reads from outside), except that a per-pass
    parameter (one holding a column of `stacked`) is split where the chunks read it apart.

    A Python scalar shares one leaf wherever it is used until the next sync
    (`_graph.scalar_leaf`), so a pass that reads its scalar twice (`y * s + s`) reads one leaf
    at two operands: one stacked parameter read at both, one value a pass. Operands of one
    parameter are kept together only if they hold the same object in every chunk `rows` (the
    ids, a row a chunk from the reference on): a loop whose pass-1 scalar `i == 1` is the
    literal `1` of every pass (small ints are cached objects) shares a leaf in that pass alone,
    and is two parameters. The grouping is a function of the code between two syncs (which
    objects coincide where), so a second call builds the same body: the same program key."""
    inputs, slot_at = _inputs(chunk, lo, rank_of=reads, offset=offset)
    per_pass = {slot_at[j] for j in stacked}
    reads_of = {}
    for j, k in enumerate(slot_at):
        if k in per_pass:
            reads_of.setdefault(k, []).append(j)
    if all(len(js) == 1 for js in reads_of.values()):
        return inputs, slot_at, sorted(per_pass)
    # renumber: a per-pass parameter read at several operands is one parameter per distinct
    # column of objects over the chunks, first use first
    renumbered, new_slot_at, firsts = {}, [], []
    for j, k in enumerate(slot_at):
        if k is None:
            new_slot_at.append(None)
            continue
        key = (k, rows[:, j].tobytes()) if len(reads_of.get(k, ())) > 1 else (k,)
        s = renumbered.get(key)
        if s is None:
            s = renumbered[key] = len(firsts)
            firsts.append(j)
        new_slot_at.append(s)
    flat = [a for node in chunk for a in node.args]
    inputs = [flat[j] for j in firsts]
    return inputs, new_slot_at, sorted({new_slot_at[j] for j in stacked})


def _read_alike(row, slot_at, slots):
    """Whether a chunk (`row`: the ids of its operands, flat) reads each per-pass parameter
    (`slots`) read at several operands from one object at all of them (its stacked column
    holds one value a pass)."""
    ids = {}
    for j, k in enumerate(slot_at):
        if k is not None and ids.setdefault(k, row[j]) != row[j] and k in slots:
            return False
    return True


def _operands_at(nodes, reads, flat):
    """The operands at flat positions `flat` (a numpy array) of `_Reads`' arrays."""
    owners = reads.owner[flat]
    offsets = (flat - reads.start[owners]).tolist()
    return [nodes[o].args[f] for o, f in zip(owners.tolist(), offsets)]


def _differing(nodes, reads, base, width, ids, outside, ref, lo, hi):
    """The operand columns (in `outside`) where chunk rows lo..hi-1 (their operands flat from
    `base`, `width` a row) read another value than the reference row: a set, empty when they all
    read the same node or a host scalar of the same value (`_value_key`: a loop's Python scalars
    are new leaves every step); None when one of them is not a host scalar of the reference's
    dtype (only a scalar can be a per-pass operand: `_ops.loop`)."""
    cols = np.flatnonzero(outside)
    rows, where = np.nonzero(ids[lo:hi][:, cols] != ids[ref][cols])
    if not len(rows):
        return set()
    js = cols[where]
    mine = _operands_at(nodes, reads, base + (rows + lo) * width + js)
    theirs = _operands_at(nodes, reads, base + ref * width + js)
    keys, differ = {}, set()
    for j, a, b in zip(js.tolist(), mine, theirs):
        ka = keys.get(id(a))
        if ka is None:
            ka = keys[id(a)] = _value_key(a)
        kb = keys.get(id(b))
        if kb is None:
            kb = keys[id(b)] = _value_key(b)
        if ka is False or kb is False or ka[0] is not kb[0]:
            return None
        if ka != kb:
            differ.add(j)
    return differ


def _value_key(a):
    """What two host scalar leaves must share to hold the same bits of the same dtype, or False
    (not a host scalar leaf). Equal Python ints, or equal nonzero Python floats, are the same
    bits in any dtype; other values are compared by their bytes in the leaf's dtype (so -0.0
    and 0.0 differ, and a NaN equals a NaN of the same bits)."""
    if not (a.op is None and a.buffer is None and a.shape == ()):
        return False
    v = a.host
    kind = type(v)
    if kind is int or (kind is float and v != 0 and v == v):
        return (a.dtype, kind, v)
    return (a.dtype, bytes, np.asarray(v, dtype=a.dtype.np).tobytes())
