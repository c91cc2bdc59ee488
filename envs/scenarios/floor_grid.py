"""Where the player fits on a level's plan, as a grid, and shortest walks on it: for scripted policies.

A plan here is plain data: floor rectangles, the doorway openings between touching rectangles (segments
along their shared wall) and obstacles inside the floor. `FloorGrid` marks the grid cells whose centre is
at least `radius` from every wall and obstacle, `distances` gives the number of steps from every cell to a
target (breadth first, 8-connected, no corner cutting) and `waypoint` the point to head for next.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable

import numpy as np

from .placement import Rect

CELL = 16           # map units per grid cell
UNREACHABLE = -1
# The 8 neighbours of a cell: (di, dj); a diagonal move needs both orthogonal cells free.
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


class FloorGrid:
    """The cells of a plan where a player of `radius` fits, `cell` map units each (index [i, j]: x, y)."""

    def __init__(self, floor: Iterable[Rect], doors: Iterable[Rect] = (), obstacles: Iterable[Rect] = (),
                 radius: int = 24, cell: int = CELL):
        floor = list(floor)
        self.cell = cell
        self.x0 = min(r[0] for r in floor)
        self.y0 = min(r[1] for r in floor)
        nx = math.ceil((max(r[2] for r in floor) - self.x0) / cell)
        ny = math.ceil((max(r[3] for r in floor) - self.y0) / cell)
        xs = self.x0 + cell * (np.arange(nx) + 0.5)
        ys = self.y0 + cell * (np.arange(ny) + 0.5)
        x, y = np.meshgrid(xs, ys, indexing="ij")

        def inside(x0, y0, x1, y1):
            return (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)

        free = np.zeros((nx, ny), bool)
        for x0, y0, x1, y1 in floor:
            free |= inside(x0 + radius, y0 + radius, x1 - radius, y1 - radius)
        for x0, y0, x1, y1 in doors:   # a doorway: its opening less the radius, reaching `radius` either side
            if x0 == x1:
                free |= inside(x0 - radius, y0 + radius, x1 + radius, y1 - radius)
            else:
                free |= inside(x0 + radius, y0 - radius, x1 - radius, y1 + radius)
        for x0, y0, x1, y1 in obstacles:
            free &= ~inside(x0 - radius, y0 - radius, x1 + radius, y1 + radius)
        self.free = free

    def index(self, x: float, y: float) -> tuple[int, int]:
        """The cell holding (x, y), clipped to the grid."""
        i = int((x - self.x0) // self.cell)
        j = int((y - self.y0) // self.cell)
        return min(max(i, 0), self.free.shape[0] - 1), min(max(j, 0), self.free.shape[1] - 1)

    def point(self, i: int, j: int) -> tuple[float, float]:
        """The centre of cell (i, j), map units."""
        return self.x0 + self.cell * (i + 0.5), self.y0 + self.cell * (j + 0.5)

    def distances(self, target: tuple[float, float], blocked: np.ndarray | None = None) -> np.ndarray:
        """Steps from every cell to the free cell nearest `target` (UNREACHABLE where there is no way),
        avoiding the cells where `blocked` is True."""
        free = self.free if blocked is None else self.free & ~blocked
        distance = np.full(free.shape, UNREACHABLE, np.int32)
        start = self.nearest_free(target, free)
        if start is None:
            return distance
        nx, ny = free.shape
        distance[start] = 0
        queue = deque([start])
        while queue:
            i, j = queue.popleft()
            d = distance[i, j] + 1
            for di, dj in STEPS:
                a, b = i + di, j + dj
                if 0 <= a < nx and 0 <= b < ny and free[a, b] and distance[a, b] == UNREACHABLE:
                    if di and dj and not (free[a, j] and free[i, b]):
                        continue
                    distance[a, b] = d
                    queue.append((a, b))
        return distance

    def nearest_free(self, point: tuple[float, float], free: np.ndarray | None = None,
                     reach: int = 3) -> tuple[int, int] | None:
        """The free cell nearest `point` within `reach` cells of its own, or None."""
        free = self.free if free is None else free
        i, j = self.index(*point)
        if free[i, j]:
            return i, j
        best = None
        for a in range(max(i - reach, 0), min(i + reach + 1, free.shape[0])):
            for b in range(max(j - reach, 0), min(j + reach + 1, free.shape[1])):
                if free[a, b]:
                    gap = math.dist(self.point(a, b), point)
                    if best is None or gap < best[0]:
                        best = (gap, (a, b))
        return None if best is None else best[1]

    def steps_from(self, distance: np.ndarray, point: tuple[float, float]) -> int:
        """Steps from `point` along `distance` (UNREACHABLE when there is no way)."""
        cell = self.nearest_free(point, distance != UNREACHABLE)
        return UNREACHABLE if cell is None else int(distance[cell])

    def waypoint(self, distance: np.ndarray, point: tuple[float, float], target: tuple[float, float],
                 lookahead: int = 8) -> tuple[float, float]:
        """Where to head from `point` for `target` along `distance`: the farthest of the next `lookahead`
        cells down the way that a straight walk from `point` reaches through free cells (at least the next
        one), or the target itself when that is in reach."""
        cell = self.nearest_free(point, distance != UNREACHABLE)
        if cell is None:
            return target
        nx, ny = distance.shape
        path = [cell]
        for _ in range(lookahead):
            i, j = path[-1]
            if distance[i, j] == 0:
                break
            options = [(i + di, j + dj) for di, dj in STEPS
                       if 0 <= i + di < nx and 0 <= j + dj < ny and 0 <= distance[i + di, j + dj] < distance[i, j]]
            path.append(min(options, key=lambda c: (distance[c], math.dist(self.point(*c), target))))
        ends = [target] if distance[path[-1]] == 0 else []
        reachable = distance != UNREACHABLE
        for end in ends + [self.point(*c) for c in reversed(path[1:])]:
            if self.clear(point, end, reachable):
                return end
        return self.point(*path[1]) if len(path) > 1 else target

    def clear(self, a: tuple[float, float], b: tuple[float, float], free: np.ndarray | None = None) -> bool:
        """Whether the straight walk from `a` to `b` stays on free cells (`free`, default the grid's own;
        sampled every quarter cell)."""
        free = self.free if free is None else free
        n = max(1, int(math.dist(a, b) * 4 / self.cell))
        for k in range(n + 1):
            i, j = self.index(a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n)
            if not free[i, j]:
                return False
        return True

    def near(self, points: np.ndarray, radius: float) -> np.ndarray:
        """Cells whose centre is within `radius` of any of `points` ((K, 2) map units)."""
        i = np.arange(self.free.shape[0])[:, None]
        j = np.arange(self.free.shape[1])[None, :]
        out = np.zeros(self.free.shape, bool)
        for x, y in np.asarray(points, float).reshape(-1, 2):
            cx, cy = self.x0 + self.cell * (i + 0.5), self.y0 + self.cell * (j + 0.5)
            out |= (cx - x) ** 2 + (cy - y) ** 2 <= radius ** 2
        return out
