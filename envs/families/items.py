"""The items family: collect every item in an arena or a maze that wadgym builds (DoomItems-v0/v1 and variants).

One module: the scenario (`Params`, `PRESETS`, `build`) and the task (`ItemsEnv`). The layouts, the item
placement in ACS with its numpy pre-check, and the looks come from wadgym.envs.scenarios.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import vizdoom as vzd

from wadgym.envs.aiming import steer_towards
from wadgym.envs.checks import check_number
from wadgym.envs.doom_env import DoomEnv, user_variable
from wadgym.envs.params import check_fields, check_name
from wadgym.envs.scenarios.arena import ARENA_LIMITS, ArenaFields, arena_layout
from wadgym.envs.scenarios.building import GRID_LIMITS, GridFields, centre, check_grid, grid_plan
from wadgym.envs.scenarios.floor_grid import UNREACHABLE, FloorGrid
from wadgym.envs.scenarios.placement import (
    ITEM_CHOICES,
    ITEM_LIMITS,
    MAX_ITEMS,
    PLACED_VARIABLE,
    REMAINING_VARIABLE,
    ItemRules,
    check_room_for_items,
    item_actor,
    items_script,
)
from wadgym.envs.scenarios.styles import Style, draw_style
from wadgym.wads import Level, MapBuilder, iwad

LAYOUTS = ("arena", "maze")
STYLES = ("fixed", "random")
# Item sprites a "random" style draws from: stock Health pickups that read well at 60x80.
STYLE_ITEM_PARENTS = ("Soulsphere", "Medikit", "Stimpack")
# The small palette from which "fixed"-style mazes draw each layout's walls, floor and light (as
# DoomItemsMaze-v0 always has).
MAZE_WALLS = ("STARTAN2", "STARTAN3", "BROWN1", "GRAY1", "STONE2", "BROWNGRN", "TEKGREN2", "METAL1")
MAZE_FLOORS = ("FLOOR0_1", "FLOOR4_8", "FLAT5_4", "FLOOR5_1", "FLAT14", "CEIL3_5")
# USER1 .. USER58: x, y of items 1 .. MAX_ITEMS (read once per episode, not tracked every step).
POSITION_VARIABLES = [getattr(vzd.GameVariable, user_variable(n)) for n in range(1, 2 * MAX_ITEMS + 1)]


@dataclass(frozen=True)
class Params(ItemRules, ArenaFields, GridFields):
    """Items in an arena (`size`, `n_obstacles`, `obstacle_size`) or a maze (`rows`, `cols`, `cell_size`,
    `door_width`, `extra_doors`). `style="random"` draws walls, floor, ceiling, light and the item sprite
    per level; `"fixed"` takes the arena's from `wall`, `floor`, `ceiling`, `light`, `item_parent` (a
    fixed-style maze draws walls, floor and light per layout from a small palette, as DoomItemsMaze-v0)."""

    layout: str = "arena"
    style: str = "random"
    floor: str = "FLOOR7_1"
    ceiling: str = "CEIL5_1"
    wall: str = "ASHWALL2"
    light: int = 144
    # DoomItemsMaze-v0's layouts: level k is the maze of the k-th seed drawn from np.random.default_rng(0).
    legacy_layouts: bool = False

    def __post_init__(self):
        check_fields(self, {**ITEM_LIMITS, **ARENA_LIMITS, **GRID_LIMITS, "light": (0, 255)},
                     {**ITEM_CHOICES, "layout": LAYOUTS, "style": STYLES, "legacy_layouts": (True, False)})
        check_grid(self)
        for name, names, kind in (("wall", iwad.textures(), "wall texture"), ("floor", iwad.flats(), "flat"),
                                  ("ceiling", iwad.flats(), "flat")):
            object.__setattr__(self, name, check_name(name, getattr(self, name), names, kind))


_CLASSIC = dict(style="fixed", item_parent="Soulsphere")
PRESETS: dict[str, Params] = {
    "default": Params(),
    "hard": Params(size=2048, n_items=20, item_scale=1.0, n_obstacles=12, obstacle_size=128),
    "maze": Params(layout="maze", n_items=12),
    "maze_large": Params(layout="maze", rows=6, cols=6, n_items=20),
    # The v0 ids: one look, and the maze's 16 layouts of DoomItemsMaze-v0.
    "classic": Params(**_CLASSIC),
    "classic_hard": Params(size=2048, n_items=20, item_scale=1.0, n_obstacles=12, obstacle_size=128, **_CLASSIC),
    "classic_maze": Params(layout="maze", n_items=12, legacy_layouts=True, **_CLASSIC),
}


def build(rng: np.random.Generator, p: Params) -> Level:
    """One level: the arena or a maze drawn from `rng`, with `p.n_items` items that ACS places."""
    return build_arena(rng, p) if p.layout == "arena" else build_maze(rng, p)


def level_look(rng: np.random.Generator, p: Params, fixed: Style) -> tuple[Style, str]:
    """The level's style and item sprite: drawn from `rng` for style "random", else `fixed` and item_parent."""
    if p.style == "fixed":
        return fixed, p.item_parent
    return draw_style(rng), STYLE_ITEM_PARENTS[int(rng.integers(len(STYLE_ITEM_PARENTS)))]


