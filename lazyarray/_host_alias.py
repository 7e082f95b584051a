"""`np.asarray(x)` that aliases x, as numpy's, PyTorch's (CPU) and array-api-strict's do.

Code such as SciPy's `ndimage.correlate(x, w, output=out)` fills `np.asarray(out)` and returns;
with a silent copy the caller's `out` would stay unchanged. So the numpy array handed out (the
*host alias*) and the array it was taken from (the *holder*, a base array or a view) are kept
equal in both directions:

- numpy -> lazyarray: the holder's family (its root base and every view of it) is swapped to a
  class whose node read first compares each live host alias with the value it last agreed with
  (`flush`); a change becomes a new leaf written into the holder (through its views' inverse
  steps). So a write into the numpy array is seen by every later read and lazy op of the family,
  and never by ops recorded before it (they hold the old nodes).
- lazyarray -> numpy: a write to the family (`x[i] = v`, `x += 1`, a write through a view)
  computes the new value at once and copies it into every live host alias (`after_write`): one
  sync per write while a numpy alias lives.

An alias lives while the user holds the numpy array or anything made from it (numpy views of it
keep it alive); when only we hold it, the next flush takes in its last writes and forgets it.

Zero-copy reads (*shared* aliases). On the CPU, `np.asarray(x)` of a base array whose realized
node nothing else holds (no other handle, no pending op, no view; checked by reference count
once the family's class is swapped, so no other thread can take the node meanwhile) hands out
the device buffer's own memory, or a host leaf's own value (`asarray`'s copy, an interpreter
result nothing else holds: `_engine._host_leaf_view`), writable: no copy. The two directions then hold without any
bookkeeping, since the numpy array IS the node's value: its writes are the node's, and nobody
else can see the node. That lasts until the node is about to gain another user: any read of the
holder's node (a lazy op on x, a view of x, a write to x, float(x), ...) first *unshares* the
alias: the node gets a copy of the memory's current value (`_engine.unshare`: a device buffer, or a
host array for a host leaf), the numpy
array keeps the old memory, and from then on it is an ordinary alias (compared at each read,
refreshed at each write, as above). So a read that is only looked at costs nothing, and one that
is used lazily afterwards costs the one copy a plain read always cost. While a numpy array over a
buffer's memory lives, the buffer is lent (`_pool`): never reused or donated, even after its
node died; the pool takes it back once the last numpy array over it is gone. `.shape`, `.dtype`
and the like read the node without this (a numpy write changes neither). Elsewhere (another
device, a mesh, a view's alias, a 0-D array, a host value held elsewhere, a node with other users) the
alias is a host copy, as before.

A shared alias is held by weak references only (the family's `shared`: the numpy array and the
node; the family knows its root array weakly too): a dropped read has nothing to take in (its
writes were the node's own), so the numpy array, its memory, the array and its node die where
the user lets go of them, not at the next `np.asarray` (which only forgets the dead entry). A
family keyed by a dead array's id is stale: `_family_of` ignores it, a sweep drops it. Once a
shared alias unshares it is a copied alias, held strongly like any other.

Costs of a copied alias: one host copy at export, then a comparison of the alias's bytes at each
node read of the family while it lives.
"""
from __future__ import annotations

import math
import sys
import weakref

import numpy as np

from . import _engine
from ._views import readonly_step, write_lock
from ._graph import leaf_from_host, lock as _engine_lock

_OURS = 2  # sys.getrefcount of an alias's array when only the alias holds it (+1 for the call)
# sys.getrefcount of a base array's node, asked inside `_engine.host_view` during `export`, when
# nothing but the array holds it: its slot, export's local, host_view's argument, the check's
# argument and getrefcount's own (tests/test_zero_copy.py fails if this drifts)
_SOLE_USER_REFS = 5


class _Alias:
    """A copied alias (a host copy of its holder's value, compared and refreshed)."""
    __slots__ = ("host", "holder", "node", "readonly")

    def __init__(self, host, holder, node, readonly):
        self.host = host      # the numpy array handed out
        self.holder = holder  # the handle whose value it shows
        self.node = node      # the realized node whose value `host` held when last in agreement
        self.readonly = readonly  # the holder is a read-only view: so is the numpy array


