"""Engine restarts: an env whose ViZDoom engine dies is rebuilt, and training goes on.

ViZDoom engines die now and then (a crash on an odd map, the out-of-memory killer's choice). The engine
is a process of its own, so its death reaches the env as one of ViZDoom's exceptions from make_action,
new_episode or init (ENGINE_ERRORS; "Unexpected ViZDoom instance crash" when it was killed). Any other
exception is the env's own failure and still stops the run.

`EngineRestart` wraps each env `wadgym train` makes (agents.vec.EnvFactory), so it works the same under
every vector env (threads, SubprocVecEnv workers, DummyVecEnv). When its engine dies in a step, it
closes the env, makes a new one with the same arguments (a new engine) and ends the episode it was in as
truncated: the last good observation, reward 0, terminated False, truncated True (never a made-up reward
or a terminal state, so PPO bootstraps from the value of that observation as at a time limit). The next
reset seeds the new env with a fresh seed from the env's own seed sequence (its first reset's seed), so
a run stays reproducible from its seed. The restart is reported in that step's info as
info["engine_restart"] (the cause); every other episode end carries "" there, so a VecMonitor can keep it
as a column. The trainer side (agents.backends.callbacks.RunCallback, through `RestartLog`) records each restart
with the env's index and the step in <run>/engine_restarts.json (meta.json and TensorBoard too) and stops
the run once there are more restarts than `RestartPolicy` allows within its window.
"""

from __future__ import annotations

import collections
import contextlib
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import vizdoom as vzd

from wadgym.agents.config import RestartPolicy
from wadgym.agents.config import restart_settings as restart_settings  # `wadgym train`'s options -> config.yml

INFO_KEY = "engine_restart"  # the info entry (and Monitor column) that reports a restart
RECORD_FILE = "engine_restarts.json"  # in the run folder: every restart of every session
SCALAR = "engine/restarts"  # TensorBoard's and MLflow's count of a session's restarts (SB3's and RLlib's trainer)

# How an engine's death reaches its DoomGame: vizdoom raises these when the engine process is gone or
# stops answering (ViZDoomErrorException: "Unexpected ViZDoom instance crash" after a SIGKILL).
ENGINE_ERRORS: tuple[type[BaseException], ...] = (
    vzd.ViZDoomErrorException, vzd.ViZDoomUnexpectedExitException, vzd.ViZDoomIsNotRunningException,
    vzd.MessageQueueException, vzd.SharedMemoryException)


def engine_died(error: BaseException) -> bool:
    """Whether `error` is how ViZDoom reports an engine that died (see ENGINE_ERRORS), also as the cause
    of every env that failed in a vector env's call (wadgym.envs.vector.VectorEnvError)."""
    failed = getattr(error, "failed", None)
    if isinstance(failed, dict) and failed:
        return all(engine_died(cause) for cause in failed.values())
    return isinstance(error, ENGINE_ERRORS)


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


class RestartSeeds:
    """The seeds of one env's engines across restarts: a seeded reset starts the sequence SeedSequence(seed),
    each restart draws its next child for the new engine's first reset (as restart_seed computes it)."""

    def __init__(self):
        self._sequence: np.random.SeedSequence | None = None  # from the first seeded reset
        self._next: int | None = None  # the new engine's first reset

    def for_reset(self, seed: int | None) -> int | None:
        """The seed to reset with: `seed` when given (a new sequence), else a restart's drawn seed (once)."""
        if seed is not None:
            self._sequence, self._next = np.random.SeedSequence(seed), None
            return seed
        seed, self._next = self._next, None
        return seed

    def draw(self) -> None:
        """A restart: the next child of the sequence seeds the new engine's first reset."""
        if self._sequence is None:
            self._sequence = np.random.SeedSequence()
        self._next = int(self._sequence.spawn(1)[0].generate_state(1)[0])


def remake(old, make: Callable[[], Any], seeds: RestartSeeds):
    """Close `old`, whose engine died (its game may refuse to close cleanly), free the dead engines'
    segments, draw the new engine's seed and return `make()`."""
    with contextlib.suppress(Exception):
        old.close()
    remove_dead_segments()
    new = make()
    seeds.draw()
    return new


