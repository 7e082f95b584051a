"""Namespaces for earlier versions of the standard: `x.__array_namespace__(api_version=...)`.

Consumers written against an earlier version ask for it and must get that version's behaviour,
as array-api-strict serves several versions from one package. The arrays are the same; what
differs is the namespace object around them:

- 2025.12 (the default): the `lazyarray` module itself.
- 2024.12: `devices()`, `meshgrid` and `broadcast_arrays` return lists (2025.12 made them
  tuples), and the names 2025.12 added (`broadcast_shapes`, `isin`, `linalg.eig`,
  `linalg.eigvals`) are absent.
- 2023.12: as 2024.12, without the names 2024.12 added (`count_nonzero`, `cumulative_prod`,
  `diff`, `nextafter`, `reciprocal`, `take_along_axis`) and the "max dimensions" capability.
- 2022.12 and 2021.12: as 2023.12, also without the names 2023.12 added (`clip`, `copysign`,
  ..., `__array_namespace_info__`). Earlier changes (complex dtypes, `fft`) are not undone.

Each is a module object built once from `lazyarray`'s public names, with its own
`__array_api_version__`. Relaxations a later version made (scalar arguments, tuple axes in
`expand_dims`, negative axes in `permute_dims`) are kept: code written for the older version
never depends on their absence.
"""
from __future__ import annotations

import functools
import types

LATEST = "2025.12"

# Names each version added to the main namespace (and to linalg), from the standard's changelog.
_ADDED = {
    "2025.12": ({"broadcast_shapes", "isin"}, {"eig", "eigvals"}),
    "2024.12": ({"count_nonzero", "cumulative_prod", "diff", "nextafter", "reciprocal",
                 "take_along_axis"}, set()),
    "2023.12": ({"__array_namespace_info__", "clip", "copysign", "cumulative_sum", "hypot",
                 "maximum", "minimum", "moveaxis", "repeat", "searchsorted", "signbit", "tile",
                 "unstack"}, set()),
}
_ORDER = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

_cache = {}


def array_namespace_method(latest):
    """`Array.__array_namespace__`, given the `lazyarray` module (the package installs it: a
    module below the package cannot import the package without an import cycle)."""
    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        """The namespace of the standard's version `api_version` (see `_versions`)."""
        return namespace(latest, api_version)
    return __array_namespace__


def namespace(latest, api_version):
    """The namespace for `api_version` (None: `latest`, the lazyarray module); ValueError for an
    unknown version."""
    if api_version is None or api_version == LATEST:
        return latest
    if api_version not in _ORDER:
        raise ValueError(f"api_version {api_version!r} is not supported; expected one of {_ORDER}")
    ns = _cache.get(api_version)
    if ns is None:
        ns = _cache[api_version] = _build(latest, api_version)
    return ns


def _later(version):
    return [v for v in _ORDER if v > version and v in _ADDED]


def _build(latest, version):
    name = f"lazyarray.v{version.replace('.', '_')}"
    ns = types.ModuleType(name, f"lazyarray as the Array API standard {version} defines it.")
    removed, removed_linalg = set(), set()
    for v in _later(version):
        removed |= _ADDED[v][0]
        removed_linalg |= _ADDED[v][1]
    for key, value in vars(latest).items():
        if (not key.startswith("_") or key == "__array_namespace_info__") and key not in removed:
            setattr(ns, key, value)
    ns.__array_api_version__ = version
    ns.meshgrid = _as_list(latest.meshgrid)
    ns.broadcast_arrays = _as_list(latest.broadcast_arrays)
    if "__array_namespace_info__" not in removed:
        ns.__array_namespace_info__ = _info_class(latest.__array_namespace_info__, version)
    ns.linalg = _submodule(latest.linalg, f"{name}.linalg", removed_linalg)
    ns.fft = latest.fft
    return ns


def _as_list(function):
    @functools.wraps(function)  # (inspect.signature follows __wrapped__: the same signature)
    def listed(*args, **kwargs):
        return list(function(*args, **kwargs))
    listed.__doc__ = f"{function.__name__}, returning a list (the standard before 2025.12)."
    return listed


def _info_class(info, version):
    class info_before_2025(info):
        """The inspection API before 2025.12: devices() is a list."""

        def devices(self):
            return list(super().devices())

        if version < "2024.12":
            def capabilities(self):
                caps = dict(super().capabilities())
                caps.pop("max dimensions", None)  # added in 2024.12
                return caps
    info_before_2025.__name__ = info_before_2025.__qualname__ = "__array_namespace_info__"
    return info_before_2025


def _submodule(module, name, removed):
    if not removed:
        return module
    sub = types.ModuleType(name, module.__doc__)
    for key, value in vars(module).items():
        if key not in removed and not key.startswith("__"):
            setattr(sub, key, value)
    return sub
