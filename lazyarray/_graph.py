"""The expression DAG: nodes, the pending set, topological order and structural keys.

A node is created once with its op, operands, static attributes, shape and dtype, and never
changes meaning. When its value is computed the node is *realized*: it keeps the device buffer
and drops its operands, so it becomes a leaf of every graph that still refers to it and the
history behind it can be freed.

Threads: tracing (building nodes, `pending.add`) takes no lock: a node is complete before any
other thread can reach it, `itertools.count` and `list.append` are atomic under the GIL, and a
lost increment of `nodes_since_sync` only moves a graph cut by a node. Everything that reads or
changes computed state (a sync, a cut, the caches) holds `lock`, one re-entrant engine lock
(`_engine` takes it for a whole sync), so two threads never realize the same node or walk a
graph another thread is realizing.
"""
from __future__ import annotations

import itertools
import threading
import weakref

# The engine lock: held for a whole sync (realize, cut, read), by `_engine`. Re-entrant because a
# sync can trace (a cut inside a data-dependent shape) and start another sync.
lock = threading.RLock()


class Node:
    __slots__ = ("op", "args", "attrs", "shape", "dtype", "buffer", "host", "serial", "__weakref__")

    def __init__(self, op, args, attrs, shape, dtype):
        self.op = op          # a Primitive, or None for a leaf
        self.args = args      # tuple of Nodes
        self.attrs = attrs    # hashable tuple of static attributes (part of the key)
        self.shape = shape    # tuple of ints
        self.dtype = dtype    # a DType
        self.buffer = None    # device buffer once realized
        self.host = None      # numpy value of a leaf not yet on the device

    @property
    def is_leaf(self):
        return self.op is None

    def realize(self, buffer):
        self.op = None
        self.args = ()
        self.attrs = ()
        self.buffer = buffer
        self.host = None

    def realize_host(self, value):
        """Realized by the interpreter: the value stays in host memory until a program needs it."""
        self.op = None
        self.args = ()
        self.attrs = ()
        self.host = value

    def __repr__(self):
        name = self.op.name if self.op is not None else ("buffer" if self.buffer is not None else "host")
        return f"Node({name}, shape={self.shape}, dtype={self.dtype})"


def leaf_from_host(value, shape, dtype):
    n = Node(None, (), (), shape, dtype)
    n.host = value
    return n


def leaf_from_buffer(buffer, shape, dtype):
    n = Node(None, (), (), shape, dtype)
    n.buffer = buffer
    return n


class _Pending:
    """Live array handles whose node is not yet realized, and the count of nodes traced since the
    last sync (the graph-cut budget).

    Handles are kept as plain weak references in a list (no callbacks, no WeakSet: Array.__eq__
    is elementwise, and a callback per dead temporary would cost more than the op that made it);
    dead or realized entries are dropped whenever the list is read."""

    def __init__(self):
        self._refs = []
        self._compact_at = 16384
        self.nodes_since_sync = 0

    def add(self, handle):
        refs = self._refs
        refs.append(weakref.ref(handle))  # atomic: any thread, no lock
        if len(refs) >= self._compact_at:  # bound the list between syncs (amortised O(1))
            with lock:
                self._compact_at = max(16384, 2 * len(self.live()))

    def live(self):
        """The live handles still on a pending node, each once; compacts the list. Called with
        `lock` held. Other threads may append while this runs: only the entries read here are
        replaced (one slice assignment, atomic under the GIL), so their appends are kept."""
        refs = self._refs
        n = len(refs)
        out, kept, seen = [], [], set()
        for r in refs[:n]:
            h = r()
            if h is not None and h._pending_node().op is not None and id(h) not in seen:
                seen.add(id(h))
                out.append(h)
                kept.append(r)
        refs[:n] = kept
        return out

    def __len__(self):
        return len(self._refs)


pending = _Pending()


_serials = itertools.count()


def bind(op, args, attrs, shape, dtype):
    """Record a node. The caller (an op's builder) has already checked shapes and dtypes. The
    serial number orders computed nodes by creation (loop detection reads it: `_segment`)."""
    n = Node(op, args, attrs, shape, dtype)
    n.serial = next(_serials)
    pending.nodes_since_sync += 1
    return n


class Plan:
    """One pass over a pending graph that yields everything a sync needs: the computed nodes in
    dependency order, the leaves in first-use order (the program's parameters) and the structural
    signature (equal signatures compile to the same program; leaf data never enters it).
    Outputs can be added in several steps; the walk continues where it stopped. Iterative, so
    deep chains do not hit Python's recursion limit."""

    __slots__ = ("order", "leaves", "sig", "index")

    def __init__(self, outputs=()):
        self.order, self.leaves, self.sig, self.index = [], [], [], {}
        self.add(outputs)

    def add(self, outputs):
        if pending.nodes_since_sync > 400:  # likely deep: recursion would fail and start over
            self._walk(outputs)
            return self
        index, sig, order, leaves = self.index, self.sig, self.order, self.leaves
        mark = (len(sig), len(order), len(leaves))

        def visit(node):
            """Recursive post-order walk: the fast path for graphs of ordinary depth (a closure
            over the lists: ~40% cheaper than a method, and this runs at every sync)."""
            i = index.get(id(node))
            if i is not None:
                return i
            if node.op is None:
                sig.append((node.shape, node.dtype, node.buffer is None and not node.shape))
                leaves.append(node)
            else:
                sig.append((node.op, node.attrs, node.shape, node.dtype, tuple(map(visit, node.args))))
                order.append(node)
            i = index[id(node)] = len(sig) - 1
            return i

        try:
            for out in outputs:
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
            self.index.pop(id(entry_node), None)
        del self.sig[n_sig:], self.order[n_order:], self.leaves[n_leaves:]

    def _walk(self, outputs):
        """The same walk with an explicit stack, for chains deeper than Python's recursion limit."""
        index, sig, order, leaves = self.index, self.sig, self.order, self.leaves
        for out in outputs:
            if id(out) in index:
                continue
            stack = [out]
            pop = stack.pop
            while stack:
                node = stack[-1]
                nid = id(node)
                if nid in index:
                    pop()
                    continue
                if node.op is None:
                    index[nid] = len(sig)
                    sig.append((node.shape, node.dtype, node.buffer is None and not node.shape))
                    leaves.append(node)
                    pop()
                    continue
                args = node.args
                missing = [a for a in args if id(a) not in index]
                if missing:
                    stack.extend(reversed(missing))
                    continue  # back here once the operands have positions
                pop()
                index[nid] = len(sig)
                sig.append((node.op, node.attrs, node.shape, node.dtype, tuple([index[id(a)] for a in args])))
                order.append(node)

    def key(self, outputs):
        return tuple(self.sig) + (tuple([self.index[id(o)] for o in outputs]),)


def split_leaves(leaves):
    """Leaves on the device (one parameter each), and host scalars (Python scalars, 0-D host
    values) grouped by dtype: each group is sent as ONE vector parameter and sliced apart in the
    program. A chain with 500 scalar parameters compiles ~3x slower than with them packed."""
    buffers, packed = [], {}
    for leaf in leaves:
        if leaf.buffer is None and not leaf.shape:
            packed.setdefault(leaf.dtype, []).append(leaf)
        else:
            buffers.append(leaf)
    return buffers, packed


def toposort(outputs):
    """Computed nodes in dependency order and leaves in first-use order."""
    plan = Plan(outputs)
    return plan.order, plan.leaves
