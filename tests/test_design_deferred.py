"""The deferred-binding protocol (`_array_object.Deferred`): its three forms (a borrowed host
array, an element read of a pending vector, an array an element run writes into) answer shape,
dtype, ndim and size without binding; their first use (`_node`, `_pending_node`, a write) binds
once and leaves a plain Array of the value numpy gives; `Running`'s `_pending_node` is its base,
the run left open. Values against numpy, in both tiers."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _borrowed_host, _deferred_elements
from lazyarray._array_object import Array, Deferred, _NODE_SLOT

pytestmark = pytest.mark.usefixtures("both_tiers")


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(_borrowed_host, "BORROW_MIN_BYTES", 1024)


def _borrowed():
    a = np.arange(256.0).reshape(16, 16)
    x = xp.asarray(a)
    assert type(x) is _borrowed_host.Borrowed
    return x, a.copy()


def _element():
    v = xp.asarray(np.arange(5.0)) * 2.0
    e = v[3]
    assert type(e) is _deferred_elements.Element
    return e, np.asarray(6.0)


def _running():
    a = xp.asarray(np.zeros((4, 4))) + 1.0
    v = xp.asarray(np.arange(4.0)) + 10.0
    for i in range(3):
        a[i, i] = v[i]
    assert type(a) is _deferred_elements.Running
    expected = np.ones((4, 4))
    expected[[0, 1, 2], [0, 1, 2]] = [10.0, 11.0, 12.0]
    return a, expected


FORMS = [_borrowed, _element, _running]


def test_every_form_is_wired_to_its_hook():
    for cls in (_borrowed_host.Borrowed, _deferred_elements.Element, _deferred_elements.Running):
        assert issubclass(cls, Deferred)
        assert cls.__dict__["_node"].fget is cls.__dict__["_bind"]
    assert _borrowed_host.Borrowed._pending_node is _borrowed_host.Borrowed._bind
    assert _deferred_elements.Element._pending_node is _deferred_elements.Element._bind


@pytest.mark.parametrize("make", FORMS)
def test_metadata_binds_nothing(make, small_threshold):
    x, expected = make()
    cls = type(x)
    assert (x.shape, x.ndim, x.size) == (expected.shape, expected.ndim, expected.size)
    assert x.dtype == xp.float64
    assert len(x) == expected.shape[0] if expected.ndim else True
    assert type(x) is cls
    np.testing.assert_array_equal(np.asarray(x + 0.0), expected)  # (the first use)
    assert type(x) is Array
    np.testing.assert_array_equal(np.asarray(x), expected)


@pytest.mark.parametrize("make", [_borrowed, _element])
def test_pending_node_binds(make, small_threshold):
    x, expected = make()
    node = x._pending_node()
    assert type(x) is Array and _NODE_SLOT.__get__(x) is node
    assert x._pending_node() is node and x._node is node  # (once)
    np.testing.assert_array_equal(np.asarray(x), expected)


def test_running_pending_node_is_its_base_and_the_run_stays_open():
    a, expected = _running()
    base = a._pending_node()
    assert type(a) is _deferred_elements.Running
    np.testing.assert_array_equal(np.asarray(xp.sum(xp.asarray(np.ones(3)))), 3.0)  # (a sync meanwhile)
    assert type(a) is _deferred_elements.Running and a._pending_node() is base
    v = xp.asarray(np.arange(4.0)) + 20.0
    a[3, 3] = v[3]  # (another vector: a new run on the first one's scatter)
    expected[3, 3] = 23.0
    np.testing.assert_array_equal(np.asarray(a), expected)


@pytest.mark.parametrize("make", FORMS)
def test_write_is_a_use(make, small_threshold):
    x, expected = make()
    if expected.ndim:
        x[0, 1] = -5.0
        expected[0, 1] = -5.0
    else:
        x += 1.0
        expected = expected + 1.0
    assert type(x) is Array
    np.testing.assert_array_equal(np.asarray(x), expected)


@pytest.mark.parametrize("make", FORMS)
def test_node_assignment_binds_then_replaces(make, small_threshold):
    x, expected = make()
    new = (xp.asarray(expected) * 3.0)._node
    x._node = new
    assert type(x) is Array and x._node is new
    np.testing.assert_array_equal(np.asarray(x), expected * 3.0)
