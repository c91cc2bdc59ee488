"""Custom actors from Python: an `Actor` inherits a stock actor and becomes a DECORATE definition."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from . import decorate_names, decorate_states, iwad

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FLAG = re.compile(r"^[+-][A-Za-z_]\w*(\.[A-Za-z_]\w*)?$")
# Names the engine's parser takes as a state block or a state label, not as a property.
_STATE_WORDS = {"states", "spawn", "see", "melee", "missile", "pain", "death", "xdeath", "burn", "ice",
                "raise", "crash", "crush", "wound", "disintegrate", "heal"}
MAX_EDNUM = 32767


@dataclass(frozen=True)
class Actor:
    """A DECORATE actor: `parent` (a stock or earlier custom actor) gives the sprite and states unless
    `states` replaces them; `ednum` lets maps place it by name or number. Flags and properties are the
    engine's own (wadgym.wads.decorate_names lists them); string values are quoted for you, a property
    that takes several values takes a tuple, and one that takes none (`Monster`) takes True.

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
        body += [f"\t{_property_line(key, value)}" for key, value in self.properties.items()]
        if self.states:
            body.append("\tStates\n\t{")
            for label, frames in self.states.items():
                body.append(f"\t{label}:")
                body += [f"\t\t{frame}" for frame in frames]
            body.append("\t}")
        return header + "\n{\n" + "".join(line + "\n" for line in body) + "}\n"


def _property_line(key: str, value) -> str:
    prop = decorate_names.properties().get(key.lower())
    if prop is None:    # check_actors refuses it; written as given for anyone calling to_decorate alone
        return f"{key} {value}"
    values = decorate_names.format_value(prop, value)
    return f"{key} {values}" if values else key


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
    everyone = {a.name.lower(): a for a in actors if isinstance(a.name, str)}

    def class_chain(name: str) -> list[str] | None:
        """Any class a property value may name: the engine resolves them after reading every actor."""
        custom = everyone.get(name.lower())
        return _class_chain(custom, everyone) if custom else decorate_names.stock_class_chain(name)

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
        chain = _class_chain(actor, seen)
        _check_flags_and_properties(actor, where, chain, class_chain)
        _check_states(actor, where, chain, seen, class_chain)
        seen[actor.name.lower()] = actor


def _class_chain(actor: Actor, custom: Mapping[str, Actor]) -> list[str]:
    """The actor's class and its ancestors, nearest first, ending at Actor: custom parents, then stock ones."""
    chain, parent = [actor.name], actor.parent
    while parent is not None and parent.lower() in custom and len(chain) <= len(custom):
        chain.append(custom[parent.lower()].name)
        parent = custom[parent.lower()].parent
    if parent is None:
        return chain + ["Actor"]
    return chain + (decorate_names.stock_class_chain(parent) or [parent])


def _check_flags_and_properties(actor, where, chain, class_chain):
    """The engine stops with a segfault at init() on a flag or property it refuses: refuse it here first."""
    if isinstance(actor.flags, str) or not isinstance(actor.properties, Mapping):
        raise ValueError(f"{where}: flags are a list and properties a dict, "
                         f"e.g. flags=['+COUNTITEM'], properties={{'Scale': 1.5}}")
    for flag in actor.flags:
        if not isinstance(flag, str) or not _FLAG.match(flag):
            raise ValueError(f"{where}: flag {flag!r} must be '+NAME' or '-NAME' "
                             f"(e.g. '+COUNTITEM', '+INVENTORY.ALWAYSPICKUP')")
        problem = decorate_names.flag_problem(flag, chain)
        if problem:
            raise ValueError(f"{where}: {problem}")
    for key, value in actor.properties.items():
        if not isinstance(key, str) or not re.match(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$", key):
            raise ValueError(f"{where}: property name {key!r} is not a DECORATE property name")
        if key.lower() in _STATE_WORDS:
            raise ValueError(f"{where}: {key!r} is a state, not a property; give states as Actor(states={{...}})")
        problem = decorate_names.property_problem(key, value, chain, class_chain)
        if problem:
            raise ValueError(f"{where}: {problem}")


def _check_ednum(actor, where, stock_ednums, used_ednums):
    if actor.ednum is None:
        return
    if not isinstance(actor.ednum, int) or not 1 <= actor.ednum <= MAX_EDNUM:
        raise ValueError(f"{where}: ednum must be an integer in 1..{MAX_EDNUM}, got {actor.ednum!r}")
    taken = stock_ednums.get(actor.ednum) or used_ednums.get(actor.ednum)
    if taken:
        raise ValueError(f"{where}: ednum {actor.ednum} already places {taken!r}; pick another (e.g. 20000 and up)")
    used_ednums[actor.ednum] = actor.name


def _check_states(actor, where, chain, custom: Mapping[str, Actor], class_chain) -> None:
    """The engine segfaults on a frame line it cannot parse: check each against its grammar first."""
    if actor.states is None:
        return

    def labels_of(name: str) -> dict[str, int]:
        """State labels class `name` has, own and inherited (decorate_states.label_extents), nearest last."""
        labels: dict[str, int] = {}
        for cls in reversed(class_chain(name) or []):
            parent = custom.get(cls.lower())
            if parent is None:
                labels.update(decorate_states.stock_definitions().labels.get(cls.lower(), {}))
            elif parent.states:
                labels.update(decorate_states.label_extents(decorate_states.state_lines(parent.states)))
        return labels

    problem = decorate_states.check_states(actor.states, decorate_states.StateContext(chain, labels_of, class_chain))
    if problem:
        raise ValueError(f"{where}: {problem}")


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
