"""DoomEnv: the one Gymnasium env base of wadgym. It owns everything that is not the task.

The base owns the engine (start, seeding, stepping, restarting on another WAD, closing), the engine-facing
arguments (frames, buffers, game variables, actions, rendering), the levels (which level seed a reset
plays, the WAD that holds it, the cache), the one resolution of scenario parameters, pickling by the
constructor's arguments and retries of unusable episode starts.

A task family subclasses it in one module: it names its scenario (`Params`, `PRESETS`, `build`), the game
variables it tracks (by name), its score, any action sets of its own (the shared ones are in
wadgym.envs.actions), and implements the hooks `on_reset`, `on_step` (reward and termination from the tracked
variables), `task_info` and, optionally, `level_problem`, `configure_game` and `reference_action` (a scripted
policy, which wadgym.envs.aiming helps aim and steer). See wadgym.envs.families.items for a complete family.

Given `wad=` (a WAD file or "vizdoom:NAME") and `map=`, the base builds nothing and plays that hand-made map
(wadgym.envs.runtime.handmade checks it first); the family tracks its `map_variables` there, engine facts
only, says in `hand_made_problem` why it cannot score a map, and leaves out of `info` what only its own
levels publish.

How an engine frame becomes the observation (the resolutions and the downsamplers) is in wadgym.envs.frames.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import vizdoom as vzd

from .actions import ACTION_SETS, button_vectors
from .checks import check_number
from .frames import DOWNSAMPLERS, copied, engine_gray, parse_engine_resolution, parse_observation_size
from .params import make_params
from .runtime.engine import AUTOMAPS, automap_of, buffer_field, display_problem, enable_buffers, make_game

GAME_VARIABLES = tuple(n for n in dir(vzd.GameVariable) if n.isupper())
BUFFERS = ("depth", "labels", *AUTOMAPS)  # extra engine screens an observation may carry (one automap)
MAX_FRAME_SKIP = 64
# Episodes a reset starts, each with the next engine seed from np_random, before it gives up on a level
# whose start is unusable (e.g. random item placement fell short).
RESET_ATTEMPTS = 5
# Level seeds are 31-bit, as procgen's; a finite range of up to MAX_WAD_LEVELS levels is built into one
# WAD (one engine start, then a map switch per level); other levels get a WAD each.
MAX_LEVEL_SEED = 2**31 - 1
MAX_WAD_LEVELS = 1024
# visit_cell: the side of the exploration bonus's squares, map units (the player is 32 across).
MIN_VISIT_CELL, MAX_VISIT_CELL = 16, 1024
_CHECKED: set = set()  # (family, params, first level) whose first level built: see DoomEnv._check_levels


class DoomEnv(gym.Env):
    """A ViZDoom game on maps that wadgym builds, as a Gymnasium env. Subclass it for a task family
    (see the module docstring); each family's class docstring is its full documentation."""

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": vzd.DEFAULT_TICRATE}

    # -- what a family defines -------------------------------------------------------------------
    Params: ClassVar[type | None] = None        # frozen dataclass of scenario parameters
    PRESETS: ClassVar[dict[str, Any]] = {}      # named Params, at least "default"
    build: ClassVar[Callable | None] = None     # staticmethod: build(rng, params) -> wadgym.wads.Level
    variables: ClassVar[tuple[str, ...]] = ()   # GameVariable names the task tracks: on_step's `v`
    score_name: ClassVar[str] = "return"        # what info["score"] counts, e.g. "items"
    action_sets: ClassVar[dict[str, tuple[tuple[str, ...], ...]]] = {}  # the family's own action sets
    default_action_set: ClassVar[str] = "basic"
    # On a hand-made map (wad=): the GameVariables the task tracks there (engine facts only, no USER
    # variables: a foreign map's ACS does not write the family's), and `hand_made_problem` says why the
    # family cannot score a map.
    map_variables: ClassVar[tuple[str, ...]] = ("HEALTH",)
    # False for a family that plays its own generated levels only: wad= is always refused (hand_made_problem
    # says why); tools and tests that play every id on hand-made maps skip it.
    plays_hand_made: ClassVar[bool] = True
    # Env kwargs (reward bonuses) that read the plan of a level the family built: a hand-made map refuses them
    # set (hand_made_problem), and tools that play a run on one (`wadgym eval --wad`) leave them out.
    level_only_kwargs: ClassVar[tuple[str, ...]] = ()
    # Where the family's game spawns players on a hand-made map (wadgym.envs.runtime.handmade.STARTS): "player"
    # (a player-1 start), or "deathmatch" (DeathmatchStarts); a map without them is refused before an engine starts.
    hand_made_starts: ClassVar[str] = "player"
    # Scenario parameters that still apply on a hand-made map (e.g. the deathmatch's bots): the others shape the
    # levels the family builds, and wad= refuses them.
    hand_made_params: ClassVar[tuple[str, ...]] = ()
    # A hand-made map the family plays, as wad= takes it: the ViZDoom scenario its levels generalise where there
    # is one (e.g. "vizdoom:my_way_home"). The suite plays every id on its family's example, so a new family
    # brings its own rather than an edit of the tests.
    hand_made_example: ClassVar[str] = "vizdoom:health_gathering"

    def __new__(cls, *args, **kwargs):
        env = super().__new__(cls)
        env._constructor_arguments = (args, dict(kwargs))  # a pickled env is rebuilt from these
        return env

    def __reduce__(self):
        args, kwargs = self._constructor_arguments
        return _rebuild, (type(self), args, kwargs)

    def __init__(
        self,
        *,
        preset: str | None = None,
        num_levels: int = 0,
        start_level: int = 0,
        frame_skip: int = 4,
        resolution: tuple[int, int] = (60, 80),
        render_resolution: str = "160x120",
        downsample: str = "stride",
        color: bool = False,
        game_variables: tuple[str, ...] = (),
        buffers: tuple[str, ...] = (),
        action_set: str | None = None,
        render_mode: str | None = None,
        cache_dir: str | os.PathLike | None = None,
        visit_reward: float = 0.0,
        visit_cell: int = 64,
        wad: str | os.PathLike | None = None,
        map: str = "MAP01",
        doom_skill: int | None = None,
        episode_start_time: int | None = None,
        episode_timeout: int | None = None,
        spectator: bool = False,
        **params: Any,
    ):
        cls = type(self)
        if cls.Params is None or cls.build is None:
            raise TypeError(f"{cls.__name__} must define Params, PRESETS and build (see wadgym.envs.doom_env)")
        self.params = make_params(cls.Params, cls.PRESETS, preset, params, other_arguments=env_arguments(cls))
        self.hand_made = self._hand_made(wad, map, doom_skill, episode_start_time, episode_timeout, start_level,
                                         params)
        self._variable_names = cls.map_variables if self.hand_made else cls.variables
        self.num_levels = check_number("num_levels", num_levels, 0, MAX_LEVEL_SEED + 1, whole=True)
        self.start_level = check_number("start_level", start_level, 0, MAX_LEVEL_SEED, whole=True)
        if self.num_levels and self.start_level + self.num_levels - 1 > MAX_LEVEL_SEED:
            raise ValueError(f"start_level={start_level} + num_levels={num_levels} go past the last level seed "
                             f"{MAX_LEVEL_SEED}")
        self.cache_dir = _check_cache_dir(cache_dir)
        self.visit_reward = check_number("visit_reward", visit_reward)
        self.visit_cell = check_number("visit_cell", visit_cell, MIN_VISIT_CELL, MAX_VISIT_CELL, whole=True)
        self._cells: set[tuple[int, int]] = set()  # the squares visited this episode (visit_reward)
        self._configure(frame_skip=frame_skip, resolution=resolution, render_resolution=render_resolution,
                        downsample=downsample, color=color, game_variables=game_variables, buffers=buffers,
                        action_set=cls.default_action_set if action_set is None else action_set,
                        render_mode=render_mode)
        self._configure_spectator(spectator)
        self.game: vzd.DoomGame | None = None
        self.wad_path: Path | None = None
        self.level_seed: int | None = None
        # The seed the engine got at the latest reset (drawn from np_random, or options["engine_seed"]): with the
        # level seed, what replays the episode's frames from its actions.
        self.engine_seed: int | None = None
        # The engine's state of the latest reset or step (None once the engine ended the episode): what the
        # hooks on_reset and on_step may read beyond the tracked variables (e.g. state.objects).
        self.last_state: vzd.GameState | None = None
        self.map: str | None = None
        self._levels: tuple[int, int] | None = None  # (first seed, count) of the WAD the engine has loaded
        self._scratch: tempfile.TemporaryDirectory | None = None  # WADs of levels outside a cached range
        self._return = 0.0
        self._scenario_return = 0.0  # the engine's own reward (a ViZDoom scenario's .cfg and ACS) this episode
        if self.hand_made is None:
            self._check_levels()

    def _hand_made(self, wad, map_name, doom_skill, episode_start_time, episode_timeout, start_level, params):
        """The checked hand-made map of `wad=` (None without it), refused with a ValueError before any engine
        starts where the map or this family cannot be played (see wadgym.envs.runtime.handmade)."""
        settings = {"doom_skill": doom_skill, "episode_start_time": episode_start_time,
                    "episode_timeout": episode_timeout}
        if wad is None:
            given = [k for k, v in {**settings, "map": None if map_name == "MAP01" else map_name}.items()
                     if v is not None]
            if given:
                raise ValueError(f"{', '.join(given)} apply to a hand-made map only: pass wad= (a WAD file or "
                                 f"'vizdoom:NAME') too")
            return None
        from .runtime.handmade import hand_made_map

        if start_level:
            raise ValueError(f"start_level={start_level} chooses generated levels; with wad= no level is built")
        shaping = [name for name in params if name not in self.hand_made_params]
        if shaping:
            kept = f"; {', '.join(self.hand_made_params)} still apply" if self.hand_made_params else ""
            raise ValueError(f"{', '.join(shaping)}: scenario parameters shape generated levels; with wad= no level "
                             f"is built (num_levels and preset are ignored{kept})")
        hand_made = hand_made_map(wad, map_name, **settings, starts=self.hand_made_starts)
        problem = self.hand_made_problem(hand_made)
        if problem:
            raise ValueError(f"{type(self).__name__} cannot score {hand_made.where}: {problem}")
        return hand_made

    def _check_levels(self) -> None:
        """Build now what the first reset needs, so that parameters whose levels cannot be built (items
        that do not fit, ...) are a ValueError when the env is made: a finite range's WAD (cached), else
        the first level (once per process and parameters)."""
        if 0 < self.num_levels <= MAX_WAD_LEVELS:
            self.level_wad(self.start_level, self.num_levels)
            return
        key = (type(self), self.params, self.start_level)
        if key not in _CHECKED:
            self.build_level(self.start_level).map_data()
            _CHECKED.add(key)

    # -- configuration -------------------------------------------------------------------------

    def _configure(self, *, frame_skip, resolution, render_resolution, downsample, color, game_variables,
                   buffers, action_set, render_mode):
        """Check the engine-facing arguments and build the spaces; ValueError naming the bad one."""
        if downsample not in DOWNSAMPLERS:
            raise ValueError(f"downsample={downsample!r} is not valid; "
                             f"choose one of {', '.join(map(repr, DOWNSAMPLERS))}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} is not valid; choose None, 'rgb_array' or 'human'")
        self.frame_skip = check_number("frame_skip", frame_skip, 1, MAX_FRAME_SKIP, whole=True)
        if color not in (True, False):
            raise ValueError(f"color={color!r} is not valid; choose True (RGB) or False (gray)")
        action_sets = {**ACTION_SETS, **type(self).action_sets}
        if not isinstance(action_set, str) or action_set not in action_sets:
            raise ValueError(f"action_set={action_set!r} is not valid; choose one of {', '.join(action_sets)}")
        game_variables = check_names("game_variables", game_variables, GAME_VARIABLES, "GameVariable names")
        self.buffers = check_names("buffers", buffers, BUFFERS, "buffers")
        automap_of(self.buffers)  # at most one of them
        engine_width, engine_height, self._engine_resolution = parse_engine_resolution(render_resolution)
        height, width = parse_observation_size(resolution, render_resolution, engine_width, engine_height)
        if render_mode == "human" and not has_display():
            # Headless (CI, gymnasium's check_env): run without the window rather than fail the engine.
            gym.logger.warn("render_mode='human' needs a display (DISPLAY and WAYLAND_DISPLAY are unset): "
                            "running without a window; use render_mode='rgb_array' to get frames")

        self.render_mode = render_mode
        self.metadata = {**self.metadata, "render_fps": vzd.DEFAULT_TICRATE / self.frame_skip}
        factor = engine_height // height
        frame_shape = (engine_height, engine_width) + ((3,) if color else ())
        self._downsample = DOWNSAMPLERS[downsample](frame_shape, factor)
        self._downsample_plane = DOWNSAMPLERS[downsample]((engine_height, engine_width), factor)
        self._color = color
        # Gray observations come from the engine's GRAY8 unless full-size RGB frames are needed for rendering.
        self._engine_rgb = color or render_mode == "rgb_array"
        self._window = render_mode == "human" and has_display()
        self._tracked = [getattr(vzd.GameVariable, v) for v in self._variable_names]
        self._observed = [getattr(vzd.GameVariable, v) for v in game_variables]
        # The engine lists each variable once: an observed one the family also tracks is read from there.
        self._engine_variables = list(dict.fromkeys(self._tracked + self._observed))
        self._observed_index = np.array([self._engine_variables.index(v) for v in self._observed], np.intp)
        self._action_set = action_set  # its name (a family's scripted reference may need a given set)
        buttons, self._actions = button_vectors(action_set, action_sets[action_set])
        self._buttons = [getattr(vzd.Button, b) for b in buttons]
        self._buttons_of = dict(enumerate(self._actions))
        self.action_space = gym.spaces.Discrete(len(self._actions))
        screen = gym.spaces.Box(0, 255, (height, width, 3 if color else 1), np.uint8)
        spaces: dict[str, gym.spaces.Space] = {"screen": screen}
        for name in self.buffers:
            channels = 3 if name in AUTOMAPS and color else 1
            spaces[name] = gym.spaces.Box(0, 255, (height, width, channels), np.uint8)
        if game_variables:
            spaces["gamevariables"] = gym.spaces.Box(-np.inf, np.inf, (len(game_variables),), np.float32)
        self._dict_observation = len(spaces) > 1
        self.observation_space = gym.spaces.Dict(spaces) if self._dict_observation else screen
        self._frame = np.zeros((engine_height, engine_width, 3), np.uint8)
        self._last_observation = None
        self._observation_out = None
        self._next_frame_time = 0.0

    def _configure_spectator(self, spectator) -> None:
        """`spectator=True`: a person plays (see step); the engine's window needs a display, checked here."""
        if spectator not in (True, False):
            raise ValueError(f"spectator={spectator!r} is not valid; choose True (a person plays) or False")
        self.spectator = bool(spectator)
        if self.spectator:
            problem = display_problem()
            if problem:
                raise ValueError(f"spectator=True opens the game's window for a person to play, and needs a "
                                 f"display: {problem}. Headless, run it under a virtual X server (Xvfb: "
                                 f"`apt-get install xvfb`, then `xvfb-run -a COMMAND`)")
        # For each tuple of pressed buttons (in self._buttons' order): the action they map to.
        self._human_actions: dict[tuple[bool, ...], int] = {}
        self._human_action = self._human_matched = 0
        self._human_idle = False

    def action_buttons(self) -> list[tuple[str, ...]]:
        """The buttons (names) each action of the action space holds down."""
        names = [b.name for b in self._buttons]
        return [tuple(n for n, v in zip(names, action) if v) for action in self._actions]

    def human_action(self, pressed) -> int:
        """The index of the action whose buttons are `pressed` (a truth value per button of the action
        set, in the engine's order); else the nearest: fewest buttons different, the first such action on a
        tie. No button pressed is the set's empty action where it has one (e.g. "extended"), else the first
        action (e.g. "basic": MOVE_FORWARD), which only stands in for a pause: see human_idle."""
        key = tuple(bool(p) for p in pressed)
        index = self._human_actions.get(key)
        if index is None:
            distances = [sum(k != bool(b) for k, b in zip(key, action)) for action in self._actions]
            index = self._human_actions[key] = distances.index(min(distances))
        return index

    def human_idle(self, pressed) -> bool:
        """Whether `pressed` (as for human_action) is a pause no action of the set records: no button held,
        and the set has no action without buttons (e.g. "basic"), so that human_action's answer is a stand-in
        (the first action), not what the person did. A step of such tics has info["human_idle"] True, and
        behaviour cloning (wadgym.agents.datasets.pretrain) leaves it out."""
        return not any(bool(p) for p in pressed) and not any(not any(action) for action in self._actions)

    # -- levels and the engine -----------------------------------------------------------------

    def _draw_level(self, options: dict[str, Any] | None) -> int | None:
        """The level seed of this episode: `options["level_seed"]`, else one drawn from np_random (None on a
        hand-made map)."""
        if self.hand_made is not None:
            if options and "level_seed" in options:
                raise ValueError(f"options['level_seed'] chooses a generated level; this env plays "
                                 f"{self.hand_made.where}")
            return None
        if options and "level_seed" in options:
            return check_number("level_seed", options["level_seed"], 0, MAX_LEVEL_SEED, whole=True)
        if self.num_levels == 1:
            return self.start_level
        if self.num_levels:
            return self.start_level + int(self.np_random.integers(self.num_levels))
        return int(self.np_random.integers(self.start_level, MAX_LEVEL_SEED + 1))

    def _chosen_engine_seed(self, options: dict[str, Any] | None) -> int | None:
        """`options["engine_seed"]`: the engine's seed for this episode instead of one drawn from np_random, so
        that an episode is replayed from its level seed and engine seed (both recorded: info["level_seed"],
        `engine_seed`); None without it."""
        if not options or "engine_seed" not in options:
            return None
        return check_number("engine_seed", options["engine_seed"], 0, 2**31 - 2, whole=True)

    def _level_range(self, level_seed: int) -> tuple[int, int]:
        """(first seed, count) of the levels built into the WAD that holds `level_seed`."""
        if self._in_cached_range(level_seed):
            return self.start_level, self.num_levels
        return level_seed, 1

    def _in_cached_range(self, level_seed: int) -> bool:
        first = self.start_level
        return 0 < self.num_levels <= MAX_WAD_LEVELS and first <= level_seed < first + self.num_levels

    def _wad_of(self, first: int, count: int) -> Path:
        """The WAD of a level range: the cached one of the env's own range; else a scratch file of this
        env (levels drawn from an unlimited range are rarely met twice: they are not kept)."""
        if self._in_cached_range(first):
            return self.level_wad(first, count)
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="wadgym-levels-")
        from wadgym.wads import write_wad

        for old in Path(self._scratch.name).glob("*.wad"):  # the engine that read it is stopped
            old.unlink()
        path = Path(self._scratch.name) / f"{map_name(first)}.wad"
        write_wad(path, self.build_levels_wad(first, count))
        return path

    def level_wad(self, first: int, count: int) -> Path:
        """The cached WAD holding levels first .. first + count - 1 (built on first use)."""
        from .runtime.cache import cached_wad

        cls = type(self)
        description = {"family": f"{cls.__module__}.{cls.__qualname__}", "source": source_digest(cls),
                       "params": dataclasses.asdict(self.params), "levels": [first, count]}
        stem = cls.__name__.lower().removesuffix("env") or "levels"
        return cached_wad(stem, description, lambda: self.build_levels_wad(first, count), self.cache_dir)

    def build_levels_wad(self, first: int, count: int) -> bytes:
        from wadgym.envs.scenarios import compile_acs
        from wadgym.wads import build_wad

        return build_wad([self.build_level(seed) for seed in range(first, first + count)], compiler=compile_acs)

    def build_level(self, level_seed: int):
        """Level `level_seed`: the family's build with np.random.default_rng(level_rng_seed(seed)), named
        map_name(seed)."""
        level = type(self).build(np.random.default_rng(self.level_rng_seed(level_seed)), self.params)
        if isinstance(level, (list, tuple)):
            raise TypeError(f"{type(self).__name__}.build must return one Level per level seed, "
                            f"not {type(level).__name__}")
        return dataclasses.replace(level, name=map_name(level_seed), title=f"{level.title or 'wadgym'} #{level_seed}")

    def level_rng_seed(self, level_seed: int) -> int:
        """The seed of the generator `build` gets for a level (the level seed; a family may map it)."""
        return level_seed

    def _load_level(self, level_seed: int | None) -> None:
        """Make the engine play `level_seed`'s map: a map switch when its WAD is loaded, else (re)start; the
        hand-made map when there is one (level seed None)."""
        if self.hand_made is not None:
            if self.game is None:
                self._start_engine(self.hand_made.path, self.hand_made.map)
                self.wad_path, self.map = self.hand_made.path, self.hand_made.map
            return
        levels = self._level_range(level_seed)
        name = map_name(level_seed)
        if self.game is None or levels != self._levels:
            self._stop_engine()
            wad = self._wad_of(*levels)
            self._start_engine(wad, name)
            self.wad_path, self._levels = wad, levels
        elif name != self.map:
            self.game.set_doom_map(name)
        self.level_seed, self.map = level_seed, name

    def _stop_engine(self) -> None:
        if self.game is not None:
            self.game.close()
            self.game = None
            self._levels = None

    def _start_engine(self, wad: Path, map_name: str) -> None:
        # No engine timeout (make_game's default): truncation is TimeLimit's job.
        game = make_game(wad, map_name, resolution=self._engine_resolution,
                         screen_format=vzd.ScreenFormat.RGB24 if self._engine_rgb else vzd.ScreenFormat.GRAY8,
                         buttons=self._buttons, variables=self._engine_variables, window=self._window,
                         spectator=self.spectator)
        enable_buffers(game, self.buffers)
        self.configure_game(game)
        if self.hand_made is not None:
            self.hand_made.configure(game)
        game.init()
        self.game = game

    # -- Gymnasium API ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._load_level(self._draw_level(options))
        chosen = self._chosen_engine_seed(options)
        for _ in range(1 if chosen is not None else RESET_ATTEMPTS):
            self.engine_seed = int(self.np_random.integers(0, 2**31 - 1)) if chosen is None else chosen
            self.game.set_seed(self.engine_seed)
            self.game.new_episode()
            state = self.last_state = self.game.get_state()
            v = self._tracked_values(state)
            problem = None if self.hand_made else self.level_problem(v)
            if problem is None:
                break
        else:
            if chosen is not None:
                raise RuntimeError(f"{problem} with options['engine_seed']={chosen}; that engine seed cannot start "
                                   f"an episode of {self.map}")
            raise RuntimeError(f"{problem} in each of {RESET_ATTEMPTS} episodes started with fresh engine seeds; "
                               f"the scenario's parameters leave too little room (see the env's Arguments)")
        self._return = self._scenario_return = 0.0
        self._human_action = self._human_matched = 0
        self._human_idle = False
        self.on_reset(v)
        if self.visit_reward:
            self._cells = {self._player_cell()}
        observation = self._observe(state)
        if self.render_mode == "human" or self.spectator:
            self._next_frame_time = time.perf_counter()
        if self.render_mode == "human":
            self.render()
        return observation, self._info()

    def step(self, action):
        game = self.game
        if game is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.spectator:
            self._advance_human()
        else:
            try:
                buttons = self._buttons_of[action]  # ints, numpy ints and whole floats hash alike
            except (KeyError, TypeError):
                buttons = self._checked_buttons(action)
            if action is True or action is False:
                buttons = self._checked_buttons(action)
            self._scenario_return += game.make_action(buttons, self.frame_skip)
        state = self.last_state = game.get_state()
        reward, terminated = self.on_step(self._tracked_values(state))
        if self.visit_reward:
            reward += self._visit_bonus()
        self._return += reward
        observation = self._observe(state)
        if self._window and not self.spectator:
            self.render()
        # The engine ends an episode when the player dies or the map ends: that ends the task too. Its timeout
        # is off, but on a hand-made map with an `episode_timeout`, where its end is a truncation.
        timed_out = state is None and self.timed_out()
        return observation, reward, (terminated or state is None) and not timed_out, timed_out, self._info()

    def _advance_human(self) -> None:
        """A person's step (spectator=True; step's `action` is ignored): `frame_skip` tics of the keys they
        hold, at game speed (35 tics a second); the rest of step() is as in any step. info["human_action"]
        is then the action of the set their keys map to (human_action per tic; the most frequent over the
        step's tics, the latest of equals), info["human_matched"] the number of the step's tics whose keys
        were exactly that action's buttons (frame_skip: the step is exactly what that action does), and
        info["human_idle"] whether the step was a pause the set has no action for (human_idle: its idle tics
        are counted apart from the tics of the action standing in for them)."""
        game, tics, exact = self.game, [], []
        for _ in range(self.frame_skip):
            if game.is_episode_finished():
                break
            game.advance_action(1)
            self._scenario_return += game.get_last_reward()
            pressed = game.get_last_action()
            tics.append((self.human_action(pressed), self.human_idle(pressed)))
            exact.append([float(bool(p)) for p in pressed] == self._actions[tics[-1][0]])
            self._next_frame_time += 1.0 / vzd.DEFAULT_TICRATE
            time.sleep(max(0.0, self._next_frame_time - time.perf_counter()))
        if tics:  # max keeps the first of equals: the latest
            self._human_action, self._human_idle = max(reversed(tics), key=tics.count)
        self._human_matched = sum(e and t == (self._human_action, self._human_idle) for e, t in zip(exact, tics))

    def timed_out(self) -> bool:
        """Whether the engine ended the episode at a hand-made map's `episode_timeout`."""
        return bool(self.hand_made and self.hand_made.episode_timeout and self.game.is_episode_timeout_reached())

    def map_exited(self) -> bool:
        """Whether the engine ended the episode because the map ended (an exit), not by death or timeout."""
        game = self.game
        return game.is_episode_finished() and not game.is_player_dead() and not self.timed_out()

    def _checked_buttons(self, action) -> list[float]:
        """The buttons of an action the lookup did not find (e.g. a 0-d array), or a ValueError."""
        try:
            index = None if isinstance(action, (bool, np.bool_)) else int(action)
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
        self._stop_engine()
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    # -- observations and info ---------------------------------------------------------------------

    def _tracked_values(self, state) -> dict[str, float]:
        """{name: value} of the tracked variables: from the state, or from the game when the engine
        ended the episode (state None)."""
        if state is None:
            return {name: self.game.get_game_variable(var) for name, var in zip(self._variable_names, self._tracked)}
        return dict(zip(self._variable_names, state.game_variables.tolist()))  # one conversion per step

    def write_observations_to(self, out) -> None:
        """From now on write each observation into `out` and return `out` itself: arrays shaped as
        observation_space (a dict of them for a Dict space), e.g. this env's slot of a vector env's
        batch (wadgym.envs.vector), so that no observation is copied twice. None: a new array per
        observation again (the default)."""
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
        if not self._dict_observation:
            observation = self._downsample(frame, out)
        else:
            slots = out or {}
            observation = {"screen": self._downsample(frame, slots.get("screen"))}
            for name in self.buffers:
                observation[name] = self._buffer(state, name, slots.get(name))
            if self._observed:
                variables = state.game_variables[self._observed_index]
                observation["gamevariables"] = (variables.astype(np.float32) if out is None
                                                else copied(variables, out["gamevariables"]))
            observation = observation if out is None else out  # holds the very arrays just written
        self._last_observation = observation
        return observation

    def _buffer(self, state, name: str, out: np.ndarray | None = None) -> np.ndarray:
        plane = getattr(state, buffer_field(name))
        if name in AUTOMAPS:
            if self._color:
                return self._downsample(plane, out)
            if self._engine_rgb:
                plane = engine_gray(plane)
        return self._downsample_plane(plane, out)

    def _info(self) -> dict[str, Any]:
        info = {"score": self.score, "level_seed": self.level_seed, "map": self.map, **self.task_info()}
        info["position"] = self.player_position()
        if self.hand_made is not None and self.hand_made.scenario:
            info["scenario_return"] = self._scenario_return
        if self.visit_reward:
            info["cells_visited"] = len(self._cells)
        if self.spectator:
            info["human_action"], info["human_matched"] = self._human_action, self._human_matched
            info["human_idle"] = self._human_idle
        return info

    # -- the exploration bonus (visit_reward) ------------------------------------------------------

    def _player_cell(self) -> tuple[int, int]:
        x, y, _ = self.player_pose()
        return int(x // self.visit_cell), int(y // self.visit_cell)

    def _visit_bonus(self) -> float:
        """`visit_reward` when the player stands in a square of the map it has not visited this episode."""
        cell = self._player_cell()
        if cell in self._cells:
            return 0.0
        self._cells.add(cell)
        return self.visit_reward

    @property
    def score(self) -> float:
        """The episode's task score so far (named by `score_name`); by default the return."""
        return self._return

    # -- hooks for families ------------------------------------------------------------------------

    def configure_game(self, game: vzd.DoomGame) -> None:
        """Hook: change the DoomGame's settings before `init` (e.g. `set_objects_info_enabled`)."""

    def hand_made_problem(self, hand_made) -> str | None:
        """Hook: why this family cannot score the hand-made map `hand_made` (a HandMadeMap of
        wadgym.envs.runtime.handmade), or None."""
        return None

    def level_problem(self, v: dict[str, float]) -> str | None:
        """Why the episode that just started is unusable (reset then starts another), or None."""
        return None

    def on_reset(self, v: dict[str, float]) -> None:
        """Hook: a new episode started; `v` holds the tracked variables."""

    def on_step(self, v: dict[str, float]) -> tuple[float, bool]:
        """Hook: (reward, terminated) of the step that led to the tracked variables `v`."""
        raise NotImplementedError

    def task_info(self) -> dict[str, Any]:
        """Hook: the family's own info keys (copies of arrays: callers may keep or change them). One key has a
        meaning outside the family: `opponent_scores`, the scores this episode of opponents that are not agents
        (e.g. the engine's bots), in the unit of `score`; the evaluation reports their median."""
        return {}

    def reference_action(self) -> int:
        """Hook: the action of a scripted policy that uses privileged information (positions from the
        engine, the level's plan): the reference the learning benchmark compares trained agents with."""
        raise NotImplementedError(f"{type(self).__name__} has no scripted reference policy")

    def player_position(self) -> tuple[float, float]:
        """The player's x, y (map units) from the engine: info["position"] (exploration bonuses read it)."""
        g = self.game
        return (g.get_game_variable(vzd.GameVariable.POSITION_X), g.get_game_variable(vzd.GameVariable.POSITION_Y))

    def player_pose(self) -> tuple[float, float, float]:
        """The player's x, y (map units) and facing (degrees), read from the engine."""
        g = self.game
        return (g.get_game_variable(vzd.GameVariable.POSITION_X), g.get_game_variable(vzd.GameVariable.POSITION_Y),
                g.get_game_variable(vzd.GameVariable.ANGLE))

    def object_positions(self, classes) -> np.ndarray:
        """x, y (map units, float64 (N, 2)) of the things of `classes` (actor class names, in any case: the engine
        spells some differently, "Zombieman") in the engine's object list now (objects info enabled); none
        before a game runs."""
        state = self.game.get_state() if self.game is not None else None
        if state is None:
            return np.zeros((0, 2))
        kinds = {c.lower() for c in classes}
        return np.array([(o.position_x, o.position_y) for o in state.objects if o.name.lower() in kinds],
                        dtype=float).reshape(-1, 2)


def user_variable(n: int) -> str:
    """The name of GameVariable.USERn: ACS `global int n` read by the engine."""
    return f"USER{n}"


def map_name(level_seed: int) -> str:
    """The map lump of a level: "L" and the seed in base 36 (7 digits cover every 31-bit seed)."""
    digits, n = "", int(level_seed)
    while True:
        n, r = divmod(n, 36)
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[r] + digits
        if n == 0:
            return "L" + digits.rjust(7, "0")


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def check_names(name: str, value, valid: tuple[str, ...], what: str) -> tuple[str, ...]:
    """`value` as a tuple of names, each one of `valid`; else a ValueError naming `name`."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{name}={value!r} must be a sequence of {what}, e.g. {valid[:2]}; valid: {', '.join(valid)}")
    unknown = [v for v in value if v not in valid]
    if unknown:
        raise ValueError(f"{name}: unknown {what} {unknown!r}; valid: {', '.join(valid)}")
    return tuple(value)


def _rebuild(cls: type, args: tuple, kwargs: dict) -> DoomEnv:
    return cls(*args, **kwargs)


@functools.cache
def source_digest(cls: type) -> str:
    """Hash of the file defining `cls`: a family's maps depend on its module's code."""
    try:
        return hashlib.sha256(Path(inspect.getsourcefile(cls)).read_bytes()).hexdigest()[:16]
    except (TypeError, OSError):
        return "unknown"


def env_arguments(cls: type) -> list[str]:
    """The keyword arguments `cls` and its bases accept by name (not the scenario parameters)."""
    names: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is gym.Env or klass is object:
            continue
        for name, parameter in inspect.signature(init).parameters.items():
            if name != "self" and parameter.kind not in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL) \
                    and name not in names:
                names.append(name)
    return names


def _check_cache_dir(cache_dir) -> Path | None:
    if cache_dir is None:
        return None
    if not isinstance(cache_dir, (str, os.PathLike)) or not os.fspath(cache_dir):
        raise ValueError(f"cache_dir={cache_dir!r} must be a folder path (or None for the default cache)")
    path = Path(cache_dir).expanduser()
    if path.exists() and not path.is_dir():
        raise ValueError(f"cache_dir={os.fspath(cache_dir)!r} is a file, not a folder")
    return path
