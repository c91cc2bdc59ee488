"""The DECORATE flags and properties this engine accepts, and the checks that keep a custom actor from
crashing it: vizdoom stops (segfaults) at init() on any DECORATE it cannot parse, printing nothing useful.

The names come from wads/data/decorate_names.txt, read from the engine's source (see its header).
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from . import decorate_states, iwad

NAMES_FILE = os.path.join(os.path.dirname(__file__), "data", "decorate_names.txt")
_PARAMETER_WORDS = {
    "I": "an integer", "F": "a number", "S": "a string", "T": "a string", "Z": "a string",
    "X": "an integer or '(expression)'", "C": "a colour ('red', 'ff 00 00', or r, g, b)",
    "L": "an integer or strings", "M": "flag names ('A|B')", "N": "flag names ('A|B')",
}


@dataclass(frozen=True)
class Flag:
    name: str       # upper case, without the class prefix
    owner: str      # the class whose descendants accept it, e.g. "Inventory"
    status: str     # "", "deprecated" (the engine maps it to a property) or "unused" (accepted, no effect)


@dataclass(frozen=True)
class Property:
    name: str                   # e.g. "Inventory.PickupMessage"
    owners: tuple[str, ...]     # it applies to actors inheriting any of these
    params: str                 # the engine's parameter letters (see the data file's header)
    limits: Mapping[str, str]   # class=, values=, range=, flags=, length=, count= from the data file

    @property
    def owner(self) -> str:
        return " or ".join(self.owners)

    def applies_to(self, lower_chain: Sequence[str]) -> bool:
        return any(owner.lower() in lower_chain for owner in self.owners)


@functools.cache
def _tables() -> tuple[dict[str, dict[str, Flag]], dict[str, Property]]:
    flags: dict[str, dict[str, Flag]] = {}
    properties: dict[str, Property] = {}
    with open(NAMES_FILE, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "flag":
                flag = Flag(words[2], words[1], words[3] if len(words) > 3 else "")
                flags.setdefault(flag.owner.lower(), {})[flag.name] = flag
            else:
                limits = dict(word.split("=", 1) for word in words[4:])
                prop = Property(words[2], tuple(words[1].split("|")), words[3], limits)
                properties[prop.name.lower()] = prop
    return flags, properties


def flag_lists() -> dict[str, dict[str, Flag]]:
    """Owner class (lower case) -> flag NAME -> Flag; the owners are also the accepted flag prefixes."""
    return _tables()[0]


def properties() -> dict[str, Property]:
    """Lower-case property name -> Property."""
    return _tables()[1]


def valid_flags(class_name: str) -> list[str]:
    """Every flag an actor inheriting the stock class `class_name` may set, as '+NAME'."""
    chain = _stock_ancestry(class_name)
    return sorted({"+" + name for owner, table in flag_lists().items() if owner in chain for name in table})


def valid_properties(class_name: str) -> list[str]:
    """Every property an actor inheriting the stock class `class_name` may set."""
    chain = _stock_ancestry(class_name)
    return sorted(p.name for p in properties().values() if p.applies_to(chain))


def _stock_ancestry(class_name: str) -> list[str]:
    if class_name.lower() not in iwad.stock_actors():
        names = [a.name for a in iwad.stock_actors().values()]
        raise ValueError(f"unknown stock actor class {class_name!r}{iwad.suggest(class_name, names)}")
    return iwad.ancestry(class_name)


# --- flags ---------------------------------------------------------------------------------------

def flag_problem(flag: str, chain: Sequence[str]) -> str | None:
    """Why the engine would refuse `flag` ('+NAME', '-NAME', '+CLASS.NAME') on an actor whose class and
    ancestors are `chain` (nearest first, ending at 'Actor'); None when the engine accepts it."""
    prefix, _, name = flag[1:].upper().rpartition(".")
    lists, lower = flag_lists(), [c.lower() for c in chain]
    if prefix:
        owner_key = prefix.lower()
        if owner_key not in lists:
            prefixes = ", ".join(repr(_owner_name(k).upper() + ".") for k in lists)
            return f"flag {flag!r} has an unknown class prefix {prefix + '.'!r} (the prefixes are {prefixes})"
        if owner_key not in lower:
            return _wrong_class("flag", flag, _owner_name(owner_key), chain)
        if name in lists[owner_key]:
            return None
        return f"unknown flag {flag!r}{_suggest_flag(flag, lists[owner_key])}; {_flag_help(lower)}"
    if any(name in lists[owner] for owner in lists if owner in lower):
        return None
    elsewhere = [owner for owner in lists if name in lists[owner]]
    if elsewhere:
        return _wrong_class("flag", flag, _owner_name(elsewhere[0]), chain)
    usable = [n for owner in lists if owner in lower for n in lists[owner]]
    return f"unknown flag {flag!r}{_suggest_flag(flag, usable)}; {_flag_help(lower)}"


def _suggest_flag(flag: str, names) -> str:
    """Close flag names written as the user wrote theirs: same sign, same class prefix."""
    head = flag[: flag.rfind(".") + 1] or flag[0]
    return iwad.suggest(flag, [head + name for name in names])


def _owner_name(owner_key: str) -> str:
    return next(iter(flag_lists()[owner_key].values())).owner


def _flag_help(lower_chain: Sequence[str]) -> str:
    owners = [_owner_name(o) for o in flag_lists() if o in lower_chain and o != "actor"]
    extra = "".join(f" and the {o.upper()}. ones" for o in owners)
    stock = _nearest_stock(lower_chain)
    return (f"an actor inheriting {stock} takes the ACTOR. flags{extra}: "
            f"wadgym.wads.decorate_names.valid_flags({stock!r}) lists all {len(valid_flags(stock))}")


# --- properties ----------------------------------------------------------------------------------

def stock_class_chain(name: str) -> list[str] | None:
    """A stock actor class and its ancestors, nearest first; None when the engine has no such class."""
    stock = iwad.stock_actors()
    return [stock[c].name for c in iwad.ancestry(name)] if name.lower() in stock else None


def property_problem(key: str, value: object, chain: Sequence[str],
                     class_chain: Callable[[str], list[str] | None] = stock_class_chain) -> str | None:
    """Why the engine would refuse property `key` with `value` on an actor whose class and ancestors are
    `chain`; None when it accepts it. `class_chain` resolves the actor classes a value may name."""
    prop, lower = properties().get(key.lower()), [c.lower() for c in chain]
    if prop is None:
        return f"unknown property {key!r}{_suggest_property(key, lower)}; {_property_help(lower)}"
    if not prop.applies_to(lower):
        return _wrong_class("property", key, prop.owner, chain)
    matched = match_values(prop, value)
    if isinstance(matched, str):
        return f"property {key!r} {matched}"
    problem = _text_problem(matched, chain) or _limit_problem(prop, matched, class_chain)
    return f"property {key!r}: {problem}" if problem else None


def _text_problem(matched: list[tuple[str, object]], chain: Sequence[str]) -> str | None:
    """Strings the engine's scanner would misread: control characters anywhere, and an expression that
    is not one whole '(...)' group in the engine's expression grammar."""
    for kind, value in matched:
        if not isinstance(value, str):
            continue
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
            return f"{value!r} contains a control character (a line break or tab); write it on one line"
        if kind == "S" and len(value) >= 2 and value[0] == value[-1] == '"':
            return f"strings are quoted for you: give {value[1:-1]!r}, not {value!r}"
        if kind == "X" and value.startswith("("):
            problem = _group_problem(value) or decorate_states.expression_problem(value[1:-1], chain)
            if problem:
                return f"the expression {value!r} {problem}"
    return None


