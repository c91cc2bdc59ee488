"""MAPINFO for built WADs, in the new (braced) syntax the engine's ZDoom 2.8 base parses."""

from __future__ import annotations

from collections.abc import Sequence

from .decorate_names import quote


def mapinfo_text(levels: Sequence) -> str:
    """One `map` block per level: its title, sky, the next map in the WAD, and no intermission screen.

    A map block replaces the stock definition of that map, so the stock music and par times go too.
    """
    blocks = []
    for i, level in enumerate(levels):
        lines = [f"map {level.name} {quote(level.title or level.name)}", "{",
                 f"\tsky1 = {quote(level.sky)}"]
        if i + 1 < len(levels):
            lines.append(f"\tnext = {quote(levels[i + 1].name)}")
        lines += ["\tnointermission", "}"]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)
