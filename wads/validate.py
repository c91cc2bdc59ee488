"""Checks a finished map before anything is written; each problem is a ValueError naming the element."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from . import iwad
from .decorate import Actor
from .mapdata import MapData
from .planar import bbox, cross, spatial_grid

PLAYER1_START = 1


def validate_map(data: MapData, actors: Sequence[Actor] = (), where: str = "map") -> list[int]:
    """Check geometry, textures and things; return the editor number of each thing."""
    _check_references(data, where)
    _check_lengths(data, where)
    _check_crossings(data, where)
    _check_closed_sectors(data, where)
    _check_textures(data, where)
    ednums = resolve_things(data, actors, where)
    _check_things_inside(data, where)
    starts = [i for i, n in enumerate(ednums) if n == PLAYER1_START]
    if not starts:
        raise ValueError(f"{where}: no player start; add one with add_player_start(x, y, angle)")
    if len(starts) > 1:
        raise ValueError(f"{where}: {len(starts)} player 1 starts (things {starts}); the extra ones would "
                         f"spawn voodoo dolls, keep one")
    return ednums


def _check_references(data: MapData, where: str) -> None:
    if not data.lines:
        raise ValueError(f"{where}: the map has no lines; add a room")
    for i, line in enumerate(data.lines):
        for v in (line.v1, line.v2):
            if not 0 <= v < len(data.vertices):
                raise ValueError(f"{where}: line {i} uses vertex {v}, which does not exist")
        for side in (line.front, line.back):
            if side is not None and not 0 <= side.sector < len(data.sectors):
                raise ValueError(f"{where}: line {i} faces sector {side.sector}, which does not exist")


def _check_lengths(data: MapData, where: str) -> None:
    for i, line in enumerate(data.lines):
        if data.vertices[line.v1] == data.vertices[line.v2]:
            raise ValueError(f"{where}: zero-length {data.line_label(i)}")


def _between(p, a, b) -> bool:
    """p (collinear with a-b) lies strictly inside the segment."""
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]) \
        and p != a and p != b


def lines_conflict(a, b, c, d) -> str | None:
    """'overlaps' or 'crosses' when segments a-b and c-d meet other than at a shared endpoint.

    Coordinates sit on a 1/256 grid, so these float products are exact.
    """
    d1, d2, d3, d4 = cross(*c, *d, *a), cross(*c, *d, *b), cross(*a, *b, *c), cross(*a, *b, *d)
    if d1 == d2 == 0:   # collinear
        if {a, b} == {c, d} or any(_between(p, a, b) for p in (c, d)) or any(_between(p, c, d) for p in (a, b)):
            return "overlaps"
        return None
    if ((d1 > 0) != (d2 > 0) and d1 != 0 and d2 != 0) and ((d3 > 0) != (d4 > 0) and d3 != 0 and d4 != 0):
        return "crosses"
    # An endpoint of one lying inside the other: a T-junction the lines do not share as a vertex.
    for p, s, e, dp in ((a, c, d, d1), (b, c, d, d2), (c, a, b, d3), (d, a, b, d4)):
        if dp == 0 and _between(p, s, e):
            return "crosses"
    return None


def _check_crossings(data: MapData, where: str) -> None:
    points = [(data.vertices[l.v1], data.vertices[l.v2]) for l in data.lines]
    grid = spatial_grid((i, bbox(line)) for i, line in enumerate(points))
    checked = set()
    for members in grid.values():
        for k, i in enumerate(members):
            for j in members[k + 1:]:
                if (i, j) in checked:
                    continue
                checked.add((i, j))
                conflict = lines_conflict(*points[i], *points[j])
                if conflict:
                    raise ValueError(f"{where}: {data.line_label(i)} {conflict} {data.line_label(j)}")


def _check_closed_sectors(data: MapData, where: str) -> None:
    """Every sector's sides chain into closed loops: at each vertex as many lines arrive as leave."""
    balance: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for line in data.lines:
        # The sector is on the right walking v1 -> v2 for the front side, v2 -> v1 for the back.
        balance[line.front.sector][line.v1] += 1
        balance[line.front.sector][line.v2] -= 1
        if line.back is not None:
            balance[line.back.sector][line.v2] += 1
            balance[line.back.sector][line.v1] -= 1
    for sector in range(len(data.sectors)):
        if sector not in balance:
            raise ValueError(f"{where}: {data.sector_label(sector)} has no lines")
        for vertex, excess in sorted(balance[sector].items()):
            if excess:
                x, y = data.vertices[vertex]
                raise ValueError(f"{where}: {data.sector_label(sector)} is not closed: its outline breaks "
                                 f"at vertex {vertex} ({x:g}, {y:g})")


def _check_textures(data: MapData, where: str) -> None:
    walls, flats = iwad.textures(), iwad.flats()
    for i, sector in enumerate(data.sectors):
        for kind, name in (("floor", sector.floor), ("ceiling", sector.ceiling)):
            if name.upper() not in flats:
                raise ValueError(f"{where}: {data.sector_label(i)}: unknown {kind} flat {name!r}"
                                 f"{iwad.suggest(name, flats)}")
    for i, line in enumerate(data.lines):
        for side in (line.front, line.back):
            for name in (side.upper, side.middle, side.lower) if side else ():
                if name != "-" and name.upper() not in walls:
                    raise ValueError(f"{where}: {data.line_label(i)}: unknown wall texture {name!r}"
                                     f"{iwad.suggest(name, walls)}")


def resolve_things(data: MapData, actors: Sequence[Actor], where: str) -> list[int]:
    """Editor numbers for the things: custom actor names, stock actor names or known numbers."""
    custom = {a.name.lower(): a for a in actors}
    stock_by_name = {k.lower(): v for k, v in iwad.stock_ednums().items()}
    known_numbers = set(stock_by_name.values()) | {a.ednum for a in actors if a.ednum is not None}
    ednums = []
    for i, thing in enumerate(data.things):
        label = f"thing {i} ({thing.kind!r} at ({thing.x:g}, {thing.y:g}))"
        if isinstance(thing.kind, int):
            if thing.kind not in known_numbers:
                raise ValueError(f"{where}: {label}: no actor has editor number {thing.kind}")
            ednums.append(thing.kind)
            continue
        name = thing.kind.lower()
        if name in custom:
            if custom[name].ednum is None:
                raise ValueError(f"{where}: {label}: actor {thing.kind!r} has no ednum, so it cannot be placed; "
                                 f"give it one (e.g. ednum=20001)")
            ednums.append(custom[name].ednum)
        elif name in stock_by_name:
            ednums.append(stock_by_name[name])
        elif name in iwad.stock_actors():
            raise ValueError(f"{where}: {label}: stock actor {thing.kind!r} has no editor number; spawn it from ACS "
                             f"or place a custom Actor inheriting from it")
        else:
            names = list(iwad.stock_ednums()) + [a.name for a in actors]
            raise ValueError(f"{where}: {label}: unknown actor {thing.kind!r}{iwad.suggest(thing.kind, names)}")
    return ednums


def _check_things_inside(data: MapData, where: str) -> None:
    for i, thing in enumerate(data.things):
        if data.sector_at(thing.x, thing.y) is None:
            raise ValueError(f"{where}: thing {i} ({thing.kind!r} at ({thing.x:g}, {thing.y:g})) is outside "
                             f"every sector")
