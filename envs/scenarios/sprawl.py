"""Buildings without a grid: rooms of several sizes grown from a first room by corridors that run in random
directions, turn, end blind, and close loops.

`sprawl_plan(rng, p)` gives the same plain data as building.building_plan (a GridPlan: rectangles and the
openings between them), so building.py's helpers (add_plan, room_distances, route_point, route_length) work on
it unchanged. Its cells are the rooms first (0 .. n_rooms - 1), then the squares where a corridor turns and
the blind ends of dead ends: nodes of the graph that are not rooms. A corridor is straight between two cells
that face each other; one that turns is two or three such pieces with a square at each turn, so every cell is
a convex, empty rectangle and a walker goes straight from opening to opening. Every space keeps `MARGIN` of
solid wall from every space it does not open into.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .building import BUILDING_LIMITS, BuildingFields, GridPlan, building_plan, opening, room_distances
from .placement import Rect

LAYOUTS = ("grid", "sprawl")
MARGIN = 32            # solid wall between two spaces that do not open into each other, map units
CORNER_EXTRA = 32      # a corner square is this much wider than the corridor (16 units each side)
OPENING_MARGIN = 16    # between an opening and the corner of the wall it is in
MAX_TURNS = 2          # turns in one corridor
GROW_TRIES = 60        # corridor and room draws per room before a building gives up and is drawn again
MAX_DRAWS = 64         # buildings drawn before sprawl_plan gives up on `min_span`
DIRECTIONS = ((1, 0), (0, 1), (-1, 0), (0, -1))


@dataclass(frozen=True)
class SprawlFields(BuildingFields):
    """`layout`: "grid" (building.building_plan: rows x cols cells) or "sprawl": `n_rooms_min` to
    `n_rooms_max` rooms, each side `room_min` to `room_max` units (steps of 32), joined by corridors
    `door_width` wide whose straight pieces are `corridor` to `corridor_max` long (steps of 16); a corridor
    turns with probability `turn_chance` (a second time with that probability again); `dead_ends` corridors
    that end blind and `loops` corridors that join rooms already joined are added where they fit; each corridor
    gets a door with probability `door_chance`."""

    layout: str = "grid"
    n_rooms_min: int = 8
    n_rooms_max: int = 12
    room_min: int = 192
    room_max: int = 448
    corridor_max: int = 256
    turn_chance: float = 0.0
    dead_ends: int = 0
    loops: int = 0


SPRAWL_LIMITS: dict[str, tuple[float, float]] = {
    **BUILDING_LIMITS, "n_rooms_min": (2, 40), "n_rooms_max": (2, 40), "room_min": (128, 1024),
    "room_max": (128, 1024), "corridor_max": (0, 512), "turn_chance": (0.0, 1.0), "dead_ends": (0, 16),
    "loops": (0, 16)}


def check_sprawl(p: SprawlFields) -> None:
    """The sprawl layout's fields agree with each other (ranges: SPRAWL_LIMITS); nothing to check for "grid"."""
    if p.layout != "sprawl":
        return
    if p.n_rooms_min > p.n_rooms_max:
        raise ValueError(f"n_rooms_min={p.n_rooms_min} must be at most n_rooms_max={p.n_rooms_max}")
    if p.room_min > p.room_max:
        raise ValueError(f"room_min={p.room_min} must be at most room_max={p.room_max}")
    if p.door_width % 16:
        raise ValueError(f"door_width={p.door_width}: the sprawl layout needs a multiple of 16")
    if p.room_min < p.door_width + 64:
        raise ValueError(f"room_min={p.room_min} must be at least door_width + 64 = {p.door_width + 64} (a "
                         f"corridor's opening and its margins)")
    if p.corridor < 32:
        raise ValueError(f"corridor={p.corridor}: the sprawl layout's corridors are at least 32 long; valid: 32 "
                         f"to corridor_max")
    if p.corridor_max < p.corridor:
        raise ValueError(f"corridor_max={p.corridor_max} must be at least corridor={p.corridor}")


def layout_plan(rng: np.random.Generator, p: SprawlFields, min_span: int = 0) -> GridPlan:
    """The building of `p.layout`: building.building_plan, or sprawl_plan (two rooms at least `min_span`
    doorways apart)."""
    if p.layout == "sprawl":
        return sprawl_plan(rng, p, min_span)
    return building_plan(rng, p)


def sprawl_plan(rng: np.random.Generator, p: SprawlFields, min_span: int = 0) -> GridPlan:
    """A building of rooms grown from a first room (see the module's docstring), drawn again until two of its
    rooms lie at least `min_span` doorways apart (loops that would bring them nearer are left out)."""
    for _ in range(MAX_DRAWS):
        plan = _Sprawl(rng, p, min_span).grow()
        if plan is not None:
            return plan
    raise ValueError(f"no building of {p.n_rooms_min} to {p.n_rooms_max} rooms with two rooms {min_span} "
                     f"doorways apart in {MAX_DRAWS} draws; ask for fewer doorways or more rooms")


