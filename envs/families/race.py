"""The item race family: 2-4 players in one generated arena race for the same items (DoomItemsDuel-v0).

One module: the scenario (`Params`, `PRESETS`, `build`: an arena with one start per player, the starts
equally spaced on a circle round the centre, each facing it) and the task of one player (`ItemsRaceEnv`,
an ItemsEnv whose reward is that player's own items). The game itself is played through
wadgym.envs.multi (a PettingZoo parallel env), which runs one engine per player in a netgame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from wadgym.envs.doom_env import user_variable
from wadgym.envs.families import items
from wadgym.envs.scenarios.acs_template import acs_bool, acs_fixed, acs_list, fill, rect_arrays
from wadgym.envs.scenarios.placement import (
    ITEM_TID,
    MAX_PLACEMENT_TRIES,
    PLACED_VARIABLE,
    REMAINING_VARIABLE,
    area_weights,
    check_room_for_items,
    item_actor,
    item_class,
    placement_areas,
)
from wadgym.envs.scenarios.styles import Style
from wadgym.wads import Level, MapBuilder

MAX_PLAYERS = 4              # Player1Start .. Player4Start; ACS globals 51 .. 54 count their items
MAX_RACE_ITEMS = 25          # globals 1 .. 50 hold the positions
PLAYER_ITEMS_VARIABLE = 51   # USER51 + p: items collected by player p in this episode
NONCE_VARIABLE = 58          # USER58: the nonce of the episode whose items are placed
SEED_SCRIPT = 4              # NET script (seed, nonce) that places the items; `puke`d by the host
PLAYER_TID = 900             # player p has tid PLAYER_TID + p (set by the ENTER script)
START_CLEARANCE = 48         # between a start and a wall


@dataclass(frozen=True)
class Params(items.Params):
    """An items arena for `n_players` players whose starts lie `start_radius` from the centre, evenly spaced
    (fair: every start is as far from the centre and from its neighbours as every other), rotated by a
    random angle per level. Obstacles and mazes are not supported yet."""

    n_players: int = 2
    start_radius: int = 320

    def __post_init__(self):
        super().__post_init__()
        if not 1 <= self.n_players <= MAX_PLAYERS or isinstance(self.n_players, bool):
            raise ValueError(f"n_players={self.n_players!r} is out of range; valid: 1 to {MAX_PLAYERS}")
        object.__setattr__(self, "n_players", int(self.n_players))
        if self.layout != "arena" or self.n_obstacles:
            raise ValueError(f"layout={self.layout!r}, n_obstacles={self.n_obstacles}: the race is played in an open "
                             f"arena; valid: layout='arena', n_obstacles=0")
        if self.n_items > MAX_RACE_ITEMS:
            raise ValueError(f"n_items={self.n_items} is out of range for a race; valid: 1 to {MAX_RACE_ITEMS}")
        reach = self.size // 2 - START_CLEARANCE
        if not 0 <= self.start_radius <= reach:
            raise ValueError(f"start_radius={self.start_radius} is out of range for size={self.size}; "
                             f"valid: 0 to {reach}")


PRESETS: dict[str, Params] = {"default": Params(), "classic": Params(style="fixed")}


def player_starts(rng: np.random.Generator, p: Params) -> list[tuple[int, int, int]]:
    """(x, y, angle in degrees) of each player's start: evenly spaced on the circle, each facing the centre."""
    c = p.size // 2
    phase = float(rng.uniform(0, 2 * math.pi))
    starts = []
    for k in range(p.n_players):
        a = phase + 2 * math.pi * k / p.n_players
        x, y = round(c + p.start_radius * math.cos(a)), round(c + p.start_radius * math.sin(a))
        starts.append((x, y, round(math.degrees(a) + 180) % 360))
    return starts


def build(rng: np.random.Generator, p: Params) -> Level:
    """The arena, its starts and look drawn from `rng`, and the ACS that places the items when seeded."""
    starts = player_starts(rng, p)
    style, parent = items.level_look(rng, p, Style(p.wall, p.floor, p.ceiling, p.light))
    floor = [(0, 0, p.size, p.size)]
    # The numpy pre-check knows one start: the others stand in as squares it must keep clear of.
    d = p.min_start_distance
    others = [(x - d, y - d, x + d, y + d) for x, y, _ in starts[1:]]
    check_room_for_items(p, floor, others, starts[0][:2])
    m = MapBuilder()
    m.add_room(*floor[0], floor=style.floor, ceiling=style.ceiling, wall=style.wall, floor_height=0,
               ceiling_height=128, light=style.light)
    for k, (x, y, angle) in enumerate(starts):
        m.add_player_start(x, y, angle=angle, player=k + 1)
    return Level(map=m, scripts=race_script(p, floor, starts, parent), actors=[item_actor(p, parent)],
                 title="wadgym item race")


