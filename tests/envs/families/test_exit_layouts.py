"""The exit family's levels without the engine: v0's levels are pinned byte for byte; the sprawling layout's
buildings are valid on many seeds (every room reachable, no two spaces overlap, every corridor where its
opening says), the start spots lie as far from the exit as the spawn setting says, and the looks and styles
are what the parameters ask for."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from wadgym.envs.families import exit as exit_family
from wadgym.envs.params import make_params
from wadgym.envs.scenarios import compile_acs, sprawl, styles
from wadgym.envs.scenarios.building import room_at, room_distances
from wadgym.envs.scenarios.sprawl import layout_plan
from wadgym.wads import build_wad

# sha256 of the WADs of levels 0, 1, 2 and 10000 (build_wad of each, concatenated), as the first release built
# them: DoomExit-v0 and DoomExitHard-v0 keep their levels whatever the family gains.
V0_LEVELS = {
    ("default", ()): "b1d6bb85b2df24037eb60062f0915b20710cd55e38a9dcf180acd470ab663792",
    ("hard", ()): "33adafb3691151f7933af6bc09bc8faab9b672f61a84d2ef23ad29153f652a3e",
    ("default", (("exit_look", "mixed"),)): "5860a216bf19e1ec3a096955265000732121195aefb351d9e5656254fde3a683",
}


@pytest.mark.parametrize("preset, overrides", list(V0_LEVELS), ids=lambda v: str(v))
def test_v0_levels_are_byte_identical_to_the_first_release(preset, overrides, levels_digest):
    params = make_params(exit_family.Params, exit_family.PRESETS, preset, dict(overrides))
    assert levels_digest(exit_family.build, params) == V0_LEVELS[preset, overrides]


# -- the sprawling layout ---------------------------------------------------------------------------------------

SPRAWLS = {name: exit_family.PRESETS[name] for name in ("v1", "hard_v1")}


def plans(preset: str, seeds=range(24)):
    p = SPRAWLS[preset]
    return [(seed, layout_plan(np.random.default_rng(seed), p, p.min_rooms)) for seed in seeds]


def gap(a, b) -> int:
    """How far apart two rectangles are (the larger of the two axes' gaps; negative: they overlap)."""
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])


def strip(o) -> tuple:
    """The rectangle of an opening's corridor."""
    (ax, ay), (bx, by) = o.ends
    half = o.width // 2
    if o.inward[0]:
        return min(ax, bx), ay - half, max(ax, bx), ay + half
    return ax - half, min(ay, by), ax + half, max(ay, by)


@pytest.mark.parametrize("preset", list(SPRAWLS))
def test_sprawl_buildings_are_valid_on_many_seeds(preset):
    """Rooms in number and size as asked, every room reachable, the rooms two rooms min_rooms apart exist;
    every corridor runs straight from a wall of one cell to the facing wall of the other, within the walls
    and `corridor` to `corridor_max` long; corners join two corridors, blind ends one; every two spaces that
    do not open into each other keep MARGIN of wall between them."""
    p = SPRAWLS[preset]
    for seed, plan in plans(preset):
        rooms = plan.room_count
        assert plan.rows == plan.cols == 0 and p.n_rooms_min <= rooms <= p.n_rooms_max, seed
        for x0, y0, x1, y1 in plan.cells[:rooms]:
            assert p.room_min <= x1 - x0 <= p.room_max and p.room_min <= y1 - y0 <= p.room_max
        for x0, y0, x1, y1 in plan.cells[rooms:]:
            assert x1 - x0 == y1 - y0 == p.door_width + sprawl.CORNER_EXTRA
        distance = room_distances(plan, 0)
        assert min(distance) >= 0 and len(plan.doors) == len(plan.openings)
        assert sprawl.span(plan) >= p.min_rooms
        degree = [len(n) for n in plan.neighbours()]
        assert all(d in (1, 2) for d in degree[rooms:]), seed
        spaces = [(cell, {i}) for i, cell in enumerate(plan.cells)]
        for o in plan.openings:
            a, b = plan.cells[o.a], plan.cells[o.b]
            (ax, ay), (bx, by) = o.ends
            length = abs(bx - ax) + abs(by - ay)
            assert p.corridor <= length <= p.corridor_max and o.width == p.door_width
            axis = 1 if o.inward[0] else 0                                    # across the way
            for cell in (a, b):
                assert cell[axis] + 16 + o.width / 2 <= o.ends[0][axis] <= cell[axis + 2] - 16 - o.width / 2
            assert room_at(plan, ax, ay) == o.a and room_at(plan, bx, by) == o.b
            spaces.append((strip(o), {o.a, o.b}))
        for i, (first, joins) in enumerate(spaces):
            for second, others in spaces[i + 1:]:
                if not joins & others:
                    assert gap(first, second) >= sprawl.MARGIN, (seed, first, second)


