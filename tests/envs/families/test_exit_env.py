"""The exit family on the real engine: the start and the exit are where info says, in rooms far enough apart;
walking onto the exit ends the episode with +1 (counted by the engine); push doors let the scripted walker
through; shaping pays the rooms crossed towards the exit; seeding fixes the episode; bad parameters are
refused. (The contracts every id keeps are in test_registry.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from wadgym.envs.families.exit import ExitEnv
from wadgym.envs.scenarios.building import room_at, room_distances


class ObjectsExitEnv(ExitEnv):
    """ExitEnv whose engine also reports every actor's position (state.objects)."""

    def configure_game(self, game):
        game.set_objects_info_enabled(True)


def play(env, policy, max_steps: int = 1000):
    """Steps of `policy(env)` until the episode ends: (rewards, last info, terminated)."""
    rewards, terminated, truncated, info = [], False, False, None
    while not (terminated or truncated) and len(rewards) < max_steps:
        _, reward, terminated, truncated, info = env.step(policy(env))
        rewards.append(reward)
    return rewards, info, terminated


def reference(env) -> int:
    return env.unwrapped.reference_action()


@pytest.mark.parametrize("preset, kwargs", [("default", {}), ("hard", {}),
                                            ("v1", {"spawn": "pairs", "exit_look": "lamp", "min_rooms": 3})])
def test_start_and_exit_are_where_info_says_in_rooms_far_enough_apart(preset, kwargs, wad_cache):
    """Per episode, a start room and an exit room min_rooms apart (spawn "pairs"; in a sprawl building too)."""
    env = ObjectsExitEnv(preset=preset, num_levels=2, cache_dir=wad_cache, **kwargs)
    try:
        for seed in (0, 1, 2):
            _, info = env.reset(seed=seed)
            objects = env.game.get_state().objects
            exits = [(o.position_x, o.position_y) for o in objects if o.name == "WadgymExit"]
            player = next(o for o in objects if o.name == "DoomPlayer")
            assert exits == [tuple(info["exit_position"].tolist())]
            assert (player.position_x, player.position_y) == tuple(info["start_position"].tolist())
            plan, p = env.level_plan(info["level_seed"]), env.params
            for room, (x, y) in ((info["exit_room"], info["exit_position"]),
                                 (info["start_room"], info["start_position"])):
                x0, y0, x1, y1 = plan.cells[room]
                assert x0 + p.wall_clearance <= x <= x1 - p.wall_clearance
                assert y0 + p.wall_clearance <= y <= y1 - p.wall_clearance
            apart = room_distances(plan, info["start_room"])[info["exit_room"]]
            assert info["rooms_apart"] == apart == info["rooms_to_exit"] >= p.min_rooms
            assert not p.max_rooms or apart <= p.max_rooms
            assert info["room"] == info["start_room"] and not info["exit_reached"] and info["score"] == 0
    finally:
        env.close()


def test_reaching_the_exit_ends_the_episode_with_plus_one(make_env):
    env = make_env("DoomExit-v0", step_penalty=0.01, num_levels=3)
    _, info = env.reset(seed=4)
    rewards, info, terminated = play(env, reference, 300)
    assert terminated and info["exit_reached"] and info["score"] == 1
    assert rewards[-1] == pytest.approx(1 - 0.01) and rewards[:-1] == pytest.approx([-0.01] * (len(rewards) - 1))
    assert info["room"] == info["exit_room"] and info["rooms_to_exit"] == 0
    x, y, _ = env.unwrapped.player_pose()
    assert np.hypot(*(info["exit_position"] - (x, y))) < 16 + 20 + 20   # touching it: the radii, one step's slack


def test_the_episode_ends_in_the_step_the_engine_counts_the_exit(make_env):
    """Termination follows ITEMCOUNT (the exit's pickup), step for step: not a distance Python measures."""
    env = make_env("DoomExit-v0", num_levels=1, game_variables=("ITEMCOUNT",))
    env.reset(seed=0)
    counts, ends = [], []
    terminated = False
    while not terminated:
        observation, reward, terminated, _, _ = env.step(env.unwrapped.reference_action())
        counts.append(observation["gamevariables"][0])
        ends.append((reward, terminated))
    assert counts[:-1] == [0] * (len(counts) - 1) and counts[-1] == 1
    assert ends[:-1] == [(0.0, False)] * (len(ends) - 1) and ends[-1] == (1.0, True)


