"""Playing episodes: the one loop `wadgym rollout` and `wadgym eval` share, the random policy they compare
with, and the videos they write.

A policy is an object with `reset(seed)`, called after each env.reset(seed=seed), and
`policy(observation) -> action`. Needs no training extras (video writing needs imageio).
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import numpy as np


class RandomPolicy:
    """Uniform random actions. The action space is reseeded with each episode's seed, so "the random
    policy on seed s" is one and the same episode in rollout, eval and train's final evaluation."""

    def __init__(self, action_space):
        self.action_space = copy.deepcopy(action_space)  # seeding it leaves the env's own space alone

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.action_space.seed(seed)

    def __call__(self, observation) -> Any:
        return self.action_space.sample()


def has_reference_policy(env) -> bool:
    """Whether a wadgym env's family wrote a scripted reference policy (DoomEnv.reference_action)."""
    from wadgym.envs.doom_env import DoomEnv

    env = env.unwrapped
    return isinstance(env, DoomEnv) and type(env).reference_action is not DoomEnv.reference_action


class ScriptedPolicy:
    """The env's scripted reference policy (DoomEnv.reference_action): privileged information from the
    engine and the level's plan, no learning. The yardstick a trained policy is measured against."""

    def __init__(self, env):
        self.env = env.unwrapped
        if not has_reference_policy(self.env):
            raise ValueError(f"{type(self.env).__name__} has no scripted reference policy (reference_action)")

    def reset(self, seed: int | None = None) -> None:
        pass

    def __call__(self, observation) -> Any:
        return self.env.reference_action()


def play_episode(env, policy, seed: int | None, frames: list | None = None) -> dict[str, Any]:
    """One episode from env.reset(seed=seed) to its end; appends env.render() after the reset and after
    every step to `frames` when given. Returns seed, return, score (info["score"]: the task's own measure;
    the return for envs without one), level_seed, length and seconds (the steps' wall time)."""
    observation, info = env.reset(seed=seed)
    policy.reset(seed)
    if frames is not None:
        frames.append(env.render())
    total, length, done = 0.0, 0, False
    start = time.perf_counter()
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy(observation))
        total += float(reward)
        length += 1
        done = terminated or truncated
        if frames is not None:
            frames.append(env.render())
    return {"seed": seed, "return": total, "score": info.get("score", total), "level_seed": info.get("level_seed"),
            "length": length, "seconds": time.perf_counter() - start}


def video_fps(env) -> float:
    """Frames per second of a video of `env`, one frame a step: its render_fps (35 / frame_skip for wadgym's)."""
    return float(env.metadata.get("render_fps") or 35)


def write_video(path: Path, frames: list[np.ndarray], fps: float) -> None:
    """MP4 (H.264 via imageio-ffmpeg), written under a temporary name then renamed."""
    import imageio.v2 as imageio

    from wadgym.files import atomic_path

    if not frames:
        raise ValueError("no frames to write")
    with atomic_path(path) as temporary, imageio.get_writer(temporary, fps=fps, macro_block_size=8) as writer:
        for frame in frames:
            writer.append_data(np.asarray(frame))
