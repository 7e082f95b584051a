"""The expression DAG: nodes, the pending set, topological order and structural keys.

A node is created once with its op, operands, static attributes, shape and dtype, and never
changes meaning. When its value is computed the node is *realized*: it keeps the device buffer
and drops its operands, so it becomes a leaf of every graph that still refers to it and the
history behind it can be freed.

Threads: tracing (building nodes, `pending.add`) takes no lock: a node is complete before any
other thread can reach it, `itertools.count` and `list.append` are atomic under the GIL, and a
lost increment of `nodes_since_sync` only moves a graph cut by a node. Merging two graph
components (`Component`, when an op joins two pending graphs) takes a small lock of its own,
`_merge_lock`, never the engine lock; a handle registered while its component is being merged is
re-registered on the merged root (`_Pending.add`), so no live pending handle is lost (a sync may
see one twice: reads drop duplicates). Everything that reads or
changes computed state (a sync, a cut, the caches) holds `lock`, one re-entrant engine lock
(`_engine` takes it for a whole sync), so two threads never realize the same node or walk a
graph another thread is realizing.
"""
from __future__ import annotations

import itertools
import threading
import weakref

from ._bounded import keep

# The engine lock: held for a whole sync (realize, cut, read), by `_engine`. Re-entrant because a
# sync can trace (a cut inside a data-dependent shape) and start another sync.
lock = threading.RLock()


class Node:
    __slots__ = ("op", "args", "attrs", "shape", "dtype", "buffer", "host", "serial", "comp", "computed",
                 "__weakref__")

    def __init__(self, op, args, attrs, shape, dtype, host=None):
        self.op = op          # a Primitive, or None for a leaf
        self.args = args      # tuple of Nodes
        self.attrs = attrs    # hashable tuple of static attributes (part of the key)
        self.shape = shape    # tuple of ints
        self.dtype = dtype    # a DType
        self.buffer = None    # device buffer once realized
        self.host = host      # numpy value of a leaf not yet on the device
        self.comp = None      # a computed node's graph component (`Component`); None once realized
        self.computed = False  # True once a sync computed its value (realized): never packed (`packs`)

    @property
    def is_leaf(self):
        return self.op is None

    def realize(self, buffer):
        self._forget_history()
        self.buffer = buffer
        self.host = None

    def realize_host(self, value):
        """Realized by the interpreter: the value stays in host memory until a program needs it."""
        self._forget_history()
        self.host = value

    def _forget_history(self):
        """A computed node becomes a leaf: its operands (and the graph behind them) can be freed.
        It stays marked `computed`, so a 0-D value keys (and runs) as a parameter of its own
        whether a program realized it on the device or the interpreter on the host (`packs`)."""
        self.op = None
        self.args = ()
        self.attrs = ()
        self.comp = None
        self.computed = True

    def __repr__(self):
        name = self.op.name if self.op is not None else ("buffer" if self.buffer is not None else "host")
        return f"Node({name}, shape={self.shape}, dtype={self.dtype})"


def leaf_from_host(value, shape, dtype):
    return Node(None, (), (), shape, dtype, value)


# Host scalar leaves by Python object, within one graph: id(value) -> leaf, whose `host` is that
# object (so its id is not reused while the entry lives). Emptied when a sync starts walking a
# graph (`Plan`): which uses share a leaf is then a function of the code between two syncs, never
# of what ran before (a second call builds the first call's graphs, key for key), and the table
# holds at most one graph's scalars. One dtype per object: a use in another dtype replaces the
# entry. Threads: dict reads and writes are atomic; a race makes two leaves, both correct.
class _ScalarLeaves(dict):
    """The table's dict: emptying it (`clear`, wherever a sync starts) also resets `last_scalar`.
    Lookups and stores are the dict's own (C)."""
    __slots__ = ()

    def clear(self):
        dict.clear(self)
        last_scalar[0] = _NO_LEAF


