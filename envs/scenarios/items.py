"""The "items" scenario: a square arena where ACS places collectable items at random when the map starts.

The ACS comes from the template items.acs beside this file; `items_script` fills it in, and the other
item layouts (see maze.py) reuse it with their own free areas.
"""

from __future__ import annotations

import numbers
import string
from dataclasses import dataclass, fields
from importlib import resources

import numpy as np

from wadgym.envs.checks import check_number
from wadgym.wads import Actor, Level, MapBuilder

ITEM_CLASS = "WadgymItem"
ITEM_TID = 1000
MAX_ITEMS = 29  # 58 USER variables hold the positions, USER59 the bitmask, USER60 the count
ITEM_PARENTS = ("Soulsphere", "Medikit", "Stimpack", "HealthBonus")  # stock Health pickups
# ACS stops a script after 2,000,000 instructions in one tic; a placement try costs at most ~1,500.
MAX_PLACEMENT_TRIES = 1000
PLACEMENT_TRIALS = 32  # check_room_for_items: placements simulated per layout
WEIGHT_UNIT = 64 * 64  # area weights in 64x64 blocks keep their cumulative sum far from overflow

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 in map units


@dataclass(frozen=True)
class ItemRules:
    """Parameters every item layout shares: the items, where they may go, and the player."""

    n_items: int = 10
    item_scale: float = 1.5  # sprite scale: bigger items are easier to see
    item_parent: str = "Soulsphere"  # fullbright: stands out at any light level
    min_item_distance: int = 96  # between two items' centres, map units
    min_start_distance: int = 160  # between an item and the player start
    wall_clearance: int = 32  # between an item's centre and any wall or obstacle
    player_health: int = 100
    player_invulnerable: bool = True
    player_speed: float = 1.0  # multiplier of the player's walking speed
    random_start_angle: bool = True  # the player faces a random direction in every episode

    def __post_init__(self):
        check_params(self)


@dataclass(frozen=True)
class Params(ItemRules):
    """The arena: `size` x `size` map units, with `n_obstacles` square pillars placed by the generator."""

    size: int = 1024
    n_obstacles: int = 0
    obstacle_size: int = 96
    # Freedoom flat and texture names: plain dark walls and floor, so the items are the bright things.
    floor: str = "FLOOR7_1"
    ceiling: str = "CEIL5_1"
    wall: str = "ASHWALL2"
    light: int = 144


# Inclusive ranges of the numeric parameters (of every layout) and the choices of the others.
LIMITS: dict[str, tuple[float, float]] = {
    "n_items": (1, MAX_ITEMS),
    "item_scale": (0.25, 4.0),
    "min_item_distance": (0, 4096),
    "min_start_distance": (0, 4096),
    "wall_clearance": (20, 256),
    "player_health": (1, 10000),
    "player_speed": (0.25, 4.0),
    "size": (256, 8192),
    "n_obstacles": (0, 64),
    "obstacle_size": (16, 1024),
    "light": (0, 255),
}
CHOICES: dict[str, tuple] = {
    "item_parent": ITEM_PARENTS,
    "player_invulnerable": (True, False),
    "random_start_angle": (True, False),
}


def check_params(params, limits=None, choices=None) -> None:
    """Raise ValueError naming the first parameter out of its range or choices, and what is valid.

    Numbers of numpy types become Python ints and floats, so cache keys and the ACS text stay stable.
    """
    limits, choices = limits or LIMITS, choices or CHOICES
    for f in fields(params):
        value = getattr(params, f.name)
        if f.name in choices:
            valid = choices[f.name]
            flag = all(isinstance(c, bool) for c in valid)
            if flag and isinstance(value, numbers.Integral) and value in (0, 1):
                value = bool(value)  # 0 and 1 mean False and True; stored as bools for stable cache keys
            if value not in valid or flag != isinstance(value, bool):
                raise ValueError(f"{f.name}={value!r} is not valid; choose one of {', '.join(map(repr, valid))}")
            object.__setattr__(params, f.name, value)
        if f.name in limits:
            lo, hi = limits[f.name]
            whole = isinstance(lo, int) and isinstance(hi, int)
            object.__setattr__(params, f.name, check_number(f.name, value, lo, hi, whole=whole))


PRESETS: dict[str, Params] = {
    "default": Params(),
    "hard": Params(size=2048, n_items=20, item_scale=1.0, n_obstacles=12, obstacle_size=128),
}


