"""Env speed: DoomItems-v0 steps/s over a bare DoomGame loop on the same WAD, plus WAD build and cache times.

    python bench/env_speed.py [--rounds 30]

Every configuration runs the same random actions with the same resolution, screen format and frame
skip. Each round runs one episode (EPISODE_STEPS steps) of every configuration back to back, so a busy
machine slows all of them alike; the ratio is the median over rounds of each round's ratio.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time

import gymnasium as gym
import numpy as np
import vizdoom as vzd

import wadgym  # noqa: F401  (registers the envs)
from wadgym.envs import cache
from wadgym.envs.doom_env import ACTION_SETS
from wadgym.envs.engine import start_game
from wadgym.envs.scenarios import build_scenario_wad, items

FRAME_SKIP = 4
EPISODE_STEPS = gym.spec("DoomItems-v0").max_episode_steps


def bare_game(wad: str, gray: bool = True) -> tuple[vzd.DoomGame, list[list[float]]]:
    """A DoomGame set up as the env sets it up (wadgym.envs.engine, the same buttons and variables), without the env."""
    buttons = sorted({b for combo in ACTION_SETS["basic"] for b in combo})
    game = start_game(wad, screen_format=vzd.ScreenFormat.GRAY8 if gray else vzd.ScreenFormat.RGB24,
                      buttons=[getattr(vzd.Button, b) for b in buttons],
                      variables=[vzd.GameVariable.ITEMCOUNT, vzd.GameVariable.USER59])
    actions = [[float(b in combo) for b in buttons] for combo in ACTION_SETS["basic"]]
    return game, actions


def time_bare(game, actions, action_ids) -> float:
    """Steps/s of one episode of make_action + get_state (new_episode included, as the env's reset)."""
    start = time.perf_counter()
    game.new_episode()
    for a in action_ids:
        game.make_action(actions[a], FRAME_SKIP)
        frame = game.get_state().screen_buffer  # noqa: F841  (the observation the env would return)
    return len(action_ids) / (time.perf_counter() - start)


def time_env(env, action_ids) -> float:
    """Steps/s of one episode through the env's public API (reset included)."""
    start = time.perf_counter()
    env.reset()
    for a in action_ids:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            break
    return len(action_ids) / (time.perf_counter() - start)


def vizdoom_wrapper_env(wad: str):
    """ViZDoom's own Gymnasium wrapper on the same WAD and settings, for comparison."""
    from vizdoom.gymnasium_wrapper.base_gymnasium_env import VizdoomEnv

    buttons = sorted({b for combo in ACTION_SETS["basic"] for b in combo})
    config = {"doom_scenario_path": wad, "doom_map": "MAP01", "screen_resolution": vzd.ScreenResolution.RES_160X120,
              "screen_format": vzd.ScreenFormat.GRAY8, "window_visible": False, "sound_enabled": False,
              "render_hud": False, "render_weapon": False, "render_crosshair": False, "render_decals": False,
              "render_particles": False, "render_messages": False, "render_corpses": False,
              "render_effects_sprites": False, "episode_timeout": 0,
              "available_buttons": [getattr(vzd.Button, b) for b in buttons],
              "available_game_variables": [vzd.GameVariable.ITEMCOUNT, vzd.GameVariable.USER59]}
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
    params = items.PRESETS["default"]
    first = first_build_breakdown(params)
    warm = median_ms(lambda: build_scenario_wad("items", params, 0), repeats)
    again = first_build_breakdown(params)
    with tempfile.TemporaryDirectory() as folder:
        cache.code_fingerprint.cache_clear()
        start = time.perf_counter()
        cache.cached_wad("items", params, 0, folder)
        miss = (time.perf_counter() - start) * 1000
        cache.code_fingerprint.cache_clear()
        start = time.perf_counter()
        cache.cached_wad("items", params, 0, folder)
        cold_hit = (time.perf_counter() - start) * 1000
        hit = median_ms(lambda: cache.cached_wad("items", params, 0, folder), repeats)
    print(f"DoomItems WAD build from scratch (layout, ACS compile, validation, packing): {warm:.1f} ms "
          f"median of {repeats}")
    for name in first:
        print(f"  {name:<20} {again[name]:7.1f} ms   first in this process: {first[name]:7.1f} ms")
    print(f"cache miss (build + atomic write): {miss:.1f} ms; cache hit: {hit:.2f} ms median "
          f"(first in process, hashing wadgym's sources: {cold_hit:.1f} ms)")


def speed_ratios(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        wad = str(cache.cached_wad("items", items.PRESETS["default"], 0, folder))
        rng = np.random.default_rng(0)
        action_ids = rng.integers(0, len(ACTION_SETS["basic"]), size=EPISODE_STEPS).tolist()
        game, actions = bare_game(wad)
        same = gym.make("DoomItems-v0", cache_dir=folder, resolution=(120, 160))
        default = gym.make("DoomItems-v0", cache_dir=folder)
        wrapper = vizdoom_wrapper_env(wad)
        runs = {"bare DoomGame 160x120 gray": lambda: time_bare(game, actions, action_ids),
                "DoomItems-v0 120x160 gray (same res)": lambda: time_env(same, action_ids),
                "DoomItems-v0 60x80 (2x2 mean, default)": lambda: time_env(default, action_ids),
                "vizdoom's gymnasium wrapper 160x120": lambda: time_env(wrapper, action_ids)}
        for env in (same, default, wrapper):
            env.reset(seed=0)
        results = {name: [] for name in runs}
        for _ in range(rounds + 1):  # the first round warms up and is dropped
            for name, run in runs.items():
                results[name].append(run())
        game.close()
        for env in (same, default, wrapper):
            env.close()
    bare = results.pop("bare DoomGame 160x120 gray")[1:]
    print(f"\nsteps/s (frame_skip {FRAME_SKIP}, {rounds} rounds of one {EPISODE_STEPS}-step episode each; "
          f"'best' compares each one's fastest round, which load on a shared machine disturbs least):")
    print(f"  {'bare DoomGame 160x120 gray':<38} median {statistics.median(bare):6.0f}  best {max(bare):6.0f}")
    for name, values in results.items():
        values = values[1:]
        ratios = [v / b for v, b in zip(values, bare)]
        quartiles = statistics.quantiles(ratios, n=4)
        print(f"  {name:<38} median {statistics.median(values):6.0f}  best {max(values):6.0f}   ratio to bare: "
              f"median {statistics.median(ratios):.3f} (quartiles {quartiles[0]:.3f}-{quartiles[2]:.3f}), "
              f"best {max(values) / max(bare):.3f}")


def main() -> None:
    """The target (issue 4): "same res" at least 0.95 of the bare loop."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--build-repeats", type=int, default=20)
    args = parser.parse_args()
    print(f"wadgym env speed bench (vizdoom {vzd.__version__}, gymnasium {gym.__version__})")
    build_times(args.build_repeats)
    speed_ratios(args.rounds)


if __name__ == "__main__":
    main()
