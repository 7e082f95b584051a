"""`_gc_freeze`: after a complete scan the next first sight resets CPython's trigger for full
collections (one full collection of the nearly empty old generation), so the next partial
collection comes as soon as between any two others instead of after a quarter of the heap was
promoted (and then scanning all of that at once); the setup frozen at the first graph is the base
the doubling is measured from. Each case in a fresh interpreter (`test_gc_survivors._run`, small
collector thresholds)."""
import textwrap

from test_gc_survivors import _run

# real growth of the old generation (objects kept alive), which a complete scan follows
GROW = textwrap.dedent("""
    grown = []
    def grow_until(cond):
        while not cond():
            grown.append([len(grown)])
            if len(grown) > 3_000_000:
                raise AssertionError("condition never met")
""")

COMPLETE_THEN_FIRST_SIGHT = GROW + textwrap.dedent("""
    import numpy as np
    _gc_freeze.EARLY = 1000  # (no early collections after middle ones: the complete scan's alone)
    {patch}
    x = lazyarray.asarray(np.arange(5.0)); float(lazyarray.sum(x * 2.0))  # the first graph
    keep = cycle()
    c0 = _gc_freeze.oldest.complete
    grow_until(lambda: _gc_freeze.oldest.complete > c0)
    frozen_before = gc.get_freeze_count()
    y = lazyarray.asarray(np.arange(7.0))
    r = float(lazyarray.sum(y * 3.0 + 1.0))  # a graph not seen before: a first sight
    print(r == float(np.sum(np.arange(7.0) * 3.0 + 1.0)), _gc_freeze.oldest.early, _gc_freeze._setup)
    print(frozen(keep), keep.me is keep, gc.get_freeze_count() >= frozen_before)
    p0 = _gc_freeze.oldest.partial
    print(until(lambda: _gc_freeze.oldest.partial > p0))
""")


def test_a_first_sight_after_a_complete_scan_resets_the_trigger_without_unfreezing():
    out = _run(COMPLETE_THEN_FIRST_SIGHT.format(patch=""))
    # the reset ran once, its collection left everything frozen, and the next automatic full
    # collection (partial) came after a few thousand allocations, not ~a quarter of the heap
    assert out[:6] == ["True", "1", "False", "True", "True", "True"]
    assert int(out[6]) < 8_000


def test_without_the_reset_the_next_partial_waits_for_a_quarter_of_the_heap():
    # the same program with the reset switched off: what the reset is for
    out = _run(COMPLETE_THEN_FIRST_SIGHT.format(patch="_gc_freeze._ask_early = lambda: None"))
    assert out[:6] == ["True", "0", "False", "True", "True", "True"]
    assert int(out[6]) > 15_000


def test_the_reset_is_partial_and_frees_garbage_promoted_since():
    out = _run(GROW + textwrap.dedent("""
        import numpy as np
        _gc_freeze.EARLY = 1000
        x = lazyarray.asarray(np.arange(5.0)); float(lazyarray.sum(x * 2.0))
        c0 = _gc_freeze.oldest.complete
        grow_until(lambda: _gc_freeze.oldest.complete > c0)
        dead = cycle(); probe = weakref.ref(dead)
        gc.collect(1)  # promoted to the (not frozen) old generation
        del dead
        c1, p1 = _gc_freeze.oldest.complete, _gc_freeze.oldest.partial
        y = lazyarray.asarray(np.arange(9.0)); float(lazyarray.sum(y - 1.0))
        print(probe() is None, _gc_freeze.oldest.complete == c1, _gc_freeze.oldest.partial == p1 + 1)
        print(gc.get_freeze_count() > 10_000, len(gc.get_objects(2)) < 1_000)
    """))
    assert out == ["True", "True", "True", "True", "True"]


def test_no_reset_while_the_program_turned_the_collector_off():
    out = _run(GROW + textwrap.dedent("""
        import numpy as np
        _gc_freeze.EARLY = 1000
        x = lazyarray.asarray(np.arange(5.0)); float(lazyarray.sum(x * 2.0))
        c0 = _gc_freeze.oldest.complete
        grow_until(lambda: _gc_freeze.oldest.complete > c0)
        gc.disable()
        n2 = gc.get_stats()[2]["collections"]
        y = lazyarray.asarray(np.arange(7.0)); float(lazyarray.sum(y * 3.0))
        print(_gc_freeze.oldest.early, gc.get_stats()[2]["collections"] == n2, _gc_freeze._setup)
    """))
    assert out == ["0", "True", "False"]


