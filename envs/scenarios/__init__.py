"""Scenarios: pure map generators, each a module with `Params`, `PRESETS` and `build(rng, params)`.

A scenario module defines
- `Params`: a frozen dataclass of the scenario's parameters (map units, counts, scales ...),
- `PRESETS`: named `Params` (at least "default"),
- `build(rng: numpy.random.Generator, params: Params) -> wadgym.wads.Level` (or a list of Levels),
  a pure function: the same rng state and params give the same Level, hence the same WAD bytes.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
from types import ModuleType

# scenario name -> module. `wadgym build NAME` and the envs look scenarios up here.
SCENARIOS: dict[str, str] = {
    "rooms": "wadgym.envs.scenarios.rooms",
    "items": "wadgym.envs.scenarios.items",
    "maze": "wadgym.envs.scenarios.maze",
}


def get_scenario(name: str) -> ModuleType:
    """The scenario module called `name`; a ValueError lists the valid names."""
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; valid scenarios: {', '.join(sorted(SCENARIOS))}")
    return importlib.import_module(SCENARIOS[name])


def load_scenario(scenario: str | ModuleType) -> ModuleType:
    """A scenario module from a registered name, a dotted module name, a Python file path, or a module."""
    if isinstance(scenario, ModuleType):
        module = scenario
    elif scenario in SCENARIOS:
        module = get_scenario(scenario)
    elif scenario.endswith(".py") or os.path.sep in scenario:
        if not os.path.isfile(scenario):
            raise ValueError(f"scenario file {scenario!r} does not exist")
        name = "wadgym_scenario_" + os.path.splitext(os.path.basename(scenario))[0]
        spec = importlib.util.spec_from_file_location(name, scenario)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(scenario)
        except ImportError:
            raise ValueError(f"unknown scenario {scenario!r}; valid scenarios: {', '.join(sorted(SCENARIOS))}, "
                             f"or the path of a Python file defining build(rng, params) and Params") from None
    missing = [name for name in ("build", "Params") if not hasattr(module, name)]
    if missing:
        raise ValueError(f"scenario {module.__name__!r} lacks {' and '.join(missing)}; a scenario module defines "
                         f"Params, PRESETS and build(rng, params)")
    return module


def make_params(module: ModuleType, params=None):
    """The scenario's Params from None (its "default" preset), a preset name, a dict of overrides of the
    default preset, or a Params instance. Unknown presets or keys raise a ValueError listing valid ones."""
    presets = getattr(module, "PRESETS", {})
    default = presets.get("default") or module.Params()
    if params is None:
        return default
    if isinstance(params, str):
        if params not in presets:
            raise ValueError(f"unknown preset {params!r}; valid presets: {', '.join(sorted(presets)) or '(none)'}")
        return presets[params]
    if isinstance(params, dict):
        valid = [f.name for f in dataclasses.fields(module.Params)]
        unknown = sorted(set(params) - set(valid))
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(unknown)}; valid parameters: {', '.join(valid)}")
        return dataclasses.replace(default, **params)
    if isinstance(params, module.Params):
        return params
    raise ValueError(f"params must be None, a preset name, a dict or {module.__name__}.Params, not {type(params).__name__}")


def build_scenario_levels(scenario: str | ModuleType, params=None, seed: int = 0) -> list:
    """The scenario's Levels for `params` (see make_params) and `seed`."""
    import numpy as np

    module = load_scenario(scenario)
    levels = module.build(np.random.default_rng(seed), make_params(module, params))
    return levels if isinstance(levels, list) else [levels]


def build_scenario_wad(scenario: str | ModuleType, params=None, seed: int = 0) -> bytes:
    """WAD bytes of a scenario: its levels built with np.random.default_rng(seed), ACS compiled by
    wadgym.acs.compile_source. Deterministic: the same (scenario, params, seed) give the same bytes."""
    from wadgym.wads import build_wad

    return build_wad(build_scenario_levels(scenario, params, seed), compiler=compile_acs)


def compile_acs(text: str, filename: str) -> bytes:
    """build_wad's compiler: wadgym.acs.compile_source, imported when a level first has scripts."""
    try:
        from wadgym.acs import compile_source
    except ImportError as error:
        raise ValueError(f"{filename}: this scenario has ACS scripts but the ACS compiler is not available "
                         f"({error})") from None
    return compile_source(text, filename)