def test_push_doors_open_for_the_walker(make_env):
    """Every corridor has a door: the scripted walker (forward, turns; no use button) gets through them."""
    env = make_env("DoomExitHard-v0", rows=2, cols=3, door_chance=1.0, min_rooms=3, num_levels=1)
    _, info = env.reset(seed=0)
    plan = env.unwrapped.level_plan(info["level_seed"])
    assert plan.openings and all(o.door for o in plan.openings) and info["rooms_apart"] >= 3
    rewards, info, terminated = play(env, reference, 600)
    assert terminated and info["exit_reached"]


def test_shaping_pays_the_way_covered_towards_the_exit(make_env):
    off = make_env("DoomExit-v0", num_levels=2)
    off.reset(seed=6)
    rewards, _, _ = play(off, reference, 300)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1) and rewards[-1] == 1.0   # off by default

    env = make_env("DoomExit-v0", num_levels=2, shaping=0.5)
    _, info = env.reset(seed=6)
    way, rewards, terminated = [info["way_to_exit"]], [], False
    while not terminated:
        _, reward, terminated, _, info = env.step(reference(env))
        way.append(info["way_to_exit"])
        rewards.append(reward)
    assert info["exit_reached"] and way[-1] == 0 and way[0] > 500
    assert sum(rewards) == pytest.approx(1 + 0.5)                   # the whole way: shaping sums to c
    drops = -np.diff(way) / way[0] * 0.5
    assert rewards[:-1] == pytest.approx(drops[:-1].tolist()) and rewards[-1] == pytest.approx(1 + drops[-1])
    assert sum(drops > 0) > 0.5 * len(drops)                        # most steps get nearer, turns stay put


def test_shaping_takes_back_what_walking_away_earned(make_env):
    """Random steps towards the exit and away: the shaping sums to the drop in the way to the exit."""
    env = make_env("DoomExit-v0", num_levels=2, shaping=1.0, max_episode_steps=300)
    _, info = env.reset(seed=0)
    start = info["way_to_exit"]
    rng = np.random.default_rng(0)
    rewards, info, _ = play(env, lambda e: int(rng.integers(5)))
    assert min(rewards) < -0.01 and max(rewards) > 0.01 and not info["exit_reached"]   # both ways
    x, y, _ = env.unwrapped.player_pose()
    assert room_at(env.unwrapped.level_plan(info["level_seed"]), x, y) in (info["room"], None)
    assert sum(rewards) == pytest.approx((start - info["way_to_exit"]) / start)


def test_new_room_reward_pays_each_room_first_entered(make_env):
    """The reference walks start room -> middle room -> exit room: two rooms first entered, each paid once
    in the step the player enters it; off by default."""
    env = make_env("DoomExit-v0", num_levels=2, new_room_reward=0.25)
    _, info = env.reset(seed=6)
    assert info["rooms_visited"] == 1 and info["rooms_apart"] == 2
    rooms, rewards, terminated = [info["room"]], [], False
    while not terminated:
        _, reward, terminated, _, info = env.step(reference(env))
        rooms.append(info["room"])
        rewards.append(reward)
    entered = [i for i in range(1, len(rooms)) if rooms[i] not in rooms[:i]]
    assert len(entered) == 2 and info["rooms_visited"] == 3
    bonus = [0.25 if i + 1 in entered else 0.0 for i in range(len(rewards))]
    bonus[-1] += 1.0                                                # the exit's own +1 in the last step
    assert rewards == pytest.approx(bonus)
    off = make_env("DoomExit-v0", num_levels=2)
    off.reset(seed=6)
    rewards, info, _ = play(off, reference, 300)
    assert sum(rewards) == 1.0 and info["rooms_visited"] == 3


def test_seed_fixes_level_start_and_exit(make_env):
    env = make_env("DoomExit-v0", num_levels=20)
    keys = ("level_seed", "start_room", "exit_room")

    def episode(seed):
        _, info = env.reset(seed=seed)
        return tuple(info[k] for k in keys) + tuple(info["start_position"]) + tuple(info["exit_position"])

    assert episode(3) == episode(3)
    assert len({episode(s) for s in range(6)}) == 6


