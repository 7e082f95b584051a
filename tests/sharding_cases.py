"""Sharded arrays on 8 forced host devices, each result compared with the same code on one device.

Run by tests/test_sharding.py in a subprocess with XLA_FLAGS=--xla_force_host_platform_device_count=8
(the flag must be set before jax starts): `python -m pytest tests/sharding_cases.py` directly skips
every case when fewer than 8 devices exist. Every expected value is the single-device result of the
same lazyarray code (itself checked against numpy by the rest of the suite), or numpy's.
"""
import os

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _engine
from lazyarray.sharding import Mesh, NamedSharding, PartitionSpec as P

DEVICES = xp.__array_namespace_info__().devices()
pytestmark = pytest.mark.skipif(len(DEVICES) < 8, reason="needs 8 devices: see tests/test_sharding.py")
ONE = DEVICES[0]


@pytest.fixture(autouse=True)
def compiled_tier(monkeypatch):
    """Both sides compiled (a mesh never runs the interpreter tier): equal bits are then expected
    wherever the partitioned program does the same arithmetic per element."""
    monkeypatch.setattr(xp.config, "interpret_first", 0)


@pytest.fixture(scope="module")
def mesh():
    return Mesh(DEVICES[:8], ("x",))


@pytest.fixture(scope="module")
def mesh2d():
    return Mesh(np.array(DEVICES[:8], dtype=object).reshape(4, 2), ("x", "y"))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(32, 8)), rng.normal(size=(8, 6))


def both(fn, *arrays, sharding):
    """fn on one device and on the mesh (each array laid out as `sharding` says, None: replicated);
    returns the two results as numpy arrays and the sharded result itself."""
    one = fn(*[xp.asarray(a, device=ONE) for a in arrays])
    many = fn(*[xp.asarray(a, device=s) for a, s in zip(arrays, sharding)])
    assert many.device.mesh is not None
    return np.asarray(one), np.asarray(many), many


def test_device_and_sharding_of_a_sharded_array(mesh, data):
    rows = NamedSharding(mesh, P("x", None))
    X = xp.asarray(data[0], device=rows)
    assert X.sharding == rows
    assert X.device.mesh == mesh and "Mesh" in repr(X.device)
    assert np.array_equal(np.asarray(X), data[0])
    shards = X._node.buffer.addressable_shards
    assert len(shards) == 8 and all(s.data.shape == (4, 8) for s in shards)
    assert xp.zeros((16, 4), device=rows).sharding == rows
    assert xp.ones_like(X).device is X.device


def test_elementwise_keeps_the_row_split(mesh, data):
    rows = NamedSharding(mesh, P("x", None))
    one, many, out = both(lambda a: xp.exp(a) * 2.0 + a, data[0], sharding=[rows])
    assert np.array_equal(one, many)
    assert out.sharding == rows


@pytest.mark.parametrize("axis", [0, 1, None])
def test_reductions_over_split_and_unsplit_axes(mesh, data, axis):
    rows = NamedSharding(mesh, P("x", None))
    for f in (xp.sum, xp.max, xp.mean):
        one, many, _ = both(lambda a: f(a, axis=axis), data[0], sharding=[rows])
        np.testing.assert_allclose(many, one, rtol=1e-13, atol=1e-13)


def test_reduction_on_a_2d_mesh(mesh2d, data):
    grid = NamedSharding(mesh2d, P("x", "y"))
    for axis in (0, 1, None):
        one, many, _ = both(lambda a: xp.sum(a * a, axis=axis), data[0], sharding=[grid])
        np.testing.assert_allclose(many, one, rtol=1e-13)


def test_matmul_row_split(mesh, data):
    rows = NamedSharding(mesh, P("x", None))
    one, many, out = both(lambda a, b: a @ b, *data, sharding=[rows, NamedSharding(mesh, P())])
    np.testing.assert_allclose(many, one, rtol=1e-13)
    assert out.sharding == rows  # the rows stay where they are


