"""`_gc_freeze`: before the first graph, what a middle collection promotes to the old generation is
frozen at its end (`_freeze_promoted`, counted as frozen since the last complete scan), so the
first graph (`freeze_setup`) neither collects nor counts: it makes what was frozen so the base.
Until the frozen objects reach that base, then as before: automatic full collections come, and a
complete scan frees garbage among them. After an explicit collection the first graph collects the
young objects, counts and freezes everything itself. Each case in a fresh interpreter
(`test_gc_survivors._run`, small collector thresholds)."""
from test_gc_survivors import _run


def test_promoted_setup_is_frozen_and_counted_before_the_first_graph():
    out = _run("""
        import numpy as np
        setup = [[i] for i in range(20_000)]  # the program's set-up data, promoted as it is made
        o = _gc_freeze.oldest
        print(frozen(setup[0]), o.pending >= 19_000, o.pending < o.base)
        base0, pending0 = o.base, o.pending
        gc.set_threshold(1_000_000, 10, 10)  # (no automatic collection inside the first graph)
        stats = [g["collections"] for g in gc.get_stats()]
        r = float(lazyarray.sum(lazyarray.asarray(np.arange(5.0)) * 2.0 + 1.0))  # the first graph
        print(r == float(np.sum(np.arange(5.0) * 2.0 + 1.0)), _gc_freeze._setup)
        print([g["collections"] for g in gc.get_stats()] == stats)  # it collected nothing
        print(o.base == base0 + pending0, o.pending == 0)
        print(abs(o.base - gc.get_freeze_count()) < 0.1 * o.base)
        setup.append([1])
        gc.collect(1)
        print(frozen(setup[-1]))  # after the first graph, promoted objects stay to the policy
    """)
    assert out == ["True", "True", "True", "True", "False", "True", "True", "True", "True", "False"]


def test_without_a_graph_full_collections_come_once_the_frozen_reach_the_base():
    out = _run("""
        o = _gc_freeze.oldest
        hold = [cycle() for i in range(100)]
        n = until(lambda: o.partial + o.complete >= 1, limit=2_000_000)
        print(o.partial + o.complete >= 1, _gc_freeze._setup_frozen, all(h.me is h for h in hold))
    """)
    assert out == ["True", "False", "True"]


def test_after_an_explicit_collect_the_first_graph_counts_and_freezes_the_setup():
    out = _run("""
        import numpy as np
        gc.collect()  # everything unfrozen: nothing is frozen as it is promoted until a full one
        setup = cycle()
        gc.set_threshold(1_000_000, 10, 10)
        print(frozen(setup))
        base0 = _gc_freeze.oldest.base
        r = float(lazyarray.sum(lazyarray.asarray(np.arange(5.0)) * 3.0))  # the first graph
        print(r == 30.0, frozen(setup), setup.me is setup, _gc_freeze.oldest.base > base0)
    """)
    assert out == ["False", "True", "True", "True", "True"]