def test_the_setup_is_the_base_of_the_next_doubling():
    out = _run("""
        import numpy as np
        setup = [[i] for i in range(60_000)]  # the program's set-up data
        base0 = _gc_freeze.oldest.base
        x = lazyarray.asarray(np.arange(5.0)); float(lazyarray.sum(x * 2.0))  # the first graph
        o = _gc_freeze.oldest
        print(o.base - base0 >= 50_000, o.pending == 0, frozen(setup[0]), _gc_freeze._setup)
        print(abs(o.base - gc.get_freeze_count()) < 0.1 * o.base)
    """)
    assert out == ["True", "True", "True", "False", "True"]


def test_a_doubling_estimate_is_counted_before_a_complete_scan():
    # promoted objects that die by reference count later: the estimate of the frozen objects
    # grows, the frozen objects do not. While the heap has not grown by half nothing is counted;
    # once it has (untracked strings here), the count finds no doubling: no complete scan either way
    out = _run("""
        import numpy as np
        x = lazyarray.asarray(np.arange(5.0)); float(lazyarray.sum(x * 2.0))
        keep = cycle()
        o = _gc_freeze.oldest
        c0, n0 = o.complete, gc.get_freeze_count()
        def churn(n):
            hold = []
            for i in range(n):  # each list is promoted and frozen, then dies by reference count
                hold.append([i])
                if len(hold) > 20_000:
                    hold = []
        churn(600_000)
        print(o.complete == c0, o.counts, o.pending < o.base, gc.get_freeze_count() < 1.5 * n0)
        strings = [str(i) * 3 for i in range(o.blocks)]  # the heap grows, its tracked objects do not
        churn(600_000)
        print(o.complete == c0, o.counts >= 1, frozen(keep), keep.me is keep)
    """)
    assert out == ["True", "0", "True", "True", "True", "True", "True", "True"]


EARLY_RUN = """
    import numpy as np
    gc.set_threshold(100, 4, 10)
    {patch}
    middle = []  # middle-generation collections since the last full one, at each full one's start
    gc.callbacks.insert(0, lambda phase, info: info["generation"] == 2 and phase == "start"
                        and middle.append(gc.get_count()[2]))
    kept, ok = [], True
    for n in range(1, 1200):  # a first sight each (a new shape), and survivors: full collections come
        a = np.arange(float(n))
        ok = ok and float(lazyarray.sum(lazyarray.asarray(a) * 2.0)) == float(np.sum(a * 2.0))
        kept.append([[k] for k in range(60)])
    print(ok, _gc_freeze.oldest.early > 0, len(middle) > 3, max(middle[1:]))  # (the first: CPython's)
"""


def test_a_first_sight_after_half_the_middle_collections_runs_the_full_one():
    out = _run(EARLY_RUN.format(patch=""))
    # after the first full collection, every one came after at most half the program's 10 middle
    # ones (and a few more, until the next first sight)
    assert out[:3] == ["True", "True", "True"] and int(out[3]) <= 7, out
    late = _run(EARLY_RUN.format(patch="_gc_freeze.EARLY = 1000"))
    assert late[:2] == ["True", "False"] and int(late[3]) > 10, late


def test_no_early_collection_before_the_first_full_one():
    # a short program that never reaches CPython's own trigger: no full collection of ours either
    out = _run("""
        import numpy as np
        gc.set_threshold(100, 4, 10)
        n2 = gc.get_stats()[2]["collections"]
        kept, ok = [], True
        for n in range(1, 200):  # ~12,000 survivors: CPython's trigger wants ~25,000 (1/4 of the import's)
            a = np.arange(float(n))
            ok = ok and float(lazyarray.sum(lazyarray.asarray(a) * 2.0)) == float(np.sum(a * 2.0))
            kept.append([[k] for k in range(60)])
        print(ok, gc.get_count()[2] > 10, _gc_freeze.oldest.early, gc.get_stats()[2]["collections"] == n2)
    """)
    assert out == ["True", "True", "0", "True"], out


def test_an_explicit_collect_counts_its_survivors_and_leaves_them_unfrozen():
    out = _run("""
        keep = cycle()
        junk = [cycle() for _ in range(5_000)]
        del junk
        gc.collect()
        n = len(gc.get_objects())
        o = _gc_freeze.oldest
        print(gc.get_freeze_count() == 0, frozen(keep), abs(o.base - n) < 100, o.pending == 0)
        p0, b0 = o.partial, o.base
        until(lambda: o.partial > p0)  # the next full one: everything frozen at its start
        print(frozen(keep), keep.me is keep, o.base == b0, o.complete == 0)
    """)
    assert out == ["True", "False", "True", "True", "True", "True", "True", "True"]