scalar_leaves = _ScalarLeaves()
SCALAR_LEAF_CACHE = 4096  # (a graph that never syncs: bounded by emptying)
# The leaf `scalar_leaf` gave last, in a one-item list: the operator fast path (`_array_methods`)
# takes it when its `host` is the operand and its dtype the array's (a loop's `y = y + 1.0` asks
# for one object again and again: one subscript instead of `id()` and a dict lookup). It is always
# an entry of `scalar_leaves` (set with each entry, reset by every `clear`), so it gives the leaf
# the table would. A leaf with a sentinel host (never a Python scalar) when there is none.
_NO_SCALAR = object()
last_scalar = [None]


def scalar_leaf(value, dtype):
    """The 0-D host leaf of the Python scalar `value` in `dtype`: the same object (the `1.0` of
    a loop's `y = y + 1.0`) gives the same leaf until the next sync. A program then takes it as
    one parameter, not one per use, and a loop's constant is one place every chunk reads
    (`_segment`). A host scalar leaf is never changed (it is packed into a vector parameter,
    never given a buffer of its own: `split_leaves`), so sharing one changes no result. The
    operator fast path (`_array_methods`) reads `scalar_leaves` inline and calls this on a miss."""
    leaf = scalar_leaves.get(id(value))
    if leaf is not None and leaf.host is value and leaf.dtype is dtype and leaf.buffer is None:
        last_scalar[0] = leaf
        return leaf
    leaf = Node(None, (), (), (), dtype, value)
    if len(scalar_leaves) >= SCALAR_LEAF_CACHE:
        scalar_leaves.clear()
    scalar_leaves[id(value)] = leaf
    last_scalar[0] = leaf
    return leaf


_NO_LEAF = leaf_from_host(_NO_SCALAR, (), None)
last_scalar[0] = _NO_LEAF


def leaf_from_buffer(buffer, shape, dtype):
    n = Node(None, (), (), shape, dtype)
    n.buffer = buffer
    return n


class Component:
    """A set of pending nodes joined by shared computed operands (union-find), and the weak
    references to the live handles on its nodes. A sync computes a target's graph plus the live
    pending arrays that share work with it; those can only be in the target's component, so a
    sync looks at them alone, never at every live pending array (recursive scalar code would
    otherwise pay for all the work traced before each read). Components only merge (a realized
    node no longer joins anything but the merge stays): a component is a superset of the arrays
    that can share work, and `_engine._overlapping` picks those that do."""
    __slots__ = ("parent", "handles", "compact_at")

    def __init__(self):
        self.parent = None    # the component this one was merged into; None for a root
        self.handles = []     # weak references to handles, dead or realized ones dropped on reads
        self.compact_at = 64


def root(comp):
    """The component `comp` was merged into (itself when it is a root)."""
    while comp.parent is not None:
        comp = comp.parent
    return comp


def _merge(a, b):
    """Merge two root components; returns the new root. Under `_merge_lock` (tracing threads may
    merge concurrently). The merged root's parent is set before its handles move: a handle
    appended to it meanwhile is either moved or re-appended by `_Pending.add`."""
    with _merge_lock:
        a, b = root(a), root(b)
        if a is b:
            return a
        if len(a.handles) < len(b.handles):
            a, b = b, a
        b.parent = a
        a.handles.extend(b.handles)
        b.handles = []
        return a


_merge_lock = threading.Lock()

# Components made since the last compaction that `_Pending` keeps before dropping the dead ones
# (then twice the live ones, at least this). A dead component kept there keeps its handle list
# and weak references alive, so the collector's young collections move them to older generations
# (SciPy's call table, second pass: 62 -> 50 young collections, no full one, with 64 for 512);
# the compaction's cost a component is the same at any bound.
COMPACT_COMPONENTS = 64


SHORT_HANDLES = 8  # a component's handle list `pending_beside` reads without compacting it


