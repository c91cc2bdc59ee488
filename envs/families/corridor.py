"""The corridor family: reach the far end of a corridor while monsters on both sides shoot (DoomCorridor-v0,
DoomCorridorHard-v0): ViZDoom's deadly_corridor, generated.

One module: the scenario (`Params`, `PRESETS`, `build`, and the plan it draws: `corridor_plan`) and the task
(`CorridorEnv`). The corridor is a chain of straight legs joined by square corners; the monsters stand in bays
cut into its side walls; the ACS template envs/families/corridor.acs arms the player and sets the monsters'
health and speed; the looks come from wadgym.envs.scenarios.styles, the weapons from wadgym.envs.scenarios.weapons.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import vizdoom as vzd

from wadgym.envs.actions import ATTACK_ACTION_SETS
from wadgym.envs.aiming import aim_action, bearing
from wadgym.envs.checks import check_names, check_number
from wadgym.envs.doom_env import DoomEnv, user_variable
from wadgym.envs.params import check_fields
from wadgym.envs.runtime.handmade import check_goal
from wadgym.envs.scenarios.acs_template import acs_fixed, fill
from wadgym.envs.scenarios.styles import TEXTURE_POOLS, draw_style
from wadgym.envs.scenarios.weapons import WEAPONS
from wadgym.wads import Actor, Level, MapBuilder

# Stock monsters that attack from afar and fit a bay 64 units deep (radius 31 at most; Doom 2 classes of
# vizdoom.pk3). Left out: the melee ones (they cannot reach the player from a bay), the wide ones
# (Arachnotron, Fatso) and those that spawn or raise others.
MONSTERS = ("ZombieMan", "ShotgunGuy", "ChaingunGuy", "DoomImp", "Revenant", "HellKnight", "BaronOfHell",
            "Cacodemon")
# placement's choices: "pairs" puts two monsters face to face at each station (deadly_corridor's three pairs),
# "staggered" one a station on alternate sides, "random" each at a random station and side.
PLACEMENTS = ("pairs", "staggered", "random")
GOAL_CLASS = "WadgymCorridorGoal"
GOAL_EDNUM = 20210
GOAL_TID = 2000
MONSTER_TID = 1000            # monster k of the map has tid MONSTER_TID + k
START_BACK = 48               # wall behind the player's start
GOAL_FRONT = 48               # wall beyond the goal
START_CLEARANCE = 160         # along the way: no monster nearer the start (deadly_corridor's first pair stands at 160)
GOAL_CLEARANCE = 128          # ... nor nearer the goal
WALL = 32                     # the least wall between two spaces that do not open into each other
PILLAR_GAP = 8                # between a cover pillar and the side wall it stands by (nothing passes there)
LANE = 24                     # half the free lane a cover pillar leaves (the player's radius is 16)
# Beyond this distance from the start no bay's monster can see the start down a straight corridor: its line
# would meet the side wall before the bay's opening (bays at most 256 long, 64 deep or more, corridors 256 wide).
FAR_SIGHT = 768
PEEK = 96                     # the scripted reference faces a monster it will see within this many units on
LAYOUT_TRIES = 20             # layouts drawn before a level whose monsters do not fit is refused
SPOT_TRIES = 30               # positions drawn for a station or a pillar before the layout is drawn again
ALIVE_VARIABLE = 1            # USER1: monsters alive (ACS global 1)
# Tics the engine plays before the first observation: the ENTER script runs in tic 1, then the weapon takes
# 16 tics to come up (as in the defend family).
START_TICS = 18
EAST, NORTH, SOUTH = (1, 0), (0, 1), (0, -1)
# A hand-made scenario whose goal is an item: the corridor's goal there without goal=.
SCENARIO_GOALS = {"deadly_corridor": "GreenArmor"}

Rect = tuple[int, int, int, int]


@dataclass(frozen=True)
class Params:
    """A corridor from the player's start to the goal: `length_min` to `length_max` map units along its middle,
    `width_min` to `width_max` wide, turning a right angle 0 to `turns` times (left or right, never back
    towards the start), drawn per level. Monsters (`n_monsters_min` to `n_monsters_max`, kinds drawn from
    `monsters`) stand in bays cut `bay_depth` into the side walls, each bay `bay_length` long, placed by
    `placement`; `monster_health` sets their health (0: their own) and `monster_speed` scales their walking
    speed (0: they stand and shoot, as deadly_corridor's do). `cover` pillars of `cover_size` square stand by
    the side walls between the bays (the player can shelter behind them). `skill` is the engine's skill level
    (1 to 5: at 5 monsters attack faster, as in deadly_corridor); `damage_factor` multiplies the damage the
    player takes (deadly_corridor: 2). The player holds `weapon` with `ammo` rounds and `player_health`
    health. Walls, floor and ceiling come from the texture pool `textures`, the light is drawn from
    `light_low` to `light_high`."""

    length_min: int = 1024
    length_max: int = 1536
    width_min: int = 96
    width_max: int = 160
    turns: int = 1
    bay_length: int = 128
    bay_depth: int = 64
    n_monsters_min: int = 4
    n_monsters_max: int = 6
    monsters: tuple[str, ...] = ("ZombieMan", "ShotgunGuy")
    placement: str = "pairs"
    monster_health: int = 1
    monster_speed: float = 0.0
    cover: int = 2
    cover_size: int = 16
    skill: int = 3
    damage_factor: float = 1.0
    weapon: str = "Pistol"
    ammo: int = 100
    player_health: int = 100
    textures: str = "v0"
    light_low: int = 144
    light_high: int = 224

    def __post_init__(self):
        check_fields(self, {"length_min": (512, 8192), "length_max": (512, 8192), "width_min": (64, 256),
                            "width_max": (64, 256), "turns": (0, 4), "bay_length": (64, 256), "bay_depth": (64, 192),
                            "n_monsters_min": (1, 32), "n_monsters_max": (1, 32), "monster_health": (0, 10000),
                            "monster_speed": (0.0, 2.0), "cover": (0, 16), "cover_size": (16, 64), "skill": (1, 5),
                            "damage_factor": (0.1, 10.0), "player_health": (1, 10000), "light_low": (0, 255),
                            "light_high": (0, 255)},
                     {"placement": PLACEMENTS, "weapon": tuple(WEAPONS), "textures": tuple(TEXTURE_POOLS)})
        object.__setattr__(self, "monsters", check_monsters(self.monsters))
        check_number("ammo", self.ammo, 1, WEAPONS[self.weapon][1], whole=True)
        for low, high in (("length_min", "length_max"), ("width_min", "width_max"),
                          ("n_monsters_min", "n_monsters_max"), ("light_low", "light_high")):
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low}={getattr(self, low)} is above {high}={getattr(self, high)}")
        if self.length_min < (self.turns + 1) * min_leg(self):
            raise ValueError(f"length_min={self.length_min} is too short for turns={self.turns}: each of the "
                             f"{self.turns + 1} legs needs {min_leg(self)} units (width_max and bay_depth); valid: "
                             f"length_min from {(self.turns + 1) * min_leg(self)}, or fewer turns")
        if self.cover and self.width_min < 2 * (self.cover_size + PILLAR_GAP + LANE):
            raise ValueError(f"cover={self.cover} pillars of cover_size={self.cover_size} leave no lane in corridors "
                             f"of width_min={self.width_min}; valid: width_min from "
                             f"{2 * (self.cover_size + PILLAR_GAP + LANE)}, a smaller cover_size, or cover=0")
        needed, room = station_room(self)
        if needed > room:
            raise ValueError(f"n_monsters_max={self.n_monsters_max} bays of bay_length={self.bay_length} placed "
                             f"{self.placement!r} need {needed} units of wall on a side; corridors of "
                             f"length_min={self.length_min} with turns={self.turns} offer {room}; lower "
                             f"n_monsters_max or bay_length, or raise length_min")


def check_monsters(monsters) -> tuple[str, ...]:
    """`monsters` as a tuple of MONSTERS' names (any case); else a ValueError listing the valid ones."""
    return check_names("monsters", monsters, MONSTERS, "('ZombieMan',)", unknown="unknown or unfit")


def min_leg(p: Params) -> int:
    """The shortest leg a corridor of `p` may have: room for a bay on a leg between two turns."""
    return max(256, p.width_max + 2 * p.bay_depth + 2 * WALL)


def station_room(p: Params) -> tuple[int, int]:
    """(wall needed on one side for the most monsters, wall a shortest corridor offers on a side), map units."""
    needed = math.ceil(p.n_monsters_max / 2) * (p.bay_length + WALL)
    room = p.length_min - START_CLEARANCE - GOAL_CLEARANCE + p.bay_length - p.turns * (p.width_max + 2 * WALL)
    return needed, room


PRESETS: dict[str, Params] = {
    # Up to one turn, 4-6 zombies and shotgun guys of one bullet in pairs, two pillars of cover, skill 3.
    "default": Params(),
    # Longer and narrower (no room for cover), up to two turns, 6-8 monsters with chaingun guys at random
    # stations, skill 5 and double damage (deadly_corridor's), darker.
    "hard": Params(length_min=1280, length_max=1792, width_min=64, width_max=128, turns=2, n_monsters_min=6,
                   n_monsters_max=8, monsters=("ZombieMan", "ShotgunGuy", "ChaingunGuy"), placement="random",
                   cover=0, skill=5, damage_factor=2.0, ammo=200, light_low=96, light_high=176),
    # deadly_corridor's measures: straight, 1312 units to the goal, 64 wide, bays 128 x 64, six monsters in
    # three pairs, skill 5, double damage, 200 bullets (its six clip boxes, capped); textures and light drawn.
    "deadly": Params(length_min=1312, length_max=1312, width_min=64, width_max=64, turns=0, n_monsters_min=6,
                     n_monsters_max=6, monsters=("ZombieMan", "ShotgunGuy", "ChaingunGuy"), cover=0, skill=5,
                     damage_factor=2.0, ammo=200, textures="my_way_home", light_low=160, light_high=224),
}


@dataclass(frozen=True)
class Plan:
    """One level's corridor: the way along its middle (`path`: the start, each corner's centre, the goal), the
    spaces (`pieces`: legs and corners in order, each opening into the next), the bays (each opening into the
    piece `bay_piece[i]`) with a monster at its centre, and the cover pillars (inside the piece `pillar_piece[i]`)."""

    width: int
    path: tuple[tuple[int, int], ...]
    pieces: tuple[Rect, ...]
    bays: tuple[Rect, ...]
    bay_piece: tuple[int, ...]
    pillars: tuple[Rect, ...]
    pillar_piece: tuple[int, ...]

    @property
    def monsters(self) -> list[tuple[int, int]]:
        return [((x0 + x1) // 2, (y0 + y1) // 2) for x0, y0, x1, y1 in self.bays]

    @property
    def legs(self) -> list[tuple[tuple[int, int], tuple[int, int], int]]:
        """Each leg's start, unit heading and length."""
        out = []
        for a, b in zip(self.path, self.path[1:]):
            length = abs(b[0] - a[0]) + abs(b[1] - a[1])
            out.append((a, ((b[0] - a[0]) // length, (b[1] - a[1]) // length), length))
        return out

    @property
    def length(self) -> int:
        return sum(length for _, _, length in self.legs)


def corridor_plan(rng: np.random.Generator, p: Params) -> Plan:
    """The level's corridor, drawn from `rng`: width, length, turns and legs, then the monsters' bays, then the
    cover; a layout whose bays or pillars do not fit is drawn again (LAYOUT_TRIES times, then a ValueError)."""
    for _ in range(LAYOUT_TRIES):
        width = _draw_whole(rng, p.width_min, p.width_max, 16)
        length = _draw_whole(rng, p.length_min, p.length_max, 8)
        n_turns = int(rng.integers(0, p.turns + 1))
        path, pieces = _way(rng, p, width, length, n_turns)
        n_monsters = int(rng.integers(p.n_monsters_min, p.n_monsters_max + 1))
        bays = _bays(rng, p, width, path, pieces, n_monsters)
        if bays is None:
            continue
        pillars = _pillars(rng, p, width, path, pieces, bays)
        if pillars is None:
            continue
        return Plan(width, tuple(path), tuple(pieces), tuple(r for r, _ in bays), tuple(k for _, k in bays),
                    tuple(r for r, _ in pillars), tuple(k for _, k in pillars))
    raise ValueError(f"the monsters' bays and the cover of {p!r} did not fit in {LAYOUT_TRIES} layouts; lower "
                     f"n_monsters_max, bay_length or cover, or raise length_min")


def _draw_whole(rng, low: int, high: int, step: int) -> int:
    """A multiple of `step` from `low` to `high` (`low` itself when there is none)."""
    first, last = -(-low // step), high // step
    return step * int(rng.integers(first, last + 1)) if first <= last else low


def _way(rng, p: Params, width: int, length: int, n_turns: int):
    """The path (start, corners, goal) and the pieces (leg, corner, leg, ...) of a corridor: legs of at least
    min_leg, the first heading east, each turn to north or south from an eastward leg and back east from a
    northward or southward one (so the corridor never comes back on itself)."""
    shortest = min_leg(p)
    spare = length - (n_turns + 1) * shortest
    cuts = np.sort(rng.integers(0, spare // 8 + 1, size=n_turns)) * 8 if n_turns else np.zeros(0, int)
    bounds = [0, *cuts.tolist(), spare]
    legs = [shortest + bounds[k + 1] - bounds[k] for k in range(n_turns + 1)]
    headings, heading = [], EAST
    for _ in legs:
        headings.append(heading)
        heading = (NORTH, SOUTH)[int(rng.integers(2))] if heading == EAST else EAST
    half = width // 2
    path = [(0, 0)]
    for (dx, dy), leg in zip(headings, legs):
        x, y = path[-1]
        path.append((x + dx * leg, y + dy * leg))
    pieces: list[Rect] = []
    for k, ((dx, dy), a, b) in enumerate(zip(headings, path, path[1:])):
        back = START_BACK if k == 0 else -half
        front = GOAL_FRONT if k == len(legs) - 1 else -half
        start = (a[0] - dx * back, a[1] - dy * back)
        end = (b[0] + dx * front, b[1] + dy * front)
        pieces.append(_box(start, end, half))
        if k < len(legs) - 1:
            pieces.append((b[0] - half, b[1] - half, b[0] + half, b[1] + half))
    return path, pieces


def _box(start: tuple[int, int], end: tuple[int, int], half: int) -> Rect:
    """The rectangle `half` to each side of the axis-parallel segment start-end."""
    x0, x1 = sorted((start[0], end[0]))
    y0, y1 = sorted((start[1], end[1]))
    if y0 == y1:
        return (x0, y0 - half, x1, y1 + half)
    return (x0 - half, y0, x1 + half, y1)


def _along(path, d: float) -> tuple[int, tuple[float, float], tuple[int, int]]:
    """The leg (index among the legs), the point and the heading at distance `d` along the path."""
    travelled = 0
    for k, (a, b) in enumerate(zip(path, path[1:])):
        leg = abs(b[0] - a[0]) + abs(b[1] - a[1])
        if d <= travelled + leg or k == len(path) - 2:
            heading = ((b[0] - a[0]) // leg, (b[1] - a[1]) // leg)
            t = d - travelled
            return k, (a[0] + heading[0] * t, a[1] + heading[1] * t), heading
        travelled += leg
    raise AssertionError("unreachable")


def _side_rect(point, heading, side: int, along: int, across0: int, across1: int) -> Rect:
    """The rectangle `along` long centred on `point` along `heading`, from `across0` to `across1` off the path
    to the left (side 1) or the right (side -1)."""
    dx, dy = heading
    left = (-dy * side, dx * side)
    corners = [(point[0] + dx * s + left[0] * c, point[1] + dy * s + left[1] * c)
               for s in (-along / 2, along / 2) for c in (across0, across1)]
    xs, ys = [round(x) for x, _ in corners], [round(y) for _, y in corners]
    return (min(xs), min(ys), max(xs), max(ys))


def _gap(a: Rect, b: Rect) -> float:
    """The distance between two rectangles (negative inside each other)."""
    dx = max(a[0] - b[2], b[0] - a[2])
    dy = max(a[1] - b[3], b[1] - a[3])
    return max(dx, dy) if dx < 0 or dy < 0 else math.hypot(dx, dy)


def _stations(rng, p: Params, length: int, n_monsters: int) -> list[tuple[float, int]]:
    """(distance along the way, side) of each bay by `p.placement`: pairs and staggered at evenly spaced,
    jittered stations; random anywhere between the clearances."""
    first, last = START_CLEARANCE, length - GOAL_CLEARANCE
    if p.placement == "random":
        return [(float(rng.uniform(first, last)), int(rng.choice((-1, 1)))) for _ in range(n_monsters)]
    count = math.ceil(n_monsters / 2) if p.placement == "pairs" else n_monsters
    spacing = (last - first) / max(count - 1, 1)
    side = int(rng.choice((-1, 1)))
    out = []
    for i in range(count):
        d = first + spacing * i if count > 1 else (first + last) / 2
        d += float(rng.uniform(-spacing / 4, spacing / 4)) if count > 1 else 0.0
        d = min(max(d, first), last)
        if p.placement == "pairs":
            out += [(d, side), (d, -side)]
        else:
            out.append((d, side if i % 2 == 0 else -side))
    return out[:n_monsters]


def _bays(rng, p: Params, width: int, path, pieces: list[Rect], n_monsters: int):
    """[(bay, index of the leg piece it opens from)] for the drawn stations, each clear (WALL) of every
    space but its own leg, its monster out of sight of the start (at skill 5 it would shoot before the first
    observation); None when a station's bay does not fit after SPOT_TRIES jittered draws."""
    half = width // 2
    length = sum(abs(b[0] - a[0]) + abs(b[1] - a[1]) for a, b in zip(path, path[1:]))
    stations = _stations(rng, p, length, n_monsters)
    bays: list[tuple[Rect, int]] = []
    for d, side in stations:
        for attempt in range(SPOT_TRIES):
            at = d if attempt == 0 else float(rng.uniform(START_CLEARANCE, length - GOAL_CLEARANCE))
            if attempt and p.placement == "random":
                side = int(rng.choice((-1, 1)))
            leg, point, heading = _along(path, at)
            bay = _side_rect(point, heading, side, p.bay_length, half, half + p.bay_depth)
            own = 2 * leg  # legs and corners alternate in `pieces`
            spot = ((bay[0] + bay[2]) / 2, (bay[1] + bay[3]) / 2)
            fits = (_inside_along(bay, pieces[own])
                    and all(_gap(bay, piece) >= WALL for k, piece in enumerate(pieces) if k != own)
                    and all(_gap(bay, other) >= WALL for other, _ in bays))
            if fits and (math.dist(path[0], spot) > FAR_SIGHT  # and no monster sees the start
                         or not _clear_line(path[0], spot, (*pieces, bay), (), 4, 0)):
                bays.append((bay, own))
                break
        else:
            return None
    return bays


def _inside_along(bay: Rect, leg: Rect) -> bool:
    """Whether `bay`'s opening lies along `leg`'s side wall (not past its ends)."""
    return (leg[0] <= bay[0] and bay[2] <= leg[2]) or (leg[1] <= bay[1] and bay[3] <= leg[3])


def _pillars(rng, p: Params, width: int, path, pieces: list[Rect], bays: list[tuple[Rect, int]]):
    """[(pillar, index of the leg piece it stands in)]: `p.cover` square pillars PILLAR_GAP off a side wall,
    clear of the corners, the start, the goal, the bays' openings and each other; None when one does not fit."""
    half = width // 2
    length = sum(abs(b[0] - a[0]) + abs(b[1] - a[1]) for a, b in zip(path, path[1:]))
    pillars: list[tuple[Rect, int]] = []
    size = p.cover_size
    for _ in range(p.cover):
        for _ in range(SPOT_TRIES):
            at = float(rng.uniform(START_CLEARANCE, length - GOAL_CLEARANCE))
            side = int(rng.choice((-1, 1)))
            leg, point, heading = _along(path, at)
            pillar = _side_rect(point, heading, side, size, half - PILLAR_GAP - size, half - PILLAR_GAP)
            own = 2 * leg
            if (_contains(pieces[own], pillar)
                    and all(_gap(pillar, piece) >= WALL for k, piece in enumerate(pieces) if k != own)
                    and all(_gap(pillar, bay) >= 2 * PILLAR_GAP + WALL for bay, _ in bays)
                    and all(_gap(pillar, other) >= 2 * WALL for other, _ in pillars)):
                pillars.append((pillar, own))
                break
        else:
            return None
    return pillars


def _contains(outer: Rect, inner: Rect) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def build(rng: np.random.Generator, p: Params) -> Level:
    """One level: the corridor's plan, then its look, then each monster's kind, drawn from `rng`."""
    plan = corridor_plan(rng, p)
    style = draw_style(rng, (p.light_low, p.light_high), p.textures)
    kinds = [p.monsters[int(rng.integers(len(p.monsters)))] for _ in plan.bays]
    m = MapBuilder()
    look = {"floor": style.floor, "ceiling": style.ceiling, "wall": style.wall, "light": style.light,
            "ceiling_height": 128}
    rooms = [m.add_room(*piece, **look) for piece in plan.pieces]
    for a, b in zip(rooms, rooms[1:]):
        m.connect(a, b, width=None)
    for bay, piece in zip(plan.bays, plan.bay_piece):
        m.connect(rooms[piece], m.add_room(*bay, **look), width=None)
    for pillar, piece in zip(plan.pillars, plan.pillar_piece):
        m.add_pillar(rooms[piece], *pillar, wall=style.wall)
    start, second = plan.path[0], plan.path[1]
    m.add_player_start(*start, angle=math.degrees(math.atan2(second[1] - start[1], second[0] - start[0])))
    for k, ((x, y), kind) in enumerate(zip(plan.monsters, kinds)):
        m.add_thing(kind, x, y, angle=_facing((x, y), plan), tid=MONSTER_TID + k)
    m.add_thing(GOAL_CLASS, plan.path[-1], tid=GOAL_TID)
    return Level(map=m, scripts=corridor_script(p, len(plan.bays)), actors=[goal_actor()], title="wadgym corridor")


def _facing(spot: tuple[int, int], plan: Plan) -> float:
    """A monster's facing: out of its bay, towards the way through the corridor."""
    leg = min(range(len(plan.legs)), key=lambda k: _distance_to_leg(spot, plan.legs[k]))
    (ax, ay), (dx, dy), _ = plan.legs[leg]
    across = (spot[0] - ax) * -dy + (spot[1] - ay) * dx  # positive: the bay lies to the left of the way
    face = (dy, -dx) if across > 0 else (-dy, dx)
    return math.degrees(math.atan2(face[1], face[0])) % 360


def _distance_to_leg(point, leg) -> float:
    (ax, ay), (dx, dy), length = leg
    t = min(max((point[0] - ax) * dx + (point[1] - ay) * dy, 0), length)
    return math.hypot(point[0] - (ax + dx * t), point[1] - (ay + dy * t))


def goal_actor() -> Actor:
    """The goal: an item that counts for ITEMCOUNT when the player touches it (a Health pickup that heals
    nothing and is always taken), drawn as the green armour (deadly_corridor's vest)."""
    return Actor(GOAL_CLASS, parent="Health", ednum=GOAL_EDNUM, flags=["+COUNTITEM", "+INVENTORY.ALWAYSPICKUP"],
                 properties={"Inventory.Amount": 0, "Inventory.PickupMessage": ""},
                 states={"Spawn": ["ARM1 A 6", "ARM1 B 7 BRIGHT", "Loop"]})


def corridor_script(p: Params, n_monsters: int) -> str:
    """The level's ACS: corridor.acs filled in with the parameters."""
    return fill("corridor.acs", package=__package__, values={
        "monster_tid": MONSTER_TID,
        "n_monsters": n_monsters,
        "monster_health": p.monster_health,
        "monster_speed": acs_fixed(p.monster_speed),
        "player_health": p.player_health,
        "damage_factor": acs_fixed(p.damage_factor),
        "ammo": p.ammo,
        "weapon": p.weapon,
        "ammo_type": WEAPONS[p.weapon][0],
    })


def way_to_goal(plan: Plan, x: float, y: float) -> float:
    """How far (map units) the goal is from (x, y) along the corridor's middle: from the nearest point of the
    path, along the rest of it."""
    best, rest = math.inf, 0.0
    legs = plan.legs
    remaining = [sum(length for _, _, length in legs[k + 1:]) for k in range(len(legs))]
    for k, ((ax, ay), (dx, dy), length) in enumerate(legs):
        t = min(max((x - ax) * dx + (y - ay) * dy, 0.0), float(length))
        off = math.hypot(x - (ax + dx * t), y - (ay + dy * t))
        if off < best:
            best, rest = off, length - t + remaining[k]
    return rest


def point_ahead(plan: Plan, x: float, y: float, ahead: float) -> tuple[float, float]:
    """The point of the path `ahead` map units beyond the nearest point to (x, y) (the goal at most)."""
    done = plan.length - way_to_goal(plan, x, y)
    _, point, _ = _along(plan.path, min(done + ahead, plan.length))
    return point


def in_the_open(plan: Plan, points: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """For each point (x, y) of `points` (N, 2), whether it lies in the corridor's free space (a piece or a bay,
    not a pillar) with the square `margin` around it: each of the square's corners in the free space."""
    return _free(points, (*plan.pieces, *plan.bays), plan.pillars, margin)


def in_sight(plan: Plan, a: tuple[float, float], b: tuple[float, float], step: float = 4.0,
             margin: float = 1.0) -> bool:
    """Whether the straight line from `a` to `b` stays in the free space, `margin` clear of every wall (sampled
    every `step` units): a shot along it hits no corner."""
    return _clear_line(a, b, (*plan.pieces, *plan.bays), plan.pillars, step, margin)


def _free(points, spaces, blocks, margin: float) -> np.ndarray:
    """in_the_open over the rectangles `spaces` (free) and `blocks` (not)."""
    corners = np.array([(dx, dy) for dx in (-margin, margin) for dy in (-margin, margin)])
    p = np.asarray(points, float)[:, None, None, :] + corners[None, :, None, :]  # (N, 4, 1, 2)

    def within(rects) -> np.ndarray:
        r = np.asarray(rects, float).reshape(-1, 4)
        x, y = p[..., 0], p[..., 1]
        return ((r[:, 0] <= x) & (x <= r[:, 2]) & (r[:, 1] <= y) & (y <= r[:, 3])).any(-1)

    return (within(spaces) & ~within(blocks)).all(-1)


def _clear_line(a, b, spaces, blocks, step: float = 4.0, margin: float = 1.0) -> bool:
    n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) // step))
    t = np.linspace(0.0, 1.0, n + 1)[:, None]
    a, b = np.asarray(a, float), np.asarray(b, float)
    return bool(_free(a + (b - a) * t, spaces, blocks, margin).all())


class CorridorEnv(DoomEnv):
    """Reach the end of a corridor past monsters that shoot from bays on both sides (deadly_corridor, generated).

    ## Description
    The player starts at one end of a corridor, facing along it, armed; a goal (the green armour, as
    deadly_corridor's vest) lies at the other end. Monsters stand in bays cut into both side walls and shoot
    once they see or hear the player; running past them gets the player killed, so the task is to clear the
    way and walk on. Each level (see Levels) has its own length, width, turns (right angles, left or right,
    never back towards the start), bays and the monsters in them, cover pillars by the walls, walls, floor,
    ceiling and light; the engine's skill level and the damage the player takes come from the parameters.
    The level's ACS publishes the monsters still alive in ACS global 1 (ViZDoom's USER1).

    ## Action Space
    `Discrete(9)` with `action_set="attack_move"` (the default): 0 attack, 1 turn left, 2 turn right, 3 turn
    left + attack, 4 turn right + attack, 5 forward, 6 backward, 7 strafe left, 8 strafe right: every button
    of deadly_corridor's .cfg. `Discrete(5)` with `"attack"` (turn and shoot only: the goal is out of reach);
    the families' "basic" and "extended" sets have no attack. Each action holds its buttons for `frame_skip`
    tics (default 4).

    ## Observation Space
    The screen as `Box(0, 255, (H, W, C), uint8)`, by default (60, 80, 1) gray; `resolution`,
    `render_resolution`, `downsample`, `color`, `game_variables` and `buffers` work as in every wadgym env
    (see wadgym.envs.families.items.ItemsEnv).

    ## Rewards
    As deadly_corridor's, in its proportions (1,312 map units of progress to the vest, 1,000 at the vest, 100
    at death, divided by 1,000): `progress_reward` (default 1.0) times the decrease of the way to the goal
    along the corridor's middle (`info["way_to_goal"]`), as a fraction of that way at the start, so walking
    the whole way earns it once and walking back takes it back (potential-based); `goal_reward` (default 1.0)
    in the step the goal is taken; minus `death_penalty` (default 0.1) in the step the player dies; plus
    `kill_reward` (default 0.0) for each monster the player killed. The score (`info["score"]`, named
    "goals") is 1 once the goal is taken, else 0.

    ## Starting State
    The player at the start with `player_health`, facing along the first leg, holding `weapon` with `ammo`
    rounds (raised and ready); the monsters in their bays.

    ## Episode End
    Terminated when the player takes the goal or dies. Truncated only by the `TimeLimit` wrapper from
    `max_episode_steps` in the registration; the engine's own episode timeout is off.

    ## Info
    `score` and `goal_reached` (bool), `kills`, `health` and `ammo` (ints: kills so far, the player's health,
    the ammo of the weapon held), `monsters_alive` (USER1), `way_to_goal` (map units, see Rewards) and
    `progress` (the share of the way done, 0 to 1), `level_seed` and `map`.

    ## Hand-made maps
    `wad="my_level.wad"` (or `"vizdoom:deadly_corridor"`) and `map="MAP01"` play that map with the same
    actions, observations and frame skip. The goal is taken when a goal item is picked up (`goal="GreenArmor"`
    names its actor class, a thing of the map; on "vizdoom:deadly_corridor" the vest is the goal by default)
    or when the map ends without the player dying (an exit special or a script); the score is 1 then, the
    reward `goal_reward`. With a goal item the progress reward follows the straight line to it (deadly_corridor's
    own reward follows the x axis, the same along its straight corridor); `info` holds `score`, `goal_reached`,
    `kills`, `health`, `ammo` and, with a goal item, `way_to_goal` and `progress`; `level_seed` None. A map
    with no exit special and no goal named is refused. On a ViZDoom scenario, `info["scenario_return"]` is the
    return as the scenario rewards it (deadly_corridor: the player's x in map units, +1,000 at the vest, -100
    at death). No scripted reference there. Arguments `wad`, `map`, `doom_skill`, `episode_start_time`,
    `episode_timeout`: see ItemsEnv.

    ## Levels and seeding
    `num_levels` (0: unlimited) and `start_level` choose the levels, as procgen does: each reset draws a
    level seed in [start_level, start_level + num_levels) from `np_random`; `reset(options={"level_seed":
    s})` plays level s. Train on `num_levels=200` and test on `start_level=10_000` for held-out levels.
    `reset(seed=s)` seeds `np_random`, which draws the level and seeds the engine: the same seed and actions
    give the same episode. A level is a pure function of its seed: the same seed builds the same WAD.

    ## Arguments
    - preset: "default" (DoomCorridor-v0), "hard" (DoomCorridorHard-v0) or "deadly" (deadly_corridor's
      measures: straight, 1,312 units, 64 wide, six monsters in three pairs, skill 5, double damage);
      scenario parameters override the preset's: `length_min`, `length_max`, `width_min`, `width_max`,
      `turns`, `bay_length`, `bay_depth`, `n_monsters_min`, `n_monsters_max`, `monsters` (a tuple of names
      from MONSTERS), `placement` ("pairs", "staggered", "random"), `monster_health`, `monster_speed`,
      `cover`, `cover_size`, `skill`, `damage_factor`, `weapon` (a name from WEAPONS),
      `ammo`, `player_health`, `textures` ("v0", "my_way_home", "all", "lit"), `light_low`, `light_high` (see `Params`).
    - num_levels, start_level: the level range (see above).
    - progress_reward (default 1.0), goal_reward (default 1.0), death_penalty (default 0.1), kill_reward
      (default 0.0); goal (a hand-made map's goal item, see Hand-made maps).
    - frame_skip (1..64, default 4), resolution, render_resolution, downsample, color, game_variables,
      buffers, action_set ("attack_move", "attack", "basic", "extended"), cache_dir, render_mode,
      visit_reward, visit_cell: as in every wadgym env (wadgym.envs.families.items.ItemsEnv's Arguments).
    Unknown names and out-of-range values raise a ValueError naming what is valid, as do a corridor too
    short for its turns, cover that leaves no lane, and more monsters than the walls have room for.

    ## Registered ids
    DoomCorridor-v0: 1,024 to 1,536 units, 96 to 160 wide, up to one turn, 4 to 6 zombies and shotgun
    guys that die from one bullet, standing in pairs, two pillars of cover, skill 3, 100 bullets, 525 steps
    (deadly_corridor's 2,100 tics). DoomCorridorHard-v0: 1,280 to 1,792 units, 64 to 128 wide, up to two
    turns, 6 to 8 monsters with chaingun guys at random stations, no cover, skill 5 and double damage
    (deadly_corridor's), 200 bullets, darker, 525 steps.

    ## Version History
    - v0: initial version.
    """
    hand_made_example = "vizdoom:deadly_corridor"

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    variables = ("ITEMCOUNT", "KILLCOUNT", "HEALTH", "SELECTED_WEAPON_AMMO", user_variable(ALIVE_VARIABLE))
    map_variables = ("ITEMCOUNT", "KILLCOUNT", "HEALTH", "SELECTED_WEAPON_AMMO")
    score_name = "goals"
    action_sets = ATTACK_ACTION_SETS
    default_action_set = "attack_move"

    def __init__(self, progress_reward: float = 1.0, goal_reward: float = 1.0, death_penalty: float = 0.1,
                 kill_reward: float = 0.0, goal: str | None = None, **kwargs: Any):
        self.progress_reward = check_number("progress_reward", progress_reward)
        self.goal_reward = check_number("goal_reward", goal_reward)
        self.death_penalty = check_number("death_penalty", death_penalty)
        self.kill_reward = check_number("kill_reward", kill_reward)
        self.goal = check_goal(goal, kwargs.get("wad"))
        super().__init__(**kwargs)
        self._plan: Plan | None = None
        self._plan_seed: int | None = None
        self._goal_at: tuple[float, float] | None = None
        self._goals = 0
        self._reached = False
        self._items = self._kills = self._kills_at_start = 0
        self._way = self._way_at_start = 0.0
        self._last_aim: tuple | None = None  # reference_action's latest turn: (target, 1 left or 2 right)
        self._v: dict[str, float] = {}

    def level_plan(self, level_seed: int) -> Plan:
        """The corridor of level `level_seed`: the plan `build` draws first from the level's generator."""
        return corridor_plan(np.random.default_rng(self.level_rng_seed(level_seed)), self.params)

    def hand_made_problem(self, hand_made) -> str | None:
        self.goal, problem = hand_made.goal(self.goal, SCENARIO_GOALS)
        return problem

    def configure_game(self, game: vzd.DoomGame) -> None:
        game.set_objects_info_enabled(True)  # monster positions for reference_action; a hand-made map's goal
        game.set_episode_start_time(START_TICS)  # the first observation has the weapon raised and ready
        if not self.hand_made:
            game.set_doom_skill(self.params.skill)

    def _goal_objects(self) -> list[tuple[float, float]]:
        """Where the hand-made map's goal items are now (the engine's objects of the goal's class)."""
        state, goal = self.last_state, (self.goal or "").lower()
        if state is None or not goal:
            return []
        return [(o.position_x, o.position_y) for o in state.objects if o.name.lower() == goal]

    def on_reset(self, v) -> None:
        self._reached = False
        self._last_aim = None
        self._items = int(v["ITEMCOUNT"])
        self._kills_at_start, self._kills = int(v["KILLCOUNT"]), 0
        self._v = v
        x, y = self.player_position()
        if self.hand_made:
            goals = self._goal_objects()
            self._goals = len(goals)
            self._goal_at = min(goals, key=lambda g: math.hypot(g[0] - x, g[1] - y)) if goals else None
            self._way = math.hypot(self._goal_at[0] - x, self._goal_at[1] - y) if self._goal_at else 0.0
        else:
            if self._plan_seed != self.level_seed:
                self._plan, self._plan_seed = self.level_plan(self.level_seed), self.level_seed
            self._way = way_to_goal(self._plan, x, y)
        self._way_at_start = max(self._way, 1.0)

    def on_step(self, v) -> tuple[float, bool]:
        self._v = v
        if self.hand_made:  # the map ended (an exit special or a script), or a goal item was taken
            if self.last_state is None:
                self._reached = self.map_exited()
            else:
                self._reached = bool(self.goal) and len(self._goal_objects()) < self._goals
        else:
            self._reached = v["ITEMCOUNT"] > self._items
        kills = int(v["KILLCOUNT"]) - self._kills_at_start
        new_kills, self._kills = kills - self._kills, kills
        dead = v["HEALTH"] <= 0 and not self._reached
        x, y = self.player_position()
        if self._reached:
            way = 0.0
        elif self.hand_made:
            way = math.hypot(self._goal_at[0] - x, self._goal_at[1] - y) if self._goal_at else 0.0
        else:
            way = way_to_goal(self._plan, x, y)
        reward = (self.progress_reward * (self._way - way) / self._way_at_start + self.goal_reward * self._reached
                  - self.death_penalty * dead + self.kill_reward * new_kills)
        self._way = way
        return reward, self._reached

    @property
    def score(self) -> float:
        return float(self._reached)

    def monster_positions(self) -> np.ndarray:
        """x, y (map units, float64 (N, 2)) of the monsters alive now, from the engine's object list."""
        return self.object_positions(self.params.monsters)

    def reference_action(self) -> int:
        """Shoot the nearest live monster in sight (engine positions; sight along the level's plan: walls and
        pillars block it): turn towards it, fire when aimed. With none in sight, face the nearest monster that
        comes in sight within PEEK units further along the way and move on (forward, or strafing) still facing
        it, so that it is in the aim as it appears; else walk along the corridor's middle towards a point 64
        units ahead. Needs the "attack_move" action set."""
        if self.hand_made:
            raise NotImplementedError("CorridorEnv's scripted reference knows the corridors of the levels it builds "
                                      "only")
        if self._action_set != "attack_move":
            raise ValueError(f"reference_action needs action_set 'attack_move', not {self._action_set!r}")
        x, y, _ = pose = self.player_pose()
        plan = self._plan
        live = [tuple(m) for m in self.monster_positions()]
        seen = [m for m in live if in_sight(plan, (x, y), m)]
        ahead = point_ahead(plan, x, y, PEEK)
        soon = [m for m in live if in_sight(plan, ahead, m)]
        way, _ = bearing(pose, point_ahead(plan, x, y, 64.0))   # the way on, off the facing
        if seen or soon:
            # on aim: fire at a monster in sight, else move on along the way (a step or a strafe) still facing it
            on = 0 if seen else 5 if abs(way) <= 22.5 else 6 if abs(way) >= 135 else 7 if way > 0 else 8
            target = min(seen or soon, key=lambda m: math.hypot(m[0] - x, m[1] - y))
            action = aim_action(pose, target, self.frame_skip, fire=on, left=1, right=2)
            if action in (1, 2) and self._last_aim == (target, 3 - action) and abs(bearing(pose, target)[0]) < 20:
                action = on  # turned past it: as if on aim, and the next turn starts slow again
            self._last_aim = (target, action) if action in (1, 2) else None
            return action
        self._last_aim = None
        if abs(way) > 12:
            return 1 if way > 0 else 2
        return 5

    def task_info(self) -> dict[str, Any]:
        v = self._v
        info: dict[str, Any] = {"goal_reached": self._reached, "kills": self._kills,
                                "health": max(0, int(v.get("HEALTH", 0))),
                                "ammo": int(v.get("SELECTED_WEAPON_AMMO", 0))}
        if not self.hand_made:
            info["monsters_alive"] = int(v.get(self.variables[4], 0))
        if not self.hand_made or self._goal_at is not None:
            info["way_to_goal"] = self._way
            info["progress"] = 1.0 - self._way / self._way_at_start if self._way_at_start else 0.0
        return info
