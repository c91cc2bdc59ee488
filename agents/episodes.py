"""Playing episodes: the one way `wadgym rollout`, `wadgym eval` and training's final evaluation play them
(SB3's evaluate_policy on a one-env VecEnv, one seeded episode at a time), the random and scripted policies
they compare with, and the videos and path drawings (`wadgym eval --trace`) they write.

A policy is an object with `reset(seed)`, called before each episode, and SB3's `predict(observations,
state, episode_start, deterministic) -> (actions, state)` on a VecEnv's observations. Needs no training
extras until play_episodes is called (video writing needs imageio).
"""

from __future__ import annotations

import copy
import functools
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


def play_episodes(venv, policy, seeds: list[int | None], frames: list | None = None,
                  paths: list | None = None) -> list[dict[str, Any]]:
    """One episode per seed on `venv` (one env; seed None: not reseeded) with SB3's evaluate_policy; with `frames`,
    the env's RecordFrames wrapper (agents.vec) appends its render() after the reset and after every step; with
    `paths`, each episode's path is appended to it: the player's x, y after every step (info["position"]), its map
    (info["map"]) and that map's walls (map_walls), seed and score (plot_paths draws them). Returns per episode:
    seed, return, score (info["score"]: the task's own measure; the return for envs without one), level_seed,
    length, seconds (its wall time, resets included), scenario_return (a ViZDoom scenario's own return,
    info["scenario_return"]; None elsewhere), opponents_median (the median of info["opponent_scores"], the scores of
    opponents that are not agents, e.g. bots; None without) and match (a deathmatch's figures in the field's units,
    info["match"]: frags, deaths, K/D, frags per minute, ...; None elsewhere)."""
    from stable_baselines3.common.evaluation import evaluate_policy

    end: dict[str, Any] = {}  # the info of the episode's last step
    positions: list[tuple[float, float]] = []
    walls: list = []

    def keep_last_info(local: dict[str, Any], _) -> None:
        if paths is not None and local["info"].get("position") is not None:
            if not positions:  # the episode's first step: the WAD of its level is the env's now
                walls[:] = map_walls(venv.get_attr("wad_path")[0], local["info"].get("map"))
            positions.append(tuple(float(v) for v in local["info"]["position"][:2]))
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
        positions.clear()
        start = time.perf_counter()
        returns, lengths = evaluate_policy(policy, venv, n_eval_episodes=1, return_episode_rewards=True,
                                           callback=keep_last_info, warn=False)
        episodes.append({"seed": seed, "return": float(returns[0]), "score": end.get("score", float(returns[0])),
                         "level_seed": end.get("level_seed"), "length": int(lengths[0]),
                         "seconds": time.perf_counter() - start, "scenario_return": end.get("scenario_return"),
                         "opponents_median": float(np.median(end["opponent_scores"]))
                         if end.get("opponent_scores") else None,
                         "match": dict(end["match"]) if end.get("match") else None})
        if paths is not None:
            paths.append({"seed": seed, "score": episodes[-1]["score"], "map": end.get("map"), "walls": list(walls),
                          "positions": list(positions)})
    return episodes


def map_walls(wad: str | Path | None, name: str | None) -> list[tuple[float, float, float, float, bool]]:
    """The lines of map `name` of the WAD at `wad` (wadgym.wads.mapread's MapSummary.walls), read while the map
    is played (an unlimited level range keeps each level's WAD only while it is played); none when either is
    unknown."""
    if wad is None or name is None:
        return []
    stat = Path(wad).stat()
    summary = _read_maps(str(wad), stat.st_mtime_ns, stat.st_size).get(str(name).upper())
    return list(summary.walls) if summary is not None else []


@functools.lru_cache(maxsize=4)
def _read_maps(wad: str, mtime_ns: int, size: int) -> dict[str, Any]:
    """read_maps, once per version of a file (a level range's WAD holds hundreds of maps)."""
    from wadgym.wads.mapread import read_maps

    return read_maps(wad)


MAX_PATH_PANELS = 12


def step_length(positions: list[tuple[float, float]]) -> float:
    """The mean distance (map units) the player moved per step: near 0 for one that stands, turns or pushes
    against a wall; a walking player covers about 10-20 at frame_skip 4."""
    if len(positions) < 2:
        return 0.0
    return float(np.linalg.norm(np.diff(np.asarray(positions, dtype=float), axis=0), axis=1).mean())


def plot_paths(paths: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    """Where the player went (play_episodes' `paths`), over the map's lines (one-sided lines, the walls, in
    black; the others in grey): one panel per map (a hand-made map: one, with every episode; generated levels:
    one per level, the first MAX_PATH_PANELS), each path from its start (a dot) to its end (a cross), labelled
    with its seed, score and step_length."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    maps: dict[tuple[str, tuple], list[dict[str, Any]]] = {}
    for episode in paths:  # a map: its name and lines (generated levels of two ranges may share a name)
        maps.setdefault((str(episode["map"]), tuple(map(tuple, episode["walls"]))), []).append(episode)
    shown = list(maps.items())[:MAX_PATH_PANELS]
    columns = min(len(shown), 4) or 1
    rows = max(1, -(-len(shown) // columns))
    size = 4 if len(shown) > 1 else 6
    fig, axes = plt.subplots(rows, columns, figsize=(size * columns, size * rows), dpi=90, squeeze=False)
    for ax, ((name, walls), episodes) in zip(axes.flat, shown):
        for x1, y1, x2, y2, wall in walls:
            ax.plot([x1, x2], [y1, y2], color="black" if wall else "0.75", linewidth=0.8 if wall else 0.5)
        for episode in episodes:
            xy = np.asarray(episode["positions"], dtype=float).reshape(-1, 2)
            if not len(xy):
                continue
            (line,) = ax.plot(xy[:, 0], xy[:, 1], linewidth=1,
                              label=f"seed {episode['seed']}: {episode['score']:g}, "
                                    f"{step_length(episode['positions']):.1f}/step")
            ax.plot(*xy[0], "o", color=line.get_color(), markersize=4)
            ax.plot(*xy[-1], "x", color=line.get_color(), markersize=5)
        ax.set_aspect("equal")
        ax.set_title(name, fontsize=8)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=6, loc="best")
    for ax in list(axes.flat)[len(shown):]:
        ax.axis("off")
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    from wadgym.agents.runfolder import write_png

    return write_png(path, fig)


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
