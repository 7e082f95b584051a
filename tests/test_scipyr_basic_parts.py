"""`_basic_indexing.expand`, `all_integers` and `read_recipe`, written as one pass each, answer
what their earlier forms (kept here as references) answer for every key of a grid: items,
errors (type and message), copies, recipes."""
import itertools

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _basic_indexing as B
from lazyarray import _dtypes as dt
from lazyarray import _ops as ops
from lazyarray._array_object import Array


def _expand_ref(key, ndim):
    if not isinstance(key, tuple):
        key = (key,)
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can have at most one ellipsis (...)")
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis
                 and not (isinstance(k, Array) and k.dtype is dt.bool))
    n_axes += sum(k.ndim for k in key if isinstance(k, Array) and k.dtype is dt.bool)
    if n_axes > ndim:
        raise IndexError(f"too many indices: {n_axes} for an array of {ndim} dimensions")
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (ndim - n_axes))
        else:
            out.append(k)
    if n_ell == 0:
        out.extend([slice(None)] * (ndim - n_axes))
    return out


def _all_integers_ref(key, items):
    if key is Ellipsis or (isinstance(key, tuple) and any(k is Ellipsis for k in key)):
        return False
    return all(not isinstance(k, slice) and k is not None for k in items)


def _read_recipe_ref(shape, axes, out_shape):
    if 0 in out_shape:
        return None
    spans = tuple([a.span for a in axes])
    if spans == shape or any(a.step != 1 for a in axes):
        return None
    reshape_attrs = None if spans == out_shape else ops.reshape_attrs(out_shape)
    return ops.dynamic_slice_attrs(spans), spans, tuple([a.start for a in axes]), reshape_attrs


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 (compared)
        return "raised", (type(e), str(e))


ITEMS = [0, -1, 2, slice(None), slice(1, None), slice(None, None, 2), slice(3, 0, -1), slice(0, 0),
         None, Ellipsis]


def _keys():
    m1 = xp.asarray(np.array([True, False, True]))
    m2 = xp.asarray(np.ones((3, 4), bool))
    i1 = xp.asarray(np.array([0, 2]))
    extra = [m1, m2, i1, xp.asarray(np.asarray(True))]
    for n in range(4):
        for key in itertools.product(ITEMS + extra[:1], repeat=n):
            yield key
    yield from (Ellipsis, 1, slice(None), None, m2, (m2, 0), (Ellipsis, m1), (i1, Ellipsis, None),
                (extra[3], 0), [0, 1])


@pytest.mark.parametrize("ndim", [0, 1, 2, 3])
def test_expand_and_all_integers_as_before(ndim):
    for key in _keys():
        got, want = _outcome(lambda: B.expand(key, ndim)), _outcome(lambda: _expand_ref(key, ndim))
        assert got[0] == want[0], key
        if got[0] == "raised":
            assert got[1] == want[1]
            continue
        assert len(got[1]) == len(want[1]) and all(a is b or a == b for a, b in zip(got[1], want[1]))
        assert B.all_integers(key, got[1]) == _all_integers_ref(key, want[1]), key


@pytest.mark.parametrize("shape", [(5,), (4, 6), (3, 1, 4), (0, 3), (1,)], ids=str)
def test_read_recipe_as_before(shape):
    for key in _keys():
        try:
            items = B.expand(key, len(shape))
            if not B.is_basic(items):
                continue
            axes, out_shape, _ = B.plan(shape, items)
        except IndexError:
            continue
        assert B.read_recipe(shape, axes, out_shape) == _read_recipe_ref(shape, axes, out_shape), key
