"""Fixtures for the env tests: a session WAD cache, env factories that close what they open, a steering policy."""

from __future__ import annotations

import hashlib

import gymnasium as gym
import numpy as np
import pytest

import wadgym  # noqa: F401  (registers the envs)
from wadgym.envs.aiming import steer_towards
from wadgym.envs.scenarios import compile_acs
from wadgym.wads import build_wad

WADGYM_SPECS = [spec for spec in gym.registry.values() if str(spec.entry_point).startswith("wadgym.")]


@pytest.fixture(scope="session")
def wad_cache(session_wad_cache) -> str:
    """The session's WAD cache folder (tests/conftest.py): every variant is built once."""
    return session_wad_cache


@pytest.fixture(scope="session")
def levels_digest():
    """levels_digest(build, params) -> the sha256 of the WADs of levels 0, 1, 2 and 10000 (`build_wad` of each,
    concatenated): the tests that pin a family's levels to their bytes compare it with a digest taken once."""
    def digest(build, params, seeds=(0, 1, 2, 10_000)) -> str:
        data = b"".join(build_wad([build(np.random.default_rng(s), params)], compiler=compile_acs) for s in seeds)
        return hashlib.sha256(data).hexdigest()
    return digest


@pytest.fixture
def make_env(wad_cache):
    """make_env(env_id, **kwargs) -> gym.make(env_id, cache_dir=<session cache>, **kwargs), closed at the end."""
    envs = []

    def make(env_id: str = "DoomItems-v0", **kwargs):
        env = gym.make(env_id, cache_dir=wad_cache, **kwargs)
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()


def steer_to_nearest_item(observation, info) -> int:
    """An action of the "basic" set that heads for the nearest remaining item (as ItemsEnv.reference_action,
    but from the observation: needs game_variables starting with ("POSITION_X", "POSITION_Y", "ANGLE"))."""
    x, y, angle = observation["gamevariables"][:3]
    remaining = info["item_positions"][info["items_remaining"]]
    distances = np.hypot(remaining[:, 0] - x, remaining[:, 1] - y)
    return steer_towards((x, y, angle), remaining[int(distances.argmin())])


@pytest.fixture
def steer():
    return steer_to_nearest_item
