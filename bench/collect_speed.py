"""Collection speed: env steps/s of N DoomItems-v0 games with random actions, five ways, in one run.

    python bench/collect_speed.py [--n-envs 1 4 8 16] [--rounds 4] [--seconds 2] [--baseline REF]

- bare engines, one per process: N processes, each running a bare DoomGame loop (make_action, get_state,
  the screen; new_episode every max_episode_steps) with the env's settings: the ceiling, no Python
  shared between games and no waiting for one another;
- wadgym's vector env (wadgym.envs.vector: the games stepped by threads of one process), through
  Gymnasium's API (gym.make_vec) and through SB3's (ThreadVecEnv);
- SB3's SubprocVecEnv (a worker process per env, observations pickled through pipes);
- SB3's DummyVecEnv (the envs stepped one after another);
- with `--baseline REF`: wadgym's vector env as it was at git revision REF (its envs/vector/threads.py and
  envs/vector/sb3.py), both APIs, so that a change is measured against its predecessor in one run
  (printed: each API's steps/s ratio to its baseline, and its steps per CPU second over the baseline's: on a
  machine other work keeps busy, the CPU a step costs varies far less than the wall-clock speed).

For each N every configuration is started once; then each round runs all of them for `--seconds` each,
in an order that rotates, so that a busy machine slows all of them alike. Printed: the median over
rounds of steps/s and of each round's ratio to the ceiling, and the CPU time one step costs (this
process and every process it started: workers, engines), with the ceiling's CPU time per step over
the configuration's (on a machine other work keeps busy, the wall-clock ratios fall; this one says
how much CPU each way spends). Target (issue 10): the vector env >= 0.9 of the ceiling at 8 envs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
import types
import warnings

import gymnasium as gym
import numpy as np
import vizdoom as vzd

import wadgym  # noqa: F401  (registers the envs)

from env_speed import FRAME_SKIP, bare_game, cpu_seconds  # bench/env_speed.py, beside this script

ENV_ID = "DoomItems-v0"  # one map: the bare loop plays the env's very level
EPISODE_STEPS = gym.spec(ENV_ID).max_episode_steps
CEILING = "bare engines, one per process"
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

    def run(self, seconds: float) -> tuple[float, int]:
        for connection in self.connections:
            connection.send(seconds)
        replies = [connection.recv() for connection in self.connections]
        return sum(steps / elapsed for steps, elapsed in replies), sum(steps for steps, _ in replies)

    def close(self) -> None:
        for connection in self.connections:
            connection.send(None)
        for process in self.processes:
            process.join(10)


class VectorRunner:
    """Random actions through a vector env's own API (Gymnasium's or SB3's)."""

    def __init__(self, venv, sb3: bool):
        self.venv = venv
        self.n = venv.num_envs
        self.rng = np.random.default_rng(0)
        if sb3:
            venv.seed(0)
            venv.reset()
        else:
            venv.reset(seed=0)

    def run(self, seconds: float) -> tuple[float, int]:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            self.venv.step(self.rng.integers(0, 5, self.n))
            steps += self.n
        return steps / (time.perf_counter() - start), steps

    def close(self) -> None:
        self.venv.close()


GYM_API, SB3_API = "wadgym vector env, Gymnasium API", "wadgym vector env, SB3 API"


