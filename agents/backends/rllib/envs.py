"""What RLlib's env runners run: wadgym envs made by id as a Gymnasium vector env, and a callback that
records every finished episode (its score, return, length, which env runner on which node)."""

from __future__ import annotations

import signal
from typing import Any

import gymnasium as gym
from ray.rllib.callbacks.callbacks import RLlibCallback

from wadgym.agents.restart import engine_died, note_engines, remove_dead_segments


def make_vector_env(env_id: str, env_kwargs: dict[str, Any], num_envs: int) -> gym.vector.VectorEnv:
    """`num_envs` envs of `env_id` as one Gymnasium vector env with next-step autoreset (what RLlib's
    env runners step): the id's own vector env when it registers one (`vector_entry_point`) and its
    observations are frames, else Gymnasium's SyncVectorEnv of agents.vec.make_env envs (which keep
    the screen of a Dict observation)."""
    import importlib

    from wadgym.agents.vec import make_env, register_envs

    register_envs(env_id)
    module, _, name = env_id.rpartition(":")  # "module:Id": the module registers Id
    if module:
        importlib.import_module(module)
    spec = gym.spec(name)
    if spec.vector_entry_point is not None:
        venv = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **env_kwargs)
        if isinstance(venv.single_observation_space, gym.spaces.Box):
            return venv
        venv.close()
    return gym.vector.SyncVectorEnv([lambda: make_env(env_id, env_kwargs) for _ in range(num_envs)])


def create_vector_env(num_envs: int, env_id: str, env_kwargs: dict[str, Any] | None = None,
                      seed: int | None = None, failure_log: str | None = None) -> gym.vector.VectorEnv:
    """What env runners build (a RunnerEnv): `num_envs` envs of `env_id`, seeded as SB3's would be,
    failures reported to the FailureLog actor named `failure_log`. Env runners ignore Ctrl-C, and so do
    the ViZDoom engines they start: the trainer alone decides when to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return RunnerEnv(make_vector_env(env_id, dict(env_kwargs or {}), num_envs), seed, failure_log)


def create_env(env_id: str, env_kwargs: dict[str, Any] | None = None, **_) -> gym.Env:
    from wadgym.agents.vec import make_env

    return make_env(env_id, dict(env_kwargs or {}))


# RLlib's env runners call gym.make_vec(RLLIB_ENV, num_envs, vectorization_mode="vector_entry_point",
# **env_config); the "module:" prefix makes them import this module, which registers the id. (Ray's own
# env registry is per job: a second run in one process would not find its registration.)
RLLIB_ENV = f"{__name__}:WadgymRLlib-v0"
gym.register("WadgymRLlib-v0", entry_point=create_env, vector_entry_point=create_vector_env)


class FailureLog:
    """A Ray actor (named, made by the trainer's driver) that env runners tell their env's traceback
    before they die: RLlib ends a failed env runner's process, so the traceback would otherwise stay
    in that node's log files."""

    def __init__(self):
        self.reports: list[str] = []

    def report(self, text: str) -> None:
        self.reports.append(text)

    def get(self) -> list[str]:
        return list(self.reports)


class RunnerEnv(gym.vector.VectorWrapper):
    """An env runner's vector env, with SB3's seeding and failure reports.

    Seeding: RLlib resets env runner w's vector env with seed + w, so with K envs per runner the runners'
    envs would share seeds (runner 1: seed+1 .. seed+K, runner 2: seed+2 ..). Here runner w's envs get
    seed + (w-1)*K .. seed + w*K - 1: every env its own seed, the first N those of N SB3 envs.
    Failures: the traceback of an exception in reset or step goes to the FailureLog named `log_name`
    (an engine's death excepted), then the exception propagates as before."""

    def __init__(self, env: gym.vector.VectorEnv, base_seed: int | None, log_name: str | None):
        super().__init__(env)
        self.base_seed, self.log_name = base_seed, log_name

    def reset(self, *, seed=None, options=None):
        if isinstance(seed, int) and self.base_seed is not None:
            first = self.base_seed + (seed - self.base_seed - 1) * self.num_envs
            seed = [first + index for index in range(self.num_envs)]
        try:
            result = self.env.reset(seed=seed, options=options)
        except Exception as error:
            self._report(error)
            raise
        note_engines()  # so that a dead engine's shared memory can be freed (see _report)
        return result

    def step(self, actions):
        try:
            return self.env.step(actions)
        except Exception as error:
            self._report(error)
            raise

    def _report(self, error: Exception) -> None:
        """Report `error` unless it is an engine's death, which RLlib's fault tolerance recovers from
        (agents.restart: RLlib makes the env runner's envs again)."""
        import contextlib
        import socket
        import traceback

        import ray

        if engine_died(error):  # RLlib makes the envs again; the dead engine's segments go now
            remove_dead_segments()
            return
        if self.log_name is None:
            return
        text = f"in an env runner on {socket.gethostname()} (node {ray.get_runtime_context().get_node_id()}):\n"
        with contextlib.suppress(Exception):
            ray.get(ray.get_actor(self.log_name).report.remote(text + traceback.format_exc()), timeout=10)


RECORDS = "wadgym_episodes"  # the env runner attribute holding its finished episodes' records


class EpisodeRecorder(RLlibCallback):
    """Keeps one record per finished episode (score, return, length, env_runner, node) on the env
    runner, for the trainer to collect with pop_episodes after each iteration (lossless, unlike
    RLlib's windowed episode metrics)."""

    def on_episode_end(self, *, episode, prev_episode_chunks=None, env_runner=None, **kwargs) -> None:
        import ray

        chunks = [*(prev_episode_chunks or []), episode]
        info = episode.get_infos(-1)
        env_runner.__dict__.setdefault(RECORDS, []).append({
            "score": info.get("score"),
            "return": float(sum(chunk.get_return() for chunk in chunks)),
            "length": int(sum(len(chunk) for chunk in chunks)),
            "env_runner": env_runner.worker_index,
            "node": ray.get_runtime_context().get_node_id(),
        })


def pop_episodes(env_runner) -> list[dict[str, Any]]:
    """The records EpisodeRecorder kept on `env_runner` since the last call (foreach_env_runner's func)."""
    return env_runner.__dict__.pop(RECORDS, [])
