"""Tier policy: interpret a graph in numpy now, or use (or build) its compiled program.

XLA's CPU compile costs at least ~25-30 ms even for one op. A graph not compiled yet therefore
runs in the numpy interpreter (`_interpret`), and its program is compiled on the background
thread once the graph has been seen `interpret_first` times AND interpreting it has cost as much
as compiling it would (the ski-rental rule: a graph never costs more than about twice the better
of the two tiers, whatever its future). Until the program is ready the interpreter keeps serving
the graph, never waiting for the compile. One-off and rarely repeated graphs (most graphs of a
test suite) thus never pay XLA's 30-500 ms compile, and a hot loop's graph compiles after a few
dozen runs. Graphs the interpreter has no rule for, and graphs so large that numpy would be
slower than a compile, compile at once. What is known about each graph is a `Sighting` in
`state.sightings`.

On an accelerator (GPU, TPU: `may_interpret`), a graph's device-resident inputs must first be
copied to the host, and its outputs (host values until a compiled program or a read needs them)
go back up, once, when a program takes them. That pays when the copies cost less than the
compile they spare. Figures assumed (to be measured on a GPU): XLA's GPU compile takes 0.3 s or
more even for one op (`ACCELERATOR_COMPILE_RATIO` times the CPU's estimate); a host-device copy
of small, pageable buffers moves ~1 GB/s (PCIe's peak is 10-25 GB/s, but small transfers are
latency-bound, ~10-20 us each). A first sight should cost at most a tenth of the compile it
replaces, 30 ms: numpy's work under INTERPRET_MAX_WORK takes up to ~20 ms, leaving ~10 ms of
copies, i.e. ~8 MiB (`_config.interpret_transfer_bytes`, LAZYARRAY_INTERPRET_TRANSFER_BYTES).
A graph whose device inputs plus outputs exceed that compiles at once. A device input is
fetched once (`fetch_inputs` keeps the host copy on its leaf beside the buffer), so a graph
interpreted again on the same arrays copies nothing. The interpreter computes exactly the dtypes
the device has (a TPU has no float64: `_devices`). Its values are numpy's: on a GPU,
transcendental functions differ from XLA GPU's in the last bits, as on the CPU (README).
A graph over a mesh never goes to the interpreter (`_run_program`).

What interpreting a graph costs is its CPU time on this thread (`time.thread_time`), not the wall
clock: on a loaded machine a run preempted for 30 ms would otherwise "cost" a 2-op graph's whole
compile at its second run (session 8 saw a float32 first pass compile a 2-op graph twice for
0.36-1.07 s). Reading the thread's CPU clock costs ~2.3 us on this VM (a system call), so only a
few runs are timed (`Sighting.timed`): the `interpret_first`-th, when the first decision is made,
then each run whose count doubles the last timed one's; every run counts as the mean of the timed
ones. A graph seen once is never timed, a graph run n times is timed about log2(n) times.

What a timed run counts is what compiling would save: its host LAPACK calls (decompositions,
triangular solves: `_interpret.HostProgram` times them apart) are left out, because the compiled
program calls the same LAPACK routines on the same shapes (`_ops.lapack_host`: the same bits) and
would spend that time too. A graph whose interpreting is mostly LAPACK thus compiles only when the
rest of its work pays for the compile (counted in, a 5000x50 SVD's ~20 ms a run would reach a
~0.1 s compile estimate within a few runs, for a program no faster).

The ski rental assumes the compiled program is the cheaper tier per run; it is not always
(session 11: `isfinite(sum(X))` on 5000x50 float64 costs ~110 us interpreted against ~170-310 us
compiled, XLA's reduction spreading over its own threads; a long scikit-learn Pipeline loop
compiled it and then ran it dearer). So on the host a new program is tried before it is
installed: its first `TRIAL_RUNS` + 1 runs go through `serve` (the first untimed: its set-up),
each timed in CPU seconds of the whole process (`_cpu_since`: XLA's CPU execute may run on other
threads; a run that a background compile overlapped is not counted, up to `TRIAL_RUNS_MAX`) from
`serve`'s return to the end of `_run_program.run` (inputs, execute, realize: `end_trial`, its
hook there). The interpreter's timed runs are timed alike for this (`Sighting.host_cpu`: from
its inputs' fetch to its values computed), those near the graph's compile decision only
(`samples_process_cpu`: the process's clock costs more to read than the thread's). When its cheapest compiled run costs more than
`SLOWER_MARGIN` times the cheapest interpreted one (`compiled_is_slower`), the graph goes back to the
interpreter for good in this process (pinned: decided once, no flip-flop), and the command's
learnt-cost file records its entry (`_prefetch.note_slower_compiled`), so the next run of the
command pins it at first sight instead of loading the program from disk. Otherwise the program
is installed and serves as before. (On an accelerator execution is asynchronous: the host's
CPU clock does not see it, and the program is installed untried.)
"""
from __future__ import annotations

