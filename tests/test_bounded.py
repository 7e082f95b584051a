"""lazyarray._bounded: the two ways the engine's caches stay small."""
from lazyarray import _bounded


def test_keep_drops_the_oldest_entry_when_full():
    table = {}
    for k in range(5):
        assert _bounded.keep(table, k, str(k), 3, oldest=True) == str(k)
    assert list(table.items()) == [(2, "2"), (3, "3"), (4, "4")]


def test_keep_empties_a_full_table_by_default():
    table = {}
    for k in range(4):
        _bounded.keep(table, k, k * k, 3)
    assert table == {3: 9}


def test_memo_computes_once_per_key_and_stores_nothing_when_make_raises():
    calls = []

    def make(a, b):
        calls.append((a, b))
        if b == 0:
            raise ZeroDivisionError("b")
        return a / b

    table = {}
    assert _bounded.memo(table, (1, 2), make) == 0.5
    assert _bounded.memo(table, (1, 2), make) == 0.5
    assert calls == [(1, 2)]
    for _ in range(2):
        try:
            _bounded.memo(table, (1, 0), make)
        except ZeroDivisionError:
            pass
        else:
            raise AssertionError("a raising make must raise at every call")
    assert (1, 0) not in table and calls.count((1, 0)) == 2
    for k in range(5):
        _bounded.memo(table, (k, 1), make, bound=3)
    assert len(table) <= 3