class _Pending:
    """Live array handles whose node is not yet realized, kept per graph component
    (`Component`), and the count of nodes traced since the last sync (the graph-cut budget).

    Handles are kept as plain weak references in lists (no callbacks, no WeakSet: Array.__eq__
    is elementwise, and a callback per dead temporary would cost more than the op that made it);
    dead or realized entries are dropped whenever a list is read. `_components` holds every
    component made since its last compaction (cuts read them all)."""

    def __init__(self):
        self._components = []
        self._compact_at = COMPACT_COMPONENTS
        self.nodes_since_sync = 0

    def new_component(self):
        comp = Component()
        comps = self._components
        if len(comps) >= self._compact_at:  # bound the list between syncs (amortised O(1))
            # (before the new component joins the list: it has no handle yet, and a prune then
            # would drop it, hiding the array about to be registered on it from cuts' `live`)
            with lock:
                self._prune_components()
        comps.append(comp)  # atomic: any thread, no lock
        return comp

    def _prune_components(self):
        """Drop the components with no live handle on a pending node (a scalar read's temporary
        `t[i] <= x` makes one and lets it die at once): `_compact_components`' choice of what to
        keep, without collecting the live handles or compacting each list (reads and `add` do
        that), ~3x cheaper a component. Called with `lock` held."""
        comps = self._components
        n = len(comps)
        kept = []
        for comp in comps[:n]:
            if comp.parent is not None:
                continue  # merged: its handles moved to the root
            for r in comp.handles:
                h = r()
                if h is not None and h._pending_node().op is not None:
                    kept.append(comp)
                    break
        comps[:n] = kept
        self._compact_at = max(COMPACT_COMPONENTS, 2 * len(kept))

    def add(self, handle, node):
        """Register `handle`, now on the pending `node`."""
        comp = node.comp
        if comp is None:  # (realized meanwhile by another thread)
            return
        if comp.parent is not None:
            comp = node.comp = root(comp)
        ref = weakref.ref(handle)
        refs = comp.handles
        refs.append(ref)  # atomic: any thread, no lock
        if comp.parent is not None:  # merged while appending: make sure the new root has it
            root(comp).handles.append(ref)
        elif len(refs) >= comp.compact_at:  # bound the list between syncs (amortised O(1))
            with lock:
                comp.compact_at = max(64, 2 * len(self._live_in(comp, set(), [])))

    def _live_in(self, comp, seen, out):
        """Append to `out` the live handles of `comp` still on a pending node, each once (`seen`:
        ids already taken); compacts its list. Other threads may append while this runs: only
        the entries read here are replaced (one slice assignment, atomic under the GIL)."""
        refs = comp.handles
        n = len(refs)
        kept = []
        for r in refs[:n]:
            h = r()
            if h is not None and h._pending_node().op is not None and id(h) not in seen:
                seen.add(id(h))
                out.append(h)
                kept.append(r)
        if len(kept) != n:
            refs[:n] = kept
        return out

    def live_with(self, nodes):
        """The live pending handles in the components of `nodes` (the arrays a sync of `nodes` may
        share work with). Called with `lock` held."""
        if len(nodes) == 1:  # (the common case: one read)
            comp = nodes[0].comp
            return [] if comp is None else self._live_in(root(comp), set(), [])
        out, seen, done = [], set(), set()
        for node in nodes:
            comp = node.comp
            if comp is None:
                continue
            comp = root(comp)
            if id(comp) not in done:
                done.add(id(comp))
                self._live_in(comp, seen, out)
        return out

    def pending_beside(self, node, device=None):
        """The pending nodes, other than `node`, of the live handles on `device` (None: any) in
        `node`'s component: what a one-target sync may share work with (`live_with` and the
        engine's filter in one pass over the component's list, compacting it as `_live_in`
        does). Called with `lock` held.

        A handle met twice (registered again while its component merged) is not looked for: its
        node would only be a candidate twice, which the callers take as once (`_unique`, and
        `_host_sync` skips a node realized already), and `add`'s compaction (`_live_in`) drops
        the second reference. A short list (at most `SHORT_HANDLES`: a read's own graph, a
        temporary's dead handle beside it) is read as it is, not compacted (a dead or realized
        handle costs a look at the next read; keeping it costs nothing else): the compaction
        costs ~0.7 us of a ~15 us read (thread CPU, the 4b read)."""
        comp = node.comp
        if comp is None:
            return []
        if comp.parent is not None:
            comp = root(comp)
        refs = comp.handles
        n = len(refs)
        if n <= SHORT_HANDLES:
            out = []
            for r in refs[:n]:
                h = r()
                if h is not None:
                    p = h._pending_node()
                    if p is not node and p.op is not None and (device is None or h._device is device):
                        out.append(p)
            return out
        kept, out = [], []
        for r in refs[:n]:
            h = r()
            if h is None:
                continue
            p = h._pending_node()
            if p.op is None:
                continue
            kept.append(r)
            if p is not node and (device is None or h._device is device):
                out.append(p)
        if len(kept) != n:
            refs[:n] = kept
        return out

    def live(self):
        """Every live handle still on a pending node, each once; compacts the lists. Called with
        `lock` held."""
        out = []
        self._compact_components(out)
        return out

    def _compact_components(self, out=None):
        comps = self._components
        n = len(comps)
        seen, kept = set(), []
        out = [] if out is None else out
        for comp in comps[:n]:
            if comp.parent is not None:
                continue  # merged: its handles moved to the root
            self._live_in(comp, seen, out)
            if comp.handles:
                kept.append(comp)
        comps[:n] = kept
        self._compact_at = max(COMPACT_COMPONENTS, 2 * len(kept))
        return out

    def __len__(self):
        """Weak references held (compacted first: called with `lock` held)."""
        self._compact_components()
        return sum(len(c.handles) for c in self._components)


