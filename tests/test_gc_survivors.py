"""`_gc_freeze`'s survivors policy: an automatic full collection's survivors are frozen, so the next
one is partial; once the frozen objects doubled, an automatic one scans everything again and
collects the garbage among them; an explicit `gc.collect()` is always complete and leaves its
survivors unfrozen; LAZYARRAY_GC_FREEZE=import keeps the import-time freeze alone. Each case
runs in a fresh interpreter (the policy is process-wide), with small collector thresholds so that
automatic full collections come quickly."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PRELUDE = """
    import gc, weakref
    import lazyarray
    from lazyarray import _gc_freeze
    class Cycle:
        pass
    def cycle():
        c = Cycle(); c.me = c
        return c
    def frozen(obj):
        return not any(o is obj for o in gc.get_objects())
    def until(cond, limit=200_000):
        hold = []
        for i in range(limit):
            if cond():
                return i
            hold.append([i])  # tracked survivors: promoted, so automatic full collections come
            if len(hold) > 2000:
                hold = []
        raise AssertionError("condition never met")
    gc.set_threshold(100, 2, 2)
"""


def _run(code, **env):
    full_env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), **env)
    full_env.pop("LAZYARRAY_GC_FREEZE", None)
    full_env.update(env)
    src = textwrap.dedent(PRELUDE) + textwrap.dedent(code)
    out = subprocess.run([sys.executable, "-c", src], env=full_env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_automatic_full_collections_freeze_survivors_and_are_partial():
    out = _run("""
        keep = cycle()
        assert not frozen(keep)
        n0 = gc.get_freeze_count()
        until(lambda: _gc_freeze.oldest.partial >= 2)
        print(frozen(keep), gc.get_freeze_count() > n0, _gc_freeze.oldest.partial >= 2)
        assert keep.me is keep
    """)
    assert out == ["True", "True", "True"]


def test_explicit_collect_collects_a_cycle_among_frozen_objects_and_unfreezes():
    out = _run("""
        c = cycle()
        probe = weakref.ref(c)
        other = cycle()
        until(lambda: frozen(c))
        del c
        print(probe() is None)  # a frozen cycle is garbage now: nothing collected it yet
        gc.collect()
        print(probe() is None)
        print(frozen(other))  # the explicit collection left the survivors where gc.collect() does
        print(other.me is other)
    """)
    assert out == ["False", "True", "False", "True"]


def test_after_an_explicit_collect_the_next_automatic_one_freezes_all_without_a_scan():
    out = _run("""
        keep = cycle()
        gc.collect()
        print(gc.get_freeze_count() == 0, frozen(keep))  # everything unfrozen, as gc.collect() leaves it
        c0, p0 = _gc_freeze.oldest.complete, _gc_freeze.oldest.partial
        until(lambda: _gc_freeze.oldest.partial > p0)
        print(frozen(keep), gc.get_freeze_count() > 10_000, keep.me is keep, _gc_freeze.oldest.complete == c0)
    """)
    assert out == ["True", "False", "True", "True", "True", "True"]


def test_the_first_graph_freezes_the_setup_and_an_explicit_collect_still_collects_it():
    out = _run("""
        import numpy as np
        setup = cycle()  # the program's setup, before any graph
        dead = cycle(); probe = weakref.ref(dead)
        until(lambda: not any(o is setup for o in gc.get_objects(0) + gc.get_objects(1)))  # promoted
        print(frozen(setup), _gc_freeze._setup)  # (frozen as it was promoted: `_freeze_promoted`)
        x = lazyarray.asarray(np.arange(5.0))
        r = float(lazyarray.sum(np.sin(1.0) * x + 1.0))
        print(r == float(np.sum(np.sin(1.0) * np.arange(5.0) + 1.0)), _gc_freeze._setup)
        print(frozen(setup), setup.me is setup)
        del dead
        print(probe() is None)  # a frozen cycle: only a complete scan or an explicit collection frees it
        gc.collect()
        print(probe() is None, frozen(setup))
    """)
    assert out == ["True", "True", "True", "False", "True", "True", "False", "True", "False"]


def test_import_only_freezes_no_setup():
    out = _run("""
        import numpy as np
        setup = cycle()
        until(lambda: not any(o is setup for o in gc.get_objects(0) + gc.get_objects(1)))
        x = lazyarray.asarray(np.arange(5.0))
        float(lazyarray.sum(x * 2.0))
        print(_gc_freeze._setup, frozen(setup))
    """, LAZYARRAY_GC_FREEZE="import")
    assert out == ["False", "False"]


def test_garbage_among_frozen_objects_is_collected_by_a_later_complete_scan():
    # cycles live long enough to be frozen, then die; no explicit collection: a complete scan
    # (once the frozen objects doubled) collects them, so the dead ones do not pile up for ever
    out = _run("""
        probes, live, most = [], [], 0
        base0 = _gc_freeze.oldest.base
        for i in range(30_000):
            c = cycle(); c.payload = [[j] for j in range(20)]
            live.append(c)
            probes.append(weakref.ref(c))
            if len(live) > 50:
                live.pop(0)  # dead now, as a cycle: only a collection that scans it frees it
            if i % 500 == 0:
                most = max(most, sum(p() is not None for p in probes))
        print(_gc_freeze.oldest.complete >= 1, _gc_freeze.oldest.partial >= 1)
        print(all(p() is None for p in probes[:10_000]))
        print(most < 15_000)  # at most about the import's ~100,000 objects' worth, not all 30,000
        # the old generation's size after a complete scan is counted: the live heap, which the
        # garbage collected and the dead frozen objects do not inflate from one scan to the next
        print(_gc_freeze.oldest.base < 1.5 * base0)
    """)
    assert out == ["True", "True", "True", "True", "True"]


def test_results_are_unchanged_under_frequent_partial_and_complete_collections():
    out = _run("""
        import numpy as np
        xp = lazyarray
        gc.set_threshold(20, 1, 1)
        rng = np.random.default_rng(0)
        a = rng.standard_normal((30, 7))
        x = xp.asarray(a)
        ok, kept = True, []
        for i in range(200):
            y = xp.sum(x * float(i) + xp.sin(x), axis=0) / (i + 1)
            kept.append((y, [[k] for k in range(300)]))  # survivors: full collections come
            want = np.sum(a * float(i) + np.sin(a), axis=0) / (i + 1)
            ok = ok and np.allclose(np.asarray(y), want, rtol=1e-12, atol=1e-12)
        ok = ok and all(np.allclose(np.asarray(y), np.sum(a * float(i) + np.sin(a), axis=0) / (i + 1),
                                    rtol=1e-12, atol=1e-12) for i, (y, _) in enumerate(kept))
        print(ok, _gc_freeze.oldest.partial + _gc_freeze.oldest.complete > 0)
    """)
    assert out == ["True", "True"]


def test_import_only_keeps_the_import_freeze_alone():
    out = _run("""
        n0 = gc.get_freeze_count()
        keep = cycle()
        until(lambda: gc.get_stats()[2]["collections"] >= 3)
        print(n0 > 10_000, gc.get_freeze_count() == n0, frozen(keep), _gc_freeze._on_collection in gc.callbacks)
    """, LAZYARRAY_GC_FREEZE="import")
    assert out == ["True", "True", "False", "False"]


def test_opt_out_installs_nothing():
    out = _run("""
        print(gc.get_freeze_count(), _gc_freeze._on_collection in gc.callbacks)
    """, LAZYARRAY_GC_FREEZE="0")
    assert out == ["0", "False"]