@pytest.mark.parametrize("kwargs, message", [
    ({"min_rooms": 5, "max_rooms": 0},
     r"min_rooms=5: no room is sure to lie that far .* rows=3 x cols=3 rooms; valid: 1 to 4"),
    ({"min_rooms": 0}, "min_rooms=0 is out of range; valid: 1 to 14"),
    ({"min_rooms": 3}, "max_rooms=2 must be 0 \\(no limit\\) or at least min_rooms=3"),
    ({"rows": 0}, "rows=0 is out of range; valid: 1 to 8"),
    ({"light_min": 200, "light_max": 100}, "light_min=200 must be at most light_max=100"),
    ({"wall_clearance": 100}, r"wall_clearance=100 leaves no floor in the smallest rooms \(192 units across"),
    ({"door_width": 300}, "door_width=300 must be at most cell_size - 64 = 256"),
    ({"corridor": 1000}, "corridor=1000 is out of range; valid: 0 to 256"),
    ({"door_chance": 2}, "door_chance=2 is out of range; valid: 0.0 to 1.0"),
    ({"shaping": float("nan")}, "shaping=nan must be a finite number"),
    ({"new_room_reward": float("inf")}, "new_room_reward=inf must be a finite number"),
    ({"exit_reward": "1"}, "exit_reward='1' must be a finite number"),
    ({"n_items": 3}, "unknown argument.*n_items; valid: exit_reward, step_penalty, shaping.* min_rooms"),
    ({"exit_look": "door"}, "exit_look='door' is not valid; choose one of 'lamp', 'armor', 'mixed'"),
])
@pytest.mark.filterwarnings("ignore:.*not in the possible render_modes")
def test_bad_arguments_raise_value_error(kwargs, message, make_env):
    with pytest.raises(ValueError, match=message):
        make_env("DoomExit-v0", **kwargs)


@pytest.mark.parametrize("preset, spawn", [("v1", "dense"), ("hard_v1", "sparse"), ("v1", "very_sparse")])
def test_a_fixed_exit_and_the_start_spots_are_where_info_says(preset, spawn, wad_cache):
    """spawn != "pairs": the exit is the map's thing, the same in every episode of a level; the player starts at
    one of the level's start spots (a dense level's episodes at several), as far from the exit as info says."""
    from wadgym.envs.families.exit import EXIT_CLASSES, EXIT_TID, START_TID

    env = ObjectsExitEnv(preset=preset, spawn=spawn, num_levels=1, start_level=10_000, cache_dir=wad_cache)
    try:
        starts = set()
        for seed in range(5):
            _, info = env.reset(seed=seed)
            level = env.build_level(info["level_seed"])
            spots = {(t.x, t.y) for t in level.map.things if t.tid >= START_TID}
            exit_thing = next(t for t in level.map.things if t.tid == EXIT_TID)
            objects = env.game.get_state().objects
            exits = [(o.position_x, o.position_y) for o in objects if o.name in EXIT_CLASSES.values()]
            player = next(o for o in objects if o.name == "DoomPlayer")
            assert exits == [tuple(info["exit_position"].tolist())] == [(exit_thing.x, exit_thing.y)]
            start = tuple(info["start_position"].tolist())
            assert (player.position_x, player.position_y) == start and start in spots
            plan = env.level_plan(info["level_seed"])
            assert room_at(plan, *start) == info["start_room"] and room_at(plan, *exits[0]) == info["exit_room"]
            apart = room_distances(plan, info["start_room"])[info["exit_room"]]
            assert info["rooms_apart"] == apart == info["rooms_to_exit"] >= env.params.min_rooms
            starts.add(start)
        assert len(starts) > 1 if spawn == "dense" else len(starts) == 1
    finally:
        env.close()


@pytest.mark.parametrize("env_id", ["DoomExit-v0", "DoomExitHard-v0", "DoomExit-v1", "DoomExitHard-v1"])
def test_reference_policy_finds_the_exit(env_id, make_env):
    """The scripted reference of the learning benchmark follows the room graph to the exit (v1: through
    corridors that turn)."""
    env = make_env(env_id, num_levels=3, start_level=10_000)
    for seed in (0, 1):
        env.reset(seed=seed)
        _, info, terminated = play(env, reference, 1000)
        assert terminated and info["exit_reached"]


def test_the_exit_can_look_like_the_green_armour_and_mixed_draws_the_look_per_level(make_env):
    """exit_look="armor" (my_way_home's goal): the green armour's sprite, reached as the lamp is; "mixed" draws
    one of the two per level, after the building and its look: the rest of each level is the lamp's."""
    from wadgym.envs.families.exit import ARMOR_EXIT_CLASS, EXIT_CLASS, Params, build

    env = make_env("DoomExit-v0", exit_look="armor", num_levels=2)
    env.reset(seed=0)
    _, info, terminated = play(env, reference, 300)
    assert terminated and info["exit_reached"] and info["score"] == 1
    looks = set()
    for seed in range(8):
        mixed = build(np.random.default_rng(seed), Params(exit_look="mixed"))
        lamp = build(np.random.default_rng(seed), Params())
        looks.add(mixed.actors[0].name)
        assert mixed.map.build() == lamp.map.build()
        assert mixed.scripts.replace(ARMOR_EXIT_CLASS, EXIT_CLASS) == lamp.scripts
    assert looks == {EXIT_CLASS, ARMOR_EXIT_CLASS}