pending = _Pending()


_serials = itertools.count()

# The computed nodes bound since the last sync, in creation order, after the pending tail a loop's
# budget cut left (`_segment.restore_tail`): a loop's next cut tries them as its graph before
# walking it (`_segment.chunks`; a recipe's key tells whether they are exactly the graph's
# computed nodes: they may hold nodes realized since, or ones no output reads, kept alive here
# until the next sync). A sync empties it as it starts (`Plan`, `computed_nodes`, a recipe's
# replay, a small host read), so it keeps nothing alive past a sync; the first node bound after
# a sync starts it again (every sync zeroes `nodes_since_sync`: a sync path that did not empty
# it leaves nothing behind for long).
recorded = []
_record = recorded.append


# The slots `Node(op, args, attrs, shape, dtype)` sets besides its arguments, with their values:
# `bind` and `bind_pair` build their nodes inline (`object.__new__` and the stores, a Python call
# less: ~0.08 us of a namespace function's recording) while these are the ones they set, and call
# the constructor otherwise, so a field added to Node is never left unset.
def _constructor_defaults():
    probe = Node(None, (), (), (), None)
    given = {"op", "args", "attrs", "shape", "dtype", "__weakref__"}
    return {name: getattr(probe, name) for name in Node.__slots__ if name not in given and hasattr(probe, name)}


_INLINE = _constructor_defaults() == {"buffer": None, "host": None, "comp": None, "computed": False}
_new = object.__new__


def bind(op, args, attrs, shape, dtype):
    """Record a node. The caller (an op's builder) has already checked shapes and dtypes. The
    serial number orders computed nodes by creation (loop detection reads it: `_segment`). The
    node joins the component of its pending operands (merging theirs), or starts one."""
    comp = None
    for a in args:
        c = a.comp
        if c is None:
            continue
        if c.parent is not None:
            c = a.comp = root(c)
        if comp is None:
            comp = c
        elif c is not comp:
            comp = _merge(comp, c)
    if _INLINE:  # (`Node(op, args, attrs, shape, dtype)`, inline: `_constructor_defaults`)
        n = _new(Node)
        n.op = op
        n.args = args
        n.attrs = attrs
        n.shape = shape
        n.dtype = dtype
        n.buffer = n.host = None
        n.computed = False
    else:
        n = Node(op, args, attrs, shape, dtype)
    n.comp = comp if comp is not None else pending.new_component()
    n.serial = next(_serials)
    count = pending.nodes_since_sync
    if count:
        _record(n)
    else:
        recorded[:] = (n,)  # (the first node since a sync)
    pending.nodes_since_sync = count + 1
    return n


