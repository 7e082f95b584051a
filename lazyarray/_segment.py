"""Loop segmentation: computing a long pending graph one iteration at a time.

A Python loop that never reads its values unrolls into one pending graph: 100 steps of logistic
regression are ~1200 nodes, and compiling them as one program costs seconds (and a different
program for every iteration count). In creation order the nodes of such a graph repeat with a
period: one iteration's ops, each taking its operands from the same distance back. `chunks`
finds the longest periodic run that ends at the newest node and splits the graph into chunks of
whole periods (one iteration each, or a few when an iteration has under 8 nodes; loops of one or
two ops stay whole). The first chunk compiles; every later chunk is the same graph applied to the
previous chunk's outputs, so it is a cache hit. The price is the fusion across iterations, which
for whole loop steps is small next to a compile per unrolled length.

Correctness never depends on the period found: every chunk is keyed and compiled like any other
graph, so a wrong guess costs a compile, never a wrong value.
"""
from __future__ import annotations

MIN_NODES = 48    # smaller graphs compile as one program
MIN_REPEATS = 3   # a run counts as periodic once it repeats at least this often
MIN_PERIOD = 3    # shorter periods are not split (see chunks)
MIN_CHUNK = 32    # nodes per chunk when the period is under MIN_CHUNK / 4: several periods a chunk
MAX_SKIP = 8      # newest nodes that may fall outside the periodic run (a cut lands mid-expression:
                  # the handle being created when the budget ran out is an output of the cut)


_last_chunk = None  # descriptions of the nodes of the last loop chunk found


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
    return n_nodes >= MIN_NODES or (_last_chunk is not None and n_nodes >= len(_last_chunk))


def chunks(outputs, order, keep_tail):
    """Split the graph behind `outputs` (`order`: its computed nodes, any order) into pieces to
    compute in order, or None if it is small or not periodic. Returns (pieces, tail_size): each piece is the list of its nodes that later
    pieces or `outputs` need. With `keep_tail` (a budget cut) the trailing nodes after the last
    chunk that looks like the first stay pending (tail_size of them); otherwise the caller
    computes whatever the pieces left (at most one chunk's worth) with `outputs`."""
    global _last_chunk
    nodes = sorted(order, key=_serial)  # the computed nodes in creation order
    n = len(nodes)
    if _last_chunk is not None and n >= len(_last_chunk):
        found = _continued(nodes, _last_chunk)
        if found:
            start, size, full = 0, len(_last_chunk), found
            return _pieces(nodes, outputs, start, size, full, keep_tail)
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
    _last_chunk = descs[start:start + size]
    return _pieces(nodes, outputs, start, size, full, keep_tail)


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


def _pieces(nodes, outputs, start, size, full, keep_tail):
    n = len(nodes)
    rank = {id(node): i for i, node in enumerate(nodes)}

    def piece_of(i):
        return -1 if i < start else min((i - start) // size, full)  # `full` is the tail

    need = bytearray(n)
    for i, node in enumerate(nodes):
        p = piece_of(i)
        for a in node.args:
            if a.op is not None and piece_of(rank[id(a)]) != p:
                need[rank[id(a)]] = 1
    for o in outputs:
        if o.op is not None:
            need[rank[id(o)]] = 1

    pieces = []
    if start:
        pieces.append([nodes[i] for i in range(start) if need[i]])
    pattern = None
    last = start + full * size
    for j in range(full):
        lo = start + j * size
        mask = bytes(need[lo:lo + size])
        if pattern is None:
            pattern = mask
        elif keep_tail and mask != pattern:
            last = lo  # a chunk holding other live arrays: leave it to a later cut
            break
        pieces.append([nodes[i] for i in range(lo, lo + size) if need[i]])
    return pieces, n - last
