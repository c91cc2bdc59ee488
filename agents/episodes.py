"""Playing episodes: the one way `wadgym rollout`, `wadgym eval` and training's final evaluation play them
(SB3's evaluate_policy on a one-env VecEnv, one seeded episode at a time), the random and scripted policies
they compare with, and the videos they write.

A policy is an object with `reset(seed)`, called before each episode, and SB3's `predict(observations,
state, episode_start, deterministic) -> (actions, state)` on a VecEnv's observations. Needs no training
extras until play_episodes is called (video writing needs imageio).
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

    def predict(self, observation, state=None, episode_start=None, deterministic=False):
        return np.array([self.action_space.sample()]), None  # one env


def has_reference_policy(env) -> bool:
    """Whether a wadgym env's family wrote a scripted reference policy (DoomEnv.reference_action) that plays
    the env's map: none on a hand-made map (wad=), since the families' references read the plan of the levels
    they build."""
    from wadgym.envs.doom_env import DoomEnv

    env = env.unwrapped
    return (isinstance(env, DoomEnv) and type(env).reference_action is not DoomEnv.reference_action
            and env.hand_made is None)


class ScriptedPolicy:
    """The env's scripted reference policy (DoomEnv.reference_action): privileged information from the
    engine and the level's plan, no learning. The yardstick a trained policy is measured against."""

    def __init__(self, env):
        self.env = env.unwrapped
        if not has_reference_policy(self.env):
            raise ValueError(f"{type(self.env).__name__} has no scripted reference policy (reference_action)")

    def reset(self, seed: int | None = None) -> None:
        pass

    def predict(self, observation, state=None, episode_start=None, deterministic=False):
        return np.array([self.env.reference_action()]), None  # one env


def play_episode(env, policy, seed: int | None, frames: list | None = None) -> dict[str, Any]:
    """One episode on a plain gymnasium env, as play_episodes plays it on a VecEnv: what `wadgym rollout`
    uses for the random policy, which needs no training extras (no SB3). Appends env.render() after the
    reset and after every step to `frames` when given; returns what play_episodes does."""
    observation, info = env.reset(seed=seed)
    policy.reset(seed)
    if frames is not None:
        frames.append(env.render())
    total, length, done = 0.0, 0, False
    start = time.perf_counter()
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy.predict(observation)[0][0])
        total += float(reward)
        length += 1
        done = terminated or truncated
        if frames is not None:
            frames.append(env.render())
    return {"seed": seed, "return": total, "score": info.get("score", total), "level_seed": info.get("level_seed"),
            "length": length, "seconds": time.perf_counter() - start}


def play_episodes(venv, policy, seeds: list[int | None], frames: list | None = None) -> list[dict[str, Any]]:
    """One episode per seed on `venv` (one env; seed None: not reseeded) with SB3's evaluate_policy; with
    `frames`, the env's RecordFrames wrapper (agents.vec) appends its render() after the reset and after
    every step. Returns per episode: seed, return, score (info["score"]: the task's own measure; the return
    for envs without one), level_seed, length, seconds (its wall time, resets included), scenario_return
    (a ViZDoom scenario's own return, info["scenario_return"]; None elsewhere), opponents_median (the
    median of info["opponent_scores"], the scores of opponents that are not agents, e.g. bots; None
    without) and match (a deathmatch's figures in the field's units, info["match"]: frags, deaths, K/D,
    frags per minute, ...; None elsewhere)."""
    from stable_baselines3.common.evaluation import evaluate_policy

    end: dict[str, Any] = {}  # the info of the episode's last step

    def keep_last_info(local: dict[str, Any], _) -> None:
        if local["done"]:
            end.update(local["info"])

    episodes = []
    for seed in seeds:
        if seed is not None:
            venv.seed(seed)
        policy.reset(seed)
        if frames is not None:
            venv.set_attr("frames", frames)
        end.clear()
        start = time.perf_counter()
        returns, lengths = evaluate_policy(policy, venv, n_eval_episodes=1, return_episode_rewards=True,
                                           callback=keep_last_info, warn=False)
        episodes.append({"seed": seed, "return": float(returns[0]), "score": end.get("score", float(returns[0])),
                         "level_seed": end.get("level_seed"), "length": int(lengths[0]),
                         "seconds": time.perf_counter() - start, "scenario_return": end.get("scenario_return"),
                         "opponents_median": float(np.median(end["opponent_scores"]))
                         if end.get("opponent_scores") else None,
                         "match": dict(end["match"]) if end.get("match") else None})
    return episodes


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
