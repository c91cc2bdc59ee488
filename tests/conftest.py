"""Shared fixtures: a real, headless ViZDoom game on a WAD the test built."""

from __future__ import annotations

import pytest
import vizdoom as vzd

from wadgym.envs import engine


@pytest.fixture
def start_game():
    """Factory: start_game(wad_path, map="MAP01", buttons=(), variables=(), ...) -> a started DoomGame.

    Every game has wadgym.envs.engine's settings (hidden, 160x120 gray), is seeded, and is closed when
    the test ends.
    """
    games: list[vzd.DoomGame] = []

    def start(wad_path, map: str = "MAP01", *, seed: int | None = 1, **settings) -> vzd.DoomGame:
        game = engine.start_game(wad_path, map, seed=seed, **settings)
        games.append(game)
        return game

    yield start
    for game in games:
        game.close()
