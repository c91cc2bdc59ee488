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
import sys
from pathlib import Path
from types import ModuleType

# Scenarios that are not a task family (demos).
DEMOS: dict[str, str] = {
    "rooms": "wadgym.envs.scenarios.rooms",
}
# Every registered task family's module is a scenario too: wadgym.envs.registration adds them here
# (register_family) as it registers their envs, so that this package needs nothing from above it.
FAMILIES: dict[str, str] = {}


def register_family(name: str, module: str) -> None:
    """Make the task family module `module` (dotted) the scenario called `name` ("items")."""
    FAMILIES[name] = module


def scenarios() -> dict[str, str]:
    """Scenario name -> module: the demos and the registered families ("items" -> wadgym.envs.families.items)."""
    return {**DEMOS, **FAMILIES}


def get_scenario(name: str) -> ModuleType:
    """The scenario module called `name`; a ValueError lists the valid names."""
    known = scenarios()
    if name not in known:
        raise ValueError(f"unknown scenario {name!r}; valid scenarios: {', '.join(sorted(known))}")
    return importlib.import_module(known[name])


def load_scenario(scenario: str | ModuleType) -> ModuleType:
    """A scenario module from a registered name, a dotted module name, a Python file path, or a module."""
    if isinstance(scenario, ModuleType):
        module = scenario
    elif scenario in scenarios():
        module = get_scenario(scenario)
    elif scenario.endswith(".py") or os.path.sep in scenario:
        if not os.path.isfile(scenario):
            raise ValueError(f"scenario file {scenario!r} does not exist")
        name = "wadgym_scenario_" + os.path.splitext(os.path.basename(scenario))[0]
        spec = importlib.util.spec_from_file_location(name, scenario)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses (and pickle) look a class's module up there
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    else:
        try:
            module = importlib.import_module(scenario)
        except ImportError:
            raise ValueError(f"unknown scenario {scenario!r}; valid scenarios: {', '.join(sorted(scenarios()))}, "
                             f"or the path of a Python file defining build(rng, params) and Params") from None
    missing = [name for name in ("build", "Params") if not hasattr(module, name)]
    if missing:
        raise ValueError(f"scenario {module.__name__!r} lacks {' and '.join(missing)}; a scenario module defines "
                         f"Params, PRESETS and build(rng, params)")
    return module


def make_params(module: ModuleType, params=None):
    """The scenario's Params from None (its "default" preset), a preset name, a dict of overrides of the
    default preset, or a Params instance (see wadgym.envs.params.make_params)."""
    from wadgym.envs.params import make_params as resolve

    presets = getattr(module, "PRESETS", {})
    if params is None or isinstance(params, str):
        return resolve(module.Params, presets, params)
    if isinstance(params, dict):
        return resolve(module.Params, presets, None, params)
    if isinstance(params, module.Params):
        return params
    raise ValueError(f"params must be None, a preset name, a dict or {module.__name__}.Params, "
                     f"not {type(params).__name__}")


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


def scenario_wad(scenario: str, params, seed: int = 0, directory: str | os.PathLike | None = None) -> Path:
    """The cached WAD (wadgym.envs.runtime.cache) of the registered scenario `scenario` built with (params, seed)."""
    from wadgym.envs.runtime.cache import cached_wad

    description = {"scenario": scenario, "params": dataclasses.asdict(params), "seed": int(seed)}
    return cached_wad(scenario, description, lambda: build_scenario_wad(scenario, params, seed), directory)


def compile_acs(text: str, filename: str) -> bytes:
    """build_wad's compiler: wadgym.acs.compile_source, imported when a level first has scripts."""
    try:
        from wadgym.acs import compile_source
    except ImportError as error:
        raise ValueError(f"{filename}: this scenario has ACS scripts but the ACS compiler is not available "
                         f"({error})") from None
    return compile_source(text, filename)