_next_serial = _serials.__next__


def bind_pair(op, a, b, attrs, shape, dtype):
    """`bind(op, (a, b), ...)`, for the operator fast path (`_array_methods`) and binary
    elementwise primitives: the same node, component and serial, without the loop (~15% of a
    binary node's recording)."""
    comp = a.comp
    if comp is not None and comp.parent is not None:
        comp = a.comp = root(comp)
    c = b.comp
    if c is not None:
        if c.parent is not None:
            c = b.comp = root(c)
        if comp is None:
            comp = c
        elif c is not comp:
            comp = _merge(comp, c)
    if _INLINE:  # (`Node(op, (a, b), attrs, shape, dtype)`, inline: `_constructor_defaults`)
        n = _new(Node)
        n.op = op
        n.args = (a, b)
        n.attrs = attrs
        n.shape = shape
        n.dtype = dtype
        n.buffer = n.host = None
        n.computed = False
    else:
        n = Node(op, (a, b), attrs, shape, dtype)
    n.comp = comp if comp is not None else pending.new_component()
    n.serial = _next_serial()
    count = pending.nodes_since_sync
    if count:
        _record(n)
    else:
        recorded[:] = (n,)  # (the first node since a sync)
    pending.nodes_since_sync = count + 1
    return n


class Plan:
    """One pass over a pending graph that yields everything a sync needs: the computed nodes in
    dependency order, the leaves in first-use order (the program's parameters) and the structural
    signature (equal signatures compile to the same program; leaf data never enters it).
    Outputs can be added in several steps; the walk continues where it stopped. Iterative, so
    deep chains do not hit Python's recursion limit.

    `index` maps each node walked (the node itself, not its id) to its position. A Node has
    identity equality and hash (it defines neither), so a node key means what its id meant
    while the plan holds the node (it does: `order`, `leaves`), and a lookup makes no id int:
    walks ~20-28% cheaper (a loop's 1000-node cut 445 -> 357 us, CPU, min of 25)."""

    __slots__ = ("order", "leaves", "sig", "index", "steps")

    def __init__(self, outputs=()):
        if scalar_leaves:  # a sync: later uses of a scalar get new leaves (`scalar_leaf`)
            scalar_leaves.clear()
        if recorded:
            recorded.clear()
        self.order, self.leaves, self.sig, self.index = [], [], [], {}
        self.steps = None  # the interpreter's schedule, when its caller kept one (`_interpret.schedule`)
        self.add(outputs)

    def add(self, outputs):
        if pending.nodes_since_sync > 400:  # likely deep: recursion would fail and start over
            self._walk(outputs)
            return self
        index, sig, order, leaves = self.index, self.sig, self.order, self.leaves
        mark = (len(sig), len(order), len(leaves))

        get = index.get

        def visit(node):
            """Recursive post-order walk of a node without a position: the fast path for graphs
            of ordinary depth (a closure over the lists: ~40% cheaper than a method, and this
            runs at every sync; operands with a position are read here, not visited)."""
            op = node.op
            if op is None:
                shape = node.shape
                sig.append((shape, node.dtype, node.buffer is None and not shape and not node.computed))
                leaves.append(node)
            else:
                args = node.args
                if len(args) == 2:  # (the commonest: a binary op, without the list)
                    a, b = args
                    i = get(a)
                    if i is None:
                        i = visit(a)
                    j = get(b)
                    if j is None:
                        j = visit(b)
                    positions = (i, j)
                elif len(args) == 1:
                    a = args[0]
                    i = get(a)
                    positions = (visit(a) if i is None else i,)
                else:
                    positions = []
                    for a in args:
                        i = get(a)
                        positions.append(visit(a) if i is None else i)
                    positions = tuple(positions)
                sig.append((op, node.attrs, node.shape, node.dtype, positions))
                order.append(node)
            i = index[node] = len(sig) - 1
            return i

        try:
            for out in outputs:
                if out not in index:
                    visit(out)
        except RecursionError:  # a deep chain: undo this call's part and walk it with a stack
            self._undo(mark)
            self._walk(outputs)
        finally:
            # `visit` refers to itself through its closure cell: a reference cycle that would keep
            # the walked nodes (and their device buffers) alive until the cyclic collector runs
            visit = None  # noqa: F841
        return self

    def _undo(self, mark):
        n_sig, n_order, n_leaves = mark
        for entry_node in self.order[n_order:] + self.leaves[n_leaves:]:
            self.index.pop(entry_node, None)
        del self.sig[n_sig:], self.order[n_order:], self.leaves[n_leaves:]

    def _walk(self, outputs):
        """The same walk with an explicit stack, for chains deeper than Python's recursion limit.
        A node is pushed with the chain of first operands below it that have no position yet
        (nothing precedes a first operand, so they are walked first); the node on top then
        positions its leaves in operand order up to its next computed operand without a
        position, which is pushed the same way, or, once all have one, takes its own.

        A budget cut walks ~1000 nodes this way at every cut (a third of an unread chain's cost
        per op), so the commonest node, a binary op, is unrolled (no positions list), and the
        next position is a local count rather than `len(sig)` (same entries, same order)."""
        index, sig, order, leaves = self.index, self.sig, self.order, self.leaves
        get = index.get
        entry, take, leaf = sig.append, order.append, leaves.append
        k = len(sig)  # the next position: len(sig), kept locally
        # the last node positioned and the last second operand looked up, with their positions:
        # a chain's next node reads the one (and often the other: a loop's constant) again
        prev = other = None
        prev_at = other_at = -1
        for out in outputs:
            if out in index:
                continue
            if out.op is None:
                index[out] = k
                k += 1
                entry((out.shape, out.dtype, out.buffer is None and not out.shape and not out.computed))
                leaf(out)
                continue
            stack = [out]
            push, pop = stack.append, stack.pop
            node = out
            while True:
                while True:  # down the chain of first operands without a position
                    args = node.args
                    if not args:
                        break
                    node = args[0]
                    if node.op is None or node in index:
                        break
                    push(node)
                while stack:
                    node = stack[-1]
                    args = node.args
                    if len(args) == 2:  # (the commonest: a binary op, unrolled)
                        a, b = args
                        if a is prev and b is other:
                            # A chain's run (`y = y + c` in a loop: each node's operands are the
                            # node just positioned and the last second operand): the steps below
                            # for each such node on the stack, from its top, in one tight loop.
                            # (in a run, the node just positioned is at k - 1)
                            start = k
                            for node in reversed(stack):
                                args = node.args
                                if len(args) != 2:
                                    break
                                a, b = args
                                if a is not prev or b is not other:
                                    break
                                index[node] = k
                                entry((node.op, node.attrs, node.shape, node.dtype, (k - 1, other_at)))
                                take(node)
                                prev = node
                                k += 1
                            prev_at = k - 1
                            del stack[start - k:]
                            continue
                        if a is prev:  # (a chain: the node just positioned)
                            i = prev_at
                        else:
                            i = get(a)
                            if i is None:
                                if a.op is not None:
                                    push(a)
                                    node = a
                                    break
                                i = index[a] = k
                                k += 1
                                entry((a.shape, a.dtype, a.buffer is None and not a.shape and not a.computed))
                                leaf(a)
                        if b is other:  # (a loop's constant: the last second operand)
                            j = other_at
                        else:
                            j = get(b)
                            if j is None:
                                if b.op is not None:
                                    push(b)
                                    node = b
                                    break
                                j = index[b] = k
                                k += 1
                                entry((b.shape, b.dtype, b.buffer is None and not b.shape and not b.computed))
                                leaf(b)
                            other, other_at = b, j
                        positions = (i, j)
                    elif len(args) == 1:
                        a = args[0]
                        if a is prev:
                            i = prev_at
                        else:
                            i = get(a)
                            if i is None:
                                if a.op is not None:
                                    push(a)
                                    node = a
                                    break
                                i = index[a] = k
                                k += 1
                                entry((a.shape, a.dtype, a.buffer is None and not a.shape and not a.computed))
                                leaf(a)
                        positions = (i,)
                    else:
                        positions = []
                        for a in args:
                            i = get(a)
                            if i is None:
                                if a.op is not None:
                                    push(a)
                                    break
                                i = index[a] = k
                                k += 1
                                entry((a.shape, a.dtype, a.buffer is None and not a.shape and not a.computed))
                                leaf(a)
                            positions.append(i)
                        else:
                            positions = tuple(positions)
                        if type(positions) is list:  # (the loop stopped at `a`, pushed)
                            node = a  # walk down its first operands
                            break
                    pop()
                    index[node] = prev_at = k
                    prev = node
                    k += 1
                    entry((node.op, node.attrs, node.shape, node.dtype, positions))
                    take(node)
                else:
                    break

    def key(self, outputs):
        """The structural key: the signature and the outputs' positions (`StructuralKey`)."""
        sig = self.sig
        index = self.index
        outs = (index[outputs[0]],) if len(outputs) == 1 else tuple([index[o] for o in outputs])
        # A structure seen lately (a loop's cut or chunk, a repeated read) is found by a cheap
        # fingerprint and then compared in full: equal keys are interchangeable, and the compare
        # costs what the interning lookup's compare would, without hashing every entry first
        # (~half of a long key's cost: ~50 ns a node of a 1000-node cut). The compare reads the
        # signature list against the kept key's entries as a list (`_recent`: the fingerprint's
        # len(sig) and outputs are the rest of the key), so a found key is not built first.
        near = (len(sig), outs, sig[-1]) if sig else (0, outs)
        kept = _recent.get(near)
        if kept is not None:
            for known, entries in kept:
                if entries == sig:
                    return known
        sig.append(outs)
        try:
            key = StructuralKey(sig)
        finally:
            sig.pop()
        key._hash = _tuple_hash(key)  # (now: a first lookup that raised AttributeError cost ~1-2 us)
        # one object per structure: a sync looks its key up in several dicts (`state.programs`,
        # `state.replays`, ...), and each lookup of an equal but distinct key compares the two
        # element by element (~1 us for a small graph); the interned one is matched by identity
        known = _interned.get(key)
        if known is None:  # (past one cache's worth, the oldest is dropped)
            known = _shared(key)
            keep(_interned, known, known, INTERNED_KEYS, oldest=True)
        if kept is None:
            keep(_recent, near, [(known, list(known[:-1]))], RECENT_KEYS, oldest=True)
        else:  # (structures sharing a fingerprint: the last few, newest first)
            kept.insert(0, (known, list(known[:-1])))
            del kept[RECENT_PER_FINGERPRINT:]
        return known


