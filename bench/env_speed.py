"""Env speed: DoomItems-v0 steps/s over a bare DoomGame loop on the same WAD, plus WAD build and cache times.

    python bench/env_speed.py [--rounds 60] [--cpu N | --no-pin]

Every configuration runs the same random actions with the same resolution, screen format and frame
skip. Each round runs one episode (EPISODE_STEPS steps) of every configuration back to back, so a busy
machine slows all of them alike; the ratio is the median over rounds of each round's ratio. Target
(issue 4): the default env at least 0.95 of the bare loop.

Python and each game's engine process hand every step to one another. By default everything is pinned
to one CPU (engines inherit the affinity when they start): on a 2-core VM, handing over across cores
costs a third of the throughput and most of the run-to-run noise, and it costs every configuration alike.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time

import gymnasium as gym
import numpy as np
import vizdoom as vzd

import wadgym  # noqa: F401  (registers the envs)
from wadgym.envs.actions import ACTION_SETS, button_vectors
from wadgym.envs.families import items
from wadgym.envs.families.items import ItemsEnv
from wadgym.envs.runtime import cache, engine
from wadgym.envs.runtime.engine import QUIET_RENDER, start_game
from wadgym.envs.scenarios import build_scenario_wad

FRAME_SKIP = 4
EPISODE_STEPS = gym.spec("DoomItems-v0").max_episode_steps


TRACKED = [getattr(vzd.GameVariable, name) for name in ItemsEnv.variables]


def bare_game(wad: str, map_name: str, gray: bool = True) -> tuple[vzd.DoomGame, list[list[float]]]:
    """A DoomGame set up as the env sets it up (wadgym.envs.runtime.engine, the same buttons and variables),
    without the env."""
    buttons, actions = button_vectors("basic", ACTION_SETS["basic"])
    game = start_game(wad, map_name, screen_format=vzd.ScreenFormat.GRAY8 if gray else vzd.ScreenFormat.RGB24,
                      buttons=[getattr(vzd.Button, b) for b in buttons], variables=TRACKED)
    return game, actions


def engine_seed(seed: int) -> int:
    """The engine seed DoomEnv.reset(seed=seed) gives the arena (its first draw from np_random)."""
    return int(np.random.default_rng(seed).integers(0, 2**31 - 1))


def time_bare(game, actions, action_ids, seed: int) -> tuple[float, int]:
    """Steps/s of one episode of make_action + get_state (new_episode included, as the env's reset), and
    the items collected: with the env's engine seed and actions, it plays the env's very episode."""
    start = time.perf_counter()
    game.set_seed(engine_seed(seed))
    game.new_episode()
    for a in action_ids:
        game.make_action(actions[a], FRAME_SKIP)
        state = game.get_state()
        frame = state.screen_buffer  # noqa: F841  (the observation the env would return)
    return len(action_ids) / (time.perf_counter() - start), int(state.game_variables[0])


def time_env(env, action_ids, seed: int) -> tuple[float, int]:
    """Steps/s of one episode through the env's public API (reset included), and the items collected."""
    start = time.perf_counter()
    env.reset(seed=seed)
    for a in action_ids:
        _, _, terminated, truncated, info = env.step(a)
        if terminated or truncated:
            break
    return len(action_ids) / (time.perf_counter() - start), info.get("items_collected", -1)


def vizdoom_wrapper_env(wad: str, map_name: str):
    """ViZDoom's own Gymnasium wrapper on the same WAD and settings, for comparison."""
    from vizdoom.gymnasium_wrapper.base_gymnasium_env import VizdoomEnv

    buttons, _ = button_vectors("basic", ACTION_SETS["basic"])
    config = {"doom_scenario_path": wad, "doom_map": map_name, "screen_resolution": vzd.ScreenResolution.RES_160X120,
              "screen_format": vzd.ScreenFormat.GRAY8, "window_visible": False, "sound_enabled": False,
              **{f"render_{setting}": False for setting in QUIET_RENDER}, "episode_timeout": 0,
              "available_buttons": [getattr(vzd.Button, b) for b in buttons],
              "available_game_variables": TRACKED}
    env = gym.wrappers.TimeLimit(VizdoomEnv(frame_skip=FRAME_SKIP, max_buttons_pressed=2, **config), EPISODE_STEPS)
    return env


def median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def first_build_breakdown(params) -> dict[str, float]:
    """Milliseconds of each stage of the first build in this process (one-time setup included)."""
    from wadgym.acs import compile_source
    from wadgym.wads import build_wad

    stages = {}
    start = time.perf_counter()
    level = items.build(np.random.default_rng(0), params)
    stages["layout and ACS text"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    behavior = compile_source(level.scripts, "items.acs")
    stages["ACS compile"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    build_wad([dataclasses.replace(level, behavior=behavior)])
    stages["validate and pack"] = (time.perf_counter() - start) * 1000
    return stages


def build_times(repeats: int) -> None:
    params = items.PRESETS["classic"]
    first = first_build_breakdown(params)
    warm = median_ms(lambda: build_scenario_wad("items", params, 0), repeats)
    again = first_build_breakdown(params)
    with tempfile.TemporaryDirectory() as folder:
        cache.code_fingerprint.cache_clear()
        start = time.perf_counter()
        cache.scenario_wad("items", params, 0, folder)
        miss = (time.perf_counter() - start) * 1000
        cache.code_fingerprint.cache_clear()
        start = time.perf_counter()
        cache.scenario_wad("items", params, 0, folder)
        cold_hit = (time.perf_counter() - start) * 1000
        hit = median_ms(lambda: cache.scenario_wad("items", params, 0, folder), repeats)
    print(f"DoomItems WAD build from scratch (layout, ACS compile, validation, packing): {warm:.1f} ms "
          f"median of {repeats}")
    for name in first:
        print(f"  {name:<20} {again[name]:7.1f} ms   first in this process: {first[name]:7.1f} ms")
    print(f"cache miss (build + atomic write): {miss:.1f} ms; cache hit: {hit:.2f} ms median "
          f"(first in process, hashing wadgym's sources: {cold_hit:.1f} ms)")


def engine_children() -> set[int]:
    """Pids of this process's engines: each DoomGame runs its engine in a child process."""
    return {process.pid for process in engine.child_engines()}


def cpu_seconds(pid: int) -> float:
    """CPU time of every thread of process `pid`, from the scheduler's nanosecond counters."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


def started(make, reset):
    """(object, engine pid): `make()` then `reset(object)`, noting the engine process it started."""
    before = engine_children()
    thing = make()
    reset(thing)
    (pid,) = engine_children() - before
    return thing, pid


def speed_ratios(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        probe = gym.make("DoomItems-v0", cache_dir=folder)
        probe.reset(seed=0)
        wad, map_name = str(probe.unwrapped.wad_path), probe.unwrapped.map  # the env's own WAD and map
        probe.close()
        rng = np.random.default_rng(0)
        action_ids = rng.integers(0, len(ACTION_SETS["basic"]), size=EPISODE_STEPS).tolist()
        (game, actions), bare_pid = started(lambda: bare_game(wad, map_name), lambda g: None)
        same, same_pid = started(lambda: gym.make("DoomItems-v0", cache_dir=folder, resolution=(120, 160)),
                                 lambda e: e.reset(seed=0))
        default, default_pid = started(lambda: gym.make("DoomItems-v0", cache_dir=folder), lambda e: e.reset(seed=0))
        mean, mean_pid = started(lambda: gym.make("DoomItems-v0", cache_dir=folder, downsample="mean"),
                                 lambda e: e.reset(seed=0))
        wrapper, wrapper_pid = started(lambda: vizdoom_wrapper_env(wad, map_name), lambda e: e.reset(seed=0))
        # Round r plays seed r with the same actions everywhere; bare and wadgym runs then play the very
        # same episode (checked by their item counts), so only the per-step overhead differs. ViZDoom's
        # wrapper seeds the engine its own way: its episodes differ, so its ratio is noisier.
        runs = {"bare DoomGame 160x120 gray": (lambda seed: time_bare(game, actions, action_ids, seed), bare_pid),
                "DoomItems-v0 120x160 gray (same res)": (lambda seed: time_env(same, action_ids, seed), same_pid),
                "DoomItems-v0 default: 60x80, stride": (lambda seed: time_env(default, action_ids, seed), default_pid),
                "DoomItems-v0 60x80, 2x2 mean": (lambda seed: time_env(mean, action_ids, seed), mean_pid),
                "vizdoom's gymnasium wrapper 160x120": (lambda seed: time_env(wrapper, action_ids, seed), wrapper_pid)}
        speeds = {name: [] for name in runs}
        cpu = dict.fromkeys(runs, 0.0)
        for seed in range(rounds + 1):  # the first round warms up and is not counted
            order = list(runs.items())
            order = order[seed % len(order):] + order[:seed % len(order)]  # nobody always runs first
            collected = {}
            for name, (run, pid) in order:
                cpu_before = time.process_time() + cpu_seconds(pid)
                steps_per_second, collected[name] = run(seed)
                if seed:
                    speeds[name].append(steps_per_second)
                    cpu[name] += time.process_time() + cpu_seconds(pid) - cpu_before
            if len({collected[name] for name in runs if "wrapper" not in name}) != 1:
                raise RuntimeError(f"seed {seed}: the bare loop and the env played different episodes: {collected}")
        game.close()
        for env in (same, default, mean, wrapper):
            env.close()
    report(speeds, cpu, rounds)


def report(speeds: dict[str, list[float]], cpu: dict[str, float], rounds: int) -> None:
    """Wall-clock steps/s (median over rounds) and CPU time per step (Python + engine), each against bare."""
    steps = rounds * EPISODE_STEPS
    bare_name = next(iter(speeds))
    bare, bare_cpu = speeds[bare_name], cpu[bare_name]
    print(f"\nframe_skip {FRAME_SKIP}, {rounds} rounds of one {EPISODE_STEPS}-step episode each. Wall clock on "
          f"a shared VM is noisy (engine and Python ping-pong across processes), so the CPU time each step "
          f"costs (Python process + its engine process) is reported beside it.")
    print(f"  {'':<40} {'steps/s':>8} {'ratio':>6} {'(quartiles)':>14}   {'CPU us/step':>11} {'CPU ratio':>9}")
    for name, values in speeds.items():
        ratios = [v / b for v, b in zip(values, bare)]
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        print(f"  {name:<40} {statistics.median(values):8.0f} {statistics.median(ratios):6.3f} "
              f"({q1:.3f}-{q3:.3f})   {cpu[name] / steps * 1e6:11.1f} {bare_cpu / cpu[name]:9.3f}")


def add_pin_arguments(parser: argparse.ArgumentParser) -> None:
    """--cpu N and --no-pin: where a speed bench runs (pinned to one CPU by default, engines included)."""
    parser.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)), help="the CPU to pin to")
    parser.add_argument("--no-pin", action="store_true", help="let the OS place Python and the engines")


def pin(args: argparse.Namespace) -> str:
    """Pin this process (and so the engines it starts) as the arguments say; where it runs, in words."""
    if args.no_pin:
        return "all CPUs"
    os.sched_setaffinity(0, {args.cpu})
    return f"pinned to CPU {args.cpu}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--build-repeats", type=int, default=20)
    add_pin_arguments(parser)
    args = parser.parse_args()
    where = pin(args)
    print(f"wadgym env speed bench (vizdoom {vzd.__version__}, gymnasium {gym.__version__}, {where})")
    build_times(args.build_repeats)
    speed_ratios(args.rounds)


if __name__ == "__main__":
    main()
