"""wadgym's vector env (wadgym.envs.vector.EnvThreads) as a Stable-Baselines3 VecEnv: what `wadgym train`
collects with by default.

A module of its own because importing Stable-Baselines3 imports torch, which Gymnasium users of
wadgym.envs.vector need not load.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from copy import deepcopy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.env_util import is_wrapped
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices
from stable_baselines3.common.vec_env.patch_gym import _patch_env
from stable_baselines3.common.vec_env.util import obs_space_info

from wadgym.envs.vector.threads import EnvThreads, make_envs


class ThreadVecEnv(VecEnv):
    """N envs stepped at once by threads in this process, with DummyVecEnv's arguments, outputs and
    exceptions: one action per env (`actions[i]`, whatever the action space; extra actions are ignored,
    too few raise IndexError); an episode's end resets the env in the same step, its last observation
    (the env's own object) in `infos[i]["terminal_observation"]` and `infos[i]["TimeLimit.truncated"]`
    set in the env's info dict; infos returned as deep copies; the reset's info in `reset_infos[i]`;
    observations batched into arrays as DummyVecEnv batches them (an OrderedDict for Dict spaces, a
    tuple for Tuple spaces; nested and non-array spaces refused with DummyVecEnv's errors); `seed()` and
    `set_options()` apply at the next `reset()` (options passed to an env's reset only when set);
    `metadata` is env 0's; `env_method`, `get_attr`, `set_attr` (on the outermost wrapper),
    `env_is_wrapped` and `render`/`get_images` reach every env.

    An env that raises (or whose engine dies) makes step/reset raise wadgym.envs.vector.VectorEnvError,
    naming the env's index and the cause, an instance of the cause's type too (DummyVecEnv raises the
    env's exception itself). Where DummyVecEnv steps the envs before a failing one and not those after
    it, here every other env has made its step. `pin` as in EnvThreads.
    """

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], pin: bool | None = None):
        self.envs = make_envs(env_fns, make=lambda factory: _patch_env(factory()))
        try:
            env = self.envs[0]
            super().__init__(len(self.envs), env.observation_space, env.action_space)
            self.keys, shapes, dtypes = obs_space_info(env.observation_space)  # DummyVecEnv's errors
            buffers = [np.zeros((self.num_envs, *tuple(shapes[key])), dtype=dtypes[key]) for key in self.keys]
        except BaseException:
            for env in self.envs:
                env.close()
            raise
        if isinstance(self.observation_space, spaces.Dict):
            batch = OrderedDict(zip(self.keys, buffers))
        elif isinstance(self.observation_space, spaces.Tuple):
            batch = tuple(buffers)
        else:
            batch = buffers[0]
        self.buf_rews = np.zeros(self.num_envs, dtype=np.float32)
        self.buf_dones = np.zeros(self.num_envs, dtype=bool)
        self.buf_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self.metadata = env.metadata
        self.threads = EnvThreads(self.envs, batch, env.observation_space, pin=pin)

    # -- the jobs (each runs on env i's own thread) -------------------------------------------------

    def _reset_job(self, i: int, seed: int | None, options: dict[str, Any]) -> None:
        maybe_options = {"options": options} if options else {}
        observation, self.reset_infos[i] = self.envs[i].reset(seed=seed, **maybe_options)
        self.threads.write(i, observation)

    def _step_job(self, i: int, action) -> None:
        env, threads = self.envs[i], self.threads
        observation, self.buf_rews[i], terminated, truncated, info = env.step(action)
        self.buf_dones[i] = terminated or truncated
        info["TimeLimit.truncated"] = truncated and not terminated
        if self.buf_dones[i]:
            info["terminal_observation"] = threads.own(i, observation)
            observation, self.reset_infos[i] = env.reset()
        threads.write(i, observation)
        self.buf_infos[i] = snapshot(info)  # DummyVecEnv returns deep copies; made here, while other engines work

    # -- VecEnv ---------------------------------------------------------------------------------------

    def reset(self):
        self.threads.run("reset", self._reset_job, list(zip(self._seeds, self._options)))
        self._reset_seeds()
        self._reset_options()
        return self._observations()

    def step_async(self, actions: np.ndarray) -> None:
        try:
            actions = [actions[i] for i in range(self.num_envs)]  # one per env, as DummyVecEnv reads them
        except IndexError as error:
            raise IndexError(f"actions must hold one action per env ({self.num_envs}): {error}") from error
        self.threads.start_step(actions, self._step_job)

    def step_wait(self):
        self.threads.wait()
        return self._observations(), self.buf_rews.copy(), self.buf_dones.copy(), list(self.buf_infos)

    def _observations(self):
        batch = self.threads.observations
        if isinstance(batch, dict):
            return OrderedDict((key, value.copy()) for key, value in batch.items())
        if isinstance(batch, tuple):
            return tuple(value.copy() for value in batch)
        return batch.copy()

    def close(self) -> None:
        self.threads.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.render_mode != "rgb_array":
            warnings.warn(f"The render mode is {self.render_mode}, but get_images needs `rgb_array` to obtain "
                          "images.", stacklevel=2)
            return [None] * self.num_envs
        return [env.render() for env in self.envs]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [self.envs[i].get_wrapper_attr(attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        for i in self._get_indices(indices):
            setattr(self.envs[i], attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """Each env's method (looked up here: a missing one raises AttributeError), called on its thread."""
        indices = list(self._get_indices(indices))
        methods = [self.envs[i].get_wrapper_attr(method_name) for i in indices]
        return self.threads.call(methods, indices, method_args, method_kwargs)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [is_wrapped(self.envs[i], wrapper_class) for i in self._get_indices(indices)]


IMMUTABLE = frozenset((int, float, bool, complex, str, bytes, type(None)))


def snapshot(value):
    """copy.deepcopy(value), faster for what infos hold: dicts, lists and tuples of numbers, strings and numpy
    arrays and scalars (anything else by deepcopy)."""
    kind = type(value)
    if kind is dict:  # the common case, its items inline
        copied = {}
        for key, item in value.items():
            kind = type(item)
            if kind in IMMUTABLE:
                copied[key] = item
            elif kind is np.ndarray and item.dtype.kind != "O":
                copied[key] = item.copy(order="K")
            else:
                copied[key] = snapshot(item)
        return copied
    if kind in IMMUTABLE or isinstance(value, np.generic):
        return value
    if kind is np.ndarray and value.dtype.kind != "O":
        return value.copy(order="K")
    if kind is list:
        return [snapshot(item) for item in value]
    if kind is tuple:
        return tuple(snapshot(item) for item in value)
    return deepcopy(value)
