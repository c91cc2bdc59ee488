"""The defend family: hold out against waves of monsters in an arena (DoomDefend-v0, DoomDefendHard-v0).

One module: the scenario (`Params`, `PRESETS`, `build`) and the task (`DefendEnv`). The arena is a regular
polygon around the player, with optional pillars; the ACS template scenarios/defend.acs arms the player
and spawns the waves; the looks come from wadgym.envs.scenarios.styles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import vizdoom as vzd

from wadgym.envs.actions import ATTACK_ACTION_SETS
from wadgym.envs.aiming import aim_action
from wadgym.envs.checks import check_names, check_number
from wadgym.envs.doom_env import DoomEnv, user_variable
from wadgym.envs.params import check_fields
from wadgym.envs.scenarios.acs_template import acs_bool, acs_fixed, acs_list, fill
from wadgym.envs.scenarios.polygon import OUTLINES, Layout, arena, smallest_diameter
from wadgym.envs.scenarios.styles import draw_style
from wadgym.envs.scenarios.weapons import WEAPONS  # the player's weapon: weapon -> (ammo class, most carried)
from wadgym.wads import Level, MapBuilder

# Stock monsters a wave may hold (Doom 2 classes of vizdoom.pk3; Freedoom gives their sprites). Left out:
# those that spawn other monsters (PainElemental), raise the dead (Archvile) or fill the arena (bosses).
MONSTERS = ("ZombieMan", "ShotgunGuy", "ChaingunGuy", "DoomImp", "Demon", "Spectre", "Cacodemon", "HellKnight",
            "BaronOfHell", "Revenant", "Arachnotron", "Fatso")
PLAYER_TID = 900
MONSTER_TID = 1000            # monster k (counting from 0 in spawn order) has tid MONSTER_TID + k
SPAWN_CLEARANCE = 64          # between a monster's spawn point and any wall (the widest monster has radius 64)
TRIES_PER_TIC = 50            # spawn tries before the wave script waits a tic (ACS runs ~2M instructions a tic)
# Tics the engine plays before the first observation: the ENTER script runs in tic 1, then the weapon takes
# 16 tics to come up (A_Raise: 6 units a tic over 96).
START_TICS = 18
ALIVE_VARIABLE, WAVE_VARIABLE, SPAWNED_VARIABLE = 1, 2, 3  # USER1..USER3 (ACS globals 1..3)


@dataclass(frozen=True)
class Params:
    """A polygon arena (`shape`, inner diameter drawn per level from 3/4 `size` to `size`, `n_obstacles`
    square pillars of `obstacle_size`), the player's weapon and ammo, and the waves: `wave_size` monsters
    in the first wave, `wave_growth` more in each next one (at most `max_wave`), of kinds drawn from
    `monsters`, with `monster_speed` times their walking speed and `monster_health` health (0: their own).
    Wave timing in tics (35 a second): `spawn_interval` between two monsters of a wave, `wave_delay` from
    the end of a wave to the next. Monsters appear at least `spawn_distance` from the player. Light is
    drawn per level from `light_low` to `light_high`."""

    size: int = 1280
    shape: str = "random"
    n_obstacles: int = 0
    obstacle_size: int = 64
    monsters: tuple[str, ...] = ("ZombieMan", "Demon")
    monster_speed: float = 0.5
    monster_health: int = 5
    wave_size: int = 3
    wave_growth: int = 1
    max_wave: int = 8
    spawn_interval: int = 35
    wave_delay: int = 35
    spawn_distance: int = 288
    weapon: str = "Pistol"
    ammo: int = 200
    player_health: int = 100
    random_start_angle: bool = True
    light_low: int = 144
    light_high: int = 224

    def __post_init__(self):
        check_fields(self, {"size": (512, 4096), "n_obstacles": (0, 16), "obstacle_size": (32, 256),
                            "monster_speed": (0.1, 2.0), "monster_health": (0, 10000), "wave_size": (1, 32),
                            "wave_growth": (0, 32), "max_wave": (1, 32), "spawn_interval": (0, 350),
                            "wave_delay": (0, 1050), "spawn_distance": (64, 4096), "player_health": (1, 10000),
                            "light_low": (0, 255), "light_high": (0, 255)},
                     {"shape": ("random", *OUTLINES), "weapon": tuple(WEAPONS), "random_start_angle": (True, False)})
        object.__setattr__(self, "monsters", check_monsters(self.monsters))
        ammo_type, most = WEAPONS[self.weapon]
        check_number("ammo", self.ammo, 1, most, whole=True)
        if self.wave_size > self.max_wave:
            raise ValueError(f"wave_size={self.wave_size} is more than max_wave={self.max_wave}; "
                             f"valid: wave_size from 1 to max_wave")
        if self.light_low > self.light_high:
            raise ValueError(f"light_low={self.light_low} is above light_high={self.light_high}")
        room = smallest_spawn_radius(self)
        if self.spawn_distance > room - 32:
            raise ValueError(f"spawn_distance={self.spawn_distance} leaves no room to spawn monsters in the smallest "
                             f"arena of size={self.size} (monsters spawn at most {room} from its centre, "
                             f"{SPAWN_CLEARANCE} from the walls); valid: spawn_distance up to {room - 32}, or "
                             f"a larger size")


def check_monsters(monsters) -> tuple[str, ...]:
    """`monsters` as a tuple of MONSTERS' names (any case); else a ValueError listing the valid ones."""
    return check_names("monsters", monsters, MONSTERS, "('Demon',)")


