"""The WAD cache: one build per parameter set, found again by its key, verified against the size and
hash recorded at write time (a damaged file is rebuilt), built once and written atomically even when
processes race or are killed."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import time

import gymnasium as gym
import pytest

from wadgym.envs.families import items
from wadgym.envs.runtime import cache
from wadgym.envs.scenarios import build_scenario_wad, scenario_wad


def test_built_once_then_reused(tmp_path):
    params = dataclasses.replace(items.PRESETS["default"], n_items=6)
    path = scenario_wad("items", params, seed=1, directory=tmp_path)
    stamp = path.stat().st_mtime_ns
    assert scenario_wad("items", params, seed=1, directory=tmp_path) == path
    assert path.stat().st_mtime_ns == stamp  # not rebuilt
    assert path.read_bytes() == build_scenario_wad("items", params, seed=1)
    other = scenario_wad("items", dataclasses.replace(params, n_items=7), seed=1, directory=tmp_path)
    assert other != path and scenario_wad("items", params, seed=2, directory=tmp_path) not in (path, other)
    visible = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("."))  # the rest: lock files
    assert visible == sorted(n for p in tmp_path.glob("items-*.wad") for n in (p.name, p.name + ".json"))
    assert json.loads(cache.record_path(path).read_text())["size"] == path.stat().st_size


def test_cache_folder_from_argument_environment_and_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "wadgym"
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "env"))
    assert cache.cache_dir() == tmp_path / "env"
    assert cache.cache_dir(tmp_path / "arg") == tmp_path / "arg"


BUILD_IN_WORKER = """
import os, sys, time
from wadgym.envs.runtime import cache

def build():
    with open(sys.argv[2], "a") as log:
        log.write(f"{os.getpid()}\\n")
    time.sleep(0.5)  # the others arrive meanwhile
    return b"PWAD" + bytes(8) + bytes(range(256)) * 4096

