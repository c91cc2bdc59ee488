"""Every registered wadgym id, on the real engine: the Gymnasium and SB3 contracts, determinism across
processes, pickling, truncation, render modes, the generic info keys and levels.

A new family gets all of these by being registered; its own mechanics go in its own test module.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from wadgym.envs.doom_env import DoomEnv
from wadgym.envs.registration import ENVS
from wadgym.wads import read_lumps

SPECS = [spec for spec in gym.registry.values() if str(spec.entry_point).startswith("wadgym.")]
ROLLOUT_STEPS = 200

# Plays a seeded rollout of every id with fixed actions and prints a digest per id.
ROLLOUT = """
import hashlib, json, sys
import gymnasium as gym, numpy as np
import wadgym
out = {}
for env_id in json.loads(sys.argv[2]):
    env = gym.make(env_id, cache_dir=sys.argv[1])
    actions = np.random.default_rng(1).integers(0, env.action_space.n, size=int(sys.argv[3])).tolist()
    digest = hashlib.sha256()
    observation, info = env.reset(seed=123)
    rewards, infos = [], []
    for action in actions:
        digest.update(np.ascontiguousarray(observation).tobytes())
        observation, reward, terminated, truncated, info = env.step(action)
        rewards.append(float(reward))
        infos.append(repr(sorted((k, np.asarray(v).tolist()) for k, v in info.items())))
        if terminated or truncated:
            observation, info = env.reset()
    env.close()
    out[env_id] = [digest.hexdigest(), rewards, hashlib.sha256("".join(infos).encode()).hexdigest()]
print(json.dumps(out))
"""


def test_the_table_is_what_is_registered():
    assert {s.id for s in SPECS} == set(ENVS)
    assert all(s.max_episode_steps for s in SPECS)
    for spec in SPECS:
        cls = gym.make(spec.id, disable_env_checker=True).unwrapped.__class__
        assert issubclass(cls, DoomEnv) and isinstance(cls.score_name, str) and cls.__doc__


@pytest.mark.filterwarnings("ignore:.*render_mode='human' needs a display")  # check_env tries every mode
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_passes_gymnasium_and_sb3_checkers(spec, make_env):
    env = make_env(spec.id, render_mode="rgb_array")
    check_env(env.unwrapped)
    sb3_check_env(env.unwrapped, warn=True)
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (120, 160, 3)


@pytest.fixture(scope="module")
def rollouts_in_two_processes(wad_cache):
    ids = json.dumps([s.id for s in SPECS])
    runs = [subprocess.run([sys.executable, "-c", ROLLOUT, wad_cache, ids, str(ROLLOUT_STEPS)], capture_output=True,
                           text=True, timeout=600) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    return [json.loads(run.stdout.strip().splitlines()[-1]) for run in runs]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_seeded_rollout_is_the_same_in_two_processes(spec, rollouts_in_two_processes):
    first, second = (run[spec.id] for run in rollouts_in_two_processes)
    assert first == second
    assert len(first[1]) == ROLLOUT_STEPS


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_pickles_into_a_working_copy(spec, make_env):
    env = make_env(spec.id)
    observation = env.unwrapped.reset(seed=2)[0]
    copy = pickle.loads(pickle.dumps(env.unwrapped))
    try:
        assert copy.params == env.unwrapped.params and copy.game is None  # a fresh env, not a copied engine
        np.testing.assert_array_equal(copy.reset(seed=2)[0], observation)
    finally:
        copy.close()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_truncates_at_exactly_max_episode_steps(spec, make_env):
    env = make_env(spec.id, max_episode_steps=7)
    env.reset(seed=0)
    ends = []
    for _ in range(7):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        ends.append((terminated, truncated))
        if terminated:
            pytest.fail(f"{spec.id} terminated in its first {len(ends)} random steps; pick a gentler test")
    assert ends[:6] == [(False, False)] * 6 and ends[6] == (False, True)
    assert env.unwrapped.game.get_episode_timeout() == 0  # the engine never truncates by itself


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_render_modes(spec, make_env, monkeypatch):
    frame = make_env(spec.id, render_mode="rgb_array")
    frame.reset(seed=0)
    assert frame.render().shape == (120, 160, 3)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.warns(UserWarning, match="needs a display"):
        human = make_env(spec.id, render_mode="human", frame_skip=32)
    human.reset(seed=0)
    assert human.step(0)[0] is not None and human.render() is None
    plain = make_env(spec.id)
    plain.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert plain.render() is None


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_info_has_score_and_level_seed(spec, make_env):
    env = make_env(spec.id)
    unwrapped = env.unwrapped
    _, info = env.reset(seed=5)
    first, count = unwrapped.start_level, unwrapped.num_levels
    assert isinstance(info["level_seed"], int) and first <= info["level_seed"] < (first + count if count else 2**31)
    assert isinstance(info["score"], (int, float)) and info["map"] == unwrapped.map
    total = 0.0
    for _ in range(20):
        _, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        assert "score" in info and info["level_seed"] == unwrapped.level_seed
        if terminated or truncated:
            break
    if unwrapped.score_name == "return":
        assert info["score"] == pytest.approx(total)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_two_level_seeds_give_two_maps(spec, make_env):
    unwrapped = make_env(spec.id).unwrapped
    maps = [dict(read_lumps(unwrapped.build_levels_wad(seed, 1)))["TEXTMAP"] for seed in (11, 12, 11)]
    assert maps[0] != maps[1] and maps[0] == maps[2]
    _, info = unwrapped.reset(seed=0, options={"level_seed": 12})
    assert info["level_seed"] == 12
