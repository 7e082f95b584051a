"""`asarray` of a large numpy array without a copy until the array is first used.

A pending graph reads its inputs when it runs, so `asarray` copies host data at once: a later
write into the caller's numpy array must not reach ops recorded before it. For a large array
that copy is most of the cost (SciPy's `test_map_coordinates_large_data` hands over 3.6 GB and
only ever reads it back with `np.asarray`: the copy took ~10 s here, mostly the first touch of
3.6 GB of fresh memory), and often nothing needs it: the array is only read back to numpy.

So `asarray(a)` (copy=None, no cast) of a C-contiguous numpy array of at least
`BORROW_MIN_BYTES` *borrows* `a`: the returned array is a host leaf over `a`'s own memory, of a
class (`Borrowed`) that takes the copy at the array's first use, that is at the first read of
its node: an op or a view recorded on it, a write into it, a scalar read, `asarray` of it, a
dlpack export. No op can be recorded on it before that copy, so no pending graph ever reads the
caller's memory. `np.asarray(x)` before the first use is `a` itself (numpy's and
array-api-strict's alias: no copy, and writes into it are x's value); `.shape`, `.dtype`,
`.ndim`, `.size` and `.device` read nothing.

What a caller can see: a write into `a` made before x's first use is part of x's value (as it
is with numpy's own `asarray`, and as the standard's copy=None, "reuse the memory if possible",
allows); one made after it is not (x holds the copy taken then, as every array did before).
Below the threshold, a copy costs less than it risks, and `asarray` copies at once as before.
"""
from __future__ import annotations

import threading

import numpy as np

from . import _dtypes as dt
from . import _runtime
from ._array_object import _NODE_SLOT, Array, Deferred
from ._graph import leaf_from_host
from ._metrics import metrics

BORROW_MIN_BYTES = 64 << 20  # (a fresh 64 MiB copy costs ~20-70 ms on this machine)

_lock = threading.Lock()  # one first use takes the copy; a racing one waits and finds it taken


def borrowable(obj, device) -> bool:
    """Whether `asarray(obj, device=device)` (copy=None, no dtype asked) may borrow obj."""
    return (type(obj) is np.ndarray and obj.nbytes >= BORROW_MIN_BYTES and device.mesh is None
            and obj.flags.c_contiguous and obj.dtype.isnative and obj.dtype in dt.NUMPY_DTYPES)


def borrow(obj: np.ndarray, device) -> Array:
    """An array over obj's memory that copies it at its first use (see the module docstring)."""
    x = _new(Borrowed)  # (`Array._wrap` of a leaf, inline: nothing to register)
    _NODE_SLOT.__set__(x, leaf_from_host(obj, tuple(obj.shape), dt.from_numpy(obj.dtype)))
    x._device = device
    return x


_new = object.__new__


class Borrowed(Deferred):
    """An array whose leaf still reads the caller's numpy array (`borrow`): a form of the
    deferred-binding protocol (`_array_object.Deferred`), whose shape, dtype, ndim and size read
    nothing."""
    __slots__ = ()

    def _bind(self):
        """The first use: the leaf gets a device copy of the borrowed memory's current value and
        lets go of that memory."""
        with _lock:
            node = _NODE_SLOT.__get__(self)
            if type(self) is Borrowed:
                host = node.host
                node.buffer = _runtime.put(host, self._device._pjrt)
                metrics.bytes_to_device += host.nbytes
                node.host = None
                self._settle(node)
        return node

    def __array__(self, dtype=None, copy=None):
        with _lock:
            if type(self) is Borrowed:  # (not yet used: the borrowed memory is the value)
                host = _NODE_SLOT.__get__(self).host
                if dtype is not None and np.dtype(dtype) != host.dtype:
                    if copy is False:
                        raise ValueError(f"cannot convert a {self.dtype} array to numpy "
                                         f"{np.dtype(dtype)} without a copy")
                    return host.astype(dtype)
                return np.array(host, copy=True) if copy else host
        return Array.__array__(self, dtype, copy)
