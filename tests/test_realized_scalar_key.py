"""A 0-D value a sync computed keys and runs the same wherever it was realized (issue 11 target 2).

The interpreter leaves a result on the host (`Node.realize_host`), a program on the device
(`Node.realize`). A 0-D state (the bias `b` of examples/demo.py's loop) used to key as a packed
host scalar in the first case and as a parameter of its own in the second, so a second process
whose program (loaded from disk) realized the state on the device missed the program the first
process had compiled while its interpreter held the state: one compile in every second run of
the demo. Now a computed value is never packed (`_graph.packs`); the user's Python scalars and
other 0-D host leaves still are.
"""
import os
import subprocess
import sys

import numpy as np

import lazyarray as xp
from lazyarray import _graph
from lazyarray._metrics import explain_miss

X = np.arange(-4.0, 8.0).reshape(3, 4) / 4  # (binary fractions: every sum and mean here is exact)


def _state(tier_first):
    """mean(X) realized by the interpreter (tier_first=2: a first sight is interpreted) or by a
    compiled program (tier_first=0)."""
    xp.config.interpret_first = tier_first
    b = xp.mean(xp.asarray(X))
    xp.evaluate(b)
    return b


def _step(b):
    """One step of a loop that carries the 0-D state `b` (and uses the Python scalar 0.5)."""
    return b - 0.5 * xp.mean(xp.asarray(X) * b + 1.0)


def _np_step(b):
    return b - 0.5 * np.mean(X * b + 1.0)


def _key_and_leaves(a):
    plan = _graph.Plan([a._node])
    return plan.key([a._node]), plan.leaves


def test_host_and_device_realized_0d_states_give_one_key_and_one_value(engine, monkeypatch):
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    b_host = _state(2)
    b_dev = _state(0)
    assert b_host._node.buffer is None and b_host._node.host is not None  # the interpreter's
    assert b_dev._node.buffer is not None and b_dev._node.host is None    # a program's
    assert b_host._node.computed and b_dev._node.computed
    assert not _graph.packs(b_host._node) and not _graph.packs(b_dev._node)
    y_host, y_dev = _step(b_host), _step(b_dev)
    key_host, leaves_host = _key_and_leaves(y_host)
    key_dev, _ = _key_and_leaves(y_dev)
    assert key_host is key_dev  # one structure, interned once
    # the state is a parameter of its own; the Python scalars (1.0, 0.5) still pack
    buffers, packed = _graph.split_leaves(leaves_host)
    assert b_host._node in buffers
    assert sorted(leaf.host for leaf in packed[xp.float64]) == [0.5, 1.0]
    expected = _np_step(np.mean(X))
    assert float(y_host) == float(y_dev) == expected


def test_one_program_serves_a_state_realized_on_either_side(engine, monkeypatch):
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    b_host, b_dev = _state(2), _state(0)
    assert b_host._node.buffer is None and b_dev._node.buffer is not None
    xp.config.interpret_first = 0
    compiles = xp.metrics.compiles
    first = _step(b_dev)
    xp.evaluate(first)
    assert xp.metrics.compiles == compiles + 1
    hits = xp.metrics.cache_hits
    second = _step(b_host)  # the host value runs as the same program's parameter
    xp.evaluate(second)
    assert xp.metrics.compiles == compiles + 1 and xp.metrics.cache_hits == hits + 1
    assert second._node.buffer is not None  # (it ran as a program, not in the interpreter)
    assert float(first) == float(second) == _np_step(np.mean(X))


def test_user_scalars_and_0d_host_leaves_still_pack(engine):
    s = xp.asarray(np.float64(3.0))       # a 0-D host array given by the user
    y = xp.asarray(X) * s + 2.5           # and a Python scalar
    _, leaves = _key_and_leaves(y)
    buffers, packed = _graph.split_leaves(leaves)
    assert all(leaf.shape for leaf in buffers)
    assert {float(leaf.host) for leaf in packed[xp.float64]} == {3.0, 2.5}
    np.testing.assert_array_equal(np.asarray(y), X * 3.0 + 2.5)


def test_a_miss_names_how_an_input_is_passed():
    leaf = ((), xp.float64)
    text = explain_miss(((1, 2), leaf + (False,), (0,)), [((1, 2), leaf + (True,), (0,))])
    assert "input shape=() dtype=float64 (a parameter of its own)" in text
    assert "vs cached input shape=() dtype=float64 (a host scalar packed with its dtype's others)" in text


# Process 1 realizes the loop's state in the interpreter and compiles the step's graph with it
# held on the host; process 2 runs every graph as a program (the state then lives on the
# device) and must find every program in the cache directory process 1 filled.
LOOP = """
import sys
import numpy as np, lazyarray as xp
from lazyarray import _engine
first_process = sys.argv[1] == "1"
X = np.linspace(-1.0, 2.0, 400).reshape(100, 4)
x = xp.asarray(X)
xp.config.interpret_first = 0
b = xp.mean(x)                       # the initial state: a program's result on the device
float(b)
if first_process:
    xp.config.interpret_first = 1000  # the steps below are interpreted: b realized on the host
values, bn = [], float(np.mean(X))
for step in range(6):
    if first_process and step == 4:
        assert b._node.buffer is None and b._node.host is not None
        xp.config.interpret_first = 0  # compile the step's graph with the host-realized state
    b = b - 0.25 * xp.mean(x * b + 1.0)
    values.append(float(b))
    bn = bn - 0.25 * float(np.mean(X * bn + 1.0))
    assert abs(values[-1] - bn) <= 1e-12 * max(1.0, abs(bn)), (values[-1], bn)
if not first_process:
    assert b._node.buffer is not None  # the state lived on the device
_engine.wait_for_compiles()
print(xp.metrics.compiles, xp.metrics.disk_hits, repr(values[-1]))
"""


def _run_loop(cache, which):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAZYARRAY_")}
    env.update(LAZYARRAY_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", LOOP, which], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    compiles, hits, last = out.stdout.split()
    return int(compiles), int(hits), float(last)


def test_a_second_process_with_the_state_on_the_device_compiles_nothing(tmp_path):
    c1, _, last1 = _run_loop(tmp_path, "1")
    assert c1 == 2  # the initial mean, and the step with its state on the host
    c2, hits2, last2 = _run_loop(tmp_path, "2")
    assert c2 == 0 and hits2 == 2  # both programs loaded from the cache directory
    assert abs(last1 - last2) <= 1e-12 * max(1.0, abs(last1))
