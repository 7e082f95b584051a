"""The layers of lazyarray, and a check that every import only looks down.

A module may import modules of its own layer or of a lower one, never of a higher one, and the
import graph (imports inside functions included: they are edges too, only later ones) has no
cycle. From the top:

1. namespace: the public functions. They validate arguments, promote dtypes, and build nodes
   through the layers below; `_array_methods` gives `Array` its operators and methods, which are
   namespace functions.
2. array object and indexing: the mutable handle on a node, its views and numpy aliases, the
   shared argument helpers, indexing, devices, host data entering a graph.
3. engine: what runs a pending graph: outputs, tiers (the interpreter), loop segments, the buffer
   pool, checked mode, the graph verifier, metrics.
4. ops, graph, emission: immutable nodes, the primitives (one OpDef each), StableHLO text, and
   compositions of nodes that have no array in sight (complex math, linalg, fft building blocks).
5. runtime and settings: the only jax imports (PJRT, LAPACK kernels, the on-disk compile cache),
   the environment read once, the dtypes.

The table below is the one place that says which module sits where; a new module must be added
to it.
"""
from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "lazyarray"

NAMESPACE, ARRAY, ENGINE, OPS, RUNTIME = 1, 2, 3, 4, 5
LAYER_NAMES = {NAMESPACE: "namespace", ARRAY: "array", ENGINE: "engine", OPS: "ops/graph",
               RUNTIME: "runtime"}

LAYERS = {
    "lazyarray": NAMESPACE,                             # the package: the public namespace
    "lazyarray.linalg": NAMESPACE,                      # the linalg extension
    "lazyarray.fft": NAMESPACE,                         # the fft extension
    "lazyarray._versions": NAMESPACE,                   # namespaces of earlier versions
    "lazyarray._info": NAMESPACE,                       # __array_namespace_info__
    "lazyarray.sharding": NAMESPACE,                    # the public sharding API
    "lazyarray._debug": NAMESPACE,                      # introspection functions of the namespace
    "lazyarray._array_methods": NAMESPACE,              # Array's operators and methods
    "lazyarray._array_ufunc": NAMESPACE,                # numpy's ufuncs on our arrays
    "lazyarray._creation_functions": NAMESPACE,
    "lazyarray._data_type_functions": NAMESPACE,
    "lazyarray._elementwise_functions": NAMESPACE,
    "lazyarray._indexing_functions": NAMESPACE,
    "lazyarray._linear_algebra_functions": NAMESPACE,
    "lazyarray._manipulation_functions": NAMESPACE,
    "lazyarray._searching_functions": NAMESPACE,
    "lazyarray._set_functions": NAMESPACE,
    "lazyarray._sorting_functions": NAMESPACE,
    "lazyarray._statistical_functions": NAMESPACE,
    "lazyarray._utility_functions": NAMESPACE,
    "lazyarray._array_object": ARRAY,                   # the handle, views, materialization
    "lazyarray._indexing": ARRAY,                       # __getitem__/__setitem__: basic or advanced
    "lazyarray._deferred_elements": ARRAY,              # x[i] of a pending vector, element runs: bound at next use
    "lazyarray._basic_indexing": ARRAY,                 # integers, slices, ellipsis, None
    "lazyarray._advanced_indexing": ARRAY,              # integer arrays and boolean masks
    "lazyarray._mask_index": ARRAY,                     # x[m], x[m] = v of a 1-D mask, bound at once
    "lazyarray._views": ARRAY,                          # view steps (forward/inverse)
    "lazyarray._host_alias": ARRAY,                     # numpy arrays aliasing our arrays
    "lazyarray._host_data": ARRAY,                      # numpy data entering a graph
    "lazyarray._borrowed_host": ARRAY,                  # asarray of a large numpy array, copied at first use
    "lazyarray._nested_scalars": ARRAY,                 # asarray of a nested list of Python scalars, checked at C speed
    "lazyarray._typing": ARRAY,                         # the names the public annotations use
    "lazyarray._helpers": ARRAY,                        # argument checks, promotion, broadcasting
    "lazyarray._devices": ARRAY,                        # the Device objects
    "lazyarray._sharding_place": ARRAY,                 # device=NamedSharding, to_device, x.sharding
    "lazyarray._engine": ENGINE,
    "lazyarray._segment": ENGINE,                       # loop periods and chunks
    "lazyarray._pool": ENGINE,                          # buffer reuse
    "lazyarray._checks": ENGINE,                        # checked mode
    "lazyarray._interpret": ENGINE,                     # the numpy tier
    "lazyarray._host_sync": ENGINE,                     # small reads on the host, no program
    "lazyarray._verify": ENGINE,                        # the graph verifier
    "lazyarray._metrics": ENGINE,
    "lazyarray._sharded_run": ENGINE,                   # a program over a mesh: input layouts checked
    "lazyarray._engine_state": ENGINE,                  # everything the engine keeps between syncs
    "lazyarray._tier_policy": ENGINE,                   # interpret now or compile
    "lazyarray._program_cache": ENGINE,                 # compiled programs: keys, memory, disk
    "lazyarray._structural_key": ENGINE,                # a structural key as bytes: the disk cache's name
    "lazyarray._prefetch": ENGINE,                      # the last run's programs, loaded ahead
    "lazyarray._run_program": ENGINE,                   # inputs, execute, realize
    "lazyarray._debug_log": ENGINE,                     # the LAZYARRAY_DEBUG ladder's output
    "lazyarray._graph_text": OPS,                       # a graph as text
    "lazyarray._graph": OPS,                            # nodes, the pending set
    "lazyarray._emit": OPS,                             # StableHLO text
    "lazyarray._sharding": OPS,                         # Mesh, PartitionSpec, NamedSharding, Shardy text
    "lazyarray._sharding_rules": OPS,                   # layouts through the graph, a program's layout
    "lazyarray._complex_math": OPS,
    "lazyarray._linalg_ops": OPS,
    "lazyarray._fft_core": OPS,
    "lazyarray._ops": OPS,                              # the primitives, by family:
    "lazyarray._ops.core": OPS,
    "lazyarray._ops.elementwise": OPS,
    "lazyarray._ops.real_math": OPS,
    "lazyarray._ops.shape": OPS,
    "lazyarray._ops.reduce": OPS,
    "lazyarray._ops.sort": OPS,
    "lazyarray._ops.gather": OPS,
    "lazyarray._ops.dot": OPS,
    "lazyarray._ops.loop": OPS,                         # REPEAT: a loop chunk N times (stablehlo.while)
    "lazyarray._ops.fft": OPS,
    "lazyarray._ops.linalg": OPS,
    "lazyarray._ops.lapack_host": OPS,                  # the linalg kernels' host evaluation
    "lazyarray._runtime": RUNTIME,                      # PJRT: the only jax import
    "lazyarray._first_run": RUNTIME,                    # a loaded program run once on zeros before its first use
    "lazyarray._heap_prefault": RUNTIME,                # the heap a command last grew, faulted in ahead
    "lazyarray._runtime_lapack": RUNTIME,               # LAPACK kernels through jaxlib
    "lazyarray._gc_freeze": RUNTIME,                    # import-time objects out of full collections
    "lazyarray._blas_threads": RUNTIME,                 # OpenBLAS thread counts around LAPACK/BLAS calls
    "lazyarray._disk_cache": RUNTIME,                   # compiled programs on disk (the runtime's)
    "lazyarray._compile_process": RUNTIME,              # XLA's compiler in a helper process (opt-in)
    "lazyarray._heap_trim": RUNTIME,                    # free C heap back to the system after compiles
    "lazyarray._heap_threshold": RUNTIME,               # glibc's malloc thresholds raised once at import
    "lazyarray._libc": RUNTIME,                         # the C library when it is glibc (the heap policies')
    "lazyarray._bounded": RUNTIME,                        # bounded caches (memo, keep)
    "lazyarray._config": RUNTIME,                       # environment variables, read once
    "lazyarray._dtypes": RUNTIME,
}


