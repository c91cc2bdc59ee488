"""The WAD cache: one build per parameter set, found again by content hash, written atomically even in parallel."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from wadgym.envs import cache
from wadgym.envs import items
from wadgym.envs.scenarios import build_scenario_wad


def test_built_once_then_reused(tmp_path):
    params = dataclasses.replace(items.PRESETS["default"], n_items=6)
    path = cache.scenario_wad("items", params, seed=1, directory=tmp_path)
    stamp = path.stat().st_mtime_ns
    assert cache.scenario_wad("items", params, seed=1, directory=tmp_path) == path
    assert path.stat().st_mtime_ns == stamp  # not rebuilt
    assert path.read_bytes() == build_scenario_wad("items", params, seed=1)
    other = cache.scenario_wad("items", dataclasses.replace(params, n_items=7), seed=1, directory=tmp_path)
    assert other != path and cache.scenario_wad("items", params, seed=2, directory=tmp_path) not in (path, other)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in tmp_path.glob("items-*.wad"))


def test_cache_folder_from_argument_environment_and_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "wadgym"
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "env"))
    assert cache.cache_dir() == tmp_path / "env"
    assert cache.cache_dir(tmp_path / "arg") == tmp_path / "arg"


BUILD_IN_WORKER = """
import dataclasses, sys
from wadgym.envs import cache
from wadgym.envs import items
params = dataclasses.replace(items.PRESETS["default"], n_items=5)
print(cache.scenario_wad("items", params, seed=0, directory=sys.argv[1]))
"""


def test_parallel_workers_never_see_a_partial_file(tmp_path):
    params = dataclasses.replace(items.PRESETS["default"], n_items=5)
    expected = build_scenario_wad("items", params, seed=0)
    target = tmp_path / f"items-{cache.wad_key(cache.scenario_description('items', params, 0))}.wad"
    workers = [subprocess.Popen([sys.executable, "-c", BUILD_IN_WORKER, str(tmp_path)], stdout=subprocess.PIPE,
                                text=True) for _ in range(4)]
    while any(w.poll() is None for w in workers):  # whenever the file exists, it is whole
        if target.exists():
            assert target.read_bytes() == expected
    outputs = [w.communicate()[0].strip() for w in workers]
    assert [w.returncode for w in workers] == [0] * 4
    assert set(outputs) == {str(target)} and target.read_bytes() == expected
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary files left


def test_unwritable_cache_folder_is_reported(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError):
        cache.scenario_wad("items", items.PRESETS["default"], directory=blocker / "sub")
    assert not os.path.exists(blocker / "sub")