def _group_problem(text: str) -> str | None:
    """Why `text` is not one parenthesised group '( ... )' (the engine reads up to the matching ')')."""
    depth = 0
    for position, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and position < len(text) - 1:
            return "must be one '(...)' group with nothing after its closing ')'"
    return "has unbalanced parentheses" if depth else None


def _suggest_property(key: str, lower_chain: Sequence[str]) -> str:
    """The same last part under another class first ('Health.Amount' -> 'Inventory.Amount'), else close spellings."""
    usable = [p.name for p in properties().values() if p.applies_to(lower_chain)]
    last = key.rpartition(".")[2].lower()
    same_last = [n for n in usable if n.rpartition(".")[2].lower() == last and n.lower() != key.lower()]
    if same_last:
        return " (did you mean " + " or ".join(repr(n) for n in same_last[:3]) + "?)"
    return iwad.suggest(key, usable) or iwad.suggest(key, [p.name for p in properties().values()])


def _property_help(lower_chain: Sequence[str]) -> str:
    stock = _nearest_stock(lower_chain)
    prefixes = sorted({p.name.partition(".")[0] + ".*" for p in properties().values()
                       if p.applies_to(lower_chain) and "." in p.name})
    extra = f" and the {', '.join(prefixes)} ones" if prefixes else ""
    return (f"an actor inheriting {stock} takes the plain Actor properties{extra}: "
            f"wadgym.wads.decorate_names.valid_properties({stock!r}) lists all {len(valid_properties(stock))}")


