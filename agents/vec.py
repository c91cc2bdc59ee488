"""Build the environments training and evaluation use: gym.make, vectorised, frame-stacked, channel-first.

A terminal's Ctrl-C, `docker stop`, Kubernetes and SLURM signal every process of the group (SIGINT or
SIGTERM). Only the trainer acts on them (stop after the step, save a checkpoint, close the envs): the
SubprocVecEnv workers ignore both, and wadgym.envs.runtime.engine starts every ViZDoom engine with both
blocked and bound to the process that started it, so a worker that dies, however, takes its engine
along and never leaves the trainer waiting on its pipe.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import time
import traceback
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np


class ScreenAndBuffers(gym.ObservationWrapper):
    """A Dict observation as one image: the "screen" entry, then each image buffer of the screen's height and
    width asked for (depth, labels, an automap) as more channels, in the order of the Dict space's keys
    (Gymnasium sorts them by name: "automap_seen" before "depth"); entries that are not such images (game
    variables) are left out. With only a screen it is that screen (ViZDoom's own Gymnasium envs)."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        spaces = env.observation_space.spaces
        screen = spaces["screen"]
        self.keys = input_keys(key for key, space in spaces.items() if key != "screen" and _stackable(space, screen))
        channels = sum(spaces[key].shape[2] for key in self.keys)
        self.observation_space = gym.spaces.Box(0, 255, (*screen.shape[:2], channels), np.uint8)

    def observation(self, observation):
        if len(self.keys) == 1:
            return observation["screen"]
        return np.concatenate([observation[key] for key in self.keys], axis=2)


def input_keys(buffers) -> list[str]:
    """The order of a policy's input channels: the screen, then its image buffers by name (as Gymnasium sorts a
    Dict space's keys). One rule for training (ScreenAndBuffers) and for whatever plays a run from raw
    observations (the world-model recorder, whose engines may render buffers the run did not train on)."""
    return ["screen", *sorted(buffers)]


def _stackable(space: gym.spaces.Space, screen: gym.spaces.Box) -> bool:
    """An image buffer that can stand beside the screen as more channels: uint8 (H, W, C) at its size."""
    return (isinstance(space, gym.spaces.Box) and space.dtype == np.uint8 and len(space.shape) == 3
            and space.shape[:2] == screen.shape[:2])


def register_envs(env_id: str) -> None:
    """Import what registers `env_id`: wadgym always, vizdoom's wrapper for its Vizdoom* ids."""
    importlib.import_module("wadgym.envs.registration")
    if env_id.split(":")[-1].startswith("Vizdoom"):
        importlib.import_module("vizdoom.gymnasium_wrapper")


def gym_make(env_id: str, env_kwargs: dict[str, Any] | None = None, render_mode: str | None = None) -> gym.Env:
    """gym.make with wadgym's registrations loaded (a task family's .py file registered too); an unknown
    id is a ValueError naming the Doom envs."""
    from wadgym.envs.registration import env_id_for

    register_envs(env_id)
    env_id = env_id_for(env_id)
    if env_id not in gym.registry and ":" not in env_id:
        known = sorted(k for k in gym.registry if k.startswith(("Doom", "Vizdoom")))
        raise ValueError(f"unknown env {env_id!r}; registered Doom envs: {', '.join(known)}")
    kwargs = dict(env_kwargs or {})
    if render_mode is not None:
        kwargs["render_mode"] = render_mode
    return gym.make(env_id, **kwargs)


def make_env(env_id: str, env_kwargs: dict[str, Any] | None = None, render_mode: str | None = None) -> gym.Env:
    """The env as a policy sees it: gym_make, then of a Dict observation the screen with the image buffers
    asked for (`buffers=("automap_seen",)`: a map of the ground seen so far) as more channels
    (ScreenAndBuffers); an image (H, W, C) uint8 Box observation or a ValueError."""
    env = gym_make(env_id, env_kwargs, render_mode)
    if isinstance(env.observation_space, gym.spaces.Dict) and "screen" in env.observation_space.spaces:
        env = ScreenAndBuffers(env)
    space = env.observation_space
    if not (isinstance(space, gym.spaces.Box) and space.dtype == np.uint8 and len(space.shape) == 3):
        env.close()
        raise ValueError(f"{env_id}: training needs a uint8 (H, W, C) image observation, got {space}")
    return env


class ReportFailure(gym.Wrapper):
    """In a SubprocVecEnv worker: when reset or step raises, write the traceback to `folder` (the trainer
    only sees the worker's pipe close) and close the env, so that its engine stops now rather than when
    the worker's engine watchdog sees the worker gone (multiprocessing ends a failed worker with
    os._exit, which runs no cleanup)."""

    def __init__(self, env: gym.Env, folder: str):
        super().__init__(env)
        self.folder = folder

    def reset(self, **kwargs):
        try:
            return self.env.reset(**kwargs)
        except Exception:
            self._report()
            raise

    def step(self, action):
        try:
            return self.env.step(action)
        except Exception:
            self._report()
            raise

    def _report(self) -> None:
        from wadgym.agents.runfolder import write_text_atomic

        with contextlib.suppress(OSError):
            write_text_atomic(Path(self.folder) / f"worker-{os.getpid()}.txt", traceback.format_exc())
        with contextlib.suppress(Exception):
            self.env.close()


def worker_failures(folder: str | Path | None) -> list[str]:
    """The tracebacks ReportFailure wrote to `folder`, oldest first."""
    if folder is None:
        return []
    reports = sorted(Path(folder).glob("worker-*.txt"), key=lambda path: path.stat().st_mtime)
    return [path.read_text() for path in reports]


class EnvFactory:
    """Picklable `() -> env` for SubprocVecEnv workers; the worker ignores SIGINT and SIGTERM (the trainer
    handles them and closes the workers) and reports an env's failure to `failure_dir`. With `restart`,
    an env whose engine dies is made again (agents.restart.EngineRestart), in the worker itself."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], in_worker: bool, failure_dir: str | None = None,
                 render_mode: str | None = None, restart: bool = False):
        self.env_id, self.env_kwargs, self.in_worker, self.failure_dir = env_id, env_kwargs, in_worker, failure_dir
        self.render_mode, self.restart = render_mode, restart

    def __call__(self) -> gym.Env:
        if self.in_worker:
            for signum in GROUP_SIGNALS:
                signal.signal(signum, signal.SIG_IGN)
        if self.restart:
            from wadgym.agents.restart import EngineRestart

            env = EngineRestart(self.make)
        else:
            env = self.make()
        if self.render_mode is not None:
            env = RecordFrames(env)
        return ReportFailure(env, self.failure_dir) if self.in_worker and self.failure_dir else env

    def make(self) -> gym.Env:
        return make_env(self.env_id, self.env_kwargs, self.render_mode)


class RecordFrames(gym.Wrapper):
    """Appends env.render() after each reset and step to `frames` while it is a list (set it through the
    VecEnv: venv.set_attr("frames", [...])); stops at an episode's end, before a VecEnv's automatic reset."""

    frames: list | None = None

    def reset(self, **kwargs):
        result = self.env.reset(**kwargs)
        if self.frames is not None:
            self.frames.append(self.env.render())
        return result

    def step(self, action):
        result = self.env.step(action)
        if self.frames is not None:
            self.frames.append(self.env.render())
            if result[2] or result[3]:
                self.frames = None
        return result


GROUP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
MONITOR_KEYWORDS = ("score",)  # the info entries each episode's record keeps beside return, length and time


@contextlib.contextmanager
def group_signals_shielded():
    """While the envs start: SIGINT ignored and SIGTERM blocked here, and so in the processes started
    inside (multiprocessing's fork server and the workers it forks inherit both, across exec too).
    Afterwards the previous handler and mask are back; a SIGTERM that came meanwhile then ends this
    process as it would have (the trainer's handler is installed when training starts)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)


# --vec-env: how `wadgym train` steps its envs.
VEC_ENVS = {
    "thread": "wadgym's vector env: every env stepped at once by threads of this process (default)",
    "subproc": "SB3 SubprocVecEnv: a worker process per env (DummyVecEnv for one env)",
    "dummy": "SB3 DummyVecEnv: the envs stepped one after another in this process",
}


def make_vec_env(*args: Any, **kwargs: Any):
    """build_vec_env with the same arguments (training: seed given), then reset once with seeds seed,
    seed+1, ...: returns (vec env, first observations)."""
    with group_signals_shielded():
        venv = build_vec_env(*args, **kwargs)
        try:
            observations = venv.reset()  # engines that start on the first reset start here, shielded from Ctrl-C
        except BaseException:
            close_vec_env(venv)
            raise
    return venv, observations


def build_vec_env(
    env_id: str,
    env_kwargs: dict[str, Any],
    n_envs: int,
    seed: int | None,
    frame_stack: int = 0,
    normalize: dict[str, Any] | None = None,
    normalize_stats: Path | None = None,
    failure_dir: str | None = None,
    vec_env: str = "thread",
    monitor: Path | None = None,
    training: bool = True,
    render_mode: str | None = None,
    restart: bool = False,
):
    """n_envs envs stepped as `vec_env` says (see VEC_ENVS), seeded seed, seed+1, ... at their next reset,
    under a VecMonitor (writing every episode's return, length, time and score to the file `monitor` when
    given), observed as training observes them (see observe). What training steps, and, with one env and
    training=False, what a saved policy plays (agents.policies.policy.SavedPolicy.make_vec_env). With `restart`,
    each env's engine is restarted when it dies (agents.restart) and the Monitor file has a column
    engine_restart (the cause, for an episode a restart ended)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env={vec_env!r} is not valid; choose one of {', '.join(VEC_ENVS)}")
    if vec_env == "thread":
        from wadgym.envs.vector.sb3 import ThreadVecEnv

        venv = ThreadVecEnv([EnvFactory(env_id, env_kwargs, False, None, render_mode, restart)
                             for _ in range(n_envs)])
    elif vec_env == "dummy" or n_envs == 1:
        venv = DummyVecEnv([EnvFactory(env_id, env_kwargs, False, None, render_mode, restart) for _ in range(n_envs)])
    else:
        venv = SubprocVecEnv([EnvFactory(env_id, env_kwargs, True, failure_dir, render_mode, restart)
                              for _ in range(n_envs)])
    try:
        if seed is not None:
            venv.seed(seed)
        if restart:
            from wadgym.agents.restart import INFO_KEY
        keywords = (*MONITOR_KEYWORDS, INFO_KEY) if restart else MONITOR_KEYWORDS
        return observe(monitored(venv, monitor, keywords), frame_stack, normalize, normalize_stats, training=training)
    except BaseException:
        close_vec_env(venv)
        raise


def monitored(venv, monitor: Path | None = None, keywords: tuple[str, ...] = MONITOR_KEYWORDS):
    """`venv` under SB3's VecMonitor: info["episode"] (r, l, t and `keywords`) at each episode's end, and a
    row of the Monitor file `monitor` when given. A row that cannot be written (a full disk) raises an
    OSError naming the file."""
    from stable_baselines3.common.vec_env import VecMonitor

    wrapper = VecMonitor(venv, str(monitor) if monitor else None, info_keywords=keywords)
    if wrapper.results_writer is not None:
        wrapper.results_writer.write_row = _naming_the_file(wrapper.results_writer.write_row, monitor)
    return wrapper


def _naming_the_file(write_row, path: Path):
    """ResultsWriter.write_row, its OSError (which names no file) raised again with `path` in it."""
    def write(*args, **kwargs):
        try:
            return write_row(*args, **kwargs)
        except OSError as error:
            if error.filename is not None:
                raise
            raise OSError(error.errno, error.strerror or str(error), str(path)) from error

    return write


def observe(venv, frame_stack: int, normalize: dict[str, Any] | None = None, normalize_stats: Path | None = None,
            training: bool = True):
    """The observation pipeline of training, evaluation, rollout and export: VecFrameStack, VecTransposeImage
    (channel-first), then VecNormalize when `normalize` is given, its statistics loaded from `normalize_stats`
    when that file exists. `training=False` (playing a saved policy) freezes the statistics and leaves
    rewards as they are."""
    from stable_baselines3.common.vec_env import VecFrameStack, VecNormalize, VecTransposeImage

    if frame_stack and frame_stack > 1:
        venv = VecFrameStack(venv, n_stack=frame_stack)
    venv = VecTransposeImage(venv)
    if normalize is not None and normalize_stats is not None and Path(normalize_stats).is_file():
        venv = VecNormalize.load(str(normalize_stats), venv)
    elif normalize is not None:
        venv = VecNormalize(venv, **normalize)
    else:
        return venv
    venv.training = training
    if not training:
        venv.norm_reward = False
    return venv


def close_vec_env(venv, timeout: float = 10.0) -> None:
    """Close `venv` without ever waiting on a dead worker: after a failed step SB3's close() waits for
    replies that never come. Workers get "close" (a healthy one closes its env and exits); any still
    alive after `timeout` seconds is killed, and its engine with it. A ThreadVecEnv closes its envs on
    their threads, after any step still running."""
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecMonitor

    from wadgym.envs.vector.sb3 import ThreadVecEnv

    wrapper = venv
    while hasattr(wrapper, "venv"):  # a VecMonitor's file: closed here, as the wrappers' close() is not called
        if isinstance(wrapper, VecMonitor) and wrapper.results_writer is not None:
            wrapper.results_writer.close()
        wrapper = wrapper.venv
    base = venv.unwrapped
    if isinstance(base, ThreadVecEnv):
        base.threads.close(timeout)
        return
    if not isinstance(base, SubprocVecEnv):
        if not hasattr(base, "envs"):  # a VecEnv of its own kind (backends.slots.AgentSlots): its close() ends it
            with contextlib.suppress(Exception):
                base.close()
        for env in getattr(base, "envs", ()):
            with contextlib.suppress(Exception):
                env.close()
        return
    if base.closed:
        return
    base.waiting = False  # replies a failed step left unread go with the pipes
    for remote in base.remotes:
        with contextlib.suppress(OSError):
            remote.send(("close", None))
    deadline = time.monotonic() + timeout
    for process in base.processes:
        process.join(max(deadline - time.monotonic(), 0))
    for process in base.processes:
        if process.is_alive():
            process.kill()  # its engine watchdog (wadgym.envs.runtime.engine) then kills the engine
            process.join(timeout)
    for remote in base.remotes:
        remote.close()
    base.closed = True


def worker_deaths(venv, timeout: float = 2.0) -> list[str]:
    """How each SubprocVecEnv worker that is gone ended, e.g. "env worker 2 of 8 (pid 4242) was killed
    by SIGKILL ...": after a worker's pipe closed, up to `timeout` seconds for its exit status."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    base = venv.unwrapped
    if not isinstance(base, SubprocVecEnv):
        return []
    deadline = time.monotonic() + timeout
    while all(p.is_alive() for p in base.processes) and time.monotonic() < deadline:
        time.sleep(0.02)
    deaths = []
    for index, process in enumerate(base.processes, 1):
        if process.is_alive() or process.exitcode is None:
            continue
        name = f"env worker {index} of {len(base.processes)} (pid {process.pid})"
        if process.exitcode < 0:
            signum = -process.exitcode
            with contextlib.suppress(ValueError):
                signum = signal.Signals(signum)
            deaths.append(f"{name} was killed by {getattr(signum, 'name', f'signal {signum}')}"
                          + (" (the kernel's out-of-memory killer sends it when memory runs out)"
                             if signum == signal.SIGKILL else ""))
        else:
            deaths.append(f"{name} exited with status {process.exitcode}")
    return deaths
