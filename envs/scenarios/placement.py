"""Collectable items placed at random by ACS when a map starts, and the numpy pre-check of that placement.

`ItemRules` are the parameters every item layout shares. `items_script` fills the template
placement.acs with a layout's free floor (rectangles) and obstacles: its OPEN script draws each item's
position with ACS `Random`, keeps it only where the rules allow, spawns it and publishes the positions in
ACS globals that Python reads as ViZDoom's USER variables:

    global 2i-1, 2i (i = 1..N)   x, y of item i        global 59   bitmask of items not yet collected
    global 60                    number of items placed (written last)

`check_room_for_items` runs the same placement in numpy when the WAD is built, so parameters whose items
would not reliably fit are refused before any engine starts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wadgym.wads import Actor

from .acs_template import acs_bool, acs_fixed, acs_list, fill, rect_arrays

ITEM_CLASS = "WadgymItem"     # the actor's name is ITEM_CLASS + its parent ("WadgymItemSoulsphere")
ITEM_TID = 1000
MAX_ITEMS = 29  # 58 USER variables hold the positions, USER59 the bitmask, USER60 the count
REMAINING_VARIABLE = 59       # USER59: bitmask of items not yet collected
PLACED_VARIABLE = 60          # USER60: number of items placed
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


# Inclusive ranges of ItemRules' numeric fields and the choices of the others (for check_fields).
ITEM_LIMITS: dict[str, tuple[float, float]] = {
    "n_items": (1, MAX_ITEMS),
    "item_scale": (0.25, 4.0),
    "min_item_distance": (0, 4096),
    "min_start_distance": (0, 4096),
    "wall_clearance": (20, 256),
    "player_health": (1, 10000),
    "player_speed": (0.25, 4.0),
}
ITEM_CHOICES: dict[str, tuple] = {
    "item_parent": ITEM_PARENTS,
    "player_invulnerable": (True, False),
    "random_start_angle": (True, False),
}


def item_class(parent: str) -> str:
    return ITEM_CLASS + parent


def item_actor(rules: ItemRules, parent: str | None = None) -> Actor:
    """The collectable: a stock Health pickup (`parent`, default the rules') that counts for ITEMCOUNT,
    heals nothing and is always taken."""
    parent = parent or rules.item_parent
    return Actor(
        item_class(parent),
        parent=parent,
        flags=["+COUNTITEM", "+INVENTORY.ALWAYSPICKUP"],
        # Amount 0 + ALWAYSPICKUP: picked up at full health too, and health never changes.
        properties={"Inventory.Amount": 0, "Scale": float(rules.item_scale), "Inventory.PickupMessage": ""},
    )


def shrink(rect: Rect, by: int) -> Rect | None:
    x0, y0, x1, y1 = rect[0] + by, rect[1] + by, rect[2] - by, rect[3] - by
    return (x0, y0, x1, y1) if x0 <= x1 and y0 <= y1 else None


def placement_areas(rules: ItemRules, floor: list[Rect]) -> list[Rect]:
    """The floor rectangles shrunk by the wall clearance: where item centres are drawn."""
    return [a for a in (shrink(r, rules.wall_clearance) for r in floor) if a is not None]


def area_weights(areas: list[Rect]) -> np.ndarray:
    """Cumulative weights of the areas, as the ACS draws them (in WEIGHT_UNIT blocks, at least 1 each)."""
    return np.cumsum([max(1, (x1 - x0 + 1) * (y1 - y0 + 1) // WEIGHT_UNIT) for x0, y0, x1, y1 in areas])


def check_room_for_items(rules: ItemRules, floor: list[Rect], obstacles: list[Rect], start: tuple[int, int]) -> None:
    """Refuse parameters whose items would not reliably fit: the ACS placement gives up after
    MAX_PLACEMENT_TRIES random points. The same placement, run here PLACEMENT_TRIALS times with a quarter
    of those tries, must place every item every time; the ACS then practically never falls short."""
    areas = placement_areas(rules, floor)
    if not areas:
        raise ValueError(f"wall_clearance={rules.wall_clearance} leaves no floor for items; "
                         "lower it or enlarge the map")
    rng = np.random.default_rng(0)  # fixed: the same parameters always pass or always fail
    placed = [len(p) for p in simulate_placement(rng, rules, areas, obstacles, start, MAX_PLACEMENT_TRIES // 4,
                                                 PLACEMENT_TRIALS)]
    if min(placed) < rules.n_items:
        names = (f"n_items={rules.n_items}, min_item_distance={rules.min_item_distance}, "
                 f"min_start_distance={rules.min_start_distance} and wall_clearance={rules.wall_clearance}")
        if max(placed) == 0:
            raise ValueError(f"{names}: no floor point is min_start_distance from the start and wall_clearance "
                             f"from every wall and obstacle; lower them or enlarge the map")
        raise ValueError(f"{names} do not fit in the free floor: random placement placed as few as {min(placed)} "
                         f"of {rules.n_items} items; lower them or enlarge the map")


def simulate_placement(rng: np.random.Generator, rules: ItemRules, areas: list[Rect], obstacles: list[Rect],
                       start: tuple[int, int], tries: int, trials: int) -> list[list[tuple[int, int]]]:
    """The positions placement.acs would keep in each of `trials` runs of `tries` random points (see
    random_draws and kept_points)."""
    _, x, y = random_draws(rng, areas, tries, trials)
    return kept_points(rules, obstacles, start, x, y)


def random_draws(rng: np.random.Generator, areas: list[Rect], tries: int, trials: int):
    """(r, x, y), each (trials, tries): the numbers placement.acs draws per try: r in 1..total weight picks
    the area, x and y a point in it."""
    weights = area_weights(areas)
    box = np.array(areas)
    r = rng.integers(1, weights[-1] + 1, size=(trials, tries))
    k = np.searchsorted(weights, r)
    return r, rng.integers(box[k, 0], box[k, 2] + 1), rng.integers(box[k, 1], box[k, 3] + 1)


def kept_points(rules: ItemRules, obstacles: list[Rect], start: tuple[int, int], x: np.ndarray,
                y: np.ndarray) -> list[list[tuple[int, int]]]:
    """For each row of points (x, y drawn as random_draws does), the ones placement.acs keeps: outside
    every obstacle grown by the clearance, far enough from the start and from the points kept so far,
    until n_items are kept."""
    ok = (x - start[0]) ** 2 + (y - start[1]) ** 2 >= rules.min_start_distance ** 2
    c = rules.wall_clearance
    for x0, y0, x1, y1 in obstacles:
        ok &= ~((x > x0 - c) & (x < x1 + c) & (y > y0 - c) & (y < y1 + c))
    d2 = rules.min_item_distance ** 2
    runs = []
    for xs, ys, free in zip(x.tolist(), y.tolist(), ok.tolist()):
        placed: list[tuple[int, int]] = []
        for px, py, keep in zip(xs, ys, free):
            if keep and all((px - qx) ** 2 + (py - qy) ** 2 >= d2 for qx, qy in placed):
                placed.append((px, py))
                if len(placed) == rules.n_items:
                    break
        runs.append(placed)
    return runs


def items_script(rules: ItemRules, floor: list[Rect], obstacles: list[Rect], start: tuple[int, int],
                 parent: str | None = None, draws: list[int] | None = None) -> str:
    """The ACS source placing `rules.n_items` items (actor item_class(parent)) on `floor` outside `obstacles`.

    `draws` (tests only) replaces ACS Random by these numbers, read in order: r, x, y per try."""
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
    publish = "\n".join(f"    item{i + 1}_x = item_x[{i}];  item{i + 1}_y = item_y[{i}];" for i in range(n))
    values = {
        "n_items": n,
        "item_tid": ITEM_TID,
        "item_class": item_class(parent or rules.item_parent),
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
        "remaining_global": REMAINING_VARIABLE,
        "placed_global": PLACED_VARIABLE,
        "player_health": rules.player_health,
        "player_invulnerable": acs_bool(rules.player_invulnerable),
        "player_speed": acs_fixed(rules.player_speed),
        "random_start_angle": acs_bool(rules.random_start_angle),
        "position_globals": position_globals,
        "publish_function": "// Copy the positions into the globals Python reads (scalar globals cannot be indexed).\n"
        f"function void publish_positions(void)\n{{\n{publish}\n}}",
        "area_weight": acs_list(weights),
        "n_draws": len(draws or ()),
        "drawn_size": max(1, len(draws or ())),
        "drawn": acs_list(draws or [0]),
        **rect_arrays("area", areas),
        **rect_arrays("blocked", blocked),
    }
    return fill("placement.acs", values)