def build_arena(rng: np.random.Generator, p: Params) -> Level:
    """Square arena, the player start in its centre, optional pillars."""
    start, angle, pillars = arena_layout(rng, p)
    style, parent = level_look(rng, p, Style(p.wall, p.floor, p.ceiling, p.light))
    floor = [(0, 0, p.size, p.size)]
    check_room_for_items(p, floor, pillars, start)
    m = MapBuilder()
    arena = m.add_room(*floor[0], floor=style.floor, ceiling=style.ceiling, wall=style.wall, floor_height=0,
                       ceiling_height=128, light=style.light)
    m.add_player_start(*start, angle=angle)
    for pillar in pillars:
        m.add_pillar(arena, *pillar, wall=style.wall)
    return Level(map=m, scripts=items_script(p, floor, pillars, start, parent), actors=[item_actor(p, parent)],
                 title="wadgym items")


def build_maze(rng: np.random.Generator, p: Params) -> Level:
    """A grid of rooms joined by doorways (wadgym.envs.scenarios.building); the start in a random room."""
    plan = grid_plan(rng, p)
    start = centre(plan.cells[int(rng.integers(len(plan.cells)))])
    angle = int(rng.integers(0, 4)) * 90
    if p.style == "fixed":
        style = Style(MAZE_WALLS[int(rng.integers(len(MAZE_WALLS)))], MAZE_FLOORS[int(rng.integers(len(MAZE_FLOORS)))],
                      "CEIL5_1", int(rng.integers(144, 193)))
        parent = p.item_parent
    else:
        style, parent = level_look(rng, p, None)
    check_room_for_items(p, plan.cells, [], start)
    m = MapBuilder()
    rooms = [m.add_room(*cell, floor=style.floor, ceiling=style.ceiling, wall=style.wall, light=style.light)
             for cell in plan.cells]
    for a, b in plan.doors:
        m.connect(rooms[a], rooms[b], width=p.door_width)
    m.add_player_start(*start, angle=angle)
    return Level(map=m, scripts=items_script(p, plan.cells, [], start, parent), actors=[item_actor(p, parent)],
                 title="wadgym maze")


def legacy_layout_seed(level_seed: int) -> int:
    """DoomItemsMaze-v0's layout k: the k-th of the seeds its generator drew from np.random.default_rng(0),
    `integers(0, 2**62, size=k + 1)[k]`, without drawing the k before it. Each such draw takes one 64-bit output
    of the PCG64 generator and keeps its top 62 bits (2**62 divides 2**64, so Lemire's method never rejects
    one), so the k-th is that generator advanced k outputs, one output, shifted by 2. Drawing them all took
    8(k + 1) bytes: 14 GB for a held-out level seed near 2**31, and three evaluation players at once ran a 24 GB
    machine out of memory."""
    generator = np.random.PCG64(0)
    generator.advance(level_seed)
    return int(generator.random_raw()) >> 2


