"""`wadgym rollout ENV_ID`: run episodes headless with a random (or saved) policy, as a CI job would.

Prints per episode the return, items collected, length and steps per second; `--video` writes them
all to one MP4.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path
from typing import Any, Callable


class RandomPolicy:
    """Uniform random actions from the env's action space (seeded by `--seed`)."""

    def __init__(self, action_space, seed: int | None):
        self.action_space = action_space
        self.action_space.seed(seed)

    def reset(self) -> None:
        pass

    def __call__(self, observation) -> Any:
        return self.action_space.sample()


def load_policy(spec: str, env, seed: int | None) -> Callable:
    """A policy object (`reset()`, then `policy(observation) -> action`) for `--policy SPEC`.

    "random", or a training run folder (`wadgym train`): its policy, checked against the env.
    """
    if spec == "random":
        return RandomPolicy(env.action_space, seed)
    from pathlib import Path

    if (Path(spec) / "config.yml").is_file():
        from wadgym.agents.policy import SavedPolicy

        return SavedPolicy(spec).check_env(env)
    raise ValueError(f"--policy {spec!r}: unknown policy; valid: 'random' or a run folder made by `wadgym train`")


def parse_env_kwargs(items: list[str]) -> dict[str, Any]:
    """KEY=VALUE pairs; values are Python literals (numbers, tuples, True) or else plain strings."""
    kwargs = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"--env-kwarg {item!r}: expected KEY=VALUE, e.g. n_items=5")
        try:
            kwargs[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            kwargs[key] = text
    return kwargs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", help="a registered env id, e.g. DoomItems-v0")
    parser.add_argument("--episodes", type=int, default=3, help="number of episodes (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="episode i is reset with seed SEED + i")
    parser.add_argument("--video", metavar="FILE.mp4", help="write every episode's frames to this MP4")
    parser.add_argument("--policy", default="random", help="'random' (default) or a run folder made by `wadgym train`")
    parser.add_argument("--env-kwarg", "-k", action="append", default=[], metavar="KEY=VALUE",
                        help="an env argument, repeatable, e.g. -k n_items=5 -k color=True")


def run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    import wadgym  # noqa: F401  (registers the envs)

    try:
        if args.episodes < 1:
            raise ValueError(f"--episodes {args.episodes}: must be at least 1")
        env_kwargs = parse_env_kwargs(args.env_kwarg)
        if args.video:
            env_kwargs["render_mode"] = "rgb_array"
        env = gym.make(args.env_id, **env_kwargs)
    except (ValueError, gym.error.Error) as error:
        print(f"wadgym rollout: error: {error}", file=sys.stderr)
        return 2
    try:
        policy = load_policy(args.policy, env, args.seed)
        frames: list | None = [] if args.video else None
        run_episodes(env, policy, args.episodes, args.seed, frames)
    except ValueError as error:
        print(f"wadgym rollout: error: {error}", file=sys.stderr)
        return 2
    finally:
        env.close()
    if args.video:
        from wadgym.agents.evaluate import write_video

        write_video(Path(args.video), frames, fps=round(env.metadata.get("render_fps", 35 / 4)))
        print(f"wrote {args.video} ({len(frames)} frames)")
    return 0


def run_episodes(env, policy, episodes: int, seed: int | None, frames: list | None) -> list[dict[str, Any]]:
    """Run and print `episodes` episodes (episode i reset with seed + i), then their means."""
    print(f"{'episode':>7} {'seed':>6} {'return':>8} {'items':>7} {'length':>7} {'steps/s':>8}")
    results = []
    for episode in range(episodes):
        episode_seed = None if seed is None else seed + episode
        r = run_episode(env, policy, episode_seed, frames)
        results.append(r)
        print(f"{episode:>7} {str(episode_seed):>6} {r['return']:>8.2f} {r['items']:>3}/{r['items_total']:<3} "
              f"{r['length']:>7} {r['steps_per_second']:>8.0f}")
    mean = {k: sum(r[k] for r in results) / len(results) for k in ("return", "items", "length", "steps_per_second")}
    print(f"{'mean':>7} {'':>6} {mean['return']:>8.2f} {mean['items']:>7.2f} {mean['length']:>7.1f} "
          f"{mean['steps_per_second']:>8.0f}")
    return results


def run_episode(env, policy, seed: int | None, frames: list | None) -> dict[str, Any]:
    observation, info = env.reset(seed=seed)
    policy.reset()
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
    elapsed = time.perf_counter() - start
    return {"return": total, "items": int(info.get("items_collected", 0)),
            "items_total": int(info.get("items_total", 0)), "length": length,
            "steps_per_second": length / elapsed if elapsed > 0 else float("inf")}
