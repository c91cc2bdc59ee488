"""Levels packed into a PWAD: per map TEXTMAP, BEHAVIOR, SCRIPTS; ACS libraries (A_START..A_END, LOADACS),
DECORATE and MAPINFO once."""

from __future__ import annotations

import dataclasses
import os
import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wadgym.files import read_wad, write_atomic

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

Compiler = Callable[..., bytes]


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


@dataclass(frozen=True)
class Library:
    """An ACS library the WAD carries: a lump between A_START and A_END, which the engine loads when a
    map's scripts (or another library) import it, or at every map when ``autoload`` names it in LOADACS.

    `name` is the lump name, and must be what the library's `#library "name"` line says; a level's scripts
    (or another library's) import it as `#import "<name in lower case>.acs"` (`filename`). Give its ACS
    `scripts` (compiled by build_wad's compiler) or a compiled `behavior`.
    """

    name: str
    scripts: str | None = None
    behavior: bytes | None = None
    autoload: bool = False

    @property
    def filename(self) -> str:
        """The name `#import` finds this library's source by."""
        return f"{self.name.lower()}.acs"


def build_wad(levels: Level | Sequence[Level], compiler: Compiler | None = None,
              libraries: Sequence[Library] = ()) -> bytes:
    """Validate and pack `levels` (and ACS `libraries`) into PWAD bytes (deterministic: the same inputs, the
    same bytes).

    `compiler(source_text, filename) -> bytes` compiles the scripts of levels and libraries that have no
    behavior; when libraries are given as source, it is called as `compiler(source_text, filename, files=...)`
    with their sources by `Library.filename`, so that scripts can `#import` them (wadgym.acs.compile_source
    takes that argument).
    """
    if isinstance(levels, Level):
        levels = [levels]
    if not levels:
        raise ValueError("build_wad: no levels given")
    _check_level_names(levels)
    libraries = _checked_libraries(libraries)
    files = {library.filename: library.scripts for library in libraries if library.behavior is None and library.scripts}
    actors = _merged_actors(levels)
    lumps: list[tuple[str, bytes]] = []
    objects: list[tuple[str, bytes]] = []   # (where, compiled BEHAVIOR), to check what each imports
    for level in levels:
        where = level.name
        data = level.map_data()
        ednums = validate_map(data, actors, where)
        behavior = _behavior(level, compiler, files)
        objects.append((where, behavior))
        lumps.append((level.name, b""))
        lumps.append(("TEXTMAP", to_textmap(data, ednums).encode("utf-8")))
        lumps.append(("BEHAVIOR", behavior))
        if level.scripts:
            lumps.append(("SCRIPTS", level.scripts.encode("utf-8")))
        lumps.append(("ENDMAP", b""))
    if libraries:
        lumps.append(("A_START", b""))
        for library in libraries:
            behavior = _library_behavior(library, compiler, files)
            objects.append((f"library {library.name}", behavior))
            lumps.append((library.name.upper(), behavior))
        lumps.append(("A_END", b""))
        _check_imports(objects, libraries)
        autoload = [library.name.upper() for library in libraries if library.autoload]
        if autoload:
            lumps.append(("LOADACS", "".join(name + "\n" for name in autoload).encode("ascii")))
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
            raise ValueError(f"{level.name}: unknown sky texture {level.sky!r}"
                             f"{iwad.suggest(level.sky, iwad.textures())}")


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


def _behavior(level: Level, compiler: Compiler | None, files: dict[str, str]) -> bytes:
    if level.behavior is not None:
        return bytes(level.behavior)
    if not level.scripts:
        return EMPTY_BEHAVIOR
    return _compiled(f"{level.name}: the level", level.scripts, f"{level.name}.acs", compiler, files)


def _compiled(what: str, scripts: str, filename: str, compiler: Compiler | None, files: dict[str, str]) -> bytes:
    if compiler is None:
        raise ValueError(f"{what} has ACS scripts but build_wad got no compiler "
                         f"(pass compiler=wadgym.acs.compile_source)")
    if files:
        return bytes(compiler(scripts, filename, files=files))
    return bytes(compiler(scripts, filename))


def _checked_libraries(libraries: Sequence[Library]) -> list[Library]:
    if isinstance(libraries, Library):
        libraries = [libraries]
    seen = set()
    for library in libraries:
        if not isinstance(library, Library):
            raise TypeError(f"libraries: expected wadgym.wads.Library items, got {type(library).__name__}")
        name = library.name
        if not isinstance(name, str) or not _LUMP_NAME.match(name.upper()):
            raise ValueError(f"library name {name!r}: a library's lump name is 1-8 letters, digits or '_', "
                             "starting with a letter, e.g. 'MYLIB'")
        if name.upper() in seen:
            raise ValueError(f"library name {name!r} is used twice in one WAD")
        seen.add(name.upper())
        if library.behavior is None and not library.scripts:
            raise ValueError(f"library {name}: give its ACS source (scripts=) or its compiled lump (behavior=)")
        if library.scripts is not None and not isinstance(library.scripts, str):
            raise ValueError(f"library {name}: scripts must be ACS source text")
    return list(libraries)


def _library_behavior(library: Library, compiler: Compiler | None, files: dict[str, str]) -> bytes:
    where = f"library {library.name}"
    if library.behavior is not None:
        behavior = bytes(library.behavior)
    else:
        behavior = _compiled(where, library.scripts, library.filename, compiler, files)
    if b"ALIB" not in _acs_chunks(behavior):
        raise ValueError(f"{where}: the lump is not a compiled ACS library (its source must start with "
                         f"#library \"{library.name.lower()}\")")
    return behavior


def _check_imports(objects: list[tuple[str, bytes]], libraries: Sequence[Library]) -> None:
    """Every library a map or library imports (its LOAD chunk) must be one of the WAD's library lumps."""
    names = {library.name.upper() for library in libraries}
    for where, behavior in objects:
        for name in [name.decode("latin-1") for load in _acs_chunks(behavior).get(b"LOAD", [])
                     for name in load.split(b"\0") if name]:
            if name.upper() not in names:
                raise ValueError(f"{where}: its scripts import library {name!r}, which is not among the WAD's "
                                 f"libraries ({', '.join(sorted(names))}); its #library line must name its lump")


def _acs_chunks(behavior: bytes) -> dict[bytes, list[bytes]]:
    """The chunks (tag -> payloads) of a compiled ACS object in ZDoom's layout ('ACS\\0' with 'ACSe'/'ACSE' before
    the directory, or 'ACSe'/'ACSE' first); none for anything else."""
    if len(behavior) < 16 or behavior[:3] != b"ACS":
        return {}
    directory = struct.unpack_from("<I", behavior, 4)[0]
    if behavior[3] != 0:
        start, end = directory, len(behavior)
    elif 16 <= directory <= len(behavior) and behavior[directory - 4:directory] in (b"ACSe", b"ACSE"):
        start, end = struct.unpack_from("<I", behavior, directory - 8)[0], directory - 8
    else:
        return {}   # Hexen's layout has no chunks
    chunks: dict[bytes, list[bytes]] = {}
    while 0 < start and start + 8 <= end:
        tag, size = behavior[start:start + 4], struct.unpack_from("<I", behavior, start + 4)[0]
        chunks.setdefault(tag, []).append(behavior[start + 8:start + 8 + size])
        start += 8 + size
    return chunks


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
    return read_wad(data)


def write_wad(path: str | os.PathLike, data: bytes) -> None:
    """Write WAD bytes to `path` atomically (see write_atomic)."""
    write_atomic(path, data)
