"""Recycled device buffers: the memory of large arrays that died, handed to the next program
that makes an output of the same shape and dtype (donated and aliased to that output).

A fresh output buffer costs page faults on every first touch (XLA's CPU outputs get no huge
pages): one pass over 1e7 float32 costs ~19 ms into a new buffer and ~2.5 ms into a reused one.

A buffer whose memory a numpy array shows (`np.asarray(x)` on the CPU reads without a copy:
`_host_alias`) is *lent*: while that numpy array (or any numpy view of it) lives, the buffer is
never handed out for reuse, since a program writing its output there would change the numpy
array under the user. A lent buffer whose array dies waits aside and is recycled once the last
numpy array over it is gone. A buffer smaller than any the pool has ever watched can never be
recycled, so its lending needs no event: it is only `show`n (a weak reference `is_lent` reads),
and only with `_config.verify` or `debug` on (tests, debugging: nothing else reads it).

Threads: an array dies in whatever thread drops it last, at any point of that thread's code
(even inside a sync, through the garbage collector). Its finalizer therefore only appends an
event to `returned` (a deque: atomic, no lock), as does the death of a numpy array over a lent
buffer; the free lists are changed only by `take`, `give_back`, `lend` and `clear`, which the
engine calls with its lock held, and which first take in the events in the order they happened.
"""
from __future__ import annotations

import collections
import math
import weakref
from weakref import ref as _ref

from . import _config
from ._dtypes import _by_name
from ._graph import lock


class _Watch(weakref.ref):
    """A weak reference whose death appends `event` to its pool's `returned` (a quarter of
    `weakref.finalize`'s cost, which a zero-copy read pays on every lend)."""
    __slots__ = ("event",)


