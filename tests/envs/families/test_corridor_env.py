"""The corridor family: generated corridors (turns, bays, cover) that keep their walls apart, levels that are a
pure function of their seed, the ENTER script's arms and the monsters' settings, the rewards (progress along
the way, the goal, death), the scripted reference past random on held-out levels, ViZDoom's deadly_corridor
played through the id, and bad parameters refused in one line. (The contracts every id keeps, both env
checkers among them, are in test_registry.py.)"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from wadgym.envs.families import corridor
from wadgym.envs.families.corridor import PRESETS, WALL, CorridorEnv, corridor_plan, in_the_open, way_to_goal
from wadgym.wads import iwad, read_lumps

FORWARD = 5  # the "attack_move" set's forward


@pytest.fixture
def make_corridor(wad_cache):
    """make_corridor(**kwargs) -> CorridorEnv on the session's WAD cache, closed at the end."""
    envs = []

    def make(**kwargs):
        env = CorridorEnv(cache_dir=wad_cache, **{"num_levels": 1, **kwargs})
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()


def test_monster_names_are_the_engines():
    for name in corridor.MONSTERS:
        assert iwad.actor_kind(name) == "monster", name


@pytest.mark.parametrize("preset", list(PRESETS))
def test_plans_keep_their_walls_apart_and_their_measures(preset):
    """100 levels of each preset: the way's length and width in range, turns at right angles that never head
    back west, every bay clear of every space but its own leg, every pillar inside its leg with a lane beside it,
    every monster in the open."""
    p = PRESETS[preset]
    turns, widths = set(), set()
    for seed in range(100):
        plan = corridor_plan(np.random.default_rng(seed), p)
        assert p.length_min <= plan.length <= p.length_max and p.width_min <= plan.width <= p.width_max
        assert p.n_monsters_min <= len(plan.bays) <= p.n_monsters_max and len(plan.pillars) == p.cover
        assert all(heading != (-1, 0) for _, heading, _ in plan.legs)
        turns.add(len(plan.legs) - 1)
        widths.add(plan.width)
        for bay, own in zip(plan.bays, plan.bay_piece):
            assert all(corridor._gap(bay, piece) >= WALL for k, piece in enumerate(plan.pieces) if k != own)
            assert all(corridor._gap(bay, other) >= WALL for other in plan.bays if other != bay)
        for pillar, own in zip(plan.pillars, plan.pillar_piece):
            assert corridor._contains(plan.pieces[own], pillar)
        assert in_the_open(plan, np.array(plan.monsters)).all()
        assert way_to_goal(plan, *plan.path[0]) == plan.length and way_to_goal(plan, *plan.path[-1]) == 0
    assert turns == set(range(p.turns + 1)) and (len(widths) > 1) == (p.width_min < p.width_max)


def test_a_level_is_a_pure_function_of_its_seed():
    env = CorridorEnv(preset="hard")
    first, again, other = (env.build_levels_wad(seed, 1) for seed in (4, 4, 5))
    assert first == again and first != other
    lumps = dict(read_lumps(first))
    assert b"WadgymCorridorGoal" in lumps["DECORATE"]
    assert "${" not in lumps["SCRIPTS"].decode() and "global int 1:monsters_alive;" in lumps["SCRIPTS"].decode()


def test_enter_script_arms_the_player_and_open_sets_the_monsters(make_corridor):
    """Skill 5 doubles ammo given: the script takes it back to exactly `ammo`."""
    env = make_corridor(skill=5, ammo=50, player_health=60, n_monsters_min=5, n_monsters_max=5)
    _, info = env.reset(seed=0)
    assert (info["ammo"], info["health"], info["monsters_alive"]) == (50, 60, 5)
    plan = env.level_plan(env.level_seed)
    found = sorted(map(tuple, env.monster_positions().round().astype(int).tolist()))
    assert found == sorted(plan.monsters)
    assert info["way_to_goal"] == plan.length and info["progress"] == 0.0


def test_progress_pays_the_way_and_the_goal_ends_the_episode(make_corridor):
    """The scripted reference on one level: the progress reward sums to progress_reward (the whole way), the
    goal gives goal_reward in its step, kills kill_reward each."""
    env = make_corridor(start_level=10_000, progress_reward=2.0, goal_reward=3.0, kill_reward=0.25)
    _, info = env.reset(seed=0)
    total, rewards = 0.0, []
    while True:
        _, reward, terminated, truncated, info = env.step(env.reference_action())
        total += reward
        rewards.append(reward)
        assert not truncated and len(rewards) < 400
        if terminated:
            break
    assert info["goal_reached"] and info["score"] == 1.0 and info["progress"] == 1.0 and info["way_to_goal"] == 0
    assert total == pytest.approx(2.0 + 3.0 + 0.25 * info["kills"]) and rewards[-1] >= 3.0


