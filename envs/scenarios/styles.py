"""Looks that vary from level to level: Freedoom wall textures, floor and ceiling flats, light levels.

Families draw a `Style` per level (`draw_style(rng)`) so that training and test levels differ in how they
look as well as in their layout; every name here is checked against freedoom2.wad by the tests.
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


@dataclass(frozen=True)
class Style:
    wall: str
    floor: str
    ceiling: str
    light: int


def draw_style(rng: np.random.Generator, lights: tuple[int, int] = LIGHTS) -> Style:
    """A random look: wall texture, floor and ceiling flats, light level, drawn in that order from `rng`."""
    return Style(WALLS[int(rng.integers(len(WALLS)))], FLOORS[int(rng.integers(len(FLOORS)))],
                 CEILINGS[int(rng.integers(len(CEILINGS)))], int(rng.integers(lights[0], lights[1] + 1)))
