"""The on-disk compile cache is on by default: where it lives, how it is switched off, and that a
directory it cannot write never breaks a program. (Entry format, atomic writes and the size
bound: tests/test_runtime.py.)"""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _config, _disk_cache, _engine, _program_cache

# a program of a few graphs, each compiled at first sight (LAZYARRAY_INTERPRET_FIRST=0 below)
WORKLOAD = textwrap.dedent("""
    import json, warnings
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        import numpy as np, lazyarray as xp
        from lazyarray import _config, _engine
        a = xp.asarray(np.linspace(0.0, 1.0, 24).reshape(4, 6))
        out = [float(xp.sum(xp.exp(a) * 2.0 - a)), float(xp.max(a @ xp.matrix_transpose(a)))]
        out.append(float(xp.mean(xp.sin(a), axis=1)[2]))
        _engine.wait_for_compiles()
    print(json.dumps({"compiles": xp.metrics.compiles, "disk_hits": xp.metrics.disk_hits, "out": out,
                      "cache_dir": _config.cache_dir,
                      "warnings": [str(w.message) for w in caught if "compile cache" in str(w.message)]}))
""")


def _expected():
    a = np.linspace(0.0, 1.0, 24).reshape(4, 6)
    return [np.sum(np.exp(a) * 2.0 - a), np.max(a @ a.T), np.mean(np.sin(a), axis=1)[2]]


def _run(tmp_path, **env_changes):
    """The workload in a fresh process whose home and cache-home are under tmp_path."""
    env = dict(os.environ, HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"),
               LAZYARRAY_INTERPRET_FIRST="0")
    env.pop("LAZYARRAY_CACHE_DIR", None)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    out = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])


def _files_under(path):
    return [os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs]


def test_default_cache_makes_the_second_process_compile_nothing(tmp_path):
    first = _run(tmp_path)
    assert first["cache_dir"] == str(tmp_path / "xdg" / "lazyarray")
    assert first["compiles"] >= 3 and first["disk_hits"] == 0
    entries = [f for f in _files_under(tmp_path / "xdg" / "lazyarray") if f.endswith(".xla")]
    assert len(entries) == first["compiles"]
    second = _run(tmp_path)
    assert second["compiles"] == 0, "a second process with the default cache must not compile"
    assert second["disk_hits"] == first["compiles"]
    assert second["out"] == first["out"]  # the same executables computed both
    np.testing.assert_allclose(second["out"], _expected(), rtol=1e-12)
    assert not _files_under(tmp_path / "home")  # XDG_CACHE_HOME wins over ~/.cache


@pytest.mark.parametrize("setting", ["", "0", "off", "OFF", "none"])
def test_opt_out_writes_nothing(tmp_path, setting):
    res = _run(tmp_path, LAZYARRAY_CACHE_DIR=setting)
    assert res["cache_dir"] is None
    assert res["compiles"] >= 3 and res["disk_hits"] == 0
    np.testing.assert_allclose(res["out"], _expected(), rtol=1e-12)
    assert not _files_under(tmp_path), "the opted-out disk cache wrote files"


def test_config_cache_dir_none_writes_nothing(tmp_path, monkeypatch, fresh):
    monkeypatch.setattr(_config, "cache_dir", None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    a = xp.asarray(np.arange(7.0))
    assert float(xp.sum(a * a + 1.0)) == float(np.sum(np.arange(7.0) ** 2 + 1.0))
    assert fresh.compiles >= 1
    assert not _files_under(tmp_path)


def test_unwritable_directory_warns_once_and_runs(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")  # even root cannot create a directory inside a file
    res = _run(tmp_path, LAZYARRAY_CACHE_DIR=str(blocker / "cache"))
    np.testing.assert_allclose(res["out"], _expected(), rtol=1e-12)
    assert res["compiles"] >= 3
    assert len(res["warnings"]) == 1, res["warnings"]
    assert str(blocker / "cache") in res["warnings"][0]


def test_unwritable_directory_in_process(tmp_path, monkeypatch, fresh):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    root = str(blocker / "cache")
    monkeypatch.setattr(_config, "cache_dir", root)
    monkeypatch.setattr(_disk_cache, "_unwritable_roots", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = xp.asarray(np.arange(6.0))
        assert float(xp.sum(a * 2.0)) == 30.0
        assert float(xp.max(a - 1.0)) == 4.0
    mine = [w for w in caught if "compile cache" in str(w.message)]
    assert len(mine) == 1 and issubclass(mine[0].category, RuntimeWarning)
    assert fresh.compiles >= 2


def test_another_lazyarray_version_does_not_load_the_entry(tmp_path, monkeypatch, fresh):
    """The entry's name hashes lazyarray's version: after an upgrade the program compiles again."""
    monkeypatch.setattr(_config, "cache_dir", str(tmp_path))
    a = xp.asarray(np.arange(5.0))
    assert float(xp.sum(a * 3.0 + 1.0)) == 35.0
    assert fresh.compiles == 1
    _engine.clear_cache()
    assert float(xp.sum(a * 3.0 + 1.0)) == 35.0
    assert fresh.compiles == 1 and fresh.disk_hits == 1  # same version: loaded
    monkeypatch.setattr(_program_cache, "_DISK_KEY_PREFIX", "lazyarray-99.0|")
    _engine.clear_cache()
    assert float(xp.sum(a * 3.0 + 1.0)) == 35.0
    assert fresh.compiles == 2 and fresh.disk_hits == 1


def test_default_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(os, "name", "posix")
    assert _config._cache_dir_setting(None) == os.path.join(str(tmp_path), ".cache", "lazyarray")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _config._cache_dir_setting(None) == os.path.join(str(tmp_path / "xdg"), "lazyarray")
    monkeypatch.setattr(os, "name", "nt")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert _config._cache_dir_setting(None) == os.path.join(str(tmp_path / "local"), "lazyarray")
    monkeypatch.setattr(os, "name", "posix")
    for off in ("", "0", "off", " Off ", "false", "none"):
        assert _config._cache_dir_setting(off) is None
    assert _config._cache_dir_setting(str(tmp_path / "c")) == str(tmp_path / "c")
    assert _config._cache_dir_setting("~/c") == os.path.join(str(tmp_path), "c")