def test_matmul_column_split(mesh, data):
    cols = NamedSharding(mesh, P(None, "x"))
    # the contracted axis split: XLA sums the partial products across devices
    one, many, _ = both(lambda a, b: a @ b, *data, sharding=[cols, NamedSharding(mesh, P("x", None))])
    np.testing.assert_allclose(many, one, rtol=1e-13)
    # the result's columns split
    wide = np.random.default_rng(1).normal(size=(8, 16))
    one, many, out = both(lambda a, b: a @ b, data[0], wide, sharding=[NamedSharding(mesh, P()), NamedSharding(mesh, P(None, "x"))])
    np.testing.assert_allclose(many, one, rtol=1e-13)
    assert out.sharding == NamedSharding(mesh, P(None, "x"))


def test_indexing_and_setitem(mesh, data):
    rows = NamedSharding(mesh, P("x", None))
    idx = np.array([3, 0, 31, 7, 7])

    def f(a):
        b = a[2:20:3] + a[idx][:1]
        a[5] = 0.0
        a[:, 1] = a[:, 2] * 2.0
        a[xp.asarray(idx, device=a.device)] = -1.0
        return xp.sum(b) + a

    one, many, _ = both(f, data[0], sharding=[rows])
    np.testing.assert_allclose(many, one, rtol=1e-13)
    X = xp.asarray(data[0], device=rows)
    assert np.array_equal(np.asarray(X[X > 1.0]), data[0][data[0] > 1.0])  # boolean mask: a sync


def kmeans(X, C, iters):
    k = C.shape[0]
    with X.device:  # arrays created here go where X is
        ids = xp.arange(k)
    x2 = xp.sum(X * X, axis=1, keepdims=True)
    for _ in range(iters):
        d = x2 - 2.0 * (X @ C.T) + xp.sum(C * C, axis=1)[None, :]
        onehot = xp.astype(xp.argmin(d, axis=1)[:, None] == ids[None, :], X.dtype)
        C = (onehot.T @ X) / xp.maximum(xp.sum(onehot, axis=0), 1.0)[:, None]
    return C


def test_kmeans_loop_and_its_compile_count(mesh, engine):
    rng = np.random.default_rng(2)
    centers = rng.normal(0, 4, (4, 8))
    X = rng.normal(size=(256, 8)) + centers[rng.integers(0, 4, 256)]
    C0 = X[:4].copy()
    one = np.asarray(kmeans(xp.asarray(X, device=ONE), xp.asarray(C0, device=ONE), 12))
    _engine.wait_for_compiles()
    compiles_one = xp.metrics.compiles
    xp.metrics.reset()
    many = kmeans(xp.asarray(X, device=NamedSharding(mesh, P("x", None))),
                  xp.asarray(C0, device=NamedSharding(mesh, P())), 12)
    np.testing.assert_allclose(np.asarray(many), one, rtol=1e-12)
    _engine.wait_for_compiles()
    # as many programs as on one device (one per distinct graph, never one per step)
    assert 0 < xp.metrics.compiles <= compiles_one <= 4, (compiles_one, xp.metrics.as_dict())
    assert xp.metrics.unrequested_reshards == 0
    # a second run of the loop compiles nothing
    xp.metrics.reset()
    np.asarray(kmeans(xp.asarray(X, device=NamedSharding(mesh, P("x", None))),
                      xp.asarray(C0, device=NamedSharding(mesh, P())), 12))
    assert xp.metrics.compiles == 0


