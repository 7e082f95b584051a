"""One of two processes of tests/test_sharding.py's multi-host test: 4 forced host devices each,
one 8-device mesh across both, X's rows split over it. Prints OK when every check passes."""
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import numpy as np  # noqa: E402

import lazyarray as xp  # noqa: E402
from lazyarray import sharding  # noqa: E402
from lazyarray.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

address, pid = sys.argv[1], int(sys.argv[2])
sharding.initialize(address, 2, pid)
devs = xp.__array_namespace_info__().devices()
assert len(devs) == 8, devs
mesh = Mesh(devs, ("x",))
data = np.random.default_rng(0).normal(size=(32, 6))  # the same global values in both processes
X = xp.asarray(data, device=NamedSharding(mesh, P("x", None)))
G = X.T @ X + 1.0
np.testing.assert_allclose(np.asarray(G), data.T @ data + 1.0, rtol=1e-12)
s = xp.sum(X * 2.0, axis=1)
np.testing.assert_allclose(np.asarray(s), (data * 2.0).sum(axis=1), rtol=1e-12)
print("OK", pid, flush=True)
