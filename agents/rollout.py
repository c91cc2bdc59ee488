"""`wadgym rollout ENV_ID`: run episodes headless with a random (or saved) policy, as a CI job would.

Prints per episode the return, the score (the env's own measure: items, kills, ...), length and steps/s; `--video` writes them
all to one MP4. With `--policy RUN` the env is made as the run's training made it (its env kwargs,
then any -k on top); the random policy plays episode i with seed SEED+i exactly as `wadgym eval` does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def load_policy(spec: str):
    """None for "random" (the env's random policy), else the SavedPolicy of a run folder."""
    if spec == "random":
        return None
    if (Path(spec) / "config.yml").is_file():
        from wadgym.agents.policy import SavedPolicy

        return SavedPolicy(spec)
    raise ValueError(f"--policy {spec!r}: unknown policy; valid: 'random' or a run folder made by `wadgym train`")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", help="a registered env id, e.g. DoomItems-v1")
    parser.add_argument("--episodes", type=int, default=3, help="number of episodes (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="episode i is reset with seed SEED + i")
    parser.add_argument("--video", metavar="FILE.mp4", help="write every episode's frames to this MP4")
    parser.add_argument("--policy", default="random", help="'random' (default) or a run folder made by `wadgym train`")
    parser.add_argument("--env-kwarg", "-k", action="append", default=[], metavar="KEY=VALUE",
                        help="an env argument, repeatable, e.g. -k n_items=5 -k color=true -k 'resolution=(30, 40)'")


def run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from wadgym.agents.selfplay import is_multi

    if is_multi(args.env_id):  # several players: each one's view side by side in the video
        from wadgym.agents.selfplay import rollout
        from wadgym.envs.kwargs import parse_assignments

        try:
            return rollout(args, parse_assignments(args.env_kwarg, "-k"))
        except ValueError as error:
            print(f"wadgym rollout: error: {error}", file=sys.stderr)
            return 2

    from wadgym.agents.episodes import RandomPolicy
    from wadgym.agents.vec import gym_make, make_env
    from wadgym.envs.kwargs import parse_assignments

    try:
        if args.episodes < 1:
            raise ValueError(f"--episodes {args.episodes}: must be at least 1")
        if args.video:
            check_output_file(args.video, "--video")
        policy = load_policy(args.policy)
        env_kwargs = {**(policy.env_kwargs if policy else {}), **parse_assignments(args.env_kwarg, "-k")}
        render_mode = "rgb_array" if args.video else None
        make = make_env if policy else gym_make  # a policy sees the screen only, as in training
        env = make(args.env_id, env_kwargs, render_mode)
    except (ValueError, gym.error.Error) as error:
        print(f"wadgym rollout: error: {error}", file=sys.stderr)
        return 2
    except ImportError as error:  # "module:Env-v0" ids import their module
        print(f"wadgym rollout: error: cannot import the env's module: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # e.g. an unwritable cache folder
        print(f"wadgym rollout: error: {error}", file=sys.stderr)
        return 2
    try:
        policy = policy.check_env(env) if policy else RandomPolicy(env.action_space)
        frames: list | None = [] if args.video else None
        run_episodes(env, policy, args.episodes, args.seed, frames)
    except ValueError as error:
        print(f"wadgym rollout: error: {error}", file=sys.stderr)
        return 2
    finally:
        env.close()
    if args.video:
        from wadgym.agents.episodes import video_fps, write_video

        write_video(Path(args.video), frames, video_fps(env))
        print(f"wrote {args.video} ({len(frames)} frames)")
    return 0


def check_output_file(path: str, option: str) -> None:
    """A ValueError unless `path` can be written: its folder exists and is writable, it is no folder."""
    import os

    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ValueError(f"{option} {path}: is a folder, not a file")
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{option} {path}: the folder {str(folder)!r} is not writable")


def run_episodes(env, policy, episodes: int, seed: int | None, frames: list | None) -> list[dict[str, Any]]:
    """Run and print `episodes` episodes (episode i reset with seed + i), then their means."""
    from wadgym.agents.episodes import play_episode

    print(f"{'episode':>7} {'seed':>6} {'level':>10} {'return':>8} {'score':>7} {'length':>7} {'steps/s':>8}")
    results = []
    for episode in range(episodes):
        r = play_episode(env, policy, None if seed is None else seed + episode, frames)
        r["steps_per_second"] = r["length"] / r["seconds"] if r["seconds"] > 0 else float("inf")
        results.append(r)
        level = "-" if r["level_seed"] is None else r["level_seed"]
        print(f"{episode:>7} {str(r['seed']):>6} {level:>10} {r['return']:>8.2f} {r['score']:>7.4g} {r['length']:>7} "
              f"{r['steps_per_second']:>8.0f}")
    mean = {k: _mean([r[k] for r in results]) for k in ("return", "score", "length", "steps_per_second")}
    print(f"{'mean':>7} {'':>6} {'':>10} {mean['return']:>8.2f} {mean['score']:>7.2f} {mean['length']:>7.1f} "
          f"{mean['steps_per_second']:>8.0f}")
    return results


def _mean(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None
