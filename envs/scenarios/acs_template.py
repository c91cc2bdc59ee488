"""ACS templates: readable `.acs` files beside the scenario code, filled in with `${name}` values.

A template is an ordinary ACS file (it travels in the WAD's SCRIPTS lump, so it is what a map editor
shows) with `$name` / `${name}` placeholders; `fill` substitutes every one or raises naming the missing
ones. The helpers write Python values the way ACS source spells them.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any


def fill(template: str, values: Mapping[str, Any], package: str = __package__) -> str:
    """The template file `template` of `package` (default: this folder) with `values` substituted."""
    text = resources.files(package).joinpath(template).read_text()
    try:
        return string.Template(text).substitute(values)
    except KeyError as error:
        raise ValueError(f"ACS template {template}: no value for ${{{error.args[0]}}}") from None


def acs_list(values: Iterable) -> str:
    """`1, 2, 3`: whole numbers for an array initializer."""
    return ", ".join(str(int(v)) for v in values)


def acs_fixed(value: float) -> str:
    """A fixed-point literal (`1.5000`): ACS reads a number with a point as 16.16 fixed point."""
    return f"{float(value):.4f}"


def acs_bool(value: bool) -> str:
    return "1" if value else "0"


def rect_arrays(prefix: str, rects: list[tuple[int, int, int, int]]) -> dict[str, str]:
    """{prefix_x0: "...", prefix_y0: ..., prefix_x1: ..., prefix_y1: ...}: rectangles as four arrays."""
    return {f"{prefix}_{name}": acs_list(r[i] for r in rects) for i, name in enumerate(("x0", "y0", "x1", "y1"))}
