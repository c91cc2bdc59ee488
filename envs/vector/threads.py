"""Vector envs that step N wadgym games at once from one process, by threads.

Each ViZDoom game runs its engine in a process of its own, and the binding releases the GIL while
`make_action`, `new_episode` and `init` wait for the engine (`get_state`, `set_doom_map` and `close`
keep it). So threads stepping the envs keep the engines busy at once (one thread per CPU, each stepping
its share of the envs, when there are enough envs to cover the CPUs; see EnvThreads) without a worker
process per env or an observation pickled through a pipe: each env writes its observation straight into
its slot of one preallocated batch array (DoomEnv.write_observations_to).

`EnvThreads` is the one implementation; each ecosystem gets a thin adapter over it:
- `ThreadVectorEnv`, a Gymnasium 1.x VectorEnv and the `vector_entry_point` of wadgym's ids, so that
  `gym.make_vec("DoomItems-v0", num_envs=8)` returns it;
- `wadgym.envs.vector.sb3.ThreadVecEnv`, a Stable-Baselines3 VecEnv (the default of `wadgym train`).

Each adapter keeps the contract of the sequential vector env of its ecosystem (SyncVectorEnv,
DummyVecEnv): the same outputs for the same envs, seeds and actions, and the same exception types
(tests/envs/vector/test_vector_contract.py, tests/envs/vector/test_vector_sb3_contract.py compare them side by side).
Observation spaces of plain arrays (Box, Discrete, MultiDiscrete, MultiBinary, and Tuple/Dict of them)
are batched into preallocated arrays on the envs' threads; any other space Gymnasium supports (Text,
Graph, Sequence, OneOf, custom spaces) is batched by Gymnasium's own `concatenate`, as SyncVectorEnv
batches it. See docs/vector-env.md.
"""

from __future__ import annotations

import functools
import itertools
import os
import queue
import threading
import weakref
from collections.abc import Callable, Sequence
from copy import deepcopy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple
from gymnasium.spaces.utils import is_space_dtype_shape_equiv
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_differing_spaces, batch_space, concatenate, create_empty_array, iterate
from gymnasium.wrappers import PassiveEnvChecker

# Seconds close() waits for the envs to finish what they are doing and shut their engines down.
CLOSE_TIMEOUT = 30.0
# How many calls that run envs on several threads at once watch numpy's global random generator (see EnvThreads).
GLOBAL_RNG_CHECKS = 16


class VectorEnvError(RuntimeError):
    """An env of a vector env raised (its engine died, or its own code failed): which env, in what, why.

    `index` is the env's index, `cause` the exception (also chained as __cause__), `failed` every
    failing index of the call with its exception. The error raised is also an instance of the cause's
    type (a subclass of both, made once per type, also named VectorEnvError): `except ValueError`
    catches an env's ValueError here as it does from SyncVectorEnv or DummyVecEnv, which raise the
    env's own exception."""

    def __new__(cls, num_envs: int, during: str, failed: dict[int, BaseException]):
        if cls is VectorEnvError:
            cls = error_class(type(failed[min(failed)]))
        base = cls.__bases__[-1]  # the cause's type, whose __new__ makes its kind of object (OSError's own)
        return (RuntimeError if issubclass(base, VectorEnvError) else base).__new__(cls)

    def __init__(self, num_envs: int, during: str, failed: dict[int, BaseException]):
        self.num_envs, self.during = num_envs, during
        self.failed = dict(sorted(failed.items()))
        self.index, self.cause = next(iter(self.failed.items()))
        others = "".join(f"; env {i} too: {describe(e)}" for i, e in list(self.failed.items())[1:])
        self.message = f"env {self.index} of {num_envs} failed in {during}: {describe(self.cause)}{others}"
        RuntimeError.__init__(self, self.message)

    def __str__(self) -> str:  # not the cause type's own __str__ (KeyError's quotes, OSError's errno)
        return self.message

    def __reduce__(self):
        return VectorEnvError, (self.num_envs, self.during, self.failed)


@functools.cache
def error_class(cause: type[BaseException]) -> type[VectorEnvError]:
    """VectorEnvError and `cause` in one type (VectorEnvError itself where it already is a `cause`, or
    where Python cannot combine the two)."""
    if issubclass(VectorEnvError, cause):
        return VectorEnvError
    try:
        return type("VectorEnvError", (VectorEnvError, cause),
                    {"__module__": __name__, "__qualname__": "VectorEnvError", "__doc__": VectorEnvError.__doc__})
    except TypeError:  # e.g. a type that may not be subclassed
        return VectorEnvError


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