def item_actor(rules: ItemRules) -> Actor:
    """The collectable: a stock Health pickup that counts for ITEMCOUNT, heals nothing and is always taken."""
    return Actor(
        ITEM_CLASS,
        parent=rules.item_parent,
        flags=["+COUNTITEM", "+INVENTORY.ALWAYSPICKUP"],
        # Amount 0 + ALWAYSPICKUP: picked up at full health too, and health never changes.
        properties={"Inventory.Amount": 0, "Scale": float(rules.item_scale), "Inventory.PickupMessage": ""},
    )


def shrink(rect: Rect, by: int) -> Rect | None:
    x0, y0, x1, y1 = rect[0] + by, rect[1] + by, rect[2] - by, rect[3] - by
    return (x0, y0, x1, y1) if x0 <= x1 and y0 <= y1 else None


def check_room_for_items(rules: ItemRules, floor: list[Rect], obstacles: list[Rect], start: tuple[int, int]) -> None:
    """Refuse parameters whose items would not reliably fit: the ACS placement gives up after
    MAX_PLACEMENT_TRIES random points. The same placement, run here PLACEMENT_TRIALS times with a quarter
    of those tries, must place every item every time; the ACS then practically never falls short."""
    areas = placement_areas(rules, floor)
    if not areas:
        raise ValueError(f"wall_clearance={rules.wall_clearance} leaves no floor for items; lower it or enlarge the map")
    rng = np.random.default_rng(0)  # fixed: the same parameters always pass or always fail
    placed = placed_counts(rng, rules, areas, obstacles, start, MAX_PLACEMENT_TRIES // 4, PLACEMENT_TRIALS)
    if min(placed) < rules.n_items:
        names = (f"n_items={rules.n_items}, min_item_distance={rules.min_item_distance}, "
                 f"min_start_distance={rules.min_start_distance} and wall_clearance={rules.wall_clearance}")
        if max(placed) == 0:
            raise ValueError(f"{names}: no floor point is min_start_distance from the start and wall_clearance "
                             f"from every wall and obstacle; lower them or enlarge the map")
        raise ValueError(f"{names} do not fit in the free floor: random placement placed as few as {min(placed)} "
                         f"of {rules.n_items} items; lower them or enlarge the map")


def placement_areas(rules: ItemRules, floor: list[Rect]) -> list[Rect]:
    """The floor rectangles shrunk by the wall clearance: where item centres are drawn."""
    return [a for a in (shrink(r, rules.wall_clearance) for r in floor) if a is not None]


def placed_counts(rng: np.random.Generator, rules: ItemRules, areas: list[Rect], obstacles: list[Rect],
                  start: tuple[int, int], tries: int, trials: int) -> list[int]:
    """How many items items.acs's placement places in each of `trials` runs of `tries` random points: each
    point in an area drawn by its weight, kept when outside every obstacle grown by the clearance and far
    enough from the start and from the items kept so far."""
    weights = area_weights(areas)
    box = np.array(areas)
    k = np.searchsorted(weights, rng.integers(1, weights[-1] + 1, size=(trials, tries)))
    x = rng.integers(box[k, 0], box[k, 2] + 1)
    y = rng.integers(box[k, 1], box[k, 3] + 1)
    ok = (x - start[0]) ** 2 + (y - start[1]) ** 2 >= rules.min_start_distance ** 2
    c = rules.wall_clearance
    for x0, y0, x1, y1 in obstacles:
        ok &= ~((x > x0 - c) & (x < x1 + c) & (y > y0 - c) & (y < y1 + c))
    d2 = rules.min_item_distance ** 2
    counts = []
    for xs, ys, free in zip(x.tolist(), y.tolist(), ok.tolist()):
        placed: list[tuple[int, int]] = []
        for px, py, keep in zip(xs, ys, free):
            if keep and all((px - qx) ** 2 + (py - qy) ** 2 >= d2 for qx, qy in placed):
                placed.append((px, py))
                if len(placed) == rules.n_items:
                    break
        counts.append(len(placed))
    return counts


def area_weights(areas: list[Rect]) -> np.ndarray:
    """Cumulative weights of the areas, as the ACS draws them (in WEIGHT_UNIT blocks, at least 1 each)."""
    return np.cumsum([max(1, (x1 - x0 + 1) * (y1 - y0 + 1) // WEIGHT_UNIT) for x0, y0, x1, y1 in areas])


def _acs_list(values) -> str:
    return ", ".join(str(int(v)) for v in values)


def _acs_fixed(value: float) -> str:
    return f"{float(value):.4f}"


def items_script(rules: ItemRules, floor: list[Rect], obstacles: list[Rect], start: tuple[int, int]) -> str:
    """The ACS source placing `rules.n_items` items on `floor` (rectangles) outside `obstacles`."""
    c = rules.wall_clearance
    areas = placement_areas(rules, floor)
    if not areas:
        raise ValueError(f"wall_clearance={c} leaves no floor for items")
    weights = area_weights(areas)
    blocked = [(x0 - c, y0 - c, x1 + c, y1 + c) for x0, y0, x1, y1 in obstacles] or [(0, 0, 0, 0)]
    n = rules.n_items
    position_globals = "\n".join(
        f"global int {2 * i + 1}:item{i + 1}_x;  global int {2 * i + 2}:item{i + 1}_y;" for i in range(n)
    )
    publish = "\n".join(
        f"    item{i + 1}_x = item_x[{i}];  item{i + 1}_y = item_y[{i}];" for i in range(n)
    )
    values = {
        "n_items": n,
        "item_tid": ITEM_TID,
        "item_class": ITEM_CLASS,
        "max_tries": MAX_PLACEMENT_TRIES,
        "min_item_distance": rules.min_item_distance,
        "min_start_distance": rules.min_start_distance,
        "start_x": int(start[0]),
        "start_y": int(start[1]),
        "floor_z": 0,
        "n_areas": len(areas),
        "total_weight": int(weights[-1]),
        "n_blocked": len(obstacles),
        "blocked_size": len(blocked),
        "player_health": rules.player_health,
        "player_invulnerable": int(rules.player_invulnerable),
        "player_speed": _acs_fixed(rules.player_speed),
        "random_start_angle": int(rules.random_start_angle),
        "position_globals": position_globals,
        "publish_function": "// Copy the positions into the globals Python reads (scalar globals cannot be indexed).\n"
        f"function void publish_positions(void)\n{{\n{publish}\n}}",
    }
    for i, name in enumerate(("x0", "y0", "x1", "y1")):
        values[f"area_{name}"] = _acs_list(a[i] for a in areas)
        values[f"blocked_{name}"] = _acs_list(b[i] for b in blocked)
    values["area_weight"] = _acs_list(weights)
    template = resources.files(__package__).joinpath("items.acs").read_text()
    return string.Template(template).substitute(values)


def place_obstacles(rng: np.random.Generator, p: Params, start: tuple[int, int]) -> list[Rect]:
    """Up to `p.n_obstacles` pillars, each a corridor's width from the walls, the start and each other."""
    gap = 96  # the player (radius 16) passes between any two pillars and around each
    lo, hi = gap, p.size - gap - p.obstacle_size
    pillars: list[Rect] = []
    for _ in range(50 * p.n_obstacles):
        if len(pillars) == p.n_obstacles or hi < lo:
            break
        x0, y0 = (int(v) for v in rng.integers(lo, hi + 1, size=2))
        r = (x0, y0, x0 + p.obstacle_size, y0 + p.obstacle_size)
        near_start = r[0] - gap < start[0] < r[2] + gap and r[1] - gap < start[1] < r[3] + gap
        if not near_start and all(_apart(r, q, gap) for q in pillars):
            pillars.append(r)
    return pillars


def _apart(a: Rect, b: Rect, gap: int) -> bool:
    return a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1]


def arena_layout(rng: np.random.Generator, p: Params) -> tuple[tuple[int, int], int, list[Rect]]:
    """The arena's player start, its angle and its pillars, drawn from `rng`."""
    start = (p.size // 2, p.size // 2)
    angle = int(rng.integers(0, 360))
    return start, angle, place_obstacles(rng, p, start)


def build(rng: np.random.Generator, p: Params) -> Level:
    """Square arena, the player start in its centre, optional pillars, `p.n_items` items placed by ACS."""
    start, angle, pillars = arena_layout(rng, p)
    floor = [(0, 0, p.size, p.size)]
    check_room_for_items(p, floor, pillars, start)
    m = MapBuilder()
    arena = m.add_room(*floor[0], floor=p.floor, ceiling=p.ceiling, wall=p.wall, floor_height=0,
                       ceiling_height=128, light=p.light)
    m.add_player_start(*start, angle=angle)
    for pillar in pillars:
        m.add_pillar(arena, *pillar, wall=p.wall)
    return Level(map=m, name="MAP01", scripts=items_script(p, floor, pillars, start), actors=[item_actor(p)],
                 title="wadgym items")
