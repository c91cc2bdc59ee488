"""KEY=VALUE arguments of the command line (`build --set`, `rollout -k`, `train --env-kwargs`, `--hp` and
rl-zoo's `-params KEY:VALUE`), parsed one way everywhere: this is the one parser.

Values read like YAML scalars, plus Python's tuples: `true`/`false` (also yes/no/on/off, any case),
`null`/`none`/`~`, integers, floats (`1e-4`, `.5`, `inf`), `(30, 40)` tuples, `[1, 2]` lists,
`{a: 1}` mappings, 'quoted' or "quoted" strings; anything else is the plain string (`lin_5e-4`).
(yaml.safe_load alone reads `1e-4`, `inf` and `None` as strings and has no tuples.) Given the
dataclass a value goes to (`build --set` into a scenario's Params), each value is also converted to
its field's type: `--set floor=123` is the flat name "123", `--set door=1` is True.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}
_NULL = {"", "null", "none", "~"}
_BRACKETS = {"(": ")", "[": "]", "{": "}"}


def parse_assignments(items: list[str] | None, option: str, fields: type | None = None,
                      separators: str = "=") -> dict[str, Any]:
    """["n_items=5", "resolution=(30, 40)"] -> {"n_items": 5, "resolution": (30, 40)}; `option` names
    the command-line option in errors. `fields`: the dataclass the values go to (unknown keys refused,
    values converted to the fields' types); `separators`: the characters that may end KEY ("=:" also
    takes rl-zoo's KEY:VALUE)."""
    names = [f.name for f in dataclasses.fields(fields)] if fields is not None else None
    hints = typing.get_type_hints(fields) if fields is not None else {}
    result: dict[str, Any] = {}
    for item in items or ():
        key, text = split_assignment(item, option, separators)
        value = parse_value(text, f"{option} {item}")
        if names is not None:
            if key not in names:
                raise ValueError(f"unknown parameter {key!r}; valid parameters: {', '.join(names)}")
            value = convert(value, hints.get(key, Any), f"{option} {key}={text}", text)
        result[key] = value
    return result


def split_assignment(item: str, option: str, separators: str = "=") -> tuple[str, str]:
    """"n_items=5" -> ("n_items", "5"); a ValueError unless KEY is a name followed by a separator."""
    end = next((i for i, char in enumerate(item) if char in separators), -1)
    key = item[:end].strip()
    if end < 0 or not key.isidentifier():
        example = " or ".join(f"n_items{sep}5" for sep in separators)
        raise ValueError(f"{option} {item!r}: expected KEY{separators[0]}VALUE, e.g. {example}")
    return key, item[end + 1:].strip()


def parse_value(text: str, where: str = "value") -> Any:
    """One value, as the module docstring describes; `where` names it in errors."""
    text = text.strip()
    if text[:1] in _BRACKETS:
        if not text.endswith(_BRACKETS[text[0]]):
            raise ValueError(f"{where}: {text[0]!r} is not closed by {_BRACKETS[text[0]]!r}")
        parts = _split_top_level(text[1:-1], where)
        if text[0] == "{":
            return dict(_key_value(part, where) for part in parts)
        values = [parse_value(part, where) for part in parts]
        return tuple(values) if text[0] == "(" else values
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    lower = text.lower()
    if lower in _NULL:
        return None
    if lower in _TRUE or lower in _FALSE:
        return lower in _TRUE
    for number in (int, float):
        try:
            return number(text)
        except ValueError:
            pass
    return text


def _key_value(part: str, where: str) -> tuple[str, Any]:
    key, sep, value = part.partition(":")
    if not sep:
        raise ValueError(f"{where}: expected key: value inside {{...}}, got {part.strip()!r}")
    return str(parse_value(key, where)), parse_value(value, where)


def _split_top_level(text: str, where: str) -> list[str]:
    """The comma-separated parts of a bracket's contents, commas inside nested brackets or quotes kept."""
    parts, depth, quote, start = [], 0, None, 0
    for i, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if quote or depth:
        raise ValueError(f"{where}: unbalanced brackets or quotes in {text!r}")
    parts.append(text[start:])
    if not parts[-1].strip():  # "(30,)" and "()" as in Python
        parts.pop()
    return parts


def convert(value: Any, kind: Any, where: str, text: str | None = None) -> Any:
    """`value` (parsed from `text`) as a `kind`, a dataclass field's type hint; a ValueError says `where`."""
    args = typing.get_args(kind)
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and type(None) in args:  # X | None
        if value is None:
            return None
        kind = next(a for a in args if a is not type(None))
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is str:
        return value if isinstance(value, str) else (text if text is not None else str(value))
    if kind is bool and value in (0, 1):  # true/false; 1/0 as well
        return bool(value)
    if kind is int and number and float(value).is_integer():
        return int(value)
    if kind is float and number:
        return float(value)
    if typing.get_origin(kind) is tuple:
        if isinstance(value, (list, tuple)):
            item = typing.get_args(kind)[0] if typing.get_args(kind) else Any
            return tuple(convert(v, item, where, str(v)) for v in value)
    elif not isinstance(kind, type) or (isinstance(value, kind) and kind not in (int, float, bool)):
        return value  # typing.Any, other generics, or already the field's class
    raise ValueError(f"{where}: not a valid {getattr(kind, '__name__', kind)}")
