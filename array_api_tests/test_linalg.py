"""Linear algebra: the main-namespace functions (matmul, tensordot, vecdot, matrix_transpose)
and the ``linalg`` extension (standard: "Linear Algebra Functions", "Linear Algebra
Extension"). Decompositions are checked by what they must satisfy (reconstruction,
orthogonality, triangularity, order) as well as against numpy where the result is unique."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from ._support import (
    COMPLEX, FLOATING, INTEGRAL, NUMERIC, REAL_FLOAT, REAL_OF, SIGNED, asx, assert_close,
    assert_dtype, assert_equal, default_name, has_extension, only, to_np, xp,
)
from .test_statistical import accumulator_dtype

floating = st.sampled_from(only(FLOATING))
real_floating = st.sampled_from(only(REAL_FLOAT))
batches = st.sampled_from([(), (2,), (1, 2)])
sizes = st.integers(1, 4)

need_linalg = pytest.mark.skipif(not has_extension("linalg"), reason="no linalg extension")


def tol(name, scale=1.0):
    r = REAL_OF.get(name, name)
    return dict(rtol=2e-3 if r == "float32" else 1e-9,
                atol=(2e-3 if r == "float32" else 1e-9) * scale)


@st.composite
def matrices(draw, name, shape):
    """Entries in [-1, 1] on a 1/8 grid (exact in every floating dtype)."""
    vals = hnp.arrays(np.int8, shape, elements=st.integers(-8, 8)).map(lambda a: a / 8)
    re = draw(vals)
    if name in COMPLEX:
        re = re + 1j * draw(vals)
    return np.asarray(re, dtype=name)


@st.composite
def well_conditioned(draw, name, batch, n):
    a = draw(matrices(name, batch + (n, n)))
    return (a + (n + 1) * np.eye(n)).astype(name)  # diagonally dominant: invertible


@st.composite
def hermitian_pd(draw, name, batch, n):
    a = draw(matrices(name, batch + (n, n)))
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    return h.astype(name)


def ct(a):
    return np.conj(np.swapaxes(a, -1, -2))


# ---------------------------------------------------------------------------------------------
# main namespace

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                 ((2, 2, 3), (3, 1)), ((1, 2, 3), (4, 1, 3, 2)), ((3,), (2, 3, 2)),
                 ((2, 0), (0, 3))]


@given(st.sampled_from(only(NUMERIC)), st.sampled_from(MATMUL_SHAPES), st.data())
def test_matmul(name, shapes_, data):
    s1, s2 = shapes_
    lo, hi = (0, 3) if name in INTEGRAL else (-4, 4)
    a = data.draw(hnp.arrays(np.int8, s1, elements=st.integers(lo, hi))).astype(name)
    b = data.draw(hnp.arrays(np.int8, s2, elements=st.integers(lo, hi))).astype(name)
    expected = np.matmul(a, b)
    outs = [xp.matmul(asx(a), asx(b)), asx(a) @ asx(b)]
    if has_extension("linalg"):
        outs.append(xp.linalg.matmul(asx(a), asx(b)))
    for out in outs:
        assert_dtype(out, name)
        assert_equal(to_np(out), expected)


def test_matmul_rejects_zero_dim_and_mismatch():
    with pytest.raises(Exception):
        xp.matmul(xp.ones(()), xp.ones((2,)))
    with pytest.raises(Exception):
        xp.matmul(xp.ones((2, 3)), xp.ones((2, 3)))


@given(st.sampled_from(only(NUMERIC)), st.data())
def test_tensordot(name, data):
    case = data.draw(st.sampled_from([
        ((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 2), 2), ((3,), (3,), 1), ((2,), (3,), 0),
        ((2, 3, 4), (4, 2, 3), ((1, 2), (2, 0))), ((3, 2), (2, 3), ((0,), (1,)))]))
    s1, s2, axes = case
    a = data.draw(hnp.arrays(np.int8, s1, elements=st.integers(0, 3))).astype(name)
    b = data.draw(hnp.arrays(np.int8, s2, elements=st.integers(0, 3))).astype(name)
    expected = np.tensordot(a, b, axes=axes)
    fns = [xp.tensordot] + ([xp.linalg.tensordot] if has_extension("linalg") else [])
    for f in fns:
        out = f(asx(a), asx(b), axes=axes)
        assert_dtype(out, name)
        assert_equal(to_np(out), expected)


@given(st.sampled_from(only(NUMERIC)), st.data())
def test_vecdot(name, data):
    s1, s2, axis = data.draw(st.sampled_from([((3,), (3,), -1), ((2, 3), (3,), -1),
                                             ((2, 1, 3), (4, 3), -1), ((3, 2), (3, 2), -2),
                                             ((3, 2), (3, 1), -2)]))  # axes count from the end
    lo, hi = (0, 3) if name in INTEGRAL else (-3, 3)
    a = data.draw(hnp.arrays(np.int8, s1, elements=st.integers(lo, hi))).astype(name)
    b = data.draw(hnp.arrays(np.int8, s2, elements=st.integers(lo, hi))).astype(name)
    if name in COMPLEX:
        a = (a + 1j * np.roll(a, 1)).astype(name)  # a nonzero imaginary part to conjugate
    # the standard conjugates x1: sum(conj(x1) * x2) along axis
    expected = np.sum(np.conj(a) * b, axis=axis)
    fns = [xp.vecdot] + ([xp.linalg.vecdot] if has_extension("linalg") else [])
    for f in fns:
        out = f(asx(a), asx(b), axis=axis)
        assert_dtype(out, name)
        if name in FLOATING:
            assert_close(to_np(out), expected.astype(name), name)
        else:
            assert_equal(to_np(out), expected.astype(name))


# ---------------------------------------------------------------------------------------------
# linalg extension

@need_linalg
@given(floating, batches, sizes, st.booleans(), st.data())
def test_cholesky(name, batch, n, upper, data):
    a = data.draw(hermitian_pd(name, batch, n))
    out = xp.linalg.cholesky(asx(a), upper=upper)
    assert_dtype(out, name)
    c = to_np(out)
    if upper:
        assert_equal(np.triu(c), c)
        assert_close(ct(c) @ c, a, name, **tol(name, n))
    else:
        assert_equal(np.tril(c), c)
        assert_close(c @ ct(c), a, name, **tol(name, n))
    expected = np.linalg.cholesky(a)
    assert_close(c, ct(expected) if upper else expected, name, **tol(name, n))


@need_linalg
@given(st.sampled_from(only(SIGNED + FLOATING)), st.data())  # unsigned differences wrap
def test_cross(name, data):
    s1, s2, axis = data.draw(st.sampled_from([((3,), (3,), -1), ((2, 3), (3,), -1),
                                             ((3, 2), (3, 2), -2), ((2, 1, 3), (4, 3), -1)]))
    a = data.draw(hnp.arrays(np.int8, s1, elements=st.integers(-3, 3))).astype(name)
    b = data.draw(hnp.arrays(np.int8, s2, elements=st.integers(-3, 3))).astype(name)
    out = xp.linalg.cross(asx(a), asx(b), axis=axis)
    assert_dtype(out, name)
    expected = np.cross(a, b, axis=axis)
    if name in FLOATING:
        assert_close(to_np(out), expected, name)
    else:
        assert_equal(to_np(out), expected)


@need_linalg
@given(floating, batches, sizes, st.data())
def test_det_slogdet_inv(name, batch, n, data):
    a = data.draw(well_conditioned(name, batch, n))
    det = xp.linalg.det(asx(a))
    assert_dtype(det, name)
    assert_close(to_np(det), np.linalg.det(a).astype(name), name, rtol=2e-3 if
                 REAL_OF[name] == "float32" else 1e-9)
    res = xp.linalg.slogdet(asx(a))
    sign, logabs = res
    assert res.sign is sign and res.logabsdet is logabs
    assert_dtype(sign, name)
    assert_dtype(logabs, REAL_OF[name])
    esign, elog = np.linalg.slogdet(a)
    assert_close(to_np(sign), esign.astype(name), name, **tol(name))
    assert_close(to_np(logabs), elog.astype(REAL_OF[name]), name, **tol(name))
    inv = xp.linalg.inv(asx(a))
    assert_dtype(inv, name)
    assert_close(to_np(inv) @ a, np.broadcast_to(np.eye(n), a.shape), name, **tol(name, n))


@need_linalg
@given(st.sampled_from(only(NUMERIC)), st.integers(-2, 2), st.data())
def test_diagonal_and_trace(name, offset, data):
    shape = data.draw(st.sampled_from([(3, 3), (2, 4), (4, 2), (2, 3, 3), (1, 2, 2, 3)]))
    a = data.draw(hnp.arrays(np.int8, shape, elements=st.integers(0, 5))).astype(name)
    out = xp.linalg.diagonal(asx(a), offset=offset)
    assert_dtype(out, name)
    assert_equal(to_np(out), np.diagonal(a, offset=offset, axis1=-2, axis2=-1))
    tr = xp.linalg.trace(asx(a), offset=offset)
    want = accumulator_dtype(name)
    assert_dtype(tr, want)
    assert_equal(to_np(tr), np.trace(a, offset=offset, axis1=-2, axis2=-1).astype(want))


@need_linalg
@given(floating, batches, sizes, st.data())
def test_eigh_eigvalsh(name, batch, n, data):
    a = data.draw(hermitian_pd(name, batch, n))
    res = xp.linalg.eigh(asx(a))
    w, q = res
    assert res.eigenvalues is w and res.eigenvectors is q
    assert_dtype(w, REAL_OF[name])
    assert_dtype(q, name)
    wn, qn = to_np(w), to_np(q)
    # Q diag(w) Q^H = A with Q unitary (the eigenvalue order is unspecified)
    assert_close((qn * wn[..., None, :]) @ ct(qn), a, name, **tol(name, 4 * n))
    assert_close(ct(qn) @ qn, np.broadcast_to(np.eye(n), a.shape), name, **tol(name, n))
    expected = np.linalg.eigvalsh(a)
    assert_close(np.sort(wn, axis=-1), expected.astype(REAL_OF[name]), name, **tol(name, 4 * n))
    vals = xp.linalg.eigvalsh(asx(a))
    assert_dtype(vals, REAL_OF[name])
    assert_close(np.sort(to_np(vals), axis=-1), expected, name, **tol(name, 4 * n))


NORMS = ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]


@need_linalg
@given(floating, st.sampled_from(NORMS), st.booleans(), st.data())
def test_matrix_norm(name, ord_, keepdims, data):
    shape = data.draw(st.sampled_from([(3, 3), (2, 4), (2, 3, 2)]))
    a = data.draw(matrices(name, shape))
    out = xp.linalg.matrix_norm(asx(a), ord=ord_, keepdims=keepdims)
    assert_dtype(out, REAL_OF[name])
    expected = np.linalg.norm(a.astype("complex128" if name in COMPLEX else "float64"),
                              ord=ord_, axis=(-2, -1), keepdims=keepdims)
    assert_close(to_np(out), expected.astype(REAL_OF[name]), name, **tol(name, 4))


@need_linalg
@given(floating, st.sampled_from([None, 0, 1, -1, 3, -2, 1.5, math.inf, -math.inf]),
       st.booleans(), st.data())
def test_vector_norm(name, ord_, keepdims, data):
    shape, axis = data.draw(st.sampled_from([((4,), None), ((2, 3), None), ((2, 3), 1),
                                             ((2, 3), (0, 1)), ((2, 3, 2), (0, 2)),
                                             ((2, 3), -2)]))
    a = data.draw(matrices(name, shape))
    if ord_ is not None and ord_ < 0:
        a = np.where(a == 0, 1, a).astype(name)   # negative orders divide by |a|
    kw = {} if ord_ is None else {"ord": ord_}
    out = xp.linalg.vector_norm(asx(a), axis=axis, keepdims=keepdims, **kw)
    assert_dtype(out, REAL_OF[name])
    wide = a.astype("complex128" if name in COMPLEX else "float64")
    expected = np.linalg.vector_norm(wide, axis=axis, keepdims=keepdims,
                                     ord=2 if ord_ is None else ord_)
    assert_close(to_np(out), np.asarray(expected).astype(REAL_OF[name]), name, **tol(name, 4))


@need_linalg
@given(floating, st.integers(-2, 3), batches, sizes, st.data())
def test_matrix_power(name, n, batch, size, data):
    a = data.draw(well_conditioned(name, batch, size))
    a = (a / (size + 1)).astype(name)
    out = xp.linalg.matrix_power(asx(a), n)
    assert_dtype(out, name)
    expected = np.linalg.matrix_power(a.astype("complex128" if name in COMPLEX else "float64"),
                                      n)
    assert_close(to_np(out), expected.astype(name), name, **tol(name, 10))


@need_linalg
@given(real_floating, st.integers(1, 4), st.integers(1, 4), st.integers(0, 4), st.data())
def test_matrix_rank(name, m, k, r, data):
    r = min(r, m, k)
    # a product of m x r and r x k integer matrices has rank r (almost surely; checked by numpy)
    left = data.draw(hnp.arrays(np.int8, (m, r), elements=st.integers(-3, 3))).astype(name)
    right = data.draw(hnp.arrays(np.int8, (r, k), elements=st.integers(-3, 3))).astype(name)
    a = (left @ right).astype(name) if r else np.zeros((m, k), dtype=name)
    out = xp.linalg.matrix_rank(asx(a))
    assert_dtype(out, default_name("integral"))
    assert out.shape == ()
    expected = np.linalg.matrix_rank(a.astype("float64"))
    assert int(to_np(out)) == int(expected)
    stacked = xp.linalg.matrix_rank(asx(np.stack([a, np.zeros_like(a)])))
    assert to_np(stacked).tolist() == [int(expected), 0]


@need_linalg
@given(st.sampled_from(only(NUMERIC)), st.data())
def test_outer(name, data):
    a = data.draw(hnp.arrays(np.int8, st.integers(0, 4), elements=st.integers(0, 4)))
    b = data.draw(hnp.arrays(np.int8, st.integers(0, 4), elements=st.integers(0, 4)))
    out = xp.linalg.outer(asx(a.astype(name)), asx(b.astype(name)))
    assert_dtype(out, name)
    assert_equal(to_np(out), np.outer(a, b).astype(name))


@need_linalg
@given(floating, st.sampled_from([(3, 3), (2, 4), (4, 2), (2, 3, 2)]), st.data())
def test_pinv(name, shape, data):
    a = data.draw(matrices(name, shape))
    out = xp.linalg.pinv(asx(a))
    assert_dtype(out, name)
    p = to_np(out)
    assert p.shape == shape[:-2] + (shape[-1], shape[-2])
    # the Moore-Penrose conditions A P A = A and P A P = P
    assert_close(a @ p @ a, a, name, **tol(name, 20))
    assert_close(p @ a @ p, p, name, **tol(name, 20 * max(1.0, float(np.abs(p).max()))))


@need_linalg
@given(floating, st.sampled_from(["reduced", "complete"]),
       st.sampled_from([(3, 3), (4, 2), (2, 4), (2, 3, 2)]), st.data())
def test_qr(name, mode, shape, data):
    a = data.draw(matrices(name, shape))
    res = xp.linalg.qr(asx(a), mode=mode)
    q, r = res
    assert res.Q is q and res.R is r
    assert_dtype(q, name)
    assert_dtype(r, name)
    m, n = shape[-2:]
    k = min(m, n) if mode == "reduced" else m
    assert q.shape == shape[:-2] + (m, k)
    assert r.shape == shape[:-2] + (k, n)
    qn, rn = to_np(q), to_np(r)
    assert_close(qn @ rn, a, name, **tol(name, 4))
    assert_close(ct(qn) @ qn, np.broadcast_to(np.eye(k), shape[:-2] + (k, k)), name,
                 **tol(name, 4))
    assert_equal(np.triu(rn), rn)


@need_linalg
@given(floating, batches, sizes, st.sampled_from(["vector", "matrix"]), st.data())
def test_solve(name, batch, n, kind, data):
    a = data.draw(well_conditioned(name, batch, n))
    if kind == "vector":
        b = data.draw(matrices(name, (n,)))
        expected_shape = batch + (n,)
    else:
        b = data.draw(matrices(name, batch + (n, 2)))
        expected_shape = batch + (n, 2)
    out = xp.linalg.solve(asx(a), asx(b))
    assert_dtype(out, name)
    assert out.shape == expected_shape
    x = to_np(out)
    back = a @ x[..., None] if kind == "vector" else a @ x
    back = back[..., 0] if kind == "vector" else back
    assert_close(back, np.broadcast_to(b, back.shape), name, **tol(name, n))


@need_linalg
@given(floating, st.booleans(), st.sampled_from([(3, 3), (4, 2), (2, 4), (2, 3, 2)]),
       st.data())
def test_svd_svdvals(name, full, shape, data):
    a = data.draw(matrices(name, shape))
    res = xp.linalg.svd(asx(a), full_matrices=full)
    u, s, vh = res
    assert res.U is u and res.S is s and res.Vh is vh
    assert_dtype(u, name)
    assert_dtype(s, REAL_OF[name])
    assert_dtype(vh, name)
    m, n = shape[-2:]
    k = min(m, n)
    assert u.shape == shape[:-2] + ((m, m) if full else (m, k))
    assert s.shape == shape[:-2] + (k,)
    assert vh.shape == shape[:-2] + ((n, n) if full else (k, n))
    un, sn, vn = to_np(u), to_np(s), to_np(vh)
    assert np.all(np.diff(sn, axis=-1) <= 1e-5), "singular values must descend"
    assert_close((un[..., :, :k] * sn[..., None, :]) @ vn[..., :k, :], a, name, **tol(name, 4))
    expected = np.linalg.svd(a, compute_uv=False)
    assert_close(sn, expected, name, **tol(name, 4))
    vals = xp.linalg.svdvals(asx(a))
    assert_dtype(vals, REAL_OF[name])
    assert_close(to_np(vals), expected, name, **tol(name, 4))


@need_linalg
def test_linalg_matrix_transpose():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert_equal(to_np(xp.linalg.matrix_transpose(asx(a))), np.swapaxes(a, -1, -2))
