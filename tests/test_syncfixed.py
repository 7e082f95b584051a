"""The fixed cost of a sync (SYNCFIXED, session 11): the one-read path of `_realize_program`
(work shared with a live pending sibling, values against numpy), `Metrics.count_sync`'s counts
against an independent count (the bound on kept sites included), and the zero-copy read's
memory block, which holds its buffer in a slot."""
import collections
import gc
import sys
import weakref

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _metrics, _runtime
from lazyarray._metrics import Metrics, metrics


@pytest.mark.parametrize("tier", ["compiled", "interpreted"])
def test_one_read_computes_a_live_sibling_that_shares_its_work(tier, monkeypatch):
    monkeypatch.setattr(_config, "interpret_first", 0 if tier == "compiled" else 10**9)
    xp.clear_cache()
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal(2000)
    x = xp.asarray(a_np)
    shared = xp.exp(x) * 3.0  # (work both arrays need)
    b, c = shared + 1.0, shared - 2.0
    before = metrics.executions + metrics.interpreted
    got_b = np.asarray(b)
    assert metrics.executions + metrics.interpreted == before + 1
    assert c._node.op is None  # the sibling was computed in the same sync
    assert metrics.executions + metrics.interpreted == before + 1
    np.testing.assert_allclose(got_b, np.exp(a_np) * 3.0 + 1.0, rtol=1e-13)  # (XLA's exp: last bits, README)
    np.testing.assert_allclose(np.asarray(c), np.exp(a_np) * 3.0 - 2.0, rtol=1e-13)  # (XLA's exp: last bits, README)
    xp.clear_cache()


def test_one_read_counts_one_sync_at_the_callers_line(compiled_now):
    x = xp.asarray(np.arange(2000.0))
    y = x * 2.0 + 1.0
    before = dict(metrics.sync_sites)
    np.asarray(y); line = sys._getframe().f_lineno
    new = {k: v - before.get(k, 0) for k, v in metrics.sync_sites.items() if before.get(k) != v}
    assert new == {("numpy", (__file__, line)): 1}


def test_repeated_one_reads_match_numpy(compiled_now):
    rng = np.random.default_rng(2)
    for n in (2000, 3000):
        a_np = rng.standard_normal(n)
        x = xp.asarray(a_np)
        for k in range(5):
            scale = float(k) + 0.5
            got, want = np.asarray(x * scale + 1.0), a_np * scale + 1.0
            # (XLA may fuse a*s+1 into one fused multiply-add: one rounding of the product fewer)
            assert np.all(np.abs(got - want) <= 2 * np.finfo(np.float64).eps * (np.abs(a_np * scale) + 1.0))


def test_count_sync_matches_an_independent_count(monkeypatch):
    monkeypatch.setattr(_metrics, "MAX_SITES", 8)
    m = Metrics()
    rng = np.random.default_rng(3)
    causes, sites = ["numpy", "bool", "cut"], [("f.py", i) for i in range(6)]
    events = [(causes[rng.integers(3)], sites[rng.integers(6)]) for _ in range(40)]
    by_cause, by_site = collections.Counter(), collections.Counter()
    for cause, site in events:
        m.count_sync(cause, site)
        by_cause[cause] += 1
        key = (cause, site)
        if key not in by_site and len(by_site) >= 8:  # the bound: the most frequent half stays
            by_site = collections.Counter(dict(by_site.most_common(4)))
        by_site[key] += 1
    assert dict(m.syncs) == dict(by_cause)
    assert dict(m.sync_sites) == dict(by_site)
    assert len(m.sync_sites) <= 8


def test_zero_copy_block_holds_its_buffer_in_a_slot(compiled_now):
    a_np = np.linspace(-1.0, 1.0, 2000)
    x = xp.asarray(a_np)
    host = np.asarray(x * 2.0 + 1.0)
    block = host.base
    assert type(block).__slots__ == ("buffer",)
    buf = block.buffer
    assert host.ctypes.data == buf.unsafe_buffer_pointer()
    assert weakref.ref(block)() is block  # (the pool watches the block by weak reference)
    del x
    gc.collect()
    np.testing.assert_array_equal(host, a_np * 2.0 + 1.0)  # the block keeps the memory alive
    np.testing.assert_array_equal(np.asarray(buf), a_np * 2.0 + 1.0)


def test_zero_copy_blocks_of_one_length_share_a_type_and_stay_apart(compiled_now):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(2000) for _ in range(3)]
    hosts = [np.asarray(xp.asarray(a) * 1.0 + 0.0) for a in arrays]
    assert len({type(h.base) for h in hosts}) == 1
    assert len({h.ctypes.data for h in hosts}) == 3
    for h, a in zip(hosts, arrays):
        np.testing.assert_array_equal(h, a)
    assert _runtime._memory_types[2000 * 8] is type(hosts[0].base)


def _user_code(body, filename="/tmp/syncfixed_user_code.py"):
    """A function made from `body` (lines of source) as user code: its file is outside lazyarray."""
    src = "def f(site):\n    out = []\n" + "".join(f"    {line}\n" for line in body) + "    return out\n"
    ns = {}
    exec(compile(src, filename, "exec"), ns)
    return ns["f"]


def test_user_site_reports_each_calls_line():
    # lines 3.. of the source: a padding block, then calls at known lines, one of them in a loop
    body = [f"x{i} = {i}" for i in range(300)] + [
        "out.append(site())",                     # line 303
        "for _ in range(3):",
        "    out.append(site())",                 # line 305, three times
        "out.append(site()); out.append(site())",  # line 306, two calls on one line
    ]
    f = _user_code(body)
    for _ in range(2):  # (the second call reads the kept lines)
        got = f(_metrics.user_site)
        assert got == [("/tmp/syncfixed_user_code.py", n) for n in (303, 305, 305, 305, 306, 306)]


def test_user_site_tells_apart_code_objects_at_a_reused_id(monkeypatch):
    monkeypatch.setattr(_metrics, "SITE_CODES_KEPT", 4)
    lines_seen = []
    for k in range(12):  # new code objects, most of them dead before the next: ids get reused
        f = _user_code(["pass"] * k + ["out.append(site())"], filename=f"/tmp/syncfixed_{k}.py")
        (site,) = f(_metrics.user_site)
        lines_seen.append(site)
        del f
        gc.collect()
        assert len(_metrics._sites) <= 4
    assert lines_seen == [(f"/tmp/syncfixed_{k}.py", 3 + k) for k in range(12)]
