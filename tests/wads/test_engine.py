"""Built maps in the real engine, headless: spawn, walking, walls, item counting, rooms and doors."""

from __future__ import annotations

import vizdoom as vzd

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
