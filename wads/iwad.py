"""What the engine already knows: Freedoom's textures, flats and sprites, and the stock actors.

Everything is read at runtime from the files shipped in the vizdoom wheel (freedoom2.wad and the
engine's vizdoom.pk3), located without importing vizdoom, and cached.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import os
import re
import struct
import zipfile
from dataclasses import dataclass

from wadgym.files import wad_directory

IWAD_NAME = "freedoom2.wad"
ENGINE_PK3 = "vizdoom.pk3"
# The engine reads its Doom 2 game definitions through this MAPINFO file (gameinfo mapinfo=...).
GAME_MAPINFO = "mapinfo/doomcommon.txt"


@functools.cache
def vizdoom_dir() -> str:
    """The installed vizdoom package folder (found, not imported: wads must not import vizdoom)."""
    spec = importlib.util.find_spec("vizdoom")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the vizdoom package is not installed; `pip install vizdoom` provides freedoom2.wad")
    return list(spec.submodule_search_locations)[0]


def iwad_path() -> str:
    """Path of freedoom2.wad inside the vizdoom wheel."""
    return os.path.join(vizdoom_dir(), IWAD_NAME)


def engine_pk3_path() -> str:
    return os.path.join(vizdoom_dir(), ENGINE_PK3)


def _names_between(entries, start: str, end: str) -> list[str]:
    """Lump names inside every start/end marker pair (nested sub-markers like F1_START skipped)."""
    names, inside = [], False
    for name, _, size in entries:
        if name == start:
            inside = True
        elif name == end:
            inside = False
        elif inside and size > 0:
            names.append(name)
    return names


def _texture_names(lump: bytes) -> list[str]:
    """Texture names in a TEXTURE1/TEXTURE2 lump (count, offsets, then 22-byte+ records)."""
    (count,) = struct.unpack_from("<i", lump, 0)
    offsets = struct.unpack_from(f"<{count}i", lump, 4)
    return [lump[o : o + 8].split(b"\0", 1)[0].decode("latin-1").upper() for o in offsets]


@functools.cache
def _iwad_catalogue() -> tuple[frozenset, frozenset, frozenset]:
    with open(iwad_path(), "rb") as f:
        data = f.read()
    entries = wad_directory(data)
    textures: set[str] = set()
    for name, offset, size in entries:
        if name in ("TEXTURE1", "TEXTURE2"):
            textures.update(_texture_names(data[offset : offset + size]))
    flats = set(_names_between(entries, "F_START", "F_END"))
    sprites = {n[:4] for n in _names_between(entries, "S_START", "S_END")}
    with zipfile.ZipFile(engine_pk3_path()) as pk3:
        sprites.update(os.path.basename(n)[:4].upper() for n in pk3.namelist() if n.startswith("sprites/"))
    return frozenset(textures), frozenset(flats), frozenset(sprites)


def textures() -> frozenset[str]:
    """Wall texture names of freedoom2.wad (upper case)."""
    return _iwad_catalogue()[0]


def flats() -> frozenset[str]:
    """Floor/ceiling flat names of freedoom2.wad (upper case), including the sky flat F_SKY1."""
    return _iwad_catalogue()[1]


def sprites() -> frozenset[str]:
    """Four-letter sprite names available to DECORATE states (freedoom2.wad and vizdoom.pk3)."""
    return _iwad_catalogue()[2]


# --- stock actors ------------------------------------------------------------------------------

@dataclass(frozen=True)
class StockActor:
    name: str
    parent: str | None
    ednum: int | None
    is_monster: bool        # declares `Monster` or +ISMONSTER itself
    solid: bool             # declares +SOLID itself (decorations you bump into)


_HEADER = re.compile(
    r'^[ \t]*actor[ \t]+"?([\w.]+)"?[ \t]*(?::[ \t]*"?([\w.]+)"?)?[ \t]*(?:replaces[ \t]+"?[\w.]+"?[ \t]*)?(\d+)?',
    re.IGNORECASE | re.MULTILINE,
)
_INCLUDE = re.compile(r'^\s*#?include\s+"([^"]+)"', re.IGNORECASE | re.MULTILINE)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def _read_with_includes(pk3: zipfile.ZipFile, path: str, seen: set[str]) -> list[str]:
    """The text of `path` and, recursively, of the files it includes, comments removed."""
    if path.lower() in seen:
        return []
    seen.add(path.lower())
    names = {n.lower(): n for n in pk3.namelist()}
    if path.lower() not in names:
        return []
    text = _COMMENTS.sub("", pk3.read(names[path.lower()]).decode("latin-1"))
    texts = [text]
    for include in _INCLUDE.findall(text):
        texts.extend(_read_with_includes(pk3, include, seen))
    return texts


def actor_bodies(text: str):
    """(header match, body text) per actor block of a DECORATE text."""
    for match in _HEADER.finditer(text):
        start = text.find("{", match.end())
        depth, pos = 0, start
        while pos < len(text):
            if text[pos] == "{":
                depth += 1
            elif text[pos] == "}":
                depth -= 1
                if depth == 0:
                    break
            pos += 1
        yield match, text[start:pos]


def _parse_doomednums(texts: list[str]) -> dict[str, int]:
    """Actor name -> editor number from MAPINFO DoomEdNums blocks ("$Player1Start" -> Player1Start)."""
    ednums: dict[str, int] = {}
    for text in texts:
        for block in re.finditer(r"doomednums\s*\{(.*?)\}", text, re.IGNORECASE | re.DOTALL):
            for num, name in re.findall(r'(\d+)\s*=\s*"?\$?([\w.]+)"?', block.group(1)):
                if name.lower() != "none":
                    ednums.setdefault(name, int(num))
    return ednums


@functools.cache
def engine_texts() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The engine's DECORATE files and its Doom 2 MAPINFO files (vizdoom.pk3), includes followed, comments removed."""
    with zipfile.ZipFile(engine_pk3_path()) as pk3:
        return (tuple(_read_with_includes(pk3, "decorate.txt", set())),
                tuple(_read_with_includes(pk3, GAME_MAPINFO, set())))