def test_a_loop_on_a_mesh_runs_as_one_program(mesh):
    """A loop's unrolled graph on a mesh is folded into one while loop (REPEAT), as on one device:
    a few programs per sync, not one per iteration (the 1-device-mesh slowdown of SCALING.md)."""
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(64, 8)), (rng.random(64) > 0.5).astype(np.float64)

    def logreg(X, y, w):
        for _ in range(30):
            p = 1.0 / (1.0 + xp.exp(-(X @ w)))
            w = w - 0.5 * (X.T @ (p - y)) / X.shape[0]
        return w

    one = np.asarray(logreg(xp.asarray(X, device=ONE), xp.asarray(y, device=ONE), xp.zeros(8, device=ONE)))
    rep = NamedSharding(mesh, P())
    args = (xp.asarray(X, device=NamedSharding(mesh, P("x", None))), xp.asarray(y, device=NamedSharding(mesh, P("x"))),
            xp.zeros(8, device=rep))
    np.asarray(logreg(*args))
    xp.metrics.reset()
    many = np.asarray(logreg(*args))
    np.testing.assert_allclose(many, one, rtol=1e-12)
    assert xp.metrics.executions <= 3 and xp.metrics.segmented_syncs == 1, xp.metrics.as_dict()


def test_pca_on_row_sharded_data(mesh):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.decomposition import PCA
    X = np.random.default_rng(3).normal(size=(64, 6)) @ np.diag([5, 4, 3, 2, 1, 0.5])
    with sklearn.config_context(array_api_dispatch=True):
        one = PCA(n_components=3, svd_solver="full").fit(xp.asarray(X, device=ONE))
        many = PCA(n_components=3, svd_solver="full").fit(xp.asarray(X, device=NamedSharding(mesh, P("x", None))))
    np.testing.assert_allclose(np.asarray(many.components_), np.asarray(one.components_), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(many.explained_variance_), np.asarray(one.explained_variance_), rtol=1e-12)


def test_mixing_devices_names_both(mesh, data):
    X = xp.asarray(data[0], device=NamedSharding(mesh, P("x", None)))
    y = xp.asarray(data[0], device=ONE)
    with pytest.raises(ValueError, match=r"different devices \(MeshDevice.*Device\(cpu:0\)"):
        X + y
    z = xp.asarray(data[0], device=DEVICES[1])
    with pytest.raises(ValueError, match=r"Device\(cpu:0\) and Device\(cpu:1\)"):
        y * z


def test_to_device_between_devices_and_layouts(mesh, data):
    y = xp.asarray(data[0], device=ONE) + 1.0
    rows, cols = NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P(None, "x"))
    a = y.to_device(rows)
    assert a.sharding == rows and np.array_equal(np.asarray(a), data[0] + 1.0)
    b = (a * 2.0).to_device(cols)
    assert b.sharding == cols and np.array_equal(np.asarray(b), (data[0] + 1.0) * 2.0)
    c = b.to_device(DEVICES[3])
    assert c.device == DEVICES[3] and c.sharding is None
    assert np.array_equal(np.asarray(c), (data[0] + 1.0) * 2.0)


def test_to_device_of_a_pending_array_within_a_mesh_is_lazy(mesh, data):
    rows, cols = NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P(None, "x"))
    X = xp.asarray(data[0], device=rows)
    xp.metrics.reset()
    Y = (X * 2.0).to_device(cols)  # pending: nothing runs yet
    assert xp.metrics.executions == 0 and Y._node.buffer is None
    assert Y.sharding == cols
    Z = xp.sum(Y, axis=0)
    np.testing.assert_allclose(np.asarray(Z), np.sum(data[0] * 2.0, axis=0), rtol=1e-13)
    assert np.array_equal(np.asarray(Y), data[0] * 2.0)
    assert Y.sharding == cols and [s.data.shape for s in Y._node.buffer.addressable_shards] == [(32, 1)] * 8
    assert xp.metrics.unrequested_reshards == 0


def test_a_mislaid_input_is_resharded_and_counted(mesh, data, engine):
    from lazyarray import _runtime, _sharding
    rows = NamedSharding(mesh, P("x", None))
    X = xp.asarray(data[0], device=rows)
    np.asarray(X * 3.0)  # the program for a row-split X
    # the buffer moved behind lazyarray's back: the check before the call must notice
    X._node.buffer = _runtime.reshard(X._node.buffer, mesh._pjrt, ((), ("x",)))
    assert _sharding.explicit[X._node] == rows
    before = xp.metrics.unrequested_reshards
    assert np.array_equal(np.asarray(X * 3.0), data[0] * 3.0)
    assert xp.metrics.unrequested_reshards == before + 1


