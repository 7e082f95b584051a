"""`Plan.key` finds a structure seen lately by its fingerprint (entry count, output positions, last
entry) and compares the rest of the signature in full: two structures that share the fingerprint
but differ anywhere else get distinct keys; equal structures get the interned key; values stay
numpy's in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _graph
from lazyarray._graph import Plan


@pytest.fixture(autouse=True)
def fresh_keys(monkeypatch):
    monkeypatch.setattr(_graph, "_recent", {})
    monkeypatch.setattr(_graph, "_interned", {})


def _key(outputs):
    plan = Plan(outputs)
    return plan, plan.key(outputs)


def _inner(x, op):
    """(op(x) + 1.0) * 3.0: the last entry and the entry count do not depend on `op`."""
    return (op(x) + 1.0) * 3.0


OPS = [lambda x: x * 2.0, lambda x: x - 2.0, lambda x: x / 2.0, xp.abs, xp.negative, xp.exp]


def test_same_fingerprint_other_structure_gets_its_own_key():
    x = xp.asarray(np.linspace(-1.0, 1.0, 6))
    keys = []
    for op in OPS:
        y = _inner(x, op)
        plan, key = _key([y._node])
        assert tuple(key) == tuple(plan.sig) + ((len(plan.sig) - 1,),)
        keys.append(key)
    near = {(len(k), k[-1], k[-2]) for k in keys[:3]}
    assert len(near) == 1  # (*, -, / by a scalar: the same fingerprint, found in `_recent`)
    for i in range(len(keys)):
        for j in range(len(keys)):
            assert (keys[i] == keys[j]) == (i == j)


def test_equal_structure_is_the_interned_key_and_compares_every_entry():
    x = xp.asarray(np.arange(5.0))
    first = _key([_inner(x, OPS[0])._node])[1]
    again = _key([_inner(xp.asarray(np.ones(5)), OPS[0])._node])[1]
    assert again is first
    other = _key([_inner(x, OPS[1])._node])[1]
    assert other is not first and other != first
    assert _key([_inner(x, OPS[0])._node])[1] is first


def test_middle_shape_differs_last_entry_equal():
    a = xp.asarray(np.arange(6.0).reshape(2, 3))
    b = xp.asarray(np.arange(6.0))
    ka = _key([(xp.reshape(a * 2.0, (6,)) + 1.0)._node])[1]
    kb = _key([(xp.reshape(b * 2.0, (6,)) + 1.0)._node])[1]
    assert ka != kb and ka is not kb
    again = _key([(xp.reshape(xp.asarray(np.ones((2, 3))) * 2.0, (6,)) + 1.0)._node])[1]
    assert again is ka


def test_output_positions_are_part_of_the_key():
    x = xp.asarray(np.arange(4.0))
    y = x * 2.0
    z = y + 1.0
    plan = Plan([z._node])
    k1 = plan.key([z._node])
    k2 = plan.key([y._node, z._node])
    assert k1 != k2 and k1[:-1] == k2[:-1]
    assert plan.key([z._node]) is k1


@pytest.mark.parametrize("tier", ["interpret", "compile"])
def test_values_of_alternating_near_structures(tier, monkeypatch):
    monkeypatch.setattr(xp.config, "interpret_first", 1 if tier == "interpret" else 0)
    rng = np.random.default_rng(1)
    for _ in range(3):
        xn = rng.standard_normal(7)
        x = xp.asarray(xn)
        for op, nop in zip(OPS, [lambda v: v * 2.0, lambda v: v - 2.0, lambda v: v / 2.0, np.abs, np.negative, np.exp]):
            got = np.asarray(_inner(x, op))
            want = (nop(xn) + 1.0) * 3.0
            np.testing.assert_allclose(got, want, rtol=4e-16 if tier == "interpret" else 1e-15)


def test_structures_sharing_a_fingerprint_are_all_kept(monkeypatch):
    """Up to RECENT_PER_FINGERPRINT structures of one fingerprint are found without the miss path
    (the whole key hashed), alternating; past that the oldest is dropped and found by interning."""
    x = xp.asarray(np.linspace(-1.0, 1.0, 6))
    ops = OPS[:3]
    first = [_key([_inner(x, op)._node])[1] for op in ops]
    hashed = []
    real = _graph._tuple_hash
    monkeypatch.setattr(_graph, "_tuple_hash", lambda k: hashed.append(k) or real(k))
    for _ in range(3):
        for op, want in zip(ops, first):
            assert _key([_inner(x, op)._node])[1] is want
    assert not hashed
    monkeypatch.setattr(_graph, "RECENT_PER_FINGERPRINT", 2)
    monkeypatch.setattr(_graph, "_recent", {})
    for op in ops:
        _key([_inner(x, op)._node])
    hashed.clear()
    assert _key([_inner(x, ops[0])._node])[1] is first[0]  # (dropped from _recent: interned still)
    assert len(hashed) == 1
    assert _key([_inner(x, ops[2])._node])[1] is first[2]
    assert len(hashed) == 1


def test_recent_table_drops_its_oldest_fingerprint(monkeypatch):
    monkeypatch.setattr(_graph, "RECENT_KEYS", 3)
    x = xp.asarray(np.arange(4.0))
    keys = []
    for k in range(5):
        y = x
        for _ in range(k + 1):
            y = y + 1.0
        keys.append(_key([y._node])[1])
    assert len(_graph._recent) == 3
    assert len(set(map(id, keys))) == 5
    lens = sorted(near[0] for near in _graph._recent)
    assert lens == [len(keys[2]) - 1, len(keys[3]) - 1, len(keys[4]) - 1]
