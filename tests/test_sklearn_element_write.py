"""Session 12, issue 11 target 1 (scikit-learn's second call): `x[i, j] = v` of one element (an
integer for every axis, a 0-D value) binds its dynamic_update_slice at once (`_indexing.
_write_element`), through a chain of basic views composed to their base (the composition kept by
the view's step and the key's pattern). The nodes are those of the general path (`slice_write`),
node for node, and the values numpy's, in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _deferred_elements, _indexing, _views
from lazyarray._array_object import _View
from lazyarray._basic_indexing import BasicIndex, compose, slice_write

pytestmark = pytest.mark.usefixtures("both_tiers")


def _general(x, vnode, axes, pattern):
    """The general path's element write (setitem before `_write_element`; an element read not
    bound yet, `_deferred_elements.Element`, binds the nodes `_element` bound before)."""
    if type(vnode) is tuple:
        vnode = _deferred_elements.element_nodes(*vnode)
    with _views.write_lock:
        while type(x) is _View and type(x._step) is BasicIndex:
            axes = compose(x._step, axes)
            x = x._base
        x._rebind(slice_write(x._node, axes, (), vnode))


def _scenario(make, writes):
    """(graph text, numpy value) of the array `make()` gives after `writes(arr)`; also the value
    numpy gives for the same writes on its own array."""
    base, target = make(xp)
    writes(xp, target)
    text = xp.graph_text(base)
    nb, nt = make(np)
    writes(np, nt)
    return text, np.asarray(base), nb


def _make_3d(m):
    c = m.asarray(np.arange(3 * 4 * 4, dtype=np.float64).reshape(3, 4, 4) * 1.0)
    return c, c


def _diag_through_view(m, c):
    for k in range(3):
        a = c[k, :, :]
        v = m.linalg.diagonal(a) + 0.5 if m is xp else np.diagonal(a) + 0.5
        for i in range(4):
            a[i, i] = v[i]


def _plain_writes(m, c):
    c[0, 1, 2] = 7.0
    c[-1, -1, -1] = c[0, 0, 0] * 2.0
    c[np.int64(1), 2, np.int32(3)] = -1.5


def _view_of_view(m, c):
    a = c[1:, :, :]
    b = a[1, 1:, :]
    b[0, 0] = 42.0
    b[-1, 2] = b[0, 1] + 1.0


def _strided_and_reversed(m, c):
    a = c[:, ::2, ::-1]
    a[1, 1, 0] = 9.0
    a[2, 0, 3] = 8.0
    r = c[::-1]
    r[0, 0, 0] = 3.0


def _none_axis(m, c):
    a = c[None, 2]
    a[0, 1, 1] = 5.0


@pytest.mark.parametrize("writes", [_diag_through_view, _plain_writes, _view_of_view,
                                    _strided_and_reversed, _none_axis])
def test_same_nodes_and_values(writes, monkeypatch):
    _, run, expected = _scenario(_make_3d, writes)  # (runs of one vector's elements: one scatter)
    np.testing.assert_array_equal(run, expected)
    with monkeypatch.context() as m:  # (the element writes themselves: tests/test_diag_element_runs.py has the runs)
        m.setattr(_indexing, "element_run", lambda x, vnode, axes: None)
        fast_text, fast, expected = _scenario(_make_3d, writes)
    with monkeypatch.context() as m:
        m.setattr(_indexing, "_write_element", _general)
        general_text, general, _ = _scenario(_make_3d, writes)
    assert fast_text == general_text
    np.testing.assert_array_equal(fast, expected)
    np.testing.assert_array_equal(general, expected)


def test_repeated_views_share_the_composition():
    c = xp.asarray(np.zeros((2, 3, 3)))
    for rep in range(3):
        for k in range(2):
            a = c[k, :, :]
            a[1, 2] = float(rep * 10 + k)
    expected = np.zeros((2, 3, 3))
    expected[0, 1, 2], expected[1, 1, 2] = 20.0, 21.0
    np.testing.assert_array_equal(np.asarray(c), expected)


def test_zero_d_and_errors():
    z = xp.asarray(np.array(1.0))
    z[()] = 4.0  # (a 0-D array: the general path, the value itself)
    assert float(z) == 4.0
    x = xp.asarray(np.zeros((2, 2)))
    with pytest.raises(IndexError):
        x[2, 0] = 1.0
    with pytest.raises(ValueError):
        x[0, 0] = xp.asarray(np.ones(2))
    with pytest.raises(TypeError):
        x[0, 0] = 1j
    np.testing.assert_array_equal(np.asarray(x), np.zeros((2, 2)))  # (bad writes left no trace)


def test_integer_and_host_aliased():
    x = xp.asarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    x[1, 2] = 100
    x[0, 0] = x[1, 2] - 1
    np.testing.assert_array_equal(np.asarray(x), np.array([[99, 1, 2], [3, 4, 100]], np.int32))
    y = xp.asarray(np.zeros((2, 2)))
    alias = np.asarray(y)  # (y is aliased by numpy now)
    y[1, 1] = 2.5
    assert float(y[1, 1]) == 2.5
    np.testing.assert_array_equal(np.asarray(y), np.array([[0.0, 0.0], [0.0, 2.5]]))
    assert alias.shape == (2, 2)