def smallest_spawn_radius(p: Params) -> int:
    """How far from the centre monsters may spawn in the smallest arena `p` draws."""
    return smallest_diameter(p) // 2 - SPAWN_CLEARANCE


PRESETS: dict[str, Params] = {
    # Slow one-shot monsters, plenty of ammo, an open arena.
    "default": Params(),
    # Four kinds at full speed and health (two of them shoot back), a shotgun with 40 shells, pillars, darker.
    "hard": Params(size=1536, n_obstacles=4, obstacle_size=96, monsters=("ZombieMan", "ShotgunGuy", "DoomImp", "Demon"),
                   monster_speed=1.0, monster_health=0, wave_size=4, wave_growth=2, max_wave=16, spawn_interval=18,
                   spawn_distance=384, weapon="Shotgun", ammo=40, light_low=112, light_high=176),
    # ViZDoom's defend_the_center, covered (docs/transfer.md): a round room 1,200 to 1,600 across (the original:
    # an 18-sided room 1,600 across), 26 bullets, melee monsters of one bullet at full speed, five at a time
    # coming from afar (the original spawns them at its wall; its chainsaw marines are no Doom 2 class, so
    # demons stand in for them), the next five 90 tics after the last died (the original: each 90 tics after
    # its own death), light as the original's 210.
    "center": Params(size=1600, shape="round", monsters=("Demon",), monster_speed=1.0, monster_health=1, wave_size=5,
                     wave_growth=0, max_wave=5, spawn_interval=0, wave_delay=90, spawn_distance=512, ammo=26,
                     light_low=176, light_high=240),
}


def build(rng: np.random.Generator, p: Params) -> Level:
    """One level: a polygon arena around the player start, pillars, a look, and the waves' ACS."""
    layout = arena(rng, p)
    style = draw_style(rng, (p.light_low, p.light_high))
    angle = int(rng.integers(0, 360))
    m = MapBuilder()
    room = m.add_polygon_room(layout.outline, floor=style.floor, ceiling=style.ceiling, wall=style.wall,
                              ceiling_height=160, light=style.light)
    for pillar in layout.pillars:
        m.add_pillar(room, *pillar, wall=style.wall)
    m.add_player_start(*layout.centre, angle=angle)
    return Level(map=m, scripts=defend_script(p, layout), title="wadgym defend")


