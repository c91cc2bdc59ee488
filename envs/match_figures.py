"""A deathmatch episode in the units the field reports: frags, deaths, suicides, kill/death ratio, frags per minute
of game time, damage dealt and taken, and the match's length in game minutes.

The deathmatch envs put `figures(...)` in `info["match"]` (running figures: at the episode's end, the
episode's); the evaluation pools them over episodes with `pooled`, whose ratios are those of the summed counts
(a K/D over several matches is their kills over their deaths, not a mean of ratios). One definition, here, for both.

- frags: FRAGCOUNT as the engine keeps it, kills of other players minus suicides (the scoreboard's figure);
- suicides: the engine takes a frag away for each (killed by one's own rocket, by the map, or the `kill`
  command: ZDoom's P_KillMobj); counted as the drops of FRAGCOUNT;
- kills: frags + suicides, the other players killed;
- kd_ratio: kills / deaths, with no death kills / 1 (so a flawless match stays finite and ranks by its kills);
- frags_per_minute: frags / minutes of game time (35 tics a second), 0 for no time;
- damage_dealt, damage_taken: ViZDoom's DAMAGECOUNT and DAMAGE_TAKEN (hit points, telefrags left out).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

TICRATE = 35                       # game tics per second (vizdoom.DEFAULT_TICRATE)
TICS_PER_MINUTE = 60 * TICRATE
COUNTS = ("frags", "deaths", "suicides", "kills", "damage_dealt", "damage_taken", "minutes")  # pooled by summing


def match_steps(minutes: float, frame_skip: int) -> int:
    """The steps of a match of `minutes` of game time at `frame_skip` tics a step: its tics over frame_skip, rounded
    up (2100 for 4 minutes at frame skip 4)."""
    return math.ceil(round(minutes * TICS_PER_MINUTE, 6) / frame_skip)


def figures(frags: int, deaths: int, suicides: int, damage_dealt: int, damage_taken: int, tics: int) -> dict[str, Any]:
    """The figures of one episode from its counts (each start-relative) and the game tics it lasted."""
    return ratios({"frags": int(frags), "deaths": int(deaths), "suicides": int(suicides),
                   "kills": int(frags) + int(suicides), "damage_dealt": int(damage_dealt),
                   "damage_taken": int(damage_taken), "minutes": tics / TICS_PER_MINUTE})


def ratios(counts: dict[str, Any]) -> dict[str, Any]:
    """`counts` with the two ratios of them: kd_ratio (kills over deaths, at least 1) and frags_per_minute."""
    minutes = counts["minutes"]
    return {**counts, "kd_ratio": counts["kills"] / max(counts["deaths"], 1),
            "frags_per_minute": counts["frags"] / minutes if minutes else 0.0}


def pooled(matches: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Several episodes' figures as one (or pooled figures pooled again): their counts summed, "episodes" how many
    episodes they hold, the ratios of the sums."""
    matches = list(matches)
    total = {key: sum(m[key] for m in matches) for key in COUNTS}
    return {**ratios(total), "episodes": sum(m.get("episodes", 1) for m in matches)}


# The two figures a table shows beside a deathmatch's score: key -> column title
COLUMNS = {"frags_per_minute": "frags/min", "kd_ratio": "K/D"}


def headline(m: dict[str, Any]) -> str:
    """The two figures as a table cell reads them: "F frags/min, K/D R"."""
    return f"{m['frags_per_minute']:.2f} frags/min, K/D {m['kd_ratio']:.2f}"


def counts_line(m: dict[str, Any]) -> str:
    """Pooled figures with the counts behind them, as the field reports a match."""
    return (f"{m['episodes']} episodes ({m['minutes']:.1f} game minutes): {m['frags']} frags, {m['deaths']} deaths, "
            f"{m['suicides']} suicides, K/D {m['kd_ratio']:.2f} (kills / deaths), damage dealt {m['damage_dealt']}, "
            f"taken {m['damage_taken']}")


def brief(m: dict[str, Any]) -> str:
    """headline with the frags, deaths and suicides behind it and the game time."""
    return (f"{headline(m)} ({m['frags']} frags, {m['deaths']} deaths, {m['suicides']} suicides in "
            f"{m['minutes']:.1f} game minutes)")
