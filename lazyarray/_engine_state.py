"""Everything the engine remembers between syncs, in one object: `state`.

The engine's modules (`_engine`, `_tier_policy`, `_program_cache`, `_run_program`, `_segment`,
`_checks`) keep no mutable module globals of their own: each reads and changes the containers
held here, so `state.reset()` returns the engine to what a fresh import has (tests call it
through the `fresh` fixture; `lazyarray.clear_cache()` calls it too, keeping the pending
checks, which are promises about live arrays rather than caches). `reset` empties the
containers in place: a module that holds a reference to one (`_checks.pending`) stays current.

Threads: everything here is read and changed with the engine lock (`_graph.lock`) held, by
syncs, except the background compile thread, which touches none of it (it returns a future
the next sync installs) and the pending checks list, which tracing appends to under its own
lock (see `_checks`).
"""
from __future__ import annotations

import concurrent.futures
import threading
import weakref

from . import _runtime
from ._graph import lock
from ._pool import pool


class EngineState:
    def __init__(self):
        # compiled programs (`_program_cache`): (device id, platform, structural key, donated
        # outputs) -> Compiled; the oldest is dropped first past `_config.cache_size`
        self.programs = {}
        # what running a cached program again needs (`_run_program.Replay`): program key ->
        # Replay, the oldest dropped first past `_config.cache_size`
        self.replays = {}
        # matchers of repeated one-output reads (`_run_program.Recipe`): the output's (op, shape)
        # -> its recipes, newest first; at most `_config.cache_size` outputs kept
        self.recipes = {}
        # donating variants being compiled in the background: their key -> future (`_program_cache`)
        self.variants = {}
        # graphs the interpreter tier serves (`_tier_policy`): (device id, structural key) ->
        # Sighting (runs, future of its background compile, seconds spent interpreting)
        self.sightings = {}
        # device copies of a program's host scalars (`_run_program`): (device id, dtype str,
        # shape, bytes) -> buffer, oldest dropped first
        self.scalar_buffers = {}
        # loops (`_engine`, `_segment`): cut sites whose graphs had no loop worth splitting, the
        # user's line of the last budget cut, the last loop chunk found and its chunks run
        self.unsplit_sites = set()
        self.cut_site = None
        self.last_chunk = None
        self.chunks_seen = 0
        # sites of reads whose last graph was split into loop chunks (`_engine._loop_search`):
        # their next read goes to the chunks first, without a plan of the whole graph
        self.split_sites = set()
        # sites of small reads whose graph the host path (`_host_sync.run`) gave up on lately:
        # site -> [reads there still to send straight to the engine, the next such run's length]
        # (`_engine._host_read`)
        self.host_misses = {}
        # reads whose graph `_segment.chunks` found no loop in (`_engine._loop_search`): structural
        # key -> `last_chunk` when it looked (the answer holds while that is still the last chunk)
        self.loop_free = {}
        # checked mode (`_checks`): pending checks in registration order, check vector node ->
        # the checks it concatenates, n -> the uint64 constant node of an axis length
        self.checks = []
        self.check_batches = weakref.WeakKeyDictionary()
        self.check_lengths = {}
        self.checks_lock = threading.Lock()  # tracing registers checks without the engine lock
        # dead arrays' device buffers kept for reuse (`_pool`)
        self.pool = pool
        self._compile_thread = None

    def compile_thread(self):
        """The one background compile worker (XLA releases the GIL while it compiles)."""
        if self._compile_thread is None:
            self._compile_thread = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="lazyarray-compile")
        return self._compile_thread

    def wait_for_compiles(self):
        """Block until the background compiles started so far are done."""
        if self._compile_thread is not None:
            self._compile_thread.submit(lambda: None).result()  # one worker: all queued before are done

    def reset(self, keep_checks=False):
        """Forget everything: compiled programs, sightings, loop state, cut site, scalar buffers,
        the pool's buffers and (unless `keep_checks`) the pending checks. Waits for the
        background compiles first (a finished compile would otherwise be installed later)."""
        with lock:
            self.wait_for_compiles()
            self.programs.clear()
            self.replays.clear()
            self.recipes.clear()
            _runtime.forget_executables()
            self.variants.clear()
            self.sightings.clear()
            self.scalar_buffers.clear()
            self.unsplit_sites.clear()
            self.split_sites.clear()
            self.host_misses.clear()
            self.cut_site = None
            self.last_chunk = None
            self.chunks_seen = 0
            self.loop_free.clear()
            self.check_lengths.clear()
            if not keep_checks:
                with self.checks_lock:
                    self.checks.clear()
                self.check_batches.clear()
            self.pool.clear()

    def sizes(self):
        """How many entries each bounded container holds (long-run tests watch these stay flat)."""
        return {"programs": len(self.programs), "variants": len(self.variants), "replays": len(self.replays), "recipes": len(self.recipes),
                "sightings": len(self.sightings), "scalar_buffers": len(self.scalar_buffers),
                "unsplit_sites": len(self.unsplit_sites), "split_sites": len(self.split_sites),
                "host_misses": len(self.host_misses), "loop_free": len(self.loop_free), "checks": len(self.checks),
                "check_lengths": len(self.check_lengths)}


state = EngineState()
