"""An open square arena with optional square pillars: the layout of DoomItems and a base for other families."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .placement import Rect

PILLAR_GAP = 96  # the player (radius 16) passes between any two pillars and around each


@dataclass(frozen=True)
class ArenaFields:
    """The arena: `size` x `size` map units with `n_obstacles` square pillars of `obstacle_size`."""

    size: int = 1024
    n_obstacles: int = 0
    obstacle_size: int = 96


ARENA_LIMITS: dict[str, tuple[float, float]] = {"size": (256, 8192), "n_obstacles": (0, 64),
                                                "obstacle_size": (16, 1024)}


def place_obstacles(rng: np.random.Generator, size: int, count: int, obstacle: int,
                    start: tuple[int, int]) -> list[Rect]:
    """`count` pillars, each a corridor's width from the walls, the start and each other; a ValueError
    when they do not fit (say so rather than place fewer)."""
    gap = PILLAR_GAP
    lo, hi = gap, size - gap - obstacle
    pillars: list[Rect] = []
    for _ in range(50 * count):
        if len(pillars) == count or hi < lo:
            break
        x0, y0 = (int(v) for v in rng.integers(lo, hi + 1, size=2))
        r = (x0, y0, x0 + obstacle, y0 + obstacle)
        near_start = r[0] - gap < start[0] < r[2] + gap and r[1] - gap < start[1] < r[3] + gap
        if not near_start and all(_apart(r, q, gap) for q in pillars):
            pillars.append(r)
    if len(pillars) < count:
        raise ValueError(f"n_obstacles={count} pillars of obstacle_size={obstacle} do not fit in an arena of "
                         f"size={size} ({len(pillars)} placed, each {gap} units from the walls, the start and "
                         f"each other); lower n_obstacles or obstacle_size, or raise size")
    return pillars


def _apart(a: Rect, b: Rect, gap: int) -> bool:
    return a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1]


def arena_layout(rng: np.random.Generator, p: ArenaFields) -> tuple[tuple[int, int], int, list[Rect]]:
    """The arena's player start (its centre), the start angle and the pillars, drawn from `rng` in that order."""
    start = (p.size // 2, p.size // 2)
    angle = int(rng.integers(0, 360))
    return start, angle, place_obstacles(rng, p.size, p.n_obstacles, p.obstacle_size, start)
