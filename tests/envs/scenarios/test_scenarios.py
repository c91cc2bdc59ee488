"""Scenario pieces: pure builds, the room-grid generator, item placement (ACS and its numpy simulation agree
exactly), the looks, and the items family's levels and player settings in the engine."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
import vizdoom as vzd

from wadgym.envs.doom_env import map_name
from wadgym.envs.families import items
from wadgym.envs.scenarios import arena, build_scenario_wad, building, compile_acs, placement, styles
from wadgym.wads import Level, MapBuilder, build_wad, iwad, read_lumps, write_wad


def lumps(data: bytes) -> dict[str, bytes]:
    return dict(read_lumps(data))


def test_items_wad_is_a_pure_function_with_readable_scripts():
    first = build_scenario_wad("items", items.PRESETS["hard"], seed=4)
    assert first == build_scenario_wad("items", items.PRESETS["hard"], seed=4)
    assert first != build_scenario_wad("items", items.PRESETS["hard"], seed=5)  # other pillars and looks
    scripts = lumps(first)["SCRIPTS"].decode()
    assert "global int 59:items_remaining;" in scripts and "global int 60:items_placed;" in scripts
    assert "global int 39:item20_x;  global int 40:item20_y;" in scripts
    assert "${" not in scripts and 'Spawn("WadgymItem' in scripts
    decorate = lumps(first)["DECORATE"]
    assert b"ACTOR WadgymItem" in decorate and b"Scale 1.0" in decorate
    assert b"+COUNTITEM" in decorate and b"+INVENTORY.ALWAYSPICKUP" in decorate and b"Inventory.Amount 0" in decorate


def test_grid_plan_is_a_pure_function_of_its_rng():
    p = items.PRESETS["maze"]
    plans = [building.grid_plan(np.random.default_rng(s), p) for s in (0, 0, 1)]
    assert plans[0] == plans[1] != plans[2]
    assert len(plans[0].cells) == p.rows * p.cols


def test_grid_doors_join_every_room_and_distances_follow_them():
    plan = building.GridPlan(4, 5, [(0, 0, 1, 1)] * 20, building.grid_doors(np.random.default_rng(3), 4, 5, extra=0.0))
    assert len(plan.doors) == 4 * 5 - 1  # a spanning tree
    distance = building.room_distances(plan, 0)
    assert min(distance) == 0 and all(d > 0 for d in distance[1:])  # every room reached
    for a, b in plan.doors:
        assert abs(distance[a] - distance[b]) == 1  # a tree: each doorway is one step further


def test_style_names_are_freedoom_textures_and_flats():
    assert set(styles.WALLS) <= iwad.textures() and set(items.MAZE_WALLS) <= iwad.textures()
    assert set(styles.FLOORS + styles.CEILINGS + items.MAZE_FLOORS) <= iwad.flats()
    looks = {styles.draw_style(np.random.default_rng(s)) for s in range(20)}
    assert len(looks) == 20


def test_obstacles_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match="n_obstacles=40 pillars of obstacle_size=128 do not fit"):
        arena.place_obstacles(np.random.default_rng(0), 1024, 40, 128, (512, 512))


def engine_placement(start_game, tmp_path, rules, floor, obstacles, start, draws) -> list[tuple[int, int]]:
    """Where placement.acs puts the items when its random numbers are `draws`: built, run, read back."""
    m = MapBuilder()
    x0, y0, x1, y1 = (min(r[0] for r in floor), min(r[1] for r in floor), max(r[2] for r in floor),
                      max(r[3] for r in floor))
    room = m.add_room(x0, y0, x1, y1)
    for pillar in obstacles:
        m.add_pillar(room, *pillar)
    m.add_player_start(*start)
    level = Level(map=m, scripts=placement.items_script(rules, floor, obstacles, start, draws=draws),
                  actors=[placement.item_actor(rules)])
    wad = tmp_path / "placement.wad"
    write_wad(wad, build_wad([level], compiler=compile_acs))
    users = [getattr(vzd.GameVariable, f"USER{n}") for n in range(1, 61)]
    game = start_game(wad, variables=users)
    values = [int(v) for v in game.get_state().game_variables]
    return [(values[2 * i], values[2 * i + 1]) for i in range(values[59])]


@pytest.mark.parametrize("case", range(3))
def test_numpy_simulation_and_acs_placement_agree_exactly(case, start_game, tmp_path):
    """Fed the same random numbers, the numpy pre-check keeps exactly the points the ACS places."""
    rules = dataclasses.replace(items.PRESETS["hard"], n_items=12, min_item_distance=160)
    rng = np.random.default_rng(case)
    obstacles = arena.place_obstacles(rng, rules.size, 8, 128, (1024, 1024))
    floor = [(0, 0, 1024, 2048), (1024, 0, 2048, 2048)]  # two areas: the weighted pick is exercised too
    areas = placement.placement_areas(rules, floor)
    r, x, y = placement.random_draws(rng, areas, tries=120, trials=1)
    expected = placement.kept_points(rules, obstacles, (1024, 1024), x, y)[0]
    draws = np.stack([r[0], x[0], y[0]], axis=1).reshape(-1).tolist()
    placed = engine_placement(start_game, tmp_path, rules, floor, obstacles, (1024, 1024), draws)
    assert len(expected) >= 8 and placed == expected


def assert_placement_rules(info, params, floor, obstacles):
    positions = info["item_positions"]
    c = params.wall_clearance
    for x, y in positions:
        assert any(x0 + c <= x <= x1 - c and y0 + c <= y <= y1 - c for x0, y0, x1, y1 in floor)
        assert not any(x0 - c < x < x1 + c and y0 - c < y < y1 + c for x0, y0, x1, y1 in obstacles)
    for a, b in itertools.combinations(positions, 2):
        assert np.hypot(*(a - b)) >= params.min_item_distance


def test_hard_arena_items_avoid_walls_pillars_and_each_other(make_env):
    env = make_env("DoomItemsHard-v1", num_levels=3)
    params = env.unwrapped.params
    for seed in range(4):
        _, info = env.reset(seed=seed)
        rng = np.random.default_rng(info["level_seed"])
        _, _, pillars = arena.arena_layout(rng, params)
        assert len(pillars) == params.n_obstacles
        assert_placement_rules(info, params, [(0, 0, params.size, params.size)], pillars)


def test_maze_items_spread_over_the_rooms(make_env):
    env = make_env("DoomItemsMaze-v1", num_levels=4)
    params = env.unwrapped.params
    levels = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        levels.add(info["level_seed"])
        plan = building.grid_plan(np.random.default_rng(info["level_seed"]), params)
        assert_placement_rules(info, params, plan.cells, [])
    assert len(levels) >= 3


def test_maze_v0_keeps_its_sixteen_layouts():
    """DoomItemsMaze-v0's level k is the maze of the k-th seed its generator always drew."""
    seeds = np.random.default_rng(0).integers(0, 2**62, size=16)
    assert [items.legacy_layout_seed(k) for k in (0, 5, 15)] == [int(seeds[k]) for k in (0, 5, 15)]


