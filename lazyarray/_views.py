"""numpy's aliasing on a functional graph: the view steps.

A view is a handle whose value is a function of its base's value (`forward`), and a write through
it becomes a new value of the base (`inverse`: base value, new view value -> new base value), the
idea of PyTorch's functionalization. `_array_object._View` holds one step and replays it whenever
the base has been written, so every alias sees every write, while nodes recorded before a write
keep the value they read (nodes never change).

Which calls return views follows numpy: basic indexing (except an integer for every axis, which
numpy answers with a scalar, a copy), reshape when numpy's strides allow it, permute_dims, the
transposes, expand_dims, squeeze, flip, unstack; broadcast_to and linalg.diagonal are read-only
views. To decide what numpy would do for `reshape` each view carries its element strides relative
to the buffer it aliases (a plain array is C-contiguous).
"""
from __future__ import annotations

import threading

from . import _linalg_ops
from . import _ops as ops

# Every read-modify-write of an array family's value (a write through a view, __setitem__, taking
# in a numpy alias's writes) holds this lock, so threads writing disjoint parts of one array (as
# numpy allows: SciPy's ndimage threads fill `out[i]` each) never lose each other's writes.
write_lock = threading.RLock()


_contiguous = {}  # shape -> its C-order element strides (a function of a tuple of ints; bounded)


def contiguous_strides(shape):
    """C-order element strides of `shape` (memoized: every basic read of a plain array asks, ~400
    times a pass of SciPy's table, mostly for a few shapes)."""
    if type(shape) is not tuple:
        shape = tuple(shape)
    strides = _contiguous.get(shape)
    if strides is None:
        out, step = [], 1
        for n in reversed(shape):
            out.append(step)
            step *= max(n, 1)
        strides = tuple(reversed(out))
        if len(_contiguous) >= 4096:
            _contiguous.clear()
        _contiguous[shape] = strides
    return strides


def reshape_strides(shape, strides, new_shape):
    """Element strides under which `new_shape` reads the same elements in C order as (shape,
    strides), or None when no such strides exist (numpy then copies)."""
    size = 1
    for n in shape:
        size *= n
    if size == 0:
        return contiguous_strides(new_shape)
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    new_strides = [0] * len(new_shape)
    oi, ni = 0, 0
    while oi < len(old) and ni < len(new_shape):
        oj, nj = oi + 1, ni + 1
        o_prod, n_prod = old[oi][0], new_shape[ni]
        while o_prod != n_prod:  # grow the smaller side until both cover the same elements
            if n_prod < o_prod:
                n_prod *= new_shape[nj]
                nj += 1
            else:
                o_prod *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):  # the old axes merged here must be contiguous in each other
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        new_strides[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new_strides[k - 1] = new_strides[k] * new_shape[k]
        oi, ni = oj, nj
    return tuple(new_strides)


class Step:
    """One view step: `forward(base_node)` is the view's value; `inverse(base_node, node)` is the
    base's value after the view was set to `node` (None: the view is read-only)."""
    __slots__ = ()
    readonly = False

    def forward(self, base):
        raise NotImplementedError

    def inverse(self, base, node):
        raise NotImplementedError


class Reshape(Step):
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape

    def forward(self, base):
        return ops.reshape(base, self.shape)

    def inverse(self, base, node):
        return ops.reshape(node, base.shape)


class Transpose(Step):
    __slots__ = ("perm", "back")

    def __init__(self, perm):
        self.perm = tuple(perm)
        self.back = tuple(sorted(range(len(perm)), key=self.perm.__getitem__))

    def forward(self, base):
        return ops.transpose(base, self.perm)

    def inverse(self, base, node):
        return ops.transpose(node, self.back)


class Reverse(Step):
    __slots__ = ("axes",)

    def __init__(self, axes):
        self.axes = tuple(axes)

    def forward(self, base):
        return ops.reverse(base, self.axes)

    def inverse(self, base, node):
        return ops.reverse(node, self.axes)


class ReadOnly(Step):
    """A view numpy makes read-only (broadcast_to, diagonal): `fn(base_node)` is its value."""
    __slots__ = ("fn", "name")
    readonly = True

    def __init__(self, fn, name):
        self.fn, self.name = fn, name

    def forward(self, base):
        return self.fn(base)

    def inverse(self, base, node):
        raise self.refusal()

    def refusal(self):
        return ValueError(f"assignment destination is read-only: the result of {self.name} is a "
                          "read-only view of its argument; write into a copy "
                          "(xp.asarray(v, copy=True)) instead")


def diagonal(offset, name):
    """The read-only view step of numpy's diagonal (linalg.diagonal, diag of a matrix)."""
    return ReadOnly(lambda node: _linalg_ops.diagonal(node, offset), name)


def readonly_step(x):
    """The first read-only step on the chain of views from x to its base, or None."""
    while hasattr(x, "_base"):
        if x._step.readonly:
            return x._step
        x = x._base
    return None


def transposed_strides(strides, perm):
    return tuple(strides[p] for p in perm)


def reversed_strides(strides, axes):
    return tuple(-s if i in axes else s for i, s in enumerate(strides))


def broadcast_strides(shape, strides, new_shape):
    lead = len(new_shape) - len(shape)
    out = [0] * lead
    for n, s, m in zip(shape, strides, new_shape[lead:]):
        out.append(s if n == m else 0)
    return tuple(out)


class Reinterpret(Step):
    """numpy's `x.view(dtype)`: the same bytes read as another dtype. Same item size: a bitcast;
    complex -> its real type: (real, imag) pairs along a last axis twice as long; the reverse
    halves it."""
    __slots__ = ("src", "dst")

    def __init__(self, src, dst):
        self.src, self.dst = src, dst

    def forward(self, base):
        return _reinterpret(base, self.dst)

    def inverse(self, base, node):
        return _reinterpret(node, self.src)


def _reinterpret(node, dst):
    src = node.dtype
    if src.bits == dst.bits:
        return ops.bitcast(node, dst)
    lead, n = node.shape[:-1], node.shape[-1]
    if src.kind == "c":  # -> (..., 2n) of its real parts and imaginary parts interleaved
        parts = [ops.reshape(part(node), lead + (n, 1)) for part in (ops.REAL, ops.IMAG)]
        return ops.reshape(ops.concatenate(parts, len(lead) + 1), lead + (2 * n,))
    pairs = ops.reshape(node, lead + (n // 2, 2))
    re, im = (ops.reshape(ops.slice_(pairs, (0,) * len(lead) + (0, k), lead + (n // 2, k + 1)), lead + (n // 2,))
              for k in (0, 1))
    return ops.COMPLEX(re, im)


def reinterpreted_strides(strides, src, dst):
    """Element strides after a dtype view (the last axis is contiguous: numpy requires it)."""
    if src.bits == dst.bits:
        return strides
    if src.bits > dst.bits:
        return tuple(2 * s for s in strides[:-1]) + (1,)
    return tuple(s // 2 for s in strides[:-1]) + (1,)