class EnvThreads:
    """N envs stepped at once by worker threads, each stepping its group of envs one after another.

    `run(during, job, args, indices)` runs `job(i, *args[k])` for each env i = indices[k] at once and
    waits; an env that raises makes it raise VectorEnvError once every other env has finished its part.
    `start` and `wait` split it for SB3's step_async/step_wait. The adapters' jobs hand each observation
    to `write(i, observation)`: with a `batch` (a preallocated batch array, or a dict or tuple of them,
    shaped as the single observation `space`), it is copied into row i on env i's thread (unsafe casting
    as numpy's item assignment casts, or `strict`: Gymnasium's `concatenate` rules, same shape and
    same-kind casting); `latest[i]` keeps the env's own observation object either way, for the caller to
    batch where there is no `batch` (spaces that Gymnasium batches as tuples of objects).

    The Gymnasium jobs are here (`reset_job`, `step_job`): after each step or reset `rewards`,
    `terminations`, `truncations` (arrays) and `infos` (a list of dicts) hold each env's result and
    `finals[i]` is (final observation, final info) of the episode env i ended in a same-step reset.
    Auto-reset follows `autoreset_mode` (Gymnasium's AutoresetMode): NEXT_STEP resets a finished env
    on its next step (reward 0, not done); SAME_STEP resets it in the step that ended it; DISABLED
    leaves it to the caller.

    `pin`: one worker per CPU this process may use (at most N), worker k on the k-th CPU, stepping envs
    k, k + C, k + 2C, ... (C workers) with their engines on its CPU (an engine inherits the affinity of
    the thread that starts it); the calling thread only hands the work out and waits. An env and its
    engine hand each tic to one another, which on one CPU is far cheaper than across two; and one
    Python thread per CPU keeps the GIL from bouncing between threads (several threads per CPU, each
    waking for its own env's tics, spend more CPU on switching than on the envs). Not pinned: a thread
    per env, env 0 stepped by the calling thread itself (one hand-over fewer; none with one env). None
    (default): pin when there are at least as many envs as CPUs, so that the pinned envs cover every
    CPU evenly (several processes with fewer envs than CPUs would otherwise all crowd the first CPUs).

    numpy's global random generator (np.random.rand, ...) is one for all threads: envs that draw from it
    on several threads at once draw in an order that changes from run to run. The first calls that run
    envs on several threads watch it and warn once if it moved.

    Threads and engines end with close(), when the object is garbage collected, or at interpreter exit.
    """

    def __init__(self, envs: list[gym.Env], batch=None, space: Space | None = None, *, strict: bool = False,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, pin: bool | None = None):
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.envs = envs
        self.num_envs = n = len(envs)
        self.observations = batch
        self.strict = strict
        self.latest: list[Any] = [None] * n
        self._slots = [slot(batch, i) for i in range(n)] if batch is not None else [None] * n
        self._hook_pending = [batch is not None and offers_the_hook(env, space) for env in envs]
        self.rewards = np.zeros(n, np.float64)
        self.terminations = np.zeros(n, np.bool_)
        self.truncations = np.zeros(n, np.bool_)
        self.infos: list[dict[str, Any]] = [{} for _ in range(n)]
        self.finals: list[tuple[Any, dict[str, Any]] | None] = [None] * n
        self.needs_reset = np.zeros(n, np.bool_)  # the env's episode ended in the previous step (not SAME_STEP)
        self._rng_checks = GLOBAL_RNG_CHECKS
        self._rng_state = None

        # Group k's envs are stepped one after another by worker k (see `pin`); the group whose inbox is
        # None by the calling thread.
        cpus = pinned_cpus(n, pin)
        workers = min(n, len(cpus)) if cpus else n
        self._groups = [list(range(k, n, workers)) for k in range(workers)]
        self._group_of = [i % workers for i in range(n)]
        self._inboxes: list[queue.SimpleQueue | None] = [
            None if k == 0 and not cpus else queue.SimpleQueue() for k in range(workers)]
        self._threads = [threading.Thread(target=serve, args=(inbox, cpus and cpus[k]), daemon=True,
                                          name=f"wadgym-envs-{k}")
                         for k, inbox in enumerate(self._inboxes) if inbox is not None]
        for thread in self._threads:
            thread.start()
        self._call: Call | None = None
        self._inline: tuple | None = None  # the calling thread's part of the current call
        self.closed = False
        # Shuts threads and engines down when this object is collected or the interpreter exits, whichever
        # comes first; holds no reference to self.
        self._finalizer = weakref.finalize(self, shut_down, self.envs, self._groups, self._inboxes, self._threads,
                                           CLOSE_TIMEOUT)

    # -- running jobs on the threads ------------------------------------------------------------

    def run(self, during: str, job: Callable, args: Sequence[tuple] | None = None,
            indices: Sequence[int] | None = None) -> dict[int, Any]:
        self.start(during, job, args, indices)
        return self.wait()

    def start(self, during: str, job: Callable, args: Sequence[tuple] | None = None,
              indices: Sequence[int] | None = None) -> None:
        """Hand `job(i, *args[k])` for env i = indices[k] (all envs when None) to the thread of its group;
        the calling thread's part runs in wait(). Each thread runs its jobs in order, so a call that was
        interrupted (Ctrl-C in wait) finishes before the next."""
        if self.closed:
            raise RuntimeError("the vector env is closed")
        indices = range(self.num_envs) if indices is None else indices
        parts: dict[int, list] = {}
        group_of = self._group_of
        for k, i in enumerate(indices):
            parts.setdefault(group_of[i], []).append((i, args[k] if args is not None else ()))
        self._rng_state = global_rng_state() if self._rng_checks and len(parts) > 1 else None
        self._call = call = Call(during, len(parts))
        self._inline = None
        for group, part in parts.items():
            inbox = self._inboxes[group]
            if inbox is None:
                self._inline = (call, part, job)
            else:
                inbox.put((call, part, job))

    def wait(self) -> dict[int, Any]:
        """Run the calling thread's part of the latest start() here, wait for the others; raise
        VectorEnvError if any raised. Returns {index: value returned}."""
        call, inline = self._call, self._inline
        if inline is not None:
            self._inline = None
            run_jobs(*inline, catch=Exception)  # a KeyboardInterrupt here is the caller's
        call.done.acquire()
        if self._rng_state is not None:
            self._watch_global_rng()
        if call.errors:
            raise VectorEnvError(self.num_envs, call.during, call.errors) from call.errors[min(call.errors)]
        return call.values

    def _watch_global_rng(self) -> None:
        before, self._rng_state = self._rng_state, None
        self._rng_checks -= 1
        if not same_rng_state(before, global_rng_state()):
            self._rng_checks = 0
            gym.logger.warn(
                "vector env: numpy's global random generator (np.random.rand, np.random.seed, ...) was used while "
                "envs ran on several threads at once: threads share it, so the envs' draws interleave in an order "
                "that changes from run to run, and seeds no longer make runs repeatable. Give each env a generator "
                "of its own (self.np_random), or step such envs one after another (SyncVectorEnv, DummyVecEnv: "
                "`wadgym train --vec-env dummy`) or in processes (`--vec-env subproc`).")

    # -- what every job hands its observation to ------------------------------------------------

    def write(self, i: int, observation) -> None:
        """Env i's observation: kept in `latest[i]` and, with a batch, copied into row i (on env i's thread)."""
        self.latest[i] = observation
        out = self._slots[i]
        if out is None or observation is out:  # no batch, or the env wrote it there itself
            return
        copy_into(out, observation, self.strict)
        # Gymnasium's env checker warns when an env's first observations share an object, which the
        # hook makes them do: it is handed the slot once the checker is done.
        if self._hook_pending[i] and env_checker_done(self.envs[i]):
            self.envs[i].unwrapped.write_observations_to(out)
            self._hook_pending[i] = False

    def own(self, i: int, observation):
        """The env's observation as the caller may keep it: a copy where it is row i of the batch itself
        (the hook), which the next write overwrites; else the env's very object."""
        return copy_observation(observation) if observation is self._slots[i] and observation is not None \
            else observation

    # -- Gymnasium's jobs (each runs on env i's own thread) ---------------------------------------

    def reset_job(self, i: int, seed: int | None, options: dict[str, Any] | None) -> None:
        observation, info = self.envs[i].reset(seed=seed, options=options)
        self.write(i, observation)
        self.rewards[i] = 0.0
        self.terminations[i] = self.truncations[i] = self.needs_reset[i] = False
        self.infos[i], self.finals[i] = info, None

    def step_job(self, i: int, action) -> None:
        env = self.envs[i]
        if self.needs_reset[i]:  # NEXT_STEP: this step starts the next episode
            observation, info = env.reset()
            reward, terminated, truncated = 0.0, False, False
        else:
            observation, reward, terminated, truncated, info = env.step(action)
        final = None
        self.rewards[i] = reward
        self.terminations[i], self.truncations[i] = terminated, truncated
        ended = self.terminations[i] or self.truncations[i]
        if ended and self.autoreset_mode is AutoresetMode.SAME_STEP:
            final = (self.own(i, observation), info)
            observation, info = env.reset()
        self.write(i, observation)
        self.needs_reset[i] = ended and self.autoreset_mode is not AutoresetMode.SAME_STEP
        self.infos[i], self.finals[i] = info, final

    # -- the operations both adapters share ----------------------------------------------------

    def reset(self, seeds: Sequence[int | None], options: dict | None = None,
              indices: Sequence[int] | None = None) -> None:
        """Reset the envs at `indices` (all when None), env indices[k] with seeds[k] and `options`."""
        indices = list(range(self.num_envs)) if indices is None else list(indices)
        self.run("reset", self.reset_job, [(seed, options) for seed in seeds], indices)

    def step(self, actions: Sequence) -> None:
        self.start_step(actions)
        self.wait()

    def start_step(self, actions: Sequence, job: Callable | None = None) -> None:
        """Start `job` (step_job) for each env i with actions[i] (one per env)."""
        self.start("step", job or self.step_job, [(a,) for a in actions])

    def call(self, functions: Sequence[Callable], indices: Sequence[int], args: tuple, kwargs: dict[str, Any]
             ) -> list[Any]:
        """functions[k](*args, **kwargs) for env indices[k] on its thread (each env's own method, looked up by
        the caller so that a missing one raises AttributeError there)."""
        values = self.run("call", call_job, [(f, args, kwargs) for f in functions], indices)
        return [values[i] for i in indices]

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Close every env (its engine ends) on its own thread, then end the threads. An env still busy
        after `timeout` seconds is left behind with a warning."""
        if self.closed:
            return
        self.closed = True
        self._finalizer.detach()
        shut_down(self.envs, self._groups, self._inboxes, self._threads, timeout)


def call_job(i: int, function: Callable, args: tuple, kwargs: dict[str, Any]) -> Any:
    return function(*args, **kwargs)


def global_rng_state() -> tuple[int, np.ndarray]:
    state = np.random.get_state(legacy=False)["state"]
    return state["pos"], state["key"]


def same_rng_state(a: tuple[int, np.ndarray], b: tuple[int, np.ndarray]) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1])


class Call:
    """One run of jobs on the threads, in `parts` (one per thread): each job stores its value or error; the
    last part to finish releases `done`."""

    __slots__ = ("during", "values", "errors", "done", "_count", "_parts")

    def __init__(self, during: str, parts: int):
        self.during, self._parts = during, parts
        self.values: dict[int, Any] = {}
        self.errors: dict[int, BaseException] = {}
        self.done = threading.Lock()
        self.done.acquire()
        self._count = itertools.count(1)  # next() is atomic: no lock needed to count finished parts
        if parts == 0:
            self.done.release()

    def finished(self) -> None:
        if next(self._count) == self._parts:
            self.done.release()


def pinned_cpus(num_envs: int, pin: bool | None) -> list[int] | None:
    """The CPUs env threads are pinned to (see EnvThreads), or None."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    return cpus if pin or (pin is None and num_envs >= len(cpus)) else None


