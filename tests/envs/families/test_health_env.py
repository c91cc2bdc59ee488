"""The health family on the real engine: the floor hurts on the engine's clock and kills, a medikit heals
and counts for ITEMCOUNT, poison hurts and does not count, pickups keep appearing where info says, the
scripted reference survives, bad parameters are refused. (Every id's contracts: test_registry.py.)"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from wadgym.envs.aiming import steer_towards
from wadgym.envs.families.health import HealthEnv
from wadgym.envs.scenarios.floor_grid import UNREACHABLE, FloorGrid
from wadgym.wads.udmf import DAMAGE_INTERVAL

SPECS = [spec for spec in gym.registry.values() if spec.entry_point == "wadgym.envs.families.health:HealthEnv"]
POSITION = ("POSITION_X", "POSITION_Y", "ANGLE")
TURN_LEFT = 1
# The engine hurts a player on a damaging floor when the level time is a multiple of the sector's damage
# interval (p_spec.cpp, P_PlayerInSpecialSector): every 8 steps at frame_skip 4.
STEPS_PER_HURT = DAMAGE_INTERVAL // 4


def test_the_floor_hurts_every_32_tics_until_the_player_dies(make_env):
    """Turning on the spot (no medikit taken): floor_damage every 8 steps, the rewards, death ends it."""
    env = make_env("DoomHealth-v0", floor_damage=25, death_penalty=5.0, health_reward=0.1, num_levels=1)
    _, info = env.reset(seed=0)
    assert info["health"] == 100 and info["score"] == 0
    healths, rewards, terminated, truncated = [], [], False, False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(TURN_LEFT)
        healths.append(info["health"])
        rewards.append(reward)
    assert terminated and not truncated
    drops = [i for i in range(1, len(healths)) if healths[i] < healths[i - 1]]
    assert [healths[i - 1] - healths[i] for i in drops] == [25, 25, 25, 25]   # 100 health: the 4th hurt kills
    assert np.diff(drops).tolist() == [STEPS_PER_HURT] * 3   # the engine's 32-tic clock
    assert drops[-1] == len(healths) - 1 and healths[-1] == 0
    # +1 per step alive, -5 for dying, and the shaping: 0.1 per health point lost (and gained).
    assert rewards == [1.0 - 2.5 * (i in drops) for i in range(len(rewards) - 1)] + [-2.5 - 5.0]
    assert info["score"] == len(rewards) - 1 and info["medikits_collected"] == 0


def test_no_floor_damage_no_hurt(make_env):
    env = make_env("DoomHealth-v0", floor_damage=0, num_levels=1)
    env.reset(seed=0)
    for _ in range(3 * STEPS_PER_HURT):
        _, reward, terminated, _, info = env.step(TURN_LEFT)
        assert info["health"] == 100 and reward == 1.0 and not terminated


def walk_to(env, observation, info, target, until, limit=200):
    """Steer for `target` (x, y) until `until(info)`; the last observation, info, the step's reward and the
    health before that step."""
    for _ in range(limit):
        x, y, angle = observation["gamevariables"][:3]
        health = info["health"]
        observation, reward, terminated, truncated, info = env.step(steer_towards((x, y, angle), target))
        assert not truncated
        if until(info) or terminated:
            return observation, info, reward, health
    pytest.fail(f"did not reach {target} in {limit} steps")


def test_a_medikit_heals_and_counts_and_a_new_one_appears(make_env):
    env = make_env("DoomHealth-v0", floor_damage=20, n_medikits=1, n_obstacles=0, spawn_interval=8, health_reward=0.5,
                   game_variables=POSITION + ("HEALTH", "ITEMCOUNT"), num_levels=1)
    observation, info = env.reset(seed=3)
    while info["health"] == 100:   # a medikit is taken only by a hurt player
        observation, _, _, _, info = env.step(TURN_LEFT)
    (target,) = info["medikit_positions"].tolist()
    observation, info, reward, before = walk_to(env, observation, info, target, lambda i: i["medikits_collected"])
    assert info["medikits_collected"] == 1 == observation["gamevariables"][4]   # ITEMCOUNT
    gained = info["health"] - before
    assert gained in (25, 5) and reward == pytest.approx(1.0 + 0.5 * gained)   # +25 (maybe the floor's -20 too)
    assert info["health"] == observation["gamevariables"][3]
    assert not len(info["medikit_positions"]) or info["medikit_positions"].tolist() != [target]
    for _ in range(3):   # refilled within spawn_interval tics, away from the player
        observation, _, _, _, info = env.step(TURN_LEFT)
    (new,) = info["medikit_positions"].tolist()
    assert np.hypot(new[0] - observation["gamevariables"][0], new[1] - observation["gamevariables"][1]) >= 128


def test_poison_hurts_and_does_not_count(make_env):
    env = make_env("DoomHealth-v0", floor_damage=0, n_medikits=1, n_poisons=1, poison_damage=30, n_obstacles=0,
                   game_variables=POSITION + ("HEALTH", "ITEMCOUNT"), num_levels=1)
    observation, info = env.reset(seed=4)
    (target,) = info["poison_positions"].tolist()
    observation, info, _, _ = walk_to(env, observation, info, target, lambda i: i["poisons_collected"])
    assert info["poisons_collected"] == 1 and info["health"] == 70 and info["medikits_collected"] == 0
    assert observation["gamevariables"][4] == 0 and not len(info["poison_positions"])


class ObjectsHealthEnv(HealthEnv):
    """HealthEnv whose engine also reports every actor's position (state.objects)."""

    def configure_game(self, game):
        game.set_objects_info_enabled(True)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_info_positions_are_where_the_pickups_are(spec, wad_cache):
    env = ObjectsHealthEnv(cache_dir=wad_cache, num_levels=2, **spec.kwargs)
    try:
        for seed in (0, 1):
            _, info = env.reset(seed=seed)
            for _ in range(30):
                _, _, terminated, _, info = env.step(env.unwrapped.reference_action())
                objects = env.game.get_state().objects if not terminated else []
                for name, key in (("WadgymMedikit", "medikit_positions"), ("WadgymPoison", "poison_positions")):
                    actual = sorted((o.position_x, o.position_y) for o in objects if o.name == name)
                    if not terminated:
                        assert sorted(map(tuple, info[key].tolist())) == actual
            assert len(info["medikit_positions"]) <= env.params.n_medikits
    finally:
        env.close()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_seed_fixes_the_episode_and_levels_differ(spec, make_env):
    env = make_env(spec.id, num_levels=3)
    actions = np.random.default_rng(0).integers(0, 5, size=30)

    def run(seed):
        _, info = env.reset(seed=seed)
        infos = [info]
        for action in actions:
            infos.append(env.step(action)[4])
        return [(i["health"], i["medikit_positions"].tolist(), i["poison_positions"].tolist()) for i in infos]

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_reference_policy_survives_the_time_limit(make_env):
    """The learning benchmark's scripted reference: nearest medikit along the floor, from the engine's positions."""
    env = make_env("DoomHealth-v0", start_level=10_000, num_levels=2)
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        done = terminated or truncated
    assert truncated and info["score"] == gym.spec("DoomHealth-v0").max_episode_steps
    assert info["medikits_collected"] >= 15


