"""A command that ran before reads ahead, on the compile thread from import on, what its first
call's first sights would otherwise read on the caller's thread (`_prefetch._read_ahead`): its
learnt costs and the entries sent back to the interpreter (`learnt_costs`), and numpy's BLAS
library (`_blas_threads`); a read is published once complete, and the first complete read is the
one every caller keeps (the caller may ask while the compile thread reads)."""
import os

from lazyarray import _prefetch

from test_linalg_first_call import _run

_PROBE = """
import numpy as np
import lazyarray as xp
from lazyarray import _blas_threads, _config, _prefetch
from lazyarray._engine_state import state
state.compile_thread().submit(lambda: None).result()  # what was queued at import has run
root = _config.cache_dir
ahead = dict(_prefetch._costs.get(root) or {})
found = "numpy" in _blas_threads._found
_prefetch._costs.pop(root, None); _prefetch._slower.pop(root, None)
fresh = _prefetch.learnt_costs(root)
x = xp.asarray(np.arange(5000.0))
for i in range(6):  # interpreted graphs: the run leaves learnt costs, no programs
    float(xp.sum(xp.cos(x) * 3.0 + i))
print(root in _prefetch._costs, len(ahead) > 0 and ahead == fresh, found)
"""


def test_learnt_costs_and_blas_library_read_ahead_in_a_second_run(tmp_path):
    env = {"LAZYARRAY_CACHE_DIR": str(tmp_path)}
    assert _run(_PROBE, env) == "True False False"  # first run: nothing learnt, nothing read ahead
    assert any(f.endswith(".costs") for f in os.listdir(tmp_path / "manifests"))
    assert _run(_PROBE, env) == "True True True"  # the same records as a read on the caller's thread


def test_the_first_complete_read_is_kept(monkeypatch, tmp_path):
    root = str(tmp_path)
    monkeypatch.setattr(_prefetch, "_costs", {})
    monkeypatch.setattr(_prefetch, "_slower", {})
    costed = "ab/" + "3" * 64 + ".xla"
    slower = "cd/" + "4" * 64 + ".xla"
    _prefetch.write_costs(root, {costed: 0.5})
    _prefetch.note_slower_compiled(root, slower)
    monkeypatch.setattr(_prefetch, "_costs", {})
    monkeypatch.setattr(_prefetch, "_slower", {})
    first = _prefetch.learnt_costs(root)
    kept_slower = _prefetch.slower_compiled(root)
    # another reader that finished later (the compile thread, or the caller) keeps the first read
    monkeypatch.setattr(_prefetch, "_costs", {})
    second = _prefetch.learnt_costs(root)
    assert first == second == {costed: 0.5}
    assert _prefetch.slower_compiled(root) is kept_slower and list(kept_slower) == [slower]
    monkeypatch.setattr(_prefetch, "_costs", {root: first})
    assert _prefetch.learnt_costs(root) is first
