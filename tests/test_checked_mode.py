"""Checked mode (`LAZYARRAY_CHECKS=1`, `xp.config.checks`): out-of-bounds index arrays and failed
factorisations raise numpy's errors at the read, naming the line of the call; with checks off
the documented default values (clamped reads, dropped writes, NaN from LAPACK) stand.

Expected values come from numpy (numpy's own result, or numpy computing the documented clamp or
drop rule); errors are compared with the exception class numpy raises."""
import os
import subprocess
import sys

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _checks, _config
from lazyarray import linalg as LA


def here():
    """The caller's line number (to compare with the file:line in an error)."""
    return sys._getframe(1).f_lineno


@pytest.fixture(params=["interpreted", "compiled"])
def checked(request, monkeypatch):
    """Checks on, in one tier: the numpy interpreter (a new graph runs there first) or XLA
    (every graph compiled at first sight). Yields the metrics to tell which tier ran."""
    monkeypatch.setattr(_config, "checks", True)
    monkeypatch.setattr(_config, "interpret_first", 2 if request.param == "interpreted" else 0)
    _checks.clear()
    xp.metrics.reset()
    yield request.param
    _checks.clear()


@pytest.fixture
def unchecked(monkeypatch):
    monkeypatch.setattr(_config, "checks", False)
    _checks.clear()


def raises_at(error, line, fn):
    """fn() raises `error` whose message names this file at `line`."""
    with pytest.raises(error) as info:
        fn()
    assert f"{__file__}:{line}:" in str(info.value), str(info.value)
    return info.value


def numpy_raises(error, fn):
    with pytest.raises(error):
        fn()


def tier_ran(tier):
    if tier == "interpreted":
        assert xp.metrics.interpreted > 0
    else:
        assert xp.metrics.compiles + xp.metrics.cache_hits > 0 and xp.metrics.interpreted == 0


# ---------------------------------------------------------------- reads

@pytest.mark.parametrize("bad", [[0, 5], [0, 3], [0, -4], [-9]])
def test_read_out_of_bounds_raises_at_read(checked, bad):
    an = np.array([1.0, 2.0, 3.0])
    numpy_raises(IndexError, lambda: an[np.array(bad)])
    a = xp.asarray(an)
    y = a[xp.asarray(bad)]; line = here()  # noqa: E702  (nothing runs yet)
    err = raises_at(IndexError, line, lambda: np.asarray(y))
    assert "[-3, 3)" in str(err) and "axis 0" in str(err)
    raises_at(IndexError, line, lambda: np.asarray(y))  # nothing was realized: it raises again
    tier_ran(checked)


def test_read_in_bounds_and_negative_indices(checked):
    an = np.arange(12.0).reshape(3, 4)
    a = xp.asarray(an)
    for rows, cols in [([0, -1, -3], [3, -4, 0]), ([2, 1], [-1, -2])]:
        got = np.asarray(a[xp.asarray(rows), xp.asarray(cols)])
        np.testing.assert_array_equal(got, an[np.array(rows), np.array(cols)])
    np.testing.assert_array_equal(np.asarray(a[:, xp.asarray([-4, 3])]), an[:, [-4, 3]])
    assert not _checks.pending  # checks that passed are forgotten
    tier_ran(checked)


def test_read_second_axis_named(checked):
    an = np.arange(12.0).reshape(3, 4)
    a = xp.asarray(an)
    numpy_raises(IndexError, lambda: an[:, np.array([4])])
    y = a[:, xp.asarray([4])]; line = here()  # noqa: E702
    err = raises_at(IndexError, line, lambda: y[0, 0].__float__())  # a read of anything computed from it
    assert "axis 1" in str(err) and "[-4, 4)" in str(err)


def test_unsigned_index_too_large(checked):
    a = xp.asarray([1.0, 2.0, 3.0])
    y = a[xp.asarray([1, 200], dtype=xp.uint8)]; line = here()  # noqa: E702
    raises_at(IndexError, line, lambda: np.asarray(y))
    np.testing.assert_array_equal(np.asarray(a[xp.asarray([2, 0], dtype=xp.uint8)]), [3.0, 1.0])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"])
