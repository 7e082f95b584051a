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

@in_progress(1)
def test_flip_of_0d_array_is_a_copy_as_in_numpy():
    """numpy's flip of a 0-d array indexes it with () and returns a scalar: a copy."""
    base_np = np.asarray(1.0)
    flipped_np = np.flip(base_np)
    base_np[...] = 2.0
    x = xp.asarray(1.0)
    f = xp.flip(x)
    x[...] = 2.0
    assert float(f) == float(flipped_np) == 1.0


@in_progress(1)
def test_empty_write_into_broadcast_to_raises_read_only():
    """numpy refuses any write into a broadcast_to result, also one that selects nothing."""
    nb = np.broadcast_to(np.ones((1,)), (2, 1))
    with pytest.raises(ValueError, match="read-only"):
        nb[0:0, :] = 5.0
    b = xp.broadcast_to(xp.ones((1,)), (2, 1))
    with pytest.raises(ValueError, match="read-only"):
        b[0:0, :] = 5.0


# -- new classes (found by the fuzzer, not yet owned) ------------------------------------------

def new_class(what):
    return pytest.mark.xfail(strict=True, reason=f"issue 9 item 9 (fuzzer), new: {what}")


@new_class("complex pow of a zero base")
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_pow_of_zero_base(dtype):
    """0 ** y with real(y) > 0 is 0 (numpy; exp(y log 0) in the limit): lazyarray gives NaN when
    y has an imaginary part, in both tiers."""
    base = np.zeros(3, dtype=dtype)
    expo = np.asarray([1 - 2j, 2 + 1j, 0.5 + 0j], dtype=dtype)
    with np.errstate(all="ignore"):
        want = base ** expo
    got = np.asarray(xp.asarray(base) ** xp.asarray(expo))
    np.testing.assert_array_equal(got, want)
