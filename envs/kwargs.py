"""KEY=VALUE arguments of the command line (`build --set`, `rollout -k`, `train --env-kwargs/--hp`),
parsed one way everywhere.

Values read like YAML scalars, plus Python's tuples: `true`/`false` (also yes/no/on/off, any case),
`null`/`none`/`~`, integers, floats (`1e-4`, `.5`, `inf`), `(30, 40)` tuples, `[1, 2]` lists,
`{a: 1}` mappings, 'quoted' or "quoted" strings; anything else is the plain string (`lin_5e-4`).
"""

from __future__ import annotations

from typing import Any

_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}
_NULL = {"", "null", "none", "~"}
_BRACKETS = {"(": ")", "[": "]", "{": "}"}


def parse_assignments(items: list[str] | None, option: str) -> dict[str, Any]:
    """["n_items=5", "resolution=(30, 40)"] -> {"n_items": 5, "resolution": (30, 40)}; `option` names
    the command-line option in errors."""
    result: dict[str, Any] = {}
    for item in items or ():
        key, text = split_assignment(item, option)
        result[key] = parse_value(text, f"{option} {item}")
    return result


def split_assignment(item: str, option: str) -> tuple[str, str]:
    """"n_items=5" -> ("n_items", "5"); a ValueError unless KEY is a name."""
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise ValueError(f"{option} {item!r}: expected KEY=VALUE, e.g. n_items=5")
    return key, text.strip()


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