def test_maze_v0_draws_a_held_out_layout_seed_in_constant_memory():
    """Its held-out level seeds (10,000 up to 2**31 - 1) are the same draws, each found without the ones before
    it: the generator's k-th seed for k up to a million, and for the largest level seed a few kB at most."""
    import tracemalloc

    seeds = np.random.default_rng(0).integers(0, 2**62, size=1_000_001)
    for k in (16, 9_999, 10_000, 123_457, 1_000_000):
        assert items.legacy_layout_seed(k) == int(seeds[k])
    tracemalloc.start()
    try:
        value = items.legacy_layout_seed(2**31 - 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0 <= value < 2**62 and peak < 64_000


def test_levels_differ_in_layout_and_look_and_repeat_by_seed(make_env):
    env = make_env("DoomItems-v1", num_levels=2, start_level=40)
    unwrapped = env.unwrapped
    first, again, other = (lumps(build_wad([unwrapped.build_level(s)], compiler=compile_acs)) for s in (40, 40, 41))
    assert first == again and first[map_name(40)] == b""
    assert first["TEXTMAP"] != other["TEXTMAP"]
    seen = {env.reset(seed=s)[1]["level_seed"] for s in range(8)}
    assert seen == {40, 41}


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


def test_building_plan_spreads_rooms_apart_with_openings_every_corridor_can_hold():
    from wadgym.envs.families import exit as exit_family

    p = exit_family.PRESETS["hard"]
    plans = [building.building_plan(np.random.default_rng(s), p) for s in (0, 0, 1)]
    assert plans[0] == plans[1] != plans[2]
    plan = plans[0]
    grid = building.grid_plan(np.random.default_rng(0), p)
    assert plan.doors == grid.doors and len(plan.openings) == len(plan.doors)   # the same room graph
    for room in plan.cells[:len(grid.cells)]:
        assert room[2] - room[0] >= p.door_width + 64 and room[3] - room[1] >= p.door_width + 64
    for o in plan.openings:
        a, b = plan.cells[o.a], plan.cells[o.b]
        (ax, ay), (bx, by) = o.ends
        gap = abs(bx - ax) + abs(by - ay)
        assert p.corridor <= gap <= p.corridor + 4 * p.room_inset and gap <= 512   # connect's max_gap
        assert building.room_at(plan, ax, ay) == o.a and building.room_at(plan, bx, by) == o.b
        assert building.room_at(plan, (ax + bx) / 2, (ay + by) / 2) is None   # the corridor between them
        assert o.corridor_holds((ax + bx) / 2, (ay + by) / 2)
        axis = 1 if o.inward[0] else 0                                        # across the way
        lo, hi = max(a[axis], b[axis]), min(a[axis + 2], b[axis + 2])
        assert lo + 16 + o.width / 2 <= o.ends[0][axis] <= hi - 16 - o.width / 2
    assert any(o.door for o in plan.openings) and not all(o.door for o in plan.openings)
    assert plan.opening(plan.openings[0].b, plan.openings[0].a) == plan.openings[0].reversed()


def test_route_point_leads_room_by_room_towards_the_goal():
    """A walker that steps straight at route_point's points reaches the goal through the openings."""
    from wadgym.envs.families import exit as exit_family

    plan = building.building_plan(np.random.default_rng(3), exit_family.PRESETS["default"])
    goal_room = len(plan.cells) - 1
    goal = building.centre(plan.cells[goal_room])
    x, y = building.centre(plan.cells[0])
    rooms = [0]
    for _ in range(400):
        tx, ty = building.route_point(plan, x, y, goal_room, goal)
        step = min(8.0, np.hypot(tx - x, ty - y))
        if step < 1:
            break
        heading = np.arctan2(ty - y, tx - x)
        x, y = x + step * np.cos(heading), y + step * np.sin(heading)
        room = building.room_at(plan, x, y)
        assert room is not None or any(o.corridor_holds(x, y) for o in plan.openings)   # never inside a wall
        if room is not None and room != rooms[-1]:
            rooms.append(room)
    assert (x, y) == pytest.approx(goal)
    distance = building.room_distances(plan, goal_room)
    assert [distance[r] for r in rooms] == list(range(distance[0], -1, -1))   # one room nearer each time


def test_exit_levels_build_for_many_seeds():
    from wadgym.envs.families import exit as exit_family

    for preset in ("default", "hard"):
        for seed in range(4):
            level = exit_family.build(np.random.default_rng(seed), exit_family.PRESETS[preset])
            build_wad([level], compiler=compile_acs)   # geometry and ACS validated
