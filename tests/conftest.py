import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before anything imports scipy or sklearn
# checked mode: out-of-bounds index arrays and failed factorisations raise at the read
os.environ.setdefault("LAZYARRAY_CHECKS", "1")
# the graph verifier: every sync re-checks each node's shape/dtype rule before it runs (_verify)
os.environ.setdefault("LAZYARRAY_VERIFY", "1")
# the on-disk compile cache (on by default in the user's home) goes to a per-session temp dir, for
# the subprocesses tests start too; in this process it stays off unless the caller set it, so a
# test that counts compiles never sees a program an earlier test left on disk
_USER_CACHE_DIR = "LAZYARRAY_CACHE_DIR" in os.environ
if not _USER_CACHE_DIR:
    import atexit, shutil, tempfile
    os.environ["LAZYARRAY_CACHE_DIR"] = tempfile.mkdtemp(prefix="lazyarray-test-cache-")
    atexit.register(shutil.rmtree, os.environ["LAZYARRAY_CACHE_DIR"], True)

import numpy as np
import pytest

import lazyarray as xp

xp.config.checks = os.environ["LAZYARRAY_CHECKS"] not in ("", "0")  # (if imported before us)
xp.config.verify = os.environ["LAZYARRAY_VERIFY"] not in ("", "0")
if not _USER_CACHE_DIR:
    xp.config.cache_dir = None


@pytest.fixture
def engine():
    """The engine as a fresh import has it: compiled programs, sightings, loop and cut state,
    scalar buffers, pooled buffers and pending checks forgotten (`state.reset`), metrics zeroed.
    Yields the engine state."""
    from lazyarray._engine_state import state
    from lazyarray._graph import pending
    state.reset()  # waits for background compiles, which would count in the new metrics
    xp.metrics.reset()
    pending.nodes_since_sync = 0  # (nodes an earlier test traced and never synced, e.g. x[i] computed
    #                               when indexed, would move this test's first budget cut)
    yield state


@pytest.fixture
def fresh(engine, monkeypatch):
    """A fresh engine (`engine`) and zeroed metrics, so a test can count compiles; every graph is
    compiled at first sight (no interpreter tier: tests/test_tiers.py covers it)."""
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    yield xp.metrics


@pytest.fixture
def compiled_now(monkeypatch):
    """Graphs run as compiled programs at once (no interpreter tier, no small host reads), with
    the program caches cleared before and after."""
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    xp.clear_cache()
    yield
    xp.clear_cache()


@pytest.fixture
def interpreted(engine, monkeypatch):
    """The interpreter serves every run (its compile never pays), no budget cut, no learnt costs."""
    from lazyarray import _engine, _tier_policy
    monkeypatch.setattr(xp.config, "interpret_first", 2)
    monkeypatch.setattr(xp.config, "node_budget", 10**9)
    monkeypatch.setattr(_tier_policy, "compile_estimate", lambda order: 1e9)
    monkeypatch.setattr(_tier_policy, "learnt_seconds", lambda skey, device: None)
    yield xp.metrics
    _engine.wait_for_compiles()


@pytest.fixture
def fail_next_execute(monkeypatch):
    """arm(message): the next PJRT execute raises RuntimeError(message); later ones run."""
    from lazyarray import _runtime

    def arm(message):
        real, armed = _runtime.execute, [True]

        def fail_once(executable, inputs):
            if armed[0]:
                armed[0] = False
                raise RuntimeError(message)
            return real(executable, inputs)
        monkeypatch.setattr(_runtime, "execute", fail_once)
    return arm


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(params=["compiled", "interpreted"])
def both_tiers(request, monkeypatch):
    """Run a test in both tiers: compiled at first sight, and the numpy interpreter. A module
    opts in with `pytestmark = pytest.mark.usefixtures("both_tiers")`."""
    monkeypatch.setattr(xp.config, "interpret_first", 0 if request.param == "compiled" else 2)
    return request.param


@pytest.fixture
def bodies(monkeypatch):
    """The REPEAT bodies (loop chunks' bodies) of the plans the engine runs, taken before they run."""
    from lazyarray import _engine
    from lazyarray._ops.loop import REPEAT

    seen, real = [], _engine._run

    def recording(plan, outputs, device, site):
        seen.extend(node.attrs.body for node in plan.order if node.op is REPEAT)
        return real(plan, outputs, device, site)

    monkeypatch.setattr(_engine, "_run", recording)
    return seen


@pytest.fixture
def replays(monkeypatch):
    """A one-element list: how many loop calls replayed a recorded chunking (`_segment._replay`
    answered) since the fixture was set up."""
    from lazyarray import _segment

    count, real = [0], _segment._replay

    def counting(*args):
        got = real(*args)
        count[0] += got is not None
        return got

    monkeypatch.setattr(_segment, "_replay", counting)
    return count


@pytest.fixture
def host_tries(monkeypatch):
    """The results of `_host_sync.run` (the small host read path tried) since the fixture was set
    up, in order; the compile cache cleared before and after."""
    import lazyarray as xp
    from lazyarray import _host_sync

    xp.clear_cache()
    calls, run = [], _host_sync.run

    def counted(targets):
        r = run(targets)
        calls.append(r)
        return r

    monkeypatch.setattr(_host_sync, "run", counted)
    yield calls
    xp.clear_cache()
