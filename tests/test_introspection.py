"""Metrics, miss explanations, graph and StableHLO dumps."""
import numpy as np
import pytest

import lazyarray as xp
from source_lines import line_of
from lazyarray import _config


def test_report_counts_what_happened(fresh):
    a = xp.asarray(np.arange(6.0))
    b = a * 2.0 + 1.0
    assert fresh.syncs == {}
    assert float(xp.sum(b)) == 36.0
    np.asarray(b)
    bool(xp.all(b > 0))
    d = fresh.as_dict()
    assert d["compiles"] == 2 and d["executions"] == 2
    assert d["syncs"] == {"float": 1, "bool": 1}  # np.asarray(b): b was already computed
    assert d["bytes_to_device"] >= 48
    text = xp.report()
    for word in ("nodes traced", "cache hits/misses", "compile time", "syncs by cause", "float=1"):
        assert word in text
    assert "test_introspection.py" in text  # sync sites point at the user's lines


def test_miss_explanation_names_the_differing_input(fresh, monkeypatch, capsys):
    monkeypatch.setattr(_config, "explain_misses", True)
    float(xp.sum(xp.asarray(np.ones((3, 4))) * 2.0))
    float(xp.sum(xp.asarray(np.ones((3, 5))) * 2.0))
    out = capsys.readouterr().out
    assert "cache miss at" in out and "test_introspection.py" in out
    last = fresh.miss_explanations[-1]
    assert "(3, 5)" in last and "(3, 4)" in last


def test_miss_explanation_names_a_differing_op(fresh, monkeypatch):
    monkeypatch.setattr(_config, "explain_misses", True)
    x = xp.asarray(np.ones(4))
    float(xp.sum(xp.exp(x)))
    float(xp.sum(xp.sin(x)))
    assert "sin " in fresh.miss_explanations[-1] and "exp " in fresh.miss_explanations[-1]


def test_graph_text_and_dot_and_stablehlo():
    a = xp.asarray(np.ones((2, 3), dtype=np.float32))
    b = xp.sin(a) + 1.0  # sin: a StableHLO op of its own (exp float32 is our math.exp formula)
    text = xp.graph_text(b)
    assert "sin(" in text and "float32[2, 3]" in text and "outputs:" in text
    dot = xp.graph_dot(b)
    assert dot.startswith("digraph") and "->" in dot
    hlo = xp.stablehlo(b)
    assert '"stablehlo.sine"' in hlo and "tensor<2x3xf32>" in hlo and "func.func public @main" in hlo
    assert b._node.op is not None  # dumping does not run anything
    xp.evaluate(b)
    assert "already materialized" in xp.stablehlo(b)


def test_dump_dir_writes_each_compiled_program(tmp_path, monkeypatch, fresh):
    monkeypatch.setattr(_config, "dump_dir", str(tmp_path))
    float(xp.sum(xp.asarray(np.ones(3)) * 5.0))
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and "stablehlo.multiply" in files[0].read_text()


def test_guard_message_names_the_site(fresh, monkeypatch):
    monkeypatch.setattr(_config, "max_graphs_per_site", 2)
    with pytest.raises(RuntimeError) as info:
        for n in range(1, 6):
            float(xp.sum(xp.ones(n) * 2.0))
    assert "test_introspection.py" in str(info.value)


# ---------------------------------------------------------------- the LAZYARRAY_DEBUG ladder

def _line_of(marker):
    return line_of(__file__, marker)


def test_debug_1_one_line_per_compile_with_the_users_line(fresh, monkeypatch, capsys):
    monkeypatch.setattr(xp.config, "debug", 1)
    monkeypatch.setattr(xp.config, "verify", False)
    x = xp.asarray(np.ones((3, 4)))
    float(xp.sum(x * 2.0))  # debug-1 read
    float(xp.sum(x * 2.0))  # a cache hit: no line
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("lazyarray: compile")]
    assert len(lines) == 1 and fresh.compiles == 1, err
    assert f"test_introspection.py:{_line_of('# debug-1 read')}" in lines[0]
    assert "stablehlo" not in err and "outputs:" not in err  # the graph comes at level 2


