"""The finished map as plain data (vertices, lines, sides, sectors, things) between layout and UDMF."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Sector:
    floor_height: int = 0
    ceiling_height: int = 128
    floor: str = "FLOOR0_1"
    ceiling: str = "CEIL1_1"
    light: int = 160
    special: int = 0
    tag: int = 0
    damage: int = 0                 # health lost every 32 tics standing on the floor (lava, slime)
    label: str = ""                 # what made it ("room 2 'hall'"), for error messages


@dataclass
class Side:
    sector: int
    upper: str = "-"
    middle: str = "-"
    lower: str = "-"
    offset_x: float = 0.0


@dataclass
class Line:
    v1: int
    v2: int
    front: Side                     # on the right of v1 -> v2
    back: Side | None = None
    special: int = 0
    args: tuple[int, ...] = (0, 0, 0, 0, 0)
    flags: tuple[str, ...] = ()     # UDMF boolean keys set true: "blocking", "playeruse" ...
    tag: int = 0                    # line id for ACS
    label: str = ""


@dataclass
class Thing:
    kind: str | int                 # actor name (stock or custom) or editor number
    x: float
    y: float
    angle: int = 0                  # degrees, 0 = east, 90 = north
    tid: int = 0
    z: float = 0.0                  # height above the floor
    skills: tuple[int, ...] = (1, 2, 3, 4, 5)
    modes: tuple[str, ...] = ("single", "coop", "dm")
    flags: tuple[str, ...] = ()     # "ambush", "dormant", "friend", "standing", "translucent", "invisible"
    special: int = 0
    args: tuple[int, ...] = (0, 0, 0, 0, 0)


@dataclass
class MapData:
    vertices: list[tuple[float, float]] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    sectors: list[Sector] = field(default_factory=list)
    things: list[Thing] = field(default_factory=list)

    def line_label(self, index: int) -> str:
        line = self.lines[index]
        (x1, y1), (x2, y2) = self.vertices[line.v1], self.vertices[line.v2]
        where = f"line {index} from ({x1:g}, {y1:g}) to ({x2:g}, {y2:g})"
        return f"{where} ({line.label})" if line.label else where

    def sector_label(self, index: int) -> str:
        label = self.sectors[index].label
        return f"sector {index} ({label})" if label else f"sector {index}"

    def sector_at(self, x: float, y: float) -> int | None:
        """The sector containing (x, y), found by casting a ray east to the nearest line; None in the void."""
        best_x, best_sector = None, None
        for line in self.lines:
            (x1, y1), (x2, y2) = self.vertices[line.v1], self.vertices[line.v2]
            if (y1 > y) == (y2 > y):
                continue
            cross_x = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if cross_x < x or (best_x is not None and cross_x >= best_x):
                continue
            # The ray runs east; a line heading north has its right (front) side to the east.
            side = line.back if y2 > y1 else line.front
            best_x, best_sector = cross_x, (side.sector if side is not None else None)
        return best_sector