def test_programs_carry_shardy_annotations(mesh, data, tmp_path):
    xp.config.dump_dir = str(tmp_path)
    try:
        X = xp.asarray(data[0], device=NamedSharding(mesh, P("x", None)))
        np.asarray(xp.sum(X * 5.0, axis=0))
    finally:
        xp.config.dump_dir = None
    texts = [p.read_text() for p in tmp_path.iterdir()]
    assert any('sdy.mesh @mesh = <["x"=8]>' in t and '#sdy.sharding<@mesh, [{"x"}, {}]>' in t
               and "mhlo.num_partitions = 8" in t for t in texts), texts


def test_default_device_context_and_environment(mesh):
    with DEVICES[2]:
        assert xp.zeros(3).device == DEVICES[2]
        with DEVICES[5]:
            assert xp.asarray([1.0]).device == DEVICES[5]
        assert xp.empty(2).device == DEVICES[2]
    assert xp.ones(2).device == (DEVICES[int(os.environ["LAZYARRAY_DEVICE"].split(":")[1])]
                                  if os.environ.get("LAZYARRAY_DEVICE") else DEVICES[0])
    with xp.asarray([1.0], device=NamedSharding(mesh, P())).device:
        assert xp.arange(4).device.mesh == mesh


def test_lda_on_row_sharded_data(mesh):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 96)
    X = rng.normal(size=(96, 5)) + rng.normal(0, 2, (3, 5))[y]
    rows = NamedSharding(mesh, P("x", None))
    with sklearn.config_context(array_api_dispatch=True):
        one = LinearDiscriminantAnalysis().fit(xp.asarray(X, device=ONE), xp.asarray(y, device=ONE))
        many = LinearDiscriminantAnalysis().fit(xp.asarray(X, device=rows),
                                                xp.asarray(y, device=NamedSharding(mesh, P("x"))))
        np.testing.assert_allclose(np.asarray(many.coef_), np.asarray(one.coef_), rtol=1e-10)
        assert np.array_equal(np.asarray(many.predict(xp.asarray(X, device=rows))),
                              np.asarray(one.predict(xp.asarray(X, device=ONE))))


def test_an_uneven_split_gives_the_one_device_results(mesh, mesh2d):
    """10 and 13 rows over 8 devices: the buffers are held in a layout that divides
    (`_sharding.stored`), the programs annotate the uneven split (XLA pads the shards inside)."""
    rng = np.random.default_rng(3)
    data, W = rng.normal(size=(13, 3)), rng.normal(size=(3, 5))
    rows = NamedSharding(mesh, P("x", None))
    X = xp.asarray(data, device=rows)
    assert X.sharding == rows  # what was asked for
    assert [s.data.shape for s in X._node.buffer.addressable_shards] == [(13, 3)] * 8  # held whole
    assert np.array_equal(np.asarray(X), data)
    one, many, out = both(lambda a: xp.exp(a) * 2.0 + a, data, sharding=[rows])
    np.testing.assert_allclose(many, one, rtol=1e-15)
    for axis in (0, 1, None):
        for f in (xp.sum, xp.max, xp.mean):
            one, many, _ = both(lambda a: f(a, axis=axis), data, sharding=[rows])
            np.testing.assert_allclose(many, one, rtol=1e-13, atol=1e-13)
    one, many, out = both(lambda a, b: a @ b, data, W, sharding=[rows, NamedSharding(mesh, P())])
    np.testing.assert_allclose(many, one, rtol=1e-13)
    one, many, _ = both(lambda a: a[2:11:3] + a[np.array([12, 0, 5])][:1], data, sharding=[rows])
    np.testing.assert_allclose(many, one, rtol=1e-15)
    def setitem(a):
        a[5] = 0.0
        a[:, 1] = a[:, 2] * 2.0
        return a - xp.mean(a, axis=0)

    one, many, _ = both(setitem, data, sharding=[rows])
    np.testing.assert_allclose(many, one, rtol=1e-13, atol=1e-15)
    # a pending array placed unevenly; to_device onto an uneven split; a 2-D mesh (13 over 4x2)
    Z = xp.zeros((10, 3), device=rows) + 1.0
    assert Z.sharding == rows and np.array_equal(np.asarray(Z), np.ones((10, 3)))
    Y = xp.asarray(data, device=ONE).to_device(rows)
    assert Y.sharding == rows and np.array_equal(np.asarray(Y * 3.0), data * 3.0)
    grid = NamedSharding(mesh2d, P("x", "y"))
    one, many, _ = both(lambda a: xp.sum(a * a, axis=0), data, sharding=[grid])
    np.testing.assert_allclose(many, one, rtol=1e-13)
    with pytest.raises(ValueError, match="2 entries for an array of 1 axes"):
        xp.zeros(8, device=rows)