import math
import threading
import time
from time import process_time as _process_cpu  # (a name of its own: tests replace `time`)

import numpy as np

from . import _checks, _config, _debug_log, _heap_prefault, _interpret
from ._bounded import keep
from ._ops.core import INTERPRET_MAX_WORK
from ._ops.fft import FFT
from ._engine_state import state
from ._metrics import format_site, metrics
from . import _gc_freeze, _prefetch
from ._program_cache import (COMPILE_FAILED, compile_program, from_disk, install, learnt_seconds,
                             note_compile_error, note_interpreter_error, program_key, structural_path)


INTERPRETED = True  # what `serve` returns when the interpreter computed the outputs

# Platforms whose device memory is the host's: the interpreter reads their buffers in place.
HOST_PLATFORMS = frozenset({"cpu"})

# XLA's compile on an accelerator against its CPU compile (`compile_estimate`): 0.3 s or more
# for one op on a GPU (issue 13) against ~28 ms. An assumption until measured on a GPU.
ACCELERATOR_COMPILE_RATIO = 10.0

_pthread_clock = getattr(time, "pthread_getcpuclockid", None)  # (Unix only, as the next)
_clock_seconds = getattr(time, "clock_gettime", None)


class Sighting:
    """A graph the interpreter serves: how often and how long, and its background compile."""
    __slots__ = ("runs", "future", "seconds", "pinned", "steps", "estimate", "learnt",
                 "timed", "timed_seconds", "next_timed", "host_cpu", "trial", "trial_runs", "recipe", "wall")

    def __init__(self, pinned):
        self.runs = 0
        self.future = None   # of its background compile; COMPILE_FAILED: interpret it for good
        self.seconds = 0.0   # CPU seconds interpreting it has cost: runs x the timed runs' mean
        self.timed = 0       # runs whose CPU time was read (the module docstring says which)
        self.timed_seconds = 0.0  # their CPU seconds, summed
        self.next_timed = max(1, _config.interpret_first)  # the run count the next timed run has
        self.pinned = pinned  # never compiled: its values stay the interpreter's (keeps_host_values)
        self.steps = None    # the interpreter's program for this graph (`_interpret.HostProgram`), built
        #                      at its first run: every later run is a flat list of numpy calls
        self.estimate = None  # its compile's seconds (`compile_estimate`), once it may decide
        self.learnt = None   # seconds per run the last run of this command measured (`learnt_seconds`)
        self.host_cpu = []   # process CPU seconds of its timed interpreted runs, whole (the trial's yardstick)
        self.trial = None    # its program's timed runs (process CPU seconds) while it is tried (`end_trial`)
        self.trial_runs = 0  # its program's runs on trial, those not counted included
        self.recipe = None   # its matcher (`_run_program.Recipe`; False: none), made once it has run RECIPE_AFTER_RUNS times
        self.wall = None     # wall seconds of its last interpreted run (`samples_process_cpu`)


COMPILE_FIXED, COMPILE_PER_NODE = 0.025, 0.001  # seconds: compile_estimate's terms


def compile_seconds(order):
    """Seconds XLA's CPU compile takes for the graph of these computed nodes (measured here: ~28 ms
    for one op, ~110 ms for 100), each op's own extra included (`OpDef.compile_extra`: a cumulative
    sum alone compiles in ~170 ms, a float max in ~130 ms)."""
    extra = 0.0
    for node in order:
        more = node.op.compile_extra
        if more is not None:
            extra += more(node)
    return _compile_seconds(len(order), extra)


