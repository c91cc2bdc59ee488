"""DoomEnv: the Gymnasium side of a ViZDoom game on a WAD that wadgym built.

It owns the engine (start, seeding, stepping, closing), the action and observation spaces and
rendering; subclasses (e.g. wadgym.envs.items.ItemsEnv) add the scenario: WAD, rewards and info.
"""

from __future__ import annotations

import os
import time
from typing import Any

import gymnasium as gym
import numpy as np
import vizdoom as vzd

from .checks import check_number
from .engine import make_game

# Discrete actions: each is the set of buttons held for `frame_skip` tics.
ACTION_SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "basic": (
        ("MOVE_FORWARD",),
        ("TURN_LEFT",),
        ("TURN_RIGHT",),
        ("MOVE_FORWARD", "TURN_LEFT"),
        ("MOVE_FORWARD", "TURN_RIGHT"),
    ),
    "extended": (
        ("MOVE_FORWARD",),
        ("TURN_LEFT",),
        ("TURN_RIGHT",),
        ("MOVE_FORWARD", "TURN_LEFT"),
        ("MOVE_FORWARD", "TURN_RIGHT"),
        (),
        ("MOVE_BACKWARD",),
        ("MOVE_LEFT",),
        ("MOVE_RIGHT",),
    ),
}
ENGINE_RESOLUTIONS = tuple(n[4:].lower() for n in dir(vzd.ScreenResolution) if n.startswith("RES_"))
GAME_VARIABLES = tuple(n for n in dir(vzd.GameVariable) if n.isupper())
MAX_FRAME_SKIP = 64
# Episodes a reset starts, each with the next engine seed from np_random, before it gives up on a scenario
# whose start is unusable (e.g. random item placement fell short).
RESET_ATTEMPTS = 5