class EngineRestart(gym.Wrapper):
    """The env `make()` returns, made again (same arguments, a new engine) whenever its engine dies; see
    the module's docstring for what the step of a restart returns. A second death while the new env
    starts, or an error from `make()`, is raised. `restarts` counts the restarts."""

    def __init__(self, make: Callable[[], gym.Env]):
        super().__init__(make())
        self._make = make
        self.restarts = 0
        self._seeds = RestartSeeds()
        self._pending: str | None = None  # a restart in reset, reported by the next step
        self._last: tuple[Any, dict[str, Any]] | None = None  # the last good observation and info
        self._noted = False  # whether its engine's instance id was noted (see note_engines)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        try:
            observation, info = self.env.reset(seed=self._seeds.for_reset(seed), options=options)
        except ENGINE_ERRORS as error:
            self._pending = self._rebuild(error)
            observation, info = self.env.reset(seed=self._seeds.for_reset(None), options=options)
        self._last = (observation, info)
        if not self._noted:
            self._noted = note_engines()
        return observation, info

    def step(self, action):
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
        except ENGINE_ERRORS as error:
            cause = self._rebuild(error)
            if self._last is None:  # never reset: there is no episode to end
                raise
            observation, info = self._last
            self._last = None
            return observation, 0.0, False, True, {**info, INFO_KEY: cause}
        if self._pending is not None or terminated or truncated:
            info = {**info, INFO_KEY: self._pending or ""}
            self._pending = None
        self._last = (observation, info)
        return observation, reward, terminated, truncated, info

    def _rebuild(self, error: BaseException) -> str:
        """Close the env whose engine died, make a new one and draw its first seed; returns the cause."""
        self.env, self._noted = remake(self.env, self._make, self._seeds), False
        self.restarts += 1
        return describe(error)


def restart_seed(seed: int, restart: int) -> int:
    """The seed of an env's `restart`-th new engine (1, 2, ...) when its first reset had `seed`: the
    restart-th child of the env's seed sequence, SeedSequence(seed)."""
    return int(np.random.SeedSequence(seed).spawn(restart)[-1].generate_state(1)[0])


# The engines this process started, noted while they ran ({instance id: pid}): a killed engine leaves its
# shared-memory segments (about 10 MB each) under /dev/shm, and its owner's watchdog only frees those of
# the engines still running when the owner ends.
_seen: dict[str, int] = {}
_seen_lock = threading.Lock()


def note_engines() -> bool:
    """Note the instance ids and pids of the running engines this process started, itself or through its
    own child processes (a network game's players); True once it could."""
    import psutil

    from wadgym.envs.runtime.watchdog import instance_id

    try:
        children = psutil.Process().children(recursive=True)
    except Exception:  # noqa: BLE001  (psutil may not see its children on an odd platform: no cleanup then)
        return False
    with _seen_lock:
        for child in children:
            with contextlib.suppress(Exception):
                instance = instance_id(child.cmdline())
                if instance is not None and child.status() != psutil.STATUS_ZOMBIE:
                    _seen[instance] = child.pid
    return True


def remove_dead_segments() -> list[str]:
    """Remove the /dev/shm segments of the noted engines whose process has ended (a dead engine's, or
    one closed, whose own close removed them already); returns their instance ids."""
    from wadgym.envs.runtime.watchdog import alive, remove_segments

    with _seen_lock:
        dead = sorted(instance for instance, pid in _seen.items() if not alive(pid))
        for instance in dead:
            remove_segments(instance)
            del _seen[instance]
    return dead


class GameRestart:
    """A multi-agent game (a PettingZoo parallel env of wadgym.envs.multi: one engine per player, joined
    in a network game) made again, every engine of it, when one dies; the self-play counterpart of
    EngineRestart, for agents.backends.slots.AgentSlots. A network game reports a dead engine (or a player that
    stopped answering) as wadgym.envs.runtime.netgame.NetGameError, after ending all of the game's engines. The
    step of a restart returns each player's last good observation, reward 0, terminated False,
    truncated True and info["engine_restart"]; the next reset seeds the new game from the game's seed
    sequence. Everything else is the game's own (possible_agents, observation_space(agent), ...)."""

    def __init__(self, make: Callable[[], Any]):
        self._make = make
        self.game = make()
        self.restarts = 0
        self._seeds = RestartSeeds()
        self._last: tuple[dict, dict] | None = None
        self._noted = False

    def __getattr__(self, name: str):
        if name == "game":  # not set yet: no recursion through __getattr__
            raise AttributeError(name)
        return getattr(self.game, name)

    def reset(self, seed: int | None = None, options: dict | None = None):
        try:
            observations, infos = self.game.reset(seed=self._seeds.for_reset(seed), options=options)
        except game_errors():
            self._rebuild()
            observations, infos = self.game.reset(seed=self._seeds.for_reset(None), options=options)
        self._last = (observations, infos)
        if not self._noted:
            self._noted = note_engines()
        return observations, infos

    def step(self, actions):
        try:
            result = self.game.step(actions)
        except game_errors() as error:
            self._rebuild()
            if self._last is None:
                raise
            observations, infos = self._last
            self._last = None
            cause = describe(error)
            return (observations, {a: 0.0 for a in observations}, {a: False for a in observations},
                    {a: True for a in observations}, {a: {**infos.get(a, {}), INFO_KEY: cause} for a in observations})
        self._last = (result[0], result[4])
        return result

    def close(self) -> None:
        self.game.close()

    def _rebuild(self) -> None:
        self.game, self._noted = remake(self.game, self._make, self._seeds), False
        self.restarts += 1


