"""The public API is annotated, so editors and type checkers see it (issue 12, item 5).

Every public callable of `lazyarray`, `lazyarray.linalg` and `lazyarray.fft` has a return
annotation and annotated parameters that resolve (`inspect.signature(..., eval_str=True)`); the
table-made elementwise functions carry theirs too; what a static checker reads in place of the
code it cannot run (the `if TYPE_CHECKING:` declarations) names exactly what runs; `__all__` is
the module's public names; the package ships `py.typed`.
"""
import ast
import inspect
import pathlib
import types

import pytest

import lazyarray as xp
from lazyarray import _array_object, _elementwise_functions

PACKAGE = pathlib.Path(xp.__file__).parent


def _is_api_module(name):
    return name in ("lazyarray", "lazyarray.linalg", "lazyarray.fft", "lazyarray._debug",
                    "lazyarray._engine") or (name.startswith("lazyarray._") and name.endswith("_functions"))


def _public_callables(module):
    for name in sorted(dir(module)):
        if name.startswith("_") and name != "__array_namespace_info__":
            continue
        value = getattr(module, name)
        # the API, not the module's own imports (typing.NamedTuple, lazyarray._helpers.check_array)
        if isinstance(value, types.FunctionType) and _is_api_module(value.__module__):
            yield f"{module.__name__}.{name}", value


FUNCTIONS = [*_public_callables(xp), *_public_callables(xp.linalg), *_public_callables(xp.fft)]
INFO_METHODS = [(f"__array_namespace_info__.{n}", getattr(xp.__array_namespace_info__, n))
                for n in ("capabilities", "default_device", "default_dtypes", "dtypes", "devices")]


def _assert_annotated(qualname, fn):
    sig = inspect.signature(fn, eval_str=True)  # every annotation resolves to a real object
    assert sig.return_annotation is not inspect.Signature.empty, f"{qualname}: no return annotation"
    for p in sig.parameters.values():
        if p.name == "self":
            continue
        assert p.annotation is not inspect.Parameter.empty, f"{qualname}: parameter {p.name} unannotated"


def test_the_namespace_has_its_functions():
    # the lists below are not vacuous: the standard's functions are all there
    names = {q for q, _ in FUNCTIONS}
    for q in ("lazyarray.sin", "lazyarray.add", "lazyarray.asarray", "lazyarray.sum",
              "lazyarray.linalg.svd", "lazyarray.fft.rfft", "lazyarray.clip"):
        assert q in names
    assert len(FUNCTIONS) > 180


@pytest.mark.parametrize("qualname,fn", FUNCTIONS + INFO_METHODS, ids=[q for q, _ in FUNCTIONS + INFO_METHODS])
def test_public_callable_is_annotated(qualname, fn):
    _assert_annotated(qualname, fn)


def test_elementwise_signatures_are_the_standards():
    sin = inspect.signature(xp.sin, eval_str=True)
    assert [(p.name, p.kind, p.annotation) for p in sin.parameters.values()] == [
        ("x", inspect.Parameter.POSITIONAL_ONLY, xp.Array)]
    assert sin.return_annotation is xp.Array
    add = inspect.signature(xp.add, eval_str=True)
    assert [p.name for p in add.parameters.values()] == ["x1", "x2"]
    assert xp.Array in add.parameters["x1"].annotation.__args__  # an array, or a Python scalar
    assert int in add.parameters["x1"].annotation.__args__


def test_multi_output_functions_return_their_named_tuples():
    assert inspect.signature(xp.linalg.svd, eval_str=True).return_annotation is xp.linalg.SVDResult
    assert inspect.signature(xp.linalg.eigh, eval_str=True).return_annotation is xp.linalg.EighResult
    r = xp.linalg.svd(xp.asarray([[1.0, 2.0], [3.0, 4.0]]))
    assert isinstance(r, xp.linalg.SVDResult)
    assert inspect.signature(xp.unique_all, eval_str=True).return_annotation is type(
        xp.unique_all(xp.asarray([1, 1, 2])))


def _type_checking_defs(tree_body):
    """Names declared (def) or imported inside `if TYPE_CHECKING:` / `if _TYPE_CHECKING:` blocks."""
    names = []
    for node in tree_body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") in ("TYPE_CHECKING", "_TYPE_CHECKING"):
            for inner in node.body:
                if isinstance(inner, ast.FunctionDef):
                    names.append(inner.name)
                elif isinstance(inner, ast.ImportFrom):
                    names.extend(a.asname or a.name for a in inner.names)
    return names


def test_static_declarations_of_the_elementwise_tables_match_them():
    tree = ast.parse((PACKAGE / "_elementwise_functions.py").read_text())
    declared = _type_checking_defs(tree.body)
    assert len(declared) == len(set(declared))
    assert set(declared) == set(_elementwise_functions.UNARY) | set(_elementwise_functions.BINARY)
    # and the package re-exports all of them to a checker too
    init = ast.parse((PACKAGE / "__init__.py").read_text())
    assert set(_type_checking_defs(init.body)) == set(declared)


def test_static_declarations_of_array_methods_exist_at_run_time():
    tree = ast.parse((PACKAGE / "_array_object.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    declared = set(_type_checking_defs(cls.body))
    assert {"__add__", "__radd__", "__iadd__", "__getitem__", "T", "mT", "reshape"} <= declared
    for name in declared:
        assert hasattr(xp.Array, name), f"Array.{name} declared for checkers but missing at run time"
    # every public method and operator installed at run time is declared or defined in the class
    defined = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    installed = {n for n in dir(xp.Array) if not n.startswith("_") or
                 (n.startswith("__") and n[2:-2] in _OPERATORS)}
    assert installed - declared - defined == set()


_OPERATORS = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
              "lshift", "rshift", "lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert",
              "getitem", "setitem"}
_OPERATORS |= {f"r{o}" for o in list(_OPERATORS)} | {f"i{o}" for o in list(_OPERATORS)}


def test_array_attributes_are_annotated():
    hints = {name: inspect.signature(getattr(xp.Array, name).fget, eval_str=True).return_annotation
             for name in ("dtype", "shape", "ndim", "size", "device")}
    assert hints["shape"] == tuple[int, ...]
    assert hints["ndim"] is int and hints["size"] is int
    _assert_annotated("Array.to_device", xp.Array.to_device)
    _assert_annotated("Array.__array_namespace__", xp.Array.__array_namespace__)


def test_all_is_the_public_namespace():
    public = {n for n in dir(xp) if not n.startswith("_")} - {"annotations"}  # (from __future__)
    assert set(xp.__all__) - {"__array_namespace_info__"} == public
    assert len(xp.__all__) == len(set(xp.__all__))
    for name in xp.__all__:
        assert hasattr(xp, name)


def test_py_typed_ships():
    assert (PACKAGE / "py.typed").is_file()
    import tomllib
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["lazyarray"]
