"""Fixtures for the WAD-builder tests: small maps built once per session."""

from __future__ import annotations

import pytest

from wadgym.wads import Actor, Level, MapBuilder, build_wad, write_wad

# A health item is only picked up below full health unless it has INVENTORY.ALWAYSPICKUP.
COLLECTABLE = Actor("WadgymTestItem", parent="Medikit", ednum=20001, flags=["+COUNTITEM", "+INVENTORY.ALWAYSPICKUP"],
                    properties={"Scale": 1.5, "Inventory.PickupMessage": "Got it"})


def two_rooms() -> Level:
    """West room (0..512, its floor hurts 30 every 32 tics) with the player facing east, an open east
    room (512..1024) a step higher, a stock Medikit just ahead of the player and a custom +COUNTITEM
    item in the east room, all on the walking line y=256."""
    m = MapBuilder()
    west = m.add_room(0, 0, 512, 512, name="west", damage=30)
    east = m.add_room(512, 0, 1024, 512, name="east", floor_height=16, wall="BROWN1", light=160)
    m.connect(west, east, width=128, at=(512, 256))
    m.add_player_start(64, 256, angle=0)
    m.add_thing("Medikit", 112, 256)
    m.add_thing("WadgymTestItem", 768, 256)
    return Level(map=m, name="MAP01", actors=[COLLECTABLE], title="Two rooms")


@pytest.fixture(name="two_rooms")
def two_rooms_factory():
    """The two_rooms() level builder (tests cannot import conftest under importlib mode)."""
    return two_rooms


@pytest.fixture(scope="session")
def two_rooms_wad(tmp_path_factory):
    path = tmp_path_factory.mktemp("wads") / "two_rooms.wad"
    write_wad(path, build_wad([two_rooms()]))
    return path


def rooms_in_a_row() -> Level:
    """Three rooms on the line x=256, the player in the south one facing north: a door across a
    64-unit gap into the middle room, then a corridor of stairs up to the north room (floor 64)."""
    m = MapBuilder()
    south = m.add_room(0, 0, 512, 512, name="south")
    middle = m.add_room(0, 576, 512, 1024, name="middle", wall="BROWN1", light=160)
    north = m.add_room(0, 1152, 512, 1536, name="north", floor_height=64, ceiling_height=192, wall="STONE2")
    m.connect(south, middle, width=128, door=True)
    m.connect(middle, north, width=128)
    m.add_player_start(256, 64, angle=90)
    return Level(map=m, name="MAP01")


@pytest.fixture(scope="session")
def rooms_in_a_row_wad(tmp_path_factory):
    path = tmp_path_factory.mktemp("wads") / "rooms_in_a_row.wad"
    write_wad(path, build_wad([rooms_in_a_row()]))
    return path