_interned = {}  # StructuralKey -> itself: the object `Plan.key` returns for that structure
INTERNED_KEYS = 1024

# A kept key's entries, shared by every kept key that has an equal one (`_shared`): entry -> itself
_entries = {}
SHARED_ENTRIES = 1 << 15  # emptied past this many (keys made before keep theirs)
SHARE_AFTER = INTERNED_KEYS  # new structures kept as they are before sharing starts
_unshared = 0  # how many of those this process made


def _shared(key):
    """The key a new structure is kept under (`Plan.key`): equal to `key`, made of the entries
    earlier kept keys hold where they have an equal one. Kept keys live long (the engine keeps
    thousands: `state.sightings`, `state.programs`) and every entry is a tuple the cyclic
    collector tracks and visits at each full collection (it holds an op and a dtype); SciPy's
    signal tests left 216,000 of them in 4,096 kept keys, of which 24,000 distinct (a leaf's
    (shape, dtype) repeats in most graphs): shared, a full collection visits a tenth as many.
    Equal entries are interchangeable, as equal keys are (one program serves both).
    Sharing costs a look-up per entry (~60-100 ns), which pays only once the process keeps many
    keys: the first SHARE_AFTER new structures are kept as they are (SciPy's 188-call table makes
    339, a test suite tens of thousands)."""
    global _unshared
    if _unshared < SHARE_AFTER:
        _unshared += 1
        return key
    if len(_entries) >= SHARED_ENTRIES:
        _entries.clear()
    shared = StructuralKey(map(_entries.setdefault, key, key))
    shared._hash = key._hash
    return shared