def test_random_indices_agree_with_numpy(checked, dtype):
    """Random index arrays around the bounds: checked mode raises exactly when numpy does, and
    reads the same values otherwise (reads, writes and take)."""
    rng = np.random.default_rng(sum(map(ord, dtype)))
    n = 5
    an = rng.standard_normal((n, 3))
    a = xp.asarray(an)
    info = np.iinfo(dtype)
    outcomes = set()
    for _ in range(8):
        idx = rng.integers(max(-2 * n, info.min), 2 * n, size=rng.integers(1, 5)).astype(dtype)
        try:
            want = an[idx]
        except IndexError:
            want = None
        outcomes.add(want is None)
        got = a[xp.asarray(idx)]
        b = xp.zeros((n, 3))
        b[xp.asarray(idx)] = 1.0
        t = xp.take(a, xp.asarray(idx), axis=0)
        if want is None:
            for y in (got, b, t):
                with pytest.raises(IndexError):
                    np.asarray(y)
        else:
            bn = np.zeros((n, 3))
            bn[idx] = 1.0
            np.testing.assert_array_equal(np.asarray(got), want)
            np.testing.assert_array_equal(np.asarray(b), bn)
            np.testing.assert_array_equal(np.asarray(t), np.take(an, idx, axis=0))
    assert outcomes == {True, False}  # both cases were exercised


# ---------------------------------------------------------------- writes

def test_write_out_of_bounds_raises_at_read(checked):
    bn = np.zeros(3)
    numpy_raises(IndexError, lambda: bn.__setitem__(np.array([0, 9]), 1.0))
    b = xp.zeros(3)
    b[xp.asarray([0, 9])] = 1.0; line = here()  # noqa: E702
    raises_at(IndexError, line, lambda: np.asarray(b))
    raises_at(IndexError, line, lambda: float(xp.sum(b)))  # b stays unreadable


def test_write_in_bounds_with_negatives(checked):
    bn = np.zeros((3, 2))
    b = xp.asarray(bn)
    b[xp.asarray([-1, 0]), xp.asarray([1, -2])] = 7.0
    bn[np.array([-1, 0]), np.array([1, -2])] = 7.0
    np.testing.assert_array_equal(np.asarray(b), bn)


def test_boolean_masks_are_unaffected(checked):
    an = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    a = xp.asarray(an)
    np.testing.assert_array_equal(np.asarray(a[a > 0]), an[an > 0])
    a[a < 0] = 0.0
    an[an < 0] = 0.0
    np.testing.assert_array_equal(np.asarray(a), an)
    mask = np.array([True, False, True])
    a[:, xp.asarray(mask)] = xp.asarray([9.0, 8.0])
    an[:, mask] = np.array([9.0, 8.0])
    np.testing.assert_array_equal(np.asarray(a), an)
    assert not _checks.pending


# ---------------------------------------------------------------- take, take_along_axis

def test_take(checked):
    an = np.arange(6.0).reshape(2, 3)
    a = xp.asarray(an)
    numpy_raises(IndexError, lambda: np.take(an, np.array([7]), axis=1))
    y = xp.take(a, xp.asarray([7]), axis=1); line = here()  # noqa: E702
    err = raises_at(IndexError, line, lambda: np.asarray(y))
    assert "take" in str(err)
    np.testing.assert_array_equal(np.asarray(xp.take(a, xp.asarray([-3, 2, -1]), axis=1)),
                                  np.take(an, [-3, 2, -1], axis=1))


def test_take_along_axis(checked):
    an = np.arange(6.0).reshape(2, 3)
    a = xp.asarray(an)
    bad = np.array([[0], [-4]])
    numpy_raises(IndexError, lambda: np.take_along_axis(an, bad, axis=1))
    y = xp.take_along_axis(a, xp.asarray(bad), axis=1); line = here()  # noqa: E702
    raises_at(IndexError, line, lambda: np.asarray(y))
    good = np.array([[2, -3], [-1, 0]])
    np.testing.assert_array_equal(np.asarray(xp.take_along_axis(a, xp.asarray(good), axis=1)),
                                  np.take_along_axis(an, good, axis=1))


# ---------------------------------------------------------------- linalg

SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
INDEFINITE = np.array([[1.0, 2.0], [2.0, 1.0]])


def test_linalg_inv_singular(checked):
    numpy_raises(np.linalg.LinAlgError, lambda: np.linalg.inv(SINGULAR))
    y = LA.inv(xp.asarray(SINGULAR)); line = here()  # noqa: E702
    err = raises_at(np.linalg.LinAlgError, line, lambda: np.asarray(y))
    assert isinstance(err, LA.LinAlgError) and "Singular matrix" in str(err)


