"""wadgym's vector env (wadgym.envs.vector.EnvThreads) as a Stable-Baselines3 VecEnv: what `wadgym train`
collects with by default.

A module of its own because importing Stable-Baselines3 imports torch, which Gymnasium users of
wadgym.envs.vector need not load.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.env_util import is_wrapped
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

from wadgym.envs.vector import EnvThreads, copy_observation


class ThreadVecEnv(VecEnv):
    """N envs stepped at once by threads in this process, with DummyVecEnv's and SubprocVecEnv's interface:
    an episode's end resets the env in the same step, its last observation in
    `infos[i]["terminal_observation"]` and `infos[i]["TimeLimit.truncated"]` set; the reset's info in
    `reset_infos[i]`; `seed()` and `set_options()` apply at the next `reset()`; `env_method`, `get_attr`,
    `set_attr`, `env_is_wrapped` and `render`/`get_images` reach every env.

    An env that raises (or whose engine dies) makes step/reset raise wadgym.envs.vector.VectorEnvError,
    naming the env's index and the cause. `pin` as in EnvThreads.
    """

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], pin: bool | None = None):
        self.threads = EnvThreads(env_fns, AutoresetMode.SAME_STEP, pin)
        self.envs = self.threads.envs
        super().__init__(self.threads.num_envs, self.threads.single_observation_space,
                         self.threads.single_action_space)

    def reset(self):
        threads = self.threads
        threads.reset(self._seeds, [options or None for options in self._options])
        self.reset_infos = list(threads.infos)
        self._reset_seeds()
        self._reset_options()
        return copy_observation(threads.observations)

    def step_async(self, actions: np.ndarray) -> None:
        self.threads.start_step(actions)

    def step_wait(self):
        threads = self.threads
        threads.wait()
        infos = []
        for i, (info, final) in enumerate(zip(threads.infos, threads.finals)):
            truncated = bool(threads.truncations[i] and not threads.terminations[i])
            if final is None:
                infos.append({**info, "TimeLimit.truncated": truncated})
            else:  # the episode ended: `info` is the next episode's reset info
                observation, final_info = final
                infos.append({**final_info, "TimeLimit.truncated": truncated, "terminal_observation": observation})
                self.reset_infos[i] = info
        dones = threads.terminations | threads.truncations
        return copy_observation(threads.observations), threads.rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.threads.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.render_mode != "rgb_array":
            gym.logger.warn(f"render_mode is {self.render_mode!r}; get_images needs render_mode='rgb_array'")
            return [None] * self.num_envs
        return [env.render() for env in self.envs]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [self.envs[i].get_wrapper_attr(attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        for i in self._get_indices(indices):
            self.envs[i].set_wrapper_attr(attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        return self.threads.call(method_name, *method_args, indices=list(self._get_indices(indices)), **method_kwargs)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [is_wrapped(self.envs[i], wrapper_class) for i in self._get_indices(indices)]
