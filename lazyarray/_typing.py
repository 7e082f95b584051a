"""The names the public API's annotations use, defined once.

The namespace's signatures are the standard's (`x: Array, /`, `axis: Axis = None`, ...); these
aliases keep them short and the same everywhere. The aliases are ordinary runtime objects, so
`inspect.signature(f, eval_str=True)` resolves every annotation of the public API, and a static
checker (mypy, pyright) reads the same names from the source (`py.typed` marks the package typed).
"""
from __future__ import annotations

from typing import Any, Literal, Optional, Tuple, Union

from ._array_object import Array
from ._devices import Device, MeshDevice
from ._dtypes import DType
from ._sharding import Mesh, NamedSharding

__all__ = [
    "Any", "Array", "ArrayOrScalar", "Axis", "Device", "DeviceLike", "DType", "DTypeKind", "Literal",
    "Mesh", "MeshDevice", "NamedSharding", "Scalar", "Shape", "SupportsBufferProtocol",
]

# A Python scalar as the standard allows it next to an array (weakly typed: it takes the array's dtype)
Scalar = Union[bool, int, float, complex]
ArrayOrScalar = Union[Array, bool, int, float, complex]

# axis=: one axis, several, or all of them (None)
Axis = Optional[Union[int, Tuple[int, ...]]]

# shape=: an int for 1-D, or a tuple of ints
Shape = Union[int, Tuple[int, ...]]

# device=: one of ours, its name ("cpu:0"), or a mesh layout (`lazyarray.sharding`)
DeviceLike = Union[Device, MeshDevice, str, NamedSharding, Mesh]

# isdtype's kind: a dtype, a category name, or a tuple of either
DTypeKind = Union[DType, str, Tuple[Union[DType, str], ...]]

# asarray accepts anything with the buffer protocol or __array__ (numpy, memoryview, ...)
SupportsBufferProtocol = Any