@functools.cache
def stock_actors() -> dict[str, StockActor]:
    """Every actor class the engine defines (DECORATE in vizdoom.pk3), keyed by lower-case name."""
    decorate, mapinfo = engine_texts()
    ednum_by_name = {k.lower(): v for k, v in _parse_doomednums(mapinfo).items()}
    actors: dict[str, StockActor] = {}
    for text in decorate:
        for header, body in actor_bodies(text):
            name, parent, header_ednum = header.group(1), header.group(2), header.group(3)
            ednum = ednum_by_name.get(name.lower(), int(header_ednum) if header_ednum else None)
            is_monster = bool(re.search(r"^\s*(monster\b|\+ismonster\b)", body, re.IGNORECASE | re.MULTILINE))
            solid = bool(re.search(r"^\s*\+solid\b", body, re.IGNORECASE | re.MULTILINE))
            actors[name.lower()] = StockActor(name, parent, ednum, is_monster, solid)
    # Player starts are engine built-ins ("$Player1Start"), not DECORATE classes.
    for name, num in ednum_by_name.items():
        if name not in actors and name.startswith(("player", "deathmatch")):
            actors[name] = StockActor(_canonical_start_name(name), None, num, False, False)
    return actors


def _canonical_start_name(lower: str) -> str:
    return lower.replace("player", "Player").replace("start", "Start").replace("deathmatch", "Deathmatch")


def stock_ednums() -> dict[str, int]:
    """Stock actor name -> editor number for the Doom 2 game (Player1Start is 1, Medikit 2012 ...)."""
    return {a.name: a.ednum for a in stock_actors().values() if a.ednum is not None}


def ancestry(name: str) -> list[str]:
    """The actor's class and its parents up to Actor, lower case (stops at an unknown parent)."""
    chain, current = [], name.lower()
    while current and current not in chain:
        chain.append(current)
        actor = stock_actors().get(current)
        if actor and actor.parent:
            current = actor.parent.lower()
        else:
            current = "actor" if current != "actor" and actor else None
    return chain


def actor_kind(name: str) -> str:
    """'player', 'item', 'monster', 'spot' or 'decoration' for a stock actor name."""
    chain = ancestry(name)
    actors = stock_actors()
    if chain and (chain[0].startswith("player") and chain[0].endswith("start") or chain[0] == "deathmatchstart"):
        return "player"
    if "inventory" in chain:
        return "item"
    if any(actors[c].is_monster for c in chain if c in actors):
        return "monster"
    if chain and ("mapspot" in chain or chain[0] in ("teleportdest", "patrolpoint")):
        return "spot"
    return "decoration"


def suggest(name: str, candidates) -> str:
    """' (did you mean X?)' when a close match exists, else ''."""
    by_upper = {c.upper(): c for c in candidates}
    close = difflib.get_close_matches(name.upper(), list(by_upper), n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(by_upper[c]) for c in close) + "?)"
