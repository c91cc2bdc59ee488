"""ItemsEnv: collect every item in a map that wadgym builds from Python (DoomItems-v0 and its variants)."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import numpy as np
import vizdoom as vzd
from gymnasium.utils import EzPickle

from wadgym.envs.cache import scenario_wad
from wadgym.envs.checks import check_number
from wadgym.envs.doom_env import DoomEnv, user_variable
from wadgym.envs.scenarios import get_scenario

LAYOUTS = {"arena": "items", "maze": "maze"}  # layout -> scenario name in wadgym.envs.scenarios
REMAINING_VARIABLE = 59  # USER59: bitmask of items not yet collected
PLACED_VARIABLE = 60  # USER60: number of items placed


class ItemsEnv(DoomEnv, EzPickle):
    """Collect every item in a map that wadgym built from Python.

    ## Description
    The player stands in a map built at run time by `wadgym.envs.scenarios` (an open arena, or one of
    several procedurally generated mazes) and must walk over `n_items` collectable items. An ACS
    script places the items at random when each episode starts (never in walls or obstacles, at least
    `min_item_distance` apart and `min_start_distance` from the start) and writes their positions to
    ACS global variables, which the env reads through ViZDoom's USER game variables:

    | USER variable | meaning |
    |---|---|
    | USER(2i-1), USER(2i), i = 1..N | x, y of item i, whole map units |
    | USER59 | bitmask of items not yet collected (bit i-1: item i) |
    | USER60 | number of items placed (N) |

    The player is invulnerable by default, cannot die and carries nothing (the ENTER script clears the
    inventory and sets health, invulnerability and speed from the arguments).

    ## Action Space
    `Discrete(5)` with `action_set="basic"`: 0 forward, 1 turn left, 2 turn right, 3 forward + turn
    left, 4 forward + turn right. `Discrete(9)` with `action_set="extended"` adds 5 no-op, 6 backward,
    7 strafe left, 8 strafe right. Each action holds its buttons for `frame_skip` tics (default 4).

    ## Observation Space
    The screen as `Box(0, 255, (H, W, C), uint8)`: `resolution=(H, W)` (default (60, 80)), C = 1 gray
    (default) or 3 with `color=True`. The engine renders at `render_resolution` (default "160x120") and
    the frame is reduced by a whole factor f to (H, W), so H, W must divide it evenly:
    `downsample="stride"` (default) keeps the pixel at the centre of each f x f block, which costs the
    env nothing measurable; `"mean"` averages each block (smoother, ~10 us a step more). Gray values
    are the engine's own GRAY8 conversion. With `game_variables` (ViZDoom GameVariable names, e.g.
    ("POSITION_X", "POSITION_Y", "ANGLE")) the observation is a Dict: {"screen": the Box above,
    "gamevariables": Box(-inf, inf, (len(game_variables),), float32)}.

    ## Rewards
    `item_reward` (default 1.0) for each item collected in the step (the change of ViZDoom's ITEMCOUNT),
    minus `step_penalty` (default 0.0) every step.

    ## Starting State
    The player at the map's start facing a random direction (`random_start_angle`), items placed anew.

    ## Episode End
    Terminated when every item is collected (or, should it ever happen, when the engine ends the
    episode). Truncated only by the `TimeLimit` wrapper from `max_episode_steps` in the registration;
    the engine's own episode timeout is off.

    ## Info
    `items_collected` (int), `items_total` (int), `item_positions` (int32 array (N, 2) of x, y map units),
    `items_remaining` (bool array (N,), True for items still in the map),
    `map` (the map's lump name, e.g. "MAP03" in the maze).

    ## Seeding
    `reset(seed=s)` seeds `np_random`, which picks the maze layout and seeds the engine: the same seed
    gives the same item positions, layout and, for the same actions, the same episode. Without a seed
    each reset draws fresh randomness from `np_random`. The map itself is a pure function of the
    scenario parameters and `map_seed`.

    ## Arguments
    - layout: "arena" (default) or "maze"; preset: a name in the layout's PRESETS ("default", "hard").
    - Scenario parameters override the preset's, e.g. `n_items`, `item_scale`, `size`, `n_obstacles`
      (arena), `rows`, `cols`, `n_layouts` (maze): see `wadgym.envs.scenarios.items.Params`/`maze.Params`.
    - frame_skip (1..64, default 4), resolution, render_resolution, downsample ("stride", "mean"), color,
      game_variables, action_set.
    - item_reward (default 1.0), step_penalty (default 0.0).
    - map_seed (default 0): seed of the map generator (obstacles, maze layouts).
    - cache_dir: where built WADs are kept (default: $WADGYM_CACHE_DIR, else $XDG_CACHE_HOME/wadgym).
    - render_mode: None, "rgb_array" (render() returns the full engine frame in RGB, (h, w, 3) at
      `render_resolution`) or "human" (the engine's own window, paced at game speed; headless, where
      neither DISPLAY nor WAYLAND_DISPLAY is set, a warning says so and the env runs without a window).
    Unknown names and out-of-range values raise a ValueError listing what is valid, and so do item
    parameters that would not reliably fit (`n_items`, `min_item_distance`, `min_start_distance`,
    `wall_clearance` against the free floor: the ACS placement is simulated when the WAD is built). Should
    an episode's placement still fall short, reset starts another with the next engine seed (up to 5 times).

    ## Registered ids
    DoomItems-v0 (arena 1024, 10 items, 300 steps), DoomItemsHard-v0 (arena 2048 with 12 pillars,
    20 smaller items, 1000 steps), DoomItemsMaze-v0 (16 generated mazes of 4 x 4 rooms, 12 items,
    1000 steps). See wadgym.envs.registration.

    ## Version History
    - v0: initial version.
    """

    def __init__(
        self,
        layout: str = "arena",
        preset: str = "default",
        render_mode: str | None = None,
        frame_skip: int = 4,
        resolution: tuple[int, int] = (60, 80),
        render_resolution: str = "160x120",
        downsample: str = "stride",
        color: bool = False,
        game_variables: tuple[str, ...] = (),
        action_set: str = "basic",
        item_reward: float = 1.0,
        step_penalty: float = 0.0,
        map_seed: int = 0,
        cache_dir: str | None = None,
        **scenario_params: Any,
    ):
        arguments = locals()  # first statement: exactly the arguments, which EzPickle records to rebuild the env
        EzPickle.__init__(self, **{name: arguments[name] for name in ENV_ARGUMENTS}, **scenario_params)
        self.params = scenario_parameters(layout, preset, scenario_params)
        item_reward, step_penalty = check_number("item_reward", item_reward), check_number("step_penalty", step_penalty)
        map_seed = check_number("map_seed", map_seed, 0, whole=True)
        self._configure(frame_skip=frame_skip, resolution=resolution, render_resolution=render_resolution,
                        downsample=downsample, color=color, game_variables=tuple(game_variables), action_set=action_set,
                        render_mode=render_mode, tracked_variables=[vzd.GameVariable.ITEMCOUNT,
                                                                    user_variable(REMAINING_VARIABLE)])
        self.layout = layout
        self.item_reward = float(item_reward)
        self.step_penalty = float(step_penalty)
        scenario = LAYOUTS[layout]
        self.maps = list(getattr(get_scenario(scenario), "map_names", lambda p: ["MAP01"])(self.params))
        self.wad_path = scenario_wad(scenario, self.params, int(map_seed), cache_dir)
        self._items_total = 0
        self._items_collected = 0
        self._remaining_mask = 0
        self._item_positions = np.zeros((0, 2), np.int32)
        self._items_remaining = np.zeros(0, bool)

    def _choose_map(self) -> str:
        if len(self.maps) == 1:
            return self.maps[0]
        return self.maps[int(self.np_random.integers(len(self.maps)))]

    def _episode_problem(self, state) -> str | None:
        placed = int(self.game.get_game_variable(user_variable(PLACED_VARIABLE)))
        if placed < self.params.n_items:
            return f"ACS placed {placed} of {self.params.n_items} items in {self._map}"
        return None

    def _reset_scenario(self, state) -> None:
        game = self.game
        total = int(game.get_game_variable(user_variable(PLACED_VARIABLE)))
        positions = [game.get_game_variable(user_variable(n)) for n in range(1, 2 * total + 1)]
        self._item_positions = np.array(positions, np.int32).reshape(total, 2)
        self._items_total = total
        self._items_collected = int(state.game_variables[0])
        self._set_remaining(int(state.game_variables[1]))

    def _set_remaining(self, mask: int) -> None:
        self._remaining_mask = mask
        self._items_remaining = (mask >> np.arange(self._items_total)) & 1 == 1

    def _step_scenario(self, state) -> tuple[float, bool]:
        if state is None:  # the engine ended the episode (the player died): nothing more to collect
            items, mask, ended = self.game.get_game_variable(vzd.GameVariable.ITEMCOUNT), self._remaining_mask, True
        else:
            values = state.game_variables.tolist()  # one conversion from the engine's vector
            items, mask, ended = values[0], values[1], False
        collected = int(items) - self._items_collected
        self._items_collected += collected
        if mask != self._remaining_mask:
            self._set_remaining(int(mask))
        reward = collected * self.item_reward - self.step_penalty
        return reward, ended or self._items_collected >= self._items_total

    def _info(self) -> dict[str, Any]:
        # Copies: a caller may keep or change them (gymnasium's check_env refuses infos sharing arrays).
        return {
            "items_collected": self._items_collected,
            "items_total": self._items_total,
            "item_positions": self._item_positions.copy(),
            "items_remaining": self._items_remaining.copy(),
            "map": self._map,
        }


# The env's own arguments (the scenario parameters come as **scenario_params), from the signature.
ENV_ARGUMENTS = tuple(name for name, parameter in inspect.signature(ItemsEnv.__init__).parameters.items()
                      if name != "self" and parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD)


def scenario_parameters(layout: str, preset: str, overrides: dict[str, Any]):
    """The layout's preset with `overrides` applied; ValueError for an unknown layout, preset or name."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r} is not valid; choose one of {', '.join(map(repr, LAYOUTS))}")
    module = get_scenario(LAYOUTS[layout])
    if preset not in module.PRESETS:
        raise ValueError(f"preset={preset!r} is not valid for layout {layout!r}; "
                         f"choose one of {', '.join(map(repr, module.PRESETS))}")
    names = [f.name for f in dataclasses.fields(module.Params)]
    unknown = sorted(set(overrides) - set(names))
    if unknown:
        raise ValueError(f"unknown argument(s) {', '.join(unknown)} for layout {layout!r}; valid: "
                         f"{', '.join(ENV_ARGUMENTS)} and the scenario parameters {', '.join(names)}")
    return dataclasses.replace(module.PRESETS[preset], **overrides)
