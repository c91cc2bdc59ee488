"""The exit family: find the exit of a building that wadgym builds (DoomExit-v0/v1, DoomExitHard-v0/v1).

One module: the scenario (`Params`, `PRESETS`, `build`) and the task (`ExitEnv`). The building comes from
wadgym.envs.scenarios.building (rooms on a grid joined by corridors and doors, and the path helpers the
scripted policy follows) or wadgym.envs.scenarios.sprawl (rooms grown without a grid, corridors that turn,
dead ends, loops), the looks from wadgym.envs.scenarios.styles, the ACS from the templates
envs/families/exit.acs (start and exit drawn per episode) and exit_spots.acs (a fixed exit, start spots).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import vizdoom as vzd

from wadgym.envs.aiming import steer_towards
from wadgym.envs.checks import check_number
from wadgym.envs.doom_env import DoomEnv, user_variable
from wadgym.envs.params import check_fields
from wadgym.envs.runtime.handmade import SCENARIO_GOALS, check_goal
from wadgym.envs.scenarios.acs_template import acs_bool, acs_fixed, acs_list, fill, rect_arrays
from wadgym.envs.scenarios.building import (
    GridPlan,
    add_plan,
    cell_hops,
    centre,
    check_grid,
    room_at,
    room_distances,
    route_length,
    route_point,
)
from wadgym.envs.scenarios.placement import shrink
from wadgym.envs.scenarios.sprawl import LAYOUTS, SPRAWL_LIMITS, SprawlFields, check_sprawl, layout_plan
from wadgym.envs.scenarios.styles import TEXTURE_POOLS, draw_style, room_styles
from wadgym.wads import Actor, Level, MapBuilder

EXIT_CLASS = "WadgymExit"
ARMOR_EXIT_CLASS = "WadgymExitArmor"
# exit_look's choices: one look, "mixed" (lamp or armour, drawn per level) or "any" (one of LOOKS per level).
LOOKS = ("lamp", "armor", "sphere", "torch")
EXIT_LOOKS = ("lamp", "armor", "mixed", "sphere", "torch", "any")
EXIT_CLASSES = {"lamp": EXIT_CLASS, "armor": ARMOR_EXIT_CLASS, "sphere": "WadgymExitSphere",
                "torch": "WadgymExitTorch"}
# A fixed exit is a thing of the map (spawn != "pairs"): its class needs an editor number.
EXIT_EDNUMS = {"lamp": 20200, "armor": 20201, "sphere": 20202, "torch": 20203}
# spawn's choices: "pairs" draws a start room and an exit room per episode (v0); the others fix the exit per
# level and start the player at one of the level's start spots (ICM's my_way_home ladder).
SPAWNS = ("pairs", "dense", "sparse", "very_sparse")
EXIT_TID = 2000
START_TID = 2100     # the start spots' MapSpots: START_TID + i
# The exit's look: the tall tech lamp's shape drawn in plain fullbright white (render style Stencil), a
# white silhouette that stands out at 60x80 in gray in the darkest room (Freedoom's own sprites are dim there).
EXIT_SPRITE = "TLMP"
# ACS globals the template writes (USERn): exit x, y; start x, y; exit room; start room; rooms apart; ready.
EXIT_X, EXIT_Y, START_X, START_Y, EXIT_ROOM, START_ROOM, ROOMS_APART, READY = range(1, 9)
PLACE_VARIABLES = [getattr(vzd.GameVariable, user_variable(n)) for n in range(1, READY)]


@dataclass(frozen=True)
class Params(SprawlFields):
    """A building (`layout`: "grid", `rows` x `cols` rooms, see BuildingFields: cell sizes, corridors, doors,
    loops; or "sprawl", see SprawlFields: rooms of several sizes grown without a grid, corridors of several
    lengths that turn, dead ends, loops), the exit at least `min_rooms` (and at most `max_rooms`, 0: no limit)
    doorways from the start along the room graph, both at least `wall_clearance` from the walls.

    Where they are, `spawn`: "pairs" draws a start room and an exit room per episode (v0); "dense", "sparse"
    and "very_sparse" put the exit at a point fixed per level in a room at one end of the building's longest
    way, and start the player at one of the level's start spots, as ICM's my_way_home ladder does: "dense",
    `start_spots` spots spread over the rooms `min_rooms` to `max_rooms` doorways from the exit's (one drawn
    per episode); "sparse", one spot halfway (the building's longest way from the exit's room, halved and
    rounded up, at least `min_rooms`); "very_sparse", one spot in the room farthest from the exit's.

    The look: walls, floor and ceiling from the texture pool `textures` ("v0", "my_way_home": BIGBRIK1 and
    the stock textures of its kin, "all", "lit": "all" and walls that carry lights), a light level drawn per
    level from `light_min` to `light_max`; each room's light strays from it by up to a spread drawn per level
    from 0 (uniform, as my_way_home) to `light_variation`, and each room takes a wall of its own with
    probability `wall_mix`. The exit looks like `exit_look`: "lamp" (a white lamp silhouette, `exit_scale`
    times its size), "armor" (the green armour's own sprite at its own size, as ViZDoom's my_way_home's goal),
    "sphere" (the soulsphere's), "torch" (the tall green torch's), "mixed" (lamp or armour drawn per level,
    after every other draw: a level's building and look are those of "lamp") or "any" (one of the four drawn
    per level)."""

    rows: int = 3
    cols: int = 3
    cell_size: int = 320
    min_rooms: int = 2
    max_rooms: int = 0            # 0: no limit
    exit_scale: float = 1.5
    wall_clearance: int = 48
    light_min: int = 144
    light_max: int = 224
    player_health: int = 100
    player_speed: float = 1.0
    random_start_angle: bool = True
    exit_look: str = "lamp"
    spawn: str = "pairs"
    start_spots: int = 17
    textures: str = "v0"
    light_variation: int = 0
    wall_mix: float = 0.0

    def __post_init__(self):
        check_fields(self, {**SPRAWL_LIMITS, "min_rooms": (1, 14), "max_rooms": (0, 63), "exit_scale": (0.5, 3.0),
                            "wall_clearance": (24, 128), "light_min": (0, 255), "light_max": (0, 255),
                            "player_health": (1, 10000), "player_speed": (0.25, 4.0), "start_spots": (1, 64),
                            "light_variation": (0, 128), "wall_mix": (0.0, 1.0)},
                     {"random_start_angle": (True, False), "exit_look": EXIT_LOOKS, "layout": LAYOUTS,
                      "spawn": SPAWNS, "textures": tuple(TEXTURE_POOLS)})
        check_grid(self)
        check_sprawl(self)
        if self.layout == "grid":
            farthest = self.rows + self.cols - 2   # the corner rooms are at least this far apart in any building
            if self.min_rooms > farthest:
                raise ValueError(f"min_rooms={self.min_rooms}: no room is sure to lie that far from another in a "
                                 f"building of rows={self.rows} x cols={self.cols} rooms; valid: 1 to {farthest} "
                                 f"(or add rows or cols)")
        elif self.min_rooms > self.n_rooms_min // 2:   # sprawl_plan draws again until some two rooms are
            raise ValueError(f"min_rooms={self.min_rooms}: buildings of n_rooms_min={self.n_rooms_min} rooms are "
                             f"not sure to hold two rooms that far apart; valid: 1 to {self.n_rooms_min // 2} "
                             f"(or raise n_rooms_min)")
        if self.max_rooms and self.max_rooms < self.min_rooms:
            raise ValueError(f"max_rooms={self.max_rooms} must be 0 (no limit) or at least min_rooms={self.min_rooms}")
        if self.light_min > self.light_max:
            raise ValueError(f"light_min={self.light_min} must be at most light_max={self.light_max}")
        # no room is narrower (see building_plan; sprawl_plan's rooms are room_min at least)
        smallest = self.door_width + 64 if self.layout == "grid" else self.room_min
        if 2 * self.wall_clearance >= smallest:
            raise ValueError(f"wall_clearance={self.wall_clearance} leaves no floor in the smallest rooms "
                             f"({smallest} units across with door_width={self.door_width}); valid: 24 to "
                             f"{(smallest - 1) // 2}")


PRESETS: dict[str, Params] = {
    # The exit exactly two doorways from the start: through one room (and its corridors) on the way.
    "default": Params(max_rooms=2),
    # Twice the rooms, doors on half the corridors, longer corridors, dark, the exit 4+ doorways away.
    "hard": Params(rows=4, cols=5, cell_size=384, door_width=96, corridor=96, room_inset=64, door_chance=0.5,
                   extra_doors=0.1, min_rooms=4, light_min=72, light_max=136),
}
# v1 (DoomExit-v1): a building at my_way_home's scale, without a grid: 8 to 12 rooms of several sizes,
# corridors that turn, dead ends, a loop; the exit fixed per level in a room at one end of the longest way,
# 17 start spots over the other rooms; stock textures and the first releases', light from uniform to varied;
# the exit any of the four looks. v1_sparse and v1_very_sparse: the same levels (building, look, exit), one
# start spot halfway or at the far end (ICM's ladder).
PRESETS["v1"] = Params(layout="sprawl", n_rooms_min=8, n_rooms_max=12, room_min=192, room_max=384, door_width=96,
                       corridor=64, corridor_max=256, turn_chance=0.4, dead_ends=2, loops=1, spawn="dense",
                       min_rooms=1, textures="all", light_min=128, light_max=224, light_variation=48,
                       wall_mix=0.25, exit_look="any")
PRESETS["v1_sparse"] = dataclasses.replace(PRESETS["v1"], spawn="sparse")
PRESETS["v1_very_sparse"] = dataclasses.replace(PRESETS["v1"], spawn="very_sparse")
# hard_v1 (DoomExitHard-v1): 14 to 18 rooms up to 512 units, longer corridors, more turns, dead ends and loops,
# doors on a third of the corridors, darker; one start spot halfway along the longest way, 4+ doorways out.
PRESETS["hard_v1"] = dataclasses.replace(
    PRESETS["v1"], n_rooms_min=14, n_rooms_max=18, room_max=512, corridor_max=320, turn_chance=0.5, dead_ends=4,
    loops=2, door_chance=0.3, spawn="sparse", min_rooms=4, light_min=64, light_max=144)


def build(rng: np.random.Generator, p: Params) -> Level:
    """One building: the plan, then the look (then, with spawn "pairs", the exit's look: ACS picks the start
    and the exit per episode; else the exit's room and point, its look and the start spots), drawn from `rng`."""
    plan = layout_plan(rng, p, p.min_rooms)
    style = draw_style(rng, (p.light_min, p.light_max), p.textures)
    cell_styles = room_styles(rng, style, len(plan.cells), plan.room_count, p.textures, p.light_variation,
                              p.wall_mix)
    m = MapBuilder()
    add_plan(m, plan, cell_styles, floor=style.floor, ceiling=style.ceiling, wall=style.wall, light=style.light)
    if p.spawn == "pairs":
        m.add_player_start(*centre(plan.cells[0]), angle=90)   # the ENTER script moves the player
        actor = exit_actor(p, draw_look(rng, p.exit_look))
        return Level(map=m, scripts=exit_script(p, plan, actor.name), actors=[actor], title="wadgym exit")
    exit_room = far_end(rng, plan)
    exit_point = room_point(rng, plan.cells[exit_room], p.wall_clearance)
    look = draw_look(rng, p.exit_look)
    spots = start_spots(rng, p, plan, exit_room)
    actor = exit_actor(p, look, ednum=EXIT_EDNUMS[look])
    m.add_thing(actor.name, exit_point, tid=EXIT_TID)
    for i, (_, x, y, _) in enumerate(spots):
        m.add_map_spot(x, y, tid=START_TID + i)   # where the ENTER script may put the player
    m.add_player_start(*spots[0][1:3], angle=90)
    return Level(map=m, scripts=spots_script(p, exit_room, exit_point, spots), actors=[actor], title="wadgym exit")


def draw_look(rng: np.random.Generator, exit_look: str) -> str:
    """The exit's look for `exit_look` (one drawn for "mixed" and "any")."""
    if exit_look == "mixed":
        return ("lamp", "armor")[int(rng.integers(2))]
    if exit_look == "any":
        return LOOKS[int(rng.integers(len(LOOKS)))]
    return exit_look


def far_end(rng: np.random.Generator, plan: GridPlan) -> int:
    """A room at one end of the building's longest way (drawn among them): the exit's room with a fixed exit,
    so that rooms at every distance up to that longest way exist."""
    rooms = plan.room_count
    farthest = [max(room_distances(plan, room)[:rooms]) for room in range(rooms)]
    ends = [room for room in range(rooms) if farthest[room] == max(farthest)]
    return ends[int(rng.integers(len(ends)))]


def room_point(rng: np.random.Generator, rect, clearance: int) -> tuple[int, int]:
    """A random whole point of `rect`, `clearance` from its walls."""
    x0, y0, x1, y1 = shrink(rect, clearance)
    return int(rng.integers(x0, x1 + 1)), int(rng.integers(y0, y1 + 1))


def start_rooms(p: Params, plan: GridPlan, exit_room: int) -> list[int]:
    """The rooms the start spots may lie in for `p.spawn`: dense, every room `min_rooms` to `max_rooms`
    doorways from the exit's; sparse, those halfway along the longest way from it (at least `min_rooms`);
    very_sparse, the farthest (at most `max_rooms`)."""
    distance = room_distances(plan, exit_room)[:plan.room_count]
    top = min(max(distance), p.max_rooms) if p.max_rooms else max(distance)
    if p.spawn == "dense":
        return [room for room, d in enumerate(distance) if p.min_rooms <= d <= top]
    want = top if p.spawn == "very_sparse" else min(max(p.min_rooms, -(-max(distance) // 2)), top)
    return [room for room, d in enumerate(distance) if d == want]


def start_spots(rng: np.random.Generator, p: Params, plan: GridPlan, exit_room: int) -> list[tuple[int, int, int, int]]:
    """(room, x, y, doorways to the exit's room) of each start spot: with spawn "dense", `p.start_spots` spots
    spread over start_rooms (each room one in turn, in a drawn order, until there are enough; spots in one
    room kept 64 units apart where a few draws allow); else one spot, in a room drawn among start_rooms."""
    rooms = start_rooms(p, plan, exit_room)
    if not rooms:  # the plan's longest way reaches min_rooms (layout_plan), so there is always a room
        raise ValueError(f"min_rooms={p.min_rooms}: no room of this building lies that far from the exit's")
    distance = room_distances(plan, exit_room)
    if p.spawn != "dense":
        room = rooms[int(rng.integers(len(rooms)))]
        return [(room, *room_point(rng, plan.cells[room], p.wall_clearance), distance[room])]
    order = [rooms[int(i)] for i in rng.permutation(len(rooms))]
    spots: list[tuple[int, int, int, int]] = []
    for k in range(p.start_spots):
        room = order[k % len(order)]
        for _ in range(8):
            x, y = room_point(rng, plan.cells[room], p.wall_clearance)
            if all((x - sx) ** 2 + (y - sy) ** 2 >= 64 ** 2 for r, sx, sy, _ in spots if r == room):
                break
        spots.append((room, x, y, distance[room]))
    return spots


def exit_pairs(plan: GridPlan, min_rooms: int, max_rooms: int = 0) -> list[tuple[int, int, int]]:
    """(start room, exit room, doorways between them) for every ordered pair of rooms `min_rooms` to
    `max_rooms` (0: any number) apart."""
    pairs = []
    for start in range(plan.room_count):
        distance = room_distances(plan, start)[:plan.room_count]
        pairs += [(start, room, d) for room, d in enumerate(distance)
                  if d >= min_rooms and (not max_rooms or d <= max_rooms)]
    return pairs


def exit_script(p: Params, plan: GridPlan, exit_class: str = EXIT_CLASS) -> str:
    """exit.acs filled in with the rooms (shrunk by the clearance) and the pairs far enough apart."""
    pairs = exit_pairs(plan, p.min_rooms, p.max_rooms)
    if not pairs:  # Params rules this out; say so rather than write an ACS that draws from nothing
        raise ValueError(f"min_rooms={p.min_rooms}: no two rooms of this building are that far apart")
    return fill("exit.acs", package=__package__, values={
        "n_rooms": plan.room_count,
        "n_pairs": len(pairs),
        "exit_tid": EXIT_TID,
        "exit_class": exit_class,
        "player_health": p.player_health,
        "player_speed": acs_fixed(p.player_speed),
        "random_start_angle": acs_bool(p.random_start_angle),
        **rect_arrays("room", [shrink(cell, p.wall_clearance) for cell in plan.cells[:plan.room_count]]),
        "pair_start": acs_list(s for s, _, _ in pairs),
        "pair_exit": acs_list(e for _, e, _ in pairs),
        "pair_apart": acs_list(d for _, _, d in pairs),
    })


def spots_script(p: Params, exit_room: int, exit_point: tuple[int, int],
                 spots: list[tuple[int, int, int, int]]) -> str:
    """exit_spots.acs filled in with the fixed exit and the start spots."""
    return fill("exit_spots.acs", package=__package__, values={
        "n_spots": len(spots),
        "exit_tid": EXIT_TID,
        "exit_x": exit_point[0],
        "exit_y": exit_point[1],
        "exit_room": exit_room,
        "player_health": p.player_health,
        "player_speed": acs_fixed(p.player_speed),
        "random_start_angle": acs_bool(p.random_start_angle),
        "spot_x": acs_list(x for _, x, _, _ in spots),
        "spot_y": acs_list(y for _, _, y, _ in spots),
        "spot_room": acs_list(room for room, _, _, _ in spots),
        "spot_apart": acs_list(d for _, _, _, d in spots),
    })


def exit_actor(p: Params, look: str = "lamp", ednum: int | None = None) -> Actor:
    """The exit: an item that counts for ITEMCOUNT when the player touches it (a Health pickup that heals
    nothing and is always taken), drawn as a white, fullbright lamp silhouette ("lamp"), as the green
    armour ("armor": its sprite and animation, unscaled), the soulsphere ("sphere") or the tall green torch
    ("torch"), each at its own size. `ednum`: its editor number, for a map that places it."""
    flags = ["+COUNTITEM", "+INVENTORY.ALWAYSPICKUP"]
    quiet = {"Inventory.Amount": 0, "Inventory.PickupMessage": ""}
    if look == "lamp":
        return Actor(EXIT_CLASS, parent="Health", ednum=ednum, flags=flags,
                     properties={"Inventory.Amount": 0, "Scale": float(p.exit_scale), "Inventory.PickupMessage": "",
                                 "RenderStyle": "Stencil", "StencilColor": "FF FF FF"},
                     states={"Spawn": [f"{EXIT_SPRITE} A -1 BRIGHT", "Stop"]})
    frames = {"armor": ["ARM1 A 6", "ARM1 B 7 BRIGHT", "Loop"], "sphere": ["SOUL ABCDCB 6 BRIGHT", "Loop"],
              "torch": ["TGRN ABCD 4 BRIGHT", "Loop"]}[look]
    return Actor(EXIT_CLASSES[look], parent="Health", ednum=ednum, flags=flags, properties=quiet,
                 states={"Spawn": frames})


class ExitEnv(DoomEnv):
    """Find the exit of a building: rooms joined by corridors and doors, every level different.

    ## Description
    Each level is a building of rectangular rooms joined by corridors, some with doors that open when the
    player walks into them (no use button needed). Two layouts (`layout`):

    - "grid" (v0): `rows` x `cols` rooms of varied sizes on a grid. A random spanning tree of doorways joins
      every room, a few more doorways make loops; neighbouring rooms stand apart and straight corridors of
      varied lengths join them.
    - "sprawl" (v1): `n_rooms_min` to `n_rooms_max` rooms of several sizes grown from a first room without a
      grid: each new room at the end of a corridor that leaves a room already there in a random direction,
      `corridor` to `corridor_max` units per straight piece, turning once or twice (`turn_chance`), kept
      clear of everything built before. Then `dead_ends` corridors that end blind and `loops` corridors
      between rooms already joined (straight or with one turn), where they fit.

    Walls, floor, ceiling and light are drawn per level (see Levels). Where the player starts and where the
    exit stands, `spawn`:

    - "pairs" (v0): when an episode starts, an ACS script draws a start room and an exit room at least
      `min_rooms` (and at most `max_rooms`) doorways apart along the room graph and puts the player at a
      random point of the first (facing a random way), the exit at a random point of the second.
    - "dense", "sparse", "very_sparse" (v1; ICM's my_way_home ladder): the exit stands at a point fixed per
      level, in a room at one end of the building's longest way, and the player starts at one of the level's
      start spots, drawn per episode: "dense", `start_spots` spots spread over every room `min_rooms` to
      `max_rooms` doorways from the exit's (near ones included, as my_way_home's 17); "sparse", one spot
      halfway along the longest way (at least `min_rooms` doorways); "very_sparse", one spot in the room
      farthest from the exit's. The spots are MapSpots of the map and the exit a thing of it, so a map
      editor and `wadgym build --preview` show them.

    The exit is a tall lamp drawn as a plain white silhouette, or with `exit_look` the green armour (as
    my_way_home's goal), the soulsphere, the tall green torch, or one of them drawn per level ("mixed":
    lamp or armour; "any": one of the four). Touching the exit picks it up: the engine counts it in
    ITEMCOUNT (+COUNTITEM), and that ends the episode. The script writes the positions to ACS globals,
    which the env reads through ViZDoom's USER variables:

    | USER variable | meaning |
    |---|---|
    | USER1, USER2 | x, y of the exit, whole map units |
    | USER3, USER4 | x, y of the player's start |
    | USER5, USER6 | the exit's room, the start's room (grid: row * cols + col; sprawl: the order they grew in) |
    | USER7 | doorways between the two rooms on the shortest way (a corridor that turns counts one) |
    | USER8 | 1 once the start and the exit are in place |

    The player is invulnerable and carries nothing.

    ## Action Space
    `Discrete(5)` with `action_set="basic"`: 0 forward, 1 turn left, 2 turn right, 3 forward + turn
    left, 4 forward + turn right. `Discrete(9)` with `action_set="extended"` adds 5 no-op, 6 backward,
    7 strafe left, 8 strafe right. Each action holds its buttons for `frame_skip` tics (default 4).

    ## Observation Space
    The screen as `Box(0, 255, (H, W, C), uint8)`, by default (60, 80, 1) gray, as every wadgym env
    (`resolution`, `render_resolution`, `downsample`, `color`); with `game_variables` or `buffers` a Dict
    {"screen", each buffer, "gamevariables"}. See wadgym.envs.families.items.ItemsEnv for the details.

    ## Rewards
    `exit_reward` (default 1.0) in the step the exit is reached, minus `step_penalty` (default 0.0) every
    step. Optional shaping (off by default): with `shaping=c`, every step adds c times the decrease of
    the player's way to the exit along the room graph (`info["way_to_exit"]`: map units, straight to the
    opening towards the exit's room, through it, room by room, then to the exit), as a fraction of that
    way at the start; the way is 0 once the exit is reached. It is potential-based (the potential is -c
    times the fraction of the way still to go), so it sums to c over an episode that reaches the exit,
    takes back what walking away earned, and does not change which policy is best. Optional exploration
    bonus (off by default): `new_room_reward=r` adds r in each step that enters a room not yet visited in
    the episode (the start room counts as visited; `info["rooms_visited"]`). It uses no knowledge of where
    the exit is (unlike `shaping`), so it teaches searching, which is what a policy that cannot see the exit
    must do; it is not potential-based (a policy could prefer visiting rooms to exiting if r times the rooms
    left exceeds `exit_reward`: keep r small). The score
    (`info["score"]`, named "exits") is 1 once the exit is reached, else 0.

    ## Starting State
    The player at a random point of the start room (spawn "pairs") or at one of the level's start spots,
    facing a random direction (`random_start_angle`).

    ## Episode End
    Terminated when the player reaches the exit. Truncated only by the `TimeLimit` wrapper from
    `max_episode_steps` in the registration; the engine's own episode timeout is off.

    ## Info
    `score` and `exit_reached` (bool), `exit_position` and `start_position` (int32 arrays (2,), x, y map
    units), `exit_room` and `start_room` (room indices, see USER5), `rooms_apart` (doorways between
    them on the shortest way), `room` (the room the player was last seen in; a corridor's corners and blind
    ends are not rooms), `rooms_to_exit` (that
    room's distance to the exit's room, in doorways), `rooms_visited` (rooms entered this episode, the
    start room included), `way_to_exit` (see Rewards), `level_seed` and `map`.

    ## Hand-made maps
    `wad="my_level.wad"` (or `"vizdoom:my_way_home"`) and `map="MAP01"` play that map with the same
    actions, observations and frame skip. The exit is reached when the map ends without the player dying
    (a line or thing special that exits: Doom's W1/S1/G1 exits, Exit_Normal, Exit_Secret,
    Teleport_NewMap, or a script), or when a goal item is taken: `goal="GreenArmor"` names its actor class
    (a thing of the map; on "vizdoom:my_way_home" the armour is the goal by default). The score is 1 then,
    the reward `exit_reward`; `info` holds `score`, `exit_reached`, `level_seed` None and `map` (positions,
    rooms and the way to the exit come from the building the generator draws: absent, and `shaping`,
    `new_room_reward` are refused). A map with no exit special and no goal named is refused. No scripted
    reference there. Arguments `wad`, `map`, `doom_skill`, `episode_start_time`, `episode_timeout`: see
    ItemsEnv.

    ## Levels and seeding
    `num_levels` (0: unlimited) and `start_level` choose the levels, as procgen does: each reset draws a
    level seed in [start_level, start_level + num_levels) from `np_random` and plays the building built
    from it; `reset(options={"level_seed": s})` plays level s. Train on `num_levels=200` and test on
    `start_level=10_000`. `reset(seed=s)` seeds `np_random`, which draws the level and seeds the engine:
    the same seed gives the same building, start, exit and, for the same actions, the same episode.

    ## Arguments
    - preset: "v1" (DoomExit-v1), "v1_sparse", "v1_very_sparse" (its levels, one start spot halfway or
      at the far end: ICM's ladder), "hard_v1" (DoomExitHard-v1), "default" (DoomExit-v0) or "hard"
      (DoomExitHard-v0); scenario parameters override the preset's. The building: `layout` ("grid",
      "sprawl"); grid: `rows`, `cols`, `cell_size`, `extra_doors`, `room_inset`; sprawl: `n_rooms_min`,
      `n_rooms_max`, `room_min`, `room_max`, `corridor_max`, `turn_chance`, `dead_ends`, `loops`; both:
      `door_width`, `corridor`, `door_chance`. Start and exit: `spawn` ("pairs", "dense", "sparse",
      "very_sparse"), `min_rooms`, `max_rooms`, `start_spots`, `wall_clearance`. The look: `textures`
      ("v0", "my_way_home", "all", "lit"), `light_min`, `light_max`, `light_variation`, `wall_mix`, `exit_look`
      ("lamp", "armor", "sphere", "torch", "mixed", "any"), `exit_scale`. The player: `player_health`,
      `player_speed`, `random_start_angle` (see `Params`, SprawlFields and BuildingFields).
    - num_levels, start_level: the level range (see above).
    - exit_reward (default 1.0), step_penalty (default 0.0), shaping (default 0.0: off),
      new_room_reward (default 0.0: off); goal (a hand-made map's goal item, see Hand-made maps).
    - frame_skip (1..64, default 4), resolution, render_resolution, downsample, color, game_variables,
      buffers, action_set ("basic", "extended"), cache_dir, render_mode: as every wadgym env.
    - visit_reward, visit_cell: a finer exploration bonus than the rooms', on squares of the map, off by
      default, as in every single-agent wadgym env (wadgym.envs.families.items.ItemsEnv's Arguments).
    Unknown names and out-of-range values raise a ValueError listing what is valid; so does a `min_rooms`
    that no building of that size is sure to offer.

    ## Registered ids
    DoomExit-v1: my_way_home's scale without a grid: 8 to 12 rooms 192 to 384 units a side, corridors 96
    wide whose pieces are 64 to 256 long and turn (40% each time, twice at most), 2 dead ends and a loop
    where they fit; the exit fixed per level at one end of the longest way, 17 start spots over the other
    rooms; textures from both pools (BIGBRIK1 among them), light 128 to 224 with rooms straying by up to 48
    (some levels uniform), a quarter of the rooms with walls of their own; any of the four exit looks; 525
    steps, as my_way_home. DoomExitHard-v1: 14 to 18 rooms up to 512 units, pieces up to 320 long, turns at
    50%, 4 dead ends, 2 loops, doors on 30% of the corridors, light 64 to 144; one start spot halfway along
    the longest way, 4+ doorways from the exit; 1000 steps (`spawn="very_sparse"`: the farthest room).
    DoomExit-v0: 3 x 3 rooms around 320 units, corridors 64-128 long, no doors, the exit 2+ doorways
    away, 300 steps. DoomExitHard-v0: 4 x 5 rooms around 384 units, narrower and longer corridors, doors
    on half of them, darker, the exit 4+ doorways away, 1000 steps.

    ## Version History
    - v1: buildings without a grid (`layout="sprawl"`: rooms of several sizes, corridors that turn, dead
      ends, loops), a fixed exit and start spots (`spawn`: ICM's dense / sparse / very sparse ladder),
      my_way_home's stock textures (`textures`), light from uniform to varied (`light_variation`), walls
      per room (`wall_mix`), two more exit looks and "any", 525 steps (Hard: 1000). New levels, so new
      ids; the v0 ids keep their levels byte for byte, and their scripted reference its rule.
    - v0: initial version.
    """
    hand_made_example = "vizdoom:my_way_home"

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    variables = ("ITEMCOUNT", user_variable(READY))
    score_name = "exits"
    level_only_kwargs = ("shaping", "new_room_reward")

    def __init__(self, exit_reward: float = 1.0, step_penalty: float = 0.0, shaping: float = 0.0,
                 new_room_reward: float = 0.0, goal: str | None = None, **kwargs: Any):
        self.exit_reward = check_number("exit_reward", exit_reward)
        self.step_penalty = check_number("step_penalty", step_penalty)
        self.shaping = check_number("shaping", shaping)
        self.new_room_reward = check_number("new_room_reward", new_room_reward)
        self.goal = check_goal(goal, kwargs.get("wad"))
        self._goals = 0  # goal items in the map at the episode's start (hand-made maps with a goal)
        super().__init__(**kwargs)
        self._plan: GridPlan | None = None
        self._plan_seed: int | None = None
        self._distance: list[int] = []
        self._hops: list[int] = []
        self._items = 0
        self._reached = False
        self._room = 0
        self._visited: set[int] = set()
        self._placed = np.zeros(READY - 1, np.int32)
        self._way = self._way_at_start = 0.0

    def level_plan(self, level_seed: int) -> GridPlan:
        """The building of level `level_seed`: the plan `build` draws first from the level's generator."""
        return layout_plan(np.random.default_rng(self.level_rng_seed(level_seed)), self.params, self.params.min_rooms)

    def hand_made_problem(self, hand_made) -> str | None:
        if self.shaping or self.new_room_reward:
            return "shaping and new_room_reward follow the rooms of a building it built; leave them 0"
        self.goal, problem = hand_made.goal(self.goal, SCENARIO_GOALS)
        return problem

    def configure_game(self, game: vzd.DoomGame) -> None:
        if self.hand_made and self.goal:
            game.set_objects_info_enabled(True)  # the goal items left in the map

    def _goals_left(self) -> int:
        state = self.last_state  # the one reset or step has just read
        goal = self.goal.lower()
        return sum(o.name.lower() == goal for o in state.objects) if state is not None else self._goals

    def level_problem(self, v) -> str | None:
        if v[self.variables[1]] != 1:
            return f"ACS could not place the player and the exit in {self.map}"
        return None

    def on_reset(self, v) -> None:
        self._reached = False
        if self.hand_made:
            self._goals = self._goals_left() if self.goal else 0
            return
        self._placed = np.array([self.game.get_game_variable(var) for var in PLACE_VARIABLES], np.int32)
        if self._plan_seed != self.level_seed:
            self._plan, self._plan_seed = self.level_plan(self.level_seed), self.level_seed
        self._distance = room_distances(self._plan, int(self._placed[EXIT_ROOM - 1]))
        self._hops = cell_hops(self._plan, int(self._placed[EXIT_ROOM - 1]))
        self._items = int(v["ITEMCOUNT"])
        self._reached = False
        self._room = int(self._placed[START_ROOM - 1])
        self._visited = {self._room}
        self._way = self._way_to_exit(*self._placed[START_X - 1:START_Y])
        self._way_at_start = max(self._way, 1.0)

    def _way_to_exit(self, x: float, y: float) -> float:
        placed = self._placed
        return route_length(self._plan, x, y, int(placed[EXIT_ROOM - 1]), tuple(placed[EXIT_X - 1:EXIT_Y]),
                            self._hops)

    def on_step(self, v) -> tuple[float, bool]:
        if self.hand_made:  # the map ended (an exit special or a script), or a goal item was taken
            self._reached = self.map_exited() or bool(self.goal) and self._goals_left() < self._goals
            return self.exit_reward * self._reached - self.step_penalty, self._reached
        self._reached = v["ITEMCOUNT"] > self._items
        x, y, _ = self.player_pose()
        room = room_at(self._plan, x, y)
        if room is not None and room >= self._plan.room_count:
            room = None                    # a corridor's corner or blind end: not a room
        new_room = room is not None and room not in self._visited
        if room is not None:
            self._room = room
            self._visited.add(room)
        way = 0.0 if self._reached else self._way_to_exit(x, y)
        reward = (self.exit_reward * self._reached - self.step_penalty + self.new_room_reward * new_room
                  + self.shaping * (self._way - way) / self._way_at_start)
        self._way = way
        return reward, self._reached

    @property
    def score(self) -> float:
        return float(self._reached)

    def reference_action(self) -> int:
        """Follow the room graph: from the player's room head for the opening towards the exit's room, through
        it, and so on; in the exit's room, head for the exit (building.route_point)."""
        if self.hand_made:
            raise NotImplementedError("ExitEnv's scripted reference follows the rooms of a building it built")
        pose = self.player_pose()
        target = route_point(self._plan, pose[0], pose[1], int(self._placed[EXIT_ROOM - 1]),
                             tuple(self._placed[EXIT_X - 1:EXIT_Y]))
        return steer_towards(pose, target)

    def task_info(self) -> dict[str, Any]:
        if self.hand_made:
            return {"exit_reached": self._reached}
        placed = self._placed
        return {
            "exit_reached": self._reached,
            "exit_position": placed[EXIT_X - 1:EXIT_Y].copy(),
            "start_position": placed[START_X - 1:START_Y].copy(),
            "exit_room": int(placed[EXIT_ROOM - 1]),
            "start_room": int(placed[START_ROOM - 1]),
            "rooms_apart": int(placed[ROOMS_APART - 1]),
            "room": self._room,
            "rooms_visited": len(self._visited),
            "rooms_to_exit": self._distance[self._room] if self._distance else 0,
            "way_to_exit": self._way,
        }
