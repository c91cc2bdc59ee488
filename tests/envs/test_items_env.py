"""ItemsEnv on the real engine: Gymnasium and SB3 contracts, seeding, info, rewards, episode ends, bad kwargs."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from wadgym.envs import cache
from wadgym.envs.doom_env import RESET_ATTEMPTS, BlockMean, BlockSample
from wadgym.envs.items import ItemsEnv
from wadgym.envs.scenarios import build_scenario_wad, items
from wadgym.wads import write_wad

SPECS = [spec for spec in gym.registry.values() if str(spec.entry_point).startswith("wadgym.")]
POSITION = ("POSITION_X", "POSITION_Y", "ANGLE")


def rollout(env, seed, actions):
    """Observations and rewards of `actions` from reset(seed)."""
    observation, info = env.reset(seed=seed)
    observations, rewards = [observation], []
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        observations.append(observation)
        rewards.append(reward)
        if terminated or truncated:
            break
    return np.stack(observations), rewards, info


def test_registered_variants_exist():
    assert {"DoomItems-v0", "DoomItemsHard-v0", "DoomItemsMaze-v0"} <= {s.id for s in SPECS}
    assert all(s.max_episode_steps for s in SPECS)


@pytest.mark.filterwarnings("ignore:.*render_mode='human' needs a display")  # check_env tries every mode
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_passes_gymnasium_and_sb3_checkers(spec, make_env):
    env = make_env(spec.id, render_mode="rgb_array")
    check_env(env.unwrapped)
    sb3_check_env(env.unwrapped, warn=True)
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (120, 160, 3)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_seed_fixes_items_and_rollout(spec, make_env):
    env = make_env(spec.id)
    actions = np.random.default_rng(0).integers(0, env.action_space.n, size=40)
    first = rollout(env, 7, actions)
    second = rollout(env, 7, actions)
    np.testing.assert_array_equal(first[0], second[0])
    assert first[1] == second[1]
    np.testing.assert_array_equal(first[2]["item_positions"], second[2]["item_positions"])

    positions = [env.reset(seed=s)[1]["item_positions"] for s in (1, 2, 3)]
    assert not np.array_equal(positions[0], positions[1]) and not np.array_equal(positions[1], positions[2])
    unseeded = [env.reset()[1]["item_positions"] for _ in range(3)]
    assert not np.array_equal(unseeded[0], unseeded[1]) and not np.array_equal(unseeded[1], unseeded[2])


class ObjectsItemsEnv(ItemsEnv):
    """ItemsEnv whose engine also reports every actor's position (state.objects)."""

    def configure_game(self, game):
        game.set_objects_info_enabled(True)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_info_positions_are_where_the_items_are(spec, wad_cache):
    env = ObjectsItemsEnv(cache_dir=wad_cache, **spec.kwargs)
    try:
        for seed in (0, 1):
            _, info = env.reset(seed=seed)
            objects = env.game.get_state().objects
            actual = sorted((o.position_x, o.position_y) for o in objects if o.name == "WadgymItem")
            assert sorted(map(tuple, info["item_positions"].tolist())) == actual
            assert info["items_total"] == env.params.n_items == len(actual)
            assert info["items_remaining"].all() and info["items_collected"] == 0
            player = next(o for o in objects if o.name == "DoomPlayer")
            gaps = np.hypot(info["item_positions"][:, 0] - player.position_x,
                            info["item_positions"][:, 1] - player.position_y)
            assert gaps.min() >= env.params.min_start_distance
    finally:
        env.close()


def test_walking_onto_every_item_collects_it_and_terminates(make_env, steer):
    """The items are where info says, a player at full health (100) picks them up, and health stays 100."""
    env = make_env("DoomItems-v0", n_items=3, game_variables=POSITION + ("HEALTH",), step_penalty=0.01)
    observation, info = env.reset(seed=5)
    total, steps, terminated, truncated = 0.0, 0, False, False
    while not (terminated or truncated):
        before = info["items_remaining"].copy()
        observation, reward, terminated, truncated, info = env.step(steer(observation, info))
        total += reward
        steps += 1
        collected = int(before.sum() - info["items_remaining"].sum())
        assert reward == pytest.approx(collected - 0.01)
        assert info["items_collected"] == 3 - info["items_remaining"].sum()
    assert terminated and not truncated
    assert info["items_collected"] == info["items_total"] == 3 and not info["items_remaining"].any()
    assert total == pytest.approx(3 - 0.01 * steps)
    assert observation["gamevariables"][3] == 100