def test_linalg_solve_singular(checked):
    b = np.array([1.0, 1.0])
    numpy_raises(np.linalg.LinAlgError, lambda: np.linalg.solve(SINGULAR, b))
    y = LA.solve(xp.asarray(SINGULAR), xp.asarray(b)); line = here()  # noqa: E702
    raises_at(np.linalg.LinAlgError, line, lambda: np.asarray(y))


def test_linalg_cholesky_not_positive_definite(checked):
    numpy_raises(np.linalg.LinAlgError, lambda: np.linalg.cholesky(INDEFINITE))
    y = LA.cholesky(xp.asarray(INDEFINITE), upper=True); line = here()  # noqa: E702
    err = raises_at(np.linalg.LinAlgError, line, lambda: np.asarray(y))
    assert "positive definite" in str(err)


def test_linalg_one_singular_matrix_in_a_stack(checked):
    stack = np.stack([np.eye(2), SINGULAR, 2 * np.eye(2)])
    numpy_raises(np.linalg.LinAlgError, lambda: np.linalg.inv(stack))
    y = LA.inv(xp.asarray(stack)); line = here()  # noqa: E702
    raises_at(np.linalg.LinAlgError, line, lambda: np.asarray(y))
    y = LA.matrix_power(xp.asarray(SINGULAR), -2); line = here()  # noqa: E702
    raises_at(np.linalg.LinAlgError, line, lambda: np.asarray(y))


EDGE_MATRICES = [
    [[4.0, 0.0], [np.nan, 4.0]], [[np.nan, 0.0], [0.0, 4.0]], [[4.0, 0.0], [0.0, np.nan]],
    [[4.0, 0.0], [0.0, -1.0]], [[np.inf, 0.0], [0.0, 4.0]], [[4.0, 0.0], [np.inf, 4.0]],
    [[0.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]], [[-1.0, 0.0], [np.nan, 4.0]],
    [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], [[1e-300, 0.0], [0.0, 1.0]],
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linalg_raises_exactly_when_numpy_does(checked, dtype):
    """Edge inputs (NaN, inf, zero and negative pivots): checked mode raises LinAlgError for
    exactly the inputs numpy raises for."""
    for m in EDGE_MATRICES:
        a = np.array(m, dtype=dtype)
        b = np.ones(a.shape[0], dtype)
        for name, np_fn, fn in [("cholesky", np.linalg.cholesky, LA.cholesky),
                                ("inv", np.linalg.inv, LA.inv),
                                ("solve", lambda v: np.linalg.solve(v, b), lambda v: LA.solve(v, xp.asarray(b)))]:
            try:
                want = np_fn(a)
            except np.linalg.LinAlgError:
                want = None
            got = fn(xp.asarray(a))
            if want is None:
                with pytest.raises(np.linalg.LinAlgError):
                    np.asarray(got)
            else:  # no error (values with inf/NaN inputs may differ from numpy's: not checked here)
                assert np.asarray(got).shape == want.shape, (name, m)


def test_linalg_regular_input_passes(checked):
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3, 4, 4))
    spd = m @ np.swapaxes(m, -1, -2) + 4 * np.eye(4)
    np.testing.assert_allclose(np.asarray(LA.inv(xp.asarray(m))), np.linalg.inv(m), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(LA.cholesky(xp.asarray(spd))), np.linalg.cholesky(spd), rtol=1e-12)
    b = rng.standard_normal((3, 4, 2))
    np.testing.assert_allclose(np.asarray(LA.solve(xp.asarray(m), xp.asarray(b))), np.linalg.solve(m, b),
                               rtol=1e-10, atol=1e-12)
    # det of a singular matrix is 0 in numpy, no error: unchecked
    assert float(LA.det(xp.asarray(SINGULAR))) == 0.0
    assert not _checks.pending


# ---------------------------------------------------------------- lifetime of checks

def test_freed_and_never_read_is_dropped(checked):
    a = xp.asarray([1.0, 2.0, 3.0])
    y = a[xp.asarray([5])]
    b = xp.zeros(2)
    b[xp.asarray([3])] = 1.0
    assert len(_checks.pending) == 2
    del y, b
    assert float(xp.sum(a)) == 6.0  # an unrelated read: no error, and the dead checks go
    assert not _checks.pending