# (entries, output positions, last entry) -> [(an interned key made with them, its entries but the
# outputs' positions as a list: what `Plan.key` compares a signature with), ...], newest first
_recent = {}
RECENT_KEYS = INTERNED_KEYS  # fingerprints kept (the oldest dropped first)
# structures kept per fingerprint: a SciPy table pass has 276 structures and 250 fingerprints (up
# to 6 structures share one); with one kept each, structures sharing one replaced each other and
# 44 of a pass's 330 keys took the miss path (the whole key built, hashed and looked up)
RECENT_PER_FINGERPRINT = 8


class StructuralKey(tuple):
    """A plan's structural key: a plain tuple (equal to, and hashing as, the same tuple) that
    computes its hash once. A sync looks its key up in several dicts (`state.programs`,
    `state.sightings`, ...), each inside a bigger tuple; a tuple does not cache its hash, and
    hashing a 50-node signature costs ~1-3 us each time."""

    def __hash__(self):
        try:
            return self._hash  # (set by `Plan.key`)
        except AttributeError:
            h = self._hash = tuple.__hash__(self)
            return h


_tuple_hash = tuple.__hash__


def packs(leaf):
    """Whether a program takes `leaf` packed with the other host scalars of its dtype (one vector
    parameter, `split_leaves`) rather than as a parameter of its own: a 0-D host value given as a
    leaf (a Python scalar, an index, a 0-D host array). A 0-D value a sync computed is never
    packed, wherever it was realized: the interpreter leaves it on the host (`realize_host`), a
    program on the device (`realize`), and the next graph must key and run alike either way
    (one program for both, in this process and in the next one that loads it from disk). The
    walk (`Plan`) and `split_leaves` write this test inline."""
    return leaf.buffer is None and not leaf.shape and not leaf.computed


