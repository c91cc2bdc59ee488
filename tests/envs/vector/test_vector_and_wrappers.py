"""ItemsEnv inside vector envs (Gymnasium sync/async, SB3 SubprocVecEnv), pickled, and under RecordVideo."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import RecordVideo
from stable_baselines3.common.vec_env import SubprocVecEnv


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec(mode, wad_cache):
    envs = gym.make_vec("DoomItems-v0", num_envs=2, vectorization_mode=mode, cache_dir=wad_cache)
    try:
        observations, infos = envs.reset(seed=[3, 4])
        assert observations.shape == (2, 60, 80, 1) and observations.dtype == np.uint8
        assert infos["items_total"].tolist() == [10, 10]
        assert not np.array_equal(infos["item_positions"][0], infos["item_positions"][1])
        for _ in range(5):
            observations, rewards, terminated, truncated, infos = envs.step(envs.action_space.sample())
        assert rewards.shape == (2,) and not truncated.any()
    finally:
        envs.close()


def make_default_env(cache_dir):
    # "wadgym:" imports wadgym (registering the envs) in worker processes that never imported it.
    return lambda: gym.make("wadgym:DoomItems-v0", cache_dir=cache_dir)


def test_sb3_subproc_vec_env(wad_cache):
    envs = SubprocVecEnv([make_default_env(wad_cache)] * 2)
    try:
        envs.seed(11)
        observations = envs.reset()
        assert observations.shape == (2, 60, 80, 1)
        observations, rewards, dones, infos = envs.step(np.array([0, 3]))
        assert rewards.shape == (2,) and infos[0]["items_total"] == 10
    finally:
        envs.close()


def test_env_pickles_into_a_working_copy(make_env):
    env = make_env("DoomItems-v0", n_items=4)
    first = env.unwrapped.reset(seed=2)[1]["item_positions"]
    copy = pickle.loads(pickle.dumps(env.unwrapped))
    try:
        assert copy.params == env.unwrapped.params
        np.testing.assert_array_equal(copy.reset(seed=2)[1]["item_positions"], first)
    finally:
        copy.close()


def test_record_video_writes_an_mp4(make_env, tmp_path):
    folder = tmp_path / "videos"
    env = RecordVideo(make_env("DoomItems-v0", render_mode="rgb_array", max_episode_steps=12), str(folder),
                      episode_trigger=lambda episode: True, disable_logger=True)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done = terminated or truncated
    env.close()
    videos = list(folder.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
