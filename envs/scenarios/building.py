"""Buildings of rooms on a grid: rows x cols rectangular rooms of varied sizes joined by doorways.

A random spanning tree of doorways joins every room, and each remaining wall between neighbours opens
with probability `extra_doors` (loops). The plan is plain data (rooms, doors, the room graph), so a
family can place things by graph distance (`room_distances`) before turning it into a map.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from .placement import Rect


@dataclass(frozen=True)
class GridFields:
    """`rows` x `cols` rooms around `cell_size` units (3/4 to 5/4 of it, in steps of 32), doorways
    `door_width` wide, extra doorways with probability `extra_doors`."""

    rows: int = 4
    cols: int = 4
    cell_size: int = 320
    door_width: int = 128
    extra_doors: float = 0.15


GRID_LIMITS: dict[str, tuple[float, float]] = {"rows": (1, 8), "cols": (1, 8), "cell_size": (192, 1024),
                                               "door_width": (64, 512), "extra_doors": (0.0, 1.0)}


def check_grid(p: GridFields) -> None:
    if p.door_width > p.cell_size - 64:
        raise ValueError(f"door_width={p.door_width} must be at most cell_size - 64 = {p.cell_size - 64}")


@dataclass(frozen=True)
class GridPlan:
    """One building as data: room rectangles (row by row, index r * cols + c) and doorways between them."""

    rows: int
    cols: int
    cells: list[Rect]
    doors: list[tuple[int, int]]

    def neighbours(self) -> list[list[int]]:
        """For each room, the rooms a doorway joins it to."""
        graph: list[list[int]] = [[] for _ in self.cells]
        for a, b in self.doors:
            graph[a].append(b)
            graph[b].append(a)
        return graph


def grid_plan(rng: np.random.Generator, p: GridFields) -> GridPlan:
    """Column widths, row heights, then doorways, drawn from `rng` in that order."""
    widths = [_cell_extent(rng, p) for _ in range(p.cols)]
    heights = [_cell_extent(rng, p) for _ in range(p.rows)]
    xs, ys = np.concatenate([[0], np.cumsum(widths)]), np.concatenate([[0], np.cumsum(heights)])
    cells = [(int(xs[c]), int(ys[r]), int(xs[c + 1]), int(ys[r + 1])) for r in range(p.rows) for c in range(p.cols)]
    return GridPlan(p.rows, p.cols, cells, grid_doors(rng, p.rows, p.cols, p.extra_doors))


def _cell_extent(rng: np.random.Generator, p: GridFields) -> int:
    lo = max(p.door_width + 64, p.cell_size * 3 // 4) // 32
    return 32 * int(rng.integers(lo, p.cell_size * 5 // 4 // 32 + 1))


def grid_doors(rng: np.random.Generator, rows: int, cols: int, extra: float) -> list[tuple[int, int]]:
    """Pairs of neighbouring cells (r * cols + c) to join: a random spanning tree, then random loops."""
    seen = {0}
    stack = [0]
    doors: list[tuple[int, int]] = []
    while stack:
        cell = stack[-1]
        r, c = divmod(cell, cols)
        neighbours = [n for n in _grid_neighbours(r, c, rows, cols) if n not in seen]
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
        for n in _grid_neighbours(r, c, rows, cols):
            if cell < n and frozenset((cell, n)) not in tree and rng.random() < extra:
                doors.append((cell, n))
    return doors


def _grid_neighbours(r: int, c: int, rows: int, cols: int) -> list[int]:
    cells = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
    return [rr * cols + cc for rr, cc in cells if 0 <= rr < rows and 0 <= cc < cols]


def room_distances(plan: GridPlan, source: int) -> list[int]:
    """Doorways to cross from room `source` to each room (breadth-first over the room graph)."""
    graph = plan.neighbours()
    distance = [-1] * len(plan.cells)
    distance[source] = 0
    queue = deque([source])
    while queue:
        room = queue.popleft()
        for nxt in graph[room]:
            if distance[nxt] < 0:
                distance[nxt] = distance[room] + 1
                queue.append(nxt)
    return distance


def centre(rect: Rect) -> tuple[int, int]:
    x0, y0, x1, y1 = rect
    return (x0 + x1) // 2, (y0 + y1) // 2
