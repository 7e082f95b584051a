"""A short chain of complex functions on a small array, read at the end, is looked at for a loop
like the long chain it stands for: each function records one `complex.formula` node (its formula
is tens of nodes), so the graph has few nodes, but compiled as one straight program it costs
what those tens of nodes per step cost XLA (six sqrt + exp steps: ~5 s of CPU against ~0.3 s
split into repeated chunks). The read's loop test counts the nodes recorded since the last sync,
a formula node as its formula's (`_engine._realize_program`)."""
import numpy as np

import lazyarray as xp
from lazyarray import _config


def test_short_complex_chain_is_split_into_chunks(monkeypatch):
    monkeypatch.setattr(_config, "interpret_first", 0)  # compiled at first sight: the case that cost seconds
    zn = np.linspace(0.1, 0.5, 64) + 0.2j * np.linspace(1, 2, 64)
    z = xp.asarray(zn)
    want = zn
    for _ in range(6):
        z = xp.sqrt(xp.exp(z * 0.5))
        want = np.sqrt(np.exp(want * 0.5))
    xp.metrics.reset()
    got = np.asarray(z)
    assert xp.metrics.segmented_syncs == 1
    np.testing.assert_allclose(got, want, rtol=1e-13)