def span(plan: GridPlan) -> int:
    """The most doorways between two rooms of `plan`."""
    return max(max(room_distances(plan, room)[:plan.room_count]) for room in range(plan.room_count))


def _clear(a: Rect, b: Rect, margin: int = MARGIN) -> bool:
    """Whether rectangles `a` and `b` are at least `margin` apart (on either axis)."""
    return a[2] + margin <= b[0] or b[2] + margin <= a[0] or a[3] + margin <= b[1] or b[3] + margin <= a[1]


def _span_of(rect: Rect, axis: int) -> tuple[int, int]:
    return rect[axis], rect[axis + 2]


def _rect(axis: int, along: tuple[int, int], across: tuple[int, int]) -> Rect:
    """The rectangle spanning `along` on `axis` and `across` on the other axis."""
    if axis == 0:
        return along[0], across[0], along[1], across[1]
    return across[0], along[0], across[1], along[1]


@dataclass
class _Piece:
    """A piece of a corridor to add: its rectangle, and whether it is a cell (a corner, a blind end, the new
    room) or a straight strip of corridor between two cells."""

    rect: Rect
    is_cell: bool


class _Sprawl:
    """One draw of a building: cells (rooms, corners, blind ends), the corridors' strips, and the links."""

    def __init__(self, rng: np.random.Generator, p: SprawlFields, min_span: int):
        self.rng, self.p, self.min_span = rng, p, min_span
        self.cells: list[Rect] = []
        self.is_room: list[bool] = []
        self.spaces: list[tuple[Rect, int]] = []          # every occupied rectangle, and its cell (-1: a strip)
        self.links: list[tuple[int, int, int, int, bool]] = []   # (cell a, cell b, axis, centre, door)

    # -- drawing ---------------------------------------------------------------------------------------

    def _side(self) -> int:
        p = self.p
        return 32 * int(self.rng.integers(p.room_min // 32, p.room_max // 32 + 1))

    def _length(self) -> int:
        p = self.p
        return 16 * int(self.rng.integers(-(-p.corridor // 16), p.corridor_max // 16 + 1))

    def _between(self, lo: int, hi: int) -> int:
        """A multiple of 8 from lo to hi (both multiples of 8, lo <= hi)."""
        return lo + 8 * int(self.rng.integers(0, (hi - lo) // 8 + 1))

    def _opening_centre(self, rect: Rect, axis: int) -> int | None:
        """Where, across the way along `axis`, a corridor may leave `rect` (a multiple of 8)."""
        lo, hi = _span_of(rect, 1 - axis)
        half = self.p.door_width // 2
        first, last = lo + OPENING_MARGIN + half, hi - OPENING_MARGIN - half
        first, last = -(-first // 8) * 8, last // 8 * 8
        return self._between(first, last) if first <= last else None

    def _corridor(self, start: int, turns: int) -> tuple[list[_Piece], int, int, int, int] | None:
        """A corridor leaving cell `start`: its pieces (strip, corner, strip ...), the last strip's far end
        along its axis, that axis, its direction (+1/-1) and its centre across. None when it cannot leave."""
        rng, w = self.rng, self.p.door_width
        dx, dy = DIRECTIONS[int(rng.integers(4))]
        axis, sign = (0, dx) if dx else (1, dy)
        rect = self.cells[start]
        centre = self._opening_centre(rect, axis)
        if centre is None:
            return None
        wall = rect[axis + 2] if sign > 0 else rect[axis]
        pieces: list[_Piece] = []
        for turn in range(turns + 1):
            length = self._length()
            end = wall + sign * length
            pieces.append(_Piece(_rect(axis, tuple(sorted((wall, end))), (centre - w // 2, centre + w // 2)), False))
            wall = end
            if turn == turns:
                break
            side = w + CORNER_EXTRA
            far = wall + sign * side
            corner = _rect(axis, tuple(sorted((wall, far))), (centre - side // 2, centre + side // 2))
            pieces.append(_Piece(corner, True))
            centre = (wall + far) // 2                    # the next piece leaves the corner from its middle
            axis, sign = 1 - axis, (1 if rng.random() < 0.5 else -1)
            wall = corner[axis + 2] if sign > 0 else corner[axis]
        return pieces, wall, axis, sign, centre

    def _cell_at_end(self, wall: int, axis: int, sign: int, centre: int, along: int, across: int) -> Rect:
        """A cell `along` deep and `across` wide beyond `wall`, its near wall holding the corridor's opening."""
        half = self.p.door_width // 2 + OPENING_MARGIN
        lo = self._between(centre + half - across, centre - half) if across > 2 * half else centre - across // 2
        return _rect(axis, tuple(sorted((wall, wall + sign * along))), (lo, lo + across))

    def _turns(self) -> int:
        turns = 0
        while turns < MAX_TURNS and self.rng.random() < self.p.turn_chance:
            turns += 1
        return turns

    # -- fitting ---------------------------------------------------------------------------------------

    def _fits(self, pieces: list[_Piece], ends: tuple[int, ...]) -> bool:
        """Whether the chain `pieces` (each touching the next) keeps MARGIN from every space but the cells
        `ends` its first and last pieces open into, and from itself (the two strips at a corner excepted)."""
        for i, piece in enumerate(pieces):
            for rect, cell in self.spaces:
                touching = (i == 0 and cell == ends[0]) or (i == len(pieces) - 1 and len(ends) > 1 and cell == ends[1])
                if not touching and not _clear(piece.rect, rect):
                    return False
            for j in range(i + 2, len(pieces)):
                around_a_corner = j == i + 2 and not piece.is_cell and not pieces[j].is_cell
                if not around_a_corner and not _clear(piece.rect, pieces[j].rect):
                    return False
        return True

    def _add_cell(self, rect: Rect, is_room: bool) -> int:
        self.cells.append(rect)
        self.is_room.append(is_room)
        self.spaces.append((rect, len(self.cells) - 1))
        return len(self.cells) - 1

    def _commit(self, start: int, pieces: list[_Piece], last: int | None, door: bool) -> None:
        """Add the chain's corners and strips, and the links along it from `start` to `last` (None: the chain
        ends in its own last cell)."""
        previous = start
        for i, piece in enumerate(pieces):
            if not piece.is_cell:
                self.spaces.append((piece.rect, -1))
                continue
            if i == len(pieces) - 1 and last is not None:
                cell = last
            else:
                cell = self._add_cell(piece.rect, is_room=False)
            self._link(previous, cell, pieces[i - 1].rect, door and previous == start)
            previous = cell
        if last is not None and not pieces[-1].is_cell:
            self._link(previous, last, pieces[-1].rect, door and previous == start)

    def _link(self, a: int, b: int, strip: Rect, door: bool) -> None:
        ra, rb = self.cells[a], self.cells[b]
        axis = 0 if ra[2] <= rb[0] or rb[2] <= ra[0] else 1      # the way runs along x, or along y
        self.links.append((a, b, axis, (strip[1 - axis] + strip[3 - axis]) // 2, door))

    # -- growing ---------------------------------------------------------------------------------------

    def grow(self) -> GridPlan | None:
        """The rooms, one corridor and room at a time, then the dead ends and the loops; None when the rooms
        do not all fit in their tries or no two lie `min_span` doorways apart (the caller draws again)."""
        rng, p = self.rng, self.p
        n_rooms = int(rng.integers(p.n_rooms_min, p.n_rooms_max + 1))
        width, depth = self._side(), self._side()
        rooms = [self._add_cell((0, 0, width, depth), is_room=True)]
        tries = 0
        while len(rooms) < n_rooms:
            tries += 1
            if tries > GROW_TRIES * n_rooms:
                return None
            # Half the time from the newest room, so buildings stretch out rather than bunch around the first.
            start = rooms[-1] if rng.random() < 0.5 else rooms[int(rng.integers(len(rooms)))]
            corridor = self._corridor(start, self._turns())
            if corridor is None:
                continue
            pieces, wall, axis, sign, centre = corridor
            along, across = self._side(), self._side()
            room = _Piece(self._cell_at_end(wall, axis, sign, centre, along, across), True)
            door = bool(rng.random() < p.door_chance)
            if self._fits(pieces + [room], (start,)):
                self._commit(start, pieces + [room], None, door)
                self.is_room[-1] = True
                rooms.append(len(self.cells) - 1)
        if span(self._plan()) < self.min_span:
            return None
        for _ in range(p.dead_ends):
            self._dead_end(rooms)
        for _ in range(p.loops):
            self._loop(rooms)
        return self._plan()

    def _dead_end(self, rooms: list[int]) -> None:
        """A corridor from a room that ends in a square of its own, where it fits (a few tries)."""
        side = self.p.door_width + CORNER_EXTRA
        for _ in range(GROW_TRIES):
            start = rooms[int(self.rng.integers(len(rooms)))]
            corridor = self._corridor(start, self._turns())
            if corridor is None:
                continue
            pieces, wall, axis, sign, centre = corridor
            end = _Piece(self._cell_at_end(wall, axis, sign, centre, side, side), True)
            door = bool(self.rng.random() < self.p.door_chance)
            if self._fits(pieces + [end], (start,)):
                self._commit(start, pieces + [end], None, door)
                return

    def _loop(self, rooms: list[int]) -> None:
        """A corridor between two rooms not yet neighbours, straight or with one turn, where one fits and the
        building keeps two rooms `min_span` doorways apart (a few tries)."""
        rng = self.rng
        for _ in range(GROW_TRIES):
            a, b = (rooms[int(i)] for i in rng.choice(len(rooms), size=2, replace=False))
            if any({x, y} == {a, b} for x, y, *_ in self.links):
                continue
            pieces = self._straight(a, b) if rng.random() < 0.5 else self._bent(a, b, int(rng.integers(2)))
            if pieces is None or not self._fits(pieces, (a, b)):
                continue
            saved = len(self.cells), len(self.spaces), len(self.links), list(self.is_room)
            self._commit(a, pieces, b, bool(rng.random() < self.p.door_chance))
            if self.min_span <= 1 or span(self._plan()) >= self.min_span:
                return
            n_cells, n_spaces, n_links, self.is_room = saved        # a shortcut too many: take it back
            del self.cells[n_cells:], self.spaces[n_spaces:], self.links[n_links:]
            return

    def _straight(self, a: int, b: int) -> list[_Piece] | None:
        """The strip between rooms `a` and `b` when they face each other from `corridor` to `corridor_max` apart
        with room for an opening in both walls."""
        ra, rb, p = self.cells[a], self.cells[b], self.p
        for axis in (0, 1):
            if ra[axis + 2] <= rb[axis]:
                near, far = ra[axis + 2], rb[axis]
            elif rb[axis + 2] <= ra[axis]:
                near, far = rb[axis + 2], ra[axis]
            else:
                continue
            lo = max(ra[1 - axis], rb[1 - axis]) + OPENING_MARGIN + p.door_width // 2
            hi = min(ra[3 - axis], rb[3 - axis]) - OPENING_MARGIN - p.door_width // 2
            lo, hi = -(-lo // 8) * 8, hi // 8 * 8
            if not p.corridor <= far - near <= p.corridor_max or lo > hi:
                return None
            centre = self._between(lo, hi)
            w = p.door_width // 2
            return [_Piece(_rect(axis, (near, far), (centre - w, centre + w)), False)]
        return None

    def _bent(self, a: int, b: int, first_axis: int) -> list[_Piece] | None:
        """Strip, corner, strip from room `a` (leaving along `first_axis`) to room `b`, where the corner can
        stand in line with an opening of each room, `corridor` to `corridor_max` beyond both."""
        ra, rb, p = self.cells[a], self.cells[b], self.p
        w, side = p.door_width // 2, p.door_width + CORNER_EXTRA
        half = side // 2
        centre = [0, 0]
        for axis, room, other in ((first_axis, ra, rb), (1 - first_axis, rb, ra)):
            # The corner's centre on `axis`: beyond `room`'s wall towards `other`, and in line with an opening
            # of `other` (on `axis`, other's wall runs across the corner's second strip).
            sign = 1 if other[axis] >= room[axis + 2] else -1 if other[axis + 2] <= room[axis] else 0
            if not sign:
                return None
            wall = room[axis + 2] if sign > 0 else room[axis]
            beyond = sorted((wall + sign * (p.corridor + half), wall + sign * (p.corridor_max + half)))
            lo = max(beyond[0], other[axis] + OPENING_MARGIN + w)
            hi = min(beyond[1], other[axis + 2] - OPENING_MARGIN - w)
            lo, hi = -(-lo // 8) * 8, hi // 8 * 8
            if lo > hi:
                return None
            centre[axis] = self._between(lo, hi)
        cx, cy = centre
        corner = (cx - half, cy - half, cx + half, cy + half)
        pieces = []
        for axis, room, rect in ((first_axis, ra, corner), (1 - first_axis, rb, corner)):
            near = room[axis + 2] if room[axis + 2] <= rect[axis] else room[axis]
            far = rect[axis] if room[axis + 2] <= rect[axis] else rect[axis + 2]
            if abs(far - near) < p.corridor:
                return None
            across = centre[1 - axis]
            pieces.append(_Piece(_rect(axis, tuple(sorted((near, far))), (across - w, across + w)), False))
        return [pieces[0], _Piece(corner, True), pieces[1]]

    def _plan(self) -> GridPlan:
        """The plan with the rooms numbered first (in the order they grew), then the other cells."""
        order = [i for i, room in enumerate(self.is_room) if room] + [i for i, room in enumerate(self.is_room)
                                                                          if not room]
        index = {old: new for new, old in enumerate(order)}
        cells = [self.cells[i] for i in order]
        doors, openings = [], []
        w = self.p.door_width
        for a, b, axis, centre, door in self.links:
            a, b = index[a], index[b]
            doors.append((a, b))
            openings.append(opening(cells, a, b, axis, centre, w, door))
        return GridPlan(0, 0, cells, doors, tuple(openings), n_rooms=sum(self.is_room))
