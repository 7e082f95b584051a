"""The engine's bounded caches: a dict the caller owns, kept small in one of two ways.

`memo` computes a pure function's value once per key; `keep` stores a value made elsewhere. When
the table is full, `keep` either drops the oldest entry (`oldest=True`: dicts keep insertion
order; for caches whose entries hold resources or cost much to remake: compiled programs' recipes,
code objects) or empties the table (cheaper, and all that is lost is sharing: plan caches, kept
values). Caches that do more on eviction (free an executable, count bytes) keep their own code.
"""
from __future__ import annotations


def memo(table, key, make, bound=4096):
    """`make(*key)`, computed once per distinct key and kept in `table` (a dict the caller owns),
    emptied when it reaches `bound` entries. For pure functions of small hashable values that run
    at every node traced (shape rules, attribute objects: a named tuple costs ~0.8 us to build, a
    look-up ~0.3 us). A `make` that raises stores nothing, so a bad key raises at every call."""
    value = table.get(key)
    if value is None:
        if len(table) >= bound:
            table.clear()
        value = table[key] = make(*key)
    return value


def keep(table, key, value, bound, oldest=False):
    """Store `value` under `key` (a key the table does not hold yet) and return it; a table that
    holds `bound` entries first drops its oldest (`oldest`) or is emptied."""
    if len(table) >= bound:
        if oldest:
            del table[next(iter(table))]
        else:
            table.clear()
    table[key] = value
    return value