def _wrong_class(what: str, name: str, owner: str, chain: Sequence[str]) -> str:
    lineage = " -> ".join(chain[1:]) or "Actor"
    return (f"{what} {name!r} applies only to actors inheriting {owner}, and this one inherits {lineage}; "
            f"pick a parent descended from {owner}, or drop the {what}")


def _nearest_stock(lower_chain: Sequence[str]) -> str:
    stock = iwad.stock_actors()
    return next((stock[c].name for c in lower_chain if c in stock), "Actor")


# --- property values -----------------------------------------------------------------------------

def describe(params: str) -> str:
    """What a property's parameter letters ask for, in words: 'a string[, an integer[, an integer]]'."""
    if params == "0":
        return "no value (give True)"
    text, open_brackets = "", 0
    for letter, run in itertools.groupby(params.replace("_", "")):
        count = len(list(run))
        for _ in range(count if count <= 2 or letter.isupper() else 1):
            word, separator = _PARAMETER_WORDS[letter.upper()], ", " if text else ""
            if letter == "Z":
                text += f"{separator}[{word}]"
            elif letter.islower():
                text += f"[{separator}{word}"
                open_brackets += 1
            else:
                text += separator + word
        if count > 2 and letter.islower():
            text += " ..."
    return text + "]" * open_brackets


def match_values(prop: Property, value: object) -> list[tuple[str, object]] | str:
    """Pair each value with the parameter letter it fills, as the engine's parser would, or say why not."""
    if prop.params == "0":
        if value is True or value is None or value == ():
            return []
        return f"takes no value: give True to set it, or leave it out (got {value!r})"
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    paired: list[tuple[str, object]] = []
    position = 0
    for letter in prop.params.replace("_", ""):
        kind, optional = letter.upper(), letter.islower() or letter == "Z"
        if position >= len(values):
            if optional:
                break
            return _wrong_values(prop, values)
        taken = _take(kind, values[position:])
        if taken is None:
            if letter == "Z":
                continue
            return _wrong_values(prop, values)
        paired += taken
        position += len(taken)
    if position < len(values):
        return _wrong_values(prop, values)
    return paired


def _take(kind: str, rest: list) -> list[tuple[str, object]] | None:
    """The values one parameter of `kind` consumes from the front of `rest`, or None if they don't fit."""
    first = rest[0]
    is_int = isinstance(first, int)
    if kind == "I" and is_int:
        return [("I", first)]
    if kind == "F" and isinstance(first, (int, float)) and not isinstance(first, bool):
        return [("F", first)]
    if kind in "STZ" and isinstance(first, str):
        return [("S", first)]
    if kind == "X" and (is_int and not isinstance(first, bool) or isinstance(first, str) and first.startswith("(")):
        return [("X", first)]
    if kind == "C":
        if isinstance(first, str):
            return [("S", first)]
        if len(rest) >= 3 and all(isinstance(v, int) and not isinstance(v, bool) for v in rest[:3]):
            return [("I", v) for v in rest[:3]]
    if kind == "L":
        if is_int and not isinstance(first, bool):
            return [("I", first)]
        if all(isinstance(v, str) for v in rest):
            return [("S", v) for v in rest]
    if kind in "MN" and isinstance(first, str):    # names only: the engine misreads a plain number here
        return [("X", first)]
    return None


def _wrong_values(prop: Property, values: list) -> str:
    got = repr(values[0]) if len(values) == 1 else repr(tuple(values))
    return f"takes {describe(prop.params)}; got {got}"