@pytest.mark.parametrize("preset", list(SPRAWLS))
def test_sprawl_buildings_have_sizes_turns_dead_ends_and_loops(preset):
    """Over a few seeds: several room sizes, corridors of several lengths, corners (turns), blind ends (dead
    ends), more corridors than a tree has (loops); the same seed draws the same building, others differ."""
    found = plans(preset, range(12))
    sides = {x1 - x0 for _, plan in found for x0, _, x1, _ in plan.cells[:plan.room_count]}
    lengths = {abs(o.ends[1][0] - o.ends[0][0]) + abs(o.ends[1][1] - o.ends[0][1]) for _, plan in found
               for o in plan.openings}
    assert len(sides) >= 4 and len(lengths) >= 6
    degrees = [[len(n) for n in plan.neighbours()][plan.room_count:] for _, plan in found]
    assert sum(d.count(2) for d in degrees) >= 12 and sum(d.count(1) for d in degrees) >= 6   # corners, blind ends
    # A tree of rooms, corners and blind ends has one corridor fewer than cells; every other one closes a loop.
    assert sum(len(plan.doors) - (len(plan.cells) - 1) for _, plan in found) >= 4
    again = plans(preset, range(2))
    assert again[0][1] == found[0][1] and again[1][1] != found[0][1]


def test_sprawl_levels_build_into_valid_wads():
    """The map (geometry, textures, the exit's actor and things) and the ACS of a few levels of each preset."""
    for name in ("v1", "v1_very_sparse", "hard_v1"):
        for seed in range(2):
            build_wad([exit_family.build(np.random.default_rng(seed), exit_family.PRESETS[name])], compiler=compile_acs)


# -- where the player starts --------------------------------------------------------------------------------------

def exit_and_spots(params, seed):
    """The level's exit room, its start spots (room, x, y, doorways) and the building, as build draws them."""
    level = exit_family.build(np.random.default_rng(seed), params)
    plan = layout_plan(np.random.default_rng(seed), params, params.min_rooms)
    tids = {t.tid: t for t in level.map.things}
    exit_thing = tids[exit_family.EXIT_TID]
    spots = [tids[tid] for tid in sorted(tids) if tid >= exit_family.START_TID]
    return level, plan, exit_thing, spots


