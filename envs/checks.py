"""Argument checks shared by the envs and the scenarios, so every bad number reads the same way:
`n_items=100 is out of range; valid: 1 to 29`."""

from __future__ import annotations

import math
import numbers


def check_number(name: str, value, lo: float | None = None, hi: float | None = None, *, whole: bool = False):
    """`value` as a Python int (`whole`) or float, or a ValueError naming `name` and the valid range
    (None: unbounded on that side). Booleans and non-finite numbers are refused."""
    kind = numbers.Integral if whole else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind) or not math.isfinite(value):
        noun = "a whole number" if whole else "a finite number"
        raise ValueError(f"{name}={value!r} must be {noun}{_range_words(lo, hi, ' from ')}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{name}={value!r} is out of range; valid: {_range_words(lo, hi)}")
    return int(value) if whole else float(value)


def check_names(name: str, values, valid: tuple[str, ...], example: str, unknown: str = "unknown") -> tuple[str, ...]:
    """`values` as a tuple of `valid`'s names (matched in any case, returned as `valid` spells them); else a
    ValueError naming `name`, the bad ones (`unknown`: how the message calls them) and every valid name.
    `example`: a valid value as the message shows it, e.g. "('Demon',)"."""
    if isinstance(values, str) or not isinstance(values, (list, tuple)) or not values:
        raise ValueError(f"{name}={values!r} must be a non-empty sequence of {name[:-1]} names, e.g. {example}; "
                         f"valid: {', '.join(valid)}")
    by_lower = {v.lower(): v for v in valid}
    bad = [v for v in values if not isinstance(v, str) or v.lower() not in by_lower]
    if bad:
        raise ValueError(f"{name}: {unknown} {name[:-1]}(s) {bad!r}; valid: {', '.join(valid)}")
    return tuple(by_lower[v.lower()] for v in values)


def _range_words(lo, hi, prefix: str = "") -> str:
    if lo is not None and hi is not None:
        return f"{prefix}{lo} to {hi}"
    if lo is not None:
        return f"{prefix}{lo} or more" if prefix else f"{lo} or more"
    if hi is not None:
        return f"{prefix}{hi} or less" if prefix else f"{hi} or less"
    return ""
