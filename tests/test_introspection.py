"""Metrics, miss explanations, graph and StableHLO dumps."""
import numpy as np
import pytest

import lazyarray as xp
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
