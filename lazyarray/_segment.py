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

import weakref

import numpy as np

from . import _checks, _dtypes
from ._engine_state import state  # the last loop chunk found and how many of its chunks ran
from ._graph import leaf_from_host, pending
from ._ops.dot import DOT_GENERAL
from ._ops.loop import REPEAT, template
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


def _serial(node):
    return node.serial


def _describe(node):
    """What must match for two nodes to be the same step of a loop: op, attributes, type and
    operand count. Where the operands come from is left out on purpose: a chunk's program takes
    every value from outside the chunk as a parameter, so the first iteration (reading the loop's
    input leaves) and the later ones (reading the previous chunk's outputs) are the same program,
    and a loop's reference to a value computed before it is farther back every iteration."""
    return (node.op, node.attrs, node.shape, node.dtype, len(node.args))


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


def worth_trying(n_nodes):
    """Whether a read of a graph of n_nodes computed nodes should look for a loop in it."""
    last = state.last_chunk
    return n_nodes >= MIN_NODES or (last is not None and n_nodes >= len(last))


def chunks(outputs, order, keep_tail, repeat=True):
    """Split the graph behind `outputs` (`order`: its computed nodes, any order) into pieces to
    compute in order, or None if it is small or not periodic. Returns (pieces, tail_size): each
    piece is the list of its nodes that later pieces or `outputs` need. With `keep_tail` (a budget
    cut) the trailing nodes after the last chunk that looks like the first stay pending
    (tail_size of them); otherwise the caller computes whatever the pieces left with `outputs`."""
    nodes = sorted(order, key=_serial)  # the computed nodes in creation order
    n = len(nodes)
    last = state.last_chunk  # descriptions of the nodes of the last loop chunk found
    if last is not None and n >= len(last):
        full = _continued(nodes, last)
        if full:
            return _split(nodes, outputs, 0, len(last), full, 0, keep_tail, repeat)
    if n < MIN_NODES:
        return None
    descs = [_describe(node) for node in nodes]
    seq = _codes(descs)
    for skip in range(MAX_SKIP + 1):  # the newest nodes may be a half-built expression
        found = _periodic_suffix(seq[:n - skip])
        if found is not None:
            break
    else:
        return None
    period, length = found
    if period < MIN_PERIOD:
        # a loop of one or two tiny ops (x = x * a + b): one program for the whole graph costs
        # less than a program call and a plan per few nodes, and cuts repeat the same graph
        return None
    start = n - skip - length
    size = period if period >= MIN_CHUNK // 4 else -(-MIN_CHUNK // period) * period
    full = length // size
    if not full or (not keep_tail and (full - 1) * size < MIN_NODES):
        return None  # at a read, splitting pays only when it saves compiling many repeated nodes
    chunk = descs[start:start + size]
    if chunk != last:  # (the same loop run again keeps counting towards hot)
        state.last_chunk, state.chunks_seen = chunk, 0
    return _split(nodes, outputs, start, size, full, 1 if start else 0, keep_tail, repeat)


def _split(nodes, outputs, start, size, full, first_chunk, keep_tail, repeat):
    """The pieces to run (see `chunks`): the prefix (nodes before `start`), then `full` chunks of
    `size` nodes. With `repeat`, chunks that each hand one value to the next run as ONE program
    (`_repeat`). Otherwise each chunk is a program; a loop that has run HOT_CHUNKS chunks is hot:
    its chunks then cover FUSE iterations each, a program compiled once more (in the background,
    through the interpreter tier) that saves dispatches; at a read, the iterations left over run
    as single chunks."""
    state.chunks_seen += full  # chunks of the last loop run so far
    plain = ([0] if start else []) + [start + j * size for j in range(full + 1)]
    hot = state.chunks_seen > HOT_CHUNKS and full >= FUSE
    rank = {id(node): i for i, node in enumerate(nodes)}
    bounds = plain if repeat or not hot else _fused(start, size, full, keep_tail)
    need = _needs(nodes, rank, outputs, bounds)
    pieces, last = _take(nodes, need, bounds, first_chunk, keep_tail)
    hoisted, rewritten = [], []
    if first_chunk < len(bounds) - 1:
        hoisted, rewritten = _hoist_transposes(nodes[bounds[first_chunk]:last])
    if repeat:
        ranges = [(lo, hi) for lo, hi in zip(bounds[first_chunk:], bounds[first_chunk + 1:]) if hi <= last]
        done = _repeat(nodes, ranges, need, rank)
        if done is not None:
            alone, node = done  # (the first chunk runs alone when its inputs differ from the rest's)
            pieces = pieces[:first_chunk + alone] + [[node]]
        elif hot:
            bounds = _fused(start, size, full, keep_tail)
            need = _needs(nodes, rank, outputs, bounds)
            pieces, fused_last = _take(nodes, need, bounds, first_chunk, keep_tail)
            for node, args, attrs in rewritten:  # a pending tail keeps the loop's form (see _hoist_transposes)
                if rank[id(node)] >= fused_last:
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


