"""Layout to lines: shared walls become one line, openings, thin walls, pillars, doors and stairs."""

from __future__ import annotations

from collections import Counter

from wadgym.wads import MapBuilder
from wadgym.wads.geometry import DOOR_RAISE


def lines_on(data, x=None, y=None):
    """Lines lying on the vertical x=... or horizontal y=... map line."""
    found = []
    for line in data.lines:
        (x1, y1), (x2, y2) = data.vertices[line.v1], data.vertices[line.v2]
        if (x is not None and x1 == x2 == x) or (y is not None and y1 == y2 == y):
            found.append((line, sorted([(x1, y1), (x2, y2)])))
    return sorted(found, key=lambda item: item[1])


def test_touching_rooms_share_one_line_per_segment_with_an_opening_in_a_thin_wall():
    m = MapBuilder()
    west = m.add_room(0, 0, 512, 512, wall="STARTAN2")
    east = m.add_room(512, 128, 1024, 384, wall="BROWN1", floor_height=16)
    m.connect(west, east, width=64, at=(512, 192))
    data = m.build()
    pairs = Counter(frozenset((l.v1, l.v2)) for l in data.lines)
    assert max(pairs.values()) == 1                         # no doubled lines anywhere
    shared = lines_on(data, x=512)
    spans = [points for _, points in shared]
    assert spans == [[(512, 0), (512, 128)], [(512, 128), (512, 160)], [(512, 160), (512, 224)],
                     [(512, 224), (512, 384)], [(512, 384), (512, 512)]]
    west_only, thin_south, opening, thin_north, west_only_2 = (line for line, _ in shared)
    assert west_only.back is None and west_only_2.back is None
    assert opening.back is not None and "blocking" not in opening.flags and opening.front.middle == "-"
    for thin in (thin_south, thin_north):
        assert {"blocking", "twosided", "blocksight", "wrapmidtex"} <= set(thin.flags)
        sides = {thin.front.sector: thin.front, thin.back.sector: thin.back}
        assert sides[0].middle == "STARTAN2" and sides[1].middle == "BROWN1"
    # The step: the west side shows the east room's wall as its lower texture.
    west_side = opening.front if opening.front.sector == 0 else opening.back
    assert west_side.lower == "BROWN1"


def test_pillar_hole_has_one_sided_walls_facing_the_room():
    m = MapBuilder()
    room = m.add_room(0, 0, 512, 512)
    m.add_pillar(room, 192, 192, 256, 256, wall="SUPPORT2")
    data = m.build()
    pillar_lines = [l for l in data.lines if l.front.middle == "SUPPORT2"]
    assert len(pillar_lines) == 4
    assert all(l.back is None and l.front.sector == 0 for l in pillar_lines)
    assert len(data.sectors) == 1
    assert data.sector_at(224, 224) is None and data.sector_at(100, 100) == 0


def test_raised_pillar_is_a_sector_of_its_own():
    m = MapBuilder()
    room = m.add_room(0, 0, 512, 512, floor_height=8)
    m.add_pillar(room, 192, 192, 256, 256, height=40)
    data = m.build()
    block = data.sector_at(224, 224)
    assert block == 1 and data.sectors[block].floor_height == 48


def test_door_across_a_gap_opens_from_the_room_side():
    m = MapBuilder()
    a = m.add_room(0, 0, 256, 256)
    b = m.add_room(0, 288, 256, 512)
    m.connect(a, b, width=64, door=True)
    data = m.build()
    door = data.sector_at(128, 272)
    assert data.sectors[door].floor_height == data.sectors[door].ceiling_height == 0
    door_lines = [l for l in data.lines if l.special == DOOR_RAISE]
    assert len(door_lines) == 2
    for line in door_lines:
        assert line.back.sector == door and line.front.sector in (0, 1)   # manual doors move the back sector
        assert {"playeruse", "repeatspecial"} <= set(line.flags)
    jambs = [l for l in data.lines if l.back is None and l.front.sector == door]
    assert len(jambs) == 2 and all(l.front.middle == "DOORTRAK" for l in jambs)


def test_corridor_climbs_by_stairs_of_at_most_16_units():
    m = MapBuilder()
    low = m.add_room(0, 0, 256, 256)
    high = m.add_room(0, 384, 256, 640, floor_height=64, ceiling_height=192)
    m.connect(low, high, width=128)
    data = m.build()
    floors = [data.sectors[data.sector_at(128, y)].floor_height for y in (128, 270, 300, 340, 380, 500)]
    assert floors == sorted(floors) and floors[0] == 0 and floors[-1] == 64
    assert max(b - a for a, b in zip(floors, floors[1:])) <= 16


def test_polygon_room_in_either_winding():
    clockwise = [(0, 0), (0, 256), (128, 384), (256, 256), (256, 0)]
    for points in (clockwise, clockwise[::-1]):
        m = MapBuilder()
        m.add_polygon_room(points)
        data = m.build()
        assert len(data.lines) == 5 and all(l.back is None for l in data.lines)
        assert data.sector_at(128, 300) == 0 and data.sector_at(10, 300) is None


