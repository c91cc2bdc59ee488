"""The health family: stay alive on a floor that hurts by picking up medikits (DoomHealth-v0,
DoomHealthSupreme-v0), ViZDoom's health_gathering and health_gathering_supreme generalised to levels.

One module: the scenario (`Params`, `PRESETS`, `layout`, `build`), the ACS template beside the scenario
pieces (envs/families/health.acs: medikits and poison that appear over time) and the task (`HealthEnv`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import vizdoom as vzd

from wadgym.envs.aiming import steer_towards
from wadgym.envs.checks import check_number
from wadgym.envs.doom_env import DoomEnv, user_variable
from wadgym.envs.params import check_fields
from wadgym.envs.scenarios.acs_template import acs_bool, acs_fixed, acs_list, fill, rect_arrays
from wadgym.envs.scenarios.arena import ARENA_LIMITS, ArenaFields, arena_layout
from wadgym.envs.scenarios.building import GRID_LIMITS, GridFields, centre, check_grid, grid_plan
from wadgym.envs.scenarios.floor_grid import UNREACHABLE, FloorGrid
from wadgym.envs.scenarios.placement import (
    ItemRules,
    Rect,
    area_weights,
    check_room_for_items,
    placement_areas,
)
from wadgym.envs.scenarios.styles import draw_style
from wadgym.wads import Actor, Level, MapBuilder

LAYOUTS = ("arena", "maze")
MEDIKIT_CLASS = "WadgymMedikit"
POISON_CLASS = "WadgymPoison"
PICKUP_TID = 1000
PLAYER_TID = 999
MAX_SLOTS = 28           # USER1 .. USER56 hold the pickups' positions (health.acs)
SPAWNED_VARIABLE = 57    # USER57: pickups spawned so far
POISONS_VARIABLE = 58    # USER58: poison pickups taken
LIVE_VARIABLE = 59       # USER59: bitmask of slots holding a pickup
PLACED_VARIABLE = 60     # USER60: pickups placed when the map started
POSITION_VARIABLES = [getattr(vzd.GameVariable, user_variable(n)) for n in range(1, 2 * MAX_SLOTS + 1)]
FULL_HEALTH = 100        # medikits heal up to this, and are not taken at it
POISON_CLEARANCE = 48    # the reference policy keeps this far from poison (player radius 16 + pickup radius 20 + room)
UNDERFOOT = 64           # at full health the reference policy looks past medikits this close
# Random points a spawn tries. A try costs up to ~60 + 30 * slots ACS instructions and the OPEN script fills
# every slot in its first tic: 28 slots * 64 tries stay under the engine's 2,000,000 instructions per tic.
SPAWN_TRIES = 64


@dataclass(frozen=True)
class Params(ArenaFields, GridFields):
    """A floor that hurts (`floor_damage` health every 32 tics), `n_medikits` medikits healing
    `medikit_health` and `n_poisons` poison pickups hurting `poison_damage`, in an arena (`size`,
    `n_obstacles`, `obstacle_size`; layout "arena") or a maze of rooms (`rows`, `cols`, `cell_size`,
    `door_width`, `extra_doors`; layout "maze"). Each level draws its layout, walls, floor, ceiling and light
    (from `light_min` to `light_max`)."""

    layout: str = "arena"
    n_obstacles: int = 4
    floor_damage: int = 10
    n_medikits: int = 12
    medikit_health: int = 25
    n_poisons: int = 0
    poison_damage: int = 25
    spawn_interval: int = 32        # tics between refills of an empty medikit (and poison) slot
    pickup_scale: float = 2.0       # sprite scale of medikits and poison
    min_item_distance: int = 96     # between two pickups' centres, map units
    min_player_distance: int = 128  # between a new pickup and the player (at the start: the start)
    wall_clearance: int = 32        # between a pickup's centre and any wall or obstacle
    player_health: int = 100
    player_speed: float = 1.0
    random_start_angle: bool = True
    light_min: int = 144
    light_max: int = 224

    def __post_init__(self):
        check_fields(self, {**ARENA_LIMITS, **GRID_LIMITS, "floor_damage": (0, 100), "n_medikits": (1, MAX_SLOTS),
                            "medikit_health": (1, 100), "n_poisons": (0, MAX_SLOTS - 1), "poison_damage": (1, 100),
                            "spawn_interval": (1, 35 * 60), "pickup_scale": (0.25, 4.0),
                            "min_item_distance": (0, 4096), "min_player_distance": (0, 4096),
                            "wall_clearance": (20, 256), "player_health": (1, 100), "player_speed": (0.25, 4.0),
                            "light_min": (0, 255), "light_max": (0, 255)},
                     {"layout": LAYOUTS, "random_start_angle": (True, False)})
        check_grid(self)
        if self.n_medikits + self.n_poisons > MAX_SLOTS:
            raise ValueError(f"n_medikits={self.n_medikits} + n_poisons={self.n_poisons} is more than {MAX_SLOTS} "
                             f"pickups; lower them")
        if self.light_min > self.light_max:
            raise ValueError(f"light_min={self.light_min} must be at most light_max={self.light_max}")

    @property
    def n_slots(self) -> int:
        return self.n_medikits + self.n_poisons

    def pickup_rules(self) -> ItemRules:
        """The placement rules of wadgym.envs.scenarios.placement for every pickup at the start."""
        return ItemRules(n_items=self.n_slots, min_item_distance=self.min_item_distance,
                         min_start_distance=self.min_player_distance, wall_clearance=self.wall_clearance)


PRESETS: dict[str, Params] = {
    "default": Params(),
    # health_gathering_supreme's idea: a maze of rooms, poison among the medikits, darker.
    "supreme": Params(layout="maze", rows=3, cols=3, cell_size=384, extra_doors=0.3, n_medikits=12, n_poisons=6,
                      light_min=112, light_max=192),
}


@dataclass(frozen=True)
class Layout:
    """A level's plan as data: the free floor (rectangles), doorway passages between touching rectangles,
    obstacles inside the floor, and the player's start."""

    floor: list[Rect]
    links: list[tuple[int, int]]   # the floor rectangles each doorway joins
    doors: list[Rect]      # each doorway's opening, a segment along the shared wall (x0 == x1 or y0 == y1)
    obstacles: list[Rect]
    start: tuple[int, int]
    angle: int


