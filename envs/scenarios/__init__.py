"""Scenarios: pure map generators, each a module with `Params`, `PRESETS` and `build(rng, params)`.

A scenario module defines
- `Params`: a frozen dataclass of the scenario's parameters (map units, counts, scales ...),
- `PRESETS`: named `Params` (at least "default"),
- `build(rng: numpy.random.Generator, params: Params) -> wadgym.wads.Level` (or a list of Levels),
  a pure function: the same rng state and params give the same Level, hence the same WAD bytes.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# scenario name -> module. `wadgym build NAME` and the envs look scenarios up here.
SCENARIOS: dict[str, str] = {
    "rooms": "wadgym.envs.scenarios.rooms",
    "items": "wadgym.envs.scenarios.items",
}


def get_scenario(name: str) -> ModuleType:
    """The scenario module called `name`; a ValueError lists the valid names."""
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; valid scenarios: {', '.join(sorted(SCENARIOS))}")
    return importlib.import_module(SCENARIOS[name])
