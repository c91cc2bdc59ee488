"""Buildings of rooms on a grid: rows x cols rectangular rooms of varied sizes joined by doorways.

A random spanning tree of doorways joins every room, and each remaining wall between neighbours opens
with probability `extra_doors` (loops). `grid_plan` packs the rooms wall to wall; `building_plan` spreads
them apart so corridors (some with doors) join them. The plan is plain data (rooms, openings, the room
graph), so a family can place things by graph distance (`room_distances`) before turning it into a map
(`add_plan`), and a scripted walker can follow the graph through the openings (`room_at`, `next_room`,
`route_point`, `route_length`). Buildings without a grid (wadgym.envs.scenarios.sprawl) are plans too: their
cells are the rooms, then the corners of corridors that turn and the blind ends of dead ends
(`GridPlan.n_rooms` says where the rooms end), and the same helpers walk them.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from .placement import Rect

Point = tuple[float, float]


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
class BuildingFields(GridFields):
    """A grid building whose rooms stand apart: cells `corridor` units apart, each room shrunk inside its
    cell by up to `room_inset` on every side (in steps of 16), so corridors of varied lengths join them;
    each corridor gets a door with probability `door_chance` (a door the player opens by walking into it)."""

    corridor: int = 64
    room_inset: int = 32
    door_chance: float = 0.0


BUILDING_LIMITS: dict[str, tuple[float, float]] = {**GRID_LIMITS, "corridor": (0, 256), "room_inset": (0, 128),
                                                   "door_chance": (0.0, 1.0)}


@dataclass(frozen=True)
class Opening:
    """The way from room `a` into its neighbour `b`: `width` units wide, centred on `ends[0]` in a's wall and
    `ends[1]` in b's (one point when the rooms touch; else a corridor runs between them), heading `inward`
    (a unit vector along x or y), maybe with a door."""

    a: int
    b: int
    ends: tuple[Point, Point]
    inward: tuple[int, int]
    width: int
    door: bool = False

    def reversed(self) -> Opening:
        return Opening(self.b, self.a, self.ends[::-1], (-self.inward[0], -self.inward[1]), self.width, self.door)

    def corridor_holds(self, x: float, y: float) -> bool:
        """Whether (x, y) lies between the two ends' walls, within the opening's width."""
        (ax, ay), (bx, by) = self.ends
        if self.inward[0]:   # the way runs along x
            return min(ax, bx) <= x <= max(ax, bx) and abs(y - ay) <= self.width / 2
        return min(ay, by) <= y <= max(ay, by) and abs(x - ax) <= self.width / 2


@dataclass(frozen=True)
class GridPlan:
    """One building as data: room rectangles (row by row, index r * cols + c), doorways between them (the
    room graph's edges) and the openings that make them. A building without a grid (sprawl.sprawl_plan) has
    rows = cols = 0 and its first `n_rooms` cells are rooms; the others are squares where a corridor turns
    or ends blind, nodes of the graph that are not rooms (0: every cell is a room)."""

    rows: int
    cols: int
    cells: list[Rect]
    doors: list[tuple[int, int]]
    openings: tuple[Opening, ...] = ()
    n_rooms: int = 0

    @property
    def room_count(self) -> int:
        """How many of the cells (the first ones) are rooms."""
        return self.n_rooms or len(self.cells)

    def neighbours(self) -> list[list[int]]:
        """For each room, the rooms a doorway joins it to."""
        graph: list[list[int]] = [[] for _ in self.cells]
        for a, b in self.doors:
            graph[a].append(b)
            graph[b].append(a)
        return graph

    def opening(self, a: int, b: int) -> Opening:
        """The opening from room `a` into room `b` (a KeyError when no doorway joins them)."""
        for o in self.openings:
            if (o.a, o.b) == (a, b):
                return o
            if (o.a, o.b) == (b, a):
                return o.reversed()
        raise KeyError(f"no doorway joins rooms {a} and {b}")


def grid_plan(rng: np.random.Generator, p: GridFields) -> GridPlan:
    """Column widths, row heights, then doorways, drawn from `rng` in that order; rooms wall to wall, each
    doorway `p.door_width` wide in the middle of the wall two rooms share."""
    widths = [_cell_extent(rng, p) for _ in range(p.cols)]
    heights = [_cell_extent(rng, p) for _ in range(p.rows)]
    xs, ys = np.concatenate([[0], np.cumsum(widths)]), np.concatenate([[0], np.cumsum(heights)])
    cells = [(int(xs[c]), int(ys[r]), int(xs[c + 1]), int(ys[r + 1])) for r in range(p.rows) for c in range(p.cols)]
    doors = grid_doors(rng, p.rows, p.cols, p.extra_doors)
    openings = []
    for a, b in doors:
        axis, lo, hi = _shared_span(cells[a], cells[b])
        openings.append(opening(cells, a, b, axis, (lo + hi) / 2, p.door_width, False))
    return GridPlan(p.rows, p.cols, cells, doors, tuple(openings))


def building_plan(rng: np.random.Generator, p: BuildingFields) -> GridPlan:
    """A grid_plan (drawn first), its cells spread `p.corridor` apart, then per room its four insets, then
    per doorway where along the shared span its opening lies and whether it has a door."""
    grid = grid_plan(rng, p)
    rooms = []
    for index, (x0, y0, x1, y1) in enumerate(grid.cells):
        r, c = divmod(index, p.cols)
        x0, x1, y0, y1 = x0 + c * p.corridor, x1 + c * p.corridor, y0 + r * p.corridor, y1 + r * p.corridor
        # Each side moves in by at most half of what the room can spare beyond a doorway and 64 units, so
        # two neighbours' facing walls always overlap by door_width + 64 at least.
        cap_x = min(p.room_inset, (x1 - x0 - p.door_width - 64) // 2) // 16
        cap_y = min(p.room_inset, (y1 - y0 - p.door_width - 64) // 2) // 16
        left, bottom, right, top = (16 * int(rng.integers(0, cap + 1)) for cap in (cap_x, cap_y, cap_x, cap_y))
        rooms.append((x0 + left, y0 + bottom, x1 - right, y1 - top))
    openings = []
    for a, b in grid.doors:
        axis, lo, hi = _shared_span(rooms[a], rooms[b])
        half = p.door_width / 2
        slack = int(hi - lo - 2 * half - 32) // 8   # a 16-unit margin to each room's corner
        centre = lo + 16 + half + 8 * int(rng.integers(0, slack + 1))
        openings.append(opening(rooms, a, b, axis, centre, p.door_width, bool(rng.random() < p.door_chance)))
    return GridPlan(p.rows, p.cols, rooms, grid.doors, tuple(openings))


def _shared_span(a: Rect, b: Rect) -> tuple[int, float, float]:
    """(axis, lo, hi): neighbours side by side (axis 0: the way runs along x) or one above the other
    (axis 1), and the span of their facing walls' overlap across that axis."""
    if a[2] <= b[0] or b[2] <= a[0]:
        return 0, max(a[1], b[1]), min(a[3], b[3])
    return 1, max(a[0], b[0]), min(a[2], b[2])


def opening(rooms: list[Rect], a: int, b: int, axis: int, centre: float, width: int, door: bool) -> Opening:
    ra, rb = rooms[a], rooms[b]
    sign = 1 if ra[axis] < rb[axis] else -1          # b lies towards +axis of a, or towards -axis
    wall_a = ra[axis + 2] if sign > 0 else ra[axis]
    wall_b = rb[axis] if sign > 0 else rb[axis + 2]
    if axis == 0:
        ends, inward = ((wall_a, centre), (wall_b, centre)), (sign, 0)
    else:
        ends, inward = ((centre, wall_a), (centre, wall_b)), (0, sign)
    return Opening(a, b, ends, inward, width, door)


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
    """Doorways to cross from room `source` to each room (breadth-first over the room graph). A corridor
    between two rooms counts one however many corners it turns; a corner or blind end reads the doorways to
    the nearer room it lies between (-1: not reachable)."""
    if plan.room_count == len(plan.cells):
        return cell_hops(plan, source)
    # Half doorways: leaving or entering a room is half of one, a step between corners nothing.
    graph, half = plan.neighbours(), [-1] * len(plan.cells)
    rooms = plan.room_count
    half[source] = 0
    queue = [(0, source)]
    while queue:
        d, cell = heapq.heappop(queue)
        if d > half[cell]:
            continue
        for nxt in graph[cell]:
            step = (cell < rooms) + (nxt < rooms)
            if half[nxt] < 0 or d + step < half[nxt]:
                half[nxt] = d + step
                heapq.heappush(queue, (d + step, nxt))
    return [h // 2 if h >= 0 else -1 for h in half]


def cell_hops(plan: GridPlan, source: int) -> list[int]:
    """Openings to cross from cell `source` to each cell (breadth-first over every cell, corners included):
    the distance a walker follows. In a grid building, where every cell is a room, it is room_distances."""
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


def add_plan(m, plan: GridPlan, cell_styles: list[dict] | None = None, **style) -> list:
    """The plan's rooms in MapBuilder `m` (each with `style`: floor, ceiling, wall, light ..., updated by its
    entry of `cell_styles` when given) joined through its openings (push doors where it says door); returns
    the rooms."""
    styles = cell_styles or [{}] * len(plan.cells)
    rooms = [m.add_room(*cell, **{**style, **extra}) for cell, extra in zip(plan.cells, styles)]
    for o in plan.openings:
        m.connect(rooms[o.a], rooms[o.b], width=o.width, at=o.ends[0], door="push" if o.door else False)
    return rooms


# -- following the room graph ----------------------------------------------------------------------------

def room_at(plan: GridPlan, x: float, y: float) -> int | None:
    """The cell whose rectangle holds (x, y) (walls included): a room, or in a building without a grid maybe
    a corner or blind end (index >= plan.room_count); None in a corridor."""
    for index, (x0, y0, x1, y1) in enumerate(plan.cells):
        if x0 <= x <= x1 and y0 <= y <= y1:
            return index
    return None


def next_room(plan: GridPlan, room: int, goal: int, distance: list[int] | None = None) -> int:
    """The first neighbour of cell `room` on a shortest path to `goal` (`distance`: cell_hops(plan, goal))."""
    distance = cell_hops(plan, goal) if distance is None else distance
    return min(plan.neighbours()[room], key=lambda n: (distance[n], n))


def route_point(plan: GridPlan, x: float, y: float, goal_room: int, goal: Point, lead: float = 48.0) -> Point:
    """Where a walker at (x, y) heads next on a shortest way to `goal` in `goal_room`: in the goal's room the
    goal itself; in another room, a point `lead` units in front of the opening towards the goal's room
    until it stands in line with that opening (in a building without a grid, until the straight line to
    the next point clears the opening), then a point `lead` units beyond it (through the corridor);
    in a corridor's corner, that point beyond at once; in a corridor, `lead` units into whichever of its
    cells is nearer the goal. Rooms are convex and empty, so straight lines between these points are free
    (a corner's walls, a little wider than its corridors, at most graze the walker, which slides along)."""
    distance = cell_hops(plan, goal_room)
    room = room_at(plan, x, y)
    if room == goal_room:
        return goal
    if room is None:
        o = _corridor_towards(plan, x, y, distance)
        return goal if o is None else _ahead(o.ends[1], o.inward, lead)
    o = plan.opening(room, next_room(plan, room, goal_room, distance))
    if room >= plan.room_count:   # a corridor's corner: a square little wider than the corridor, so straight
        return _ahead(o.ends[1], o.inward, lead)   # through (a walker that lines up first circles there)
    ex, ey = o.ends[0]
    depth = (ex - x) * o.inward[0] + (ey - y) * o.inward[1]            # distance in front of a's wall
    offset = abs((x - ex) * o.inward[1] - (y - ey) * o.inward[0])      # sideways from the opening's centre
    if depth <= lead + 24 and offset <= o.width / 2 - 24:
        return _ahead(o.ends[1], o.inward, lead)
    # In a building without a grid, also straight through once the line to that point crosses the wall well
    # inside the opening: lining up first can leave the walker circling the point in front of it. (Grid
    # buildings keep the first release's rule, so the scripted figures of DoomExit-v0's benchmark stand.)
    if plan.n_rooms and depth >= 0 and offset * lead / (depth + lead) <= o.width / 2 - 24:
        return _ahead(o.ends[1], o.inward, lead)
    return _ahead(o.ends[0], o.inward, -lead)


def route_length(plan: GridPlan, x: float, y: float, goal_room: int, goal: Point,
                 distance: list[int] | None = None) -> float:
    """The length, in map units, of the shortest way along the room graph from (x, y) to `goal`: straight to
    the centre of the opening towards the goal's room, through it, and so on room by room, then straight
    to the goal (`distance`: cell_hops(plan, goal_room)). It changes continuously as a walker moves,
    so its decrease can shape a reward."""
    distance = cell_hops(plan, goal_room) if distance is None else distance
    room, point, length = room_at(plan, x, y), (x, y), 0.0
    if room is None:
        o = _corridor_towards(plan, x, y, distance)
        if o is None:
            return _gap(point, goal)
        room, point, length = o.b, o.ends[1], _gap(point, o.ends[1])
    while room != goal_room:
        o = plan.opening(room, next_room(plan, room, goal_room, distance))
        length += _gap(point, o.ends[0]) + _gap(o.ends[0], o.ends[1])
        room, point = o.b, o.ends[1]
    return length + _gap(point, goal)


def _corridor_towards(plan: GridPlan, x: float, y: float, distance: list[int]) -> Opening | None:
    """The opening whose corridor holds (x, y), headed for its room nearer the goal (None: in no corridor,
    which a walker inside the map never is)."""
    for o in plan.openings:
        if o.corridor_holds(x, y):
            return o if distance[o.b] <= distance[o.a] else o.reversed()
    return None


def _gap(p: Point, q: Point) -> float:
    return math.hypot(q[0] - p[0], q[1] - p[1])


def _ahead(point: Point, direction: tuple[int, int], distance: float) -> Point:
    return point[0] + direction[0] * distance, point[1] + direction[1] * distance