def _continued(nodes, chunk):
    """How many whole copies of the last loop chunk the graph starts with: after a budget cut the
    pending rest of a loop starts at a chunk boundary, and its end (the read after the loop) may
    be too short to look periodic on its own."""
    size, full = len(chunk), 0
    while (full + 1) * size <= len(nodes):
        lo = full * size
        if [_describe(node) for node in nodes[lo:lo + size]] != chunk:
            break
        full += 1
    return full


def _needs(nodes, rank, outputs, bounds):
    """need[i]: whether nodes[i] is read outside its piece [bounds[k], bounds[k+1]) (by a later
    piece, the tail or `outputs`): what each piece must output."""
    n = len(nodes)
    piece = [len(bounds) - 1] * n  # the tail's index
    for k in range(len(bounds) - 1):
        for i in range(bounds[k], bounds[k + 1]):
            piece[i] = k
    need = bytearray(n)
    for i, node in enumerate(nodes):
        p = piece[i]
        for a in node.args:
            if a.op is not None:
                r = rank.get(id(a))  # (None: a hoisted transpose, computed before the pieces)
                if r is not None and piece[r] != p:
                    need[r] = 1
    for o in outputs:
        if o.op is not None:
            need[rank[id(o)]] = 1
    return need


def _take(nodes, need, bounds, first_chunk, keep_tail):
    """The pieces (each the list of its nodes that must be output) and where the last one ends.
    Pieces before `first_chunk` are the prefix; nodes after the end stay pending (the tail)."""
    pieces, masks, last = [], {}, bounds[-1]
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        mask = bytes(need[lo:hi])
        if keep_tail and k >= first_chunk and masks.setdefault(hi - lo, mask) != mask:
            last = lo  # a chunk holding other live arrays: leave it to a later cut
            break
        pieces.append([nodes[i] for i in range(lo, hi) if need[i]])
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
    for node in chunk_nodes:
        if node.op is not DOT_GENERAL:
            continue
        a = node.attrs
        if a.lhs_batch or len(a.lhs_contract) != 1:
            continue
        x, y = node.args
        for side, m, other, contract in ((0, x, y, a.lhs_contract), (1, y, x, a.rhs_contract)):
            if (m.op is None and len(m.shape) == 2 and contract == (0,) and other.op is not None
                    and m.shape[0] * m.shape[1] >= HOIST_MIN_ELEMENTS
                    and sum(n != 1 for n in other.shape) <= 1):  # other: a vector (row or column)
                found.setdefault(id(m), (m, []))[1].append((node, side))
                break
    new, rewritten = [], []
    for m, dots in found.values():
        t = _transposed.get(m)
        if t is None:
            if len(dots) < HOIST_AFTER or _held_bytes() + m.dtype.np.itemsize * m.shape[0] * m.shape[1] > HOIST_MAX_BYTES:
                continue
            traced = pending.nodes_since_sync
            t = _transposed[m] = transpose(m, (1, 0))
            pending.nodes_since_sync = traced  # (not the user's node: no count towards a cut)
        if t.op is not None:
            new.append(t)
        for node, side in dots:
            a = node.attrs
            rewritten.append((node, node.args, a))
            if side == 0:
                node.args = (t, node.args[1])
                node.attrs = a._replace(lhs_contract=(1,))
            else:
                node.args = (node.args[0], t)
                node.attrs = a._replace(rhs_contract=(1,))
    return new, rewritten


