"""The "rooms" demo: four rooms of different heights, textures and light, joined by an opening with a
step, a door and a climbing corridor with stairs; pillars, decorations, items and a few monsters."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wadgym.envs.checks import check_number
from wadgym.wads import Level, MapBuilder

ITEM_KINDS = ("Medikit", "Stimpack", "Clip", "Shell", "ArmorBonus", "HealthBonus")
MONSTER_KINDS = ("ZombieMan", "ShotgunGuy", "DoomImp")


@dataclass(frozen=True)
class Params:
    n_items: int = 6            # stock pickups scattered over the rooms
    n_monsters: int = 2         # placed in the two far rooms, facing the way in
    door: bool = True           # a door (open it with use) between the hall and the vault
    step: int = 24              # the court's floor above the hall's (24 is the highest the player climbs)
    upper_floor: int = 72       # the octagon's floor; the corridor from the court climbs to it by stairs
    sky: bool = True            # the court is open to the sky

    def __post_init__(self):
        check_number("n_items", self.n_items, 0, 40, whole=True)
        check_number("n_monsters", self.n_monsters, 0, 40, whole=True)
        check_number("step", self.step, 0, 24, whole=True)          # the player climbs at most 24
        check_number("upper_floor", self.upper_floor, self.step, self.step + 96, whole=True)


PRESETS = {
    "default": Params(),
    "empty": Params(n_items=0, n_monsters=0),
    "flat": Params(step=0, upper_floor=0, door=False),
}


def build(rng: np.random.Generator, p: Params) -> Level:
    """Hall (start, pillars) -> court (a step up, open sky) -> octagon (up the stairs); hall -> vault (door)."""
    m = MapBuilder()
    hall = m.add_room(0, 0, 768, 512, name="hall", ceiling_height=160, light=208, wall="STARTAN2")
    court = m.add_room(768, -64, 1280, 576, name="court", floor_height=p.step, ceiling_height=256,
                       floor="GRASS1", ceiling="F_SKY1" if p.sky else "CEIL5_1", wall="BRICK7", light=240)
    vault = m.add_room(0, 576, 512, 1024, name="vault", floor="FLOOR4_8", ceiling="CEIL3_5", wall="BROWN1",
                       light=144)
    octagon = m.add_polygon_room(_chamfered_square(800, 704, 1248, 1152, 128), name="octagon",
                                 floor_height=p.upper_floor, ceiling_height=p.upper_floor + 144,
                                 floor="FLAT5_4", ceiling="CEIL5_2", wall="STONE2", light=176)
    m.connect(hall, court, width=160)                     # touching rooms: an opening with a step
    m.connect(hall, vault, width=128, at=(256, 544), door=p.door)
    m.connect(court, octagon, width=128, at=(1024, 640))  # a 128-unit gap: corridor with stairs

    m.add_pillar(hall, 224, 160, 288, 224, wall="SUPPORT2")
    m.add_pillar(hall, 480, 288, 544, 352, wall="SUPPORT2")
    m.add_pillar(court, 960, 160, 1056, 256, wall="METAL", height=40)   # a low block to walk around
    m.add_pillar(vault, 352, 800, 416, 864, wall="BROWN96")

    for x, y in ((32, 32), (32, 480), (736, 32), (736, 480)):
        m.add_thing("Column", x, y)
    for x, y in ((800, -32), (1248, -32), (800, 544), (1248, 544)):
        m.add_thing("TorchTree", x, y)
    m.add_thing("TechLamp", 40, 984)
    m.add_thing("TechLamp", 472, 984)
    m.add_player_start(96, 256, angle=0)

    rooms = [hall, court, vault, octagon]
    taken = [(t.x, t.y) for t in m.things]
    for _ in range(p.n_items):
        room = rooms[int(rng.integers(len(rooms)))]
        m.add_thing(ITEM_KINDS[int(rng.integers(len(ITEM_KINDS)))], _free_point(rng, room, taken, margin=48))
    for i in range(p.n_monsters):
        room = (octagon, vault)[i % 2]   # the far rooms, facing south towards the way in
        m.add_thing(MONSTER_KINDS[int(rng.integers(len(MONSTER_KINDS)))], _free_point(rng, room, taken, margin=64),
                    angle=270, flags=("ambush",))
    return Level(map=m, name="MAP01", title="Rooms")


def _free_point(rng: np.random.Generator, room, taken: list, margin: float, spacing: float = 64.0):
    """A random point of `room` at least `spacing` from every point in `taken` (which it joins)."""
    for _ in range(200):
        x, y = room.random_point(rng, margin)
        if all((x - tx) ** 2 + (y - ty) ** 2 >= spacing ** 2 for tx, ty in taken):
            break
    taken.append((x, y))
    return x, y


def _chamfered_square(x0, y0, x1, y1, cut):
    return [(x0 + cut, y0), (x1 - cut, y0), (x1, y0 + cut), (x1, y1 - cut), (x1 - cut, y1), (x0 + cut, y1),
            (x0, y1 - cut), (x0, y0 + cut)]
