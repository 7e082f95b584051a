"""A graph's structural key as bytes that mean the same in every process: the on-disk cache's key.

The in-memory program cache is keyed by the plan's structural key (ops, attributes, shapes,
dtypes, wiring: `_graph.Plan.key`), a tuple of Python objects compared by `==`. The on-disk cache
needs a name that another process computes alike for the same graph, and never for another one.
Emitting the StableHLO text and hashing it gives that, but costs the whole lowering (LAPACK
kernels are lowered through jax: tens of ms each) at every first sight, only to look a file up.
`encode` writes the structural key instead, exactly and with a type tag on every value, so two
keys have equal bytes only if their values are equal AND of the same types: 0.0 and -0.0, NaNs
with different payloads, 1 and True and 1.0, float32 and float64 scalars all differ. A value of
a type not listed here raises `Unkeyable`: the caller falls back to hashing the emitted text,
never to a repr (an object's repr may hold a memory address that another process reuses for
another object).

The bytes name the graph's structure only; what turns a structure into a program (this source
code, numpy, Python) is in `code_fingerprint`, which the caller hashes in beside them: editing
any lazyarray module, or upgrading, names every program anew.
"""
from __future__ import annotations

import hashlib
import os
import re
import struct
import sys

import numpy as np

from ._dtypes import DType
from ._graph import StructuralKey
from ._ops.core import OPS, OpDef
from ._ops.loop import Body

_DOUBLE = struct.Struct("<d")


class Unkeyable(Exception):
    """A structural key holds a value with no exact, process-independent encoding."""


def encode(key) -> bytes:
    """The bytes of a structural key (`Plan.key`, or any value of the types below), equal across
    processes for equal keys."""
    out = []
    if type(key) is tuple or type(key) is StructuralKey:  # a key's entries, one per node and leaf: the fast path first
        out.append(f"({len(key)}")
        for entry in key:
            if not _node_entry(entry, out):
                _enc(entry, out)
        out.append(")")
    else:
        _enc(key, out)
    return "".join(out).encode()


_INTS = re.compile(r"\((-?\d+, )*(-?\d+,?)?\)\Z").match  # the repr of a tuple of Python ints


def _node_entry(entry, out):
    """A signature entry written in one piece (`_enc` would take a call per value): a computed
    node's (op, attrs, shape, dtype, operand positions) or a leaf's (shape, dtype, packed).
    False: not one of those."""
    if type(entry) is not tuple:
        return False
    if len(entry) == 3:  # a leaf: (shape, dtype, packed host scalar)
        shape, dtype, packed = entry
        if type(shape) is not tuple or type(dtype) is not DType or type(packed) is not bool:
            return False
        rs = repr(shape)
        if not _INTS(rs):
            return False
        out.append(f"l{rs}{dtype.name};{'T' if packed else 'F'}")
        return True
    if len(entry) != 5:
        return False
    op, attrs, shape, dtype, args = entry
    if not isinstance(op, OpDef) or type(dtype) is not DType or type(shape) is not tuple or type(args) is not tuple:
        return False
    rs, ra = repr(shape), repr(args)
    if OPS.get(op.name) is not op or not _INTS(rs) or not _INTS(ra):
        return False
    out.append(f"n{len(op.name)}:{op.name}{rs}{dtype.name};{ra}")
    if type(attrs) is tuple and not attrs:
        out.append("(0)")
    else:
        _enc(attrs, out)
    return True


def digest(*keys) -> str:
    """sha256 of the keys' encodings, hex."""
    h = hashlib.sha256()
    for key in keys:
        h.update(encode(key))
    return h.hexdigest()


def _str(s):
    return f"{len(s)}:{s}"


def _enc(v, out):
    t = type(v)
    if t is tuple or t is StructuralKey or (isinstance(v, tuple) and hasattr(t, "_fields")):  # a namedtuple: its op's Attrs
        out.append(f"({len(v)}")
        for x in v:
            _enc(x, out)
        out.append(")")
    elif t is int:
        out.append(f"i{v};")
    elif t is DType:
        out.append(f"d{v.name};")
    elif isinstance(v, OpDef) and OPS.get(v.name) is v:  # (names are unique: `OpDef.__init__`)
        out.append("o" + _str(v.name))
    elif t is bool:
        out.append("T" if v else "F")
    elif v is None:
        out.append("N")
    elif t is str:
        out.append("s" + _str(v))
    elif t is float:
        out.append("f" + _DOUBLE.pack(v).hex())
    elif t is complex:
        out.append("c" + _DOUBLE.pack(v.real).hex() + _DOUBLE.pack(v.imag).hex())
    elif t is bytes:
        out.append("b" + _str(v.hex()))
    elif t is list:
        out.append(f"[{len(v)}")
        for x in v:
            _enc(x, out)
        out.append("]")
    elif t is frozenset or t is set:
        items = sorted(encode(x).decode() for x in v)
        out.append(f"{{{len(items)}" + "".join(items) + "}")
    elif t is dict:
        items = sorted(encode(k).decode() + encode(x).decode() for k, x in v.items())
        out.append(f"<{len(items)}" + "".join(items) + ">")
    elif isinstance(v, np.generic) and v.dtype.kind in "biufc":
        out.append("g" + _str(v.dtype.str) + v.tobytes().hex() + ";")
    elif t is np.ndarray and v.dtype.kind in "biufc":
        a = np.ascontiguousarray(v)
        out.append("a" + _str(a.dtype.str))
        _enc(tuple(a.shape), out)
        out.append(_str(a.tobytes().hex()))
    elif isinstance(v, np.dtype) and v.kind in "biufc":
        out.append("D" + _str(v.str))
    elif t is Body:  # a loop's body: equal bodies are equal signatures (`Body.__eq__`)
        out.append("B")
        _enc(v.sig, out)
    else:
        raise Unkeyable(f"no exact encoding for a {t.__module__}.{t.__qualname__} in a structural key")


_fingerprint = None


def code_fingerprint() -> str:
    """What turns a structural key into a program besides the key: every lazyarray source file,
    numpy's and Python's versions. Hashed once per process (~550 kB of source: a few ms)."""
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.sha256(f"python-{sys.version_info[:3]}|numpy-{np.__version__}|".encode())
        root = os.path.dirname(os.path.abspath(__file__))
        paths = []
        for dirpath, dirnames, files in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            paths.extend(os.path.join(dirpath, f) for f in files if f.endswith(".py"))
        for p in sorted(paths):
            h.update(_str(os.path.relpath(p, root)).encode())
            with open(p, "rb") as f:
                data = f.read()
            h.update(f"{len(data)}:".encode())
            h.update(data)
        _fingerprint = h.hexdigest()[:32]
    return _fingerprint
