"""Looks that vary from level to level: Freedoom wall textures, floor and ceiling flats, light levels.

Families draw a `Style` per level (`draw_style(rng)`) so that training and test levels differ in how they
look as well as in their layout; every name here is checked against freedoom2.wad by the tests. Freedoom
draws every texture under its stock Doom II name, so the pools name them as a stock map does: "v0" is the
first releases' pool, "my_way_home" the textures of ViZDoom's hand-made my_way_home and their kin (BIGBRIK1
brick, FLAT1_1 floors and ceilings), "all" both, "lit" those and walls that carry lights (LIT_WALLS).
`room_styles` varies the look room by room.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Chosen to read well at 60x80 in gray: mid-dark, not too busy, distinct from the bright item sprites.
WALLS = ("STARTAN2", "STARTAN3", "BROWN1", "GRAY1", "STONE2", "BROWNGRN", "TEKGREN2", "METAL1", "ASHWALL2",
         "BRICK7", "CEMENT9", "ICKWALL3", "PIPE2", "SLADWALL", "STONE3", "TANROCK4")
FLOORS = ("FLOOR0_1", "FLOOR4_8", "FLAT5_4", "FLOOR5_1", "FLAT14", "CEIL3_5", "FLOOR7_1", "FLAT1", "FLOOR1_6",
          "GRNROCK", "MFLR8_1", "RROCK19")
CEILINGS = ("CEIL5_1", "CEIL3_5", "FLAT4", "CEIL1_1", "FLAT19", "TLITE6_4")
LIGHTS = (144, 224)  # inclusive range of light levels drawn
# my_way_home's walls (BIGBRIK1 on most; CRATE2, SILVER2 and the like on a few) and other stock bricks and
# panels of the same sober kind; its floors and ceilings are all FLAT1_1.
MWH_WALLS = ("BIGBRIK1", "BIGBRIK2", "BIGBRIK3", "BRICK1", "BRICK4", "BRICK6", "BRICK9", "BRICK11", "STONE4",
             "STONE6", "BSTONE1", "GRAY5", "BROWN96", "CEMENT2", "CRATE2", "SILVER2", "PANEL4", "WOOD5")
MWH_FLOORS = ("FLAT1_1", "FLAT1_2", "FLAT5", "FLAT5_2", "FLOOR0_3", "FLOOR4_6", "FLOOR5_2", "CEIL3_2")
MWH_CEILINGS = ("FLAT1_1", "FLAT1_2", "CEIL3_1", "CEIL4_1", "FLAT2")
# Walls that carry lights: bright panels and strips, lit computers and falls, as stock maps put on walls
# (my_way_home lines some with a ceiling light's flat). In gray at 60x80 their bright shapes look much like
# DoomExit's white lamp, which the other pools keep apart (WALLS above): with them, a bright shape is not
# always the goal.
LIT_WALLS = ("LITE3", "LITE5", "LITEBLU1", "LITEBLU4", "LITESTON", "TEKLITE", "COMPTALL", "COMPSTA1", "SFALL1",
             "BFALL1")
# name -> (walls, floors, ceilings)
TEXTURE_POOLS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "v0": (WALLS, FLOORS, CEILINGS),
    "my_way_home": (MWH_WALLS, MWH_FLOORS, MWH_CEILINGS),
    "all": (WALLS + MWH_WALLS, FLOORS + MWH_FLOORS, tuple(dict.fromkeys(CEILINGS + MWH_CEILINGS))),
}
TEXTURE_POOLS["lit"] = (TEXTURE_POOLS["all"][0] + LIT_WALLS, *TEXTURE_POOLS["all"][1:])


@dataclass(frozen=True)
class Style:
    wall: str
    floor: str
    ceiling: str
    light: int


def draw_style(rng: np.random.Generator, lights: tuple[int, int] = LIGHTS, pool: str = "v0") -> Style:
    """A random look: wall texture, floor and ceiling flats (from TEXTURE_POOLS[pool]), light level, drawn in
    that order from `rng`."""
    walls, floors, ceilings = TEXTURE_POOLS[pool]
    return Style(walls[int(rng.integers(len(walls)))], floors[int(rng.integers(len(floors)))],
                 ceilings[int(rng.integers(len(ceilings)))], int(rng.integers(lights[0], lights[1] + 1)))


def room_styles(rng: np.random.Generator, style: Style, n_cells: int, n_rooms: int, pool: str = "v0",
                light_variation: int = 0, wall_mix: float = 0.0) -> list[dict] | None:
    """Per cell, what differs from the level's `style` (add_plan's cell_styles), or None when nothing may
    (no draws then). The level draws how far its rooms' light strays, 0 to `light_variation` (so levels range
    from uniform light, as my_way_home's 192 everywhere, to varied); each of the first `n_rooms` cells (the
    rooms) then draws its light within that of the level's, clipped to 0..255, and with probability
    `wall_mix` a wall texture of its own from the pool. Other cells (corridor corners) keep the level's."""
    if not light_variation and not wall_mix:
        return None
    walls = TEXTURE_POOLS[pool][0]
    spread = int(rng.integers(0, light_variation + 1))
    cells: list[dict] = []
    for _ in range(n_rooms):
        light = style.light + int(rng.integers(-spread, spread + 1))
        own_wall = rng.random() < wall_mix
        wall = walls[int(rng.integers(len(walls)))] if own_wall else style.wall
        cells.append({"light": min(max(light, 0), 255), "wall": wall})
    return cells + [{}] * (n_cells - n_rooms)