def test_death_costs_the_penalty(make_corridor):
    env = make_corridor(player_health=1, skill=5, monsters=("ChaingunGuy",), death_penalty=0.5, cover=0)
    _, info = env.reset(seed=0)
    total, steps = 0.0, 0
    while True:
        _, reward, terminated, truncated, info = env.step(FORWARD)  # run past them, never fire
        total += reward
        steps += 1
        assert not truncated and steps < 300
        if terminated:
            break
    assert info["health"] == 0 and not info["goal_reached"] and info["score"] == 0.0
    assert total == pytest.approx(info["progress"] - 0.5)


def test_reference_beats_random_on_held_out_levels(wad_cache):
    """The same 5 seeded episodes, one on each of 5 held-out levels: the scripted reference takes the goal in at
    least 4, random in none (a random walk neither clears the monsters nor keeps to the way)."""
    env = gym.make("DoomCorridor-v0", start_level=10_000, num_levels=5, cache_dir=wad_cache)
    goals: dict[str, float] = {"reference": 0.0, "random": 0.0}
    try:
        for policy in goals:
            for seed in range(5):
                _, info = env.reset(seed=seed, options={"level_seed": 10_000 + seed})
                rng = np.random.default_rng(seed)
                while True:
                    action = env.unwrapped.reference_action() if policy == "reference" else int(rng.integers(9))
                    _, _, terminated, truncated, info = env.step(action)
                    if terminated or truncated:
                        break
                goals[policy] += info["score"]
    finally:
        env.close()
    assert goals["reference"] >= 4 and goals["random"] == 0


def test_plays_deadly_corridor_with_its_own_spaces_and_scenario_return(wad_cache):
    """wad="vizdoom:deadly_corridor": the id's spaces, the vest as the goal (its default), progress along the
    straight line to it, and the scenario's own return (the player's x, -100 at death) beside the score."""
    plain = gym.make("DoomCorridor-v0", cache_dir=wad_cache)
    env = gym.make("DoomCorridor-v0", wad="vizdoom:deadly_corridor")
    try:
        assert env.action_space == plain.action_space and env.observation_space == plain.observation_space
        assert env.unwrapped.goal == "GreenArmor" and env.unwrapped.hand_made.doom_skill == 5
        _, info = env.reset(seed=0)
        assert info["way_to_goal"] == 1312 and info["level_seed"] is None and "monsters_alive" not in info
        total = 0.0
        for _ in range(200):  # straight at the vest at skill 5: shot down on the way
            _, reward, terminated, truncated, info = env.step(FORWARD)
            total += reward
            if terminated or truncated:
                break
        assert terminated and info["health"] == 0 and info["score"] == 0.0
        assert total == pytest.approx(info["progress"] - 0.1)
        assert info["progress"] == pytest.approx(1 - math.dist(info["position"], (1312, 0)) / 1312)
        assert info["scenario_return"] == pytest.approx(info["position"][0] - 100)
        with pytest.raises(NotImplementedError, match="knows the corridors of the levels it builds only"):
            env.unwrapped.reference_action()
    finally:
        plain.close()
        env.close()


@pytest.mark.parametrize("kwargs, message", [
    ({"length_min": 2000}, "length_min=2000 is above length_max=1536"),
    ({"turns": 4}, "length_min=1024 is too short for turns=4: each of the 5 legs needs 352 units"),
    ({"cover": 2, "width_min": 64}, "cover=2 pillars of cover_size=16 leave no lane .* width_min from 96"),
    ({"n_monsters_min": 12, "n_monsters_max": 12}, "n_monsters_max=12 bays of bay_length=128 placed 'pairs' need"),
    ({"monsters": ("Demon",)}, r"unknown or unfit monster\(s\) \['Demon'\]; valid: ZombieMan"),
    ({"monsters": "ZombieMan"}, "monsters='ZombieMan' must be a non-empty sequence"),
    ({"placement": "circle"}, "placement='circle' is not valid; choose one of 'pairs', 'staggered', 'random'"),
    ({"skill": 6}, "skill=6 is out of range; valid: 1 to 5"),
    ({"ammo": 300}, "ammo=300 is out of range; valid: 1 to 200"),
    ({"damage_factor": 0}, "damage_factor=0 is out of range"),
    ({"death_penalty": float("nan")}, "death_penalty=nan must be a finite number"),
    ({"goal": "GreenArmor"}, "goal='GreenArmor' names the goal item .* pass it with wad="),
    ({"lenght_min": 900}, "unknown argument.*lenght_min; valid: progress_reward, goal_reward"),
])
def test_bad_arguments_are_refused_in_one_line(kwargs, message, wad_cache):
    with pytest.raises(ValueError, match=message) as error:
        CorridorEnv(cache_dir=wad_cache, **kwargs)
    assert "\n" not in str(error.value)


def test_reference_needs_the_attack_move_set(make_corridor):
    env = make_corridor(action_set="attack")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="reference_action needs action_set 'attack_move', not 'attack'"):
        env.reference_action()
