"""Build the environments training and evaluation use: gym.make, vectorised, frame-stacked, channel-first.

ViZDoom engines are child processes; a terminal's Ctrl-C reaches every process in the foreground
group and kills them, so engines are started with SIGINT ignored (inherited across exec) and only
the trainer's own handler sees Ctrl-C.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
from typing import Any

import gymnasium as gym
import numpy as np


class ScreenOnly(gym.ObservationWrapper):
    """Keeps the "screen" entry of a Dict observation (ViZDoom's own Gymnasium envs; a dev aid)."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.observation_space = env.observation_space["screen"]

    def observation(self, observation):
        return observation["screen"]


def register_envs(env_id: str) -> None:
    """Import what registers `env_id`: wadgym always, vizdoom's wrapper for its Vizdoom* ids."""
    importlib.import_module("wadgym.envs.registration")
    if env_id.split(":")[-1].startswith("Vizdoom"):
        importlib.import_module("vizdoom.gymnasium_wrapper")


def make_env(env_id: str, env_kwargs: dict[str, Any] | None = None, render_mode: str | None = None) -> gym.Env:
    """gym.make with wadgym's registrations loaded; an image (H, W, C) uint8 Box observation."""
    register_envs(env_id)
    if env_id not in gym.registry and ":" not in env_id:
        known = sorted(k for k in gym.registry if k.startswith(("Doom", "Vizdoom")))
        raise ValueError(f"unknown env {env_id!r}; registered Doom envs: {', '.join(known)}")
    kwargs = dict(env_kwargs or {})
    if render_mode is not None:
        kwargs["render_mode"] = render_mode
    env = gym.make(env_id, **kwargs)
    if isinstance(env.observation_space, gym.spaces.Dict) and "screen" in env.observation_space.spaces:
        env = ScreenOnly(env)
    space = env.observation_space
    if not (isinstance(space, gym.spaces.Box) and space.dtype == np.uint8 and len(space.shape) == 3):
        env.close()
        raise ValueError(f"{env_id}: training needs a uint8 (H, W, C) image observation, got {space}")
    return env


class EnvFactory:
    """Picklable `() -> env` for SubprocVecEnv workers; the worker ignores Ctrl-C (the trainer handles it)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], in_worker: bool):
        self.env_id, self.env_kwargs, self.in_worker = env_id, env_kwargs, in_worker

    def __call__(self) -> gym.Env:
        from stable_baselines3.common.monitor import Monitor

        if self.in_worker:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        return Monitor(make_env(self.env_id, self.env_kwargs))


@contextlib.contextmanager
def sigint_ignored():
    """Processes started inside (ViZDoom engines) ignore SIGINT; the previous handler is restored after."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def make_vec_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    n_envs: int,
    seed: int,
    frame_stack: int = 0,
    normalize: dict[str, Any] | None = None,
):
    """n_envs Monitor-wrapped envs (SubprocVecEnv, or DummyVecEnv for one), frame-stacked and channel-first."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecNormalize

    with sigint_ignored():
        if n_envs == 1:
            venv = DummyVecEnv([EnvFactory(env_id, env_kwargs, in_worker=False)])
        else:
            venv = SubprocVecEnv([EnvFactory(env_id, env_kwargs, in_worker=True) for _ in range(n_envs)])
        venv.seed(seed)
        venv = wrap_observations(venv, frame_stack)
        if normalize is not None:
            venv = VecNormalize(venv, **normalize)
        venv.reset()  # engines that start on the first reset start here, shielded from Ctrl-C
    return venv


def wrap_observations(venv, frame_stack: int):
    """The observation pipeline shared by training, evaluation and export: stack, then channel-first."""
    from stable_baselines3.common.vec_env import VecFrameStack, VecTransposeImage

    if frame_stack and frame_stack > 1:
        venv = VecFrameStack(venv, n_stack=frame_stack)
    return VecTransposeImage(venv)
