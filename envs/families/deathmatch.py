"""The deathmatch family: 2-4 players fight for frags in a generated arena (DoomDeathmatch-v0).

One module: the scenario (`Params`, `PRESETS`, `build`: a polygon arena with pillars as DoomDefend's,
DeathmatchStarts to respawn at, and the ACS template scenarios/deathmatch.acs that moves the players to
their episode's starts and places weapons and ammo at random spots) and the task of one player
(`DeathmatchEnv`). The game is played through wadgym.envs.multi (a PettingZoo parallel env), which runs one
engine per player in a ViZDoom netgame started with `-deathmatch`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from wadgym.envs.checks import check_number
from wadgym.envs.doom_env import ATTACK_ACTION_SETS, DoomEnv, user_variable
from wadgym.envs.params import check_fields
from wadgym.envs.scenarios.acs_template import acs_list, fill
from wadgym.envs.scenarios.polygon import SHAPES, START_CLEARANCE, Layout, arena
from wadgym.envs.scenarios.styles import draw_style
from wadgym.wads import Level, MapBuilder

MAX_PLAYERS = 4
MAX_PICKUPS = 28             # globals 1 .. 56 hold their positions
PLACED_VARIABLE = 57         # USER57: pickups placed this episode
NONCE_VARIABLE = 58          # USER58: the nonce of the episode whose players and pickups are placed
SEED_SCRIPT = 4              # NET script (seed, nonce); `puke`d by the host
PLAYER_TID = 900             # player p has tid PLAYER_TID + p (ENTER and RESPAWN scripts)
PICKUP_TID = 1000
CORPSE_TID = 990             # a player's body when it died in the map change (the seed script removes it)
PLAYER_CLEARANCE = 48        # between a spot and any wall or pillar
DEATHMATCH_STARTS = 8        # respawn spots per level, evenly spread round the centre
MAX_TRIES = 400              # spot draws per player or pickup
WEAPONS = ("Shotgun", "Chaingun", "SuperShotgun", "RocketLauncher", "PlasmaRifle")
AMMO = ("Clip", "ClipBox", "Shell", "ShellBox", "RocketAmmo", "Cell")


@dataclass(frozen=True)
class Params:
    """A polygon arena (`shape`, inner diameter drawn per level from 3/4 `size` to `size`, `n_obstacles`
    square pillars of `obstacle_size`) for `n_players`; each episode places `n_weapons` weapons drawn from
    `weapons` and `n_ammo` ammo pickups drawn from `ammo` at random free spots, at least `pickup_spacing`
    apart, and the players at least `player_spacing` apart. Light is drawn per level from `light_low` to
    `light_high`."""

    n_players: int = 2
    size: int = 1024
    shape: str = "random"
    n_obstacles: int = 3
    obstacle_size: int = 64
    weapons: tuple[str, ...] = ("Shotgun", "Chaingun", "SuperShotgun")
    ammo: tuple[str, ...] = ("ClipBox", "ShellBox")
    n_weapons: int = 3
    n_ammo: int = 3
    player_spacing: int = 256
    pickup_spacing: int = 96
    player_health: int = 100
    light_low: int = 160
    light_high: int = 240

    def __post_init__(self):
        check_fields(self, {"n_players": (1, MAX_PLAYERS), "size": (512, 4096), "n_obstacles": (0, 16),
                            "obstacle_size": (32, 256), "n_weapons": (0, MAX_PICKUPS), "n_ammo": (0, MAX_PICKUPS),
                            "player_spacing": (0, 4096), "pickup_spacing": (0, 4096), "player_health": (1, 10000),
                            "light_low": (0, 255), "light_high": (0, 255)},
                     {"shape": ("random", *SHAPES)})
        for name, valid in (("weapons", WEAPONS), ("ammo", AMMO)):
            value = getattr(self, name)
            if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value \
                    or any(v not in valid for v in value):
                raise ValueError(f"{name}={value!r} must be a non-empty sequence of names; valid: {', '.join(valid)}")
            object.__setattr__(self, name, tuple(value))
        if self.n_weapons + self.n_ammo > MAX_PICKUPS:
            raise ValueError(f"n_weapons + n_ammo = {self.n_weapons + self.n_ammo} is more than {MAX_PICKUPS}")
        if self.light_low > self.light_high:
            raise ValueError(f"light_low={self.light_low} is above light_high={self.light_high}")


PRESETS: dict[str, Params] = {"default": Params()}


def spot_radius(layout: Layout) -> int:
    """How far from the centre a player or pickup may stand (the inner circle less a clearance)."""
    return layout.radius - PLAYER_CLEARANCE


def build(rng: np.random.Generator, p: Params) -> Level:
    """One level: the arena and pillars (drawn as DoomDefend draws them), a look, player starts and
    DeathmatchStarts on a circle round the centre, and the ACS that places players and pickups when seeded."""
    layout = arena(rng, p)
    style = draw_style(rng, (p.light_low, p.light_high))
    m = MapBuilder()
    room = m.add_polygon_room(layout.outline, floor=style.floor, ceiling=style.ceiling, wall=style.wall,
                              ceiling_height=160, light=style.light)
    for pillar in layout.pillars:
        m.add_pillar(room, *pillar, wall=style.wall)
    # Starts round the centre (kept clear of pillars): DeathmatchStarts on one circle, the player starts on a
    # smaller one, none within a player's width of another (a player spawned onto another telefrags it).
    phase = float(rng.uniform(0, 2 * math.pi))
    cx, cy = layout.centre
    reach = START_CLEARANCE - PLAYER_CLEARANCE // 2
    for count, radius, kind in ((DEATHMATCH_STARTS, reach, "DeathmatchStart"), (MAX_PLAYERS, reach // 2, None)):
        for k in range(count):
            a = phase + 2 * math.pi * k / count
            x, y, angle = round(cx + radius * math.cos(a)), round(cy + radius * math.sin(a)), round(math.degrees(a))
            if kind:
                m.add_thing(kind, x, y, angle % 360)
            else:
                m.add_player_start(x, y, angle=angle % 360, player=k + 1)
    return Level(map=m, scripts=deathmatch_script(p, layout), title="wadgym deathmatch")


def deathmatch_script(p: Params, layout: Layout) -> str:
    """scenarios/deathmatch.acs filled in with the parameters and the layout."""
    pillars = layout.pillars or [(0, 0, 0, 0)]
    grown = [round(math.hypot(x1 - x0, y1 - y0) / 2) + PLAYER_CLEARANCE for x0, y0, x1, y1 in pillars]
    n = p.n_weapons + p.n_ammo
    position_globals = "\n".join(
        f"global int {2 * i + 1}:pickup{i + 1}_x;  global int {2 * i + 2}:pickup{i + 1}_y;" for i in range(n))
    publish = "\n".join(f"    pickup{i + 1}_x = spot_x[N_PLAYERS + {i}];  pickup{i + 1}_y = spot_y[N_PLAYERS + {i}];"
                        for i in range(n))
    return fill("deathmatch.acs", package=__package__, values={
        "n_players": p.n_players, "n_weapons": p.n_weapons, "n_pickups": n, "player_tid": PLAYER_TID,
        "pickup_tid": PICKUP_TID, "corpse_tid": CORPSE_TID, "max_tries": MAX_TRIES, "player_spacing": p.player_spacing,
        "pickup_spacing": p.pickup_spacing, "centre_x": layout.centre[0], "centre_y": layout.centre[1],
        "spot_radius": spot_radius(layout), "n_pillars": len(layout.pillars), "player_health": p.player_health,
        "seed_script": SEED_SCRIPT, "position_globals": position_globals,
        "publish_function": f"function void publish_positions(void)\n{{\n{publish}\n}}",
        "weapon_size": len(p.weapons), "weapon_kinds": ", ".join(f'"{w}"' for w in p.weapons),
        "ammo_size": len(p.ammo), "ammo_kinds": ", ".join(f'"{a}"' for a in p.ammo),
        "pillar_size": len(pillars), "pillar_x": acs_list((x0 + x1) // 2 for x0, _, x1, _ in pillars),
        "pillar_y": acs_list((y0 + y1) // 2 for _, y0, _, y1 in pillars), "pillar_r": acs_list(grown),
    })


class DeathmatchEnv(DoomEnv):
    """One player's task in a deathmatch; played through wadgym.envs.multi, never alone.

    ## Description
    `n_players` players (1 to 4) fight in a polygon arena (square to octagon, with pillars) that wadgym
    built from Python. Each episode the map's ACS, seeded by the env, moves every player to a random free
    spot (at least `player_spacing` apart) facing a random way, and places `n_weapons` weapons and
    `n_ammo` ammo pickups at random free spots; their positions are published in ACS globals (USER1..56,
    x and y of pickup i in USER2i-1 and USER2i; USER57 the number placed). Players start with the stock
    pistol and 50 bullets; a killed player respawns about a second later at one of the level's
    DeathmatchStarts (the engine picks which) with the pistol again. Picked-up items come back after 30 s.
    Each level has its own arena shape, size, rotation, pillars and look.

    ## Action Space
    `Discrete(8)` with `action_set="deathmatch"` (the default): 0 attack, 1 turn left, 2 turn right,
    3 forward, 4 forward + turn left, 5 forward + turn right, 6 turn left + attack, 7 turn right + attack.
    Each action holds its buttons for `frame_skip` tics (default 4). Also "attack", "attack_move" (as
    DoomDefend's), "basic", "extended".

    ## Observation Space
    The player's own view, by default (60, 80, 1) gray; `game_variables=("HEALTH", "SELECTED_WEAPON_AMMO",
    "FRAGCOUNT")` adds them (any GameVariable names), as in every wadgym env.

    ## Rewards
    `frag_reward` (default 1.0) for each frag (the change of the player's FRAGCOUNT), minus
    `suicide_penalty` (default 0.5) for each suicide (the engine takes a frag away for one). Optional
    shaping, off by default: `damage_reward` per hit point dealt to other players (DAMAGECOUNT) and
    `death_penalty` per death (DEATHCOUNT).

    ## Episode End
    Never terminated (players respawn); truncated at the multi-agent env's `max_steps`.

    ## Info
    `score` and `frags` (this episode's frag count, suicides subtracted), `deaths`, `damage_dealt`,
    `health`, `pickups_placed`, `pickup_positions` ((n, 2) float), `level_seed` and `map`.

    ## Seeding
    A netgame's new episode does not reseed the engine, so the starts and pickups are drawn by the map's
    own generator from a seed the env sends (`episode_command`): the same seed gives the same starts,
    turns and pickups. Damage, respawn spots and the net code's timing are the engine's.

    ## Arguments
    - scenario parameters (see `Params`): `n_players`, `size`, `shape`, `n_obstacles`, `obstacle_size`,
      `weapons` (names from WEAPONS), `ammo` (names from AMMO), `n_weapons`, `n_ammo`, `player_spacing`,
      `pickup_spacing`, `player_health`, `light_low`, `light_high`.
    - num_levels, start_level, frame_skip, resolution, render_resolution, downsample, color,
      game_variables, buffers, action_set, cache_dir, render_mode: as in every wadgym env; not
      visit_reward (the single-agent envs' exploration bonus: a multi-agent env refuses it).
    - frag_reward, suicide_penalty, damage_reward, death_penalty (see Rewards).

    ## Version History
    - v0: initial version.
    """

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    variables = ("FRAGCOUNT", "DEATHCOUNT", "DAMAGECOUNT", "HEALTH", user_variable(PLACED_VARIABLE),
                 user_variable(NONCE_VARIABLE), *(user_variable(k) for k in range(1, 2 * MAX_PICKUPS + 1)))
    score_name = "frags"
    max_players: ClassVar[int] = MAX_PLAYERS  # declares multiplayer support (wadgym.envs.multi)
    # The netgame: deathmatch rules, a killed player respawns by itself 1 s later, no aiming help.
    netgame_args: ClassVar[str] = "-deathmatch +sv_forcerespawn 1 +viz_respawn_delay 1 +sv_noautoaim 1 " \
                                  "+sv_itemrespawn 1 +sv_weaponstay 0 +sv_nocrouch 1 +sv_spawnfarthest 1"
    action_sets = {
        "deathmatch": (("ATTACK",), ("TURN_LEFT",), ("TURN_RIGHT",), ("MOVE_FORWARD",),
                       ("MOVE_FORWARD", "TURN_LEFT"), ("MOVE_FORWARD", "TURN_RIGHT"), ("TURN_LEFT", "ATTACK"),
                       ("TURN_RIGHT", "ATTACK")),
        **ATTACK_ACTION_SETS,
    }
    default_action_set = "deathmatch"

    def __init__(self, player: int = 0, frag_reward: float = 1.0, suicide_penalty: float = 0.5,
                 damage_reward: float = 0.0, death_penalty: float = 0.0, **kwargs: Any):
        self.player = int(player)
        self.frag_reward = check_number("frag_reward", frag_reward)
        self.suicide_penalty = check_number("suicide_penalty", suicide_penalty, 0)
        self.damage_reward = check_number("damage_reward", damage_reward)
        self.death_penalty = check_number("death_penalty", death_penalty)
        super().__init__(**kwargs)
        self._start: dict[str, int] = {}
        self._now: dict[str, int] = {}
        self._positions = np.zeros((0, 2))

    def reset(self, *, seed=None, options=None):
        raise TypeError(f"{type(self).__name__} is one player of a multiplayer game: make it with "
                        f"wadgym.envs.multi.make('DoomDeathmatch-v0') (a PettingZoo parallel env)")

    # -- the multiplayer protocol (wadgym.envs.multi) ------------------------------------------------

    @staticmethod
    def episode_command(seed: int, nonce: int) -> str:
        """The console command (run by the host) that places the episode's players and pickups, seeded."""
        return f"puke {SEED_SCRIPT} {int(seed)} {int(nonce)}"

    def episode_ready(self, v, nonce: int) -> bool:
        return int(v[user_variable(NONCE_VARIABLE)]) == nonce

    def level_problem(self, v) -> str | None:
        placed, wanted = int(v[user_variable(PLACED_VARIABLE)]), self.params.n_weapons + self.params.n_ammo
        return None if placed == wanted else f"{placed} of {wanted} weapons and ammo found a free spot"

    # -- the task ------------------------------------------------------------------------------------

    def _counts(self, v) -> dict[str, int]:
        return {"frags": int(v["FRAGCOUNT"]), "deaths": int(v["DEATHCOUNT"]), "damage": int(v["DAMAGECOUNT"]),
                "health": int(v["HEALTH"])}

    def on_reset(self, v) -> None:
        self._start = self._now = self._counts(v)
        placed = int(v[user_variable(PLACED_VARIABLE)])
        self._positions = np.array([(v[user_variable(2 * i + 1)], v[user_variable(2 * i + 2)]) for i in range(placed)],
                                   dtype=float).reshape(-1, 2)

    def on_step(self, v) -> tuple[float, bool]:
        now, before = self._counts(v), self._now
        self._now = now
        change = now["frags"] - before["frags"]
        reward = max(change, 0) * self.frag_reward - max(-change, 0) * self.suicide_penalty
        reward += (now["damage"] - before["damage"]) * self.damage_reward
        reward -= (now["deaths"] - before["deaths"]) * self.death_penalty
        return reward, False

    @property
    def score(self) -> float:
        return self._now.get("frags", 0) - self._start.get("frags", 0)

    def task_info(self) -> dict[str, Any]:
        now, start = self._now, self._start
        return {"frags": self.score, "deaths": now.get("deaths", 0) - start.get("deaths", 0),
                "damage_dealt": now.get("damage", 0) - start.get("damage", 0), "health": now.get("health", 0),
                "pickups_placed": len(self._positions), "pickup_positions": self._positions.copy()}
