"""A hand-made map for an env to play instead of the levels it builds: the WAD (a user's file, or a scenario
shipped with ViZDoom as "vizdoom:NAME": any WAD in the installed package's scenarios folder), the map, what
the map holds (read by wadgym.wads.mapread) and the engine settings it starts with (a ViZDoom scenario's as
its .cfg says; else the env's, overridable).

Every check runs before an engine starts, and each refusal is one line naming what is wrong and what is valid.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import vizdoom as vzd

from wadgym.envs.checks import check_number
from wadgym.wads.mapread import DEATHMATCH_START, PLAYER_START, MapSummary, read_maps

SCENARIO_PREFIX = "vizdoom:"
SKILLS = (1, 2, 3, 4, 5)
# The .cfg keys a scenario starts with (engine settings) and is rewarded by (its own return).
CFG_SETTINGS = ("doom_skill", "episode_start_time", "episode_timeout")
CFG_REWARDS = ("living_reward", "death_penalty")
# A scenario whose goal is an item rather than an exit special: DoomExit-v0 on it needs no goal= of its own.
SCENARIO_GOALS = {"my_way_home": "GreenArmor"}


def scenarios_dir() -> Path:
    """The scenarios/ folder of the installed vizdoom package (read at run time, never copied)."""
    return Path(vzd.__file__).parent / "scenarios"


def scenario_names() -> list[str]:
    """The WADs ViZDoom ships, by name: each with its .cfg of the same name where it has one (a WAD without,
    e.g. multi_deathmatch, whose multi.cfg is an example's, starts with the env's own settings)."""
    return sorted(p.stem for p in scenarios_dir().glob("*.wad"))


# Where a map must place its players: the kind of start a family's game spawns them at -> (editor number, the
# thing's name, what needs it). A deathmatch spawns every player at DeathmatchStarts, so a map made for one
# (e.g. ViZDoom's cig.wad) may have no player-1 start.
STARTS = {"player": (PLAYER_START, "player start", "Player1Start"),
          "deathmatch": (DEATHMATCH_START, "deathmatch start", "DeathmatchStart")}


def read_cfg(path: Path) -> dict[str, str]:
    """The `key = value` settings of a ViZDoom .cfg (lower-case keys; brace lists and comments skipped)."""
    text = re.sub(r"#[^\n]*|\{[^}]*\}", "", path.read_text(encoding="latin-1"))
    return {k.strip().lower(): v.strip() for k, v in re.findall(r"^\s*(\w+)\s*=\s*([^\n]*)$", text, re.MULTILINE)}


def check_goal(goal, wad) -> str | None:
    """`goal=` of a family that ends at a goal item (exit, corridor): an actor class name, given with `wad=`
    only (the family's own levels place their own goal); else a ValueError saying so."""
    if goal is not None and (not isinstance(goal, str) or wad is None):
        raise ValueError(f"goal={goal!r} names the goal item (an actor class, e.g. 'GreenArmor') of a hand-made "
                         f"map: pass it with wad=")
    return goal


@dataclass(frozen=True)
class HandMadeMap:
    """The map an env plays and the engine settings it starts with (None: the engine's or family's own)."""

    wad: str                        # as given: a path or "vizdoom:NAME"
    path: Path
    map: str
    summary: MapSummary
    scenario: str | None = None     # NAME of "vizdoom:NAME"
    doom_skill: int | None = None
    episode_start_time: int | None = None
    episode_timeout: int | None = None   # tics; the engine ends the episode then (a truncation)
    living_reward: float = 0.0      # the scenario's own rewards (its .cfg), summed in info["scenario_return"]
    death_penalty: float = 0.0

    @property
    def where(self) -> str:
        return f"{self.map} of {self.wad}"

    def classes(self) -> dict[str, int]:
        """Actor class -> things of it the map places in single player at the skill played."""
        return self.summary.classes(self.doom_skill or 3)

    def things(self) -> str:
        """The classes of its things, for a message."""
        return ", ".join(self.classes()) or "none"

    def lacks(self, flag: str, what: str) -> str | None:
        """Why things with +`flag` ("COUNTITEM", "COUNTKILL") cannot score the map: it places none (`what`
        names them) and has no scripts that could spawn one; None when they can."""
        if self.summary.has_scripts or any(self.summary.has_flag(c, flag) for c in self.classes()):
            return None
        return f"it places no {what} (+{flag}) and has no scripts that could spawn one; its things: {self.things()}"

    def goal(self, goal: str | None, scenario_goals: dict[str, str]) -> tuple[str | None, str | None]:
        """The goal item a family that ends at a goal or an exit (exit, corridor) plays for: `goal`, or the
        scenario's own (`scenario_goals`: scenario NAME -> actor class), as this map spells its class; then why
        the map cannot be scored (it places no such thing, or has neither a goal nor an exit special), or None."""
        goal = goal or scenario_goals.get(self.scenario)
        if goal is not None:
            found = {c.lower(): c for c in self.classes()}.get(goal.lower())
            if found is None:
                return goal, f"it places no {goal!r} (goal=) in single player; its things: {self.things()}"
            return found, None
        if not self.summary.exits:
            return None, (f"it has no exit (no line or thing special that ends the map) and no goal named; pass "
                          f"goal='ActorClass' naming its goal item, one of its things: {self.things()}")
        return None, None

    def configure(self, game: vzd.DoomGame) -> None:
        """Apply the settings to a DoomGame before init (after the family's own, which they override)."""
        if self.doom_skill is not None:
            game.set_doom_skill(self.doom_skill)
        if self.episode_start_time is not None:
            game.set_episode_start_time(self.episode_start_time)
        if self.episode_timeout is not None:
            game.set_episode_timeout(self.episode_timeout)
        game.set_living_reward(self.living_reward)
        game.set_death_penalty(self.death_penalty)


def hand_made_map(wad, map_name="MAP01", doom_skill=None, episode_start_time=None,
                  episode_timeout=None, starts="player") -> HandMadeMap:
    """The checked HandMadeMap of `wad` (a path, or "vizdoom:NAME") and `map_name`, with the scenario's .cfg
    settings under any given here; a ValueError for a missing file, a file that is not a WAD, a map not in
    it (listing those that are) or a map without the `starts` its game spawns players at (STARTS: a player-1
    start, or for a deathmatch DeathmatchStarts)."""
    if not isinstance(wad, (str, os.PathLike)) or not os.fspath(wad):
        raise ValueError(f"wad={wad!r} must be a WAD file's path or 'vizdoom:NAME' (a scenario shipped with ViZDoom)")
    wad = os.fspath(wad)
    scenario, cfg = None, {}
    if wad.startswith(SCENARIO_PREFIX):
        scenario = wad[len(SCENARIO_PREFIX):]
        if scenario not in scenario_names():
            raise ValueError(f"wad={wad!r}: ViZDoom ships no scenario {scenario!r}; valid: "
                             + ", ".join(SCENARIO_PREFIX + n for n in scenario_names()))
        cfg_path = scenarios_dir() / f"{scenario}.cfg"
        cfg = read_cfg(cfg_path) if cfg_path.is_file() else {}
        path = scenarios_dir() / f"{scenario}.wad"
    else:
        path = Path(wad).expanduser()
    maps = read_maps(path)
    if not isinstance(map_name, str) or map_name.upper() not in maps:
        raise ValueError(f"map={map_name!r} is not in {wad}; its maps: {', '.join(maps) or 'none'}")
    summary = maps[map_name.upper()]
    ednum, what, thing = STARTS[starts]
    if not any(t.ednum == ednum for t in summary.things):
        valid = ("; valid: a map made for deathmatch, e.g. vizdoom:cig or vizdoom:multi_deathmatch, or add them in "
                 "the map editor" if starts == "deathmatch" else "; add one in the map editor")
        raise ValueError(f"map {summary.name} of {wad} has no {what} (a thing of editor number {ednum}, {thing}), "
                         f"where its game spawns the players{valid}")
    given = {"doom_skill": doom_skill, "episode_start_time": episode_start_time, "episode_timeout": episode_timeout}
    settings = {k: int(cfg[k]) for k in CFG_SETTINGS if cfg.get(k, "").lstrip("-").isdigit()}
    for key, value in given.items():
        if value is not None:
            limits = (1, 5) if key == "doom_skill" else (0, 2**31 - 1)
            settings[key] = check_number(key, value, *limits, whole=True)
    rewards = {k: float(cfg[k]) for k in CFG_REWARDS if k in cfg}
    return HandMadeMap(wad, path, summary.name, summary, scenario, **settings, **rewards)
