"""Shared fixtures: a real, headless ViZDoom game on a WAD the test built; a WAD cache of the session's own."""

from __future__ import annotations

import os

import pytest
import vizdoom as vzd

from wadgym.envs import engine


@pytest.fixture(scope="session", autouse=True)
def session_wad_cache(tmp_path_factory) -> str:
    """The session's WAD cache folder: envs made without cache_dir (and the processes tests start) build
    into it, not into the user's ~/.cache/wadgym."""
    previous = os.environ.get("WADGYM_CACHE_DIR")
    folder = str(tmp_path_factory.mktemp("wad_cache"))
    os.environ["WADGYM_CACHE_DIR"] = folder
    yield folder
    if previous is None:
        os.environ.pop("WADGYM_CACHE_DIR", None)
    else:
        os.environ["WADGYM_CACHE_DIR"] = previous


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
