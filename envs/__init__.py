"""wadgym's environments: the one place users import them from, as from `minigrid.envs` or `gymnasium.vector`.

    from wadgym.envs import DoomEnv, ItemsEnv, ThreadVectorEnv, make

The package has four rooms (each name below says which it comes from):

- `doom_env.py` (DoomEnv, the one Gymnasium base) with what it uses beside it, `actions.py` (the action
  sets), `frames.py` (resolutions and downsamplers) and `aiming.py` (aiming and steering for scripted
  references); `multi.py` (the PettingZoo base and `make`), `registration.py` (the table of ids): the bases
  and the registry;
- `families/`: one module per task family, each the scenario (`Params`, `PRESETS`, `build`) and the task
  (a DoomEnv subclass), with its ACS template beside it (items, health, exit, defend, corridor, race,
  deathmatch);
- `scenarios/`: the pieces families share (arenas, buildings of rooms, item placement and its ACS, styles,
  ACS templates) and the scenario loader that `wadgym build` uses;
- `runtime/`: the engines (start, watchdog, killed engines' queue locks, netgames) and the WAD cache;
- `vector/`: the thread vector env (`threads`) and its Stable-Baselines3 VecEnv (`sb3`).

`import wadgym` registers the ids without starting an engine, so the names here are loaded on first use
(PEP 562): `from wadgym.envs import ItemsEnv` imports the items family then, and vizdoom with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    # the base, its action sets and the helpers a task's scripted reference uses
    "DoomEnv": "doom_env", "user_variable": "doom_env",
    "ACTION_SETS": "actions", "ATTACK_ACTION_SETS": "actions", "steer_towards": "aiming",
    # the task families' envs
    "ItemsEnv": "families.items", "HealthEnv": "families.health", "ExitEnv": "families.exit",
    "DefendEnv": "families.defend", "CorridorEnv": "families.corridor", "ItemsRaceEnv": "families.race",
    "DeathmatchEnv": "families.deathmatch", "DeathmatchBotsEnv": "families.deathmatch",
    # multi-agent ids (PettingZoo parallel envs; `pip install 'wadgym[multi]'`)
    "make": "multi", "MultiplayerEnv": "multi",
    # vector envs
    "ThreadVectorEnv": "vector.threads", "VectorEnvError": "vector.threads", "make_vector_env": "vector.threads",
    "ThreadVecEnv": "vector.sb3",
    # the engines wadgym started in this process (for a clean shutdown check)
    "child_engines": "runtime.engine",
    # the registry
    "ENVS": "registration", "MULTI_ENVS": "registration", "env_id_for": "registration", "score_name": "registration",
    # scenario helpers ("Your own task"): parameters, checks, layouts, looks, item placement, ACS templates
    "check_fields": "params", "check_name": "params", "check_number": "checks",
    "load_scenario": "scenarios", "build_scenario_levels": "scenarios", "build_scenario_wad": "scenarios",
    "scenario_wad": "scenarios",
    "ArenaFields": "scenarios.arena", "ARENA_LIMITS": "scenarios.arena", "arena_layout": "scenarios.arena",
    "GridFields": "scenarios.building", "GRID_LIMITS": "scenarios.building", "check_grid": "scenarios.building",
    "grid_plan": "scenarios.building", "room_distances": "scenarios.building", "centre": "scenarios.building",
    "Style": "scenarios.styles", "draw_style": "scenarios.styles",
    "ItemRules": "scenarios.placement", "items_script": "scenarios.placement", "item_actor": "scenarios.placement",
    "FloorGrid": "scenarios.floor_grid",
    "fill": "scenarios.acs_template", "acs_list": "scenarios.acs_template", "acs_fixed": "scenarios.acs_template",
    "acs_bool": "scenarios.acs_template", "rect_arrays": "scenarios.acs_template",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'wadgym.envs' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:  # what type checkers and editors see; never run
    from .actions import ACTION_SETS, ATTACK_ACTION_SETS
    from .aiming import steer_towards
    from .checks import check_number
    from .doom_env import DoomEnv, user_variable
    from .families.corridor import CorridorEnv
    from .families.deathmatch import DeathmatchBotsEnv, DeathmatchEnv
    from .families.defend import DefendEnv
    from .families.exit import ExitEnv
    from .families.health import HealthEnv
    from .families.items import ItemsEnv
    from .families.race import ItemsRaceEnv
    from .multi import MultiplayerEnv, make
    from .params import check_fields, check_name
    from .registration import ENVS, MULTI_ENVS, env_id_for, score_name
    from .runtime.engine import child_engines
    from .scenarios import build_scenario_levels, build_scenario_wad, load_scenario, scenario_wad
    from .scenarios.acs_template import acs_bool, acs_fixed, acs_list, fill, rect_arrays
    from .scenarios.arena import ARENA_LIMITS, ArenaFields, arena_layout
    from .scenarios.building import GRID_LIMITS, GridFields, centre, check_grid, grid_plan, room_distances
    from .scenarios.floor_grid import FloorGrid
    from .scenarios.placement import ItemRules, item_actor, items_script
    from .scenarios.styles import Style, draw_style
    from .vector.sb3 import ThreadVecEnv
    from .vector.threads import ThreadVectorEnv, VectorEnvError, make_vector_env