def test_debug_1_names_new_interpreted_graphs(engine, monkeypatch, capsys):
    monkeypatch.setattr(xp.config, "debug", 1)
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    x = xp.asarray(np.ones(5))
    float(xp.sum(xp.exp(x)))  # debug-1 interpreted
    err = capsys.readouterr().err
    assert xp.metrics.interpreted == 1 and xp.metrics.compiles == 0
    assert "interpreted" in err and f"test_introspection.py:{_line_of('# debug-1 interpreted')}" in err


def test_debug_2_and_3_add_the_graph_and_its_stablehlo(fresh, monkeypatch, capsys):
    x = xp.asarray(np.ones((2, 3), dtype=np.float32))
    y = xp.sum(xp.sin(x) + 1.0, axis=0)
    text, hlo = xp.graph_text(y), xp.stablehlo(y)  # what would compute y, dumped before the read
    monkeypatch.setattr(xp.config, "debug", 2)
    np.asarray(y)
    err = capsys.readouterr().err
    assert text in err and hlo not in err
    z = xp.sum(xp.sin(x) * 3.0, axis=1)
    text, hlo = xp.graph_text(z), xp.stablehlo(z)
    monkeypatch.setattr(xp.config, "debug", 3)
    np.asarray(z)
    err = capsys.readouterr().err
    assert text in err and hlo in err


def test_debug_level_read_from_the_environment(tmp_path):
    import os
    import subprocess
    import sys
    code = "import lazyarray as xp; print(xp.config.debug); float(xp.sum(xp.asarray([1.0, 2.0]) * 3.0))"
    env = dict(os.environ, LAZYARRAY_DEBUG="2", LAZYARRAY_INTERPRET_FIRST="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "2"
    assert "lazyarray: compile" in out.stderr and "<string>:1" in out.stderr
    assert "outputs: n" in out.stderr and "func.func" not in out.stderr  # level 2: graph, no StableHLO


# ---------------------------------------------------------------- the graph verifier

def _broken(shape_of):
    """A node of a real primitive (exp's) whose recorded shape its operands do not give."""
    from lazyarray import _graph
    good = xp.exp(xp.asarray(np.ones(4)))._node
    return _graph.bind(good.op, good.args, good.attrs, shape_of(good.shape), good.dtype)


@pytest.mark.parametrize("tier", [0, 2])
@pytest.mark.parametrize("switch", ["verify", "debug"])
def test_verifier_stops_a_broken_node_before_it_runs(engine, monkeypatch, tier, switch):
    from lazyarray import _engine, _verify
    monkeypatch.setattr(xp.config, "interpret_first", tier)
    monkeypatch.setattr(xp.config, "verify", switch == "verify")
    monkeypatch.setattr(xp.config, "debug", 4 if switch == "debug" else 0)
    bad = _broken(lambda shape: (-1,))  # the structural checks catch it, with or without a rule
    device = xp.asarray(0.0).device
    with pytest.raises(_verify.GraphError, match="non-negative"):
        _engine.realize([bad], device, "test")
    assert bad.op is not None  # nothing was realized
    assert xp.metrics.executions == 0 and xp.metrics.interpreted == 0


def test_verifier_checks_the_primitives_rule(engine, monkeypatch):
    from lazyarray import _engine, _verify
    monkeypatch.setattr(xp.config, "verify", True)
    bad = _broken(lambda shape: (shape[0] + 1,))
    if getattr(bad.op, "rule", None) is None:
        pytest.skip("this primitive has no shape/dtype rule to re-check yet")
    with pytest.raises(_verify.GraphError, match="rule"):
        _engine.realize([bad], xp.asarray(0.0).device, "test")


def test_verifier_off_lets_programs_run(engine, monkeypatch):
    """Off, the verifier is not called (a well-formed graph runs either way)."""
    from lazyarray import _verify
    calls = []
    monkeypatch.setattr(_verify, "verify", lambda order, leaves: calls.append(len(order)))
    monkeypatch.setattr(xp.config, "verify", False)
    monkeypatch.setattr(xp.config, "debug", 0)
    x = xp.asarray(np.arange(4.0))
    assert float(xp.sum(x * 2.0)) == 12.0
    assert calls == []
    monkeypatch.setattr(xp.config, "verify", True)
    assert float(xp.sum(x * 3.0)) == 18.0
    assert calls and calls[0] >= 2
