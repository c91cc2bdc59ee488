"""Bots speed: DoomDeathmatchBots-v0's steps/s over a bare DoomGame hosting the same bots on the same WAD, and
per agent step against 2-player self-play (DoomDeathmatch-v0), in one run; then how often the same seed and
actions replay the same episode, bots included.

    python bench/bots_speed.py [--steps 500] [--rounds 10] [--replays 50] [--cpu N | --no-pin]

Every configuration runs random actions (the env's "deathmatch" set, frame skip 4, 160x120 gray rendered,
the env's tracked variables). Each round runs `--steps` steps of every configuration back to back, so a busy
machine slows all of them alike; resets are not timed (the bots env's reset waits ~80 tics for the bots to
join and the seeded start); the figures are medians over rounds. The bare loop is wadgym's make_game with the
env's buttons, variables and game arguments (`-host 1 -deathmatch ...`, the env's bots.cfg), the bots
added with `addbot`, then make_action + get_state. By default Python and the engines are pinned to one CPU,
as in bench/env_speed.py (the self-play netgame's two engines share it).
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time

import gymnasium as gym
import numpy as np
import vizdoom as vzd

import wadgym  # noqa: F401  (registers the envs)
from wadgym.envs.families.deathmatch import bot_name
from wadgym.envs.multi import make
from wadgym.envs.runtime.engine import make_game

from env_speed import add_pin_arguments, pin  # bench/env_speed.py, beside this script
from multi_speed import time_multi, time_single  # bench/multi_speed.py, beside this script

ENV_ID = "DoomDeathmatchBots-v0"
FRAME_SKIP = 4


def bare_host(env) -> tuple[vzd.DoomGame, list[list[float]]]:
    """A DoomGame hosting the env's bots on the env's WAD and map, set up as the env sets it up, without the env."""
    env = env.unwrapped
    game = make_game(env.wad_path, env.map, buttons=env._buttons, variables=env._engine_variables)
    game.add_game_args(f"-host 1 {env.netgame_args} +viz_bots_path {env.bots_file()} +name Agent")
    game.init()
    return game, env._actions


def start_bare_episode(game, env, seed: int) -> None:
    game.set_seed(seed)
    game.new_episode()
    game.send_game_command("removebots")
    for i in range(env.unwrapped.params.bots):
        game.send_game_command(f"addbot {bot_name(i)}")
    game.send_game_command(env.unwrapped.episode_command(seed, seed % 1000 + 1))
    game.advance_action(100)


def time_bare(game, actions, steps: int, rng) -> float:
    elapsed = 0.0
    for _ in range(steps):
        buttons = actions[int(rng.integers(len(actions)))]
        start = time.perf_counter()
        game.make_action(buttons, FRAME_SKIP)
        state = game.get_state()
        frame = state.screen_buffer  # noqa: F841  (the observation the env would return)
        elapsed += time.perf_counter() - start
    return steps / elapsed


def episode_digest(env, seed: int, steps: int) -> str:
    actions = np.random.default_rng(seed).integers(0, env.action_space.n, size=steps)
    observation, info = env.reset(seed=seed)
    digest = hashlib.sha256(observation.tobytes())
    for action in actions:
        observation, _, _, _, info = env.step(int(action))
        digest.update(observation.tobytes() + repr((info["frags"], info["deaths"], info["bot_frags"])).encode())
    return digest.hexdigest()


def replays(env_id: str, episodes: int, steps: int) -> int:
    """How many of `episodes` seeded episodes two envs play alike; the second env plays another episode
    first, so the two engines come to each episode from different histories."""
    first, second = gym.make(env_id, num_levels=200), gym.make(env_id, num_levels=200)
    try:
        episode_digest(second, 10**6, steps)
        return sum(episode_digest(first, s, steps) == episode_digest(second, s, steps) for s in range(episodes))
    finally:
        first.close()
        second.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500, help="steps of each configuration per round")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--replays", type=int, default=50, help="episodes played twice (0: skip)")
    add_pin_arguments(parser)
    args = parser.parse_args()
    where = pin(args)
    print(f"wadgym bots speed bench (vizdoom {vzd.__version__}, {where})")
    rng = np.random.default_rng(0)
    env = gym.make(ENV_ID, num_levels=1)
    env.reset(seed=0)
    bare, actions = bare_host(env)
    self_play = make("DoomDeathmatch-v0", num_levels=1, max_steps=500, join_timeout=240)
    results: dict[str, list[float]] = {"bare DoomGame + bots": [], ENV_ID: [], "DoomDeathmatch-v0 (2 players)": []}
    try:
        for r in range(args.rounds):
            start_bare_episode(bare, env, r)
            results["bare DoomGame + bots"].append(time_bare(bare, actions, args.steps, rng))
            results[ENV_ID].append(time_single(env, args.steps, rng))
            results["DoomDeathmatch-v0 (2 players)"].append(time_multi(self_play, args.steps, rng))
    finally:
        bare.close()
        env.close()
        self_play.close()
    bots = env.unwrapped.params.bots
    ratios = [e / b for e, b in zip(results[ENV_ID], results["bare DoomGame + bots"])]
    print(f"{bots} bots, {args.rounds} rounds of {args.steps} steps; medians")
    print(f"{'configuration':<32} {'agent steps/s':>14} {'ms/agent step':>14}")
    for name, values in results.items():
        rate = statistics.median(values)
        print(f"{name:<32} {rate:>14.0f} {1000 / rate:>14.3f}")
    print(f"env / bare host (median of the rounds' ratios): {statistics.median(ratios):.3f}")
    self_rate = statistics.median(results["DoomDeathmatch-v0 (2 players)"])
    print(f"env / 2-player self-play, per agent step: {statistics.median(results[ENV_ID]) / self_rate:.1f}x")
    if args.replays:
        same = replays(ENV_ID, args.replays, 300)
        print(f"same seed and actions, two engines with different histories: {same} of {args.replays} "
              f"episodes of 300 steps identical (observations, frags, deaths, bots' frags)")


if __name__ == "__main__":
    main()
