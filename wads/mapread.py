"""Reading anyone's WAD: its maps (Doom, Hexen or UDMF format), their things and line specials, and the
actor classes its DECORATE defines. What wadgym needs to play a hand-made map, read without an engine.

    maps = read_maps("my_level.wad")          # {"MAP01": MapSummary, ...}; ValueError: missing, not a WAD
    maps["MAP01"].player_starts, maps["MAP01"].exits, maps["MAP01"].classes()
    maps["MAP01"].walls                       # its lines as (x1, y1, x2, y2, one-sided), e.g. to draw the map
"""

from __future__ import annotations

import functools
import os
import re
import struct
from dataclasses import dataclass, field

from . import iwad
from .wad import read_lumps

DOOM_LUMPS = ("THINGS", "LINEDEFS", "SIDEDEFS", "VERTEXES", "SEGS", "SSECTORS", "NODES", "SECTORS", "REJECT",
              "BLOCKMAP", "BEHAVIOR", "SCRIPTS")
# Line (and, in Hexen/UDMF, thing) specials that end the map. Doom numbering: S1/W1/G1 exits and secret
# exits (Boom's G1 too); Hexen numbering (Hexen maps, UDMF's zdoom/hexen namespaces): Teleport_NewMap,
# Teleport_EndGame, Exit_Normal, Exit_Secret.
DOOM_EXITS = frozenset({11, 51, 52, 124, 197, 198})
HEXEN_EXITS = frozenset({74, 75, 243, 244})
PLAYER_START = 1  # editor number of Player1Start
DEATHMATCH_START = 11  # editor number of DeathmatchStart: where a deathmatch spawns (and respawns) its players
SKILLS = (1, 2, 3, 4, 5)  # ViZDoom's doom_skill numbers


@dataclass(frozen=True)
class MapThing:
    ednum: int
    x: float
    y: float
    skills: frozenset[int] = frozenset(SKILLS)  # the skills it appears in
    single: bool = True                         # whether it appears in single player
    special: int = 0


@dataclass(frozen=True)
class MapSummary:
    """One map of a WAD as the engine will read it: its things, the specials of its lines, its scripts."""

    name: str
    format: str                     # "doom", "hexen" or "udmf"
    things: tuple[MapThing, ...]
    line_specials: tuple[int, ...]  # one per line (0: none)
    has_scripts: bool               # a BEHAVIOR lump: ACS may spawn things or end the map
    hexen_numbering: bool = True    # specials numbered as Hexen's (Doom maps, UDMF's "doom" namespace: Doom's)
    decorate: dict[str, tuple[str | None, int | None, str]] = field(default_factory=dict, compare=False)
    # one per line: its vertices' x1, y1, x2, y2 (map units) and whether it is one-sided (a wall, no sector behind)
    walls: tuple[tuple[float, float, float, float, bool], ...] = field(default=(), compare=False)

    @property
    def player_starts(self) -> int:
        return sum(t.ednum == PLAYER_START for t in self.things)

    @property
    def deathmatch_starts(self) -> int:
        """DeathmatchStart things (editor number 11): a deathmatch spawns its players, bots included, at them, in
        any mode and skill (the engine collects them before it reads a thing's flags)."""
        return sum(t.ednum == DEATHMATCH_START for t in self.things)

    @property
    def exits(self) -> int:
        """Lines and things whose special ends the map."""
        specials = HEXEN_EXITS if self.hexen_numbering else DOOM_EXITS
        things = [t.special for t in self.things] if self.hexen_numbering else []
        return sum(s in specials for s in (*self.line_specials, *things))

    def classes(self, skill: int | None = None) -> dict[str, int]:
        """Actor class -> how many things of it the map places in single player (at `skill`, 1..5; None:
        any); classes by the WAD's DECORATE, then the engine's Doom 2 editor numbers."""
        names = {**{v: k for k, v in iwad.stock_ednums().items()},
                 **{ednum: name for name, (_, ednum, _) in self.decorate.items() if ednum is not None}}
        counts: dict[str, int] = {}
        for t in self.things:
            if t.single and (skill is None or skill in t.skills) and t.ednum not in (PLAYER_START, DEATHMATCH_START):
                name = names.get(t.ednum, f"editor number {t.ednum}")
                counts[name] = counts.get(name, 0) + 1
        return counts

    def has_flag(self, actor: str, flag: str) -> bool:
        """Whether class `actor` (of the WAD's DECORATE or the engine's) or a parent sets `+flag` (e.g.
        "COUNTITEM", "COUNTKILL"); "ISMONSTER" also holds for a `Monster` combo."""
        seen: set[str] = set()
        name = actor.lower()
        own = {k.lower(): v for k, v in self.decorate.items()}
        while name and name not in seen:
            seen.add(name)
            if name in own:
                parent, _, body = own[name]
            else:
                parent, body = _stock_body(name)
            if _sets_flag(body, flag):
                return True
            name = parent.lower() if parent else None
        return False