def serve(inbox: queue.SimpleQueue, cpu: int | None) -> None:
    """A worker thread: run each (call, part, job) of `inbox` until None arrives, on `cpu` if not None."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})  # 0: this thread only
    while (work := inbox.get()) is not None:
        run_jobs(*work)
        del work  # no reference to the vector env between jobs: it can be garbage collected


def run_jobs(call: Call, part: list[tuple[int, tuple]], job: Callable,
             catch: type[BaseException] = BaseException) -> None:
    """job(index, *args) for each (index, args) of `part`, in order: each value or error goes into `call`
    (an env that raises does not keep the others from their turn); then `call` counts the part finished."""
    values = call.values
    for index, args in part:
        try:
            values[index] = job(index, *args)
        except catch as error:  # reported to the caller, which raises it
            call.errors[index] = error
    call.finished()


def shut_down(envs, groups, inboxes, threads, timeout: float) -> None:
    """Close every env on its group's thread (after what it is doing now; the calling thread's group here),
    then end the threads. Envs still busy after `timeout` seconds are left with a warning."""
    if threading.current_thread() in threads:  # collected as a worker let go of its last job: not there
        threading.Thread(target=shut_down, args=(envs, groups, inboxes, threads, timeout), daemon=True).start()
        return
    call = Call("close", len(threads))
    inline = []
    for group, inbox in zip(groups, inboxes):
        if inbox is None:
            inline = group
        else:
            inbox.put((call, [(index, ()) for index in group], lambda index: close_env(envs[index])))
            inbox.put(None)
    for index in inline:
        close_env(envs[index])
    call.done.acquire(timeout=timeout)
    for thread in threads:
        thread.join(0.1)
    stuck = [thread.name for thread in threads if thread.is_alive()]
    if stuck:
        gym.logger.warn(f"vector env: {', '.join(stuck)} still busy after {timeout:.0f} s; their envs were not closed")


def close_env(env: gym.Env) -> None:
    try:
        env.close()
    except Exception as error:  # noqa: BLE001  (an engine that died may refuse to close; the others still close)
        gym.logger.warn(f"vector env: closing {env} failed: {describe(error)}")


def make_envs(env_fns: Sequence[Callable[[], gym.Env]], check: Callable[[list[gym.Env]], Any] | None = None,
              make: Callable[[Callable[[], gym.Env]], gym.Env] | None = None) -> list[gym.Env]:
    """Call each factory (through `make`, if given), each must make a new env; then `check(envs)`. On
    failure, close what was made."""
    envs = []
    try:
        if len(env_fns) == 0:
            raise ValueError("env_fns is empty; a vector env needs at least one env")
        for index, factory in enumerate(env_fns):
            env = make(factory) if make is not None else factory()
            envs.append(env)
            if any(env.unwrapped is other.unwrapped for other in envs[:-1]):
                raise ValueError(f"env_fns[{index}] returned an env made before: each factory must make a new env "
                                 f"(two threads would step one game)")
        if check is not None:
            check(envs)
    except BaseException:
        for env in envs:
            close_env(env)
        raise
    return envs


def offers_the_hook(env: gym.Env, space: Space) -> bool:
    """Whether `env` can write its observations into a given array (DoomEnv.write_observations_to) shaped
    as `space`, and no wrapper changes them."""
    base = env.unwrapped
    return hasattr(base, "write_observations_to") and env.observation_space == base.observation_space == space


def env_checker_done(env: gym.Env) -> bool:
    """Whether every PassiveEnvChecker around `env` has made its checks (the first reset and steps)."""
    while isinstance(env, gym.Wrapper):
        if isinstance(env, PassiveEnvChecker) and not getattr(env, "checked_data_reuse", env.checked_step):
            return False
        env = env.env
    return True


PLAIN_SPACES = (Box, Discrete, MultiDiscrete, MultiBinary)


def plain_space(space: Space) -> bool:
    """Whether Gymnasium batches `space` as arrays (or a dict or tuple of them) that `concatenate` fills in
    place: Box, Discrete, MultiDiscrete, MultiBinary, and Tuple and Dict of them (not subclasses, which may
    batch their own way)."""
    if type(space) in PLAIN_SPACES:
        return True
    if type(space) is Tuple:
        return all(plain_space(s) for s in space.spaces)
    if type(space) is Dict:
        return all(plain_space(s) for s in space.spaces.values())
    return False


def slot(batch, i: int):
    """Views of row i of a batch array or of each array of a (nested) dict or tuple of them."""
    if isinstance(batch, dict):
        return type(batch)((key, slot(value, i)) for key, value in batch.items())
    if isinstance(batch, tuple):
        return tuple(slot(value, i) for value in batch)
    return batch[i, ...]  # a view even of a 1-d batch


def copy_into(out, observation, strict: bool = False) -> None:
    """Copy `observation` into `out` (an array, or a dict or tuple of them): as numpy's item assignment
    does (unsafe casting, broadcasting; DummyVecEnv's way), or `strict`, as Gymnasium's `concatenate`
    (np.stack) does: the same shape, same-kind casting of the value as an array (a Python int is int64)."""
    if isinstance(out, dict):
        for key, value in out.items():
            copy_into(value, observation[key], strict)
    elif isinstance(out, tuple):
        for value, item in zip(out, observation):
            copy_into(value, item, strict)
    elif strict:
        observation = np.asanyarray(observation)
        if observation.shape != out.shape:
            raise ValueError(f"an observation of shape {observation.shape}, where the observation space's shape is "
                             f"{out.shape}")
        np.copyto(out, observation, casting="same_kind")
    else:
        np.copyto(out, observation, casting="unsafe")


def copy_observation(observation):
    if isinstance(observation, dict):
        return type(observation)((key, copy_observation(value)) for key, value in observation.items())
    if isinstance(observation, tuple):
        return tuple(copy_observation(value) for value in observation)
    return np.array(observation, copy=True)


class ThreadVectorEnv(VectorEnv):
    """A Gymnasium vector env of N envs stepped at once by threads (EnvThreads), with SyncVectorEnv's
    arguments, outputs and exceptions: seeds, `options["reset_mask"]`, info batching, the three autoreset
    modes (same-step `final_obs` is the env's own object), `copy`, `observation_mode` ("same",
    "different", or a (batched, single) pair of spaces), every space Gymnasium batches (plain arrays into
    preallocated batch arrays; Text, Graph, Sequence, OneOf and custom spaces by Gymnasium's
    `concatenate`), actions handed to each env as `iterate` gives them, `call`, `get_attr`, `set_attr`,
    `render`; at the speed of N engines.

    `gym.make_vec(id, num_envs=N)` returns one for wadgym's ids (their `vector_entry_point`); any keyword
    arguments go to each env, except `copy`, `observation_mode`, `autoreset_mode` and `pin` (see
    EnvThreads), the vector env's. An env that raises (or whose engine dies) makes reset/step/call raise
    VectorEnvError naming it, an instance of the env's exception type too (SyncVectorEnv raises the env's
    exception itself). Where SyncVectorEnv steps the envs before a failing one and not those after it,
    here every other env has made its step.
    """

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], copy: bool = True,
                 observation_mode: str | tuple[Space, Space] = "same",
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, pin: bool | None = None):
        self.env_fns = env_fns
        self.copy = copy
        self.observation_mode = observation_mode
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.envs = make_envs(env_fns, check=self._set_spaces)
        self.num_envs = len(self.envs)
        self.metadata = {**self.envs[0].metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = self.envs[0].render_mode
        space = self.single_observation_space
        self._batch = create_empty_array(space, self.num_envs, fn=np.zeros)
        self.threads = EnvThreads(self.envs, self._batch if plain_space(space) else None, space, strict=True,
                                  autoreset_mode=self.autoreset_mode, pin=pin)

    def _set_spaces(self, envs: list[gym.Env]) -> None:
        """The vector env's spaces from `observation_mode`, as SyncVectorEnv makes them and with its errors."""
        n, first, mode = len(envs), envs[0], self.observation_mode
        self.single_action_space = first.action_space
        self.action_space = batch_space(self.single_action_space, n)
        if isinstance(mode, tuple) and len(mode) == 2:
            if not all(isinstance(space, Space) for space in mode):
                raise TypeError(f"observation_mode: a pair of spaces (batched, single) expected, got types "
                                f"{type(mode[0]).__name__} and {type(mode[1]).__name__}")
            self.observation_space, self.single_observation_space = mode
        elif isinstance(mode, str) and mode == "same":
            self.single_observation_space = first.observation_space
            self.observation_space = batch_space(self.single_observation_space, n)
        elif isinstance(mode, str) and mode == "different":
            self.single_observation_space = first.observation_space
            self.observation_space = batch_differing_spaces([env.observation_space for env in envs])
        else:
            raise ValueError("Invalid `observation_mode`, expected: 'same' or 'different' or tuple of single and "
                             f"batch observation space, actual got {mode}")
        single = self.single_observation_space
        for i, env in enumerate(envs):
            if isinstance(mode, str) and mode == "same":
                if env.observation_space != single:
                    raise RuntimeError(
                        f"{type(self).__name__}(..., observation_mode='same') however the sub-environments observation "
                        f"spaces are not equivalent. env {i} has {env.observation_space}, env 0 has {single}. If this "
                        f"is intentional, use `observation_mode='different'` instead.")
            elif not is_space_dtype_shape_equiv(env.observation_space, single):
                raise RuntimeError(f"{type(self).__name__}(..., observation_mode={mode!r}): env {i}'s observation "
                                   f"space {env.observation_space} does not share the shape and dtype of {single}")
            if env.action_space != self.single_action_space:
                raise RuntimeError(f"env {i} has action space {env.action_space}, env 0 has "
                                   f"{self.single_action_space}: every env must have env 0's")

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        threads, n = self.threads, self.num_envs
        seeds = [None] * n if seed is None else [seed + i for i in range(n)] if isinstance(seed, int) else seed
        if len(seeds) != n:
            raise ValueError(f"seed: a list of seeds needs num_envs={n} entries, got {len(seeds)}")
        indices = range(n)
        if options is not None and "reset_mask" in options:
            indices = np.flatnonzero(check_reset_mask(options["reset_mask"], n)).tolist()
            options = {key: value for key, value in options.items() if key != "reset_mask"}
        threads.reset([seeds[i] for i in indices], options, indices)
        return self._observations(), self._batch_infos([(i, threads.infos[i]) for i in indices])

    def step(self, actions):
        threads = self.threads
        actions = list(iterate(self.action_space, actions))  # each env's action as SyncVectorEnv hands it
        if len(actions) != self.num_envs:
            raise ValueError(f"actions must hold one action per env ({self.num_envs}), got {len(actions)}")
        if self.autoreset_mode is AutoresetMode.DISABLED and threads.needs_reset.any():
            raise AssertionError(f"envs {np.flatnonzero(threads.needs_reset).tolist()} ended their episodes: with "
                                 f"autoreset_mode DISABLED, reset them first (reset(options={{'reset_mask': ...}}))")
        threads.step(actions)
        entries = []
        for i, (info, final) in enumerate(zip(threads.infos, threads.finals)):
            if final is not None:
                entries.append((i, {"final_obs": final[0], "final_info": final[1]}))
            entries.append((i, info))
        return (self._observations(), threads.rewards.copy(), threads.terminations.copy(),
                threads.truncations.copy(), self._batch_infos(entries))

    def _batch_infos(self, entries: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
        """The vector info of (env index, info) entries: batch_infos, or VectorEnv._add_info entry by entry
        where batch_infos leaves it to it."""
        infos = batch_infos(entries, self.num_envs)
        if infos is None:
            infos = {}
            for i, info in entries:
                infos = self._add_info(infos, info, i)
        return infos

    def _observations(self):
        if self.threads.observations is not None:  # plain arrays, filled on the threads
            return copy_observation(self._batch) if self.copy else self._batch
        self._batch = concatenate(self.single_observation_space, self.threads.latest, self._batch)
        return deepcopy(self._batch) if self.copy else self._batch

    def render(self) -> tuple[Any, ...]:
        return tuple(env.render() for env in self.envs)

    def call(self, name: str, *args, **kwargs) -> tuple[Any, ...]:
        """Each env's `name` attribute (through its wrappers), called with the arguments (on the envs'
        threads) where callable."""
        values = [env.get_wrapper_attr(name) for env in self.envs]
        called = [i for i, value in enumerate(values) if callable(value)]
        if called:
            results = self.threads.call([values[i] for i in called], called, args, kwargs)
            for i, result in zip(called, results):
                values[i] = result
        return tuple(values)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """call(name), as SyncVectorEnv's get_attr (a method is called)."""
        return self.call(name)

    def set_attr(self, name: str, values) -> None:
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"values: a list or tuple needs num_envs={self.num_envs} entries, got {len(values)}")
        for env, value in zip(self.envs, values):
            env.set_wrapper_attr(name, value)

    @property
    def np_random_seed(self) -> tuple[int, ...]:
        return self.get_attr("np_random_seed")

    @property
    def np_random(self) -> tuple[np.random.Generator, ...]:
        return self.get_attr("np_random")

    def close_extras(self, **kwargs) -> None:
        if hasattr(self, "threads"):
            self.threads.close()


