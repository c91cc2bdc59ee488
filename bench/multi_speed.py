"""Multi-agent speed: agent steps/s of DoomDeathmatch-v0 with 1, 2 and 4 players against one single-agent
env (DoomDefend-v0: the same polygon arenas, the same frames and frame skip) stepping alone, in one run.

    python bench/multi_speed.py [--steps 300] [--rounds 3]

Each round runs `--steps` steps of every configuration back to back (random actions, episodes of 500
steps), so a busy machine slows all of them alike; the figures are medians over rounds. An agent step is
one player's step: a game of n players makes n agent steps a step.

Where the lockstep time goes, from the same run:
- single-agent env: one engine, `make_action(a, 4)` in-process.
- 1 player through wadgym.envs.multi: the same engine in a worker process, the step sent over a socket
  pair and the tics released one by one (4 round trips a step) - the cost of the worker and the lockstep
  protocol without a network game.
- 2 and 4 players: a real netgame; every tic waits for the slowest engine and for the engines' own
  exchange of tics over UDP on 127.0.0.1 (the packet server: the host relays every tic).
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np

import wadgym  # noqa: F401  (registers the envs)
from wadgym.envs.multi import make


def time_multi(env, steps: int, rng: np.random.Generator) -> float:
    """Agent steps/s of `steps` steps of `env` (episodes reset as they end; resets not timed)."""
    if not env.agents:
        env.reset(seed=int(rng.integers(2**31)))
    elapsed = 0.0
    for _ in range(steps):
        actions = {a: int(rng.integers(env.action_space(a).n)) for a in env.agents}
        start = time.perf_counter()
        env.step(actions)
        elapsed += time.perf_counter() - start
        if not env.agents:
            env.reset(seed=int(rng.integers(2**31)))
    return steps * env.n_players / elapsed


def time_single(env, steps: int, rng: np.random.Generator) -> float:
    """Steps/s of `steps` steps of the single-agent `env` (reset before and as episodes end; resets not timed)."""
    env.reset(seed=int(rng.integers(2**31)))
    elapsed = 0.0
    for _ in range(steps):
        action = int(rng.integers(env.action_space.n))
        start = time.perf_counter()
        _, _, terminated, truncated, _ = env.step(action)
        elapsed += time.perf_counter() - start
        if terminated or truncated:
            env.reset(seed=int(rng.integers(2**31)))
    return steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="steps of each configuration per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    single = gym.make("DoomDefend-v0", num_levels=2, action_set="attack_move")
    games = {n: make("DoomDeathmatch-v0", n_players=n, num_levels=2, max_steps=500, join_timeout=240)
             for n in (1, 2, 4)}
    results: dict[str, list[float]] = {"single-agent env": [], **{f"{n} player(s)": [] for n in games}}
    try:
        for _ in range(args.rounds):
            results["single-agent env"].append(time_single(single, args.steps, rng))
            for n, env in games.items():
                results[f"{n} player(s)"].append(time_multi(env, args.steps, rng))
    finally:
        single.close()
        for env in games.values():
            env.close()
    base = statistics.median(results["single-agent env"])
    print(f"{'configuration':<18} {'agent steps/s':>14} {'per game step':>14} {'vs single':>10}")
    for name, values in results.items():
        rate = statistics.median(values)
        players = 1 if name.startswith("single") else int(name.split()[0])
        print(f"{name:<18} {rate:>14.0f} {1000 * players / rate:>11.2f} ms {rate / base:>9.2f}x")


if __name__ == "__main__":
    main()