def test_diagonal_walls_connect_with_a_corridor_or_a_door_without_slivers():
    from wadgym.wads import Level, build_wad
    from wadgym.wads.validate import validate_map

    for door in (False, True):
        m = MapBuilder()
        a = m.add_polygon_room([(0, 0), (512, 0), (512, 512)])
        b = m.add_polygon_room([(0, 128), (384, 512), (0, 512)])   # 90.5 units from a across the diagonal
        m.connect(a, b, width=48, door=door)
        m.add_player_start(400, 100)
        data = m.build()
        validate_map(data)                                   # no zero-length, crossing or overlapping lines
        middle = data.sector_at(224, 288)                    # halfway across, on the opening's centre line
        assert middle is not None and middle >= 2
        if door:
            assert any(line.special for line in data.lines)
        assert build_wad([Level(map=m)]).startswith(b"PWAD")


def test_room_random_point_avoids_pillars_and_walls():
    import numpy as np

    m = MapBuilder()
    room = m.add_room(0, 0, 256, 256)
    m.add_pillar(room, 64, 64, 192, 192)
    rng = np.random.default_rng(0)
    for _ in range(50):
        x, y = room.random_point(rng, margin=16)
        assert 16 <= x <= 240 and 16 <= y <= 240
        dx, dy = max(64 - x, 0, x - 192), max(64 - y, 0, y - 192)
        assert (dx * dx + dy * dy) ** 0.5 >= 15.5     # 16 from the pillar, less the rounding to whole units


def test_rooms_added_after_pillars_and_corridors_keep_their_own_outline():
    m = MapBuilder()
    a = m.add_room(0, 0, 256, 256)
    m.add_pillar(a, 64, 64, 128, 128)
    b = m.add_room(0, 320, 256, 576)
    m.connect(a, b, width=64)
    c = m.add_room(256, 320, 512, 576)
    m.add_pillar(c, 300, 400, 340, 440)
    m.connect(b, c, width=64)
    data = m.build()
    assert data.sector_at(128, 290) == 2 and data.sector_at(320, 420) is None


def test_area_is_a_sector_inside_its_room_open_on_all_sides():
    m = MapBuilder()
    room = m.add_room(0, 0, 512, 512)
    pool = m.add_area(room, [(128, 128), (384, 128), (384, 384), (128, 384)], floor_height=-16,
                      floor="NUKAGE1", damage=5, wall="STEP1")
    data = m.build()
    assert data.sector_at(256, 256) == pool
    assert data.sectors[pool].damage == 5 and data.sectors[pool].floor_height == -16
    rim = [l for l in data.lines if l.back is not None]
    assert len(rim) == 4 and all("blocking" not in l.flags for l in rim)
    room_sides = [l.front if l.front.sector == 0 else l.back for l in rim]
    assert all(side.lower == "STEP1" for side in room_sides)


def test_integer_tests_on_the_grid_answer_as_fractions_do():
    """planar's tests on 256 x the coordinates (every map coordinate lies on the 1/256 grid) give the points the
    Fraction arithmetic gives: crossings, touching ends, collinear overlaps, degenerate segments, and points off
    the grid (which take the Fraction path)."""
    import random
    from fractions import Fraction

    from wadgym.wads import planar

    def reference(a, b, c, d):
        (ax, ay), (bx, by), (cx, cy), (dx, dy) = a, b, c, d
        rx, ry, sx, sy = bx - ax, by - ay, dx - cx, dy - cy
        denom = rx * sy - ry * sx
        if denom == 0:
            if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) != 0:
                return []
            def on(p, u, v):
                return ((v[0] - u[0]) * (p[1] - u[1]) - (v[1] - u[1]) * (p[0] - u[0]) == 0
                        and min(u[0], v[0]) <= p[0] <= max(u[0], v[0]) and min(u[1], v[1]) <= p[1] <= max(u[1], v[1]))
            return [p for p in (a, b, c, d) if on(p, a, b) and on(p, c, d)]
        t = ((cx - ax) * sy - (cy - ay) * sx) / denom
        u = ((cx - ax) * ry - (cy - ay) * rx) / denom
        return [(ax + t * rx, ay + t * ry)] if 0 <= t <= 1 and 0 <= u <= 1 else []

    rng = random.Random(0)
    def point(grid):
        if grid:
            return tuple(Fraction(rng.randint(-8, 8) * rng.choice([256, 64, 1]), 256) for _ in range(2))
        return tuple(Fraction(rng.randint(-8, 8), rng.choice([3, 7, 256])) for _ in range(2))

    kinds = Counter()
    for _ in range(20_000):
        points = [point(rng.random() < 0.9) for _ in range(4)]
        if rng.random() < 0.3:
            points[2] = points[rng.choice([0, 1])]      # touching ends
        if rng.random() < 0.1:
            points[1] = points[0]                       # a segment of one point
        if rng.random() < 0.3:                          # collinear, overlapping or not
            (x0, y0), (x1, y1) = points[0], points[1]
            k, m = Fraction(rng.randint(-4, 8), 4), Fraction(rng.randint(-4, 8), 4)
            points[2], points[3] = (x0 + k * (x1 - x0), y0 + k * (y1 - y0)), (x0 + m * (x1 - x0), y0 + m * (y1 - y0))
        found = planar.segment_intersections(*points)
        assert found == reference(*points), points
        kinds[len(found)] += 1
        p = points[0]
        assert planar.on_segment(*p, *points[2], *points[3]) == (p in reference(p, p, points[2], points[3]))
    assert kinds[0] and kinds[1] and kinds[2]    # misses, single points and overlaps all met
