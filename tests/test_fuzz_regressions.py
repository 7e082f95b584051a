"""Mismatches the differential fuzzer (tests/fuzz, `bash bin/fuzz.sh N`) found, each reduced to
a few lines and compared with numpy computing the same thing.

Tests of a bug someone is fixing are xfail(strict=True) with the issue item: when the fix lands
the test passes, strict turns that into a failure, and the marker is removed.
"""
import numpy as np
import pytest

import lazyarray as xp


def in_progress(item):
    return pytest.mark.xfail(strict=True, reason=f"issue 9 item {item}, in progress")


# -- views (issue 9 item 1) ----------------------------------------------------------------------

def test_flip_of_0d_array_is_a_copy_as_in_numpy():
    """numpy's flip of a 0-d array indexes it with () and returns a scalar: a copy."""
    base_np = np.asarray(1.0)
    flipped_np = np.flip(base_np)
    base_np[...] = 2.0
    x = xp.asarray(1.0)
    f = xp.flip(x)
    x[...] = 2.0
    assert float(f) == float(flipped_np) == 1.0


def test_write_through_flip_of_0d_array_does_not_reach_the_base():
    """The other direction: numpy's flipped 0-d result is a copy, so writing it leaves x."""
    base_np = np.asarray(1, dtype=np.uint32)
    flipped_np = np.flip(base_np)
    flipped_np = np.asarray(flipped_np).copy()   # a numpy scalar: writes go to a copy
    flipped_np[...] = 7
    x = xp.asarray(1, dtype=xp.uint32)
    f = xp.flip(x)
    f[...] = xp.asarray(7, dtype=xp.uint32)
    assert int(x) == int(base_np) == 1


@pytest.mark.parametrize("view", ["reshape", "permute_dims"])
def test_failed_in_place_write_into_read_only_view_leaves_the_value(view):
    """`r ^= 3` on a view of broadcast_to's read-only result raises (as numpy) but the handle
    keeps the new value: the failed write leaves a trace (issue 9 items 1 and 10). On the
    broadcast_to result itself the failed write leaves no trace."""
    n0 = np.asarray([[1, 2], [3, 4]])
    x0 = xp.asarray(n0)
    make = {"reshape": lambda a, m: m.reshape(a, (4, 1)),
            "permute_dims": lambda a, m: m.permute_dims(a, (1, 0))}[view]
    nr = make(np.broadcast_to(n0, (2, 2)), np)
    with pytest.raises(ValueError, match="read-only"):
        nr ^= 3
    r = make(xp.broadcast_to(x0, (2, 2)), xp)
    with pytest.raises(ValueError, match="read-only"):
        r ^= 3
    np.testing.assert_array_equal(np.asarray(r), nr)


def test_empty_write_into_broadcast_to_raises_read_only():
    """numpy refuses any write into a broadcast_to result, also one that selects nothing."""
    nb = np.broadcast_to(np.ones((1,)), (2, 1))
    with pytest.raises(ValueError, match="read-only"):
        nb[0:0, :] = 5.0
    b = xp.broadcast_to(xp.ones((1,)), (2, 1))
    with pytest.raises(ValueError, match="read-only"):
        b[0:0, :] = 5.0


# -- other classes the fuzzer found (fixed) ------------------------------------------------------

@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_pow_of_zero_base(dtype):
    """0 ** y with real(y) > 0 is 0 (numpy; exp(y log 0) in the limit): lazyarray gave NaN when
    y had an imaginary part (XLA's complex power is exp(y log x)), in both tiers."""
    base = np.zeros(3, dtype=dtype)
    expo = np.asarray([1 - 2j, 2 + 1j, 0.5 + 0j], dtype=dtype)
    with np.errstate(all="ignore"):
        want = base ** expo
    got = np.asarray(xp.asarray(base) ** xp.asarray(expo))
    np.testing.assert_array_equal(got, want)



@pytest.mark.parametrize("part,make", [("imag", "ones"), ("real", "zeros"), ("imag", "zeros")])
def test_compiled_atan2_of_a_complex_constants_part_with_itself(part, make, fresh):
    """Compiled (interpret_first=0: the `fresh` fixture), atan2(v, v) with v = imag(ones(complex))
    was NaN; numpy and the interpreter tier give atan2(0, 0) = 0. XLA's fused kernel computed it
    from LLVM-visible constant zeros; both-zero inputs now take the standard's signed cases."""
    z = getattr(np, make)((), dtype=np.complex128)
    v_np = getattr(np, part)(z)
    want = np.arctan2(v_np, v_np)
    v = getattr(xp, part)(getattr(xp, make)((), dtype=xp.complex128))
    assert float(xp.atan2(v, v)) == float(want)


@pytest.mark.parametrize("interpret_first", [0, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sort_and_argsort_order_subnormals(interpret_first, dtype, monkeypatch):
    """Found by the compiled-tier fuzzer: argsort(nextafter(...)) put subnormals among the zeros.
    XLA's CPU compares treat subnormals as zero (and its one-operand float sort compares floats
    natively): floats now sort by integer keys made from their bits, in both tiers."""
    from lazyarray import _config
    monkeypatch.setattr(_config, "interpret_first", interpret_first)
    tiny = np.finfo(dtype).smallest_subnormal
    a = np.array([tiny, 0.0, -tiny, -0.0, 1.0, np.nan, -64 * tiny, 64 * tiny, 0.0, -np.inf,
                  np.inf, -np.nan], dtype=dtype)
    for arr in (a, a[::-1].copy(), np.stack([a, a[::-1]])):
        x = xp.asarray(arr)
        np.testing.assert_array_equal(np.asarray(xp.argsort(x)), np.argsort(arr, axis=-1, kind="stable"))
        got, want = np.asarray(xp.sort(x)), np.sort(arr, axis=-1, kind="stable")
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))
        desc = np.asarray(xp.sort(x, descending=True))
        np.testing.assert_array_equal(desc[..., 2:], np.flip(want, axis=-1)[..., 2:])  # (NaNs first)