class BufferPool:
    def __init__(self):
        self._free = collections.OrderedDict()  # (device id, shape, dtype name) -> [buffers]
        self._pinned = weakref.WeakValueDictionary()  # id -> buffer shared outside (dlpack): never recycled
        self._lent = {}  # id(buffer) -> how many live numpy arrays show its memory
        self._parked = {}  # id(buffer) -> (buffer, key, size): dead array's buffer, still lent
        # events not taken in yet: (buffer, key, size) of a dead array, or (buffer,) when a numpy
        # array over a lent buffer died
        self.returned = collections.deque()
        self.held = 0  # bytes in the free lists (`returned` not counted yet)
        self._watches = {}  # id -> each live `_Watch` (a weak reference must be held to call back)
        # bytes of the smallest buffer `watch` ever took: a smaller one never enters the free lists
        self.smallest_watched = math.inf
        # weak references to the bases of the numpy arrays over the memory of buffers that can
        # never be recycled (`show`), dead ones dropped as it grows
        self._shown = []
        self._shown_purge_at = SHOWN_KEPT

    def _watch(self, obj, event):
        """When `obj` dies (in any thread, at any point), append `event` to `returned`."""
        ref = _Watch(obj, self._died)
        ref.event = event
        self._watches[id(ref)] = ref  # (by id: a weak reference hashes as its object, and a
        # zero-copy read's base, a ctypes block, has no hash)

    def _died(self, ref):
        self._watches.pop(id(ref), None)  # (dict and deque operations are atomic: no lock)
        self.returned.append(ref.event)

    @property
    def bytes(self):
        """Bytes kept for reuse, the dead arrays' buffers not moved in yet included."""
        with lock:
            self._drain()
            return self.held

    def pin(self, buffer):
        """The buffer is exported without a copy: its memory must outlive our array. (Weakly held:
        a pinned buffer that was never watched leaves no entry behind when it dies.)"""
        self._pinned[id(buffer)] = buffer

    def is_pinned(self, buffer):
        pinned = self._pinned
        # (none pinned, the common case: the mapping's own dict answers without its Python-level get)
        return bool(pinned.data) and pinned.get(id(buffer)) is buffer

    def lend(self, buffer, base):
        """`base` (the base object of a numpy array over the buffer's memory) shows the buffer:
        keep the buffer out of reuse until `base` dies. (A buffer that can never be recycled is
        `show`n instead.) Called with the engine lock held."""
        if self.returned:
            self._drain()
        lent = self._lent
        key = id(buffer)
        lent[key] = lent.get(key, 0) + 1
        self._watch(base, (buffer,))

    def recyclable(self, nbytes):
        """Whether a buffer of `nbytes` bytes may ever be handed out for reuse: only one at least
        as large as the smallest buffer `watch` has taken (whatever `_config.pool_min_bytes` said
        then) can be in the free lists, parked, or given back."""
        return nbytes >= self.smallest_watched

    def show(self, buffer, base):
        """`base` (the base object of a numpy array over the buffer's memory, holding the buffer:
        `_runtime.host_view`) shows a buffer that can never be recycled (`recyclable` is False: no
        program can be handed its memory), so there is nothing to keep it out of and no death to
        report: a weak reference to the base is kept for `is_lent` (tests, introspection) to
        read, in a list (an append: a small read's lending ~0.3 us cheaper, thread CPU, than a
        table by buffer). Called with the engine lock held."""
        shown = self._shown
        shown.append(_ref(base))
        if len(shown) >= self._shown_purge_at:
            self._shown = shown = [r for r in shown if r() is not None]
            self._shown_purge_at = max(SHOWN_KEPT, 2 * len(shown))

    def is_lent(self, buffer):
        """Whether some live numpy array shows the buffer's memory (`lend` or `show`). (A live base
        holds its buffer.) A buffer that can never be recycled is only `show`n with
        `_config.verify` or `debug` on (`_engine.host_view`): otherwise this says False for it."""
        with lock:
            self._drain()
            if id(buffer) in self._lent:
                return True
            for ref in self._shown:
                base = ref()
                if base is not None and base.buffer is buffer:
                    return True
            return False

    @staticmethod
    def nbytes(shape, dtype):
        return math.prod(shape) * dtype.bits // 8

    def watch(self, node, device_id):
        """When `node` (just realized with a large buffer) dies, keep its buffer for reuse."""
        size = self.nbytes(node.shape, node.dtype)
        if size >= _config.pool_min_bytes and _config.pool_max_bytes:
            if size < self.smallest_watched:
                self.smallest_watched = size
            self._watch(node, (node.buffer, (device_id, node.shape, node.dtype.name), size))

    def _drain(self):
        returned = self.returned
        while returned:
            event = returned.popleft()
            if len(event) == 1:
                self._release(event[0])
            else:
                self._recycle(*event)

    def _release(self, buffer):
        """A numpy array over a lent buffer died."""
        n = self._lent.get(id(buffer), 0) - 1
        if n > 0:
            self._lent[id(buffer)] = n
            return
        self._lent.pop(id(buffer), None)
        parked = self._parked.pop(id(buffer), None)
        if parked is not None:
            self._recycle(*parked)

    def _recycle(self, buffer, key, size):
        if self._pinned.get(id(buffer)) is buffer:
            del self._pinned[id(buffer)]
            return
        if id(buffer) in self._lent:  # a numpy array still shows its memory: wait for it
            self._parked[id(buffer)] = (buffer, key, size)
            return
        if buffer.is_deleted():
            return
        self._free.setdefault(key, []).append(buffer)
        self._free.move_to_end(key)
        self.held += size
        while self.held > _config.pool_max_bytes and self._free:
            k, bufs = next(iter(self._free.items()))
            bufs.pop(0)
            self.held -= self.nbytes(k[1], _by_name(k[2]))
            if not bufs:
                del self._free[k]

    def give_back(self, buffer, device_id, shape, dtype):
        """A buffer taken for a program that did not run."""
        self._recycle(buffer, (device_id, shape, dtype.name), self.nbytes(shape, dtype))

    def take(self, device_id, shape, dtype):
        """A dead buffer of this shape and dtype, or None."""
        if self.returned:
            self._drain()
        key = (device_id, shape, dtype.name)
        bufs = self._free.get(key)
        if not bufs:
            return None
        buf = bufs.pop()
        if not bufs:
            del self._free[key]
        self.held -= self.nbytes(shape, dtype)
        return buf

    def clear(self):
        """Forget the kept buffers (the lent ones stay lent: their numpy arrays are alive)."""
        returned = self.returned
        while returned:  # (a numpy array's death must still be counted)
            event = returned.popleft()
            if len(event) == 1:
                self._release(event[0])
        self._parked.clear()
        self._free.clear()
        self.held = 0


SHOWN_KEPT = 1024  # `_shown` references before the dead ones are dropped


pool = BufferPool()
