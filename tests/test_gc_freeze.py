"""`_gc_freeze`: importing lazyarray collects once and moves the objects that exist then out of
Python's full collections; garbage made before the import is collected, not kept; the opt-out
leaves the collector alone. Each case runs in a fresh interpreter (the import is what is tested)."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(code, **env):
    full_env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), **env)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


FREEZE_COUNT = """
    import gc
    before = gc.get_freeze_count()
    import lazyarray
    print(before, gc.get_freeze_count())
"""


def test_import_freezes_what_exists():
    before, after = map(int, _run(FREEZE_COUNT, LAZYARRAY_GC_FREEZE="1"))
    assert before == 0
    assert after > 10_000  # jax's and lazyarray's modules, functions and types


def test_opt_out_leaves_the_collector_alone():
    before, after = map(int, _run(FREEZE_COUNT, LAZYARRAY_GC_FREEZE="0"))
    assert (before, after) == (0, 0)


def test_garbage_made_before_the_import_is_collected_not_frozen():
    dead, freed_later = _run("""
        import gc, weakref
        gc.disable()  # so that only the import's own collection can free the cycle
        class Cycle:
            pass
        a = Cycle(); a.me = a
        probe = weakref.ref(a)
        del a
        import lazyarray
        print(probe() is None)
        b = Cycle(); b.me = b  # made after the import: ordinary collections still find it
        probe2 = weakref.ref(b)
        del b
        gc.enable(); gc.collect()
        print(probe2() is None)
    """, LAZYARRAY_GC_FREEZE="1")
    assert dead == "True"
    assert freed_later == "True"


def test_frozen_objects_are_still_freed_by_reference_count():
    freed, = _run("""
        import weakref
        class Holder:
            pass
        h = Holder()
        probe = weakref.ref(h)
        import lazyarray  # h is frozen now
        del h
        print(probe() is None)
    """, LAZYARRAY_GC_FREEZE="1")
    assert freed == "True"