def split_leaves(leaves):
    """Leaves on the device (one parameter each), and host scalars (`packs`: Python scalars, 0-D
    host values given as leaves) grouped by dtype: each group is sent as ONE vector parameter
    and sliced apart in the program. A chain with 500 scalar parameters compiles ~3x slower than
    with them packed."""
    buffers, packed = [], {}
    for leaf in leaves:
        if leaf.buffer is None and not leaf.shape and not leaf.computed:  # (`packs`, inline)
            packed.setdefault(leaf.dtype, []).append(leaf)
        else:
            buffers.append(leaf)
    return buffers, packed


def computed_nodes(outputs):
    """The computed nodes of the graph behind `outputs` (the nodes a `Plan` of it would `order`),
    in no particular order: what loop chunking reads at a budget cut (`_segment.chunks` sorts
    them by creation), without the plan's signature, positions and leaves, which the chunks'
    own plans make again (~0.2 ms instead of ~0.5 for a 1000-node cut). Starts a sync as a
    `Plan` does: later uses of a Python scalar get new leaves (`scalar_leaf`)."""
    if scalar_leaves:
        scalar_leaves.clear()
    if recorded:
        recorded.clear()
    seen = {}  # node -> None: keyed by the node itself, as `Plan.index`; insertion-ordered
    stack = [o for o in outputs if o.op is not None]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if node in seen:
            continue
        seen[node] = None
        for a in node.args:
            if a.op is not None and a not in seen:
                push(a)
    return list(seen)


def toposort(outputs):
    """Computed nodes in dependency order and leaves in first-use order."""
    plan = Plan(outputs)
    return plan.order, plan.leaves