def _compile_seconds(n_nodes, extra):
    """compile_seconds' formula, from its two sums (`first_sight` takes them in its own walk)."""
    return COMPILE_FIXED + COMPILE_PER_NODE * n_nodes + extra


def _work_pays(work, compile_s):
    """interpreting_pays' rule: `work` element-ops of numpy against a compile of `compile_s`."""
    return work <= INTERPRET_MAX_WORK * compile_s / COMPILE_FIXED


def compile_estimate(order):
    """What the ski rental weighs interpreting against (`compile_seconds`; tests replace it)."""
    return compile_seconds(order)


def interpreting_pays(order):
    """Whether numpy's work for this graph costs less than its compile: INTERPRET_MAX_WORK
    element-ops for a one-op graph, growing with the compile's cost (a 300-node graph of SciPy's
    cubature, 34M element-ops, is ~0.1 s in numpy against a 0.3-2 s compile; SciPy's rankdata of
    1e6 elements, 22M element-ops with a cumulative sum, ~0.1 s against ~0.4 s)."""
    return _work_pays(sum(math.prod(n.shape) for n in order), compile_seconds(order))


def first_sight(order):
    """A graph seen for the first time, in one walk over its computed nodes: None when the
    interpreter does not take it (a node no evaluation covers: `_interpret.supports`; or more
    numpy work than its compile: `interpreting_pays`), else (its work in element-ops, whether it
    has an fft: `keeps_host_values`). (One walk instead of four: most graphs of a consumer's
    first call are seen once, so this is paid at nearly every interpreted sync.)"""
    if _gc_freeze._setup:  # (the first graph: what the program set up leaves the collector's scans)
        _gc_freeze.freeze_setup()
    work = 0
    extra = 0.0
    fft = False
    for node in order:
        op = node.op
        # (`OpDef.interpretable`, inline: ~0.05 us less a node of every first sight)
        if op.evaluate is None:
            return None
        covers = op.covers
        if covers is not None and not covers(node):
            return None
        n = 1
        for s in node.shape:
            n *= s
        work += n
        more = op.compile_extra
        if more is not None:
            extra += more(node)
        if op is FFT:
            fft = True
    if not _work_pays(work, _compile_seconds(len(order), extra)):
        return None
    return work, fft


def may_interpret(device, plan, outputs):
    """Whether the interpreter tier may serve this graph, which has no program yet on `device`:
    on the CPU whenever the tier is on; on an accelerator when the bytes its device-resident
    inputs and its outputs would cross between host and device are under the transfer budget
    (the module docstring says why). (A graph over a mesh is the caller's to exclude.)"""
    if not _config.interpret_first:
        return False
    if device.platform in HOST_PLATFORMS:
        return True
    return device.mesh is None and transfer_bytes(plan.leaves, outputs) <= _config.interpret_transfer_bytes


def keeps_host_values(order):
    """Whether a graph the interpreter serves on the host keeps being interpreted for good: one with
    a discrete Fourier transform. numpy's transform (pocketfft) and XLA's (DUCC) round differently
    (`_ops.fft`: within 8 eps, about half of small transforms bit-identical), so switching such a
    graph to its compiled program would change the bits of a call the user repeats (SciPy checks
    that 16 threads calling `fft.hfft` get the first call's bits). On the host the interpreter's
    transform costs what XLA's does. Which tier a graph gets is then a function of its structure
    only: under the interpreter's work limit numpy, always; over it XLA, always."""
    return any(node.op is FFT for node in order)


def transfer_bytes(leaves, outputs):
    """Bytes interpreting a graph on an accelerator may move: its inputs still only on the device
    (those already fetched, and host values, cost nothing) and its outputs (sent up once a
    compiled program needs them)."""
    total = 0
    for leaf in leaves:
        if leaf.host is None and leaf.buffer is not None:
            total += math.prod(leaf.shape) * leaf.dtype.np.itemsize
    for node in outputs:
        total += math.prod(node.shape) * node.dtype.np.itemsize
    return total


def fetch_inputs(leaves):
    """Copy each device-resident input to the host, once: the copy stays on the leaf beside its
    buffer (`Node.host`; the interpreter reads it, a program still takes the buffer)."""
    for leaf in leaves:
        if leaf.host is None and leaf.buffer is not None:
            value = np.asarray(leaf.buffer)  # (jax keeps this copy too: it is the same memory)
            leaf.host = value
            metrics.bytes_to_host += value.nbytes


