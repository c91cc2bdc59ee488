"""Headless ViZDoom games on a WAD: the one place where wadgym sets a DoomGame up.

The envs, `wadgym doctor`, the benchmarks and the tests all start their games here, so a bare
DoomGame loop in a benchmark runs with exactly the settings the envs use.
"""

from __future__ import annotations

import os
from typing import Sequence

import vizdoom as vzd

# Drawn by default but useless to an agent, and each costs render time.
QUIET_RENDER = ("hud", "minimal_hud", "weapon", "crosshair", "decals", "particles", "messages", "corpses",
                "effects_sprites")


def make_game(
    wad: str | os.PathLike | None,
    map_name: str = "MAP01",
    *,
    resolution: vzd.ScreenResolution = vzd.ScreenResolution.RES_160X120,
    screen_format: vzd.ScreenFormat = vzd.ScreenFormat.GRAY8,
    buttons: Sequence[vzd.Button] = (),
    variables: Sequence[vzd.GameVariable] = (),
    window: bool = False,
    seed: int | None = None,
    episode_timeout: int = 0,
) -> vzd.DoomGame:
    """A configured DoomGame, not yet started: `map_name` of `wad` (None: the IWAD's own map), player
    mode, no sound, no HUD, weapon or other overlays, and no engine timeout unless one is given."""
    game = vzd.DoomGame()
    if wad is not None:
        game.set_doom_scenario_path(os.fspath(wad))
    game.set_doom_map(map_name)
    game.set_mode(vzd.Mode.PLAYER)
    game.set_screen_resolution(resolution)
    game.set_screen_format(screen_format)
    game.set_window_visible(window)
    game.set_sound_enabled(False)
    for setting in QUIET_RENDER:
        getattr(game, f"set_render_{setting}")(False)
    game.set_available_buttons(list(buttons))
    game.set_available_game_variables(list(variables))
    game.set_episode_timeout(episode_timeout)
    if seed is not None:
        game.set_seed(seed)
    return game


def enable_buffers(game: vzd.DoomGame, buffers: Sequence[str]) -> None:
    """Turn on the extra screens named in `buffers` ("depth", "labels", "automap": a plain top-down map)."""
    game.set_depth_buffer_enabled("depth" in buffers)
    game.set_labels_buffer_enabled("labels" in buffers)
    if "automap" in buffers:
        game.set_automap_buffer_enabled(True)
        game.set_automap_mode(vzd.AutomapMode.OBJECTS_WITH_SIZE)
        game.set_automap_rotate(False)
        game.set_automap_render_textures(False)


def start_game(wad: str | os.PathLike | None, map_name: str = "MAP01", **settings) -> vzd.DoomGame:
    """`make_game(...)`, started. The caller closes it."""
    game = make_game(wad, map_name, **settings)
    game.init()
    return game
