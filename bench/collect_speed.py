"""Collection speed: env steps/s of N DoomItems-v0 games with random actions, four ways, in one run.

    python bench/collect_speed.py [--n-envs 1 4 8 16] [--rounds 5] [--seconds 2]

- bare engines, one per process: N processes, each running a bare DoomGame loop (make_action, get_state,
  the screen; new_episode every max_episode_steps) with the env's settings: the ceiling, no Python
  overhead shared between games;
- wadgym's vector env (wadgym.envs.vector, one thread per game in one process), through Gymnasium's API;
- SB3's SubprocVecEnv (a worker process per env, observations pickled through pipes);
- SB3's DummyVecEnv (the envs stepped one after another).

For each N every configuration is started once; then each round runs all four for `--seconds` each, in
an order that rotates, so that a busy machine slows all of them alike. Printed: the median over rounds
of steps/s and of each round's ratio to the ceiling. Target (issue 10): the vector env >= 0.9 of the
ceiling at 8 envs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time

import gymnasium as gym
import numpy as np
import vizdoom as vzd

import wadgym  # noqa: F401  (registers the envs)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from env_speed import FRAME_SKIP, bare_game  # noqa: E402  (the bare loop env_speed measures, same settings)

ENV_ID = "DoomItems-v0"
EPISODE_STEPS = gym.spec(ENV_ID).max_episode_steps
TARGET = 0.9


def bare_worker(wad: str, map_name: str, seed: int, connection) -> None:
    """One bare game in a process of its own: on each number s received, play random actions for s
    seconds and send back (steps, seconds); on None, close."""
    game, actions = bare_game(wad, map_name)
    rng = np.random.default_rng(seed)
    game.set_seed(seed)
    game.new_episode()
    episode_steps = 0
    connection.send("ready")
    while (seconds := connection.recv()) is not None:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for action in rng.integers(0, len(actions), 64).tolist():
                if episode_steps == EPISODE_STEPS or game.is_episode_finished():
                    game.new_episode()
                    episode_steps = 0
                game.make_action(actions[action], FRAME_SKIP)
                state = game.get_state()
                frame = state.screen_buffer if state is not None else None  # noqa: F841  (the observation)
                episode_steps += 1
            steps += 64
        connection.send((steps, time.perf_counter() - start))
    game.close()


class BareEngines:
    """N bare games, one per process."""

    def __init__(self, wad: str, map_name: str, n: int):
        context = multiprocessing.get_context("spawn")
        self.connections, self.processes = [], []
        for i in range(n):
            ours, theirs = context.Pipe()
            process = context.Process(target=bare_worker, args=(wad, map_name, i, theirs), daemon=True)
            process.start()
            self.connections.append(ours)
            self.processes.append(process)
        for connection in self.connections:
            assert connection.recv() == "ready"

    def run(self, seconds: float) -> float:
        for connection in self.connections:
            connection.send(seconds)
        return sum(steps / elapsed for steps, elapsed in (c.recv() for c in self.connections))

    def close(self) -> None:
        for connection in self.connections:
            connection.send(None)
        for process in self.processes:
            process.join(10)


class VectorRunner:
    """Random actions through a vector env's own API (Gymnasium's or SB3's)."""

    def __init__(self, venv, sb3: bool):
        self.venv, self.sb3 = venv, sb3
        self.n = venv.num_envs
        self.rng = np.random.default_rng(0)
        if sb3:
            venv.seed(0)
            venv.reset()
        else:
            venv.reset(seed=0)

    def run(self, seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            self.venv.step(self.rng.integers(0, 5, self.n))
            steps += self.n
        return steps / (time.perf_counter() - start)

    def close(self) -> None:
        self.venv.close()


def make_configurations(n: int, level: tuple[str, str], cache_dir: str) -> dict:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from wadgym.envs.vector import make_vector_env

    def single():
        return gym.make("wadgym:" + ENV_ID, cache_dir=cache_dir)

    return {
        "bare engines, one per process": BareEngines(*level, n),
        "wadgym vector env (threads)": VectorRunner(make_vector_env(ENV_ID, n, max_episode_steps=EPISODE_STEPS,
                                                                    cache_dir=cache_dir), sb3=False),
        "SB3 SubprocVecEnv": VectorRunner(SubprocVecEnv([single] * n), sb3=True),
        "SB3 DummyVecEnv": VectorRunner(DummyVecEnv([single] * n), sb3=True),
    }


def measure(n: int, rounds: int, seconds: float, level: tuple[str, str], cache_dir: str) -> dict[str, list[float]]:
    configurations = make_configurations(n, level, cache_dir)
    try:
        for runner in configurations.values():  # warm-up
            runner.run(min(seconds, 0.5))
        speeds = {name: [] for name in configurations}
        order = list(configurations.items())
        for r in range(rounds):
            for name, runner in order[r % len(order):] + order[:r % len(order)]:
                speeds[name].append(runner.run(seconds))
    finally:
        for runner in configurations.values():
            runner.close()
    return speeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-envs", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of each configuration per round")
    parser.add_argument("--cache-dir", help="WAD cache (default: wadgym's)")
    args = parser.parse_args()

    probe = gym.make(ENV_ID, cache_dir=args.cache_dir)
    probe.reset(seed=0)
    level = (str(probe.unwrapped.wad_path), probe.unwrapped.map)  # the env's own WAD and map
    probe.close()
    print(f"{ENV_ID} collection speed, random actions (vizdoom {vzd.__version__}, gymnasium {gym.__version__}, "
          f"{os.cpu_count()} CPUs); median of {args.rounds} rounds of {args.seconds:g} s each")
    print(f"  {'n_envs':>6}  {'':<32} {'steps/s':>8} {'ratio to ceiling':>17}")
    passed = True
    for n in args.n_envs:
        speeds = measure(n, args.rounds, args.seconds, level, args.cache_dir)
        ceiling = speeds["bare engines, one per process"]
        for name, values in speeds.items():
            ratio = statistics.median(v / c for v, c in zip(values, ceiling))
            verdict = ""
            if n == 8 and name.startswith("wadgym"):
                verdict = f"  (target >= {TARGET}: {'PASS' if ratio >= TARGET else 'FAIL'})"
                passed = ratio >= TARGET
            print(f"  {n:>6}  {name:<32} {statistics.median(values):8.0f} {ratio:17.2f}{verdict}", flush=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