def test_reference_policy_walks_through_the_maze(make_env):
    env = make_env("DoomHealthSupreme-v0", start_level=10_000, num_levels=2, n_poisons=0, floor_damage=5)
    _, info = env.reset(seed=1)
    for _ in range(300):
        _, _, terminated, truncated, info = env.step(env.unwrapped.reference_action())
        assert not terminated
    assert info["medikits_collected"] >= 10


def test_floor_grid_finds_the_way_through_a_doorway():
    # Two rooms side by side joined by a doorway at the top of their shared wall; a pillar in the left one.
    grid = FloorGrid([(0, 0, 256, 256), (256, 0, 512, 256)], doors=[(256, 160, 256, 256)],
                     obstacles=[(96, 96, 160, 160)])
    distance = grid.distances((400, 40))
    assert distance[grid.index(400, 40)] == 0 and grid.steps_from(distance, (40, 40)) != UNREACHABLE
    assert not grid.free[grid.index(256, 40)] and grid.free[grid.index(256, 200)]   # wall vs doorway
    assert not grid.free[grid.index(128, 128)]                                     # the pillar
    x, y = grid.waypoint(distance, (200, 40), (400, 40))
    assert y > 100   # up to the doorway first, not straight at the wall
    walled = FloorGrid([(0, 0, 256, 256), (256, 0, 512, 256)])
    assert walled.steps_from(walled.distances((400, 40)), (40, 40)) == UNREACHABLE


def test_time_limit_and_score_name(make_env):
    assert all(spec.max_episode_steps == 525 for spec in SPECS) and len(SPECS) == 2
    env = make_env("DoomHealthSupreme-v0", living_reward=0.5)
    _, info = env.reset(seed=0)
    assert env.unwrapped.score_name == "steps" and env.unwrapped.living_reward == 0.5
    assert env.unwrapped.params.n_poisons == 6 and len(info["poison_positions"]) == 6


@pytest.mark.parametrize("kwargs, message", [
    ({"n_medikit": 3}, "unknown argument.*n_medikit; valid: living_reward, death_penalty.* n_medikits"),
    ({"n_medikits": 0}, "n_medikits=0 is out of range; valid: 1 to 28"),
    ({"n_medikits": 20, "n_poisons": 10}, "n_medikits=20 \\+ n_poisons=10 is more than 28 pickups"),
    ({"floor_damage": -5}, "floor_damage=-5 is out of range; valid: 0 to 100"),
    ({"medikit_health": 2.5}, "medikit_health=2.5 must be a whole number"),
    ({"spawn_interval": 0}, "spawn_interval=0 is out of range"),
    ({"layout": "cave"}, "layout='cave' is not valid; choose one of 'arena', 'maze'"),
    ({"light_min": 200, "light_max": 100}, "light_min=200 must be at most light_max=100"),
    ({"living_reward": float("inf")}, "living_reward=inf must be a finite number"),
    ({"n_medikits": 28, "min_item_distance": 400}, "do not fit in the free floor"),
    ({"min_player_distance": 2000}, "min_player_distance=2000 and wall_clearance=32 do not fit"),
    ({"n_obstacles": 60, "obstacle_size": 128}, "n_obstacles=60 pillars of obstacle_size=128 do not fit"),
])
@pytest.mark.filterwarnings("ignore:.*not in the possible render_modes")
def test_bad_arguments_raise_value_error(kwargs, message, make_env):
    with pytest.raises(ValueError, match=message):
        make_env("DoomHealth-v0", **kwargs)
