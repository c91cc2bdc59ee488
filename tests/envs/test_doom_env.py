"""DoomEnv, the env base, on the real engine (with the items family as the vehicle): observations and
buffers, frames, actions, bad engine arguments, levels and the engine restarts they cost, closing."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from wadgym.envs.doom_env import DoomEnv, env_arguments, map_name
from wadgym.envs.families.items import ItemsEnv

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


def test_observation_formats(make_env):
    gray = make_env("DoomItems-v0")
    assert gray.observation_space == gym.spaces.Box(0, 255, (60, 80, 1), np.uint8)
    color = make_env("DoomItems-v0", color=True, resolution=(120, 160), game_variables=POSITION)
    observation, _ = color.reset(seed=0)
    assert observation["screen"].shape == (120, 160, 3) and observation["gamevariables"].dtype == np.float32
    assert tuple(observation["gamevariables"][:2]) == (512, 512)  # the arena's centre
    assert color.observation_space.contains(observation)


def test_observed_variables_the_family_also_tracks(make_env):
    """ITEMCOUNT is tracked by the items family; observing it too still gives every variable asked for."""
    env = make_env("DoomItems-v0", game_variables=("POSITION_X", "ITEMCOUNT", "HEALTH", "ITEMCOUNT"))
    observation, _ = env.reset(seed=0)
    assert observation["gamevariables"].tolist() == [512, 0, 100, 0] and env.observation_space.contains(observation)


def test_gray_observation_is_the_same_with_and_without_rendering(make_env):
    actions = [0, 0, 1, 3, 0, 4, 0, 0]
    plain = rollout(make_env("DoomItems-v0"), 3, actions)[0]
    rendered = rollout(make_env("DoomItems-v0", render_mode="rgb_array"), 3, actions)[0]
    np.testing.assert_array_equal(plain, rendered)


@pytest.mark.parametrize("downsample", ["stride", "mean"])
def test_both_downsamplers_give_the_declared_observations(downsample, make_env):
    env = make_env("DoomItems-v0", downsample=downsample)
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    assert observation.shape == (60, 80, 1)



def test_close_frees_the_engine(make_env):
    env = make_env("DoomItems-v1")
    env.reset(seed=0)
    game = env.unwrapped.game
    env.close()
    assert not game.is_running() and env.unwrapped.game is None
    env.close()  # closing twice is allowed


def test_step_before_reset_and_bad_actions(make_env):
    env = make_env("DoomItems-v1").unwrapped
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    for action in (True, 5, -1, 1.5, "0", None, [0]):
        with pytest.raises(ValueError, match=r"action=.* is not in Discrete\(5\)"):
            env.step(action)
    for action in (0, np.int64(4), 2.0, np.array(3)):
        env.step(action)


@pytest.mark.parametrize("kwargs, message", [
    ({"num_levels": -1}, "num_levels=-1 is out of range; valid: 0 to"),
    ({"start_level": 2.5}, "start_level=2.5 must be a whole number"),
    ({"start_level": 2**31 - 10, "num_levels": 20}, "go past the last level seed"),
    ({"frame_skip": 2.5}, "frame_skip=2.5 must be a whole number from 1 to 64"),
    ({"frame_skip": 0}, "frame_skip=0 is out of range; valid: 1 to 64"),
    ({"resolution": (50, 50)}, r"resolution=\(50, 50\) is not reachable.*\(60, 80\)"),
    ({"resolution": (60.5, 80)}, r"resolution=\(60.5, 80\) is not reachable"),
    ({"resolution": 60}, r"resolution=60 is not reachable"),
    ({"render_resolution": "100x100"}, "render_resolution='100x100' is not a ViZDoom resolution; valid: .*160x120"),
    ({"render_resolution": 160}, "render_resolution=160 is not a ViZDoom resolution"),
    ({"render_mode": "ascii"}, "render_mode='ascii' is not valid"),
    ({"action_set": "all"}, "action_set='all' is not valid; choose one of basic, extended"),
    ({"action_set": ["MOVE_FORWARD"]}, r"action_set=\['MOVE_FORWARD'\] is not valid; choose one of basic"),
    ({"downsample": "max"}, "downsample='max' is not valid; choose one of 'stride', 'mean'"),
    ({"color": "yes"}, "color='yes' is not valid; choose True"),
    ({"game_variables": ("HEALTH", "MANA")},
     r"game_variables: unknown GameVariable names \['MANA'\]; valid: .*POSITION_X"),
    ({"game_variables": None}, "game_variables=None must be a sequence of GameVariable names"),
    ({"game_variables": "HEALTH"}, "game_variables='HEALTH' must be a sequence"),
    ({"buffers": ("depth", "sound")},
     r"buffers: unknown buffers \['sound'\]; valid: depth, labels, automap, automap_seen"),
    ({"buffers": ("automap", "automap_seen")}, r"buffers: 'automap' and 'automap_seen' are views of the engine's one "
                                                r"automap; choose one"),
    ({"preset": "easy"}, "preset='easy' is not valid; choose one of 'default', 'hard'"),
    ({"n_itemz": 3}, "unknown argument.*n_itemz; valid: item_reward, step_penalty, preset, num_levels.*n_items"),
])
@pytest.mark.filterwarnings("ignore:.*not in the possible render_modes")  # gymnasium's, before ours
def test_bad_engine_arguments_raise_value_error_listing_valid_choices(kwargs, message, make_env):
    with pytest.raises(ValueError, match=message):
        make_env("DoomItems-v1", **kwargs)


def test_bad_cache_dirs_are_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for cache_dir, message in ((blocker, "is a file, not a folder"), ("", "cache_dir='' must be a folder path"),
                               (5, "cache_dir=5 must be a folder path")):
        with pytest.raises(ValueError, match=message):
            ItemsEnv(cache_dir=cache_dir)


def test_visit_reward_pays_each_square_first_stood_in_and_leaves_the_score_alone(make_env):
    """Walk out of the arena's centre, turn on the spot, walk on: the bonus comes in exactly the steps that
    end in a square of `visit_cell` units not stood in before this episode (the start's counts), and
    turning on the spot earns (nearly: the walk's momentum) nothing."""
    cell = 64
    env = make_env("DoomItems-v0", item_reward=0.0, game_variables=POSITION, visit_reward=0.5, visit_cell=cell)
    observation, info = env.reset(seed=0)

    def square(observation):
        x, y = observation["gamevariables"][:2]
        return int(np.floor(x / cell)), int(np.floor(y / cell))

    seen, paid, expected = {square(observation)}, [], []
    assert info["cells_visited"] == 1
    for action in [0] * 12 + [1] * 12 + [0] * 12:    # forward, turn in place, forward
        observation, reward, terminated, truncated, info = env.step(action)
        here = square(observation)
        expected.append(0.5 if here not in seen else 0.0)
        seen.add(here)
        paid.append(reward)
        assert info["cells_visited"] == len(seen) and not terminated
    assert paid == expected
    assert sum(paid[:12]) >= 1.0 and sum(paid[12:24]) <= 0.5 and sum(paid[24:]) >= 1.0
    assert info["score"] == info["items_collected"]   # the task's own score, without the bonus
    env.reset(seed=0)
    assert env.unwrapped.visit_reward == 0.5 and env.step(1)[4]["cells_visited"] == 1   # a new episode: afresh
    off = make_env("DoomItems-v0", item_reward=0.0)
    _, info = off.reset(seed=0)
    rewards = [off.step(0)[1] for _ in range(12)]
    assert "cells_visited" not in info and rewards == [0.0] * 12


@pytest.mark.parametrize("kwargs, message", [
    ({"visit_reward": float("nan")}, "visit_reward=nan must be a finite number"),
    ({"visit_cell": 8}, "visit_cell=8 is out of range; valid: 16 to 1024"),
    ({"visit_cell": 64.5}, "visit_cell=64.5 must be a whole number from 16 to 1024"),
])
def test_bad_visit_arguments_name_what_is_valid(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ItemsEnv(**kwargs)


def test_env_arguments_come_from_every_class_in_the_hierarchy():
    names = env_arguments(ItemsEnv)
    assert names[:2] == ["item_reward", "step_penalty"] and {"num_levels", "buffers", "cache_dir"} <= set(names)


@pytest.mark.parametrize("color", [False, True])
def test_buffers_join_the_dict_observation(color, make_env):
    env = make_env("DoomItems-v1", buffers=("depth", "labels", "automap"), game_variables=POSITION, color=color,
                   num_levels=1)
    observation, _ = env.reset(seed=0)
    assert set(observation) == {"screen", "depth", "labels", "automap", "gamevariables"}
    assert env.observation_space.contains(observation)
    channels = 3 if color else 1
    assert observation["automap"].shape == (60, 80, channels) and observation["depth"].shape == (60, 80, 1)
    assert observation["depth"].std() > 0 and observation["automap"].any()  # real pictures, not blanks
    for _ in range(10):
        observation = env.step(3)[0]
    assert observation["labels"].max() >= 0 and env.observation_space.contains(observation)


def test_the_seen_automap_draws_only_the_walls_the_player_has_seen(make_env):
    env = make_env("DoomItems-v1", buffers=("automap_seen",), num_levels=1)
    observation, _ = env.reset(seed=0)
    assert set(observation) == {"screen", "automap_seen"} and observation["automap_seen"].shape == (60, 80, 1)
    drawn = [int((observation["automap_seen"] > 128).sum())]
    for _ in range(12):  # turn on the spot: more walls come into view, and stay on the map
        observation = env.step(1)[0]
        drawn.append(int((observation["automap_seen"] > 128).sum()))
    assert np.median(observation["automap_seen"]) == 0   # black where nothing was seen
    assert 0 < drawn[0] < drawn[-1], drawn


def test_a_level_range_is_one_wad_and_one_engine_start(make_env, monkeypatch):
    env = make_env("DoomItems-v1", num_levels=5, start_level=100)
    unwrapped = env.unwrapped
    starts = []
    start_engine = DoomEnv._start_engine
    monkeypatch.setattr(DoomEnv, "_start_engine", lambda self, *a: (starts.append(a[1]), start_engine(self, *a)))
    levels = [env.reset(seed=s)[1]["level_seed"] for s in range(20)]
    assert set(levels) <= set(range(100, 105)) and len(set(levels)) >= 4 and len(starts) == 1  # map switches
    assert unwrapped.map == map_name(levels[-1])
    env.reset(options={"level_seed": 7})  # outside the range: a WAD of its own, one restart
    assert len(starts) == 2 and unwrapped.level_seed == 7
    env.reset(seed=0)
    assert len(starts) == 3 and 100 <= unwrapped.level_seed < 105


def test_unlimited_levels_are_built_on_demand(make_env):
    env = make_env("DoomItems-v1")
    seeds = {env.reset(seed=s)[1]["level_seed"] for s in range(3)}
    assert len(seeds) == 3 and all(0 <= s < 2**31 for s in seeds)
    assert env.reset(seed=1)[1]["level_seed"] in seeds  # the same seed, the same level


def test_map_names_are_unique_lump_names():
    names = {map_name(s) for s in (0, 1, 35, 36, 2**31 - 1, 123456789)}
    assert len(names) == 6 and all(len(n) == 8 and n.isalnum() and n.isupper() for n in names)