def _sets_flag(body: str, flag: str) -> bool:
    words = rf"\+{flag}\b" + (r"|^\s*monster\b" if flag.upper() in ("ISMONSTER", "COUNTKILL") else "")
    return bool(re.search(words, body, re.IGNORECASE | re.MULTILINE))


@functools.cache
def _stock_bodies() -> dict[str, tuple[str | None, str]]:
    bodies: dict[str, tuple[str | None, str]] = {}
    for text in iwad.engine_texts()[0]:
        for header, body in iwad.actor_bodies(text):
            bodies[header.group(1).lower()] = (header.group(2), body)
    return bodies


def _stock_body(name: str) -> tuple[str | None, str]:
    return _stock_bodies().get(name, (None, ""))


def read_maps(path: str | os.PathLike) -> dict[str, MapSummary]:
    """Map name (upper case) -> MapSummary of every map in the WAD at `path`; a ValueError saying what is
    wrong when the file does not exist or is not a WAD."""
    shown = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"wad={shown!r}: no such file")
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] not in (b"IWAD", b"PWAD") or len(data) < 12:
        raise ValueError(f"wad={shown!r} is not a WAD (its first bytes are not IWAD or PWAD)")
    try:
        lumps = read_lumps(data)
    except (struct.error, ValueError, IndexError) as error:
        raise ValueError(f"wad={shown!r} is not a readable WAD ({error})") from None
    decorate = decorate_classes("\n".join(body.decode("latin-1") for name, body in lumps if name == "DECORATE"))
    maps: dict[str, MapSummary] = {}
    for i, (name, _) in enumerate(lumps):
        following = [n for n, _ in lumps[i + 1:i + 2]]
        if following == ["TEXTMAP"]:
            maps[name.upper()] = _udmf_map(name.upper(), lumps[i + 1:], decorate)
        elif following == ["THINGS"]:
            maps[name.upper()] = _binary_map(name.upper(), lumps[i + 1:], decorate)
    return maps