def baseline_modules(ref: str) -> tuple[types.ModuleType, types.ModuleType]:
    """wadgym.envs.vector and wadgym.envs.vector.sb3 as they were at git revision `ref` of this repository,
    loaded as modules of their own (the latter importing the former)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    modules = []
    # (name, its file since the layout of 0.2, its file before)
    for name, path, old_path in (("vector", "envs/vector/threads.py", "envs/vector.py"),
                                 ("vector_sb3", "envs/vector/sb3.py", "envs/vector_sb3.py")):
        shown = subprocess.run(["git", "-C", root, "show", f"{ref}:{path}"], capture_output=True, text=True)
        if shown.returncode:
            path = old_path
            shown = subprocess.run(["git", "-C", root, "show", f"{ref}:{path}"], check=True, capture_output=True,
                                   text=True)
        module = types.ModuleType(f"baseline_{name}")
        sys.modules[module.__name__] = module
        source = shown.stdout.replace("wadgym.envs.vector.threads import", "baseline_vector import")
        exec(compile(source.replace("wadgym.envs.vector import", "baseline_vector import"),  # noqa: S102
                     f"{ref}:{path}", "exec"), module.__dict__)
        modules.append(module)
    return modules[0], modules[1]


def make_configurations(n: int, level: tuple[str, str], cache_dir: str | None, baseline: str | None) -> dict:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from wadgym.envs.vector import sb3 as vector_sb3
    from wadgym.envs.vector import threads as vector

    def single():  # "wadgym:" registers the envs in SubprocVecEnv's workers
        return gym.make("wadgym:" + ENV_ID, cache_dir=cache_dir)

    versions = {"": (vector, vector_sb3)}
    if baseline:
        versions[f" ({baseline})"] = baseline_modules(baseline)
    configurations = {CEILING: BareEngines(*level, n)}
    for suffix, (gym_module, sb3_module) in versions.items():
        configurations[GYM_API + suffix] = VectorRunner(gym_module.make_vector_env(
            ENV_ID, n, cache_dir=cache_dir, max_episode_steps=EPISODE_STEPS), sb3=False)
        configurations[SB3_API + suffix] = VectorRunner(sb3_module.ThreadVecEnv([single] * n), sb3=True)
    configurations["SB3 SubprocVecEnv"] = VectorRunner(SubprocVecEnv([single] * n), sb3=True)
    configurations["SB3 DummyVecEnv"] = VectorRunner(DummyVecEnv([single] * n), sb3=True)
    return configurations


def process_tree_cpu() -> float:
    """CPU seconds so far of this process and of every process below it (workers, engines)."""
    total, pending = 0.0, [os.getpid()]
    while pending:
        pid = pending.pop()
        try:
            total += cpu_seconds(pid)
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    pending.extend(int(child) for child in f.read().split())
        except OSError:  # ended meanwhile
            continue
    return total


def measure(n: int, rounds: int, seconds: float, level: tuple[str, str], cache_dir: str | None,
            baseline: str | None) -> dict:
    """{configuration: ([steps/s of each round], CPU seconds per step over all rounds)}."""
    configurations = make_configurations(n, level, cache_dir, baseline)
    try:
        for runner in configurations.values():  # warm-up
            runner.run(min(seconds, 0.5))
        speeds = {name: [] for name in configurations}
        cpu = dict.fromkeys(configurations, 0.0)
        steps = dict.fromkeys(configurations, 0)
        order = list(configurations.items())
        for r in range(rounds):
            for name, runner in order[r % len(order):] + order[:r % len(order)]:
                before = process_tree_cpu()  # the other configurations wait meanwhile, using no CPU
                speed, count = runner.run(seconds)
                cpu[name] += process_tree_cpu() - before
                speeds[name].append(speed)
                steps[name] += count
    finally:
        for runner in configurations.values():
            runner.close()
    return {name: (speeds[name], cpu[name] / steps[name]) for name in configurations}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-envs", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of each configuration per round")
    parser.add_argument("--cache-dir", help="WAD cache (default: wadgym's)")
    parser.add_argument("--baseline", metavar="REF", help="also measure wadgym's vector env as it was at this git "
                        "revision (e.g. HEAD~3), in the same rounds, and print the ratio to it")
    args = parser.parse_args()
    # v0, the one-map version, on purpose: no deprecation warning here or in the processes started
    warnings.filterwarnings("ignore", message=".*is out of date")
    os.environ["PYTHONWARNINGS"] = "ignore::DeprecationWarning"

    probe = gym.make(ENV_ID, cache_dir=args.cache_dir)
    probe.reset(seed=0)
    level = (str(probe.unwrapped.wad_path), probe.unwrapped.map)  # the env's own WAD and map
    probe.close()
    print(f"{ENV_ID} collection speed, random actions (vizdoom {vzd.__version__}, gymnasium {gym.__version__}, "
          f"{len(os.sched_getaffinity(0))} CPUs); median of {args.rounds} rounds of {args.seconds:g} s each")
    print(f"  {'n_envs':>6}  {'':<46} {'steps/s':>8} {'ratio':>6}   {'CPU us/step':>11} {'CPU ratio':>9}")
    passed = True
    for n in args.n_envs:
        results = measure(n, args.rounds, args.seconds, level, args.cache_dir, args.baseline)
        ceiling, ceiling_cpu = results[CEILING]
        for name, (speeds, cpu) in results.items():
            ratio = statistics.median(v / c for v, c in zip(speeds, ceiling))
            verdict = ""
            if n == 8 and name in (GYM_API, SB3_API):
                verdict = f"  (target >= {TARGET}: {'PASS' if ratio >= TARGET else 'FAIL'})"
                passed = passed and ratio >= TARGET
            print(f"  {n:>6}  {name:<46} {statistics.median(speeds):8.0f} {ratio:6.2f}   {cpu * 1e6:11.1f} "
                  f"{ceiling_cpu / cpu:9.2f}{verdict}", flush=True)
        if args.baseline:
            for api in (GYM_API, SB3_API):
                now, then = results[api][0], results[f"{api} ({args.baseline})"][0]
                ratio = statistics.median(a / b for a, b in zip(now, then))  # round by round
                cpu_ratio = results[f"{api} ({args.baseline})"][1] / results[api][1]
                print(f"  {n:>6}  {api}: {ratio:.3f} x the steps/s of {args.baseline} (median of the rounds' ratios); "
                      f"{cpu_ratio:.3f} x its steps per CPU second (all rounds)")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