def serve(skey, plan, outputs, device, site, plain_key=None):
    """Run a graph with no cached program in the interpreter, starting its background compile
    when the rule above says so. Returns INTERPRETED when the outputs were computed (and
    realized on the host), the compiled program when one is ready, or None to compile now.
    `plain_key`: the graph's `program_key` (no donated outputs), already looked up in
    `state.programs` and missed (`_run_program.run`)."""
    if plain_key is None:
        plain_key = program_key(device, skey)
        compiled = state.programs.get(plain_key)
        if compiled is not None:
            return compiled
    sightings = state.sightings
    tkey = (device.id, skey)
    entry = sightings.get(tkey)
    work = None
    if entry is None:
        _heap_prefault.release()  # (work starts: heap held since import given back for it to reuse)
        seen = first_sight(plan.order)
        if seen is None:
            return None
        work, fft = seen
        pinned = (fft and device.platform in HOST_PLATFORMS) or _went_back(tkey, skey, device)
        compiled = None if pinned else from_disk(skey, plan.order, plan.leaves, outputs, device)
        if compiled is not None:  # an earlier process compiled it: cheap to load
            return install(plain_key, compiled)
        if _config.debug:
            _debug_log.interpreted_new(format_site(site), plan.order)
        entry = keep(sightings, tkey, Sighting(pinned), 4 * _config.cache_size, oldest=True)
    future = entry.future
    if future is not None and future is not COMPILE_FAILED and future.done():
        exc = future.exception()
        if exc is None:
            if entry.host_cpu and device.platform in HOST_PLATFORMS and device.mesh is None:
                return _tried(entry, tkey, plain_key, future.result())  # (module docstring)
            del sightings[tkey]
            return install(plain_key, future.result())
        # XLA rejected the program: the interpreter, which ran this graph, keeps serving it
        note_compile_error(site, exc)
        entry.future = future = COMPILE_FAILED
    timed = entry.runs + 1 >= entry.next_timed
    on_host = device.platform in HOST_PLATFORMS
    p0 = None
    if timed:
        if on_host and samples_process_cpu(entry, plan, skey, device):
            p0 = _cpu_mark()
        c0 = time.thread_time()
    t0 = time.perf_counter()
    try:
        if not on_host:  # (the copies count in what interpreting this graph costs)
            fetch_inputs(plan.leaves)
        steps = entry.steps
        if steps is None:  # (a small graph keeps every value: no last-use walk)
            steps = entry.steps = _interpret.HostProgram(plan, outputs, work is None or work > _interpret.KEEP_ALL_WORK)
        plan.steps = steps
        steps.clock = timed  # (its LAPACK calls timed apart: below)
        values = _interpret.interpret(plan.order, plan.leaves, outputs, plan)
    except Exception as exc:  # an interpreter bug must not fail the user's program: compile it
        note_interpreter_error(site, exc)
        del sightings[tkey]
        if future is not None and future is not COMPILE_FAILED:
            # compiling already: wait for that program rather than compile the graph twice
            return install(plain_key, future.result())
        return None
    entry.wall = wall = time.perf_counter() - t0
    metrics.interpret_seconds += wall  # (wall clock: the report's figure)
    metrics.interpreted += 1
    runs = entry.runs = entry.runs + 1
    if timed:
        spent = time.thread_time() - c0
        if p0 is not None:  # (before the decision below, which may emit the program here)
            host_cpu = entry.host_cpu
            cost = _cpu_since(p0)
            if cost is not None:
                host_cpu.append(cost)
                if len(host_cpu) > HOST_SAMPLES:
                    del host_cpu[0]
        if steps.clocked:  # its LAPACK calls: the compiled program makes the same ones (docstring)
            spent = max(0.0, spent - steps.lapack_seconds)
        entry.timed_seconds += spent
        entry.timed += 1
        entry.next_timed = 2 * runs
        entry.seconds = runs * (entry.timed_seconds / entry.timed)
    elif entry.timed:
        entry.seconds += entry.timed_seconds / entry.timed
    if future is None and not entry.pinned and entry.runs >= _config.interpret_first:
        estimate = entry.estimate
        if estimate is None:  # (a walk over the nodes: once, when it may first decide)
            estimate = entry.estimate = compile_estimate(plan.order) * (1.0 if on_host else ACCELERATOR_COMPILE_RATIO)
            entry.learnt = learnt_seconds(skey, device)  # decide as the last run of this command did
        spent = entry.seconds if entry.learnt is None else entry.runs * entry.learnt
        if spent >= estimate:
            # emitted before the nodes turn into leaves
            entry.future = compile_program(plain_key, plan.order, plan.leaves, outputs, device, site, background=True)
    if _checks.pending:  # a failed check raises here, before anything is realized
        _checks.verify(outputs, values)
    for node, value in zip(outputs, values):
        node.realize_host(value)
    return INTERPRETED


