"""Session 14: `asarray(x, dtype=x.dtype)` of one of our arrays (SciPy's `xp.asarray(a, dtype=a.dtype)`)
is x itself, as `asarray(x)` is, without the general path; any other dtype, a copy or a device
still takes it."""
import numpy as np
import pytest

import lazyarray as xp


@pytest.mark.parametrize("make", [lambda: xp.asarray(np.arange(6.0)), lambda: xp.asarray(np.arange(6.0))[1:4],
                                  lambda: xp.asarray(np.arange(6.0)) * 2.0, lambda: xp.asarray(np.arange(6, dtype=np.int32))])
def test_same_dtype_is_the_array_itself(make):
    x = make()
    assert xp.asarray(x, dtype=x.dtype) is x
    assert xp.asarray(x) is x
    y = xp.asarray(x, dtype=x.dtype, copy=True)
    assert y is not x
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    z = xp.asarray(x, dtype=xp.float32)
    assert z.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(z), np.asarray(x).astype(np.float32))
    assert xp.asarray(x, dtype=x.dtype, device=x.device).dtype == x.dtype
    with pytest.raises(ValueError):
        xp.asarray(x, dtype=xp.float32 if x.dtype != xp.float32 else xp.float64, copy=False)


def test_same_dtype_copy_false_and_writes():
    x = xp.asarray(np.arange(4.0))
    same = xp.asarray(x, dtype=xp.float64, copy=False)
    assert same is x
    same[0] = 9.0
    assert float(x[0]) == 9.0  # (the same array: a write through either is seen by both)