class ItemsEnv(DoomEnv):
    """Collect every item in a map that wadgym built from Python.

    ## Description
    The player stands in a level built at run time (an open arena, optionally with pillars, or a maze of
    rooms) and must walk over `n_items` collectable items. An ACS script places the items at random when
    each episode starts (never in walls or obstacles, at least `min_item_distance` apart and
    `min_start_distance` from the start) and writes their positions to ACS global variables, which the
    env reads through ViZDoom's USER game variables:

    | USER variable | meaning |
    |---|---|
    | USER(2i-1), USER(2i), i = 1..N | x, y of item i, whole map units |
    | USER59 | bitmask of items not yet collected (bit i-1: item i) |
    | USER60 | number of items placed (N) |

    The player is invulnerable by default, cannot die and carries nothing (the ENTER script clears the
    inventory and sets health, invulnerability and speed from the arguments). Each level (see Levels)
    has its own layout and, with `style="random"` (the v1 ids), its own walls, floor, ceiling, light and
    item sprite.

    ## Action Space
    `Discrete(5)` with `action_set="basic"`: 0 forward, 1 turn left, 2 turn right, 3 forward + turn
    left, 4 forward + turn right. `Discrete(9)` with `action_set="extended"` adds 5 no-op, 6 backward,
    7 strafe left, 8 strafe right. Each action holds its buttons for `frame_skip` tics (default 4).

    ## Observation Space
    The screen as `Box(0, 255, (H, W, C), uint8)`: `resolution=(H, W)` (default (60, 80)), C = 1 gray
    (default) or 3 with `color=True`. The engine renders at `render_resolution` (default "160x120") and
    the frame is reduced by a whole factor f to (H, W), so H, W must divide it evenly:
    `downsample="stride"` (default) keeps the pixel at the centre of each f x f block, `"mean"` averages
    each block. Gray values are the engine's own GRAY8 conversion. With `game_variables` (ViZDoom
    GameVariable names, e.g. ("POSITION_X", "POSITION_Y", "ANGLE")) or `buffers` (any of "depth",
    "labels", and one of "automap": the whole level and its things, privileged, or "automap_seen": the
    walls seen so far, turned with the player) the observation is a Dict: {"screen": the Box above, each
    buffer as a uint8 Box of the screen's size, "gamevariables": Box(-inf, inf, (len(game_variables),),
    float32)}.

    ## Rewards
    `item_reward` (default 1.0) for each item collected in the step (the change of ViZDoom's ITEMCOUNT),
    minus `step_penalty` (default 0.0) every step. The score (`info["score"]`, named "items") is the
    number of items collected so far.

    ## Starting State
    The player at the level's start facing a random direction (`random_start_angle`), items placed anew.

    ## Episode End
    Terminated when every item is collected. Truncated only by the `TimeLimit` wrapper from
    `max_episode_steps` in the registration; the engine's own episode timeout is off.

    ## Info
    `score` and `items_collected` (int), `items_total` (int), `item_positions` (int32 array (N, 2) of x, y
    map units), `items_remaining` (bool array (N,), True for items still in the map), `level_seed` (int)
    and `map` (the map's lump name).

    ## Hand-made maps
    `wad="my_level.wad"` (or `"vizdoom:NAME"`, a scenario shipped with ViZDoom) and `map="MAP01"` play that
    map instead of built levels, with the same actions, observations and frame skip. The score is the
    engine's own ITEMCOUNT: every item with +COUNTITEM taken (Soulsphere, Megasphere, the powerups, or a
    DECORATE actor of the WAD flagged so; a Medikit does not count); the reward `item_reward` per item.
    Its total is not known, so the episode ends only when the player dies or the map ends (or at the time
    limit); `info` holds `score`, `items_collected`, `level_seed` None and `map` (item positions and
    totals, which the generator's ACS publishes, are absent). A map that places no counted item and has
    no scripts (which could spawn some) is refused. No scripted reference there. See the "Hand-made maps"
    page of the documentation.

    ## Levels and seeding
    `num_levels` (0: unlimited) and `start_level` choose the levels, as procgen does: each reset draws a
    level seed in [start_level, start_level + num_levels) from `np_random` and plays the map built from
    it; `reset(options={"level_seed": s})` plays level s. Train on `num_levels=200` and test on
    `start_level=10_000` for held-out levels. `reset(seed=s)` seeds `np_random`, which draws the level and
    seeds the engine: the same seed gives the same level, item positions and, for the same actions, the
    same episode.

    ## Arguments
    - preset: a name in PRESETS ("default", "hard", "maze", "maze_large", "classic", "classic_hard",
      "classic_maze"); scenario parameters override the preset's: `layout`, `style`, `n_items`,
      `item_scale`, `item_parent`, `min_item_distance`, `min_start_distance`, `wall_clearance`,
      `player_health`, `player_invulnerable`, `player_speed`, `random_start_angle`, `size`,
      `n_obstacles`, `obstacle_size`, `rows`, `cols`, `cell_size`, `door_width`, `extra_doors`,
      `wall`, `floor`, `ceiling`, `light` (see `Params`).
    - num_levels, start_level: the level range (see above).
    - frame_skip (1..64, default 4), resolution, render_resolution, downsample ("stride", "mean"), color,
      game_variables, buffers, action_set ("basic", "extended").
    - item_reward (default 1.0), step_penalty (default 0.0).
    - visit_reward (default 0.0: off), visit_cell (16..1024, default 64): an exploration bonus for
      training, in every single-agent wadgym env. With `visit_reward=r`, each step in which the player
      stands in a square of the map (`visit_cell` units on a side, on a grid from the map's origin) that
      it has not stood in this episode adds r to the reward; the start's square counts as visited, and
      `info["cells_visited"]` counts the squares. This is the "grid oracle" count bonus of Savinov et al.
      (2018, Episodic Curiosity through Reachability): it knows the player's position, nothing of the
      task, and does not change the score. It pays walking to new places and nothing for turning on the
      spot; keep r small enough that what it can still pay after the task ends is worth less than the task.
    - wad (default None: built levels), map (default "MAP01"): a hand-made map to play (see Hand-made
      maps); with it `doom_skill` (1..5), `episode_start_time` and `episode_timeout` (tics; the engine's
      end at the timeout is a truncation) override the engine's start (a ViZDoom scenario's .cfg sets
      them). Scenario parameters and `start_level` are refused with `wad`, `preset` and `num_levels` ignored.
    - cache_dir: where built WADs are kept (default: $WADGYM_CACHE_DIR, else the user cache folder,
      e.g. ~/.cache/wadgym).
    - render_mode: None, "rgb_array" (render() returns the full engine frame in RGB, (h, w, 3) at
      `render_resolution`) or "human" (the engine's own window, paced at game speed; headless, a warning
      says so and the env runs without a window).
    Unknown names and out-of-range values raise a ValueError listing what is valid, and so do item
    parameters that would not reliably fit (the ACS placement is simulated when the WAD is built). Should
    an episode's placement still fall short, reset starts another with the next engine seed (up to 5 times).

    ## Registered ids
    DoomItems-v1 (arena 1024, 10 items, 300 steps), DoomItemsHard-v1 (arena 2048 with 12 pillars, 20
    smaller items, 1000 steps), DoomItemsMaze-v1 (mazes of 4 x 4 rooms, 12 items, 1000 steps): every level
    different. DoomItems-v0, DoomItemsHard-v0 (one level) and DoomItemsMaze-v0 (16 levels), one look.

    ## Version History
    - v1: levels (num_levels, start_level; unlimited by default), each with its own layout and look.
    - v0: initial version: one arena map (Hard: one pillar layout), or the maze's 16 layouts.
    """
    # a scenario whose scripts may spawn items: accepted, scored by ITEMCOUNT
    hand_made_example = "vizdoom:defend_the_center"

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    variables = ("ITEMCOUNT", user_variable(REMAINING_VARIABLE), user_variable(PLACED_VARIABLE))
    map_variables = ("ITEMCOUNT",)
    score_name = "items"

    def __init__(self, item_reward: float = 1.0, step_penalty: float = 0.0, **kwargs: Any):
        self.item_reward = check_number("item_reward", item_reward)
        self.step_penalty = check_number("step_penalty", step_penalty)
        super().__init__(**kwargs)
        self._items_total = 0
        self._items_collected = 0
        self._remaining_mask = 0
        self._item_positions = np.zeros((0, 2), np.int32)
        self._items_remaining = np.zeros(0, bool)

    def level_rng_seed(self, level_seed: int) -> int:
        return legacy_layout_seed(level_seed) if self.params.legacy_layouts else level_seed

    def level_problem(self, v) -> str | None:
        placed = int(v[self.variables[2]])
        if placed < self.params.n_items:
            return f"ACS placed {placed} of {self.params.n_items} items in {self.map}"
        return None

    def hand_made_problem(self, hand_made) -> str | None:
        return hand_made.lacks("COUNTITEM", "item that counts (e.g. Soulsphere, Megasphere, Berserk)")

    def on_reset(self, v) -> None:
        if self.hand_made:  # the engine's count only: a foreign map publishes no item positions
            self._items_collected = int(v["ITEMCOUNT"])
            return
        game = self.game
        total = int(v[self.variables[2]])
        positions = [game.get_game_variable(POSITION_VARIABLES[n]) for n in range(2 * total)]
        self._item_positions = np.array(positions, np.int32).reshape(total, 2)
        self._items_total = total
        self._items_collected = int(v["ITEMCOUNT"])
        self._set_remaining(int(v[self.variables[1]]))

    def _set_remaining(self, mask: int) -> None:
        self._remaining_mask = mask
        self._items_remaining = (mask >> np.arange(self._items_total)) & 1 == 1

    def on_step(self, v) -> tuple[float, bool]:
        collected = int(v["ITEMCOUNT"]) - self._items_collected
        self._items_collected += collected
        reward = collected * self.item_reward - self.step_penalty
        if self.hand_made:
            return reward, False
        mask = v[self.variables[1]]
        if mask != self._remaining_mask:
            self._set_remaining(int(mask))
        return reward, self._items_collected >= self._items_total

    @property
    def score(self) -> float:
        return self._items_collected

    def reference_action(self) -> int:
        """Head for the nearest item still in the map. In an arena in a straight line (pillars in the way are
        not planned around); in a maze the item nearest along the floor, by the shortest walk through the
        doorways of the level's plan (wadgym.envs.scenarios.floor_grid)."""
        if self.hand_made:
            raise NotImplementedError("ItemsEnv's scripted reference needs the item positions of a level it built")
        pose = self.player_pose()
        remaining = self._item_positions[self._items_remaining]
        if not len(remaining):
            return 0
        if self.params.layout == "maze":
            return self._maze_action(pose, remaining)
        nearest = remaining[int(np.hypot(remaining[:, 0] - pose[0], remaining[:, 1] - pose[1]).argmin())]
        return steer_towards(pose, nearest)

    def _maze_action(self, pose: tuple[float, float, float], remaining: np.ndarray) -> int:
        grid, fields = self._maze_grid()
        best = None
        for target in map(tuple, remaining.tolist()):
            if target not in fields:
                fields[target] = grid.distances(target)
            steps = grid.steps_from(fields[target], pose[:2])
            if steps != UNREACHABLE and (best is None or steps < best[0]):
                best = (steps, target)
        if best is None:  # off the grid (pressed into a corner): the straight line as in an arena
            nearest = remaining[int(np.hypot(remaining[:, 0] - pose[0], remaining[:, 1] - pose[1]).argmin())]
            return steer_towards(pose, nearest)
        return steer_towards(pose, grid.waypoint(fields[best[1]], pose[:2], best[1]))

    def _maze_grid(self) -> tuple[FloorGrid, dict]:
        """The floor grid of the maze being played, from its plan (build_maze draws grid_plan first from the
        level's generator), and the distance fields to its items; kept while the level is played."""
        if getattr(self, "_maze_level", None) != self.level_seed:
            plan = grid_plan(np.random.default_rng(self.level_rng_seed(self.level_seed)), self.params)
            doors = []
            for o in plan.openings:
                (x, y), half = o.ends[0], o.width // 2
                doors.append((x, y - half, x, y + half) if o.inward[0] else (x - half, y, x + half, y))
            self._maze_level, self._maze = self.level_seed, (FloorGrid(plan.cells, doors), {})
        return self._maze

    def task_info(self) -> dict[str, Any]:
        if self.hand_made:
            return {"items_collected": self._items_collected}
        # Copies: a caller may keep or change them (gymnasium's check_env refuses infos sharing arrays).
        return {
            "items_collected": self._items_collected,
            "items_total": self._items_total,
            "item_positions": self._item_positions.copy(),
            "items_remaining": self._items_remaining.copy(),
        }
