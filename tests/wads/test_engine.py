"""Built maps in the real engine, headless: spawn, walking, walls, item counting, rooms and doors."""

from __future__ import annotations

import pytest
import vizdoom as vzd

from wadgym.envs.runtime.engine import make_game
from wadgym.wads import Level, MapBuilder, build_wad, write_wad

X, Y, ANGLE = vzd.GameVariable.POSITION_X, vzd.GameVariable.POSITION_Y, vzd.GameVariable.ANGLE
ITEMS, HEALTH = vzd.GameVariable.ITEMCOUNT, vzd.GameVariable.HEALTH
FORWARD = [1]


def walk(game, steps: int, tics: int = 4):
    for _ in range(steps):
        game.make_action(FORWARD, tics)
    return game.get_state().game_variables


def test_player_spawns_where_and_facing_as_placed(start_game, two_rooms_wad):
    game = start_game(two_rooms_wad, buttons=[vzd.Button.MOVE_FORWARD], variables=[X, Y, ANGLE])
    x, y, angle = game.get_state().game_variables
    assert (x, y) == (64, 256)
    assert abs(angle - 0) < 1e-3 or abs(angle - 360) < 1e-3


def test_walking_crosses_the_opening_and_counts_only_the_custom_item(start_game, two_rooms_wad):
    game = start_game(two_rooms_wad, buttons=[vzd.Button.MOVE_FORWARD], variables=[X, Y, ITEMS, HEALTH])
    game.advance_action(34)                  # the hurting floor takes 30 health every 32 tics
    x0, _, _, hurt = game.get_state().game_variables
    assert hurt < 100
    x, _, items, health = walk(game, 2)
    assert x > x0                            # walking forward changes the position
    assert health > hurt and items == 0      # the stock Medikit was picked up but is not counted
    x, y, items, _ = walk(game, 60)
    assert x > 700 and y == 256              # through the opening, up the step, into the east room
    assert items == 1                        # the custom +COUNTITEM actor was counted
    assert x < 1024 - 15                     # the east room's far wall stops the player
    assert walk(game, 5)[0] == x


Z = vzd.GameVariable.POSITION_Z


@pytest.mark.parametrize("gap", [64, 0], ids=["door-across-a-gap", "door-in-a-shared-wall"])
def test_a_closed_door_stops_the_player_and_use_opens_it(start_game, tmp_path, gap):
    m = MapBuilder()
    south = m.add_room(0, 0, 512, 512)
    north = m.add_room(0, 512 + gap, 512, 1024 + gap, wall="BROWN1")
    m.connect(south, north, width=128, door=True)
    m.add_player_start(256, 64, angle=90)
    path = tmp_path / "door.wad"
    write_wad(path, build_wad([Level(map=m)]))
    game = start_game(path, buttons=[vzd.Button.MOVE_FORWARD, vzd.Button.USE], variables=[Y])
    for _ in range(40):
        game.make_action([1, 0], 4)
    (stopped,) = game.get_state().game_variables
    door_face = 512 + gap / 2 - 8                  # doors are 16 thick, across the middle of the gap
    assert stopped == pytest.approx(door_face - 16, abs=0.1)   # the player's radius is 16
    game.make_action([0, 1], 1)                    # one press: a second one would reverse the rising door
    for _ in range(40):
        game.make_action([1, 0], 4)
    (y,) = game.get_state().game_variables
    assert y > 700                                 # through the open door into the north room


@pytest.mark.parametrize("gap", [64, 0], ids=["door-across-a-gap", "door-in-a-shared-wall"])
def test_a_push_door_opens_when_walked_into_and_stays_open_while_pushed(start_game, tmp_path, gap):
    m = MapBuilder()
    south = m.add_room(0, 0, 512, 512)
    north = m.add_room(0, 512 + gap, 512, 1024 + gap, wall="BROWN1")
    m.connect(south, north, width=128, door="push")
    m.add_player_start(256, 64, angle=90)
    path = tmp_path / "push.wad"
    write_wad(path, build_wad([Level(map=m)]))
    game = start_game(path, buttons=[vzd.Button.MOVE_FORWARD], variables=[Y])
    ys = [walk(game, 1)[0] for _ in range(60)]     # no use button: walking alone opens it
    door_face = 512 + gap / 2 - 8
    assert sum(y == pytest.approx(door_face - 16, abs=0.1) for y in ys) >= 3   # held up while it rises
    assert ys[-1] > 700                            # then through into the north room


def test_rooms_joined_by_a_door_and_stairs_can_be_walked_through(start_game, rooms_in_a_row_wad):
    game = start_game(rooms_in_a_row_wad, buttons=[vzd.Button.MOVE_FORWARD, vzd.Button.USE], variables=[Y, Z])
    y = None
    for _ in range(80):
        game.make_action([1, 0], 4)
        before, y = y, game.get_state().game_variables[0]
        if y == before:                            # stuck at the door: press use once, let it rise
            game.make_action([0, 1], 1)
            game.advance_action(35)
    y, z = game.get_state().game_variables
    assert y > 1152 and z == 64                    # up the stairs, standing in the north room
    assert y < 1536 - 15                           # its far wall stops the player


def test_level_scripts_are_compiled_and_run(start_game, tmp_path):
    from wadgym.acs import compile_source

    m = MapBuilder()
    m.add_room(0, 0, 512, 512)
    m.add_player_start(64, 256, angle=0)
    m.add_map_spot(160, 256, tid=5)
    # HealthBonus counts as an item; only the script puts one in the player's way.
    script = '#include "zcommon.acs"\nscript 1 OPEN { SpawnSpot("HealthBonus", 5); }\n'
    path = tmp_path / "scripted.wad"
    write_wad(path, build_wad([Level(map=m, scripts=script)], compiler=compile_source))
    game = start_game(path, buttons=[vzd.Button.MOVE_FORWARD], variables=[ITEMS])
    for _ in range(20):
        game.make_action(FORWARD, 4)
    assert game.get_state().game_variables[0] == 1


@pytest.mark.parametrize("behavior, rejected", [(None, False), (b"ACS\0" + bytes([16, 0, 0, 0, 8, 0, 0, 0])
                                                                  + b"ACSe" + bytes(8), True)],
                         ids=["default-empty-module", "24-byte-acc-output"])
def test_the_empty_behavior_loads_without_an_engine_error(tmp_path, capfd, behavior, rejected):
    m = MapBuilder()
    m.add_room(0, 0, 256, 256)
    m.add_player_start(128, 128)
    path = tmp_path / "quiet.wad"
    write_wad(path, build_wad([Level(map=m, behavior=behavior)]))
    game = make_game(path)
    game.set_console_enabled(True)                 # the engine prints its console to stdout
    game.init()
    game.close()
    assert ("invalid ACS module" in capfd.readouterr().out) == rejected