def layout(rng: np.random.Generator, p: Params) -> Layout:
    """The level's plan, the first thing `build` draws from `rng` (so the env can draw it again)."""
    if p.layout == "arena":
        start, angle, pillars = arena_layout(rng, p)
        return Layout([(0, 0, p.size, p.size)], [], [], pillars, start, angle)
    plan = grid_plan(rng, p)
    start = centre(plan.cells[int(rng.integers(len(plan.cells)))])
    doors = [door_opening(plan.cells[a], plan.cells[b], p.door_width) for a, b in plan.doors]
    return Layout(plan.cells, plan.doors, doors, [], start, int(rng.integers(0, 4)) * 90)


def check_room_for_pickups(p: Params, plan: Layout) -> None:
    """Refuse parameters whose pickups would not all fit at the start (placement's numpy pre-check), in
    this family's parameter names."""
    try:
        check_room_for_items(p.pickup_rules(), plan.floor, plan.obstacles, plan.start)
    except ValueError:
        raise ValueError(f"n_medikits={p.n_medikits} + n_poisons={p.n_poisons} pickups, min_item_distance="
                         f"{p.min_item_distance}, min_player_distance={p.min_player_distance} and wall_clearance="
                         f"{p.wall_clearance} do not fit in the free floor at the start; lower them or enlarge "
                         f"the map") from None


