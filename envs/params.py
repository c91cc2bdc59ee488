"""Scenario parameters: one way to resolve them (preset + overrides) and one way to check their fields.

A family's `Params` is a frozen dataclass whose `__post_init__` calls `check_fields` with the ranges and
choices of its fields, so every bad value reads the same way: `n_items=100 is out of range; valid: 1 to 29`.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from .checks import check_number


def make_params(params_class: type, presets: Mapping[str, Any], preset: str | None = None,
                overrides: Mapping[str, Any] | None = None, *, other_arguments: Iterable[str] = ()):
    """`presets[preset]` (None: "default", else `params_class()`) with `overrides` applied.

    An unknown preset or field is a ValueError listing the valid ones (and `other_arguments`, the
    names a caller such as an env also accepts, so the message lists everything a user may pass)."""
    if preset is None:
        base = presets.get("default") or params_class()
    elif isinstance(preset, str) and preset in presets:
        base = presets[preset]
    else:
        raise ValueError(f"preset={preset!r} is not valid; choose one of {', '.join(map(repr, presets)) or '(none)'}")
    overrides = dict(overrides or {})
    names = [f.name for f in dataclasses.fields(params_class)]
    unknown = sorted(set(overrides) - set(names))
    if unknown:
        others = list(other_arguments)
        valid = (f"{', '.join(others)} and the scenario parameters " if others else "") + ", ".join(names)
        raise ValueError(f"unknown argument(s) {', '.join(unknown)}; valid: {valid}")
    return dataclasses.replace(base, **overrides) if overrides else base


def check_fields(params, limits: Mapping[str, tuple[float, float]], choices: Mapping[str, tuple]) -> None:
    """Raise ValueError naming the first field out of its range (`limits`, inclusive; ints for whole
    numbers) or not among its `choices`, and what is valid.

    Numbers of numpy types become Python ints and floats, and 0/1 for a True/False choice become bools,
    so cache keys and generated ACS stay stable."""
    for f in dataclasses.fields(params):
        value = getattr(params, f.name)
        if f.name in choices:
            valid = choices[f.name]
            flag = all(isinstance(c, bool) for c in valid)
            if flag and isinstance(value, numbers.Integral) and value in (0, 1):
                value = bool(value)
            hashable = isinstance(value, (str, numbers.Number, bool, type(None)))
            if not hashable or value not in valid or flag != isinstance(value, bool):
                raise ValueError(f"{f.name}={value!r} is not valid; choose one of {', '.join(map(repr, valid))}")
            object.__setattr__(params, f.name, value)
        if f.name in limits:
            lo, hi = limits[f.name]
            whole = isinstance(lo, int) and isinstance(hi, int)
            object.__setattr__(params, f.name, check_number(f.name, value, lo, hi, whole=whole))


def check_name(name: str, value, valid: Iterable[str], kind: str) -> str:
    """`value` when it is one of `valid` names (a texture, a flat ...), else a ValueError naming `name`."""
    from wadgym.wads.iwad import suggest

    valid = set(valid)
    if not isinstance(value, str) or value.upper() not in valid:
        hint = suggest(value, valid) if isinstance(value, str) else ""
        raise ValueError(f"{name}={value!r} is not a {kind}{hint}")
    return value.upper()