# Timed runs within this factor of runs of the compile decision also read the process's CPU clock.
SAMPLE_AHEAD = 32


def samples_process_cpu(entry, plan, skey, device):
    """Whether a timed run of this graph on the host also measures its process CPU (`host_cpu`,
    the trial's yardstick): only once its compile may start within SAMPLE_AHEAD times its runs
    so far (by its last run's wall time, or the learnt cost), while compiling, or when nothing
    is known yet. Reading the process's CPU clock costs ~2 us while other threads of the process
    run (OpenBLAS's workers spin after a product) against ~0.3 for this thread's, and on a loaded
    machine such reads stalled for milliseconds (a scikit-learn pass: 96 reads, up to 30 ms each,
    36 ms of wall time in all); most timed runs are a graph's second, far from its compile (it
    costs 25 ms or more). The estimate is made here when this run is the first to decide (as
    `serve` would make it after the run: the same value, one call earlier)."""
    future = entry.future
    if entry.pinned or future is COMPILE_FAILED:
        return False  # (never compiled: no trial)
    if future is not None:
        return True
    estimate = entry.estimate
    if estimate is None:
        if entry.runs + 1 < _config.interpret_first:
            return True
        estimate = entry.estimate = compile_estimate(plan.order)  # (on the host: no accelerator ratio)
        entry.learnt = learnt_seconds(skey, device)
    per_run = entry.learnt if entry.learnt is not None else entry.wall
    return per_run is None or (entry.runs + 1) * per_run * SAMPLE_AHEAD >= estimate


# The trial of a new program on the host (module docstring).
TRIAL_RUNS = 5        # timed runs of a new program before it is installed or sent back
TRIAL_RUNS_MAX = 20   # its runs on trial at most (runs while a compile runs are not counted)
SLOWER_MARGIN = 1.25  # how much dearer than interpreting (least runs) a program must be to go back
HOST_SAMPLES = 8      # interpreted runs' process CPU samples kept per graph (the latest)

on_trial = None  # (entry, tkey, plain_key, compiled, `_cpu_mark()` at serve's return) of a timed trial run


def _tried(entry, tkey, plain_key, compiled):
    """`serve`'s answer while the graph's new program is on trial: the program, for `run` to
    execute; its first run untimed (a replay's set-up, XLA's first execute), the next
    `TRIAL_RUNS` timed until `end_trial`, `_run_program.run`'s hook, has them all."""
    global on_trial
    if entry.trial is None:
        entry.trial = []
        on_trial = None
        return compiled
    on_trial = (entry, tkey, plain_key, compiled, _cpu_mark())
    return compiled


def end_trial(compiled):
    """(Called at the end of `_run_program.run` while `on_trial` is set.) Count this run of the
    program on trial; at the last, decide (`compiled_is_slower`): install the program, or send
    the graph back to the interpreter for good (and record it for the command's next run)."""
    global on_trial
    entry, tkey, plain_key, tried, mark = on_trial
    on_trial = None
    if tried is not compiled:  # (a trial run that raised left it set: nothing to count)
        return
    spent = _cpu_since(mark)
    if spent is not None:
        entry.trial.append(spent)
    entry.trial_runs += 1
    if len(entry.trial) < TRIAL_RUNS and entry.trial_runs < TRIAL_RUNS_MAX:
        return
    if state.sightings.get(tkey) is entry:
        del state.sightings[tkey]
    if not entry.trial or not compiled_is_slower(entry.host_cpu, entry.trial):
        install(plain_key, compiled)
        return
    send_back(entry, tkey, plain_key, compiled)


