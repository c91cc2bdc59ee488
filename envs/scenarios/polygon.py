"""Polygon arenas: a regular polygon around the centre with optional square pillars, the layout of the defend
and deathmatch families. The parameters are read from any object with `size`, `shape`, `n_obstacles` and
`obstacle_size` (a family's Params); the draws from `rng` come in a fixed order, so a level is a pure function
of its seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

SHAPES = {"square": 4, "pentagon": 5, "hexagon": 6, "octagon": 8}  # arena outlines: regular polygons
# Every outline a family may name: SHAPES (the ones "random" draws from) and "round", 18 sides as ViZDoom's
# defend_the_center's room (never drawn by "random", so the levels of "random" stay as they were).
OUTLINES = {**SHAPES, "round": 18}
PILLAR_GAP = 96               # the player (radius 16) and most monsters pass between pillars and around each
START_CLEARANCE = 128         # between the player start and any pillar


def smallest_diameter(p: Any) -> int:
    """The inner diameter of the smallest arena `p` draws (3/4 of `p.size`, in whole 32-unit steps)."""
    return 32 * ((p.size * 3 // 4 + 31) // 32)


@dataclass(frozen=True)
class Layout:
    """One level's arena: its outline (vertices), centre, inner radius and pillars (x0, y0, x1, y1)."""

    outline: list[tuple[int, int]]
    centre: tuple[int, int]
    radius: int
    pillars: list[tuple[int, int, int, int]]


def arena(rng: np.random.Generator, p: Any) -> Layout:
    """The level's arena: shape, inner diameter, rotation, then pillars, drawn from `rng` in that order."""
    sides = OUTLINES[p.shape] if p.shape != "random" else list(SHAPES.values())[int(rng.integers(len(SHAPES)))]
    diameter = 32 * int(rng.integers(smallest_diameter(p) // 32, p.size // 32 + 1))
    radius = diameter // 2
    turn = float(rng.uniform(0, 2 * math.pi / sides))
    corner = radius / math.cos(math.pi / sides) + 1  # rounding the vertices may not bring a wall nearer
    c = math.ceil(corner) + 16
    outline = [(c + round(corner * math.cos(turn + 2 * math.pi * k / sides)),
                c + round(corner * math.sin(turn + 2 * math.pi * k / sides))) for k in range(sides)]
    return Layout(outline, (c, c), radius, place_pillars(rng, p, (c, c), radius))


def place_pillars(rng: np.random.Generator, p: Any, centre: tuple[int, int], radius: int) -> list:
    """`p.n_obstacles` square pillars inside the arena's inner circle, PILLAR_GAP from the walls and each
    other and START_CLEARANCE from the start (the centre); a ValueError when they do not fit."""
    half = p.obstacle_size / 2
    reach = half * math.sqrt(2)  # the pillar's half diagonal
    lo, hi = START_CLEARANCE + reach, radius - PILLAR_GAP - reach
    pillars: list[tuple[int, int, int, int]] = []
    centres: list[tuple[float, float]] = []
    for _ in range(100 * p.n_obstacles):
        if len(pillars) == p.n_obstacles or hi < lo:
            break
        distance, angle = float(rng.uniform(lo, hi)), float(rng.uniform(0, 2 * math.pi))
        x, y = centre[0] + distance * math.cos(angle), centre[1] + distance * math.sin(angle)
        if all(math.hypot(x - u, y - v) >= 2 * reach + PILLAR_GAP for u, v in centres):
            centres.append((x, y))
            x0, y0 = round(x - half), round(y - half)
            pillars.append((x0, y0, x0 + p.obstacle_size, y0 + p.obstacle_size))
    if len(pillars) < p.n_obstacles:
        raise ValueError(f"n_obstacles={p.n_obstacles} pillars of obstacle_size={p.obstacle_size} do not fit in an "
                         f"arena of inner diameter {2 * radius} (size={p.size}; {len(pillars)} placed, each "
                         f"{PILLAR_GAP} from the walls and each other); lower n_obstacles or obstacle_size, or "
                         f"raise size")
    return pillars