@pytest.mark.parametrize("spawn", ["dense", "sparse", "very_sparse"])
def test_start_spots_lie_as_far_from_the_exit_as_spawn_says(spawn):
    """The exit in a room at an end of the building's longest way; dense: 17 spots over every room min_rooms
    or more doorways from it (each such room gets one before any gets two); sparse: one spot halfway (the
    longest way halved, rounded up); very_sparse: one in a farthest room. The ACS lists the same spots."""
    params = dataclasses.replace(exit_family.PRESETS["v1"], spawn=spawn)
    for seed in range(6):
        level, plan, exit_thing, spots = exit_and_spots(params, seed)
        exit_room = room_at(plan, exit_thing.x, exit_thing.y)
        distance = room_distances(plan, exit_room)[:plan.room_count]
        assert max(distance) == sprawl.span(plan)                               # an end of the longest way
        rooms = [room_at(plan, s.x, s.y) for s in spots]
        apart = [distance[r] for r in rooms]
        if spawn == "dense":
            eligible = {r for r, d in enumerate(distance) if d >= params.min_rooms}
            assert len(spots) == params.start_spots and set(rooms) == eligible
            assert max(rooms.count(r) for r in eligible) <= -(-params.start_spots // len(eligible))
        else:
            want = max(distance) if spawn == "very_sparse" else -(-max(distance) // 2)
            assert len(spots) == 1 and apart == [max(want, params.min_rooms)]
        for s, room in zip(spots, rooms):
            x0, y0, x1, y1 = plan.cells[room]
            assert x0 + params.wall_clearance <= s.x <= x1 - params.wall_clearance
        assert f"int spot_apart[N_SPOTS] = {{ {', '.join(map(str, apart))} }};" in level.scripts
        assert f"#define FIXED_EXIT_ROOM     {exit_room}\n" in level.scripts


def test_the_ladder_shares_its_levels_and_min_and_max_rooms_bound_the_spots():
    """v1, v1_sparse and v1_very_sparse: the same building, look and exit, only the start spots differ (ICM's
    ladder on one map); min_rooms and max_rooms bound a dense level's spots."""
    for seed in range(3):
        levels = [exit_and_spots(exit_family.PRESETS[name], seed) for name in ("v1", "v1_sparse", "v1_very_sparse")]
        (dense, plan, exit_thing, _), *others = levels
        for level, _, other_exit, _ in others:
            assert level.actors == dense.actors and other_exit == exit_thing
            assert level.map.build().sectors == dense.map.build().sectors
    near = dataclasses.replace(exit_family.PRESETS["v1"], min_rooms=2, max_rooms=3)
    for seed in range(3):
        _, plan, exit_thing, spots = exit_and_spots(near, seed)
        distance = room_distances(plan, room_at(plan, exit_thing.x, exit_thing.y))
        assert {distance[room_at(plan, s.x, s.y)] for s in spots} == {2, 3}


# -- looks ----------------------------------------------------------------------------------------------------

def test_texture_pools_name_what_freedoom_has_and_include_the_stock_textures():
    from wadgym.wads import iwad

    for walls, floors, ceilings in styles.TEXTURE_POOLS.values():
        assert set(walls) <= iwad.textures() and set(floors + ceilings) <= iwad.flats()
    walls, floors, ceilings = styles.TEXTURE_POOLS["my_way_home"]
    assert "BIGBRIK1" in walls and "FLAT1_1" in floors and "FLAT1_1" in ceilings
    assert set(walls) | set(styles.WALLS) == set(styles.TEXTURE_POOLS["all"][0])
    lit = styles.TEXTURE_POOLS["lit"]
    assert set(lit[0]) == set(styles.TEXTURE_POOLS["all"][0]) | set(styles.LIT_WALLS) and lit[1:] == \
        styles.TEXTURE_POOLS["all"][1:]


def test_room_light_ranges_from_uniform_to_varied_and_rooms_take_walls_of_their_own():
    """light_variation: each level draws its spread (0: every room at the level's light) and each room its
    light within it; wall_mix: the share of rooms with a wall of their own; corners keep the level's look."""
    style = styles.Style("BIGBRIK1", "FLAT1_1", "FLAT1_1", 160)
    assert styles.room_styles(np.random.default_rng(0), style, 14, 10) is None    # nothing asked, nothing drawn
    spreads, own_walls = set(), 0
    for seed in range(40):
        cells = styles.room_styles(np.random.default_rng(seed), style, 14, 10, "all", light_variation=48,
                                   wall_mix=0.25)
        lights = [c["light"] for c in cells[:10]]
        assert cells[10:] == [{}] * 4 and all(112 <= light <= 208 for light in lights)
        spreads.add(max(lights) - min(lights))
        own_walls += sum(c["wall"] != "BIGBRIK1" for c in cells[:10])
    assert 0 in spreads and max(spreads) > 48          # uniform levels and varied ones
    assert 0.1 < own_walls / 400 < 0.4


def test_any_look_draws_each_of_the_four_exits():
    looks = {exit_family.build(np.random.default_rng(seed), exit_family.PRESETS["v1"]).actors[0].name
             for seed in range(16)}
    assert looks == set(exit_family.EXIT_CLASSES.values())


@pytest.mark.parametrize("kwargs, message", [
    ({"layout": "maze"}, "layout='maze' is not valid; choose one of 'grid', 'sprawl'"),
    ({"spawn": "far"}, "spawn='far' is not valid; choose one of 'pairs', 'dense', 'sparse', 'very_sparse'"),
    ({"textures": "doom"}, "textures='doom' is not valid; choose one of 'v0', 'my_way_home', 'all', 'lit'"),
    ({"min_rooms": 5}, r"min_rooms=5: buildings of n_rooms_min=8 rooms are not sure .* valid: 1 to 4"),
    ({"door_width": 100}, "door_width=100: the sprawl layout needs a multiple of 16"),
    ({"room_min": 128}, r"room_min=128 must be at least door_width \+ 64 = 160"),
    ({"corridor_max": 32}, "corridor_max=32 must be at least corridor=64"),
    ({"n_rooms_min": 13}, "n_rooms_min=13 must be at most n_rooms_max=12"),
    ({"light_variation": 200}, "light_variation=200 is out of range; valid: 0 to 128"),
    ({"exit_look": "door"}, "exit_look='door' is not valid; choose one of 'lamp', 'armor', 'mixed', 'sphere', "
                            "'torch', 'any'"),
])
def test_bad_sprawl_parameters_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_params(exit_family.Params, exit_family.PRESETS, "v1", kwargs)