def compiled_is_slower(host_cpu, trial):
    """Whether the compiled program's cheapest run (CPU seconds, `_cpu_since`) costs more than
    SLOWER_MARGIN times the interpreter's cheapest. The least of a few runs: what else the
    process's threads do meanwhile only adds to a run (OpenBLAS's and XLA's workers spinning
    after their last task, a collection; in a Pipeline loop a ~0.15 ms graph's runs read 0.14 to
    2.9 ms), so the least is the nearest to what the run itself costs."""
    return min(trial) > SLOWER_MARGIN * min(host_cpu)


def send_back(entry, tkey, plain_key, compiled):
    """The graph goes back to the interpreter for good in this process (pinned: its sighting
    stays, so the interpreter's program is kept), its program is dropped, and the command's
    learnt costs name its disk entry (`_prefetch.note_slower_compiled`) for the next run."""
    entry.pinned = True
    entry.future = None  # (its trial's runs stay in `entry.trial`)
    state.sightings[tkey] = entry
    state.replays.pop(plain_key, None)  # (the trial's run recipe holds the program)
    if _config.debug:
        _debug_log._say(f"lazyarray: a compiled program ran dearer ({min(entry.trial) * 1e6:.0f} us) "
                        f"than its graph interpreted ({min(entry.host_cpu) * 1e6:.0f} us): interpreted for good")
    root = _config.cache_dir
    name = _prefetch.entry_name(root, compiled.name) if root else None
    if name is not None:
        _prefetch.note_slower_compiled(root, name)


def _went_back(tkey, skey, device):
    """Whether a graph seen for the first time was sent back to the interpreter by a run of this
    command, this one included (its learnt costs name the graph's disk entry; naming it costs a
    structural key's hash, so only asked when such records exist). (Without a disk cache, a graph
    this process sent back whose sighting was dropped since, past 4 x cache_size sightings, is
    decided again.)"""
    root = _config.cache_dir
    if not root or device.platform not in HOST_PLATFORMS or device.mesh is not None:
        return False
    names = _prefetch.slower_compiled(root)
    if not names:
        return False
    return _prefetch.entry_name(root, structural_path(device, skey)) in names


QUIET_COMPILE_THREAD = 20e-6  # seconds of the compile thread's CPU a counted run may overlap (its wake-ups)
COMPILE_THREAD_PREFIX = "lazyarray-compile"  # (`_engine_state.compile_thread`'s thread name)
_compile_clock = None  # (the compile thread, its CPU clock id), once it exists


def _cpu_mark():
    """A start for `_cpu_since`: the process's CPU seconds and the compile thread's."""
    clock = _compile_thread_clock()
    return _process_cpu(), clock, (0.0 if clock is None else _clock_seconds(clock))


def _cpu_since(mark):
    """CPU seconds the process spent since `mark`: what a sync costs on every thread it uses
    (XLA's execute, OpenBLAS's); None when the compile thread worked meanwhile. A background
    compile of another graph uses threads of XLA's besides the compile thread (a Pipeline loop
    compiles several graphs at once: counted in, they made a ~0.1 ms run read 0.5-10 ms), so a
    run it overlapped is not counted at all."""
    p0, clock, c0 = mark
    spent = _process_cpu() - p0
    if clock is not None:
        try:
            if _clock_seconds(clock) - c0 > QUIET_COMPILE_THREAD:
                return None
        except OSError:  # (the thread ended meanwhile)
            return None
    return spent


def _compile_thread_clock():
    """The CPU clock id of the compile thread (None when it does not exist yet, or the platform
    has no per-thread clocks)."""
    global _compile_clock
    known = _compile_clock
    if known is not None and known[0].is_alive():
        return known[1]
    if _pthread_clock is None or state._compile_thread is None:
        return None
    for thread in threading.enumerate():
        if thread.name.startswith(COMPILE_THREAD_PREFIX) and thread.ident is not None:
            try:
                clock = _pthread_clock(thread.ident)
            except (OSError, ValueError):
                return None
            _compile_clock = (thread, clock)
            return clock
    return None
