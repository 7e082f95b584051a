"""Devices on one process: the inspection API's device list, `device=` on the creation functions,
`x.device`, `to_device`, the default device, and per-platform dtype sets (a fake TPU device stands
for a platform without float64). Several devices at once: tests/test_sharding.py."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _devices, _runtime

info = xp.__array_namespace_info__()


def test_devices_lists_every_device_of_every_platform():
    devs = info.devices()
    assert isinstance(devs, tuple) and devs
    assert [(d.platform, d.id) for d in devs] == [(d.platform, d.id) for d in _runtime.all_devices()]
    assert any(d.platform == "cpu" for d in devs)  # CPU always
    assert info.default_device() == devs[0]


CREATION = {
    "asarray": lambda d: xp.asarray([1.0, 2.0], device=d),
    "empty": lambda d: xp.empty(3, device=d),
    "zeros": lambda d: xp.zeros(3, device=d),
    "ones": lambda d: xp.ones(3, device=d),
    "full": lambda d: xp.full(3, 2.0, device=d),
    "arange": lambda d: xp.arange(4, device=d),
    "linspace": lambda d: xp.linspace(0, 1, 5, device=d),
    "eye": lambda d: xp.eye(3, device=d),
    "empty_like": lambda d: xp.empty_like(xp.ones(2), device=d),
    "zeros_like": lambda d: xp.zeros_like(xp.ones(2), device=d),
    "ones_like": lambda d: xp.ones_like(xp.ones(2), device=d),
    "full_like": lambda d: xp.full_like(xp.ones(2), 7, device=d),
    "from_dlpack": lambda d: xp.from_dlpack(np.arange(3.0), device=d),
}


@pytest.mark.parametrize("name", sorted(CREATION))
def test_device_keyword_of_every_creation_function(name):
    dev = info.devices()[-1]
    for asked in (dev, f"{dev.platform}:{dev.id}", None):
        x = CREATION[name](asked)
        assert x.device == (dev if asked is not None else info.default_device())
        np.asarray(x)


def test_unknown_device_names_the_ones_there_are():
    with pytest.raises(ValueError, match=r"unsupported device 'cpu:999'.*cpu:0"):
        xp.zeros(2, device="cpu:999")
    with pytest.raises(ValueError, match="unsupported device"):
        xp.zeros(2, device=3)


def test_to_device_same_device_is_the_array():
    x = xp.asarray([1.0, 2.0]) * 3.0
    assert x.to_device(x.device) is x
    assert np.array_equal(np.asarray(x.to_device(info.devices()[-1])), [3.0, 6.0])


def test_default_device_context_manager_nests_and_restores():
    dev = info.devices()[-1]
    with dev as d:
        assert d is dev and xp.zeros(2).device == dev and info.default_device() == dev
        with info.devices()[0]:
            assert xp.ones(1).device == info.devices()[0]
        assert xp.arange(3).device == dev
    assert info.default_device() == info.devices()[0]


class _FakeTpu:
    """A PJRT device description of a platform without float64 (nothing runs on it)."""
    platform, id, device_kind = "tpu", 0, "fake TPU v0"


def test_a_platform_without_float64_says_so_and_refuses_it():
    tpu = _devices.Device(_FakeTpu())
    have = info.dtypes(device=tpu)
    assert "float64" not in have and "complex128" not in have and "float32" in have and "int64" in have
    assert "float64" not in info.dtypes(device=tpu, kind="real floating")
    assert info.default_dtypes(device=tpu)["real floating"] == xp.float32
    assert info.default_dtypes(device=tpu)["complex floating"] == xp.complex64
    with pytest.raises(ValueError, match=r"float64 is not supported on Device\(tpu:0\)"):
        xp.zeros(3, dtype=xp.float64, device=tpu)
    with pytest.raises(ValueError, match="complex128 is not supported"):
        xp.full(2, 1j, dtype=xp.complex128, device=tpu)
    with pytest.raises(ValueError, match="float64 is not supported"):
        xp.asarray([1.0, 2.0]).to_device(tpu)


def test_cpu_has_every_dtype():
    cpu = info.devices()[0]
    assert set(info.dtypes(device=cpu)) == set(info.dtypes())
    assert "float64" in info.dtypes(device=cpu) and info.default_dtypes(device=cpu)["real floating"] == xp.float64


def test_config_device_changes_the_default(monkeypatch):
    last = info.devices()[-1]
    monkeypatch.setattr(xp.config, "device", f"{last.platform}:{last.id}")
    assert xp.zeros(1).device == last and info.default_device() == last
    monkeypatch.setattr(xp.config, "device", "cpu:999")
    with pytest.raises(ValueError, match="unsupported device 'cpu:999'"):
        xp.zeros(1)
    monkeypatch.setattr(xp.config, "device", None)
    assert xp.zeros(1).device == info.devices()[0]