def _held_bytes():
    return sum(t.shape[0] * t.shape[1] * t.dtype.np.itemsize for t in list(_transposed.values()))


# -- one program for all the chunks ---------------------------------------------------------------


def _repeat(nodes, ranges, need, rank):
    """Make the chunks `ranges` ((lo, hi) each, in order) one REPEAT node when each of them
    outputs one value (`need`) that the next one reads, and reads everything else from the
    same place as the others (the same node, or a host scalar of the same value); see
    `_ops.loop`. The last chunk's output node becomes that node (in place: its value is the
    same). Returns (alone, node), `alone` being 1 when the first chunk's inputs differ and it
    must run on its own first, or None when the chunks do not qualify."""
    if len(ranges) < 2 or _checks.pending:  # (a pending check may read a chunk's inner nodes)
        return None
    outs = []
    for lo, hi in ranges:
        found = [i for i in range(lo, hi) if need[i]]
        if len(found) != 1:
            return None
        outs.append(nodes[found[0]])
    walks = [_walk_chunk(nodes, lo, hi, rank) for lo, hi in ranges]
    ref_inputs, ref_wiring = walks[1]
    carry = next((j for j, x in enumerate(ref_inputs) if x is outs[0]), None)
    if carry is None:
        return None
    for k in range(2, len(walks)):
        inputs, wiring = walks[k]
        if wiring != ref_wiring or inputs[carry] is not outs[k - 1] or not _same_inputs(inputs, ref_inputs, carry):
            return None
    inputs, wiring = walks[0]
    alone = 0 if wiring == ref_wiring and _same_inputs(inputs, ref_inputs, carry) else 1
    if len(ranges) - alone < 2:
        return None
    lo, hi = ranges[1]
    chunk = nodes[lo:hi]
    body = template(chunk, ref_inputs, carry, next(i for i, node in enumerate(chunk) if node is outs[1]))
    count = leaf_from_host(np.asarray(len(ranges) - alone, dtype=np.int64), (), _dtypes.int64)
    args, attrs = (count,) + tuple(walks[alone][0]), REPEAT.Attrs(body)
    last = outs[-1]
    if REPEAT.rule(args, attrs) != (last.shape, last.dtype):
        return None
    last.op, last.args, last.attrs = REPEAT, args, attrs
    return alone, last


def _walk_chunk(nodes, lo, hi, rank):
    """The inputs of the chunk nodes[lo:hi] (the values it reads from outside, first use first)
    and its wiring: each node's attributes and operands as positions (inputs negative), in
    creation order. With the ops and types (equal in every chunk: that is how the period was
    found; a rewritten dot's attributes are in the wiring), what must match between two chunks.
    (`rank`: a node's position in `nodes`; operands come before their node, so one at `lo` or
    later is inside the chunk.)"""
    where, inputs, wiring = {}, [], []
    get = rank.get
    for node in nodes[lo:hi]:
        refs = []
        for a in node.args:
            r = get(id(a), -1)
            if r >= lo:
                refs.append(r - lo)
                continue
            j = where.get(id(a))
            if j is None:
                j = where[id(a)] = -len(inputs) - 1
                inputs.append(a)
            refs.append(j)
        wiring.append((node.attrs, tuple(refs)))
    return inputs, tuple(wiring)


def _same_inputs(inputs, ref, carry):
    """Whether a chunk reads what the reference chunk reads, the carried value aside."""
    if len(inputs) != len(ref):
        return False
    for j, (a, b) in enumerate(zip(inputs, ref)):
        if a is b or j == carry:
            continue
        va, vb = a.host, b.host
        kind = type(va)
        if (kind is float or kind is int) and type(vb) is kind and va == vb and (va != 0 or kind is int) \
                and a.dtype is b.dtype and a.op is None and b.op is None and a.buffer is None and b.buffer is None \
                and a.shape == () == b.shape:
            continue  # (equal Python ints, or equal nonzero floats: the same bits in any dtype)
        if not (a.op is None and b.op is None and a.buffer is None and b.buffer is None
                and a.shape == () == b.shape and a.dtype is b.dtype
                and np.asarray(a.host, dtype=a.dtype.np).tobytes() == np.asarray(b.host, dtype=b.dtype.np).tobytes()):
            return False
    return True
