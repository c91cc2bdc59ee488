"""Custom actors from Python: an `Actor` inherits a stock actor and becomes a DECORATE definition."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from . import iwad

# Properties whose value DECORATE reads as a string: quoted for you when given unquoted.
_STRING_PROPERTY = re.compile(r"(message|sound|obituary|tag|species|pickupflash|name)$", re.IGNORECASE)
_STATE_KEYWORDS = {"stop", "loop", "wait", "fail", "goto"}
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_EDNUM = 32767


@dataclass(frozen=True)
class Actor:
    """A DECORATE actor: `parent` (a stock or earlier custom actor) gives the sprite and states unless
    `states` replaces them; `ednum` lets maps place it by name or number.

        Actor("WadgymItem", parent="Medikit", ednum=20001, flags=["+COUNTITEM"],
              properties={"Scale": 1.5, "Inventory.PickupMessage": "Got it"})
    """

    name: str
    parent: str | None = None
    ednum: int | None = None
    flags: Sequence[str] = ()
    properties: Mapping[str, object] = field(default_factory=dict)
    states: Mapping[str, Sequence[str]] | None = None   # label -> frame lines, e.g. {"Spawn": ["MEDI A -1", "Stop"]}
    replaces: str | None = None

    def to_decorate(self) -> str:
        header = f"ACTOR {self.name}"
        if self.parent:
            header += f" : {self.parent}"
        if self.replaces:
            header += f" replaces {self.replaces}"
        if self.ednum is not None:
            header += f" {self.ednum}"
        body = [f"\t{flag}" for flag in self.flags]
        body += [f"\t{key} {_property_value(key, value)}" for key, value in self.properties.items()]
        if self.states:
            body.append("\tStates\n\t{")
            for label, frames in self.states.items():
                body.append(f"\t{label}:")
                body += [f"\t\t{frame}" for frame in frames]
            body.append("\t}")
        return header + "\n{\n" + "".join(line + "\n" for line in body) + "}\n"


def _property_value(key: str, value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (tuple, list)):
        return ", ".join(_property_value(key, v) for v in value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str) and _STRING_PROPERTY.search(key) and not value.startswith('"'):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def decorate_text(actors: Sequence[Actor]) -> str:
    """The DECORATE lump for `actors` after checking them (see check_actors)."""
    check_actors(actors)
    return "\n".join(actor.to_decorate() for actor in actors)


def check_actors(actors: Sequence[Actor]) -> None:
    """A ValueError naming the actor when a name, parent, flag, ednum, property or sprite is wrong."""
    stock = iwad.stock_actors()
    stock_ednums = {num: name for name, num in iwad.stock_ednums().items()}
    seen: dict[str, Actor] = {}
    used_ednums: dict[int, str] = {}
    for actor in actors:
        where = f"actor {actor.name!r}"
        if not _IDENTIFIER.match(actor.name or ""):
            raise ValueError(f"{where}: a name is letters, digits and underscores, starting with a letter")
        if actor.name.lower() in stock:
            raise ValueError(f"{where}: the engine already defines an actor of that name; pick another name")
        if actor.name.lower() in seen:
            raise ValueError(f"{where}: defined twice")
        for ref, what in ((actor.parent, "parent"), (actor.replaces, "replaces")):
            if ref is not None and ref.lower() not in stock and ref.lower() not in seen:
                names = [a.name for a in stock.values()] + [a.name for a in seen.values()]
                raise ValueError(f"{where}: unknown {what} actor {ref!r}{iwad.suggest(ref, names)}")
        _check_ednum(actor, where, stock_ednums, used_ednums)
        for flag in actor.flags:
            if not re.match(r"^[+-][A-Za-z_][\w.]*$", flag):
                raise ValueError(f"{where}: flag {flag!r} must be '+NAME' or '-NAME' (e.g. '+COUNTITEM')")
        for key in actor.properties:
            if not re.match(r"^[A-Za-z_][\w.]*$", key):
                raise ValueError(f"{where}: property name {key!r} is not a DECORATE property name")
        _check_states(actor, where)
        seen[actor.name.lower()] = actor


def _check_ednum(actor, where, stock_ednums, used_ednums):
    if actor.ednum is None:
        return
    if not isinstance(actor.ednum, int) or not 1 <= actor.ednum <= MAX_EDNUM:
        raise ValueError(f"{where}: ednum must be an integer in 1..{MAX_EDNUM}, got {actor.ednum!r}")
    taken = stock_ednums.get(actor.ednum) or used_ednums.get(actor.ednum)
    if taken:
        raise ValueError(f"{where}: ednum {actor.ednum} already places {taken!r}; pick another (e.g. 20000 and up)")
    used_ednums[actor.ednum] = actor.name


def _check_states(actor, where):
    for label, frames in (actor.states or {}).items():
        if not _IDENTIFIER.match(label.replace(".", "_")):
            raise ValueError(f"{where}: state label {label!r} is not a name")
        for frame in frames:
            words = frame.split()
            if not words or words[0].lower() in _STATE_KEYWORDS:
                continue
            sprite = words[0].strip('"').upper()
            if sprite not in ("####", "----") and sprite not in iwad.sprites():
                raise ValueError(f"{where}: state {label}: unknown sprite {sprite!r}"
                                 f"{iwad.suggest(sprite, iwad.sprites())}")


def actor_kind(name: str, actors: Sequence[Actor]) -> str:
    """'player', 'item', 'monster', 'spot' or 'decoration' for a stock or custom actor name."""
    by_name = {a.name.lower(): a for a in actors}
    current = name.lower()
    for _ in range(len(by_name) + 1):
        custom = by_name.get(current)
        if custom is None:
            break
        if any(f.lower() == "+ismonster" for f in custom.flags):
            return "monster"
        if custom.parent is None:
            return "decoration"
        current = custom.parent.lower()
    return iwad.actor_kind(current)
