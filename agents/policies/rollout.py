"""Headless episodes printed as a table, as a CI job runs them (`wadgym rollout`, wired in wadgym.cli.rollout):
the policy to play (random or a run's), the output check, the per-episode table."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def load_policy(spec: str):
    """None for "random" (the env's random policy), else the SavedPolicy of a run folder."""
    if spec == "random":
        return None
    if (Path(spec) / "config.yml").is_file():
        from wadgym.agents.policies.policy import SavedPolicy

        return SavedPolicy(spec)
    raise ValueError(f"--policy {spec!r}: unknown policy; valid: 'random' or a run folder made by `wadgym train`")


def policy_kwargs(env_id: str, policy, wad: str | None, map_name: str = "MAP01") -> dict[str, Any]:
    """The env kwargs a rollout starts from: the policy's training kwargs (none for the random policy), and
    with `wad` a hand-made map to play instead of levels (evaluate.map_kwargs: the run's level kwargs dropped)."""
    env_kwargs = policy.env_kwargs if policy else {}
    if wad is None:
        return dict(env_kwargs)
    from wadgym.agents.evaluate import map_kwargs

    return map_kwargs(policy.env_id if policy else env_id, env_kwargs, wad, map_name)


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
    """Run and print `episodes` episodes (episode i reset with seed + i), then their means: on a saved
    policy's one-env VecEnv (play_episodes), or the random policy on a plain env (play_episode)."""
    from wadgym.agents.episodes import play_episode

    print(f"{'episode':>7} {'seed':>6} {'level':>10} {'return':>8} {'score':>7} {'length':>7} {'steps/s':>8}")
    results = []
    for episode in range(episodes):
        episode_seed = None if seed is None else seed + episode
        if hasattr(env, "num_envs"):
            from wadgym.agents.episodes import play_episodes

            r = play_episodes(env, policy, [episode_seed], frames)[0]
        else:
            r = play_episode(env, policy, episode_seed, frames)
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