def defend_script(p: Params, layout: Layout) -> str:
    """The level's ACS: scenarios/defend.acs filled in with the parameters and the layout."""
    pillars = layout.pillars or [(0, 0, 0, 0)]
    grown = [round(math.hypot(x1 - x0, y1 - y0) / 2) + SPAWN_CLEARANCE for x0, y0, x1, y1 in pillars]
    values = {
        "player_tid": PLAYER_TID,
        "monster_tid": MONSTER_TID,
        "n_kinds": len(p.monsters),
        "kinds": ", ".join(f'"{m}"' for m in p.monsters),
        "monster_health": p.monster_health,
        "monster_speed": acs_fixed(p.monster_speed),
        "wave_size": p.wave_size,
        "wave_growth": p.wave_growth,
        "max_wave": p.max_wave,
        "wave_delay": p.wave_delay,
        "spawn_interval": p.spawn_interval,
        "tries_per_tic": TRIES_PER_TIC,
        "centre_x": layout.centre[0],
        "centre_y": layout.centre[1],
        "spawn_radius": layout.radius - SPAWN_CLEARANCE,
        "min_player_distance": p.spawn_distance,
        "n_pillars": len(layout.pillars),
        "pillar_size": len(pillars),
        "pillar_x": acs_list((x0 + x1) // 2 for x0, _, x1, _ in pillars),
        "pillar_y": acs_list((y0 + y1) // 2 for _, y0, _, y1 in pillars),
        "pillar_r": acs_list(grown),
        "player_health": p.player_health,
        "weapon": p.weapon,
        "ammo_type": WEAPONS[p.weapon][0],
        "ammo": p.ammo,
        "random_start_angle": acs_bool(p.random_start_angle),
    }
    return fill("defend.acs", values, package=__package__)


class DefendEnv(DoomEnv):
    """Hold out against waves of monsters in an arena that wadgym built from Python.

    ## Description
    The player stands in the centre of a polygon arena (square to octagon, optionally with pillars) with
    one weapon and a fixed amount of its ammo. An ACS script sends waves of stock Doom monsters: each
    appears at a random free point at least `spawn_distance` from the player, facing and hunting them;
    the next, larger wave comes `wave_delay` tics after the last monster of a wave died. The monster kinds,
    their walking speed and health, the weapon and the ammo come from the parameters (the difficulty).
    The script publishes its state in ACS global variables, which the env reads through ViZDoom's USER
    game variables:

    | USER variable | meaning |
    |---|---|
    | USER1 | monsters alive |
    | USER2 | wave number (1 for the first wave) |
    | USER3 | monsters spawned so far |

    Each level (see Levels) has its own arena shape, size, rotation, pillars, walls, floor, ceiling and light.

    ## Action Space
    `Discrete(5)` with `action_set="attack"` (the default): 0 attack, 1 turn left, 2 turn right, 3 turn left
    + attack, 4 turn right + attack. `Discrete(9)` with `action_set="attack_move"` adds 5 forward, 6
    backward, 7 strafe left, 8 strafe right. Each action holds its buttons for `frame_skip` tics (default 4).
    (The families' "basic" and "extended" sets have no attack.)

    ## Observation Space
    The screen as `Box(0, 255, (H, W, C), uint8)`, by default (60, 80, 1) gray; `resolution`,
    `render_resolution`, `downsample`, `color`, `game_variables` and `buffers` work as in every wadgym env
    (see wadgym.envs.families.items.ItemsEnv).

    ## Rewards
    `kill_reward` (default 1.0) for each monster the player killed in the step (the change of ViZDoom's
    KILLCOUNT; monsters killed by other monsters do not count), minus `damage_penalty` (default 0.0) per
    health point lost. The score (`info["score"]`, named "kills") is the number of kills so far.

    ## Starting State
    The player at the arena's centre with `player_health`, facing a random direction
    (`random_start_angle`), holding `weapon` with `ammo` rounds; the first monster of the first wave
    appears at once.

    ## Episode End
    Terminated when the player dies. Truncated only by the `TimeLimit` wrapper from `max_episode_steps` in
    the registration; the engine's own episode timeout is off.

    ## Info
    `score` and `kills` (int), `monsters_alive`, `wave`, `monsters_spawned` (ints, from the USER variables),
    `health` and `ammo` (ints: the player's health and the ammo of the weapon held), `level_seed` and `map`.

    ## Hand-made maps
    `wad="my_level.wad"` (or `"vizdoom:defend_the_center"`, `"vizdoom:defend_the_line"`) and `map="MAP01"`
    play that map with the same actions, observations and frame skip. The score is the engine's own
    KILLCOUNT (monsters with +COUNTKILL the player killed), the reward `kill_reward` per kill; `info` holds
    `score`, `kills`, `health`, `ammo`, `level_seed` None and `map` (the waves' counts come from the
    generator's ACS: absent). A map that places no monster and has no scripts (which could spawn them) is
    refused. On a ViZDoom scenario, `info["scenario_return"]` is the return as its ACS and .cfg reward it
    (1 a kill, death_penalty 1). No scripted reference there. Arguments `wad`, `map`, `doom_skill`,
    `episode_start_time`, `episode_timeout`: see ItemsEnv.

    ## Levels and seeding
    `num_levels` (0: unlimited) and `start_level` choose the levels, as procgen does: each reset draws a
    level seed in [start_level, start_level + num_levels) from `np_random`; `reset(options={"level_seed":
    s})` plays level s. Train on `num_levels=200` and test on `start_level=10_000` for held-out levels.
    `reset(seed=s)` seeds `np_random`, which draws the level and seeds the engine (the waves' kinds and
    places): the same seed and actions give the same episode.

    ## Arguments
    - preset: "default", "hard" or "center" (what ViZDoom's defend_the_center has: a round room, 26
      bullets, demons of one bullet at full speed, five at a time from afar); scenario parameters override
      the preset's: `size`, `shape` ("random": one of the four polygons, "square", "pentagon", "hexagon",
      "octagon", "round": 18 sides), `n_obstacles`, `obstacle_size`, `monsters` (a tuple of
      names from MONSTERS), `monster_speed`, `monster_health`, `wave_size`, `wave_growth`, `max_wave`,
      `spawn_interval`, `wave_delay`, `spawn_distance`, `weapon` (a name from WEAPONS), `ammo`,
      `player_health`, `random_start_angle`, `light_low`, `light_high` (see `Params`).
    - num_levels, start_level: the level range (see above).
    - frame_skip (1..64, default 4), resolution, render_resolution, downsample, color, game_variables,
      buffers, action_set ("attack", "attack_move", "basic", "extended").
    - kill_reward (default 1.0), damage_penalty (default 0.0, per health point).
    - cache_dir, render_mode, visit_reward, visit_cell (an exploration bonus, off by default): as in every
      wadgym env (wadgym.envs.families.items.ItemsEnv's Arguments).
    Unknown names and out-of-range values raise a ValueError naming what is valid: zero monsters
    (`wave_size=0`, `monsters=()`), more ammo than the weapon's maximum, a `spawn_distance` that leaves no
    room in the smallest arena, pillars that do not fit.

    ## Registered ids
    DoomDefend-v0 (slow monsters that die from one pistol bullet, 200 bullets, open arenas, 500 steps),
    DoomDefendHard-v0 (zombies, shotgun guys, imps and demons at full speed and health, a shotgun with 40
    shells, four pillars, darker, 1000 steps). Every level different.

    ## Version History
    - v0: initial version.
    """
    hand_made_example = "vizdoom:defend_the_center"

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    variables = ("KILLCOUNT", "HEALTH", "SELECTED_WEAPON_AMMO", user_variable(ALIVE_VARIABLE),
                 user_variable(WAVE_VARIABLE), user_variable(SPAWNED_VARIABLE))
    map_variables = ("KILLCOUNT", "HEALTH", "SELECTED_WEAPON_AMMO")
    score_name = "kills"
    action_sets = ATTACK_ACTION_SETS
    default_action_set = "attack"

    def __init__(self, kill_reward: float = 1.0, damage_penalty: float = 0.0, **kwargs: Any):
        self.kill_reward = check_number("kill_reward", kill_reward)
        self.damage_penalty = check_number("damage_penalty", damage_penalty)
        super().__init__(**kwargs)
        self._kills = 0
        self._kills_at_start = 0
        self._health = 0
        self._v: dict[str, float] = {}

    def configure_game(self, game: vzd.DoomGame) -> None:
        game.set_objects_info_enabled(True)  # monster positions for reference_action
        game.set_episode_start_time(START_TICS)  # the first observation has the weapon raised and ready

    def hand_made_problem(self, hand_made) -> str | None:
        return hand_made.lacks("COUNTKILL", "monster that counts as a kill")

    def on_reset(self, v) -> None:
        self._kills_at_start = int(v["KILLCOUNT"])
        self._kills = 0
        self._health = max(0, int(v["HEALTH"]))
        self._v = v

    def on_step(self, v) -> tuple[float, bool]:
        kills = int(v["KILLCOUNT"]) - self._kills_at_start
        new_kills, self._kills = kills - self._kills, kills
        health = max(0, int(v["HEALTH"]))
        lost, self._health = max(0, self._health - health), health
        self._v = v
        return new_kills * self.kill_reward - lost * self.damage_penalty, False

    @property
    def score(self) -> float:
        return self._kills

    def monster_positions(self) -> np.ndarray:
        """x, y (map units, float64 (N, 2)) of the monsters alive now, from the engine's object list."""
        return self.object_positions(self.params.monsters)

    def reference_action(self) -> int:
        """Turn towards the nearest live monster (engine positions; pillars in the way are not planned
        around) and fire when aimed at it; turn left while no monster is alive. Needs the "attack" or
        "attack_move" action set."""
        if self.hand_made:
            raise NotImplementedError("DefendEnv's scripted reference knows the monsters of the levels it builds only")
        if self._action_set not in self.action_sets:
            raise ValueError(f"reference_action needs action_set 'attack' or 'attack_move', not {self._action_set!r}")
        monsters = self.monster_positions()
        if not len(monsters):
            return 1
        x, y, _ = pose = self.player_pose()
        nearest = monsters[int(np.hypot(monsters[:, 0] - x, monsters[:, 1] - y).argmin())]
        return aim_action(pose, tuple(nearest), self.frame_skip, fire=0, left=1, right=2)

    def task_info(self) -> dict[str, Any]:
        v = self._v
        info = {"kills": self._kills, "health": self._health, "ammo": int(v.get("SELECTED_WEAPON_AMMO", 0))}
        if not self.hand_made:  # the waves the level's ACS publishes
            info.update(monsters_alive=int(v.get(self.variables[3], 0)), wave=int(v.get(self.variables[4], 0)),
                        monsters_spawned=int(v.get(self.variables[5], 0)))
        return info