class _Family:
    __slots__ = ("aliases", "busy", "plain_cls", "root_ref", "shared")

    def __init__(self, plain_cls, root):
        self.aliases = []  # copied aliases of the root and its views
        self.busy = False
        self.plain_cls = plain_cls
        ref = self.root_ref = _RootRef(root, _root_died)
        ref.key = id(root)
        # the root's zero-copy read: (weak reference to the numpy array over its node's memory,
        # weak reference to that node), or None
        self.shared = None


_families = {}  # id(root array) -> _Family of the live host aliases of it and its views


class _RootRef(weakref.ref):
    """A family's weak reference to its root, which forgets the family when the root dies."""
    __slots__ = ("key",)


def _root_died(ref, families=_families):  # (bound: it may run while the interpreter exits)
    """The root of a family died: forget the family (what `_sweep` would do at the next export,
    without its lock and walk). Runs inside the root's deallocation, in whatever thread dropped
    it, so it takes no lock (a thread holding the engine lock may be the one, and another may
    hold `write_lock` waiting for it); the dict operations are atomic, and no other live array
    can have the dying one's id, so no other family can be at its key. A dying root has no
    copied alias (each holds its holder, and so the root), so there is nothing to take in."""
    fam = families.get(ref.key)
    if fam is not None and fam.root_ref is ref:
        families.pop(ref.key, None)


def _family_of(root):
    """The family of the live array `root`, or None (a family left at its id by a dead array
    whose place it took is not its family)."""
    fam = _families.get(id(root))
    if fam is not None and fam.root_ref() is not root:
        return None
    return fam


def _end(root, fam):
    """The family has no alias left: forget it and turn its root plain. (Under write_lock.)"""
    if _families.get(id(root)) is fam:
        del _families[id(root)]
    root.__class__ = fam.plain_cls


_IS_VIEW = {}  # class -> whether its arrays are views (have a `_base`)


def _is_view(x):
    """Whether x is a view (a plain array's class has no `_base`: asking the instance would
    raise and catch an AttributeError, ~1 us, at every read)."""
    cls = type(x)
    r = _IS_VIEW.get(cls)
    if r is None:
        r = _IS_VIEW[cls] = hasattr(cls, "_base")
    return r


def _root(x):
    while _is_view(x):
        x = x._base
    return x


def export(x, aliased_cls):
    """The numpy array that aliases x (the same one for repeated calls while it lives)."""
    if _families:  # (`_sweep`'s first test, without its call: nothing aliased, as a rule)
        _sweep()
    view = _IS_VIEW.get(type(x))  # (`_is_view` and `_family_of` inline: ~0.25 us of a read in situ)
    root = _root(x) if view or (view is None and _is_view(x)) else x
    write_lock.acquire()  # (not `with`: an RLock's __exit__ costs ~0.25 us more, at every read)
    try:
        fam = _families.get(id(root))
        if fam is not None and fam.root_ref() is not root:
            fam = None
        if fam is not None:
            flush(root, capture=False)
            if x is root and fam.shared is not None:
                host = fam.shared[0]()
                if host is not None:
                    return host  # the node's own memory still
            for a in fam.aliases:
                if a.holder is x:
                    return a.host  # kept equal to x by flush/after_write
        node = x._node
        if fam is not None:  # (the flush above, or reading x's node, may have ended it)
            fam = _family_of(root)
        if fam is None:
            # (from here on another thread's read of the family's node waits for write_lock)
            fam = _families[id(root)] = _Family(type(root), root)
            root.__class__ = aliased_cls
        try:
            host = None
            if x is root and fam.shared is None:
                host = _engine.host_view(node, x._device, "numpy", _sole_user)
            if host is None:
                host = _engine.to_numpy(node, x._device, "numpy")  # a copy we own; node is realized
                return _add_alias(fam, x, node, host)
        except BaseException:
            if not fam.aliases and fam.shared is None:
                _end(root, fam)
            raise
        fam.shared = (weakref.ref(host), weakref.ref(node))
        return host
    finally:
        write_lock.release()


