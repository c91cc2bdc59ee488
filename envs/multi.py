"""Multi-agent wadgym: several players in one generated map, as a PettingZoo parallel env.

    from wadgym.envs.multi import make
    env = make("DoomItemsDuel-v0")                   # or make("DoomItemsDuel-v0", n_players=4)
    observations, infos = env.reset(seed=0)         # {"player_0": frame, "player_1": frame}
    observations, rewards, terminations, truncations, infos = env.step(
        {agent: env.action_space(agent).sample() for agent in env.agents})

`MultiplayerEnv` plays any wadgym family that declares multiplayer support (a DoomEnv subclass with
`max_players`, an `n_players` scenario parameter, the hooks `episode_command`/`episode_ready` and,
optionally, `netgame_args`: engine arguments of its netgame such as "-deathmatch", or a method
`netgame_arguments()` giving them per env (the deathmatch's bots file), and `host_commands()`: console
commands the host runs at each new episode before the seeded start (the deathmatch's `addbot`s)):
one task object of the family per player keeps that player's reward, score and info, and a
wadgym.envs.runtime.netgame.NetGame runs the players' engines in lockstep on 127.0.0.1 (in a network namespace
of the game's own that holds only loopback, where the system allows it; WADGYM_NETNS=0 turns that off:
docs/multi-agent.md, Network).
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding

from wadgym.envs.doom_env import RESET_ATTEMPTS, map_name
from wadgym.envs.registration import MULTI_ENVS, RACE
from wadgym.envs.runtime.netgame import (
    DEFAULT_JOIN_TIMEOUT,
    DEFAULT_STEP_TIMEOUT,
    NetGame,
    NetGameError,
    PlayerSettings,
    step_games,
)

try:
    from pettingzoo import ParallelEnv
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError(f"wadgym.envs.multi needs PettingZoo ({error}): pip install 'wadgym[multi]'") from error

__all__ = ["MULTI_ENVS", "MultiplayerEnv", "make", "step_envs"]
SETTLE_TICS = 250  # tics a new episode may take before every game shows what the seed placed (a respawn: ~120)


def make(env_id: str, **kwargs: Any) -> MultiplayerEnv:
    """The multi-agent env registered as `env_id`, with `kwargs` over its registered ones."""
    if env_id not in MULTI_ENVS:
        raise ValueError(f"unknown multi-agent env {env_id!r}; registered: {', '.join(MULTI_ENVS)}")
    family, defaults, max_steps = MULTI_ENVS[env_id]
    return MultiplayerEnv(family, **{"max_steps": max_steps, **defaults, **kwargs}, env_id=env_id)


def family_class(family) -> type:
    if isinstance(family, str):
        module, _, name = family.partition(":")
        family = getattr(importlib.import_module(module), name)
    if not getattr(family, "max_players", 0):
        raise ValueError(f"{getattr(family, '__name__', family)!r} does not declare multiplayer support (max_players)")
    return family


def step_envs(envs: list[MultiplayerEnv], actions: list[dict[str, Any]]) -> list[tuple]:
    """`env.step(a)` for each env and its actions, the games stepping side by side from this one thread
    (wadgym.envs.runtime.netgame.step_games); each env's (observations, rewards, terminations, truncations, infos).
    A game that fails is closed (its NetGameError raised); so are the others, whose step was cut short."""
    buttons = [env._buttons(a) for env, a in zip(envs, actions)]
    frame_skips = {env.frame_skip for env in envs}
    if len(frame_skips) != 1:
        raise ValueError(f"envs with different frame_skip ({sorted(frame_skips)}) cannot step together")
    try:
        states = step_games([env.game for env in envs], buttons, frame_skips.pop())
    except NetGameError:
        for env in envs:
            env._close_game()
        raise
    return [env._finish_step(s) for env, s in zip(envs, states)]


def netgame_arguments(task) -> str:
    """The engine arguments of `task`'s netgame: its `netgame_arguments()` where it has one, else the family's
    `netgame_args`."""
    method = getattr(task, "netgame_arguments", None)
    return method() if method else getattr(type(task), "netgame_args", "")


class PlayerGame:
    """What a family's hooks see as `self.game` for one player: game variables read from that player's engine."""

    def __init__(self, game: NetGame, player: int):
        self._game, self._player = game, player

    def get_game_variable(self, variable) -> float:
        return self._game.variable(self._player, variable.name)


class MultiplayerEnv(ParallelEnv):
    """Several players of one wadgym family in one map: a PettingZoo ParallelEnv.

    Agents are "player_0" .. "player_{n-1}" (player numbers: player_0 is the host). Each agent's
    observation and action spaces, rewards, score and info are those of the family's single-player task
    for that player (for the item race: the screen, Discrete(5), its own items): `info[agent]["score"]`
    counts what `score_name` names ("items", "frags"). Every agent terminates
    together when the family's task ends (the race: every item taken) and is truncated at `max_steps`.

    Arguments: `n_players` (1 to the family's max_players), `max_steps`, `join_timeout` and `step_timeout`
    (seconds; a player that does not join or answer in time raises NetGameError, with every engine
    ended), `render_mode` (None or "rgb_array": render() gives the players' views side by side), and
    every argument of the family (levels, frames, its scenario parameters).

    Seeding as in the single-agent envs: `reset(seed=s)` seeds np_random, which draws the level seed
    (`num_levels`, `start_level`, or `options={"level_seed": s}`) and the episode's item seed, and
    starts a new game whose engines are seeded from `s` and the level: the same seed gives the same level,
    starts and items, and the same actions then play the same game, the engine's bots included, whatever
    the env played before (PettingZoo's parallel_seed_test). `reset()` without a seed goes on in the same
    game with the host's map change, which does not reseed the engines (docs/multi-agent.md, Seeding).
    """

    metadata = {"name": "wadgym_multiplayer", "render_modes": ["rgb_array"], "is_parallelizable": True}

    def __init__(self, family=RACE, n_players: int = 2, max_steps: int = 300, *,
                 join_timeout: float = DEFAULT_JOIN_TIMEOUT, step_timeout: float = DEFAULT_STEP_TIMEOUT,
                 render_mode: str | None = None, env_id: str | None = None, **kwargs: Any):
        cls = family_class(family)
        if isinstance(n_players, bool) or not isinstance(n_players, (int, np.integer)) \
                or not 1 <= n_players <= cls.max_players:
            raise ValueError(f"n_players={n_players!r} is out of range; valid: 1 to {cls.max_players}")
        if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
            raise ValueError(f"max_steps={max_steps!r} must be a whole number of at least 1")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode={render_mode!r} is not valid; choose None or 'rgb_array'")
        for name, value in (("join_timeout", join_timeout), ("step_timeout", step_timeout)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"{name}={value!r} must be a positive number of seconds")
        self.env_id = env_id
        self.score_name = cls.score_name  # what info[agent]["score"] counts ("items", "frags", ...)
        self.n_players, self.max_steps = int(n_players), int(max_steps)
        self.join_timeout, self.step_timeout = float(join_timeout), float(step_timeout)
        self.render_mode = render_mode
        self.tasks = [cls(player=p, n_players=self.n_players, render_mode=render_mode, **kwargs)
                      for p in range(self.n_players)]
        first = self.tasks[0]
        if first.visit_reward:
            raise ValueError(f"visit_reward={first.visit_reward!r}: the exploration bonus is for the single-agent "
                             "envs; a multi-agent env takes none (valid: 0.0, the default)")
        self.frame_skip = first.frame_skip
        self.metadata = {**self.metadata, "render_fps": first.metadata["render_fps"]}
        self.possible_agents = [f"player_{p}" for p in range(self.n_players)]
        self.agents: list[str] = []
        self.observation_spaces = {a: t.observation_space for a, t in zip(self.possible_agents, self.tasks)}
        self.action_spaces = {a: t.action_space for a, t in zip(self.possible_agents, self.tasks)}
        self.game: NetGame | None = None
        self._levels: tuple[int, int] | None = None
        self._nonce = 0
        self._steps = 0
        self._np_random, self._np_random_seed = seeding.np_random(None)

    def observation_space(self, agent: str) -> gym.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.Space:
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        return self._np_random

    # -- the game ------------------------------------------------------------------------------------

    def _engine_seed(self, level_seed: int) -> int:
        """The random seed of a new game's engines: drawn from the env's seed and the game's first level,
        without touching np_random (whose draws place levels and items), so two envs reset with the same
        seed play the same damage, spread and respawns."""
        entropy = [int(self._np_random_seed or 0) % 2**63, int(level_seed)]
        return int(np.random.SeedSequence(entropy).generate_state(1)[0] % (2**31 - 1))

    def _settings(self, wad, map_name: str, seed: int) -> PlayerSettings:
        t = self.tasks[0]
        return PlayerSettings(wad=str(wad), map=map_name, resolution=t._engine_resolution.name,
                              screen_format="RGB24" if t._engine_rgb else "GRAY8",
                              buttons=tuple(b.name for b in t._buttons),
                              variables=tuple(v.name for v in t._tracked + t._observed), buffers=t.buffers,
                              # packet server for two (the host orders every tic: steadier; with three or
                              # more players the joiners never finish the handshake in vizdoom 1.3.2); the
                              # engines' wait for each other's tics must outlast a busy machine (default
                              # 1 s), ours ends it
                              game_args=f"{'-netmode 1 ' if self.n_players == 2 else ''}"
                                        f"+viz_sync_timeout {int(self.step_timeout * 1000)} "
                                        f"{netgame_arguments(t)}".strip(), seed=seed)

    def _load_level(self, level_seed: int) -> bool:
        """Make the game play `level_seed`: a map change within the WAD when it holds the level, else a new game
        (started on the level's map). Whether it started a new game."""
        first = self.tasks[0]
        levels = first._level_range(level_seed)
        start = self.game is None or levels != self._levels
        if start:
            self._close_game()
            wad = first._wad_of(*levels)
            name = map_name(level_seed)
            settings = self._settings(wad, name, self._engine_seed(level_seed))
            self.game = NetGame(settings, self.n_players, join_timeout=self.join_timeout,
                                step_timeout=self.step_timeout)
            self._levels = levels
            for p, task in enumerate(self.tasks):
                task.wad_path = wad
                task.game = PlayerGame(self.game, p)
        for task in self.tasks:
            task.level_seed, task.map = level_seed, map_name(level_seed)
        return start

    def _start_episode(self, seed: int, map_change: bool) -> list:
        """A new episode on the loaded level, its items seeded with `seed`, after the host's map change when
        `map_change` (a new game's first episode plays the map it started on); the players' states once every
        game shows them (the family's episode_ready)."""
        game, first = self.game, self.tasks[0]
        idle = [[0.0] * len(first._buttons)] * self.n_players
        if map_change:
            game.step(idle, 1)  # let go of the last step's buttons: they would act during the map change
            game.new_episode(first.map)
        for command in getattr(first, "host_commands", list)():
            game.console(0, command)
        self._nonce = self._nonce % (2**30) + 1
        game.console(0, first.episode_command(seed, self._nonce))
        for _ in range(SETTLE_TICS):
            states = game.step(idle, 1)
            values = [self._values(t, s) for t, s in zip(self.tasks, states)]
            if all(t.episode_ready(v, self._nonce) for t, v in zip(self.tasks, values)):
                return states
        raise NetGameError(f"the episode's seeded start did not show within {SETTLE_TICS} tics of "
                           f"`{first.episode_command(seed, self._nonce)}`")

    @staticmethod
    def _values(task, state) -> dict[str, float]:
        return dict(zip(type(task).variables, state.game_variables.tolist()))

    # -- PettingZoo API ------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
            # A netgame's engines seed their generators once, at launch (a new episode is the host's map change,
            # which keeps them running): a seeded reset starts a new game, so what follows depends on the seed
            # alone, not on the episodes played before (docs/multi-agent.md, Seeding)
            self._close_game()
        first = self.tasks[0]
        first._np_random = self._np_random  # the level is drawn as the single-agent envs draw it
        try:
            new_game = self._load_level(first._draw_level(options))
            for attempt in range(RESET_ATTEMPTS):
                # A new game's first episode needs no map change, and must not take one: ViZDoom's new episode
                # (the host's map change) runs each engine's own loop of tics until it sees the new map; after
                # it, with bots in the game, two games seeded alike and given the same actions played apart from
                # the first step in about a third of runs (the joiner's own moves a tic apart); without it,
                # alike every time (docs/multi-agent.md, Seeding)
                states = self._start_episode(int(self._np_random.integers(0, 2**31 - 1)),
                                             map_change=not (new_game and attempt == 0))
                values = [self._values(t, s) for t, s in zip(self.tasks, states)]
                problem = first.level_problem(values[0])
                if problem is None:
                    break
            else:
                raise RuntimeError(f"{problem} in each of {RESET_ATTEMPTS} episodes started with fresh seeds")
            for task, v in zip(self.tasks, values):
                task._return = 0.0
                task.on_reset(v)
        except NetGameError:
            self._close_game()
            raise
        self.agents = list(self.possible_agents)
        self._steps = 0
        observations = {a: t._observe(s) for a, t, s in zip(self.agents, self.tasks, states)}
        return observations, {a: t._info() for a, t in zip(self.agents, self.tasks)}

    def step(self, actions: dict[str, Any]):
        return step_envs([self], [actions])[0]

    def _buttons(self, actions: dict[str, Any]) -> list[list[float]]:
        if not self.agents:
            raise gym.error.ResetNeeded("the episode is over (or never began): call reset() before step()")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"actions lack agent(s) {', '.join(missing)}; give one action per agent in env.agents")
        buttons = [task._buttons_of.get(actions[a]) if not isinstance(actions[a], (bool, np.bool_)) else None
                   for a, task in zip(self.agents, self.tasks)]
        return [b if b is not None else t._checked_buttons(actions[a])
                for a, t, b in zip(self.agents, self.tasks, buttons)]

    def _finish_step(self, states: list):
        self._steps += 1
        observations, rewards, ended = {}, {}, False
        for agent, task, state in zip(self.agents, self.tasks, states):
            reward, terminated = task.on_step(self._values(task, state))
            task._return += reward
            rewards[agent] = float(reward)
            ended |= terminated or state.screen_buffer is None
            observations[agent] = task._observe(state if state.screen_buffer is not None else None)
        truncated = not ended and self._steps >= self.max_steps
        infos = {a: t._info() for a, t in zip(self.agents, self.tasks)}
        terminations = dict.fromkeys(self.agents, ended)
        truncations = dict.fromkeys(self.agents, truncated)
        if ended or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self):
        """The players' full RGB views side by side (render_mode "rgb_array"), player_0 on the left."""
        if self.render_mode != "rgb_array":
            gym.logger.warn("render() needs render_mode='rgb_array'")
            return None
        frames = [t._frame for t in self.tasks]
        gap = np.zeros((frames[0].shape[0], 8, 3), np.uint8)  # 8: video codecs want widths in blocks of 8
        return np.concatenate([part for f in frames for part in (f, gap)][:-1], axis=1)

    def close(self):
        self._close_game()
        for task in self.tasks:
            task.close()

    def _close_game(self) -> None:
        if self.game is not None:
            self.game.close()
        self.game, self._levels = None, None
        for task in self.tasks:
            task.game = None

    def state(self):
        raise NotImplementedError("no global state: each agent sees its own screen")
