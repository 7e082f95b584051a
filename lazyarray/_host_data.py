"""Host data entering a graph: numpy arrays as leaf nodes.

The one path by which a user's values become graph leaves, wherever they come from: `asarray`,
a numpy operand of an operator (`x + np.ones(3)`), a numpy index array (`y[idx]`). It sits in
the array layer so that the array object and indexing convert numpy values without calling up
into the namespace. A 0-D value waits on the host (it is sent with the program that needs it:
data, never part of the program's key); larger ones go to the device at once, so the user may
mutate their copy (`asarray` on one CPU device keeps its private copy on the host instead:
`_creation_functions._host_copy_leaf`).
"""
from __future__ import annotations

import numpy as np

from . import _dtypes as dt
from . import _runtime
from ._graph import leaf_from_buffer, leaf_from_host
from ._metrics import metrics


def leaf(host, device):
    """A leaf holding a copy of `host` (C-contiguous, of a dtype we have) on `device`."""
    dtype = dt.from_numpy(host.dtype)
    if host.ndim == 0:
        return leaf_from_host(np.array(host), (), dtype)
    buf = _runtime.put(host, device._pjrt)
    metrics.bytes_to_device += host.nbytes
    return leaf_from_buffer(buf, tuple(host.shape), dtype)


def numpy_leaf(obj, device, dtype=None):
    """numpy's array of `obj` (an ndarray, or anything with `__array__`) as a leaf on `device`,
    cast to `dtype` when one is given; TypeError for a numpy dtype we have no counterpart of."""
    return leaf(normalized(obj, dtype), device)


def normalized(obj, dtype=None):
    """numpy's array of `obj`, cast to `dtype` when one is given, else in native byte order,
    C-ordered (`obj` itself when it already is); TypeError for a numpy dtype we have no
    counterpart of."""
    host = np.asarray(obj)
    if dtype is not None:
        host = host.astype(dtype.np)
    elif not host.dtype.isnative:
        host = host.astype(host.dtype.newbyteorder("="))
    if host.dtype not in dt.NUMPY_DTYPES:
        raise TypeError(f"numpy dtype {host.dtype} has no Array API counterpart")
    return np.asarray(host, order="C")  # (ascontiguousarray makes 0-D 1-D)