def _sole_user(node):
    """Whether nothing but its base array holds `node` (asked by `_engine.host_view`)."""
    return sys.getrefcount(node) <= _SOLE_USER_REFS


def _add_alias(fam, x, node, host):
    readonly = _is_view(x) and readonly_step(x) is not None
    if readonly:  # as numpy's array of a read-only view: a write raises at once
        host.flags.writeable = False
    fam.aliases.append(_Alias(host, x, node, readonly))
    return host


def _unshare(root, fam, host):
    """The root's node is about to gain another user (or a new value) while the numpy array
    `host` over its memory lives: the node takes a copy of the memory's current value into a
    buffer of its own, the numpy array keeps the memory (still lent) and becomes a copied alias
    (held strongly from now on). If the node is gone (the root was rebound to a new value and
    nothing else held it), nobody can see it: the alias's last agreed value is a copy of the
    memory instead."""
    node = fam.shared[1]()
    fam.shared = None
    if node is not None:
        _engine.unshare(node, root._device, host)
    else:
        node = leaf_from_host(host.copy(), host.shape, root.dtype)
    fam.aliases.append(_Alias(host, root, node, False))


def _value_view(node):
    """A realized node's value as numpy, without a copy where possible."""
    v = node.host
    if v is not None:
        if type(v) is np.ndarray and v.dtype is node.dtype.np and v.shape == node.shape:
            return v  # (the common case, as it is: np.broadcast_to costs ~4 us)
        return np.broadcast_to(np.asarray(v, dtype=node.dtype.np), node.shape)
    return np.asarray(node.buffer)


# bytes: an alias up to this size is compared as two bytes objects (two copies and one memcmp,
# ~0.5 us at 1 KiB, against ~6 us for the word arrays, their comparison and its reduction)
_BYTES_COMPARE = 1 << 16


def _agrees(host, node):
    """Bitwise equality (NaNs and -0.0 included) of an alias and a realized node's value."""
    if node.op is not None:
        return False
    value = _value_view(node)
    if value.shape != host.shape:
        return False
    if host.nbytes <= _BYTES_COMPARE and value.dtype == host.dtype:
        return host.tobytes() == value.tobytes()  # (both in C order: element by element, bit for bit)
    return bool((_words(host) == _words(value)).all())


def _with_family(root, fn, *args):
    """fn(root, family, *args) with the family of `root` under the write lock and marked busy;
    nothing when it has none or this thread is inside its flush or refresh already (they rebind,
    which calls back here). Nothing either when this thread holds the engine lock and another
    holds the write lock: that one may be an export waiting for the engine lock, so waiting here
    would deadlock (a sync's walk that read a handle's node as its class was swapped to
    `_HostAliased` mid-call, through the flushing `_node`: seen in `_graph`'s component pruning);
    the next read flushes instead. (A plain call, not a context manager: a flush runs at reads of
    every aliased family, and a generator-based one cost more than the rest of a flush of one
    small alias.)"""
    if not write_lock.acquire(blocking=not _engine_lock._is_owned()):
        return
    try:
        fam = _families.get(id(root))
        if fam is None or fam.busy or fam.root_ref() is not root:
            return
        fam.busy = True
        try:
            fn(root, fam, *args)
        finally:
            fam.busy = False
    finally:
        write_lock.release()


def flush(root, capture=True):
    """Take in what was written into the family's host aliases; forget those nobody holds. With
    `capture` (a read of the node that may hand it to a new user), a shared alias unshares."""
    if id(root) in _families:
        _with_family(root, _flush, capture)