def _modules():
    """Module name -> path, for every .py file of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(module, path, node, modules):
    """The lazyarray modules an Import/ImportFrom node imports (`from . import x` names the
    submodule x when there is one, else the package)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "lazyarray"]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    if node.level:
        base = package[:len(package) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != "lazyarray":
        return []
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names]


def import_graph():
    """{module: {imported module: first line}} over all imports, wherever they stand."""
    modules = _modules()
    graph = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, {})
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(module, path, node, modules):
                    if target != module:
                        edges.setdefault(target, node.lineno)
    return graph


def _where(module):
    return f"{module} ({LAYER_NAMES[LAYERS[module]]})"


def test_every_module_has_a_layer():
    graph = import_graph()
    unplaced = sorted(set(graph) - set(LAYERS))
    assert not unplaced, f"modules missing from LAYERS in tests/test_layers.py: {unplaced}"
    gone = sorted(set(LAYERS) - set(graph))
    assert not gone, f"LAYERS names modules that no longer exist: {gone}"


def test_imports_only_look_down():
    graph = import_graph()
    bad = [f"{_where(m)} imports {_where(t)} (line {line})"
           for m, edges in sorted(graph.items()) for t, line in sorted(edges.items())
           if m in LAYERS and t in LAYERS and LAYERS[t] < LAYERS[m]]
    assert not bad, "imports that look up a layer:\n" + "\n".join(bad)


def _cycle(graph):
    """One cycle of the graph as a list of modules (first == last), or None."""
    state = {}  # module -> 1 while on the path, 2 when done

    def visit(m, path):
        state[m] = 1
        path.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state:
                found = visit(t, path)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [])
            if found:
                return found
    return None


def test_no_import_cycles():
    graph = import_graph()
    cycle = _cycle(graph)
    if cycle:
        steps = [f"{a} -> {b} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:])]
        raise AssertionError("import cycle (imports inside functions count):\n" + "\n".join(steps))


def test_the_checks_see_what_they_should():
    """The checks themselves: a function-level import is an edge, and a made-up cycle and an
    upward edge are found."""
    graph = import_graph()
    assert "lazyarray._array_object" in graph["lazyarray._array_methods"]
    assert _cycle({"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b": 1}, "b": {}}) is None
    tree = ast.parse("def f():\n    from ._engine import realize\n")
    node = tree.body[0].body[0]
    modules = _modules()
    assert _imported("lazyarray._helpers", PACKAGE / "_helpers.py", node, modules) == ["lazyarray._engine"]
    assert _imported("lazyarray._ops.shape", PACKAGE / "_ops" / "shape.py",
                     ast.parse("from .. import _emit").body[0], modules) == ["lazyarray._emit"]


def test_array_layer_holds_no_namespace_module():
    """No module below the namespace is handed the namespace at run time (as `_array_object._ns`
    was): the import checks above cannot see such an injected module, this one does."""
    import sys

    import lazyarray
    namespace_modules = {id(sys.modules[m]) for m, layer in LAYERS.items()
                         if layer == NAMESPACE and m in sys.modules}
    assert id(lazyarray) in namespace_modules
    injected = [f"{m}.{name}" for m, layer in sorted(LAYERS.items()) if layer > NAMESPACE and m in sys.modules
                for name, value in vars(sys.modules[m]).items() if id(value) in namespace_modules]
    assert not injected, f"namespace modules held below the namespace layer: {injected}"
