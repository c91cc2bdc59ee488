"""Maps in map units from Python: rooms, openings, doors, steps, pillars and things.

Coordinates: x grows east, y grows north; angles in degrees, 0 = east, 90 = north. Rooms are
polygons; later shapes (doors, corridors, pillars) lie on top of earlier ones, and `MapBuilder.build`
turns the layered shapes into lines where every shared wall is one line.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .iwad import suggest
from .mapdata import Line, MapData, Sector, Side, Thing
from .planar import (
    CELL,
    Point,
    arrange,
    bbox,
    cells,
    edges_of,
    exact,
    grid_delta,
    on_segment,
    point_in_polygon,
    segment_intersections,
    self_crossing,
    signed_area,
)

PLAYER_HEIGHT = 56     # the player needs this much between floor and ceiling
MAX_STEP = 24          # the highest step the player climbs
STAIR_RISE = 16        # rise per stair when a corridor climbs between rooms
# line specials Door_Raise(tag, speed, delay, lighttag) / Door_Open(tag, speed, lighttag)
DOOR_RAISE, DOOR_OPEN = 12, 11
DOOR_SPEED, DOOR_DELAY = 16, 150
# connect's door argument -> the door line's special (0: no door); "push" doors also open when walked into.
DOOR_KINDS = {False: 0, True: DOOR_RAISE, "raise": DOOR_RAISE, "push": DOOR_RAISE, "open": DOOR_OPEN}
DOOR_DEPTH = 16        # a door sector's thickness
DOOR_ONLY_GAP = 48     # gaps up to this deep are all door; deeper ones get a corridor with a door midway
SKY_FLAT = "F_SKY1"
# Touching rooms are walled off where no opening joins them: a two-sided line that blocks like a wall.
THING_FLAGS = ("ambush", "dormant", "friend", "standing", "translucent", "invisible", "strifeally", "countsecret")
LINE_FLAGS = ("blocking", "blockmonsters", "twosided", "dontpegtop", "dontpegbottom", "secret", "blocksound",
              "dontdraw", "mapped", "passuse", "playercross", "playeruse", "playeruseback", "monstercross",
              "monsteruse", "impact", "playerpush", "monsterpush", "missilecross", "repeatspecial", "anycross",
              "monsteractivate", "blockplayers", "blockeverything", "blockprojectiles", "blockuse", "blocksight",
              "blockhitscan", "blockfloaters", "jumpover", "clipmidtex", "wrapmidtex", "midtex3d",
              "checkswitchrange", "firstsideonly", "translucent", "transparent", "zoneboundary")
THIN_WALL_FLAGS = ("blocking", "blocksight", "blockhitscan", "blockprojectiles", "blocksound", "wrapmidtex")


@dataclass(eq=False)
class Room:
    """A sector: a polygon with floor and ceiling heights, textures and a light level."""

    index: int
    outline: tuple[tuple[float, float], ...]   # counter-clockwise corners
    floor_height: int
    ceiling_height: int
    floor: str
    ceiling: str
    wall: str
    light: int
    tag: int = 0
    special: int = 0
    damage: int = 0
    name: str = ""
    pillars: list[tuple[tuple[float, float], ...]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"room {self.index} {self.name!r}" if self.name else f"room {self.index}"

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self.outline]
        ys = [p[1] for p in self.outline]
        return min(xs), min(ys), max(xs), max(ys)

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.bounds
        return (x0 + x1) / 2, (y0 + y1) / 2

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        """Inside the outline, outside every pillar, at least `margin` units from their edges."""
        if not point_in_polygon(x, y, self.outline) or _distance_to_outline(x, y, self.outline) < margin:
            return False
        return not any(
            point_in_polygon(x, y, p) or _distance_to_outline(x, y, p) < margin for p in self.pillars
        )

    def random_point(self, rng, margin: float = 32.0, tries: int = 1000) -> tuple[float, float]:
        """A uniformly random free point of the room, `margin` units clear of walls and pillars."""
        x0, y0, x1, y1 = self.bounds
        for _ in range(tries):
            x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
            if self.contains(x, y, margin):
                return round(x), round(y)
        raise ValueError(f"{self.label}: no free point {margin} units from its walls")


@dataclass
class _Region:
    """One layer of the map: a polygon and what it makes (a sector, or void for holes)."""

    outline: list[Point]
    sector: int | None
    kind: str                  # "room", "corridor", "door", "pillar", "area"
    wall: str                  # one-sided walls around it (for a hole: the walls facing out of it)
    face: str                  # upper/lower texture its neighbours show where heights differ
    label: str
    door_special: int = 0
    door_push: bool = False    # the door also opens when the player walks into it


class MapBuilder:
    """Lays out one map. Build rooms, join them, add things; `build()` gives the finished MapData."""

    def __init__(self) -> None:
        self.rooms: list[Room] = []
        self.things: list[Thing] = []
        self._regions: list[_Region] = []
        self._room_regions: list[int] = []      # room index -> its region
        self._sectors: list[Sector] = []
        self._openings: list[tuple[Point, Point]] = []
        self._openings_by_cell: dict[tuple[int, int], list[tuple[Point, Point]]] = defaultdict(list)
        self._raw_lines: list[tuple] = []

    # --- rooms ---------------------------------------------------------------------------------

    def add_room(self, x0: float, y0: float, x1: float, y1: float, **style) -> Room:
        """A rectangular room from corner (x0, y0) to (x1, y1). Style keywords as add_polygon_room."""
        return self.add_polygon_room([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], **style)

    def add_polygon_room(
        self,
        points: Sequence[tuple[float, float]],
        *,
        floor: str = "FLOOR0_1",
        ceiling: str = "CEIL1_1",
        wall: str = "STARTAN2",
        floor_height: int = 0,
        ceiling_height: int = 128,
        light: int = 192,
        tag: int = 0,
        special: int = 0,
        damage: int = 0,
        name: str = "",
    ) -> Room:
        """A room whose outline is `points` (either winding). Rooms may touch but not overlap.

        `tag` is the sector id ACS refers to; `damage` hurts the player that much every 32 tics.
        """
        index = len(self.rooms)
        label = f"room {index} {name!r}" if name else f"room {index}"
        outline = _normalized_outline(points, label)
        _check_heights(label, floor_height, ceiling_height)
        room = Room(index, tuple((float(x), float(y)) for x, y in outline), int(floor_height), int(ceiling_height),
                    floor, ceiling, wall, int(light), tag, special, int(damage), name)
        sector = self._add_sector(room.floor_height, room.ceiling_height, floor, ceiling, room.light, label,
                                  tag=tag, special=special, damage=damage)
        self.rooms.append(room)
        self._room_regions.append(len(self._regions))
        self._regions.append(_Region(outline, sector, "room", wall, wall, label))
        return room

    def add_pillar(self, room: Room, x0: float, y0: float, x1: float, y1: float, **style) -> None:
        """A rectangular obstacle inside `room` (see add_polygon_pillar)."""
        self.add_polygon_pillar(room, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], **style)

    def add_polygon_pillar(
        self, room: Room, points: Sequence[tuple[float, float]], *, wall: str | None = None,
        height: int | None = None, top: str | None = None,
    ) -> None:
        """An obstacle inside `room`. Without `height` it is a hole in the room's floor plan (walls
        from floor to ceiling); with `height` it is a raised block of that height, a sector of its own."""
        label = f"pillar {len(room.pillars)} of {room.label}"
        outline = self._inner_outline(room, points, label)
        wall = wall or room.wall
        room.pillars.append(tuple((float(x), float(y)) for x, y in outline))
        if height is None:
            self._regions.append(_Region(outline, None, "pillar", wall, wall, label))
            return
        floor_height = min(room.floor_height + int(height), room.ceiling_height)
        sector = self._add_sector(floor_height, room.ceiling_height, top or room.floor, room.ceiling,
                                  room.light, label)
        self._regions.append(_Region(outline, sector, "pillar", wall, wall, label))

    def add_area(
        self, room: Room, points: Sequence[tuple[float, float]], *, floor_height: int | None = None,
        ceiling_height: int | None = None, floor: str | None = None, ceiling: str | None = None,
        light: int | None = None, damage: int = 0, tag: int = 0, special: int = 0, wall: str | None = None,
    ) -> int:
        """A patch of `room` with its own sector: a pool (lower floor, NUKAGE1, damage), a platform,
        a lit spot, a tagged floor ACS can move. Open on all sides; unset values are the room's.
        `wall` is the texture of its edges where the heights differ. Returns the sector index."""
        label = f"area {sum(r.kind == 'area' for r in self._regions)} of {room.label}"
        outline = self._inner_outline(room, points, label)
        floor_height = room.floor_height if floor_height is None else floor_height
        ceiling_height = room.ceiling_height if ceiling_height is None else ceiling_height
        _check_heights(label, floor_height, ceiling_height)
        sector = self._add_sector(
            floor_height, ceiling_height,
            floor or room.floor, ceiling or room.ceiling, room.light if light is None else light, label,
            tag=tag, special=special, damage=damage)
        wall = wall or room.wall
        self._regions.append(_Region(outline, sector, "area", room.wall, wall, label))
        return sector

    def _inner_outline(self, room: Room, points, label: str) -> list[Point]:
        outline = _normalized_outline(points, label)
        room_outline = self._regions[self._room_regions[room.index]].outline
        outside = [(x, y) for x, y in outline if not _inside_or_on(x, y, room_outline)]
        if outside:
            x, y = outside[0]
            raise ValueError(f"{label}: corner ({float(x):g}, {float(y):g}) lies outside {room.label}")
        return outline

    # --- openings ------------------------------------------------------------------------------

    def connect(
        self, a: Room, b: Room, width: float | None = 128, *, at: tuple[float, float] | None = None,
        door: bool | str = False, door_texture: str = "BIGDOOR2", track_texture: str = "DOORTRAK",
        max_gap: float = 512,
    ) -> None:
        """Join rooms `a` and `b` through an opening `width` units wide (None: the whole shared wall).

        Rooms that touch get a gap in the wall they share; rooms with a gap between facing walls get a
        corridor across it (with stairs when their floors differ by more than a step). `door=True`
        puts a door there that the player opens with use and that closes again; `door="push"` is such a
        door that also opens when the player walks into it (and never closes on a push); `door="open"`
        stays open. `at` is a point the opening is centred on (projected onto the wall).
        """
        if door not in tuple(DOOR_KINDS):
            raise ValueError(f"connect: door must be False, True, 'raise', 'push' or 'open', not {door!r}")
        where = f"opening between {a.label} and {b.label}"
        edge_a, across, gap, u0, u1 = self._facing_walls(a, b, where, max_gap)
        p, q = edge_a
        length = _length(q[0] - p[0], q[1] - p[1])
        if width is not None:
            if width <= 0:
                raise ValueError(f"{where}: width must be positive, got {width}")
            if (u1 - u0) * length < exact(width):
                raise ValueError(f"{where}: the walls overlap by {float((u1 - u0) * length):g} units; "
                                 f"width {width} does not fit")
            half = exact(width) / 2 / length
            centre = (u0 + u1) / 2 if at is None else _project(exact(at[0]), exact(at[1]), p, q)
            centre = min(max(centre, u0 + half), u1 - half)
            u0, u1 = centre - half, centre + half
        start = (p[0] + (q[0] - p[0]) * u0, p[1] + (q[1] - p[1]) * u0)
        end = (p[0] + (q[0] - p[0]) * u1, p[1] + (q[1] - p[1]) * u1)
        special = DOOR_KINDS[door]
        push = door == "push"
        if gap == 0:
            self._openings.append((start, end))
            for cell in cells(start, end):
                self._openings_by_cell[cell].append((start, end))
            if special:   # a door DOOR_DEPTH thick, standing half in each room
                dx, dy = q[0] - p[0], q[1] - p[1]
                through = (dy * DOOR_DEPTH / length, -dx * DOOR_DEPTH / length)
                self._add_door(a, b, start, end, through, Fraction(-1, 2), Fraction(1, 2), special, door_texture,
                               track_texture, where, push)
        else:
            self._add_corridor(a, b, start, end, across, gap, special, door_texture, track_texture, where, push)

    # --- things --------------------------------------------------------------------------------

    def add_thing(self, kind: str | int, x, y: float | None = None, angle: float = 0, *, tid: int = 0,
                  z: float = 0, skills: Sequence[int] = (1, 2, 3, 4, 5),
                  modes: Sequence[str] = ("single", "coop", "dm"), flags: Sequence[str] = (),
                  special: int = 0, args: Sequence[int] = ()) -> Thing:
        """Place an actor by stock name ("Medikit"), custom Actor name or editor number.

        `x` may be a point (x, y). `skills` (1..5) and `modes` ("single", "coop", "dm") say when it
        appears; `flags` are UDMF thing flags such as "ambush", "dormant", "friend".
        """
        if y is None:
            x, y = x
        bad_modes = sorted(set(modes) - {"single", "coop", "dm"})
        if bad_modes:
            raise ValueError(f"thing {len(self.things)} ({kind}): unknown mode(s) {bad_modes}; valid: single, coop, dm")
        bad_skills = sorted(set(skills) - {1, 2, 3, 4, 5})
        if bad_skills:
            raise ValueError(f"thing {len(self.things)} ({kind}): unknown skill(s) {bad_skills}; valid: 1..5")
        if len(args) > 5:
            raise ValueError(f"thing {len(self.things)} ({kind}): at most 5 special args, got {len(args)}")
        _check_flags(flags, THING_FLAGS, f"thing {len(self.things)} ({kind})")
        thing = Thing(kind, float(x), float(y), int(round(angle)) % 360, int(tid), float(z),
                      tuple(sorted(set(skills))), tuple(m for m in ("single", "coop", "dm") if m in modes),
                      tuple(flags), int(special), tuple(args) + (0,) * (5 - len(args)))
        self.things.append(thing)
        return thing

    def add_player_start(self, x, y: float | None = None, angle: float = 90, player: int = 1) -> Thing:
        return self.add_thing(f"Player{player}Start", x, y, angle)

    def add_map_spot(self, x, y: float | None = None, tid: int = 0, angle: float = 0) -> Thing:
        """A MapSpot: an invisible marker ACS can spawn things at by its tid."""
        return self.add_thing("MapSpot", x, y, angle, tid=tid)

    # --- raw lines for hand-made shapes --------------------------------------------------------

    def add_sector(self, *, floor_height: int = 0, ceiling_height: int = 128, floor: str = "FLOOR0_1",
                   ceiling: str = "CEIL1_1", light: int = 192, tag: int = 0, special: int = 0,
                   name: str = "") -> int:
        """A sector made only of lines given with add_line (for shapes rooms cannot express)."""
        return self._add_sector(floor_height, ceiling_height, floor, ceiling, light, name or "hand-made sector",
                                tag=tag, special=special)

    def add_line(self, start: tuple[float, float], end: tuple[float, float], front: int,
                 back: int | None = None, *, wall: str = "STARTAN2", special: int = 0,
                 args: Sequence[int] = (), flags: Sequence[str] = (), tag: int = 0) -> None:
        """A line from `start` to `end` with sector `front` on its right and `back` (or nothing) on its left."""
        _check_flags(flags, LINE_FLAGS, f"add_line {start}->{end}")
        if len(args) > 5:
            raise ValueError(f"add_line {start}->{end}: at most 5 special args, got {len(args)}")
        self._raw_lines.append((start, end, front, back, wall, special, tuple(args), tuple(flags), tag))

    # --- building ------------------------------------------------------------------------------

    def build(self) -> MapData:
        """The finished map: vertices, lines with sides and textures, sectors and things."""
        self._check_rooms_do_not_overlap()
        data = MapData(sectors=list(self._sectors), things=list(self.things))
        vertex_index: dict[tuple[float, float], int] = {}

        def vertex(point) -> int:
            key = (_snap(point[0]), _snap(point[1]))
            if key not in vertex_index:
                vertex_index[key] = len(data.vertices)
                data.vertices.append(key)
            return vertex_index[key]

        cuts = [point for opening in self._openings for point in opening]
        for piece in arrange([r.outline for r in self._regions], cuts):
            line = self._line_for(piece.left, piece.right, piece.a, piece.b)
            if line is not None:
                start, end = (piece.a, piece.b) if line[0] else (piece.b, piece.a)
                line_obj = line[1]
                line_obj.v1, line_obj.v2 = vertex(start), vertex(end)
                if not line_obj.special:
                    _align_textures(line_obj, data.vertices[line_obj.v1], data.vertices[line_obj.v2])
                data.lines.append(line_obj)
        for start, end, front, back, wall, special, args, flags, tag in self._raw_lines:
            for s in (front, back):
                if s is not None and not 0 <= s < len(data.sectors):
                    raise ValueError(f"add_line {start}->{end}: sector {s} does not exist")
            back_side = None if back is None else Side(back, upper=wall, lower=wall)
            front_side = Side(front, middle=wall if back is None else "-", upper=wall, lower=wall)
            flags = tuple(flags) + (("twosided",) if back is not None else ("blocking",))
            data.lines.append(Line(vertex(exact_point(start)), vertex(exact_point(end)), front_side, back_side,
                                   special, tuple(args) + (0,) * (5 - len(args)), flags, tag, "hand-made line"))
        return data

    # --- internals -----------------------------------------------------------------------------

    def _add_sector(self, floor_height, ceiling_height, floor, ceiling, light, label, tag=0, special=0,
                    damage=0) -> int:
        self._sectors.append(Sector(int(floor_height), int(ceiling_height), floor, ceiling, int(light),
                                    int(special), int(tag), int(damage), label))
        return len(self._sectors) - 1

    def _facing_walls(self, a: Room, b: Room, where: str, max_gap: float):
        """A wall of `a` and a wall of `b` that face each other, nearest first: (edge_a, across, gap, u0, u1):
        `across` is the exact vector from a's wall to b's along a's outward normal, `gap` its length, and
        [u0, u1] the walls' overlap as fractions along edge_a."""
        best = None
        outline_a = self._regions[self._room_regions[a.index]].outline
        outline_b = self._regions[self._room_regions[b.index]].outline
        edges_b = [(r, s, grid_delta(r, s)) for r, s in edges_of(outline_b)]
        for p, q in edges_of(outline_a):
            dx, dy = q[0] - p[0], q[1] - p[1]
            da = grid_delta(p, q)
            for r, s, db in edges_b:
                if da is not None and db is not None and (da[0] * db[1] - da[1] * db[0] != 0
                                                          or da[0] * db[0] + da[1] * db[1] >= 0):
                    continue    # the test below on integers (most pairs end here)
                ex, ey = s[0] - r[0], s[1] - r[1]
                if dx * ey - dy * ex != 0 or dx * ex + dy * ey >= 0:
                    continue    # not antiparallel: walls of two rooms face each other head-on
                # Outward normal of a's wall is (dy, -dx): the distance to b's wall along it.
                norm = dx * dx + dy * dy
                reach = ((r[0] - p[0]) * dy - (r[1] - p[1]) * dx) / norm
                gap = reach * _length(dx, dy)
                if gap < 0 or gap > max_gap:
                    continue
                ur = ((r[0] - p[0]) * dx + (r[1] - p[1]) * dy) / norm
                us = ((s[0] - p[0]) * dx + (s[1] - p[1]) * dy) / norm
                u0, u1 = max(Fraction(0), min(ur, us)), min(Fraction(1), max(ur, us))
                if u1 <= u0:
                    continue
                key = (gap, -(u1 - u0) * _length(dx, dy))
                if best is None or key < best[0]:
                    best = (key, (p, q), (dy * reach, -dx * reach), gap, u0, u1)
        if best is None:
            raise ValueError(f"{where}: the rooms share no wall and have no facing walls within {max_gap} units")
        return best[1:]

    def _add_corridor(self, a, b, start, end, across, gap, special, door_texture, track_texture, where, push=False):
        """Regions spanning the gap between facing walls: a corridor, stairs, and maybe a door."""
        p, q = start, end
        nx, ny = across
        floors = (a.floor_height, b.floor_height)
        ceiling = min(a.ceiling_height, b.ceiling_height)
        if ceiling - max(floors) < PLAYER_HEIGHT:
            raise ValueError(f"{where}: only {ceiling - max(floors)} units between the higher floor and the lower "
                             f"ceiling; the player needs {PLAYER_HEIGHT}")
        rise = b.floor_height - a.floor_height
        steps = 1 if abs(rise) <= MAX_STEP else math.ceil(abs(rise) / STAIR_RISE) - 1
        if special and steps > 1:
            raise ValueError(f"{where}: a door needs floors within {MAX_STEP} units of each other, "
                             f"these differ by {abs(rise)}")
        if steps > 1 and gap / steps < 16:
            raise ValueError(f"{where}: {steps} stairs need a gap of at least {16 * steps} units, got {float(gap):g}")
        ceiling_flat = a.ceiling if a.ceiling != SKY_FLAT else b.ceiling
        light = min(a.light, b.light)
        if special and gap <= DOOR_ONLY_GAP:     # the door fills the whole gap
            self._add_door(a, b, start, end, across, Fraction(0), Fraction(1), special, door_texture, track_texture,
                           where, push)
            return
        for i in range(steps):
            f0, f1 = Fraction(i, steps), Fraction(i + 1, steps)
            outline = [(p[0] + nx * f0, p[1] + ny * f0), (q[0] + nx * f0, q[1] + ny * f0),
                       (q[0] + nx * f1, q[1] + ny * f1), (p[0] + nx * f1, p[1] + ny * f1)]
            floor = a.floor_height if steps == 1 else a.floor_height + round(rise * (i + 1) / (steps + 1))
            label = f"corridor of the {where}" + (f", stair {i}" if steps > 1 else "")
            sector = self._add_sector(floor, ceiling, a.floor, ceiling_flat, light, label)
            self._regions.append(_Region(_ccw(outline), sector, "corridor", a.wall, a.wall, label))
        if special:   # a door DOOR_DEPTH deep across the middle of the corridor
            half = Fraction(DOOR_DEPTH, 2) / gap
            self._add_door(a, b, start, end, across, Fraction(1, 2) - half, Fraction(1, 2) + half, special,
                           door_texture, track_texture, where, push)

    def _add_door(self, a, b, start, end, through, near, far, special, door_texture, track_texture, where,
                  push=False):
        """A door sector over the opening start-end, from `near` to `far` times the vector `through` beyond
        a's wall (exactly parallel to a corridor's sides, so no slivers)."""
        p, q = start, end
        nx, ny = through
        outline = [(p[0] + nx * near, p[1] + ny * near), (q[0] + nx * near, q[1] + ny * near),
                   (q[0] + nx * far, q[1] + ny * far), (p[0] + nx * far, p[1] + ny * far)]
        floor = max(a.floor_height, b.floor_height)
        label = f"door of the {where}"
        for name, known in ((door_texture, "door_texture"), (track_texture, "track_texture")):
            if not name:
                raise ValueError(f"{where}: {known} must name a texture")
        sector = self._add_sector(floor, floor, a.floor, "FLAT20", min(a.light, b.light), label)
        self._regions.append(_Region(_ccw(outline), sector, "door", track_texture, door_texture, label,
                                     door_special=special, door_push=push))

    def _line_for(self, left: int | None, right: int | None, a: Point, b: Point):
        """(keep direction a->b?, Line) for a piece with regions `left`/`right` on its sides."""
        regions = self._regions
        left_sector = regions[left].sector if left is not None else None
        right_sector = regions[right].sector if right is not None else None
        if left_sector == right_sector:
            return None
        if left_sector is None or right_sector is None:
            inside, outside = (right, left) if left_sector is None else (left, right)
            wall = regions[outside].wall if outside is not None else regions[inside].wall
            line = Line(0, 0, Side(regions[inside].sector, middle=wall), None, flags=("blocking",),
                        label=f"wall of {regions[inside].label}")
            # The front side is on the right of v1 -> v2: keep a->b when the sector is on the right.
            return left_sector is None, line
        front, back = right, left
        if regions[front].kind == "door" or (regions[back].kind != "door" and front > back):
            front, back = back, front      # manual doors act on the back sector; else older region in front
        line = self._two_sided(regions[front], regions[back], a, b)
        return front == right, line

    def _two_sided(self, front: _Region, back: _Region, a: Point, b: Point) -> Line:
        front_side = Side(front.sector, upper=back.face, lower=back.face)
        back_side = Side(back.sector, upper=front.face, lower=front.face)
        label = f"between {front.label} and {back.label}"
        if back.kind == "door":
            # A push door keeps rising when run into again (the engine reverses used doors only).
            push = ("playerpush",) if back.door_push else ()
            return Line(0, 0, front_side, back_side, back.door_special, (0, DOOR_SPEED, DOOR_DELAY, 0, 0)
                        if back.door_special == DOOR_RAISE else (0, DOOR_SPEED, 0, 0, 0),
                        ("twosided", "playeruse", "monsteruse", "repeatspecial") + push, label=label)
        if front.kind == "room" and back.kind == "room" and not self._in_opening(a, b):
            front_side.middle, back_side.middle = front.wall, back.wall
            return Line(0, 0, front_side, back_side, flags=("twosided",) + THIN_WALL_FLAGS, label=label)
        return Line(0, 0, front_side, back_side, flags=("twosided",), label=label)

    def _in_opening(self, a: Point, b: Point) -> bool:
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        nearby = self._openings_by_cell.get((int(mx // CELL), int(my // CELL)), ())
        return any(on_segment(mx, my, *s, *e) for s, e in nearby)

    def _check_rooms_do_not_overlap(self) -> None:
        rooms = [r for r in self._regions if r.kind == "room"]
        boxes = [bbox(r.outline) for r in rooms]
        for i, region in enumerate(rooms):
            for j in range(i + 1, len(rooms)):
                if _boxes_overlap(boxes[i], boxes[j]) and _polygons_overlap(region.outline, rooms[j].outline):
                    raise ValueError(f"{region.label} overlaps {rooms[j].label}; rooms may touch but not overlap")


def _align_textures(line: Line, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Offset each side's texture by its start's position along the wall's direction, so the pieces of
    a wall split by openings continue the texture without seams."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy)
    along = (start[0] * dx + start[1] * dy) / length
    line.front.offset_x = _texture_offset(along)
    if line.back is not None:   # the back side runs from end to start
        line.back.offset_x = _texture_offset(-(along + length))


def _texture_offset(value: float) -> int:
    # Modulo a multiple of every power-of-two texture width keeps the numbers small.
    return int(round(value)) % 1024


def _check_heights(label: str, floor_height, ceiling_height) -> None:
    if ceiling_height < floor_height:
        raise ValueError(f"{label}: ceiling_height {ceiling_height} is below floor_height {floor_height}")


def _check_flags(flags, valid: Sequence[str], where: str) -> None:
    for flag in flags:
        if flag not in valid:
            raise ValueError(f"{where}: unknown flag {flag!r}{suggest(flag, valid)}; valid flags: {', '.join(valid)}")


def exact_point(point) -> Point:
    return exact(point[0]), exact(point[1])


def _normalized_outline(points, label: str) -> list[Point]:
    """Exact counter-clockwise corners; a ValueError names what is wrong with the outline."""
    corners = [exact_point(p) for p in points]
    if len(corners) > 1 and corners[0] == corners[-1]:
        corners.pop()
    for i, p in enumerate(corners):
        if p == corners[(i + 1) % len(corners)]:
            raise ValueError(f"{label}: zero-length edge {i} at ({float(p[0]):g}, {float(p[1]):g})")
    if len(corners) < 3:
        raise ValueError(f"{label}: an outline needs at least 3 corners, got {len(corners)}")
    crossing = self_crossing(corners)
    if crossing:
        i, j, (x, y) = crossing
        raise ValueError(f"{label}: outline edges {i} and {j} cross at ({float(x):g}, {float(y):g})")
    area = signed_area(corners)
    if area == 0:
        raise ValueError(f"{label}: the outline encloses no area (its corners are collinear)")
    return corners if area > 0 else corners[::-1]


def _ccw(points: list[Point]) -> list[Point]:
    return points if signed_area(points) > 0 else points[::-1]


def _length(dx, dy) -> Fraction:
    """Exact for axis-aligned walls; otherwise the square root to 1/65536."""
    if dx == 0 or dy == 0:
        return abs(dx) + abs(dy)
    return Fraction(round(math.hypot(dx, dy) * 65536), 65536)


def _project(x, y, p, q) -> Fraction:
    dx, dy = q[0] - p[0], q[1] - p[1]
    return ((x - p[0]) * dx + (y - p[1]) * dy) / (dx * dx + dy * dy)


def _snap(value) -> float:
    return float(Fraction(round(Fraction(value) * 256), 256))


def _inside_or_on(x, y, outline) -> bool:
    return point_in_polygon(x, y, outline) or any(on_segment(x, y, *p, *q) for p, q in edges_of(outline))


def _distance_to_outline(x: float, y: float, outline) -> float:
    best = math.inf
    for (x1, y1), (x2, y2) in edges_of(list(outline)):
        x1, y1, x2, y2 = float(x1), float(y1), float(x2), float(y2)
        dx, dy = x2 - x1, y2 - y1
        t = max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(x - x1 - t * dx, y - y1 - t * dy))
    return best


def _polygons_overlap(first: list[Point], second: list[Point]) -> bool:
    """The interiors share area (touching along edges or at corners does not count)."""
    all_on_boundary = True
    for outline, other in ((first, second), (second, first)):
        for p, q in edges_of(outline):
            cuts = [p, q] + [x for r, s in edges_of(other) for x in segment_intersections(p, q, r, s)]
            cuts = sorted(set(cuts), key=lambda c: (c[0] - p[0]) ** 2 + (c[1] - p[1]) ** 2)
            for c, d in zip(cuts, cuts[1:]):
                mx, my = (c[0] + d[0]) / 2, (c[1] + d[1]) / 2
                if any(on_segment(mx, my, *r, *s) for r, s in edges_of(other)):
                    continue
                all_on_boundary = False
                if point_in_polygon(mx, my, other):
                    return True
    return all_on_boundary


def _boxes_overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