def _flush(root, fam, capture=True):
    shared = fam.shared
    if shared is not None:  # (its writes are the node's already: nothing to take in)
        host = shared[0]()
        if host is None:
            fam.shared = None  # dropped
        elif capture:
            _unshare(root, fam, host)
        host = None
    taken = False
    dropped = []
    for a in list(fam.aliases):
        # an alias only we hold can no longer be written: once its writes are taken in (or it
        # agrees), it is forgotten, with one comparison (one dropped after this test may still
        # hold writes: it is compared again at the next flush)
        gone = sys.getrefcount(a.host) <= _OURS
        if not _agrees(a.host, a.node):
            leaf = leaf_from_host(a.host.copy(), a.host.shape, a.node.dtype)
            a.holder._rebind(leaf)
            a.node = leaf
            taken = True
        if gone:
            dropped.append(a)
    if taken:
        _refresh(root, fam)
    for a in dropped:
        fam.aliases.remove(a)
    if not fam.aliases and fam.shared is None:
        _end(root, fam)


def after_write(root):
    """The family was written through lazyarray: copy the new values into its host aliases."""
    if id(root) in _families:
        _with_family(root, _refresh)


def _refresh(root, fam):
    """Copy into each host alias the elements of its holder that changed since they last agreed.
    Only those: the rest of the numpy array may hold writes not yet taken in (another thread may
    be filling it right now), which a whole copy would undo."""
    shared = fam.shared
    if shared is not None:  # (the write below must not change the old node's value)
        host, root = shared[0](), fam.root_ref()
        if host is None or root is None:
            fam.shared = None
        elif root._pending_node() is not shared[1]():
            _unshare(root, fam, host)
        host = root = None
    for a in fam.aliases:
        node = a.holder._node
        if node is a.node:
            continue
        new = _engine.to_numpy(node, a.holder._device, "numpy alias")
        old = _value_view(a.node)
        changed = _differs(new, old)
        if changed.any():
            if a.readonly:
                a.host.flags.writeable = True
            a.host[changed] = new[changed]
            if a.readonly:
                a.host.flags.writeable = False
        a.node = node


_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _words(a):
    """An array's bytes as unsigned words, one row per element, for bitwise comparison (NaNs and
    -0.0 included). Whole words: a byte-wise `any(axis=1)` costs ~50x more on 1e7 float32."""
    a = np.ascontiguousarray(a).reshape(-1)
    size = a.dtype.itemsize
    word = size if size in _WORDS else math.gcd(size, 8)
    return a.view(_WORDS[word]).reshape(a.size, size // word)


def _differs(new, old):
    """Element mask where two arrays of one shape and dtype differ bitwise."""
    ne = _words(new) != _words(old)
    return (ne[:, 0] if ne.shape[1] == 1 else ne.any(axis=1)).reshape(new.shape)


def _sweep():
    """Drop the families of arrays that died, end those whose only alias was a zero-copy read
    nobody holds any more, and flush those with a copied alias nobody holds (it may hold writes
    to take in), so they let go of their arrays (a copied alias holds its holder, and so the
    family's root)."""
    if not _families:
        return
    getrefcount = sys.getrefcount
    for key, fam in list(_families.items()):
        root = fam.root_ref()
        if root is None:  # (a dead array had no copied alias: one would have held it)
            with write_lock:
                if _families.get(key) is fam:
                    del _families[key]
            continue
        aliases = fam.aliases
        if not aliases:
            shared = fam.shared
            if shared is not None and shared[0]() is None:
                _forget_dead_shared(fam, root)
            continue
        for a in aliases:  # (a loop, not any(generator): this runs at every np.asarray)
            if getrefcount(a.host) <= _OURS:
                break
        else:
            continue
        first = aliases[:1]  # (another thread's flush may empty the list meanwhile)
        if not first:
            continue
        flush(root, capture=False)


def _forget_dead_shared(fam, root):
    """The common case of `_sweep` for a live array (a zero-copy read looked at and dropped)
    without a whole flush: no copied alias, and nobody holds the numpy array: there is nothing
    to take in (the memory was the node's value) and the family just ends, as `_flush` would end
    it. Returns whether it did."""
    with write_lock:
        if fam.busy or fam.aliases or _families.get(id(root)) is not fam:
            return False
        shared = fam.shared
        if shared is not None and shared[0]() is not None:
            return False
        fam.shared = None
        _end(root, fam)
        return True