def race_script(p: Params, floor, starts, parent: str) -> str:
    """race.acs filled in: the areas, the starts, the rules."""
    areas = placement_areas(p, floor)
    n = p.n_items
    position_globals = "\n".join(
        f"global int {2 * i + 1}:item{i + 1}_x;  global int {2 * i + 2}:item{i + 1}_y;" for i in range(n))
    publish = "\n".join(f"    item{i + 1}_x = item_x[{i}];  item{i + 1}_y = item_y[{i}];" for i in range(n))
    return fill("race.acs", package=__package__, values={
        "n_items": n, "n_players": p.n_players, "item_tid": ITEM_TID, "player_tid": PLAYER_TID,
        "max_tries": MAX_PLACEMENT_TRIES, "min_item_distance": p.min_item_distance,
        "min_start_distance": p.min_start_distance, "n_areas": len(areas), "total_weight": int(area_weights(areas)[-1]),
        "n_blocked": 0, "blocked_size": 1, "player_health": p.player_health,
        "player_invulnerable": acs_bool(p.player_invulnerable), "player_speed": acs_fixed(p.player_speed),
        "random_start_angle": acs_bool(p.random_start_angle), "seed_script": SEED_SCRIPT,
        "item_class": item_class(parent), "position_globals": position_globals,
        "publish_function": f"function void publish_positions(void)\n{{\n{publish}\n}}",
        "area_weight": acs_list(area_weights(areas)), **rect_arrays("area", areas),
        **rect_arrays("blocked", [(0, 0, 0, 0)]),
        "start_x": acs_list(s[0] for s in starts), "start_y": acs_list(s[1] for s in starts),
        "start_angle": acs_list(round(s[2] * 65536 / 360) for s in starts),
    })


class ItemsRaceEnv(items.ItemsEnv):
    """One player's task in an item race; played through wadgym.envs.multi, never alone.

    ## Description
    `n_players` players (1 to 4) start evenly spaced on a circle round the centre of an open arena, each
    facing the centre (turned by one random angle per episode, the same for all), and race for the same
    `n_items` items: an item taken by one is gone for all. Each level (see Levels) has its own start
    circle rotation and, with `style="random"`, its own look.

    ## Rewards
    `item_reward` for each item this player collected in the step, minus `step_penalty`. ViZDoom's
    ITEMCOUNT counts the whole level's items (every player's), so each player's own count comes from the
    ACS global 51 + p (USER51 .. USER54), which the item's pickup script raises for its activator.

    ## Episode End
    Terminated for every player when every item is taken; truncated at the env's `max_steps`.

    ## Info
    As ItemsEnv's (`items_collected` is this player's own), and `items_taken` (by all players).

    ## Seeding
    A netgame's new episode does not reseed the engine, so the items are placed by the ACS's own
    generator from a seed the env sends (`episode_command`): the same seed gives the same items and turn.
    """

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    variables = ("ITEMCOUNT", user_variable(REMAINING_VARIABLE), user_variable(PLACED_VARIABLE),
                 user_variable(NONCE_VARIABLE),
                 *(user_variable(PLAYER_ITEMS_VARIABLE + p) for p in range(MAX_PLAYERS)))
    score_name = "items"
    max_players: ClassVar[int] = MAX_PLAYERS  # declares multiplayer support (wadgym.envs.multi)
    netgame_args: ClassVar[str] = ""          # cooperative rules: no friendly fire, nobody dies

    def __init__(self, player: int = 0, **kwargs: Any):
        self.player = int(player)
        super().__init__(**kwargs)
        self._items_taken = 0

    def reset(self, *, seed=None, options=None):
        raise TypeError(f"{type(self).__name__} is one player of a multiplayer game: make it with "
                        f"wadgym.envs.multi.make('DoomItemsDuel-v0') (a PettingZoo parallel env)")

    # -- the multiplayer protocol (wadgym.envs.multi) ------------------------------------------------

    @staticmethod
    def episode_command(seed: int, nonce: int) -> str:
        """The console command (run by the host) that starts the episode's items, seeded."""
        return f"puke {SEED_SCRIPT} {int(seed)} {int(nonce)}"

    def episode_ready(self, v, nonce: int) -> bool:
        return int(v[user_variable(NONCE_VARIABLE)]) == nonce

    # -- the task ------------------------------------------------------------------------------------

    def _own(self, v) -> int:
        return int(v[user_variable(PLAYER_ITEMS_VARIABLE + self.player)])

    def on_reset(self, v) -> None:
        super().on_reset(v)
        self._items_collected = self._own(v)
        self._items_taken = int(self._items_total - self._items_remaining.sum())

    def on_step(self, v) -> tuple[float, bool]:
        collected = self._own(v) - self._items_collected
        self._items_collected += collected
        mask = v[self.variables[1]]
        if mask != self._remaining_mask:
            self._set_remaining(int(mask))
        self._items_taken = int(self._items_total - self._items_remaining.sum())
        reward = collected * self.item_reward - self.step_penalty
        return reward, self._items_taken >= self._items_total

    def task_info(self) -> dict[str, Any]:
        return {**super().task_info(), "items_taken": self._items_taken}