def user_variable(n: int) -> vzd.GameVariable:
    """GameVariable.USERn: ACS `global int n` read by the engine."""
    return getattr(vzd.GameVariable, f"USER{n}")


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def valid_observation_sizes(engine_width: int, engine_height: int) -> list[tuple[int, int]]:
    """(height, width) observations reachable by averaging f x f blocks of the engine's frame."""
    return [(engine_height // f, engine_width // f) for f in range(1, engine_height + 1)
            if engine_height % f == 0 and engine_width % f == 0]


def parse_engine_resolution(text: str) -> tuple[int, int, vzd.ScreenResolution]:
    if str(text).lower() not in ENGINE_RESOLUTIONS:
        raise ValueError(f"render_resolution={text!r} is not a ViZDoom resolution; valid: {', '.join(ENGINE_RESOLUTIONS)}")
    width, height = (int(v) for v in str(text).lower().split("x"))
    return width, height, getattr(vzd.ScreenResolution, f"RES_{width}X{height}")


def check_choices(*, render_mode, frame_skip, action_set, color, game_variables, downsample) -> None:
    if downsample not in DOWNSAMPLERS:
        raise ValueError(f"downsample={downsample!r} is not valid; choose one of {', '.join(map(repr, DOWNSAMPLERS))}")
    if render_mode not in (None, *DoomEnv.metadata["render_modes"]):
        raise ValueError(f"render_mode={render_mode!r} is not valid; choose None, 'rgb_array' or 'human'")
    check_number("frame_skip", frame_skip, 1, MAX_FRAME_SKIP, whole=True)
    if action_set not in ACTION_SETS:
        raise ValueError(f"action_set={action_set!r} is not valid; choose one of {', '.join(ACTION_SETS)}")
    if color not in (True, False):
        raise ValueError(f"color={color!r} is not valid; choose True (RGB) or False (gray)")
    unknown = [v for v in game_variables if v not in GAME_VARIABLES]
    if isinstance(game_variables, str) or unknown:
        raise ValueError(f"game_variables must be a sequence of ViZDoom GameVariable names; "
                         f"unknown: {unknown or game_variables!r}; valid: {', '.join(GAME_VARIABLES)}")


def parse_observation_size(resolution, render_resolution, engine_width: int, engine_height: int) -> tuple[int, int]:
    sizes = valid_observation_sizes(engine_width, engine_height)
    try:
        height, width = (int(v) for v in resolution)
    except (TypeError, ValueError):
        height = width = None
    if (height, width) not in sizes:
        raise ValueError(f"resolution={resolution!r} is not reachable from render_resolution "
                         f"{render_resolution!r}; valid (height, width): {', '.join(map(str, sizes))}")
    return height, width


class BlockMean:
    """Average of f x f pixel blocks (rounded down) of uint8 frames (H, W) or (H, W, C), as (H/f, W/f, C)
    with C = 1 for (H, W) frames; a new array per call, or written into `out`.

    Sums strided slices into reused buffers: several times faster than a reshape-and-sum.
    """

    def __init__(self, shape: tuple[int, ...], f: int):
        self.f = f
        self._gray = len(shape) == 2
        channels = shape[2] if len(shape) > 2 else 1
        dtype = np.uint16 if f <= 16 else np.uint32  # 255 * f * f must fit
        self._rows = np.empty((shape[0] // f, shape[1], channels), dtype)
        self._blocks = np.empty((shape[0] // f, shape[1] // f, channels), dtype)
        self._shift = f.bit_length() - 1 if f & (f - 1) == 0 else None  # f a power of two: divide by shifting

    def __call__(self, frame: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        f, rows, blocks = self.f, self._rows, self._blocks
        if self._gray:
            frame = frame[:, :, None]
        if f == 1:
            return frame if out is None else copied(frame, out)
        np.add(frame[0::f], frame[1::f], out=rows, dtype=rows.dtype)
        for k in range(2, f):
            np.add(rows, frame[k::f], out=rows)
        np.add(rows[:, 0::f], rows[:, 1::f], out=blocks)
        for k in range(2, f):
            np.add(blocks, rows[:, k::f], out=blocks)
        if self._shift is not None:
            np.right_shift(blocks, 2 * self._shift, out=blocks)
        else:
            np.floor_divide(blocks, f * f, out=blocks)
        return blocks.astype(np.uint8) if out is None else copied(blocks, out)


class BlockSample:
    """The pixel nearest the centre of each f x f block of uint8 frames (H, W) or (H, W, C), as (H/f, W/f, C)
    with C = 1 for (H, W) frames; a new array per call (f = 1: a view of the frame), or written into `out`. About 2 us for
    120x160 -> 60x80, five times cheaper than BlockMean: the env keeps the engine's pace."""

    def __init__(self, shape: tuple[int, ...], f: int):
        self.f = f
        every = slice(f // 2, None, f)
        self._index = (every, every) + ((None,) if len(shape) == 2 else ())  # one indexing op adds the channel axis

    def __call__(self, frame: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        if out is not None:
            return copied(frame[self._index], out)
        if self.f == 1:
            return frame[self._index]
        return frame[self._index].copy()


def copied(source: np.ndarray, out: np.ndarray) -> np.ndarray:
    np.copyto(out, source, casting="unsafe")
    return out


# How a rendered frame becomes a smaller observation: `downsample=` names one.
DOWNSAMPLERS = {"stride": BlockSample, "mean": BlockMean}


def engine_gray(rgb: np.ndarray) -> np.ndarray:
    """The engine's own GRAY8 conversion of an RGB24 frame, bit for bit (viz_buffers.cpp: truncated)."""
    return (0.21 * rgb[..., 0] + 0.72 * rgb[..., 1] + 0.07 * rgb[..., 2]).astype(np.uint8)


class DoomEnv(gym.Env):
    """A ViZDoom game on one WAD as a Gymnasium env; see ItemsEnv for a full description.

    Subclasses set `self.wad_path` and `self.maps` before calling `_start_game`, then implement
    `_reset_scenario(state)`, `_step_scenario(state) -> (reward, terminated)` and `_info()`, and may
    implement `_episode_problem(state)`.
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": vzd.DEFAULT_TICRATE}

    def _configure(self, *, frame_skip, resolution, render_resolution, color, game_variables, action_set,
                   render_mode, tracked_variables, downsample="stride"):
        """Check the engine-facing arguments and build the spaces; raises ValueError naming the bad one."""
        check_choices(render_mode=render_mode, frame_skip=frame_skip, action_set=action_set, color=color,
                      game_variables=game_variables, downsample=downsample)
        engine_width, engine_height, self._engine_resolution = parse_engine_resolution(render_resolution)
        height, width = parse_observation_size(resolution, render_resolution, engine_width, engine_height)
        if render_mode == "human" and not has_display():
            # Headless (CI, gymnasium's check_env): run without the window rather than fail the engine.
            gym.logger.warn("render_mode='human' needs a display (DISPLAY and WAYLAND_DISPLAY are unset): "
                            "running without a window; use render_mode='rgb_array' to get frames")

        self.frame_skip = int(frame_skip)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "render_fps": vzd.DEFAULT_TICRATE / self.frame_skip}
        frame_shape = (engine_height, engine_width) + ((3,) if color else ())
        self._downsample = DOWNSAMPLERS[downsample](frame_shape, engine_height // height)
        self._color = color
        # Gray observations come from the engine's GRAY8 unless full-size RGB frames are needed for rendering.
        self._engine_rgb = color or render_mode == "rgb_array"
        self._window = render_mode == "human" and has_display()
        self._tracked = list(tracked_variables)
        self._observed_variables = [getattr(vzd.GameVariable, v) for v in game_variables]
        buttons = sorted({b for combo in ACTION_SETS[action_set] for b in combo})
        self._buttons = [getattr(vzd.Button, b) for b in buttons]
        self._actions = [[float(b in combo) for b in buttons] for combo in ACTION_SETS[action_set]]
        self._buttons_of = dict(enumerate(self._actions))
        self.action_space = gym.spaces.Discrete(len(self._actions))
        screen = gym.spaces.Box(0, 255, (height, width, 3 if color else 1), np.uint8)
        if game_variables:
            variables = gym.spaces.Box(-np.inf, np.inf, (len(game_variables),), np.float32)
            self.observation_space = gym.spaces.Dict({"screen": screen, "gamevariables": variables})
        else:
            self.observation_space = screen
        self.game = None
        self._frame = np.zeros((engine_height, engine_width, 3), np.uint8)
        self._last_observation = None
        self._observation_out = None
        self._next_frame_time = 0.0

    def _start_game(self, map_name: str) -> None:
        # No engine timeout (make_game's default): truncation is TimeLimit's job.
        game = make_game(self.wad_path, map_name, resolution=self._engine_resolution,
                         screen_format=vzd.ScreenFormat.RGB24 if self._engine_rgb else vzd.ScreenFormat.GRAY8,
                         buttons=self._buttons, variables=self._tracked + self._observed_variables,
                         window=self._window)
        self.configure_game(game)
        game.init()
        self.game = game
        self._map = map_name

    # -- Gymnasium API ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        map_name = self._choose_map()
        if self.game is None:
            self._start_game(map_name)
        elif map_name != self._map:
            self.game.set_doom_map(map_name)
            self._map = map_name
        for _ in range(RESET_ATTEMPTS):
            self.game.set_seed(int(self.np_random.integers(0, 2**31 - 1)))
            self.game.new_episode()
            state = self.game.get_state()
            problem = self._episode_problem(state)
            if problem is None:
                break
        else:
            raise RuntimeError(f"{problem} in each of {RESET_ATTEMPTS} episodes started with fresh engine seeds; "
                               f"the scenario's parameters leave too little room (see the env's Arguments)")
        self._reset_scenario(state)
        observation = self._observe(state)
        if self.render_mode == "human":
            self._next_frame_time = time.perf_counter()
            self.render()
        return observation, self._info()

    def step(self, action):
        game = self.game
        if game is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        try:
            buttons = self._buttons_of[action]  # ints, numpy ints and whole floats hash alike
        except (KeyError, TypeError):
            buttons = self._checked_buttons(action)
        game.make_action(buttons, self.frame_skip)
        state = game.get_state()
        reward, terminated = self._step_scenario(state)
        observation = self._observe(state)
        if self._window:
            self.render()
        return observation, reward, terminated, False, self._info()

    def _checked_buttons(self, action) -> list[float]:
        """The buttons of an action the lookup did not find (e.g. a 0-d array), or a ValueError."""
        try:
            index = int(action)
        except (TypeError, ValueError):
            index = None
        if index is None or not 0 <= index < len(self._actions) or index != action:
            raise ValueError(f"action={action!r} is not in {self.action_space}")
        return self._actions[index]

    def render(self):
        if self.render_mode == "rgb_array":
            return self._frame
        if self.render_mode == "human":  # the engine draws its own window; keep it at game speed
            if not self._window:
                return None
            self._next_frame_time += 1.0 / self.metadata["render_fps"]
            time.sleep(max(0.0, self._next_frame_time - time.perf_counter()))
            return None
        gym.logger.warn("render() called without a render_mode; pass render_mode='rgb_array' to gym.make")
        return None

    def close(self):
        if self.game is not None:
            self.game.close()
            self.game = None

    # -- observations ----------------------------------------------------------------------------

    def write_observations_to(self, out) -> None:
        """From now on write each observation into `out` and return `out` itself: an array shaped as
        observation_space (a dict of them for a Dict space), e.g. this env's slot of a vector env's batch
        (wadgym.envs.vector), so no observation is copied twice. None: a new array per observation again."""
        self._observation_out = out

    def _observe(self, state):
        """The observation for `state`; when the engine ended the episode (state None), the last one."""
        if state is None:
            return self._last_observation
        frame = state.screen_buffer
        if self._engine_rgb:
            self._frame = frame
            if not self._color:
                frame = engine_gray(frame)
        out = self._observation_out
        if not self._observed_variables:
            observation = self._downsample(frame, out)
        elif out is None:
            observation = {"screen": self._downsample(frame),
                           "gamevariables": state.game_variables[len(self._tracked):].astype(np.float32)}
        else:
            self._downsample(frame, out["screen"])
            np.copyto(out["gamevariables"], state.game_variables[len(self._tracked):], casting="same_kind")
            observation = out
        self._last_observation = observation
        return observation

    # -- for subclasses --------------------------------------------------------------------------

    def configure_game(self, game: vzd.DoomGame) -> None:
        """Hook: change the DoomGame's settings before `init` (e.g. `set_objects_info_enabled`)."""

    def _choose_map(self) -> str:
        return self.maps[0]

    def _episode_problem(self, state) -> str | None:
        """Why the episode that just started is unusable (reset then starts another), or None."""
        return None

    def _reset_scenario(self, state) -> None:
        raise NotImplementedError

    def _step_scenario(self, state) -> tuple[float, bool]:
        raise NotImplementedError

    def _info(self) -> dict[str, Any]:
        return {}