def game_errors() -> tuple[type[BaseException], ...]:
    """How a multi-agent game reports that its engines died: ENGINE_ERRORS and, for a network game,
    NetGameError (raised once all of its engines are ended)."""
    from wadgym.envs.runtime.netgame import NetGameError

    return (*ENGINE_ERRORS, NetGameError)


class RestartLimitReached(RuntimeError):
    """More engine restarts within the window than the run's RestartPolicy allows."""


class RestartLog:
    """The trainer's record of engine restarts: each is printed, appended to <run>/engine_restarts.json
    ({env, cause, step, time}) and counted; `record` raises RestartLimitReached once more than
    `policy.limit` came within `policy.window_s` seconds."""

    def __init__(self, run: Path | None, policy: RestartPolicy):
        self.run, self.policy = (Path(run) if run is not None else None), policy
        self.times: collections.deque[float] = collections.deque()
        self.count = 0  # this session's

    def record(self, env: int | None, cause: str, step: int, who: str | None = None) -> None:
        """One restart: of env `env`'s engine, or of what `who` names (e.g. "RLlib env runner 2")."""
        who = who or f"env {env}"
        now = time.monotonic()
        self.times.append(now)
        while self.times and now - self.times[0] > self.policy.window_s:
            self.times.popleft()
        self.count += 1
        entry = {"env": env, "cause": cause, "step": int(step), "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
                 **({"what": who} if env is None else {})}
        if self.run is not None:
            from wadgym.agents.runfolder import write_json

            write_json(self.run / RECORD_FILE, [*read_restarts(self.run), entry])
        if len(self.times) > self.policy.limit:
            raise RestartLimitReached(
                f"{who} failed at step {step} ({cause}): {len(self.times)} restarts within "
                f"{self.policy.window_s:g} s, more than the restart limit ({self.policy.describe()}; "
                f"--restart-limit N/SECONDS sets it)")
        what = "its engine died" if env is not None else "failed"
        print(f"{who}: {what} at step {step} ({cause}); restarted "
              f"(restart {len(self.times)} of at most {self.policy.describe()})", file=sys.stderr, flush=True)


def read_restarts(run: Path) -> list[dict[str, Any]]:
    """Every engine restart recorded in `run` (engine_restarts.json), oldest first; [] when none."""
    from wadgym.agents.runfolder import read_json

    path = Path(run) / RECORD_FILE
    if not path.is_file():
        return []
    value = read_json(path)
    return value if isinstance(value, list) else []


# -- RLlib ----------------------------------------------------------------------------------------------
# `wadgym train --backend rllib` leaves restarts to RLlib's own fault tolerance (new API stack): an env
# runner whose env fails recreates its envs (restart_failed_sub_environments), and an env runner process
# that dies (SIGKILL, a lost node) is replaced by a new one (restart_failed_env_runners). The env's own
# errors still stop the run: agents.backends.rllib.envs.RunnerEnv reports every failure but an engine's death,
# and the trainer stops when there is a report. The trainer records what RLlib restarted (RLlibRestarts).
RLLIB_RESTART_DELAY_S = 1.0  # RLlib's default waits a minute before it starts a lost env runner again


def rllib_fault_tolerance(policy: RestartPolicy) -> dict[str, Any]:
    """AlgorithmConfig.fault_tolerance(...)'s arguments for `policy`."""
    if not policy.enabled:
        return {"restart_failed_env_runners": False, "restart_failed_sub_environments": False}
    return {"restart_failed_env_runners": True, "restart_failed_sub_environments": True,
            "delay_between_env_runner_restarts_s": RLLIB_RESTART_DELAY_S}


class RLlibRestarts:
    """What RLlib restarted, from the counts an iteration reports ({"env runners": restarts so far,
    "envs": env steps that failed so far}): each new one recorded in a RestartLog (which raises
    RestartLimitReached past the policy's limit)."""

    CAUSES = {"env runners": ("RLlib env runner", "the env runner's process was lost; RLlib starts a new one"),
              "envs": ("RLlib env runner's envs", "an env failed in a step; RLlib made the runner's envs again")}

    def __init__(self, run: Path | None, policy: RestartPolicy):
        self.log = RestartLog(run, policy)
        self.counts: dict[str, int] = {}

    def update(self, counts: dict[str, int], step: int) -> None:
        for key, count in counts.items():
            before = self.counts.get(key, 0)
            self.counts[key] = max(before, int(count))
            for _ in range(before, int(count)):
                who, cause = self.CAUSES.get(key, (key, "restarted by RLlib"))
                self.log.record(None, cause, step, who=who)
