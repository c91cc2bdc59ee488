"""Evaluate a training run on fixed seeded episodes, beside a random policy on the same seeds (`wadgym eval`,
wired in wadgym.cli.eval).

Episode i of both policies starts with reset(seed=seed+i), so both play the same level and start.
Each episode's score is the env's own measure (info["score"]: items, kills, ...). The "test" levels are
held out: level seeds from TEST_START_LEVEL on, which no training range reaches.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from wadgym.agents.policy import SavedPolicy


def run_episodes(
    env_id: str,
    env_kwargs: dict[str, Any],
    seeds: list[int],
    policy: SavedPolicy | str | None,
    video: str | Path | None = None,
) -> list[dict[str, Any]]:
    """One episode per seed with `policy` (a SavedPolicy, on the env it makes; None or "random": the random
    policy; "scripted": the env's scripted reference). Returns per-episode seed, level seed, score, return
    and length; records the first episode's frames to `video`."""
    from wadgym.agents.episodes import RandomPolicy, ScriptedPolicy, play_episodes, video_fps, write_video
    from wadgym.agents.vec import build_vec_env, close_vec_env

    render_mode = "rgb_array" if video else None
    if policy is None or policy in ("random", "scripted"):
        venv = build_vec_env(env_id, env_kwargs, 1, None, vec_env="dummy", training=False, render_mode=render_mode)
        env = venv.unwrapped.envs[0]
        policy = ScriptedPolicy(env) if policy == "scripted" else RandomPolicy(env.action_space)
    else:
        venv = policy.make_vec_env(env_kwargs, render_mode)
    frames: list | None = [] if video else None
    try:
        episodes = play_episodes(venv, policy, seeds[:1], frames) + play_episodes(venv, policy, seeds[1:])
    finally:
        close_vec_env(venv)
    if video is not None:
        write_video(Path(video), frames, video_fps(venv.unwrapped.envs[0]))
    return [{key: episode[key] for key in ("seed", "level_seed", "score", "return", "length")} for episode in episodes]


def summarize(episodes: list[dict[str, Any]]) -> dict[str, Any]:
    def stats(key):
        values = [e[key] for e in episodes if e[key] is not None]
        if not values:
            return None, None
        return float(np.mean(values)), float(np.std(values))

    score_mean, score_std = stats("score")
    return_mean, return_std = stats("return")
    return {
        "score_mean": score_mean,
        "score_std": score_std,
        "return_mean": return_mean,
        "return_std": return_std,
        "length_mean": float(np.mean([e["length"] for e in episodes])),
        "episodes": episodes,
    }


TEST_START_LEVEL = 10_000  # held-out levels start here: training ranges must end before it
LEVEL_SPLITS = ("test", "train")


def default_split(env_id: str, env_kwargs: dict[str, Any]) -> str:
    """"test" when the run's training levels leave the test levels unseen, else "train"."""
    try:
        split_kwargs(env_id, env_kwargs, "test")
    except ValueError:
        return "train"
    return "test"


def split_kwargs(env_id: str, env_kwargs: dict[str, Any], levels: str) -> dict[str, Any]:
    """The env kwargs that play a split: "train" as trained; "test" the unlimited levels from
    TEST_START_LEVEL on, after checking the training range (the id's and the run's kwargs) ends before them."""
    import gymnasium as gym

    from wadgym.agents.vec import register_envs
    from wadgym.envs.registration import env_id_for

    if levels not in LEVEL_SPLITS:
        raise ValueError(f"levels={levels!r} is not valid; choose one of {', '.join(LEVEL_SPLITS)}")
    if levels == "train":
        return dict(env_kwargs)
    register_envs(env_id)
    trained = {**(gym.spec(env_id_for(env_id)).kwargs or {}), **env_kwargs}
    check_held_out(int(trained.get("start_level", 0)), int(trained.get("num_levels", 0)))
    return {**env_kwargs, "start_level": TEST_START_LEVEL, "num_levels": 0}


def check_held_out(first: int, count: int) -> None:
    """A ValueError unless the training range `first`, `count` (0: unlimited) ends before the test levels."""
    if count == 0 or first + count > TEST_START_LEVEL:
        raise ValueError(f"the run trained on levels {first}..{first + count - 1 if count else 'unlimited'}, "
                         f"which overlap the test levels (from {TEST_START_LEVEL}); use --levels train")


def compare_with_random(policy, episodes: int, seed: int, video: str | Path | None = None,
                        levels: str = "test") -> dict[str, Any]:
    """The trained policy and a random one on seeds seed..seed+episodes-1 of the `levels` split."""
    seeds = [seed + i for i in range(episodes)]
    env_kwargs = split_kwargs(policy.env_id, policy.env_kwargs, levels)
    start = time.perf_counter()
    trained = summarize(run_episodes(policy.env_id, env_kwargs, seeds, policy, video=video))
    random = summarize(run_episodes(policy.env_id, env_kwargs, seeds, None))
    from wadgym.envs.registration import score_name

    ratio = trained["score_mean"] / random["score_mean"] if random["score_mean"] else None
    return {
        "env": policy.env_id,
        "score_name": score_name(policy.env_id),
        "model": str(policy.model_file),
        "episodes": episodes,
        "levels": levels,
        "seeds": [seeds[0], seeds[-1]],
        "deterministic": policy.deterministic,
        "trained": trained,
        "random": random,
        "score_ratio": ratio,
        "eval_seconds": time.perf_counter() - start,
    }


def format_comparison(result: dict[str, Any]) -> str:
    def line(name, s):
        score = f"{s['score_mean']:6.2f} ± {s['score_std']:5.2f}"
        return f"{name:<8} {score:>16} {s['return_mean']:9.2f} ± {s['return_std']:7.2f} {s['length_mean']:9.1f}"

    seeds = result["seeds"]
    lines = [
        f"{result['env']}: {result['episodes']} episodes on {result['levels']} levels, seeds {seeds[0]}..{seeds[1]}"
        f" ({'deterministic' if result['deterministic'] else 'sampled'} actions)",
        f"{'policy':<8} {result['score_name'] + '/episode':>16} {'return':>19} {'length':>9}",
        line("trained", result["trained"]),
        line("random", result["random"]),
    ]
    if result["score_ratio"] is not None:
        lines.append(f"{result['score_name']} trained/random: {result['score_ratio']:.2f}x")
    return "\n".join(lines)