def test_time_limit_truncates_without_terminating(make_env):
    env = make_env("DoomItems-v0", max_episode_steps=5)
    env.reset(seed=0)
    ends = [env.step(2)[2:4] for _ in range(5)]  # turning in place collects nothing
    assert ends[:4] == [(False, False)] * 4 and ends[4] == (False, True)
    assert gym.spec("DoomItems-v0").max_episode_steps == 300


def test_item_reward_scales_and_engine_timeout_is_off(make_env):
    env = make_env("DoomItems-v0", item_reward=2.5)
    env.reset(seed=0)
    assert env.unwrapped.game.get_episode_timeout() == 0
    assert env.unwrapped.item_reward == 2.5


def test_observation_formats(make_env):
    gray = make_env("DoomItems-v0")
    assert gray.observation_space == gym.spaces.Box(0, 255, (60, 80, 1), np.uint8)
    color = make_env("DoomItems-v0", color=True, resolution=(120, 160), game_variables=POSITION)
    observation, _ = color.reset(seed=0)
    assert observation["screen"].shape == (120, 160, 3) and observation["gamevariables"].dtype == np.float32
    assert tuple(observation["gamevariables"][:2]) == (512, 512)  # the arena's centre
    assert color.observation_space.contains(observation)


def test_gray_observation_is_the_same_with_and_without_rendering(make_env):
    actions = [0, 0, 1, 3, 0, 4, 0, 0]
    plain = rollout(make_env("DoomItems-v0"), 3, actions)[0]
    rendered = rollout(make_env("DoomItems-v0", render_mode="rgb_array"), 3, actions)[0]
    np.testing.assert_array_equal(plain, rendered)


def test_close_frees_the_engine(make_env):
    env = make_env("DoomItems-v0")
    env.reset(seed=0)
    game = env.unwrapped.game
    env.close()
    assert not game.is_running() and env.unwrapped.game is None
    env.close()  # closing twice is allowed


