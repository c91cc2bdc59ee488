"""Planar arrangement of layered polygons: split every outline where others touch or cross it, then
find which polygon is on top on each side of each piece. Exact rational arithmetic throughout, so
shared walls become one line and no sliver or overlap survives.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

Point = tuple[Fraction, Fraction]
CELL = 256  # spatial-hash cell size in map units


def exact(value: float | int | Fraction) -> Fraction:
    """A map coordinate as an exact number on a 1/256 grid (UDMF stores 16.16 fixed point)."""
    if isinstance(value, Fraction):
        return value
    return Fraction(round(float(value) * 256), 256)


def cross(ox, oy, ax, ay, bx, by):
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


def signed_area(points: Sequence[Point]) -> Fraction:
    total = Fraction(0)
    for (x1, y1), (x2, y2) in zip(points, list(points[1:]) + [points[0]]):
        total += x1 * y2 - x2 * y1
    return total / 2


def point_in_polygon(x, y, points: Sequence[Point]) -> bool:
    """Even-odd test; only called for points known not to lie on the outline."""
    inside = False
    n = len(points)
    for i in range(n):
        x1, y1 = points[i]
        x2, y2 = points[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def on_segment(px, py, ax, ay, bx, by) -> bool:
    """(px, py) lies on the closed segment a-b (on the integers where every coordinate lies on the 1/256 grid)."""
    (px, py, ax, ay, bx, by), _ = _on_grid(px, py, ax, ay, bx, by)
    return _on_segment(px, py, ax, ay, bx, by)


def _on_segment(px, py, ax, ay, bx, by) -> bool:
    return (
        cross(ax, ay, bx, by, px, py) == 0
        and min(ax, bx) <= px <= max(ax, bx)
        and min(ay, by) <= py <= max(ay, by)
    )


def grid_delta(p: Point, q: Point) -> tuple[int, int] | None:
    """q - p x 256 as ints where both lie on the 1/256 grid, else None: signs of cross and dot products of such
    vectors are those of the map's, for integer arithmetic's price."""
    (x0, y0, x1, y1), scale = _on_grid(*p, *q)
    return (x1 - x0, y1 - y0) if scale == 256 else None


def _grid(value) -> int | None:
    """`value` x 256 as an int where it lies on the 1/256 grid (exact() makes every map coordinate so), else None."""
    if isinstance(value, Fraction):
        denominator = value.denominator
        return value.numerator * (256 // denominator) if 256 % denominator == 0 else None
    return value * 256 if isinstance(value, int) else None


def _on_grid(*values) -> tuple[tuple, int]:
    """(the values x 256 as ints, 256) where every one lies on the 1/256 grid, else (the values, 1): exact either
    way, the integers tens of times faster than Fractions."""
    scaled = tuple(_grid(v) for v in values)
    return (values, 1) if None in scaled else (scaled, 256)


def segment_intersections(a: Point, b: Point, c: Point, d: Point) -> list[Point]:
    """Points where segments a-b and c-d meet: one crossing, or the endpoints of a collinear overlap. Where all
    eight coordinates lie on the 1/256 grid (nearly always), the tests run on integers (256 x the coordinates),
    and only a crossing point is made a Fraction."""
    coordinates, scale = _on_grid(*a, *b, *c, *d)
    ax, ay, bx, by, cx, cy, dx, dy = coordinates
    rx, ry, sx, sy = bx - ax, by - ay, dx - cx, dy - cy
    denom = rx * sy - ry * sx
    if denom == 0:
        if cross(ax, ay, bx, by, cx, cy) != 0:
            return []
        ends = zip((a, b, c, d), coordinates[::2], coordinates[1::2])
        return [p for p, px, py in ends if _on_segment(px, py, ax, ay, bx, by) and _on_segment(px, py, cx, cy, dx, dy)]
    t = (cx - ax) * sy - (cy - ay) * sx   # t and u times denom
    u = (cx - ax) * ry - (cy - ay) * rx
    if denom < 0:
        denom, t, u = -denom, -t, -u
    if 0 <= t <= denom and 0 <= u <= denom:
        return [(_ratio(ax * denom + t * rx, scale * denom), _ratio(ay * denom + t * ry, scale * denom))]
    return []


def _ratio(numerator, denominator) -> Fraction:
    """numerator / denominator, exact: a Fraction of two ints (the grid's integers) or the Fractions' quotient."""
    if isinstance(numerator, int) and isinstance(denominator, int):
        return Fraction(numerator, denominator)
    return numerator / denominator


def edges_of(points: Sequence[Point]) -> list[tuple[Point, Point]]:
    return [(points[i], points[(i + 1) % len(points)]) for i in range(len(points))]


def cells(a: Point, b: Point) -> Iterable[tuple[int, int]]:
    x0, x1 = sorted((a[0], b[0]))
    y0, y1 = sorted((a[1], b[1]))
    for cx in range(int(x0 // CELL), int(x1 // CELL) + 1):
        for cy in range(int(y0 // CELL), int(y1 // CELL) + 1):
            yield cx, cy


def self_crossing(points: Sequence[Point]) -> tuple[int, int, Point] | None:
    """(edge i, edge j, where) for the first pair of non-adjacent edges of an outline that meet."""
    edges = edges_of(points)
    n = len(edges)
    for i in range(n):
        for j in range(i + 1, n):
            hits = segment_intersections(*edges[i], *edges[j])
            adjacent = j == i + 1 or (i == 0 and j == n - 1)
            shared = edges[i][1] if j == i + 1 else edges[i][0]
            bad = [p for p in hits if not (adjacent and p == shared)]
            if bad:
                return i, j, bad[0]
    return None


@dataclass(frozen=True)
class Piece:
    """A piece of outline between two arrangement vertices and the regions on its left and right."""
    a: Point
    b: Point
    left: int | None     # index of the topmost region on the left of a -> b, None for the void
    right: int | None


def arrange(outlines: Sequence[Sequence[Point]], cuts: Sequence[Point] = ()) -> list[Piece]:
    """Split the counter-clockwise `outlines` (later ones lie on top) into pieces, each with the
    topmost outline on either side; outlines are also split at the `cuts` points lying on them.
    Pieces with the same region on both sides are dropped."""
    edges = [(r, p, q) for r, pts in enumerate(outlines) for p, q in edges_of(pts)]
    splits = _split_points(edges, cuts)
    owners: dict[tuple[Point, Point], list[tuple[int, bool]]] = {}
    for index, (region, p, _q) in enumerate(edges):
        ordered = sorted(splits[index], key=lambda s: (s[0] - p[0]) ** 2 + (s[1] - p[1]) ** 2)
        for a, b in zip(ordered, ordered[1:]):
            if a == b:
                continue
            key = (a, b) if a < b else (b, a)
            # Outlines run counter-clockwise: the region is on the left of its own edge.
            owners.setdefault(key, []).append((region, key == (a, b)))
    boxes = [bbox(pts) for pts in outlines]
    region_grid = spatial_grid(enumerate(boxes))
    pieces = []
    for (a, b), owned in owners.items():
        left, right = _top_regions(a, b, owned, outlines, boxes, region_grid)
        if left != right:
            pieces.append(Piece(a, b, left, right))
    return pieces


def _split_points(edges, cuts) -> list[list[Point]]:
    """For each edge, its endpoints plus every point where another edge or a cut meets it."""
    splits = [[p, q] for _, p, q in edges]
    grid = spatial_grid((index, bbox((p, q))) for index, (_, p, q) in enumerate(edges))
    for point in cuts:
        for index in grid.get((int(point[0] // CELL), int(point[1] // CELL)), ()):
            _, p, q = edges[index]
            if on_segment(*point, *p, *q):
                splits[index].append(point)
    # Float boxes reject most pairs cheaply (they are exact enough to never reject a touching pair:
    # coordinates on a 1/256 grid convert to floats exactly).
    boxes = [(float(min(p[0], q[0])), float(min(p[1], q[1])), float(max(p[0], q[0])), float(max(p[1], q[1])))
             for _, p, q in edges]
    checked = set()
    for members in grid.values():
        for i_pos, i in enumerate(members):
            bi = boxes[i]
            for j in members[i_pos + 1 :]:
                bj = boxes[j]
                if bi[2] < bj[0] or bj[2] < bi[0] or bi[3] < bj[1] or bj[3] < bi[1] or (i, j) in checked:
                    continue
                checked.add((i, j))
                _, p, q = edges[i]
                _, r, s = edges[j]
                for point in segment_intersections(p, q, r, s):
                    splits[i].append(point)
                    splits[j].append(point)
    return [list(dict.fromkeys(s)) for s in splits]


def bbox(points):
    """(x0, y0, x1, y1): the smallest box holding `points`."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def spatial_grid(items) -> dict[tuple[int, int], list[int]]:
    """CELL-sized cell -> the indices of the (index, (x0, y0, x1, y1)) `items` whose boxes reach into it."""
    grid: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index, (x0, y0, x1, y1) in items:
        for cell in cells((x0, y0), (x1, y1)):
            grid[cell].append(index)
    return grid


def _top_regions(a, b, owned, outlines, boxes, region_grid):
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    on_left = {r for r, left in owned if left}
    on_right = {r for r, left in owned if not left}
    boundary = on_left | on_right
    candidates = sorted(set(region_grid.get((int(mx // CELL), int(my // CELL)), ())) | boundary, reverse=True)
    left_top = right_top = None
    for r in candidates:
        if left_top is not None and right_top is not None:
            break
        if r in boundary:
            in_left, in_right = r in on_left, r in on_right
        else:
            x0, y0, x1, y1 = boxes[r]
            if not (x0 <= mx <= x1 and y0 <= my <= y1):
                continue
            in_left = in_right = point_in_polygon(mx, my, outlines[r])
        if left_top is None and in_left:
            left_top = r
        if right_top is None and in_right:
            right_top = r
    return left_top, right_top