def batch_infos(entries: Sequence[tuple[int, dict[str, Any]]], num_envs: int) -> dict[str, Any] | None:
    """What Gymnasium's VectorEnv._add_info makes of the (env index, info) entries, added in turn, made key
    by key: each batch array and "_key" mask is made once, not looked up and remade for every env (a
    fifth of the cost). A key's first value decides its array: numbers of its type, arrays of its shape
    and dtype, dicts batched alike, anything else (and "final_obs") in an object array. None where a key
    holds a dict for some envs and not for others, which _add_info handles its own way."""
    values: dict[str, list] = {}
    for i, info in entries:
        for key, value in info.items():
            if key in values:
                values[key].append((i, value))
            else:
                values[key] = [(i, value)]
    infos: dict[str, Any] = {}
    every_env = list(range(num_envs))
    for key, items in values.items():
        indices, column = [i for i, _ in items], [value for _, value in items]
        first, kind = column[0], type(column[0])
        kinds = set(map(type, column))
        numeric = kind in (int, float, bool) or issubclass(kind, np.number)  # the first value's type
        whole = indices == every_env  # each env once, in order
        if key == "final_obs":
            array = np.empty(num_envs, dtype=object)  # None in each slot
            for i, value in items:
                array[i] = value
        elif any(issubclass(k, dict) for k in kinds):
            if not all(issubclass(k, dict) for k in kinds):
                return None
            array = batch_infos(items, num_envs)
            if array is None:
                return None
        elif len(kinds) == 1 and numeric:
            # One conversion of the column, as each value assigned in turn is converted.
            if whole:
                array = np.array(column, dtype=kind)
            else:
                array = np.zeros(num_envs, dtype=kind)
                array[indices] = np.array(column, dtype=kind)
        elif whole and kinds == {np.ndarray} and all(value.shape == first.shape and value.dtype == first.dtype
                                                       for value in column):
            array = np.array(column)  # same shapes and dtype: each row an exact copy, as assigned in turn
        elif whole and kinds == {str}:
            array = np.empty(num_envs, dtype=object)
            array[:] = column  # strings are single objects to numpy, as assigned in turn
        else:  # _add_info's own way: the first value decides the array; each value is assigned in turn
            if numeric:
                array = np.zeros(num_envs, dtype=kind)
            elif isinstance(first, np.ndarray):
                array = np.zeros((num_envs, *first.shape), dtype=first.dtype)
            else:
                array = np.empty(num_envs, dtype=object)  # None in each slot
            for i, value in items:
                array[i] = value
        mask = np.zeros(num_envs, dtype=np.bool_)
        if whole:
            mask.fill(True)
        else:
            mask[indices] = True
        infos[key], infos[f"_{key}"] = array, mask
    return infos


