"""The deathmatch family: players fight for frags in a generated arena (DoomDeathmatch-v0, DoomDeathmatchBots-v0).

One module: the scenario (`Params`, `PRESETS`, `build`: a polygon arena with pillars as DoomDefend's,
DeathmatchStarts to respawn at, and the ACS template scenarios/deathmatch.acs that moves the players to
their episode's starts and places weapons and ammo at random spots) and two tasks: one player of a 2-4
player game (`DeathmatchEnv`), played through wadgym.envs.multi (a PettingZoo parallel env), which runs one
engine per player in a ViZDoom netgame started with `-deathmatch`; and one agent against the engine's own
bots in one engine (`DeathmatchBotsEnv`, a Gymnasium env: `BotsParams`, `BOTS_PRESETS`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import numbers
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import vizdoom as vzd

from wadgym.envs.actions import ATTACK_ACTION_SETS
from wadgym.envs.aiming import bearing, on_aim
from wadgym.envs.checks import check_number
from wadgym.envs.doom_env import DoomEnv, user_variable
from wadgym.envs.match_figures import figures, match_steps
from wadgym.envs.params import check_fields
from wadgym.envs.runtime.netgame import PLAYER_NAME
from wadgym.envs.scenarios.acs_template import acs_list, fill
from wadgym.envs.scenarios.polygon import SHAPES, START_CLEARANCE, Layout, arena
from wadgym.envs.scenarios.styles import draw_style
from wadgym.files import write_atomic
from wadgym.wads import Level, MapBuilder

MAX_PLAYERS = 4              # agents (engines) in a netgame
MAX_PICKUPS = 28             # globals 1 .. 56 hold their positions
PLACED_VARIABLE = 57         # USER57: pickups placed this episode
NONCE_VARIABLE = 58          # USER58: the nonce of the episode whose players and pickups are placed
SEED_SCRIPT = 4              # NET script (seed, nonce); `puke`d by the host
TARGET_SCRIPT = 5            # OPEN script: the host's nearest live opponent in sight, each tic
TARGET_X_VARIABLE, TARGET_Y_VARIABLE = 59, 60  # USER59, USER60: its x and y, or NO_TARGET in both
NO_TARGET = -65536           # outside any map's coordinates (-32768 to 32767)
PLAYER_TID = 900             # player p has tid PLAYER_TID + p (ENTER and RESPAWN scripts)
PICKUP_TID = 1000
CORPSE_TID = 990             # a player's body when it died in the map change (the seed script removes it)
PLAYER_CLEARANCE = 48        # between a spot and any wall or pillar
DEATHMATCH_STARTS = 8        # respawn spots per level, evenly spread round the centre
MAX_SEATS = DEATHMATCH_STARTS  # players and bots in one game: a DeathmatchStart each (the engine holds 8)
MAX_BOTS = MAX_SEATS - 1     # beside one agent
MAX_TRIES = 400              # spot draws per player or pickup
RESPAWNS = ("centre", "walls")   # where the DeathmatchStarts stand (Params.respawn)
FOG_TICS = 75                # the seeded start's wait for the spawns' teleport fogs to fade
# The weapons a level may place or give, each with its ammo and the most of it a player carries (Doom's limits
# without a backpack: a starting weapon's `start_ammo`).
WEAPON_AMMO: dict[str, tuple[str, int]] = {"Shotgun": ("Shell", 50), "Chaingun": ("Clip", 200),
                                           "SuperShotgun": ("Shell", 50), "RocketLauncher": ("RocketAmmo", 50),
                                           "PlasmaRifle": ("Cell", 300)}
WEAPONS = tuple(WEAPON_AMMO)
AMMO = ("Clip", "ClipBox", "Shell", "ShellBox", "RocketAmmo", "Cell")

# The counts the task tracks (start-relative in info), and the frags of seats 2..8 (the bots', after the players).
COUNTS = ("FRAGCOUNT", "DEATHCOUNT", "DAMAGECOUNT", "DAMAGE_TAKEN", "HEALTH")
SEAT_FRAGS = tuple(f"PLAYER{k}_FRAGCOUNT" for k in range(2, MAX_SEATS + 1))

BOT_FIELDS = ("aiming", "perfection", "reaction", "isp")  # bots.cfg's skill fields, each 0 to 100
# bot_skill level -> (aiming, perfection, reaction, isp)
BOT_SKILLS: dict[int, tuple[int, int, int, int]] = {
    1: (20, 20, 20, 30), 2: (40, 40, 40, 50), 3: (60, 60, 60, 70), 4: (80, 80, 80, 85), 5: (100, 100, 100, 100)}
BOT_COLORS = ("40 cf 00", "b0 b0 b0", "50 50 60", "8f 00 00", "ff ff ff", "ff a0 00", "00 80 ff")


def _is_level(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Integral) and int(value) in BOT_SKILLS


@dataclass(frozen=True)
class Params:
    """A polygon arena (`shape`, inner diameter drawn per level from 3/4 `size` to `size`, `n_obstacles`
    square pillars of `obstacle_size`) for `n_players`; each episode places `n_weapons` weapons drawn from
    `weapons` and `n_ammo` ammo pickups drawn from `ammo` at random free spots, at least `pickup_spacing`
    apart, and the players at least `player_spacing` apart. Light is drawn per level from `light_low` to
    `light_high`. Every player (bots included) starts and respawns with the stock pistol and 50 bullets, and
    with `start_weapon` (a name from WEAPONS; "" for none) raised and `start_ammo` rounds of its ammo (0: what
    the weapon itself gives, as picking it up does). `bots` engine bots (0 to MAX_SEATS - n_players) join the
    players, each of skill level `bot_skill` (1 to 5, see BOT_SKILLS; or a sequence of levels, one per bot).
    `respawn` says where the DEATHMATCH_STARTS a player respawns at stand: "centre" (on a small circle round
    the centre, each facing out across the open arena) or "walls" (on the circle PLAYER_CLEARANCE inside the
    walls, each turned at random: many face a wall a few steps away, as the starts in cig.wad's corridors do)."""

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
    bots: int = 0
    bot_skill: int | tuple[int, ...] = 2
    start_weapon: str = ""
    start_ammo: int = 0
    respawn: str = "centre"

    def __post_init__(self):
        check_fields(self, {"n_players": (1, MAX_PLAYERS), "size": (512, 4096), "n_obstacles": (0, 16),
                            "obstacle_size": (32, 256), "n_weapons": (0, MAX_PICKUPS), "n_ammo": (0, MAX_PICKUPS),
                            "player_spacing": (0, 4096), "pickup_spacing": (0, 4096), "player_health": (1, 10000),
                            "light_low": (0, 255), "light_high": (0, 255)},
                     {"shape": ("random", *SHAPES), "start_weapon": ("", *WEAPONS), "respawn": RESPAWNS})
        most = WEAPON_AMMO[self.start_weapon][1] if self.start_weapon else None
        object.__setattr__(self, "start_ammo", check_number("start_ammo", self.start_ammo, 0, most, whole=True))
        if self.start_ammo and not self.start_weapon:
            raise ValueError(f"start_ammo={self.start_ammo} needs a start_weapon (one of {', '.join(WEAPONS)})")
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
        self._check_bots()

    def _check_bots(self) -> None:
        bots, most = self.bots, MAX_SEATS - self.n_players
        if isinstance(bots, bool) or not isinstance(bots, numbers.Integral) or not 0 <= bots <= most:
            raise ValueError(f"bots={bots!r} is not valid: a whole number from 0 to {most} (the arena has "
                             f"{MAX_SEATS} deathmatch starts, {self.n_players} of them for the agents)")
        object.__setattr__(self, "bots", int(bots))
        levels = ", ".join(map(str, BOT_SKILLS))
        skill = self.bot_skill
        if isinstance(skill, (list, tuple)):
            if len(skill) != self.bots or not all(_is_level(s) for s in skill):
                raise ValueError(f"bot_skill={skill!r} is not valid: one level per bot ({self.bots}), each one of "
                                 f"{levels}")
            object.__setattr__(self, "bot_skill", tuple(int(s) for s in skill))
        elif _is_level(skill):
            object.__setattr__(self, "bot_skill", int(skill))
        else:
            raise ValueError(f"bot_skill={skill!r} is not valid: a level, one of {levels} (or a sequence of levels, "
                             f"one per bot)")

    @property
    def players(self) -> int:
        """The players in the game, bots included, each placed by the seeded start (the ACS's N_PLAYERS)."""
        return self.n_players + self.bots

    @property
    def fog_tics(self) -> int:
        """Tics the seeded start waits, once every player is present, for the spawns' teleport fogs to fade
        (none with bots, which fight from the moment they join)."""
        return 0 if self.bots else FOG_TICS

    def bot_levels(self) -> tuple[int, ...]:
        """Each bot's skill level, in the order they join (after the players)."""
        skill = self.bot_skill
        return tuple(skill) if isinstance(skill, tuple) else (skill,) * self.bots


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
    # smaller one, none within a player's width of another (a player spawned onto another telefrags it). With
    # respawn="walls" the DeathmatchStarts stand on the circle of the spots farthest out (PLAYER_CLEARANCE from the
    # walls, beyond every pillar's PILLAR_GAP), each turned at random: drawn only then, so the default's levels
    # keep their bytes.
    phase = float(rng.uniform(0, 2 * math.pi))
    cx, cy = layout.centre
    reach = START_CLEARANCE - PLAYER_CLEARANCE // 2
    ring, turns = reach, None
    if p.respawn == "walls":
        ring, turns = spot_radius(layout) - 1, rng.integers(0, 360, DEATHMATCH_STARTS)   # -1: rounding
    for count, radius, kind in ((DEATHMATCH_STARTS, ring, "DeathmatchStart"), (MAX_PLAYERS, reach // 2, None)):
        for k in range(count):
            a = phase + 2 * math.pi * k / count
            x, y, angle = round(cx + radius * math.cos(a)), round(cy + radius * math.sin(a)), round(math.degrees(a))
            if kind:
                m.add_thing(kind, x, y, (angle if turns is None else int(turns[k])) % 360)
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
        "n_players": p.players, "n_weapons": p.n_weapons, "n_pickups": n, "player_tid": PLAYER_TID,
        "pickup_tid": PICKUP_TID, "corpse_tid": CORPSE_TID, "max_tries": MAX_TRIES, "player_spacing": p.player_spacing,
        "pickup_spacing": p.pickup_spacing, "centre_x": layout.centre[0], "centre_y": layout.centre[1],
        "spot_radius": spot_radius(layout), "n_pillars": len(layout.pillars), "player_health": p.player_health,
        "seed_script": SEED_SCRIPT, "target_script": TARGET_SCRIPT, "no_target": NO_TARGET,
        "fog_tics": p.fog_tics, "position_globals": position_globals,
        "publish_function": f"function void publish_positions(void)\n{{\n{publish}\n}}",
        "weapon_size": len(p.weapons), "weapon_kinds": ", ".join(f'"{w}"' for w in p.weapons),
        "ammo_size": len(p.ammo), "ammo_kinds": ", ".join(f'"{a}"' for a in p.ammo),
        "pillar_size": len(pillars), "pillar_x": acs_list((x0 + x1) // 2 for x0, _, x1, _ in pillars),
        "pillar_y": acs_list((y0 + y1) // 2 for _, y0, _, y1 in pillars), "pillar_r": acs_list(grown),
        "loadout": loadout(p),
    })


def loadout(p: Params) -> str:
    """The ACS lines that arm a (re)spawned player with `p.start_weapon` ("" without one: the script's text is
    then what it was before starting weapons existed, so the levels' WADs keep their bytes)."""
    if not p.start_weapon:
        return ""
    lines = [f'GiveInventory("{p.start_weapon}", 1);']
    if p.start_ammo:   # exactly start_ammo: what the weapon gave taken away first
        ammo, most = WEAPON_AMMO[p.start_weapon]
        lines += [f'TakeInventory("{ammo}", {most});', f'GiveInventory("{ammo}", {p.start_ammo});']
    lines.append(f'SetWeapon("{p.start_weapon}");')
    return "".join(f"\n    {line}" for line in lines)


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
    Each level has its own arena shape, size, rotation, pillars and look. With `bots=N` the engine's own
    bots (ZDoom's, as in DoomDeathmatchBots-v0, defined by wadgym: see `bot_skill`) take N more seats, after
    the players: the host adds them at each episode's start, the seeded start places them as it places the
    players, and they fight everyone.

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
    `health`, `pickups_placed`, `pickup_positions` ((n, 2) float), `bot_frags` (each bot's frags this
    episode, () without bots; also as `opponent_scores`), `rank` (1 + the number of bots with more
    frags), `level_seed` and `map`; and `match`, the episode so far in the units the field reports
    (wadgym.envs.match_figures; at the episode's end, the episode's): `frags`, `deaths`, `suicides` (the
    drops of the frag count: a frag and a suicide within one step cancel, neither counted), `kills` (frags +
    suicides), `kd_ratio` (kills / deaths; with no death, the kills), `frags_per_minute` (of game time),
    `damage_dealt` and `damage_taken` (ViZDoom's DAMAGECOUNT and DAMAGE_TAKEN) and `minutes` (the game
    time played: steps x frame_skip tics at 35 a second).

    ## Seeding
    The starts and pickups are drawn by the map's own generator from a seed the env sends
    (`episode_command`). `reset(seed=s)` starts a new game whose engines (damage, respawn spots, the bots'
    decisions) are seeded from `s` and the level: the same seed and actions play the same game, bots
    included, whatever came before. A seedless reset is the host's map change, which does not reseed the
    engines (the multi-agent page, Seeding).

    ## Arguments
    - scenario parameters (see `Params`): `n_players`, `size`, `shape`, `n_obstacles`, `obstacle_size`,
      `weapons` (names from WEAPONS), `ammo` (names from AMMO), `n_weapons`, `n_ammo`, `player_spacing`,
      `pickup_spacing`, `player_health`, `light_low`, `light_high`, `start_weapon` and `start_ammo` (a
      weapon every player starts and respawns with, raised, beside the pistol), `respawn` ("centre" or
      "walls": where the DeathmatchStarts stand).
    - `bots` (0 to 8 - n_players, default 0) and `bot_skill` (a level 1 to 5 for every bot, default 2, or
      one level per bot; the levels are DoomDeathmatchBots-v0's).
    - num_levels, start_level, frame_skip, resolution, render_resolution, downsample, color,
      game_variables, buffers, action_set, cache_dir, render_mode: as in every wadgym env; not
      visit_reward (the single-agent envs' exploration bonus: a multi-agent env refuses it).
    - frag_reward, suicide_penalty, damage_reward, death_penalty (see Rewards).

    ## Version History
    - v0: initial version.
    """

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    # The counts, the placement's USER57 and USER58, the pickups' positions, and the frags of seats 2..8 (bots').
    variables = (*COUNTS, user_variable(PLACED_VARIABLE), user_variable(NONCE_VARIABLE),
                 *(user_variable(k) for k in range(1, 2 * MAX_PICKUPS + 1)), *SEAT_FRAGS)
    map_variables = (*COUNTS, *SEAT_FRAGS)  # on a hand-made map (DoomDeathmatchBots-v0's wad=): engine counts only
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
        self._suicides = 0  # this episode's: the drops of the frag count
        self._tics = 0      # game tics played this episode
        self._bots_file = None
        # each bot's name and the variable of its frags (the bots sit after the players: bot i is player
        # n_players + i + 1, counting from 1 as the engine's PLAYERn variables do)
        self._bot_variables = [(bot_name(i), f"PLAYER{self.params.n_players + i + 1}_FRAGCOUNT")
                               for i in range(self.params.bots)]
        if self.params.bots:
            self.bots_file()  # written now: a cache folder the engine's arguments cannot name is refused here

    def reset(self, *, seed=None, options=None):
        raise TypeError(f"{type(self).__name__} is one player of a multiplayer game: make it with "
                        f"wadgym.envs.multi.make('DoomDeathmatch-v0') (a PettingZoo parallel env)")

    # -- the multiplayer protocol (wadgym.envs.multi) ------------------------------------------------

    @staticmethod
    def episode_command(seed: int, nonce: int) -> str:
        """The console command (run by the host) that places the episode's players and pickups, seeded."""
        return f"puke {SEED_SCRIPT} {int(seed)} {int(nonce)}"

    def bots_file(self):
        """The bots.cfg the engine reads: in the WAD cache, named by its contents (written on first use)."""
        if self._bots_file is None:
            from wadgym.envs.runtime.cache import cache_dir

            text = bots_cfg(self.params).encode()
            path = cache_dir(self.cache_dir) / f"bots-{hashlib.sha256(text).hexdigest()[:16]}.cfg"
            if any(c.isspace() for c in str(path)):
                raise ValueError(f"cache_dir: the bots file {str(path)!r} would have a space in its path, which the "
                                 f"engine's arguments cannot carry; pass cache_dir= a folder without one")
            if not path.is_file() or path.read_bytes() != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, text)
            self._bots_file = path
        return self._bots_file

    def bot_arguments(self) -> str:
        """The engine arguments that give the host the bots' definitions ("" without bots)."""
        return f"+viz_bots_path {self.bots_file()}" if self.params.bots else ""

    def netgame_arguments(self) -> str:
        """This game's engine arguments: the rules (`netgame_args`), the bots' file, and with bots beside a
        single player a one-player deathmatch host (`-host 1`, no socket opened): bots need a multiplayer game."""
        host = "-host 1 " if self.params.bots and self.params.n_players == 1 else ""
        return f"{host}{self.netgame_args} {self.bot_arguments()}".strip()

    def host_commands(self) -> list[str]:
        """Console commands the host runs at each new episode, before the seeded start: the bots leave and
        join again by name (the same bots in the same seats every episode)."""
        if not self.params.bots:
            return []
        return ["removebots", *(f"addbot {bot_name(i)}" for i in range(self.params.bots))]

    def episode_ready(self, v, nonce: int) -> bool:
        return int(v[user_variable(NONCE_VARIABLE)]) == nonce

    def level_problem(self, v) -> str | None:
        placed, wanted = int(v[user_variable(PLACED_VARIABLE)]), self.params.n_weapons + self.params.n_ammo
        return None if placed == wanted else f"{placed} of {wanted} weapons and ammo found a free spot"

    # -- the task ------------------------------------------------------------------------------------

    def _counts(self, v) -> dict[str, int]:
        counts = {"frags": int(v["FRAGCOUNT"]), "deaths": int(v["DEATHCOUNT"]), "damage": int(v["DAMAGECOUNT"]),
                  "taken": int(v["DAMAGE_TAKEN"]), "health": int(v["HEALTH"])}
        for name, variable in self._bot_variables:
            counts[name] = int(v[variable])
        return counts

    def on_reset(self, v) -> None:
        self._start = self._now = self._counts(v)
        self._suicides = self._tics = 0
        placed = 0 if self.hand_made else int(v[user_variable(PLACED_VARIABLE)])
        self._positions = np.array([(v[user_variable(2 * i + 1)], v[user_variable(2 * i + 2)]) for i in range(placed)],
                                   dtype=float).reshape(-1, 2)

    def on_step(self, v) -> tuple[float, bool]:
        now, before = self._counts(v), self._now
        self._now = now
        self._tics += self.frame_skip
        change = now["frags"] - before["frags"]
        self._suicides += max(-change, 0)  # the engine takes a frag away for a suicide (and gives none back)
        reward = max(change, 0) * self.frag_reward - max(-change, 0) * self.suicide_penalty
        reward += (now["damage"] - before["damage"]) * self.damage_reward
        reward -= (now["deaths"] - before["deaths"]) * self.death_penalty
        return reward, False

    @property
    def score(self) -> float:
        return self._now.get("frags", 0) - self._start.get("frags", 0)

    def task_info(self) -> dict[str, Any]:
        now, start = self._now, self._start
        bot_frags = tuple(now[n] - start[n] for n, _ in self._bot_variables) if now else (0,) * self.params.bots
        gained = {key: now.get(key, 0) - start.get(key, 0) for key in ("deaths", "damage", "taken")}
        info = {"frags": self.score, "deaths": gained["deaths"], "damage_dealt": gained["damage"],
                "health": now.get("health", 0), "bot_frags": bot_frags, "opponent_scores": bot_frags,
                "rank": 1 + sum(f > self.score for f in bot_frags),
                "match": figures(self.score, gained["deaths"], self._suicides, gained["damage"], gained["taken"],
                                 self._tics)}
        if not self.hand_made:  # what the family's own levels publish
            info.update(pickups_placed=len(self._positions), pickup_positions=self._positions.copy())
        return info


# -- one agent against the engine's bots ---------------------------------------------------------------

MAP_TICS = 2       # tics the `map` command (a new game) takes before the bots can join (1 did in vizdoom 1.3.2)
SETTLE_TICS = 300  # tics a reset waits for the bots to join and the seeded start to show
AIM_WHILE_TURNING = 25  # the scripted reference fires while turning at a bot this near the aim (degrees) ...
CLOSE_IN = 350          # ... and walks towards one farther than this (map units): 3.9 frags a 10-episode trial
                        # against 1.3 for the plain aimer (turn, then fire)


@dataclass(frozen=True)
class BotsParams(Params):
    """`Params` of one agent (`n_players` stays 1) and `bots` engine bots (0 to 7, default 3)."""

    n_players: int = 1
    bots: int = 3

    def __post_init__(self):
        if self.n_players != 1:
            raise ValueError(f"n_players={self.n_players!r} is not valid: DeathmatchBotsEnv has one agent (1); "
                             f"its opponents are bots= (0 to {MAX_BOTS})")
        super().__post_init__()


# What ViZDoom's cig.wad (the AI competition's map) deals: every player starts and respawns with a rocket launcher
# and 10 rockets, and its pickups are rocket launchers and rockets, so a rocket at a close wall or pillar hurts the
# one who fired it. The default's arenas never show a rocket launcher.
_ROCKETS = BotsParams(start_weapon="RocketLauncher", start_ammo=10, weapons=("RocketLauncher",), ammo=("RocketAmmo",))
BOTS_PRESETS: dict[str, BotsParams] = {
    "default": BotsParams(),
    "hard": BotsParams(bots=5, bot_skill=4),
    "rockets": _ROCKETS,
    # "rockets" with cig's respawns: every respawn at the arena's edge, turned at random, so a rocket fired on
    # respawning often meets a wall a few steps ahead (a policy trained on "rockets" spent cig's lives so).
    "rockets-walls": dataclasses.replace(_ROCKETS, respawn="walls"),
}


def bot_name(i: int) -> str:
    return f"Bot{i + 1}"


def bots_cfg(p: BotsParams) -> str:
    """The bots.cfg text of `p`'s bots (ZDoom's format: one {...} block per bot)."""
    blocks = []
    for i, level in enumerate(p.bot_levels()):
        fields = "".join(f"    {name:<11} {value}\n" for name, value in zip(BOT_FIELDS, BOT_SKILLS[level]))
        blocks.append(f"{{\n    name        {bot_name(i)}\n{fields}    color       \"{BOT_COLORS[i]}\"\n"
                      f"    skin        base\n}}\n")
    return "".join(blocks)


class DeathmatchBotsEnv(DeathmatchEnv):
    """One agent against the engine's bots in a generated deathmatch arena, in one engine.

    ## Description
    The deathmatch family's arenas (see DoomDeathmatch-v0: polygon arenas with pillars, every level
    different, weapons and ammo placed at random spots each episode) with one agent and `bots` built-in
    ZDoom bots (0 to 7) in one engine: a one-player deathmatch host (`-host 1 -deathmatch`, no network:
    the engine opens no socket) that adds the bots with the `addbot` console command each episode. Bots
    respawn like the agent (1 s after death, at a DeathmatchStart), pick up the level's weapons and ammo,
    and attack the agent and one another. The episode's seeded start (the map's ACS) moves the agent and
    every bot to random free spots.

    With `wad=` it plays a hand-made deathmatch map instead, against the same bots: one with
    DeathmatchStarts (things of editor number 11), where the engine spawns the agent and every bot; e.g.
    ViZDoom's own arenas `wad="vizdoom:cig"` (the ViZDoom AI competition's map, 25 starts, no player-1 start)
    and `wad="vizdoom:multi_deathmatch"` (2 starts: with more players than starts a spawn can telefrag, and
    the engine counts a telefrag after the map's first tic as a frag), read from the installed vizdoom package.
    A map without DeathmatchStarts is refused before any engine starts (a one-player deathmatch host on such a
    map crashes the ViZDoom client in init). There the weapons and ammo are the map's own, the players start
    where the engine spawns them, and `info` leaves out what only the family's arenas publish (the pickups);
    `bots` and `bot_skill` (and the Hard id's preset) still choose the bots.

    The bots are defined by wadgym, not by the wheel's bots.cfg: the env writes a bots.cfg of its own
    (`bots_cfg`, in the WAD cache, named by its contents) and points the engine at it (`+viz_bots_path`),
    so a level's opponents are a pure function of the env's arguments and seed. Each bot's skill level
    (`bot_skill`, 1 to 5, see BOT_SKILLS) sets ZDoom's four bots.cfg fields, each 0 to 100:
    - aiming: accuracy with instant-hit weapons (the aim is off by up to (100 - aiming)% of half the
      bots' field of fire; 100 aims straight);
    - reaction: the delay before the first shot at a new target, (101 - reaction) / 3..5 tics;
    - isp: composure: a bot stops firing while hurt by more than isp (its pain count), goes for health
      below isp health, and holds back rather than charge an enemy that ducked out of sight more often;
    - perfection: read from the file but unused by this engine's bot code (ViZDoom 1.3, ZDoom 2.8's bots).

    ## Action Space
    As DoomDeathmatch-v0: `Discrete(8)` with `action_set="deathmatch"` (attack, turns, forward, forward +
    turn, turn + attack); also "attack", "attack_move", "basic", "extended".

    ## Observation Space
    The agent's view, by default (60, 80, 1) gray; `game_variables=(...)` adds GameVariables.

    ## Rewards
    +`frag_reward` (1.0) for each frag and -`death_penalty` (1.0) for each death. Suicides count as the
    engine counts them: the engine takes a frag away (FRAGCOUNT - 1) and counts a death, so a suicide
    costs the death's -1 and lowers the score by one (`suicide_penalty`, default 0, adds a penalty per
    frag taken away). Shaping is off by default: `damage_reward` per hit point dealt (DAMAGECOUNT), and
    `aim_reward`, potential-based aim shaping from the map's ACS (privileged, as the scripted reference):
    each step adds the change of `aim_reward * (1 - |off| / 180)`, where `off` is how many degrees the
    nearest live bot in sight stands off the agent's aim (the potential is 0 with no bot in sight), so
    turning towards a bot pays, turning away costs, and an episode's aim rewards sum to at most
    `aim_reward` in size.

    ## Episode End
    Never terminated on the family's arenas (the agent respawns; on a hand-made map, terminated when the map
    ends, e.g. when multi_deathmatch's ACS ends it at a death); truncated at `max_episode_steps` (500 steps,
    2000 tics) or, with `match_minutes`, when the match's game time is up. A match of `match_minutes=4`
    against `bots=7` is the setting Sample Factory's and doom-arena's figures are for (their 4-minute
    matches end by ZDoom's `timelimit`, which ends a deathmatch level once its time since the map's start
    reaches that many minutes, and ViZDoom then reports the episode's timeout); wadgym counts the minutes
    from the agent's first step (the seeded start's tics before it are not the agent's) and ends the episode
    as a truncation after `match_steps` steps: ceil(minutes x 2100 tics / frame_skip), 2100 at frame skip 4.
    The TimeLimit of the registration (500 steps) still applies: make the env with `max_episode_steps` at
    least `match_steps`, e.g. `gym.make("DoomDeathmatchBots-v0", bots=7, match_minutes=4, max_episode_steps=2100)`.

    ## Info
    `score` and `frags` (the agent's frags this episode, suicides subtracted), `bot_frags` (each bot's
    frags this episode, in the order they joined: the engine's PLAYERn_FRAGCOUNT; also as `opponent_scores`,
    which the evaluation's "median opponent" reads), `rank` (1 + the
    number of bots with more frags than the agent), `deaths`, `damage_dealt`, `health`, `pickups_placed`,
    `pickup_positions` (not on a hand-made map), `level_seed` and `map`; and `match`, the episode so far in
    the units the field reports (as DoomDeathmatch-v0's; wadgym.envs.match_figures): `frags`, `deaths`,
    `suicides` (the drops of the frag count: a frag and a suicide within one step cancel, neither counted),
    `kills` (frags + suicides), `kd_ratio` (kills / deaths; with no death, the kills), `frags_per_minute`
    (frags over the game minutes played), `damage_dealt`, `damage_taken` and `minutes` (steps x frame_skip
    tics at 35 a second). `wadgym eval` and the learning benchmark show frags per minute and K/D beside
    the score.

    ## Seeding
    `reset(seed=s)` seeds np_random, which draws the level, the engine's seed (the bots' decisions and the
    damage come from the engine's generator) and the seed of the map's placement of players and pickups:
    two envs reset with the same seed and given the same actions play the same episode, bots included,
    whatever episodes each played before (each episode is a new game: the engine's generators restart from
    the seed; bench/bots_speed.py measured 50 of 50 episodes alike). A bot that joins can telefrag a
    player at its DeathmatchStart before the seeded start; the counts in `info` start after it.

    ## Arguments
    - `bots` (0 to 7, default 3) and `bot_skill` (a level 1 to 5 for all bots, default 2, or a sequence
      of levels, one per bot);
    - the deathmatch scenario parameters (see `Params`; `n_players` stays 1): `size`, `shape`,
      `n_obstacles`, `obstacle_size`, `weapons`, `ammo`, `n_weapons`, `n_ammo`, `player_spacing`,
      `pickup_spacing`, `player_health`, `light_low`, `light_high`, `start_weapon`, `start_ammo`, `respawn`;
    - `preset`: "default", "hard" (the Hard id's bots), "rockets" (cig.wad's weapons on the arenas: every
      player starts and respawns with a rocket launcher and 10 rockets, the pickups rocket launchers and
      rockets) or "rockets-walls" ("rockets" with respawn="walls": the respawns at the arena's edge, each
      turned at random, as cig's stand in its corridors);
    - `match_minutes` (default None: no match clock): end each episode after that many minutes of game
      time, as a truncation (see Episode End);
    - `wad=` (a WAD with DeathmatchStarts, or "vizdoom:NAME") and `map=`: play that hand-made map (see
      Description; not with aim_reward, which needs the family's arenas' ACS);
    - num_levels, start_level, frame_skip, resolution, render_resolution, downsample, color,
      game_variables, buffers, action_set, cache_dir, render_mode, visit_reward: as in every wadgym env;
    - frag_reward, death_penalty, suicide_penalty, damage_reward, aim_reward (see Rewards).

    ## Registered ids
    - DoomDeathmatchBots-v0: 3 bots of level 2;
    - DoomDeathmatchBotsHard-v0: 5 bots of level 4.

    ## Version History
    - v0: initial version.
    """
    # the ViZDoom AI competition's map: deathmatch starts, where the bots play
    hand_made_example = "vizdoom:cig"

    Params, PRESETS = BotsParams, BOTS_PRESETS
    # The counts, the placement's USER57 and USER58, and the bots' frags; the pickups' positions are read once
    # a reset (on_reset), not every step.
    variables = (*COUNTS, user_variable(PLACED_VARIABLE), user_variable(NONCE_VARIABLE), *SEAT_FRAGS,
                 user_variable(TARGET_X_VARIABLE), user_variable(TARGET_Y_VARIABLE))
    max_players: ClassVar[int] = 1  # not a multiplayer family: the opponents are the engine's
    # A one-player deathmatch host on a map without DeathmatchStarts (e.g. vizdoom:health_gathering) crashes the
    # ViZDoom client (vizdoom 1.3.2: a segmentation fault in DoomGame.init): wad= takes maps that have them.
    hand_made_starts: ClassVar[str] = "deathmatch"
    hand_made_params: ClassVar[tuple[str, ...]] = ("bots", "bot_skill")
    level_only_kwargs = ("aim_reward",)   # the arenas' ACS points at the nearest bot
    reset = DoomEnv.reset  # a Gymnasium env of its own (DeathmatchEnv's reset refuses)

    def __init__(self, frag_reward: float = 1.0, death_penalty: float = 1.0, suicide_penalty: float = 0.0,
                 damage_reward: float = 0.0, aim_reward: float = 0.0, match_minutes: float | None = None,
                 **kwargs: Any):
        self.aim_reward = check_number("aim_reward", aim_reward, 0)
        self.match_minutes = None if match_minutes is None else check_number("match_minutes", match_minutes, 0)
        if self.match_minutes == 0:
            raise ValueError("match_minutes=0 is not valid: a match of more than 0 minutes, or None (no match clock)")
        super().__init__(frag_reward=frag_reward, suicide_penalty=suicide_penalty, damage_reward=damage_reward,
                         death_penalty=death_penalty, **kwargs)
        self._aim = 0.0  # the aim shaping's potential after the last step (see Rewards)
        self._nonce = 0
        self._target = (NO_TARGET, NO_TARGET)  # the nearest live bot in sight (x, y), from the map's ACS

    @property
    def match_steps(self) -> int | None:
        """The steps of a match of `match_minutes` (None without one): its game tics over frame_skip, rounded up."""
        return None if self.match_minutes is None else match_steps(self.match_minutes, self.frame_skip)

    def hand_made_problem(self, hand_made) -> str | None:
        if self.aim_reward:
            return ("aim_reward follows the nearest bot that the family's arenas' ACS points at, which a hand-made "
                    "map does not publish; leave it 0")
        return None

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        steps = self.match_steps
        if steps is not None and self._tics >= steps * self.frame_skip and not terminated:
            truncated = True  # the match clock: the game time is up
        return observation, reward, terminated, truncated, info

    def configure_game(self, game) -> None:
        game.add_game_args(f"-host 1 {self.netgame_args} {self.bot_arguments()} +name {PLAYER_NAME}")
        engine_new_episode = game.new_episode

        # Each episode: ViZDoom's new episode, which in a multiplayer game changes map without reseeding the
        # engine's generators (`changemap`); then `map`, a new game, which reseeds them from the seed reset
        # just set (`rngseed set`), so the bots' decisions follow the seed whatever came before; then the
        # bots and the seeded placement.
        def new_episode(*args):
            engine_new_episode(*args)
            game.set_action([0.0] * game.get_available_buttons_size())  # let go of the last step's buttons
            game.send_game_command(f"map {self.map}")
            for _ in range(MAP_TICS):
                game.advance_action(1, False)
            self._start_bots(game)

        game.new_episode = new_episode

    def _start_bots(self, game) -> None:
        """Add the bots (by name: the same players in the same seats every episode), then run the map's
        seeded placement and wait until it shows (the nonce in USER58); on a hand-made map, which has no such
        placement, wait until every bot is in the game. A joining bot can telefrag a player at its
        DeathmatchStart: the placement then waits for that player's respawn, and the episode's counts start
        after it (start-relative, as every count in info)."""
        for command in self.host_commands():
            game.send_game_command(command)
        if self.hand_made:
            players = self.params.players
            for _ in range(SETTLE_TICS):
                if int(game.get_game_variable(vzd.GameVariable.PLAYER_COUNT)) == players:
                    return
                game.advance_action(1, True)
            raise RuntimeError(f"{players - 1} bots did not all join within {SETTLE_TICS} tics of the `addbot`s")
        self._nonce = self._nonce % (2**30) + 1
        command = self.episode_command(int(self.np_random.integers(0, 2**31 - 1)), self._nonce)
        game.send_game_command(command)
        nonce = getattr(vzd.GameVariable, user_variable(NONCE_VARIABLE))
        for _ in range(SETTLE_TICS):
            game.advance_action(1, True)
            if int(game.get_game_variable(nonce)) == self._nonce:
                return
        raise RuntimeError(f"the episode's seeded start did not show within {SETTLE_TICS} tics of `{command}`")

    def reference_action(self) -> int:
        """The scripted reference (privileged: the map's ACS tells where the nearest live bot in sight is, see
        USER59/60): fire when aimed at that bot (DoomDefend-v0's aimer), turn and fire when it is less than
        AIM_WHILE_TURNING degrees off, else turn towards it, walking if it is over CLOSE_IN map units away;
        with no bot in sight, walk forward turning left to find one. It does not seek weapons: it plays with
        the pistol until it happens on one. Needs the "deathmatch" action set."""
        if self._action_set != "deathmatch":
            raise ValueError(f"reference_action needs action_set 'deathmatch', not {self._action_set!r}")
        if self.hand_made:
            raise ValueError(f"the scripted reference is told where the bots are by the family's arenas' ACS, which "
                             f"{self.hand_made.where} does not have: it plays the generated arenas only")
        if self._target[0] == NO_TARGET:
            return 4  # forward + turn left
        off, distance = bearing(self.player_pose(), self._target)
        if on_aim(off, distance, self.frame_skip):
            return 0
        if abs(off) < AIM_WHILE_TURNING:
            return 6 if off > 0 else 7  # turn + attack
        if distance > CLOSE_IN:
            return 4 if off > 0 else 5  # forward + turn
        return 1 if off > 0 else 2

    def _see_target(self, v) -> None:
        if not self.hand_made:  # a hand-made map publishes no target
            self._target = (v[user_variable(TARGET_X_VARIABLE)], v[user_variable(TARGET_Y_VARIABLE)])

    def _aim_potential(self) -> float:
        if not self.aim_reward or self._target[0] == NO_TARGET:
            return 0.0
        off, _ = bearing(self.player_pose(), self._target)
        return self.aim_reward * (1.0 - abs(off) / 180.0)

    def on_step(self, v) -> tuple[float, bool]:
        self._see_target(v)
        reward, terminated = super().on_step(v)
        before, self._aim = self._aim, self._aim_potential()
        return reward + self._aim - before, terminated

    def on_reset(self, v) -> None:
        self._see_target(v)
        self._aim = self._aim_potential()
        placed = 0 if self.hand_made else int(v[user_variable(PLACED_VARIABLE)])
        names = [user_variable(k) for k in range(1, 2 * placed + 1)]
        positions = {n: self.game.get_game_variable(getattr(vzd.GameVariable, n)) for n in names}
        super().on_reset({**v, **positions})
