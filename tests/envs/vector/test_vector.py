"""wadgym's thread vector env on the real engine: gym.make_vec's default for our ids, the same episodes as
N single envs (SyncVectorEnv, DummyVecEnv) for the same seeds, batched Dict observations, buffers and
frames, failures named by env index, and no engine left behind."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import gymnasium as gym
import numpy as np
import psutil
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from wadgym.envs.registration import ENVS
from wadgym.envs.runtime.engine import child_engines
from wadgym.envs.vector import ThreadVectorEnv, VectorEnvError, batch_infos, make_vector_env
from wadgym.envs.vector.sb3 import ThreadVecEnv

# Two levels (each reset draws one from np_random) and short episodes: several autoresets in a few steps.
LEVELS = {"num_levels": 2, "max_episode_steps": 7}
STEPS = 18


def engines() -> set[int]:
    """Pids of the engines this process started and that still run."""
    return {engine.pid for engine in child_engines()}


def still_running(pids, seconds: float = 5.0) -> set[int]:
    """Those of `pids` still running (not zombies) after up to `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        running = set()
        for pid in pids:
            with contextlib.suppress(psutil.Error):
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    running.add(pid)
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.05)


def assert_same(a, b):
    """Observations, infos or any nest of arrays, dicts and values: equal."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (np.ndarray, list, tuple)):
        assert len(a) == len(b)
        if isinstance(a, np.ndarray) and a.dtype != object:
            np.testing.assert_array_equal(a, b)
        else:
            for x, y in zip(a, b):
                assert_same(x, y)
    else:
        assert a == b


def test_every_id_has_it_as_vector_entry_point():
    for env_id in ENVS:
        entry_point = gym.spec(env_id).vector_entry_point
        assert entry_point.func is make_vector_env and entry_point.args == (env_id,)


def test_make_vec_returns_it_for_our_ids_and_sync_stays_available():
    envs = gym.make_vec("DoomItems-v0", num_envs=2)
    sync = gym.make_vec("DoomItems-v0", num_envs=2, vectorization_mode="sync")
    try:
        assert isinstance(envs.unwrapped, ThreadVectorEnv) and isinstance(sync, SyncVectorEnv)
        assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP and envs.spec.id == "DoomItems-v0"
        observations, infos = envs.reset(seed=3)
        assert observations.shape == (2, 60, 80, 1) and observations.dtype == np.uint8
        assert infos["items_total"].tolist() == [10, 10] and infos["_items_total"].all()
    finally:
        envs.close()
        sync.close()
    assert envs.closed


@pytest.mark.parametrize(("mode", "pin"), [(AutoresetMode.NEXT_STEP, True), (AutoresetMode.SAME_STEP, False)])
def test_same_seeds_play_the_same_episodes_as_single_envs(mode, pin):
    """SyncVectorEnv steps N single gym.make envs one after another: ours must match it step for step,
    observations, rewards, episode ends, autoresets and batched infos alike; pinned (a worker per CPU,
    stepping its share of the envs one after another: two of the three on a 2-CPU machine) or not (a
    thread per env)."""
    ours = gym.make_vec("DoomItems-v1", num_envs=3, autoreset_mode=mode, pin=pin, **LEVELS)
    sync = gym.make_vec("DoomItems-v1", num_envs=3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode},
                        **LEVELS)
    try:
        assert_same(ours.reset(seed=[5, 6, 7]), sync.reset(seed=[5, 6, 7]))
        actions = np.random.default_rng(0).integers(0, 5, (STEPS, 3))
        ended = 0
        for action in actions:
            result, expected = ours.step(action), sync.step(action)
            assert_same(result, expected)
            ended += int(np.sum(result[2] | result[3]))
        assert ended >= 6  # episodes ended and restarted on their own
        mask = np.array([True, False, True])
        assert_same(ours.reset(seed=[1, 2, 3], options={"reset_mask": mask}),
                    sync.reset(seed=[1, 2, 3], options={"reset_mask": mask}))
    finally:
        ours.close()
        sync.close()


def test_sb3_vec_env_matches_dummy_vec_env():
    def factories():
        return [lambda: Monitor(gym.make("DoomItems-v1", **LEVELS)) for _ in range(2)]

    ours, dummy = ThreadVecEnv(factories()), DummyVecEnv(factories())
    try:
        for venv in (ours, dummy):
            venv.seed(11)
        assert_same(ours.reset(), dummy.reset())
        assert_same(ours.reset_infos, dummy.reset_infos)
        episodes = 0
        for action in np.random.default_rng(1).integers(0, 5, (STEPS, 2)):
            observations, rewards, dones, infos = ours.step(action)
            expected = dummy.step(action)
            assert_same((observations, rewards, dones), expected[:3])
            assert rewards.dtype == expected[1].dtype
            for info, other in zip(infos, expected[3]):
                info, other = dict(info), dict(other)
                if "episode" in info:  # Monitor's wall-clock fields differ
                    assert info.pop("episode")["r"] == other.pop("episode")["r"]
                assert_same(info, other)
            assert_same(ours.reset_infos, dummy.reset_infos)
            episodes += sum("terminal_observation" in info for info in infos)
        assert episodes >= 4
        assert ours.get_attr("spec")[0].id == "DoomItems-v1"
        assert ours.env_method("reference_action") == dummy.env_method("reference_action")
        assert ours.env_method("get_wrapper_attr", "frame_skip", indices=[1]) == [4]
        for venv in (ours, dummy):  # on the outer wrapper (Monitor), as DummyVecEnv sets it
            venv.set_attr("step_penalty", 0.5, indices=0)
        assert ours.get_attr("step_penalty") == dummy.get_attr("step_penalty") == [0.5, 0.0]
        assert ours.envs[0].unwrapped.step_penalty == dummy.envs[0].unwrapped.step_penalty
        assert ours.env_is_wrapped(Monitor) == [True, True]
    finally:
        ours.close()
        dummy.close()


def test_terminal_observation_is_the_episode_s_last_frame():
    venv = ThreadVecEnv([lambda: gym.make("DoomItems-v0", max_episode_steps=3) for _ in range(2)])
    single = gym.make("DoomItems-v0", max_episode_steps=3)
    try:
        venv.seed(4)
        first = venv.reset()
        np.testing.assert_array_equal(first[0], single.reset(seed=4)[0])
        for _ in range(3):
            observations, _, dones, infos = venv.step(np.array([0, 1]))
            expected, _, terminated, truncated, _ = single.step(0)
        assert dones.all() and infos[0]["TimeLimit.truncated"] and truncated and not terminated
        np.testing.assert_array_equal(infos[0]["terminal_observation"], expected)
        assert not np.array_equal(observations[0], expected)  # already the next episode's first frame
    finally:
        venv.close()
        single.close()


def test_dict_observations_buffers_and_frames_are_batched():
    kwargs = {"game_variables": ("POSITION_X", "POSITION_Y"), "buffers": ("depth", "labels"), "color": True,
              "render_mode": "rgb_array"}
    ours = gym.make_vec("DoomItems-v0", num_envs=2, **kwargs)
    sync = gym.make_vec("DoomItems-v0", num_envs=2, vectorization_mode="sync", **kwargs)
    try:
        observations, _ = ours.reset(seed=8)
        assert_same(observations, sync.reset(seed=8)[0])
        assert set(observations) == {"screen", "depth", "labels", "gamevariables"}
        assert observations["screen"].shape == (2, 60, 80, 3) and observations["gamevariables"].dtype == np.float32
        for _ in range(4):
            assert_same(ours.step(np.array([0, 3])), sync.step(np.array([0, 3])))
        frames = ours.render()
        assert len(frames) == 2 and frames[0].shape == (120, 160, 3)
        assert_same(frames, sync.render())
    finally:
        ours.close()
        sync.close()


def test_engines_end_with_close_and_with_garbage_collection():
    before = engines()
    envs = gym.make_vec("DoomItems-v0", num_envs=2)
    envs.reset(seed=0)
    started = engines() - before
    assert len(started) == 2
    envs.close()
    assert still_running(started) == set()

    envs = gym.make_vec("DoomItems-v0", num_envs=2)
    envs.reset(seed=0)
    started = engines() - before
    del envs
    gc.collect()
    assert still_running(started) == set()


class FailAfter(gym.Wrapper):
    """Raises in the step after `steps` steps."""

    def __init__(self, env: gym.Env, steps: int):
        super().__init__(env)
        self.steps = steps

    def step(self, action):
        self.steps -= 1
        if self.steps < 0:
            raise RuntimeError("scenario failure")
        return self.env.step(action)


def test_an_env_that_raises_is_named_with_its_cause():
    envs = ThreadVectorEnv([lambda: gym.make("DoomItems-v0"), lambda: FailAfter(gym.make("DoomItems-v0"), 2),
                            lambda: gym.make("DoomItems-v0")])
    try:
        envs.reset(seed=0)
        envs.step(np.zeros(3, int))
        envs.step(np.zeros(3, int))
        with pytest.raises(VectorEnvError, match=r"env 1 of 3 failed in step: RuntimeError: scenario failure") as error:
            envs.step(np.zeros(3, int))
        assert error.value.index == 1 and isinstance(error.value.__cause__, RuntimeError)
    finally:
        envs.close()


def test_an_engine_that_dies_is_named():
    envs = gym.make_vec("DoomItems-v0", num_envs=2)
    try:
        before = engines()
        envs.reset(seed=0, options={"reset_mask": np.array([True, False])})
        first = engines() - before
        envs.reset(seed=0, options={"reset_mask": np.array([False, True])})
        (second,) = engines() - before - first
        os.kill(second, signal.SIGKILL)
        with pytest.raises(VectorEnvError, match=r"env 1 of 2 failed in step: ViZDoom\w*Exception"):
            envs.step(np.zeros(2, int))
    finally:
        envs.close()
    assert still_running(first) == set()


CRASHING_SCRIPT = """
import sys
import gymnasium as gym
import numpy as np
import wadgym

class FailAfter(gym.Wrapper):
    def step(self, action):
        raise RuntimeError("scenario failure")

envs = wadgym.envs.vector.ThreadVectorEnv(
    [lambda: gym.make("DoomItems-v0"), lambda: FailAfter(gym.make("DoomItems-v0")), lambda: gym.make("DoomItems-v0")])
envs.reset(seed=0)
print(len(wadgym.envs.runtime.engine.child_engines()), flush=True)
sys.stdin.readline()  # the test has seen the engines
envs.step(np.zeros(3, int))  # raises; nothing closes the envs but the exit
"""


def test_an_exception_mid_step_leaves_nothing_running(tmp_path, process_session):
    script = tmp_path / "crash.py"
    script.write_text(textwrap.dedent(CRASHING_SCRIPT))
    process = subprocess.Popen([sys.executable, str(script)], start_new_session=True, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    session = process_session(process.pid)
    assert process.stdout.readline().strip() == "3", process.communicate()
    engines = session.note_engines()
    out, err = process.communicate("go\n", timeout=120)
    assert process.returncode == 1
    assert "VectorEnvError: env 1 of 3 failed in step: RuntimeError: scenario failure" in err
    assert len(engines) == 3
    assert session.leftovers() == [] and session.segments() == []


def test_bad_arguments_raise_what_sync_vector_env_raises():
    with pytest.raises(ValueError, match="num_envs=0"):
        gym.make_vec("DoomItems-v0", num_envs=0)
    with pytest.raises(RuntimeError, match="observation spaces are not equivalent. env 1 has Box"):
        ThreadVectorEnv([lambda: gym.make("DoomItems-v0"), lambda: gym.make("DoomItems-v0", color=True)])
    env = gym.make("DoomItems-v0")
    with pytest.raises(ValueError, match=r"env_fns\[1\] returned an env made before"):
        ThreadVectorEnv([lambda: env, lambda: env])
    envs = gym.make_vec("DoomItems-v0", num_envs=2)
    try:
        with pytest.raises(ValueError, match="one action per env"):
            envs.step(np.zeros(3, int))
        with pytest.raises(TypeError, match="reset_mask"):
            envs.reset(options={"reset_mask": np.array([1, 0])})
    finally:
        envs.close()


class AddInfo(VectorEnv):
    """Gymnasium's own info batching (VectorEnv._add_info), entry by entry."""

    def __init__(self, num_envs: int):
        self.num_envs = num_envs

    def batch(self, entries):
        infos = {}
        for i, info in entries:
            infos = self._add_info(infos, info, i)
        return infos


def assert_same_batch(a, b):
    """Batched infos: the same keys in the same order, arrays of the same dtype and shape, equal values."""
    assert list(a) == list(b)
    for key in a:
        if isinstance(a[key], dict):
            assert_same_batch(a[key], b[key])
        else:
            assert (a[key].dtype, a[key].shape) == (b[key].dtype, b[key].shape), key
            assert_same(list(a[key]), list(b[key]))


def test_batched_infos_are_what_gymnasium_makes_of_them():
    def info(k):
        return {"score": k, "ratio": k / 2, "alive": k % 2 == 0, "tic": np.int32(k), "loss": np.float32(k) / 3,
                "map": f"L{k:07d}", "cells": np.arange(4, dtype=np.int16).reshape(2, 2) + k, "path": [k, k],
                "none": None, "nested": {"depth": k, "where": np.full(3, k, np.float32), "tag": "x" * k}}

    every = [(i, info(i)) for i in range(3)]
    mixed = [(0, {"v": 1}), (1, {"v": 2.5, "only_1": "a"}), (2, {"v": True})]  # the first value decides: ints
    final = [(1, {"final_obs": np.ones((2, 2), np.uint8), "final_info": info(7)}), (1, info(1)), (2, info(2))]
    ragged = [(0, {"a": np.zeros(2)}), (1, {"a": np.ones(2, np.float32)}), (2, {"a": np.ones((1, 2))})]
    for entries in (every, mixed, final, ragged, every[1:], every[::-1]):
        assert_same_batch(batch_infos(entries, 3), AddInfo(3).batch(entries))
    assert batch_infos([(0, {"a": {"b": 1}}), (1, {"a": 2})], 3) is None  # left to _add_info
