"""The "maze" scenario: procedurally generated mazes of rooms, packed as MAP01..MAPnn of one WAD.

Layout k is a pure function of one integer seed (`layout(seed, params)`); `build` draws the
`n_layouts` seeds from its rng. An env picks one map per episode with `DoomGame.set_doom_map`, so
switching layouts costs a map load, not an engine restart. Items are placed by the same ACS as
the arena (items.acs), spread over every room's floor in proportion to its area.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wadgym.envs.scenarios.items import (
    CHOICES, LIMITS, ItemRules, Rect, check_params, check_room_for_items, item_actor, items_script,
)
from wadgym.wads import Level, MapBuilder

MAZE_LIMITS = {
    **LIMITS,
    "rows": (1, 8),
    "cols": (1, 8),
    "cell_size": (192, 1024),
    "door_width": (64, 512),
    "extra_doors": (0.0, 1.0),
    "n_layouts": (1, 99),
}
# Freedoom textures that read well side by side; each layout draws its own.
WALLS = ("STARTAN2", "STARTAN3", "BROWN1", "GRAY1", "STONE2", "BROWNGRN", "TEKGREN2", "METAL1")
FLOORS = ("FLOOR0_1", "FLOOR4_8", "FLAT5_4", "FLOOR5_1", "FLAT14", "CEIL3_5")


@dataclass(frozen=True)
class Params(ItemRules):
    """`rows` x `cols` square rooms of `cell_size` units; a random spanning tree of doorways joins them,
    plus each remaining wall opened with probability `extra_doors` (loops). `n_layouts` maps per WAD."""

    n_items: int = 12
    rows: int = 4
    cols: int = 4
    cell_size: int = 320
    door_width: int = 128
    extra_doors: float = 0.15
    n_layouts: int = 16

    def __post_init__(self):
        check_params(self, MAZE_LIMITS, CHOICES)
        if self.door_width > self.cell_size - 64:
            raise ValueError(f"door_width={self.door_width} must be at most cell_size - 64 = {self.cell_size - 64}")


PRESETS: dict[str, Params] = {
    "default": Params(),
    "large": Params(rows=6, cols=6, n_items=20, n_layouts=32),
}


def map_names(params: Params) -> list[str]:
    return [f"MAP{k + 1:02d}" for k in range(params.n_layouts)]


def maze_doors(rng: np.random.Generator, rows: int, cols: int, extra: float) -> list[tuple[int, int]]:
    """Pairs of neighbouring cells (r * cols + c) to join: a random spanning tree, then random loops."""
    seen = {0}
    stack = [0]
    doors: list[tuple[int, int]] = []
    while stack:
        cell = stack[-1]
        r, c = divmod(cell, cols)
        neighbours = [n for n in _neighbours(r, c, rows, cols) if n not in seen]
        if not neighbours:
            stack.pop()
            continue
        nxt = neighbours[int(rng.integers(len(neighbours)))]
        seen.add(nxt)
        doors.append((cell, nxt))
        stack.append(nxt)
    tree = {frozenset(d) for d in doors}
    for cell in range(rows * cols):
        r, c = divmod(cell, cols)
        for n in _neighbours(r, c, rows, cols):
            if cell < n and frozenset((cell, n)) not in tree and rng.random() < extra:
                doors.append((cell, n))
    return doors


def _neighbours(r: int, c: int, rows: int, cols: int) -> list[int]:
    cells = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
    return [rr * cols + cc for rr, cc in cells if 0 <= rr < rows and 0 <= cc < cols]


@dataclass(frozen=True)
class MazePlan:
    """One maze as data: room rectangles (row by row), doorways between them, the start and the style."""

    cells: list[Rect]
    doors: list[tuple[int, int]]
    start: tuple[int, int]
    angle: int
    wall: str
    floor: str
    light: int


def maze_plan(seed: int, p: Params) -> MazePlan:
    """The maze of `seed`: a pure function of it and `p`. Columns and rows vary in size (3/4 to 5/4 of
    `cell_size`, in steps of 32) so layouts differ in shape as well as in their doorways."""
    rng = np.random.default_rng(seed)
    widths = [_cell_extent(rng, p) for _ in range(p.cols)]
    heights = [_cell_extent(rng, p) for _ in range(p.rows)]
    xs, ys = np.concatenate([[0], np.cumsum(widths)]), np.concatenate([[0], np.cumsum(heights)])
    cells = [(int(xs[c]), int(ys[r]), int(xs[c + 1]), int(ys[r + 1])) for r in range(p.rows) for c in range(p.cols)]
    doors = maze_doors(rng, p.rows, p.cols, p.extra_doors)
    x0, y0, x1, y1 = cells[int(rng.integers(len(cells)))]
    return MazePlan(cells, doors, ((x0 + x1) // 2, (y0 + y1) // 2), int(rng.integers(0, 4)) * 90,
                    WALLS[int(rng.integers(len(WALLS)))], FLOORS[int(rng.integers(len(FLOORS)))],
                    int(rng.integers(144, 193)))


def _cell_extent(rng: np.random.Generator, p: Params) -> int:
    lo = max(p.door_width + 64, p.cell_size * 3 // 4) // 32
    return 32 * int(rng.integers(lo, p.cell_size * 5 // 4 // 32 + 1))


def layout(seed: int, p: Params, name: str = "MAP01") -> Level:
    """The maze of `seed` as a Level called `name`."""
    plan = maze_plan(seed, p)
    check_room_for_items(p, plan.cells, [], plan.start)
    m = MapBuilder()
    rooms = [m.add_room(*cell, floor=plan.floor, ceiling="CEIL5_1", wall=plan.wall, light=plan.light)
             for cell in plan.cells]
    for a, b in plan.doors:
        m.connect(rooms[a], rooms[b], width=p.door_width)
    m.add_player_start(*plan.start, angle=plan.angle)
    return Level(map=m, name=name, scripts=items_script(p, plan.cells, [], plan.start), actors=[item_actor(p)],
                 title=f"wadgym maze {name}")


def layout_seeds(rng: np.random.Generator, p: Params) -> list[int]:
    """The seed of each layout; the k-th does not depend on how many follow it."""
    return [int(seed) for seed in rng.integers(0, 2**62, size=p.n_layouts)]


def build(rng: np.random.Generator, p: Params) -> list[Level]:
    """`p.n_layouts` mazes named MAP01, MAP02, ...; layout k comes from the k-th seed drawn from `rng`."""
    return [layout(seed, p, name) for seed, name in zip(layout_seeds(rng, p), map_names(p))]
