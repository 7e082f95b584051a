"""The loop search's rule-out (`_segment._may_repeat`): an end of the node sequence where no run
can repeat a period MIN_REPEATS times is not searched (`_periodic_suffix`), so `_period_of`
answers as the search of every end did, on random sequences and on a graph with no loop (whose
value is numpy's)."""
import random

import numpy as np

import lazyarray as xp
from lazyarray import _segment


def _searched_everywhere(descs):
    """`_period_of` as it was: every end searched, the first answer taken."""
    seq = _segment._codes(descs)
    n, found, skip = len(seq), None, 0
    for skip in range(_segment.MAX_SKIP + 1):
        found = _segment._periodic_suffix(seq[:n - skip])
        if found is not None:
            break
    return found, skip


def _sequences(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        kinds = rng.randint(1, 6)
        seq = [("op", rng.randrange(kinds)) for _ in range(rng.randint(9, 60))]
        if rng.random() < 0.5:  # a loop: a period repeated, then a few other nodes
            period = [("op", rng.randrange(8)) for _ in range(rng.randint(1, 8))]
            seq += period * rng.randint(1, 6) + [("x", rng.randrange(4)) for _ in range(rng.randint(0, 9))]
        yield seq


def test_period_of_answers_as_the_search_of_every_end():
    ruled_out = 0
    for descs in _sequences(4000, 11):
        _segment._last_search[:] = [None, None, 0]
        assert _segment._period_of(descs) == _searched_everywhere(descs)
        seq = _segment._codes(descs)
        ends = [_segment._may_repeat(seq, len(seq) - 1 - e) for e in range(_segment.MAX_SKIP + 1)]
        ruled_out += not any(ends)
        for e, may in enumerate(ends):  # (a run found implies the rule-out let it through)
            if _segment._periodic_suffix(seq[:len(seq) - e]) is not None:
                assert may
    assert ruled_out > 100


def test_may_repeat_on_small_cases():
    assert _segment._may_repeat([1, 1, 1], 2)
    assert not _segment._may_repeat([1, 1], 1)
    assert not _segment._may_repeat([1], 0)
    assert _segment._may_repeat([5, 1, 2, 1, 2, 1, 2], 6)      # period 2, three times
    assert not _segment._may_repeat([5, 1, 2, 1, 9, 2, 2], 6)  # seq[q - 2p] differs
    assert _segment._may_repeat([3, 1, 2, 3, 1, 2, 3, 1, 2], 8)
    assert not _segment._may_repeat([3, 1, 2, 3, 1, 2, 3, 1, 2], 7)


def test_a_graph_with_no_loop_is_not_searched(engine, rng, monkeypatch):
    """~60 nodes of unrelated steps (no period): the read's loop search rules every end out
    before the suffix search; the value is numpy's."""
    calls, real, ends, real_ends = [0], _segment._periodic_suffix, [0], _segment._may_repeat

    def counting(seq):
        calls[0] += 1
        return real(seq)

    def asked(seq, q):
        ends[0] += 1
        return real_ends(seq, q)

    monkeypatch.setattr(_segment, "_periodic_suffix", counting)
    monkeypatch.setattr(_segment, "_may_repeat", asked)
    monkeypatch.setattr(xp.config, "interpret_first", 0)
    x = rng.standard_normal(64)
    fs = [(xp.sin, np.sin), (xp.cos, np.cos), (xp.tanh, np.tanh), (xp.exp, np.exp), (xp.atan, np.arctan),
          (lambda v: v * v, lambda v: v * v), (xp.abs, np.abs), (lambda v: v - 0.5, lambda v: v - 0.5)]
    order = [1, 1, 2, 6, 5, 3, 6, 0, 0, 4, 3, 0, 5, 1, 1, 4, 5, 3, 7, 1, 7, 4, 1, 3, 0, 2, 3, 6, 1, 1,
             0, 6, 7, 0, 4, 7, 3, 2, 5, 7, 5, 7, 4, 5, 6, 6, 0, 6, 7, 1, 5, 2, 0, 4, 3, 2, 1, 4, 2, 7]
    assert not any(real_ends(order, len(order) - 1 - e) for e in range(_segment.MAX_SKIP + 1))
    a, b = xp.asarray(x), x
    for k in order:
        a, b = fs[k][0](a), fs[k][1](b)
    np.testing.assert_allclose(np.asarray(a), b, rtol=1e-12, atol=1e-300)
    assert ends[0] == _segment.MAX_SKIP + 1 and calls[0] == 0  # (the read searched its graph: every end ruled out)
