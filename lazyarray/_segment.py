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
"""
from __future__ import annotations

from ._engine_state import state  # the last loop chunk found and how many of its chunks ran

MIN_NODES = 48    # smaller graphs compile as one program
MIN_REPEATS = 3   # a run counts as periodic once it repeats at least this often
MIN_PERIOD = 3    # shorter periods are not split (see chunks)
MIN_CHUNK = 32    # nodes per chunk when the period is under MIN_CHUNK / 4: several periods a chunk
MAX_SKIP = 8      # newest nodes that may fall outside the periodic run (a cut lands mid-expression:
                  # the handle being created when the budget ran out is an output of the cut)


HOT_CHUNKS = 256    # after this many chunks a loop is hot (more than a cold run of 100 steps) ...
FUSE = 8            # ... and its chunks cover this many iterations


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


def chunks(outputs, order, keep_tail):
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
            return _pieces(nodes, outputs, _bounds(0, len(last), full, keep_tail), 0, keep_tail)
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
    state.last_chunk, state.chunks_seen = descs[start:start + size], 0
    return _pieces(nodes, outputs, _bounds(start, size, full, keep_tail), 1 if start else 0, keep_tail)


def _bounds(start, size, full, keep_tail):
    """Where the pieces start (and the last one ends): the prefix, then the chunks. A loop that
    has run HOT_CHUNKS chunks is hot: its chunks then cover FUSE iterations each, a program
    compiled once more (in the background, through the interpreter tier) that fuses across
    iterations; at a read, the iterations left over run as single chunks."""
    state.chunks_seen += full  # chunks of the last loop run so far
    bounds = [0] if start else []
    bounds += [start + j * size for j in range(full + 1)]
    if state.chunks_seen > HOT_CHUNKS and full >= FUSE:
        groups = full // FUSE
        fused = [start + j * size * FUSE for j in range(groups + 1)]
        rest = [] if keep_tail else [start + (groups * FUSE + j) * size for j in range(1, full - groups * FUSE + 1)]
        bounds = ([0] if start else []) + fused + rest
    return bounds


def _continued(nodes, chunk):
    """How many whole copies of the last loop chunk the graph starts with: after a budget cut the
    pending rest of a loop starts at a chunk boundary, and its end (the read after the loop) may
    be too short to look periodic on its own."""
    size, full = len(chunk), 0
    while (full + 1) * size <= len(nodes):
        lo = full * size
        if any(_describe(nodes[lo + i]) != chunk[i] for i in range(size)):
            break
        full += 1
    return full


def _pieces(nodes, outputs, bounds, first_chunk, keep_tail):
    """The nodes each piece [bounds[k], bounds[k+1]) must output: those later pieces or
    `outputs` read. Pieces before `first_chunk` are the prefix; nodes after bounds[-1] the tail."""
    n = len(nodes)
    rank = {id(node): i for i, node in enumerate(nodes)}
    piece = [len(bounds) - 1] * n  # the tail's index
    for k in range(len(bounds) - 1):
        for i in range(bounds[k], bounds[k + 1]):
            piece[i] = k
    need = bytearray(n)
    for i, node in enumerate(nodes):
        p = piece[i]
        for a in node.args:
            if a.op is not None:
                r = rank[id(a)]
                if piece[r] != p:
                    need[r] = 1
    for o in outputs:
        if o.op is not None:
            need[rank[id(o)]] = 1

    pieces, masks, last = [], {}, bounds[-1]
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        mask = bytes(need[lo:hi])
        if keep_tail and k >= first_chunk and masks.setdefault(hi - lo, mask) != mask:
            last = lo  # a chunk holding other live arrays: leave it to a later cut
            break
        pieces.append([nodes[i] for i in range(lo, hi) if need[i]])
    return pieces, n - last