def test_human_render_mode_headless_warns_and_runs_without_window(make_env, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.warns(UserWarning, match="needs a display"):
        env = make_env("DoomItems-v0", render_mode="human", frame_skip=32)
    env.reset(seed=0)
    assert env.step(0)[0].shape == (60, 80, 1) and env.render() is None


@pytest.mark.parametrize("kwargs, message", [
    ({"n_itemz": 3}, "unknown argument.*n_itemz.*valid: layout.*n_items"),
    ({"n_items": 100}, "n_items=100 is out of range; valid: 1 to 29"),
    ({"n_items": 2.5}, "n_items=2.5 must be a whole number from 1 to 29"),
    ({"wall": "NOPE"}, "unknown wall texture 'NOPE'"),
    ({"player_invulnerable": "yes"}, "player_invulnerable='yes' is not valid; choose one of True, False"),
    ({"map_seed": -1}, "map_seed=-1 is out of range; valid: 0 or more"),
    ({"item_reward": float("nan")}, "item_reward=nan must be a finite number"),
    ({"frame_skip": 2.5}, "frame_skip=2.5 must be a whole number from 1 to 64"),
    ({"item_scale": 0}, "item_scale=0 is out of range"),
    ({"item_parent": "Shotgun"}, "item_parent='Shotgun' is not valid; choose one of 'Soulsphere', 'Medikit'"),
    ({"layout": "spiral"}, "layout='spiral' is not valid; choose one of 'arena', 'maze'"),
    ({"preset": "easy"}, "preset='easy' is not valid.*'default', 'hard'"),
    ({"frame_skip": 0}, "frame_skip=0 is out of range; valid: 1 to 64"),
    ({"resolution": (50, 50)}, r"resolution=\(50, 50\) is not reachable.*\(60, 80\)"),
    ({"render_resolution": "100x100"}, "render_resolution='100x100' is not a ViZDoom resolution; valid: .*160x120"),
    ({"render_mode": "ascii"}, "render_mode='ascii' is not valid"),
    ({"action_set": "all"}, "action_set='all' is not valid; choose one of basic, extended"),
    ({"downsample": "max"}, "downsample='max' is not valid; choose one of 'stride', 'mean'"),
    ({"game_variables": ("HEALTH", "MANA")}, "unknown: \\['MANA'\\]; valid: .*POSITION_X"),
    ({"n_items": 29, "min_item_distance": 400}, "do not fit in the free floor"),
    ({"min_start_distance": 1000}, "min_start_distance=1000 and wall_clearance=32: no floor point is"),
    ({"n_items": 8, "min_start_distance": 560},
     "n_items=8, min_item_distance=96, min_start_distance=560 and wall_clearance=32 do not fit"),
    ({"layout": "maze", "n_items": 20, "min_item_distance": 250}, "n_items=20, min_item_distance=250, .* do not fit"),
    ({"layout": "maze", "rows": 9}, "rows=9 is out of range; valid: 1 to 8"),
])
@pytest.mark.filterwarnings("ignore:.*not in the possible render_modes")  # gymnasium's, before ours
def test_bad_arguments_raise_value_error_listing_valid_choices(kwargs, message, make_env):
    with pytest.raises(ValueError, match=message):
        make_env("DoomItems-v0", **kwargs)


@pytest.mark.parametrize("shape", [(120, 160), (120, 160, 3)])
@pytest.mark.parametrize("f", [1, 2, 4, 5])
def test_block_mean_averages_blocks(shape, f):
    frame = np.random.default_rng(f).integers(0, 256, shape, dtype=np.uint8)
    downsample = BlockMean(shape, f)
    channels = shape[2:] or (1,)  # gray frames come out with a channel axis
    expected = frame.reshape(shape[0] // f, f, shape[1] // f, f, *channels).mean(axis=(1, 3)).astype(np.uint8)
    first = downsample(frame)
    np.testing.assert_array_equal(first, expected)
    second = downsample(frame[::-1].copy())
    assert f == 1 or not np.shares_memory(first, second)  # each call returns its own array


@pytest.mark.parametrize("shape", [(120, 160), (120, 160, 3)])
@pytest.mark.parametrize("f", [1, 2, 4, 5])
def test_block_sample_keeps_each_blocks_centre_pixel(shape, f):
    frame = np.random.default_rng(f).integers(0, 256, shape, dtype=np.uint8)
    downsample = BlockSample(shape, f)
    first = downsample(frame)
    assert first.shape == (shape[0] // f, shape[1] // f, *(shape[2:] or (1,)))  # gray gets a channel axis
    np.testing.assert_array_equal(first[1, 2], np.atleast_1d(frame[f + f // 2, 2 * f + f // 2]))
    second = downsample(frame[::-1].copy())
    assert f == 1 or not np.shares_memory(first, second)  # each call returns its own array
    assert f == 1 or not np.shares_memory(first, frame)


@pytest.mark.parametrize("downsample", ["stride", "mean"])
def test_both_downsamplers_give_the_declared_observations(downsample, make_env):
    env = make_env("DoomItems-v0", downsample=downsample)
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    assert observation.shape == (60, 80, 1)


def wad_in_place_of(monkeypatch, folder, params, **placement) -> None:
    """Store, as `params`' cached WAD in `folder`, the arena built with `placement` overrides and no room
    check: the env then meets ACS placements that fall short (which the check keeps parameters from doing)."""
    monkeypatch.setattr(items, "check_room_for_items", lambda *args: None)
    data = build_scenario_wad("items", dataclasses.replace(params, **placement), 0)
    write_wad(cache.cache_dir(folder) / f"items-{cache.wad_key(cache.scenario_description('items', params, 0))}.wad", data)


def test_reset_retries_with_fresh_engine_seeds_when_acs_placement_falls_short(monkeypatch, tmp_path):
    # With min_start_distance=560, ACS places only 4-7 of 8 items for the first engine seed of reset(seed=36).
    params = dataclasses.replace(items.PRESETS["default"], n_items=8)
    wad_in_place_of(monkeypatch, tmp_path, params, min_start_distance=560)
    env = ItemsEnv(n_items=8, cache_dir=str(tmp_path))
    try:
        _, info = env.reset(seed=36)
        assert info["items_total"] == 8
        assert np.hypot(*(info["item_positions"] - 512).T).min() >= 560   # the tight WAD's placement
        assert np.array_equal(env.reset(seed=36)[1]["item_positions"], info["item_positions"])   # still seeded
    finally:
        env.close()


def test_reset_gives_up_with_a_clear_error_when_placement_always_falls_short(monkeypatch, tmp_path):
    params = dataclasses.replace(items.PRESETS["default"], n_items=8)
    wad_in_place_of(monkeypatch, tmp_path, params, min_start_distance=1000)
    env = ItemsEnv(n_items=8, cache_dir=str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match=rf"ACS placed 0 of 8 items in MAP01 in each of {RESET_ATTEMPTS} "
                                               rf"episodes started with fresh engine seeds"):
            env.reset(seed=0)
    finally:
        env.close()