def decorate_classes(text: str) -> dict[str, tuple[str | None, int | None, str]]:
    """Class name -> (parent, editor number, body text) of each actor a DECORATE text defines."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.DOTALL)
    return {h.group(1): (h.group(2), int(h.group(3)) if h.group(3) else None, body)
            for h, body in iwad.actor_bodies(text)}


def _map_lumps(lumps: list[tuple[str, bytes]], names: tuple[str, ...]) -> dict[str, bytes]:
    """The lumps of one map: those from its marker on whose names are in `names`, up to the first other."""
    found: dict[str, bytes] = {}
    for name, body in lumps:
        if name not in names or name in found:
            break
        found[name] = body
    return found


def _binary_map(name: str, lumps, decorate) -> MapSummary:
    own = _map_lumps(lumps, DOOM_LUMPS)
    hexen = "BEHAVIOR" in own
    things, lines = own.get("THINGS", b""), own.get("LINEDEFS", b"")
    if hexen:  # tid x y z angle type flags special arg0..4; v1 v2 flags special arg0..4 side1 side2
        parsed = [_hexen_thing(*struct.unpack_from("<hhhhhhhB5B", things, k)) for k in range(0, len(things) - 19, 20)]
        records = [struct.unpack_from("<HHHB5BHH", lines, k) for k in range(0, len(lines) - 15, 16)]
    else:  # x y angle type flags; v1 v2 flags special tag side1 side2
        parsed = [_doom_thing(*struct.unpack_from("<hhhhh", things, k)) for k in range(0, len(things) - 9, 10)]
        records = [struct.unpack_from("<HHHHHHH", lines, k) for k in range(0, len(lines) - 13, 14)]
    specials = [record[3] for record in records]
    vertices = own.get("VERTEXES", b"")
    points = [struct.unpack_from("<hh", vertices, k) for k in range(0, len(vertices) - 3, 4)]
    walls = tuple(_wall(points, record[0], record[1], record[-1] == 0xFFFF) for record in records)
    return MapSummary(name, "hexen" if hexen else "doom", tuple(parsed), tuple(specials), hexen, hexen, decorate,
                      tuple(w for w in walls if w is not None))


def _wall(points, v1: int, v2: int, one_sided: bool) -> tuple[float, float, float, float, bool] | None:
    """A line's ends and sidedness (None for a line whose vertex the map lacks: drawn nowhere)."""
    if max(v1, v2) >= len(points):
        return None
    (x1, y1), (x2, y2) = points[v1], points[v2]
    return float(x1), float(y1), float(x2), float(y2), one_sided


def _skills(flags: int) -> frozenset[int]:
    """The skills of a binary map's thing flags: bit 1 easy (skills 1, 2), 2 medium (3), 4 hard (4, 5)."""
    return frozenset(s for bit, skills in ((1, (1, 2)), (2, (3,)), (4, (4, 5))) if flags & bit for s in skills)


def _doom_thing(x, y, angle, ednum, flags) -> MapThing:
    return MapThing(ednum, x, y, _skills(flags), not flags & 16)


def _hexen_thing(tid, x, y, z, angle, ednum, flags, special, *args) -> MapThing:
    return MapThing(ednum, x, y, _skills(flags), bool(flags & 0x100), special)


_BLOCK = re.compile(r'(\w+)\s*\{((?:[^{}"]|"(?:[^"\\]|\\.)*")*)\}')
_FIELD = re.compile(r'(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*);')
_NAMESPACE = re.compile(r'namespace\s*=\s*"([^"]*)"\s*;', re.IGNORECASE)


def _udmf_map(name: str, lumps, decorate) -> MapSummary:
    own = dict(lumps[:1])
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", own["TEXTMAP"].decode("latin-1"), flags=re.DOTALL)
    namespace = (_NAMESPACE.search(text) or [None, "zdoom"])[1].lower()
    behavior = any(n == "BEHAVIOR" for n, _ in lumps[:next((i for i, (n, _) in enumerate(lumps) if n == "ENDMAP"),
                                                        len(lumps))])
    things, specials, points, ends = [], [], [], []
    for block in _BLOCK.finditer(text):
        keyword, fields = block.group(1).lower(), {k.lower(): v.strip() for k, v in _FIELD.findall(block.group(2))}
        if keyword == "vertex":
            points.append((float(fields.get("x", 0)), float(fields.get("y", 0))))
        elif keyword == "thing":
            skills = frozenset(s for s in SKILLS if _true(fields.get(f"skill{s}")))
            things.append(MapThing(int(float(fields.get("type", 0))), float(fields.get("x", 0)),
                                   float(fields.get("y", 0)), skills, _true(fields.get("single")),
                                   int(fields.get("special", 0))))
        elif keyword == "linedef":
            specials.append(int(fields.get("special", 0)))
            ends.append((int(fields.get("v1", 0)), int(fields.get("v2", 0)), int(fields.get("sideback", -1)) < 0))
    hexen = namespace not in ("doom", "heretic", "strife")
    walls = (_wall(points, v1, v2, one_sided) for v1, v2, one_sided in ends)
    return MapSummary(name, "udmf", tuple(things), tuple(specials), behavior, hexen, decorate,
                      tuple(w for w in walls if w is not None))


def _true(value: str | None) -> bool:
    return value is not None and value.lower() == "true"