def test_an_uneven_split_partitions_the_program(mesh, tmp_path):
    """The program itself carries the uneven split (an sdy.sharding_constraint on the parameter,
    which is held replicated), so XLA partitions the work rather than replicating it."""
    xp.config.dump_dir = str(tmp_path)
    try:
        X = xp.asarray(np.ones((10, 3)), device=NamedSharding(mesh, P("x", None)))
        y = np.asarray(xp.sum(X * 2.0, axis=0))
    finally:
        xp.config.dump_dir = None
    assert np.array_equal(y, np.full(3, 20.0))
    texts = [p.read_text() for p in tmp_path.iterdir()]
    assert any('sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>' in t and "sdy.sharding_constraint" in t
               and '#sdy.sharding<@mesh, [{"x"}, {}]>' in t for t in texts), texts


def test_kmeans_with_an_uneven_row_split(mesh):
    rng = np.random.default_rng(4)
    centers = rng.normal(0, 4, (4, 8))
    X = rng.normal(size=(250, 8)) + centers[rng.integers(0, 4, 250)]  # 250 = 8 * 31 + 2
    C0 = X[:4].copy()
    one = np.asarray(kmeans(xp.asarray(X, device=ONE), xp.asarray(C0, device=ONE), 8))
    xp.metrics.reset()
    many = kmeans(xp.asarray(X, device=NamedSharding(mesh, P("x", None))),
                  xp.asarray(C0, device=NamedSharding(mesh, P())), 8)
    np.testing.assert_allclose(np.asarray(many), one, rtol=1e-12)
    assert xp.metrics.unrequested_reshards == 0


def test_a_slice_of_a_split_array_is_still_right(mesh):
    rows = NamedSharding(mesh, P("x", None))
    X = xp.asarray(np.arange(48.0).reshape(16, 3), device=rows)
    part = X[2:7] * 2.0  # 5 rows: not split (replicated), still right
    assert part.sharding == NamedSharding(mesh, P()) or part.sharding.spec[0] is None
    assert np.array_equal(np.asarray(part), np.arange(48.0).reshape(16, 3)[2:7] * 2.0)


def test_host_data_goes_out_in_shards(mesh, monkeypatch):
    """asarray(data, device=NamedSharding) sends each device its shard: no copy of the whole
    array to every device, and no reshard afterwards."""
    from lazyarray import _runtime
    reshards = []
    real = _runtime.reshard
    monkeypatch.setattr(_runtime, "reshard", lambda *a: reshards.append(a) or real(*a))
    data = np.arange(48.0).reshape(16, 3)
    X = xp.asarray(data, device=NamedSharding(mesh, P("x", None)))
    assert reshards == []
    assert [s.data.shape for s in X._node.buffer.addressable_shards] == [(2, 3)] * 8
    assert np.array_equal(np.asarray(X), data)