def check_reset_mask(mask, num_envs: int) -> np.ndarray:
    """`options["reset_mask"]`, checked as SyncVectorEnv checks it (TypeError for the wrong type or dtype,
    ValueError for the wrong shape or no env selected)."""
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
    if mask.shape != (num_envs,):
        raise ValueError(f"`options['reset_mask']` must have shape `({num_envs},)`, got {mask.shape}")
    if mask.dtype != np.bool_:
        raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
    if not mask.any():
        raise ValueError("`options['reset_mask']` must contain a boolean array with at least one True value, got "
                         f"reset_mask={mask}")
    return mask


def make_vector_env(env_id: str, num_envs: int = 1, *, copy: bool = True,
                    observation_mode: str | tuple[Space, Space] = "same",
                    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, pin: bool | None = None,
                    **kwargs) -> ThreadVectorEnv:
    """`num_envs` x gym.make(env_id, **kwargs) as a ThreadVectorEnv: the vector entry point of wadgym's ids
    (registration gives `env_id`; gym.make_vec passes num_envs, max_episode_steps and the env kwargs)."""
    if not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs={num_envs!r} is not valid; it must be a whole number >= 1")
    return ThreadVectorEnv([lambda: gym.make(env_id, **kwargs) for _ in range(num_envs)], copy=copy,
                           observation_mode=observation_mode, autoreset_mode=autoreset_mode, pin=pin)