def _limit_problem(prop: Property, matched: list[tuple[str, object]], class_chain) -> str | None:
    """The engine's own limits on the values (the data file's class=, values=, range=, flags=, length=, count=)."""
    limits, first = prop.limits, matched[0][1] if matched else None
    if "values" in limits:
        words = limits["values"].split(",")
        if str(first).lower() not in {w.lower() for w in words}:
            shown = [w for w in words if not w.startswith("STYLE_")]    # RenderStyle's old spellings, also accepted
            return f"{first!r} is not one of {', '.join(shown)}{iwad.suggest(str(first), shown)}"
    if "range" in limits and isinstance(first, (int, float)):
        low, high = (float(x) if x else None for x in limits["range"].split(".."))
        if high is None and first < low:
            return f"{first!r} is below the engine's minimum {low:g}"
        if high is not None and not low <= first <= high:
            return f"{first!r} is outside the engine's range {low:g} .. {high:g}"
    if "flags" in limits:
        names = limits["flags"].split(",")
        for name in str(first).strip("()").split("|"):
            if name.strip().lower() not in {n.lower() for n in names}:
                return f"{name.strip()!r} is not one of {', '.join(names)} (join several with '|')"
    if "length" in limits and len(str(first)) not in _numbers(limits["length"]):
        return f"{first!r} must have {' or '.join(limits['length'].split(','))} characters"
    if "count" in limits and len(matched) not in _numbers(limits["count"]):
        return f"takes {' or '.join(limits['count'].split(','))} values, got {len(matched)}"
    if prop.name == "Translation" and isinstance(first, str):
        return _translation_problem([v for _, v in matched])
    if "class" in limits:
        for kind, name in matched:
            if kind == "S":
                problem = _class_problem(prop, name, limits["class"], class_chain)
                if problem:
                    return problem
    return None


def _numbers(text: str) -> set[int]:
    return {int(n) for n in text.split(",")}


_INDEX_RANGE = r"\s*(\d+)\s*:\s*(\d+)\s*"
_RGB = r"\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]"
_FRACTION = r"(?:\d+(?:\.\d*)?|\.\d+)"
_SHADE = rf"\[\s*{_FRACTION}\s*,\s*{_FRACTION}\s*,\s*{_FRACTION}\s*\]"
# The engine's translation ranges: 'a:b=c:d', 'a:b=[r,g,b]:[r,g,b]' or 'a:b=%[r,g,b]:[r,g,b]' (0..2 shades).
_TRANSLATION = re.compile(rf"^{_INDEX_RANGE}=\s*(?:\d+\s*:\s*\d+|{_RGB}\s*:\s*{_RGB}|%\s*{_SHADE}\s*:\s*{_SHADE})\s*$")


def _translation_problem(ranges: list[str]) -> str | None:
    if len(ranges) == 1 and ranges[0].lower() == "ice":
        return None
    for text in ranges:
        match = _TRANSLATION.match(text)
        if not match or max(int(match.group(1)), int(match.group(2))) > 255:
            return (f"{text!r} is not a translation range: write 'FROM:TO=FROM:TO' (palette indices 0..255), "
                    f"'FROM:TO=[r,g,b]:[r,g,b]' or 'FROM:TO=%[r,g,b]:[r,g,b]', or give 'Ice' or a number 0..6")
    return None


def _class_problem(prop: Property, name: str, ancestor: str, class_chain) -> str | None:
    if name.lower() in ("", "none"):
        return None
    candidates = [name]
    if prop.name.lower() == "powerup.type" and not name.lower().startswith("power"):
        candidates.append("Power" + name)     # the engine tries the name with 'Power' put in front too
    chains = [class_chain(c) for c in candidates]
    if any(chain and ancestor.lower() in {c.lower() for c in chain} for chain in chains):
        return None
    if any(chains):
        lineage = " -> ".join(next(c for c in chains if c))
        return f"{name!r} is not a kind of {ancestor} ({lineage})"
    return f"{name!r} names no actor class{iwad.suggest(name, _descendants(ancestor))}"


@functools.cache
def _descendants(ancestor: str) -> tuple[str, ...]:
    return tuple(a.name for a in iwad.stock_actors().values() if ancestor.lower() in iwad.ancestry(a.name))


def format_value(prop: Property, value: object) -> str:
    """The text after the property name in DECORATE: strings quoted, numbers as written, ', ' between."""
    matched = match_values(prop, value)
    if isinstance(matched, str):
        raise ValueError(f"property {prop.name!r} {matched}")
    return ", ".join(_format_one(kind, v) for kind, v in matched)


def _format_one(kind: str, value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    if kind == "S":
        return quote(value)
    return str(value)


def quote(text: str) -> str:
    """`text` as a DECORATE or MAPINFO string: in double quotes, with backslashes and quotes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
