"""The items and maze scenarios: pure builds, readable ACS, item placement rules and player settings in the engine."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from wadgym.envs.scenarios import build_scenario_wad, items, maze
from wadgym.wads import read_lumps


def lumps(data: bytes) -> dict[str, bytes]:
    return dict(read_lumps(data))


def test_items_wad_is_a_pure_function_with_readable_scripts():
    first = build_scenario_wad("items", items.PRESETS["hard"], seed=4)
    assert first == build_scenario_wad("items", items.PRESETS["hard"], seed=4)
    assert first != build_scenario_wad("items", items.PRESETS["hard"], seed=5)  # other pillars
    scripts = lumps(first)["SCRIPTS"].decode()
    assert "global int 59:items_remaining;" in scripts and "global int 60:items_placed;" in scripts
    assert "global int 39:item20_x;  global int 40:item20_y;" in scripts
    assert "${" not in scripts and 'Spawn("WadgymItem"' in scripts
    decorate = lumps(first)["DECORATE"]
    assert b"ACTOR WadgymItem : Soulsphere" in decorate and b"Scale 1.0" in decorate
    assert b"+COUNTITEM" in decorate and b"+INVENTORY.ALWAYSPICKUP" in decorate and b"Inventory.Amount 0" in decorate


def test_maze_layout_is_a_pure_function_of_its_seed():
    params = maze.Params(n_layouts=3)
    textmap = [lumps(maze_wad)["TEXTMAP"] for maze_wad in
               (build_scenario_wad("maze", dataclasses.replace(params, n_layouts=1), seed=s) for s in (0, 0, 1))]
    assert textmap[0] == textmap[1] != textmap[2]
    levels = maze.build(np.random.default_rng(0), params)
    assert [level.name for level in levels] == maze.map_names(params) == ["MAP01", "MAP02", "MAP03"]
    longer = maze.build(np.random.default_rng(0), dataclasses.replace(params, n_layouts=4))
    assert [lv.scripts for lv in longer[:3]] == [lv.scripts for lv in levels]  # layout k does not depend on n


def test_maze_doors_join_every_room():
    doors = maze.maze_doors(np.random.default_rng(3), 4, 5, extra=0.0)
    assert len(doors) == 4 * 5 - 1  # a spanning tree
    reached, frontier = {0}, [0]
    while frontier:
        cell = frontier.pop()
        for a, b in doors:
            for nxt in ((b,) if a == cell else (a,) if b == cell else ()):
                if nxt not in reached:
                    reached.add(nxt)
                    frontier.append(nxt)
    assert reached == set(range(20))


def assert_placement_rules(info, params, floor, obstacles):
    positions = info["item_positions"]
    c = params.wall_clearance
    for x, y in positions:
        assert any(x0 + c <= x <= x1 - c and y0 + c <= y <= y1 - c for x0, y0, x1, y1 in floor)
        assert not any(x0 - c < x < x1 + c and y0 - c < y < y1 + c for x0, y0, x1, y1 in obstacles)
    for a, b in itertools.combinations(positions, 2):
        assert np.hypot(*(a - b)) >= params.min_item_distance


def test_hard_arena_items_avoid_walls_pillars_and_each_other(make_env):
    env = make_env("DoomItemsHard-v0")
    params = env.unwrapped.params
    _, _, pillars = items.arena_layout(np.random.default_rng(0), params)  # map_seed 0
    assert len(pillars) == params.n_obstacles
    for seed in range(4):
        _, info = env.reset(seed=seed)
        assert_placement_rules(info, params, [(0, 0, params.size, params.size)], pillars)


def test_maze_items_spread_over_the_rooms(make_env):
    env = make_env("DoomItemsMaze-v0")
    params = env.unwrapped.params
    seeds = maze.layout_seeds(np.random.default_rng(0), params)  # map_seed 0
    maps = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        maps.add(info["map"])
        plan = maze.maze_plan(seeds[maze.map_names(params).index(info["map"])], params)
        assert_placement_rules(info, params, plan.cells, [])
    assert len(maps) >= 4


def test_enter_script_sets_health_speed_and_clears_inventory(make_env):
    def distance_walked(**kwargs):
        env = make_env("DoomItems-v0", game_variables=("POSITION_X", "POSITION_Y", "HEALTH", "AMMO2"),
                       random_start_angle=False, n_items=1, min_start_distance=500, **kwargs)
        observation, _ = env.reset(seed=0)
        start = observation["gamevariables"][:2]
        for _ in range(6):
            observation = env.step(0)[0]
        return np.hypot(*(observation["gamevariables"][:2] - start)), observation["gamevariables"][2:]

    slow, (health, bullets) = distance_walked(player_health=40)
    fast, _ = distance_walked(player_speed=2.0)
    assert health == 40 and bullets == 0
    assert fast > 1.6 * slow > 0
