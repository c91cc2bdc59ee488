"""Levels packed into a PWAD: per map TEXTMAP, BEHAVIOR, SCRIPTS; DECORATE and MAPINFO once."""

from __future__ import annotations

import dataclasses
import os
import re
import struct
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from . import iwad
from .decorate import Actor, decorate_text
from .geometry import MapBuilder
from .mapdata import MapData
from .mapinfo import mapinfo_text
from .udmf import to_textmap
from .validate import validate_map

# A compiled ACS module with no scripts. The reference compiler writes 24 bytes for an empty file, which
# the engine rejects as "invalid ACS module" (it needs at least 32); an empty SPTR chunk makes it a
# well-formed ACSe module of 32 bytes that loads silently: header, chunk, chunk offset, tag, directory.
EMPTY_BEHAVIOR = (b"ACS\0" + struct.pack("<I", 24) + b"SPTR" + struct.pack("<I", 0) + struct.pack("<I", 8)
                  + b"ACSe" + struct.pack("<II", 0, 0))
_LUMP_NAME = re.compile(r"^[A-Z][A-Z0-9_]{0,7}$")

Compiler = Callable[[str, str], bytes]


@dataclass
class Level:
    """One map of a WAD: its layout, its ACS (source to compile, or compiled bytes) and custom actors."""

    map: MapBuilder | MapData
    name: str = "MAP01"
    scripts: str | None = None          # ACS source; compiled by build_wad's compiler unless behavior is given
    behavior: bytes | None = None       # a compiled BEHAVIOR lump
    actors: Sequence[Actor] = field(default_factory=list)
    title: str = ""
    sky: str = "SKY1"

    def map_data(self) -> MapData:
        """The finished map: built now from a MapBuilder (every call builds again), or the MapData given."""
        return self.map.build() if isinstance(self.map, MapBuilder) else self.map

    def built(self) -> Level:
        """This level with its map built once, for several users of the same map: `level = level.built()`,
        then `build_wad([level])` and `write_preview(path, level)` share that one build."""
        return dataclasses.replace(self, map=self.map_data())


def build_wad(levels: Level | Sequence[Level], compiler: Compiler | None = None) -> bytes:
    """Validate and pack `levels` into PWAD bytes (deterministic: the same inputs, the same bytes).

    `compiler(source_text, filename) -> bytes` compiles the scripts of levels that have no behavior.
    """
    if isinstance(levels, Level):
        levels = [levels]
    if not levels:
        raise ValueError("build_wad: no levels given")
    _check_level_names(levels)
    actors = _merged_actors(levels)
    lumps: list[tuple[str, bytes]] = []
    for level in levels:
        where = level.name
        data = level.map_data()
        ednums = validate_map(data, actors, where)
        lumps.append((level.name, b""))
        lumps.append(("TEXTMAP", to_textmap(data, ednums).encode("utf-8")))
        lumps.append(("BEHAVIOR", _behavior(level, compiler)))
        if level.scripts:
            lumps.append(("SCRIPTS", level.scripts.encode("utf-8")))
        lumps.append(("ENDMAP", b""))
    if actors:
        lumps.append(("DECORATE", decorate_text(actors).encode("utf-8")))
    lumps.append(("MAPINFO", mapinfo_text(levels).encode("utf-8")))
    return pack_wad(lumps)


def _check_level_names(levels: Sequence[Level]) -> None:
    seen = set()
    for level in levels:
        if not _LUMP_NAME.match(level.name):
            raise ValueError(f"level name {level.name!r}: a map name is 1-8 upper-case letters/digits, e.g. 'MAP01'")
        if level.name in seen:
            raise ValueError(f"level name {level.name!r} is used twice in one WAD")
        seen.add(level.name)
        if level.scripts is not None and not isinstance(level.scripts, str):
            raise ValueError(f"{level.name}: scripts must be ACS source text")
        if level.sky.upper() not in iwad.textures():
            raise ValueError(f"{level.name}: unknown sky texture {level.sky!r}{iwad.suggest(level.sky, iwad.textures())}")


def _merged_actors(levels: Sequence[Level]) -> list[Actor]:
    """The custom actors of all levels (DECORATE is one lump per WAD); the same name must mean the same actor."""
    merged: dict[str, Actor] = {}
    for level in levels:
        for actor in level.actors:
            key = actor.name.lower()
            if key in merged and merged[key] != actor:
                raise ValueError(f"{level.name}: actor {actor.name!r} differs from another level's actor of that name")
            merged.setdefault(key, actor)
    return list(merged.values())


def _behavior(level: Level, compiler: Compiler | None) -> bytes:
    if level.behavior is not None:
        return bytes(level.behavior)
    if not level.scripts:
        return EMPTY_BEHAVIOR
    if compiler is None:
        raise ValueError(f"{level.name}: the level has ACS scripts but build_wad got no compiler "
                         f"(pass compiler=wadgym.acs.compile_source)")
    return bytes(compiler(level.scripts, f"{level.name}.acs"))


def pack_wad(lumps: Sequence[tuple[str, bytes]]) -> bytes:
    """A PWAD of `lumps` in order: header, lump data, directory."""
    body = bytearray()
    directory = bytearray()
    offset = 12
    for name, data in lumps:
        directory += struct.pack("<ii8s", offset, len(data), name.encode("ascii"))
        body += data
        offset += len(data)
    return b"PWAD" + struct.pack("<ii", len(lumps), offset) + bytes(body) + bytes(directory)


def read_lumps(data: bytes) -> list[tuple[str, bytes]]:
    """(name, bytes) of each lump of a WAD, in order."""
    from .iwad import read_wad_directory

    return [(name, data[offset:offset + size]) for name, offset, size in read_wad_directory(data)]


def write_wad(path: str | os.PathLike, data: bytes) -> None:
    """Write WAD bytes to `path` atomically (see write_atomic)."""
    write_atomic(path, data)


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` atomically (see write_all_atomic)."""
    write_all_atomic([(path, data)])


def write_all_atomic(files: Iterable[tuple[str | os.PathLike, bytes]]) -> None:
    """Write each (path, data) atomically, all or none: every file first to a temporary one beside it
    (`.<name>.<random>.tmp`, so that a killed writer's leftover names its target), then the renames.
    When writing any of them fails, nothing is renamed and the temporary files are removed."""
    staged: list[tuple[str, str]] = []
    try:
        for path, data in files:
            path = os.fspath(path)
            folder = os.path.dirname(os.path.abspath(path))
            fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
            staged.append((temporary, path))
            with os.fdopen(fd, "wb") as f:
                os.fchmod(f.fileno(), 0o666 & ~_umask())
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for temporary, path in staged:
            os.replace(temporary, path)
    except BaseException:
        for temporary, _ in staged:
            if os.path.exists(temporary):
                os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