def test_unrelated_reads_are_unaffected(checked):
    a = xp.asarray([1.0, 2.0, 3.0])
    y = a[xp.asarray([5])]; line = here()  # noqa: E702
    z = a * 2.0  # shares no computed node with y
    np.testing.assert_array_equal(np.asarray(z), [2.0, 4.0, 6.0])
    raises_at(IndexError, line, lambda: np.asarray(y))


def test_checks_recorded_only_when_on(unchecked):
    a = xp.asarray([1.0, 2.0, 3.0])
    y = a[xp.asarray([0, 5])]
    y2 = xp.take(a, xp.asarray([7]))
    z = LA.inv(xp.asarray(SINGULAR))
    assert not _checks.pending
    del y, y2, z


# ---------------------------------------------------------------- compile counts

def test_compile_count_stable_with_checks(monkeypatch, fresh):
    """A loop that indexes with varying index values and reads each step compiles one program
    (the check output is keyed structurally like any node)."""
    monkeypatch.setattr(_config, "checks", True)
    _checks.clear()
    an = np.arange(10.0)
    a = xp.asarray(an)
    rng = np.random.default_rng(3)
    for _ in range(6):
        idx = rng.integers(-10, 10, size=4)
        b = xp.zeros(10)
        b[xp.asarray(idx)] = 1.0
        total = float(xp.sum(a[xp.asarray(idx)]) + xp.sum(b))
        expect = np.zeros(10)
        expect[idx] = 1.0
        assert total == an[idx].sum() + expect.sum()
    xp.evaluate()
    assert fresh.compiles == 1, fresh.compiles
    assert not _checks.pending


# ---------------------------------------------------------------- checks off: the defaults

@pytest.mark.parametrize("tier", [2, 0])
def test_default_values_when_off(unchecked, monkeypatch, tier):
    """The documented default (README, checked mode): reads clamp each index into range after
    adding n to negative ones, writes out of range are dropped, LAPACK failures give NaN."""
    monkeypatch.setattr(_config, "interpret_first", tier)
    an = np.array([1.0, 2.0, 3.0])
    a = xp.asarray(an)

    def clamp(idx):
        idx = np.asarray(idx)
        return np.clip(np.where(idx < 0, idx + 3, idx), 0, 2)

    for idx in ([0, 5], [0, -5], [-1, 7]):
        np.testing.assert_array_equal(np.asarray(a[xp.asarray(idx)]), an[clamp(idx)])
    np.testing.assert_array_equal(np.asarray(xp.take(a, xp.asarray([7, -7]))), an[clamp([7, -7])])
    np.testing.assert_array_equal(np.asarray(xp.take_along_axis(a, xp.asarray([4, -9]), axis=0)),
                                  an[clamp([4, -9])])
    b = xp.zeros(3)
    idx = np.array([0, 9, -4, -1])
    b[xp.asarray(idx)] = 1.0  # 9 and -4 (-1 after adding n) are dropped
    wrapped = np.where(idx < 0, idx + 3, idx)
    expect = np.zeros(3)
    expect[wrapped[(wrapped >= 0) & (wrapped < 3)]] = 1.0
    np.testing.assert_array_equal(np.asarray(b), expect)
    assert not np.isfinite(np.asarray(LA.inv(xp.asarray(SINGULAR)))).any()  # inf/NaN (trsm's division by 0)
    assert not np.isfinite(np.asarray(LA.solve(xp.asarray(SINGULAR), xp.asarray([1.0, 1.0])))).any()
    chol = np.asarray(LA.cholesky(xp.asarray(INDEFINITE)))
    assert np.isnan(chol[np.tril_indices(2)]).all() and (chol[np.triu_indices(2, 1)] == 0).all()


def test_environment_switch():
    code = ("import lazyarray as xp, numpy as np\n"
            "a = xp.asarray([1.0, 2.0])\n"
            "try:\n    np.asarray(a[xp.asarray([2])])\nexcept IndexError as e:\n    print('raised', e)\n")
    for value, expect in (("1", "raised <string>:4:"), ("0", "")):
        env = dict(os.environ, LAZYARRAY_CHECKS=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             check=True).stdout
        assert out.startswith(expect) if expect else out == ""
