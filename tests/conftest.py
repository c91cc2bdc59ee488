"""Shared fixtures: a real, headless ViZDoom game on a WAD the test built."""

from __future__ import annotations

import pytest
import vizdoom as vzd


@pytest.fixture
def start_game():
    """Factory: start_game(wad_path, map="MAP01", buttons=(), variables=(), ...) -> an initialised DoomGame.

    Every game is hidden, 160x120, and closed when the test ends.
    """
    games: list[vzd.DoomGame] = []

    def start(
        wad_path,
        map: str = "MAP01",
        buttons=(),
        variables=(),
        episode_timeout: int = 0,
        screen_format=vzd.ScreenFormat.GRAY8,
        seed: int | None = 1,
        extra_args: str = "",
    ) -> vzd.DoomGame:
        game = vzd.DoomGame()
        game.set_doom_scenario_path(str(wad_path))
        game.set_doom_map(map)
        game.set_window_visible(False)
        game.set_sound_enabled(False)
        game.set_screen_resolution(vzd.ScreenResolution.RES_160X120)
        game.set_screen_format(screen_format)
        game.set_render_hud(False)
        game.set_available_buttons(list(buttons))
        game.set_available_game_variables(list(variables))
        game.set_episode_timeout(episode_timeout)
        game.set_mode(vzd.Mode.PLAYER)
        if seed is not None:
            game.set_seed(seed)
        if extra_args:
            game.add_game_args(extra_args)
        game.init()
        games.append(game)
        return game

    yield start
    for game in games:
        game.close()