def door_opening(a: Rect, b: Rect, width: int) -> Rect:
    """The opening MapBuilder.connect makes between touching rooms: `width` wide, centred on their shared wall."""
    if a[2] == b[0] or b[2] == a[0]:   # side by side: a vertical wall
        x = a[2] if a[2] == b[0] else a[0]
        mid = (max(a[1], b[1]) + min(a[3], b[3])) // 2
        return (x, mid - width // 2, x, mid + width // 2)
    y = a[3] if a[3] == b[1] else a[1]
    mid = (max(a[0], b[0]) + min(a[2], b[2])) // 2
    return (mid - width // 2, y, mid + width // 2, y)


def build(rng: np.random.Generator, p: Params) -> Level:
    """One level: the layout, then its look, drawn from `rng`; every floor hurts; ACS spawns the pickups."""
    plan = layout(rng, p)
    style = draw_style(rng, (p.light_min, p.light_max))
    check_room_for_pickups(p, plan)
    m = MapBuilder()
    rooms = [m.add_room(*rect, floor=style.floor, ceiling=style.ceiling, wall=style.wall, light=style.light,
                        damage=p.floor_damage) for rect in plan.floor]
    for pillar in plan.obstacles:
        m.add_pillar(rooms[0], *pillar, wall=style.wall)
    for a, b in plan.links:
        m.connect(rooms[a], rooms[b], width=p.door_width)
    m.add_player_start(*plan.start, angle=plan.angle)
    return Level(map=m, scripts=health_script(p, plan), actors=pickup_actors(p), title="wadgym health")


def pickup_actors(p: Params) -> list[Actor]:
    """The medikit (counts for ITEMCOUNT, heals `medikit_health` up to 100, taken only when it heals) and
    the poison (not counted, always taken, heals nothing: its pickup script hurts). Both are drawn
    fullbright, so that they stand out at any light level."""
    medikit = Actor(MEDIKIT_CLASS, parent="Medikit", flags=["+COUNTITEM"],
                    properties={"Inventory.Amount": p.medikit_health, "Scale": float(p.pickup_scale),
                                "Inventory.PickupMessage": ""},
                    states={"Spawn": ["MEDI A -1 BRIGHT", "Stop"]})
    poison = Actor(POISON_CLASS, parent="HealthBonus", flags=["-COUNTITEM", "+INVENTORY.ALWAYSPICKUP"],
                   properties={"Inventory.Amount": 0, "Scale": float(p.pickup_scale), "Inventory.PickupMessage": ""},
                   states={"Spawn": ["BON1 ABCDCB 6 BRIGHT", "Loop"]})
    return [medikit, poison] if p.n_poisons else [medikit]


def health_script(p: Params, plan: Layout) -> str:
    """The ACS source (health.acs filled in) that spawns the pickups of `p` on `plan`'s free floor."""
    c = p.wall_clearance
    areas = placement_areas(p.pickup_rules(), plan.floor)
    weights = area_weights(areas)
    blocked = [(x0 - c, y0 - c, x1 + c, y1 + c) for x0, y0, x1, y1 in plan.obstacles] or [(0, 0, 0, 0)]
    slots = range(p.n_slots)
    values = {
        "n_medikits": p.n_medikits,
        "n_slots": p.n_slots,
        "pickup_tid": PICKUP_TID,
        "player_tid": PLAYER_TID,
        "spawn_interval": p.spawn_interval,
        "poison_damage": p.poison_damage,
        "max_tries": SPAWN_TRIES,
        "min_item_distance": p.min_item_distance,
        "min_player_distance": p.min_player_distance,
        "start_x": plan.start[0],
        "start_y": plan.start[1],
        "floor_z": 0,
        "n_areas": len(areas),
        "total_weight": int(weights[-1]),
        "n_blocked": len(plan.obstacles),
        "blocked_size": len(blocked),
        "player_health": p.player_health,
        "player_speed": acs_fixed(p.player_speed),
        "random_start_angle": acs_bool(p.random_start_angle),
        "medikit_class": MEDIKIT_CLASS,
        "poison_class": POISON_CLASS,
        "position_globals": "\n".join(f"global int {2 * s + 1}:slot{s}_x;  global int {2 * s + 2}:slot{s}_y;"
                                      for s in slots),
        "publish_function": "// Copy the positions into the globals Python reads (scalar globals cannot be indexed).\n"
        "function void publish_positions(void)\n{\n"
        + "\n".join(f"    slot{s}_x = slot_x[{s}];  slot{s}_y = slot_y[{s}];" for s in slots) + "\n}",
        "area_weight": acs_list(weights),
        **rect_arrays("area", areas),
        **rect_arrays("blocked", blocked),
    }
    return fill("health.acs", values, package=__package__)


class HealthEnv(DoomEnv):
    """Stay alive on a floor that hurts by picking up the medikits that keep appearing.

    ## Description
    The player stands in a level built at run time (an open arena with pillars, or a maze of rooms joined
    by doorways) whose whole floor hurts: the engine takes `floor_damage` health every 32 tics (8 steps
    at the default frame_skip of 4) from a player standing on it (a UDMF sector `damageamount`, applied
    when the level time is a multiple of the sector's `damageinterval`, 32). Medikits lie at random free
    places and keep appearing: an ACS script places `n_medikits` when the map starts and, every
    `spawn_interval` tics, replaces one taken with a new one at another random place, at least
    `min_player_distance` from the player. A medikit heals `medikit_health` up to 100 and is taken only when
    the player is hurt. The supreme variant adds `n_poisons` poison pickups (a small bottle) that are always
    taken and hurt by `poison_damage`, respawning the same way, in a darker maze. The player is not invulnerable: at 0
    health it dies and the episode ends. ACS writes where the pickups are to ACS globals that the env
    reads through ViZDoom's USER game variables:

    | USER variable | meaning |
    |---|---|
    | USER(2s+1), USER(2s+2), s = 0..27 | x, y of the pickup of slot s (slots 0..n_medikits-1: medikits, then poison) |
    | USER57 | pickups spawned so far (changes whenever a position does) |
    | USER58 | poison pickups taken |
    | USER59 | bitmask of slots holding a pickup now (bit s: slot s) |
    | USER60 | pickups placed when the map started |

    Medikits are DECORATE actors with +COUNTITEM, so ViZDoom's ITEMCOUNT counts the medikits taken;
    poison does not count. Each level (see Levels) has its own layout, walls, floor, ceiling and light.

    ## Action Space
    `Discrete(5)` with `action_set="basic"`: 0 forward, 1 turn left, 2 turn right, 3 forward + turn
    left, 4 forward + turn right. `Discrete(9)` with `action_set="extended"` adds 5 no-op, 6 backward,
    7 strafe left, 8 strafe right. Each action holds its buttons for `frame_skip` tics (default 4).

    ## Observation Space
    The screen as `Box(0, 255, (H, W, C), uint8)`, by default (60, 80, 1) gray; see wadgym.envs.doom_env
    (and wadgym.envs.families.items.ItemsEnv) for `resolution`, `render_resolution`, `downsample`, `color`,
    `game_variables` (e.g. ("HEALTH",): the observation becomes a Dict with "gamevariables") and `buffers`.
    There is no HUD: the health is not on the screen unless asked for as a game variable.

    ## Rewards
    `living_reward` (default 1.0) for every step at whose end the player is alive, and `-death_penalty`
    (default 0.0) for the step in which it dies. With the defaults the return is the number of steps
    survived, the score (`info["score"]`, named "steps"), as ViZDoom's health_gathering rewards living.
    Optional shaping, off by default: `health_reward` times the step's change of health (medikits +,
    floor and poison -; a dead player's health counts as 0). The change is the difference of a potential
    (health) that is 0 when the episode ends in death, so it gives the taking of a medikit its credit at
    once without changing which policies survive longest (potential-based shaping, Ng et al. 1999).

    ## Starting State
    The player at the level's start with `player_health` health, facing a random direction
    (`random_start_angle`), an empty inventory; every medikit and poison slot filled anew.

    ## Episode End
    Terminated when the player dies (the engine ends the episode). Truncated only by the `TimeLimit`
    wrapper from `max_episode_steps` (525 steps = 2100 tics, health_gathering's limit); the engine's own
    timeout is off.

    ## Info
    `score` (steps survived), `health` (the engine's HEALTH), `medikits_collected` (ITEMCOUNT),
    `poisons_collected`, `medikit_positions` and `poison_positions` (int32 arrays (K, 2) of x, y map units
    of those lying in the map now), `level_seed` and `map`.

    ## Hand-made maps
    `wad="my_level.wad"` (or `"vizdoom:health_gathering"`, `"vizdoom:health_gathering_supreme"`) and
    `map="MAP01"` play that map with the same actions, observations and frame skip: the score is the steps
    survived (the engine's HEALTH above 0), the rewards as above; any map with a player start can be
    scored. `info` holds `score`, `health`, `level_seed` None and `map` (the pickups' positions and counts
    come from the generator's ACS: absent). On a ViZDoom scenario, `info["scenario_return"]` is the return
    as its .cfg rewards it (living_reward 1 a tic, death_penalty 100), to compare with published results.
    No scripted reference there. Arguments `wad`, `map`, `doom_skill`, `episode_start_time`,
    `episode_timeout`: see ItemsEnv.

    ## Levels and seeding
    `num_levels` (0: unlimited) and `start_level` choose the levels, as procgen does: each reset draws a
    level seed in [start_level, start_level + num_levels) from `np_random`; `reset(options={"level_seed":
    s})` plays level s. Train on `num_levels=200`, test on `start_level=10_000`. `reset(seed=s)` seeds
    `np_random`, which draws the level and seeds the engine (and so where ACS spawns the pickups): the
    same seed and actions give the same episode.

    ## Arguments
    - preset: "default" (arena) or "supreme" (maze with poison); scenario parameters override the
      preset's: `layout` ("arena", "maze"), `floor_damage`, `n_medikits`, `medikit_health`, `n_poisons`,
      `poison_damage`, `spawn_interval`, `pickup_scale`, `min_item_distance`, `min_player_distance`,
      `wall_clearance`, `player_health`, `player_speed`, `random_start_angle`, `light_min`, `light_max`,
      `size`, `n_obstacles`, `obstacle_size`, `rows`, `cols`, `cell_size`, `door_width`, `extra_doors`
      (see `Params`).
    - num_levels, start_level: the level range (see above).
    - frame_skip, resolution, render_resolution, downsample, color, game_variables, buffers, action_set,
      render_mode, cache_dir, visit_reward, visit_cell (an exploration bonus, off by default): as every
      wadgym env (wadgym.envs.families.items.ItemsEnv's Arguments).
    - living_reward (default 1.0), death_penalty (default 0.0), health_reward (default 0.0).
    Unknown names and out-of-range values raise a ValueError listing what is valid, and so do pickups
    that would not fit at the start (their placement is simulated when the WAD is built).

    ## Registered ids
    DoomHealth-v0 (1024 arena with 4 pillars, floor 10 per 32 tics, 12 medikits), DoomHealthSupreme-v0
    (mazes of 3 x 3 rooms, 12 medikits and 6 poisons, darker): 525 steps, every level different.

    ## Version History
    - v0: initial version.
    """
    hand_made_example = "vizdoom:health_gathering"

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    variables = ("HEALTH", "ITEMCOUNT", user_variable(SPAWNED_VARIABLE), user_variable(POISONS_VARIABLE),
                 user_variable(LIVE_VARIABLE), user_variable(PLACED_VARIABLE))
    map_variables = ("HEALTH",)
    score_name = "steps"

    def __init__(self, living_reward: float = 1.0, death_penalty: float = 0.0, health_reward: float = 0.0,
                 **kwargs: Any):
        self.living_reward = check_number("living_reward", living_reward)
        self.death_penalty = check_number("death_penalty", death_penalty)
        self.health_reward = check_number("health_reward", health_reward)
        super().__init__(**kwargs)
        self._steps = 0
        self._health = 0
        self._medikits = 0
        self._poisons = 0
        self._spawned = -1
        self._live = 0
        self._slots = np.zeros((0, 2), np.int32)

    def level_problem(self, v) -> str | None:
        placed, slots = int(v[self.variables[5]]), self.params.n_slots
        return None if placed >= slots else f"ACS placed {placed} of {slots} pickups in {self.map}"

    def on_reset(self, v) -> None:
        self._steps = 0
        self._spawned = -1
        self._update(v)

    def _update(self, v) -> None:
        self._health = int(v["HEALTH"])
        if self.hand_made:  # the health only: a foreign map publishes no pickups
            return
        self._medikits = int(v["ITEMCOUNT"])
        self._poisons = int(v[self.variables[3]])
        self._live = int(v[self.variables[4]])
        spawned = int(v[self.variables[2]])
        if spawned != self._spawned:   # a pickup appeared somewhere: read the positions again
            self._spawned = spawned
            game = self.game
            positions = [game.get_game_variable(POSITION_VARIABLES[n]) for n in range(2 * self.params.n_slots)]
            self._slots = np.array(positions, np.int32).reshape(-1, 2)

    def on_step(self, v) -> tuple[float, bool]:
        before = self._health
        self._update(v)
        shaping = self.health_reward * (max(self._health, 0) - max(before, 0))
        if self._health <= 0:
            return shaping - self.death_penalty, True
        self._steps += 1
        return self.living_reward + shaping, False

    @property
    def score(self) -> float:
        return self._steps

    def _positions(self, first: int, last: int) -> np.ndarray:
        live = (self._live >> np.arange(first, last)) & 1 == 1
        return self._slots[first:last][live]

    def medikit_positions(self) -> np.ndarray:
        return self._positions(0, self.params.n_medikits)

    def poison_positions(self) -> np.ndarray:
        return self._positions(self.params.n_medikits, self.params.n_slots)

    def task_info(self) -> dict[str, Any]:
        if self.hand_made:
            return {"health": self._health}
        return {
            "health": self._health,
            "medikits_collected": self._medikits,
            "poisons_collected": self._poisons,
            "medikit_positions": self.medikit_positions(),
            "poison_positions": self.poison_positions(),
        }

    # -- the scripted reference ------------------------------------------------------------------------

    def reference_action(self) -> int:
        """Head for the medikit nearest along the floor (round pillars, through doorways), keeping clear of
        poison where a way round exists; at full health, when a medikit would not be taken, for the nearest
        one not underfoot. From the positions ACS publishes and the level's plan."""
        if self.hand_made:
            raise NotImplementedError("HealthEnv's scripted reference needs the pickups and plan of a level it built")
        pose = self.player_pose()
        medikits = self.medikit_positions()
        if self._health >= FULL_HEALTH:
            medikits = medikits[np.hypot(medikits[:, 0] - pose[0], medikits[:, 1] - pose[1]) > UNDERFOOT]
        if not len(medikits):
            return 2   # turn right: wait for a medikit to appear
        grid = self._floor_grid()
        poisons = self.poison_positions()
        for avoid in ((True, False) if len(poisons) else (False,)):
            best = None
            for target in map(tuple, medikits.tolist()):
                distance = self._distances(grid, target, poisons if avoid else poisons[:0])
                steps = grid.steps_from(distance, pose[:2])
                if steps != UNREACHABLE and (best is None or steps < best[0]):
                    best = (steps, target, distance)
            if best is not None:
                return steer_towards(pose, grid.waypoint(best[2], pose[:2], best[1]))
        return 2

    def _floor_grid(self) -> FloorGrid:
        """The grid of the level being played (built again from its seed; kept while the level is played)."""
        if getattr(self, "_grid_level", None) != self.level_seed:
            plan = layout(np.random.default_rng(self.level_rng_seed(self.level_seed)), self.params)
            self._grid, self._grid_level, self._fields = FloorGrid(plan.floor, plan.doors, plan.obstacles), \
                self.level_seed, {}
        return self._grid

    def _distances(self, grid: FloorGrid, target: tuple[int, int], poisons: np.ndarray) -> np.ndarray:
        """Steps to `target` from every cell, avoiding `poisons`; kept while the same pickups lie in the map."""
        key = (target, poisons.tobytes())
        if key not in self._fields:
            if len(self._fields) > 4 * self.params.n_slots:
                self._fields.clear()
            blocked = grid.near(poisons, POISON_CLEARANCE) if len(poisons) else None
            self._fields[key] = grid.distances(target, blocked)
        return self._fields[key]