print(cache.cached_wad("race", {"what": "a 1 MB file"}, build, sys.argv[1]))
"""


def test_racing_processes_build_once_and_never_see_a_partial_file(tmp_path):
    expected = b"PWAD" + bytes(8) + bytes(range(256)) * 4096
    folder, log = tmp_path / "cache", tmp_path / "builds.log"
    target = folder / f"race-{cache.wad_key({'what': 'a 1 MB file'})}.wad"
    workers = [subprocess.Popen([sys.executable, "-c", BUILD_IN_WORKER, str(folder), str(log)], stdout=subprocess.PIPE,
                                text=True) for _ in range(4)]
    while any(w.poll() is None for w in workers):  # whenever the file exists, it is whole
        if target.exists():
            assert target.read_bytes() == expected
    outputs = [w.communicate()[0].strip() for w in workers]
    assert [w.returncode for w in workers] == [0] * 4
    assert set(outputs) == {str(target)} and target.read_bytes() == expected
    assert len(log.read_text().splitlines()) == 1  # built once
    assert not list(folder.glob("*.tmp")) and not list(folder.glob(".*.tmp"))


def test_unwritable_cache_folder_is_reported(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError):
        scenario_wad("items", items.PRESETS["default"], directory=blocker / "sub")
    assert not os.path.exists(blocker / "sub")


# Ways a cached WAD goes bad: each is found out and the WAD rebuilt (before, some crashed the engine in
# reset(), some hung it, some gave a misleading "placed 0 of 10 items").
def _flip_bit(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:]


DAMAGE = {
    "empty": lambda data, other: b"",
    "truncated-to-half": lambda data, other: data[: len(data) // 2],
    "one-byte-short": lambda data, other: data[:-1],
    "header-only": lambda data, other: data[:12],
    "zeroed": lambda data, other: bytes(len(data)),
    "bit-flipped-in-a-lump": lambda data, other: _flip_bit(data, len(data) // 2),
    "bit-flipped-in-the-directory": lambda data, other: _flip_bit(data, len(data) - 5),
    "iwad-magic": lambda data, other: b"IWAD" + data[4:],
    "directory-offset-past-the-end": lambda data, other: data[:8] + (len(data) * 2).to_bytes(4, "little") + data[12:],
    "random-bytes": lambda data, other: random.Random(0).randbytes(len(data)),
    "another-wad": lambda data, other: other,
    "not-a-wad": lambda data, other: b"<html>404 Not Found</html>\n",
    "garbage-appended": lambda data, other: data + bytes(4096),
}


@pytest.fixture
def cached_items(tmp_path):
    """(params, path of its cached WAD, the right bytes, another WAD's bytes) in a cache of the test's own."""
    params = dataclasses.replace(items.PRESETS["default"], n_items=6)
    path = scenario_wad("items", params, seed=1, directory=tmp_path)
    return params, path, path.read_bytes(), build_scenario_wad("items", params, seed=2)


def _assert_rebuilt(params, path, expected, folder):
    assert scenario_wad("items", params, seed=1, directory=folder) == path
    assert path.is_file() and path.read_bytes() == expected and cache.verified(path)


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_wad_is_rebuilt(cached_items, tmp_path, damage):
    params, path, expected, other = cached_items
    path.write_bytes(DAMAGE[damage](expected, other))
    assert not cache.verified(path)
    _assert_rebuilt(params, path, expected, tmp_path)


@pytest.mark.parametrize("replace", ["a-folder", "a-dangling-link", "a-link-to-another-wad", "missing-record",
                                     "garbled-record"])
def test_whatever_stands_in_the_wads_place_is_replaced(cached_items, tmp_path, replace):
    params, path, expected, other = cached_items
    if replace == "a-folder":
        path.unlink()
        (path / "inside").mkdir(parents=True)
    elif replace.startswith("a-"):
        target = tmp_path / "elsewhere.wad"
        if replace == "a-link-to-another-wad":
            target.write_bytes(other)
        path.unlink()
        path.symlink_to(target)
    elif replace == "missing-record":  # a cache from before records: its WADs are rebuilt once
        cache.record_path(path).unlink()
    else:
        cache.record_path(path).write_text('{"size": 12, "sha')
    _assert_rebuilt(params, path, expected, tmp_path)
    assert not path.is_symlink()


@pytest.mark.parametrize("damage", ["truncated-to-half", "zeroed", "another-wad"])
def test_an_env_on_a_damaged_cache_plays_on_a_rebuilt_wad(tmp_path, damage):
    env = gym.make("DoomItems-v0", cache_dir=tmp_path)
    env.close()
    (path,) = tmp_path.glob("*.wad")
    other = build_scenario_wad("items", dataclasses.replace(items.PRESETS["default"], n_items=3), seed=0)
    path.write_bytes(DAMAGE[damage](path.read_bytes(), other))
    env = gym.make("DoomItems-v0", cache_dir=tmp_path)
    try:
        _, info = env.reset(seed=0)
        assert info["items_total"] == 10 and info["items_remaining"].all()
    finally:
        env.close()


def test_a_killed_writers_leftovers_are_removed(cached_items, tmp_path):
    params, path, expected, _ = cached_items
    path.unlink()
    mine = tmp_path / f".{path.name}.k1ll3d.tmp"  # what write_atomic leaves when killed mid-write
    mine.write_bytes(expected)
    old = tmp_path / ".wadgym-abcdef.tmp"  # an older wadgym's name for it, left for hours
    old.write_bytes(expected)
    os.utime(old, (time.time() - 2 * cache.STALE_SECONDS,) * 2)
    busy = tmp_path / ".other.wad.l1v3.tmp"  # another WAD's writer at work: left alone
    busy.write_bytes(b"PWAD")
    _assert_rebuilt(params, path, expected, tmp_path)
    assert not mine.exists() and not old.exists() and busy.exists()


HOLD_THE_LOCK = """
import sys, time
from wadgym.envs.runtime import cache

def build():
    print("building", flush=True)
    time.sleep(120)

cache.cached_wad("held", {"n": 1}, build, sys.argv[1])
"""


def test_a_writer_killed_while_building_blocks_nobody(tmp_path):
    writer = subprocess.Popen([sys.executable, "-c", HOLD_THE_LOCK, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "building"  # it holds the lock
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=10)
    finally:
        writer.stdout.close()
    path = cache.cached_wad("held", {"n": 1}, lambda: b"PWAD" + bytes(8), tmp_path)
    assert path.read_bytes() == b"PWAD" + bytes(8) and cache.verified(path)
