"""What RLlib's env runners run: wadgym envs made by id as a Gymnasium vector env, and a callback that
records every finished episode (score, return, length, which env runner on which node)."""

from __future__ import annotations

import signal
from typing import Any

import gymnasium as gym
from ray.rllib.callbacks.callbacks import RLlibCallback

EPISODES_KEY = "wadgym_episodes"  # the per-episode records in a training result's "env_runners"


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


RLLIB_ENV = "wadgym"  # the name create_env is registered under with Ray (see register)


def create_env(config: dict[str, Any]):
    """RLlib's env creator, for env_config {"env_id", "env_kwargs"}: with "num_envs" in the config (what
    env runners ask for) the vector env, without it one env. Env runners ignore Ctrl-C, and so do the
    ViZDoom engines they start: the trainer alone decides when to stop."""
    from wadgym.agents.vec import make_env

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    env_id, env_kwargs = config["env_id"], dict(config.get("env_kwargs") or {})
    if config.get("num_envs") is None:
        return make_env(env_id, env_kwargs)
    venv = make_vector_env(env_id, env_kwargs, int(config["num_envs"]))
    return ReportFailures(venv, config["failure_log"]) if config.get("failure_log") else venv


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


class ReportFailures(gym.vector.VectorWrapper):
    """Sends the traceback of an exception in reset or step to the FailureLog named `log_name`, then
    lets it propagate as before."""

    def __init__(self, env: gym.vector.VectorEnv, log_name: str):
        super().__init__(env)
        self.log_name = log_name

    def reset(self, **kwargs):
        try:
            return self.env.reset(**kwargs)
        except Exception:
            self._report()
            raise

    def step(self, actions):
        try:
            return self.env.step(actions)
        except Exception:
            self._report()
            raise

    def _report(self) -> None:
        import contextlib
        import socket
        import traceback

        import ray

        text = f"in an env runner on {socket.gethostname()} (node {ray.get_runtime_context().get_node_id()}):\n"
        with contextlib.suppress(Exception):
            ray.get(ray.get_actor(self.log_name).report.remote(text + traceback.format_exc()), timeout=10)


def register() -> str:
    """Register create_env with Ray (config.environment(RLLIB_ENV, env_config=...)); returns the name."""
    from ray.tune.registry import register_env

    register_env(RLLIB_ENV, create_env)
    return RLLIB_ENV


class EpisodeRecorder(RLlibCallback):
    """Logs one record per finished episode (items, return, length, env_runner, node) as an item series,
    which RLlib gathers from every env runner into the training result."""

    def on_episode_end(self, *, episode, prev_episode_chunks=None, env_runner=None, metrics_logger=None,
                       **kwargs) -> None:
        import ray

        chunks = [*(prev_episode_chunks or []), episode]
        info = episode.get_infos(-1)
        metrics_logger.log_value(EPISODES_KEY, {
            "items": info.get("items_collected"),
            "return": float(sum(chunk.get_return() for chunk in chunks)),
            "length": int(sum(len(chunk) for chunk in chunks)),
            "env_runner": getattr(env_runner, "worker_index", None),
            "node": ray.get_runtime_context().get_node_id(),
        }, reduce="item_series")
