"""Demonstrations as Minari datasets (`wadgym record`, wired in wadgym.cli.record): a policy's episodes of one
env id written with Minari's DataCollector, which writes each episode to disk as it ends, so memory stays flat
however many episodes are recorded. Needs `pip install 'wadgym[demos]'`; a trained run's policy needs the
training extras too.

The dataset holds what the env gives, unchanged: observations, actions in the id's action space, rewards,
terminations and truncations, and per step the infos "level_seed" and "score" (the env's own measure); each
episode's metadata adds its reset seed (Minari's), level seed and final score. Episode i is reset with seed
seed + i, as `wadgym eval` plays them, so the same call writes the same data. The "train" levels are those the
id trains on (the shipped hyperparameters' env kwargs, or a run's own), the "test" levels the held-out ones
from TEST_START_LEVEL on (agents.evaluate.split_kwargs). The env spec Minari stores recreates the env with the
same kwargs: `dataset.recover_environment()` plays the same levels.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

NAMED_POLICIES = ("scripted", "random")
INFO_KEYS = ("level_seed", "score")  # the infos recorded with every step
# Minari's HDF5 storage: one file, each episode appended as it ends. (Its Arrow storage writes a folder per
# episode and measures the whole dataset's folder after each one: recording slows as the dataset grows.)
DATA_FORMAT = "hdf5"


@dataclasses.dataclass(frozen=True)
class RecordResult:
    """What record_dataset wrote: the dataset's id and folder, its episodes and steps, whether a signal
    stopped it early (the episodes finished by then are the dataset) and how long it took."""

    dataset_id: str
    path: Path
    episodes: int
    steps: int
    interrupted: bool
    seconds: float


def record_dataset(
    env_id: str,
    policy: str | os.PathLike | Callable[[Any], Any] | Any = "scripted",
    episodes: int = 10,
    dataset_id: str = "wadgym/demos-v0",
    levels: str = "train",
    seed: int = 0,
    overwrite: bool = False,
    deterministic: bool = False,
    progress: bool = False,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
    author: str = "wadgym record",
    description: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> RecordResult:
    """Record `episodes` episodes of `env_id` played by `policy` into the Minari dataset `dataset_id`
    ("namespace/name-vN", under $MINARI_DATASETS_PATH, default ~/.minari/datasets).

    `policy` is "scripted" (the env's scripted reference), "random" (uniform actions, the action space reseeded
    with each episode's seed), a run folder made by `wadgym train` for `env_id` (its policy sampling actions,
    torch seeded with each episode's seed, or its argmax with `deterministic`), a SavedPolicy, or any callable
    `policy(observation) -> action` on the env's own observations (a `reset(seed)` method, if it has one, is
    called before each episode). `levels` is "train" or "test" (of `env_kwargs`, the env's kwargs before the
    split: by default those it trains with, the shipped hyperparameters' or the run's); episode i is reset with
    seed `seed` + i.
    `on_episode` is called with each finished episode's {"episode", "seed", "level_seed", "score", "return",
    "length"}; `progress` shows a progress bar on stderr.

    SIGINT (Ctrl-C) or SIGTERM while recording stops it: the unfinished episode is dropped and the episodes
    finished so far are written as the dataset (result.interrupted is True; KeyboardInterrupt when none had
    finished). Bad input (an unknown id, a policy that cannot play it, a dataset that exists without
    `overwrite`, episodes < 1) is a ValueError before any engine starts."""
    require_demos()
    plan = _plan(env_id, policy, episodes, dataset_id, levels, seed, overwrite, deterministic, env_kwargs)
    plan = dataclasses.replace(plan, author=author, description=description)
    start = time.perf_counter()
    stop = StopOnSignal()
    recorder = _Recorder(plan)
    bar = None
    try:
        bar = _progress_bar(episodes, progress)
        with stop:  # a signal sets stop.signum: the loop ends after the step, the dataset is written whole
            played = []
            for i in range(episodes):
                finished = recorder.play(seed + i, stop)
                if finished is None:
                    break
                played.append({"episode": i, "seed": seed + i, **finished})
                _show(bar, played)
                if on_episode is not None:
                    on_episode(played[-1])
                if stop.signum is not None:
                    break
            dataset = _write(recorder.collector, plan, played, stop.signum is not None)
    finally:
        if bar is not None:
            bar.close()
        recorder.close()
    return RecordResult(dataset_id=plan.dataset_id, path=Path(dataset.storage.data_path).parent,
                        episodes=dataset.total_episodes, steps=dataset.total_steps,
                        interrupted=stop.signum is not None, seconds=time.perf_counter() - start)


def require_demos() -> None:
    """A ModuleNotFoundError naming the first missing module of the demos extra (Minari, and what its
    DataCollector and HDF5 storage import: jax, h5py, PIL), before anything starts."""
    import h5py  # noqa: F401
    import jax.tree_util  # noqa: F401  (Minari's EpisodeBuffer appends steps with it)
    import minari  # noqa: F401
    import PIL  # noqa: F401


def training_kwargs(env_id: str) -> dict[str, Any]:
    """The env kwargs `env_id` trains with: its entry's env_kwargs in the shipped hyperparameters (e.g. the
    first 200 levels), {} (the id's own kwargs) when it has no entry."""
    from wadgym.agents.config import DEFAULT_HYPERPARAMS, read_yaml

    entry = (read_yaml(DEFAULT_HYPERPARAMS) or {}).get(env_id) or {}
    return dict(entry.get("env_kwargs") or {})


def dataset_exists(dataset_id: str) -> bool:
    """Whether a local Minari dataset `dataset_id` exists (under $MINARI_DATASETS_PATH)."""
    from minari.storage import get_dataset_path

    return get_dataset_path(dataset_id).exists()


# --- checking the input --------------------------------------------------------------------------------------

@dataclasses.dataclass
class _Plan:
    env_id: str
    env_kwargs: dict[str, Any]
    levels: str
    dataset_id: str
    seed: int
    episodes: int
    overwrite: bool
    policy: Any  # "scripted", "random" or a callable
    saved: Any  # a SavedPolicy, or None
    policy_info: dict[str, Any]
    author: str = "wadgym record"
    description: str | None = None


def _plan(env_id, policy, episodes, dataset_id, levels, seed, overwrite, deterministic, env_kwargs=None) -> _Plan:
    """Every input checked, nothing started: a ValueError names what is wrong."""
    from wadgym.agents.evaluate import LEVEL_SPLITS, split_kwargs

    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes={episodes!r}: must be a whole number, at least 1")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed={seed!r}: must be a whole number, at least 0")
    if levels not in LEVEL_SPLITS:
        raise ValueError(f"levels={levels!r} is not valid; choose one of {', '.join(LEVEL_SPLITS)}")
    spec = _spec(env_id)
    check_dataset_id(dataset_id, overwrite)
    saved, policy_info = None, {}
    if isinstance(policy, str) and policy in NAMED_POLICIES:
        if policy == "scripted" and not _has_scripted(spec):
            raise ValueError(f"policy 'scripted': {env_id} has no scripted reference policy (reference_action)")
        base_kwargs = training_kwargs(env_id)
        policy_info = {"kind": policy, "name": "the env's scripted reference (reference_action)" if policy == "scripted"
                       else "uniform random actions, the action space seeded with each episode's seed"}
    elif isinstance(policy, (str, os.PathLike)) or hasattr(policy, "make_vec_env"):
        saved = _saved_policy(policy, env_id, deterministic)
        base_kwargs = saved.env_kwargs
        policy_info = {"kind": "run", "name": f"the {saved.config.get('algo', 'ppo')} policy of run {saved.run}",
                       "run": str(saved.run), "model": str(saved.model_file),
                       "deterministic": bool(saved.deterministic)}
    elif callable(policy):
        base_kwargs = training_kwargs(env_id)
        policy_info = {"kind": "python",
                       "name": f"Python policy {getattr(policy, '__qualname__', type(policy).__qualname__)}"}
    else:
        raise ValueError(f"policy {policy!r}: expected 'scripted', 'random', a run folder or a callable")
    if env_kwargs is not None:  # the caller's env instead of the one the policy trains or trained on
        base_kwargs = dict(env_kwargs)
    return _Plan(env_id=env_id, env_kwargs=split_kwargs(env_id, base_kwargs, levels), levels=levels,
                 dataset_id=dataset_id, seed=seed, episodes=episodes, overwrite=overwrite,
                 policy=policy if saved is None else None, saved=saved, policy_info=policy_info)


def _spec(env_id: str) -> gym.envs.registration.EnvSpec:
    """The registered spec of a single-agent id whose env Minari can store (its entry point a module path)."""
    from wadgym.agents.vec import register_envs
    from wadgym.envs.registration import ENVS, MULTI_ENVS

    if env_id in MULTI_ENVS:
        raise ValueError(f"{env_id} is a multi-agent env; datasets record single-agent ids")
    if not isinstance(env_id, str) or env_id.endswith(".py"):
        raise ValueError(f"{env_id!r}: record a registered env id (a task file's env cannot be recreated from "
                         f"the dataset's env spec)")
    register_envs(env_id)
    if env_id not in gym.registry:
        raise ValueError(f"unknown env {env_id!r}; wadgym's envs: {', '.join(sorted(ENVS))}")
    spec = gym.spec(env_id)
    if not isinstance(spec.entry_point, str):
        raise ValueError(f"{env_id}: its entry point is a Python object, which Minari's env spec cannot store")
    return spec


def _has_scripted(spec) -> bool:
    """Whether the id's env class wrote a scripted reference (DoomEnv.reference_action), without making it."""
    from gymnasium.envs.registration import load_env_creator

    from wadgym.envs.doom_env import DoomEnv

    creator = load_env_creator(spec.entry_point)
    return isinstance(creator, type) and issubclass(creator, DoomEnv) and (
        creator.reference_action is not DoomEnv.reference_action)


def check_dataset_id(dataset_id: str, overwrite: bool, example: str = "wadgym/scripted-train-v0") -> None:
    """A ValueError unless `dataset_id` is a Minari id (namespace/name-vN) that is free (or `overwrite`)."""
    from minari.dataset.minari_dataset import parse_dataset_id

    try:
        _, _, version = parse_dataset_id(dataset_id) if isinstance(dataset_id, str) else (None, None, None)
    except (ValueError, TypeError):
        version = None
    if version is None:
        raise ValueError(f"dataset {dataset_id!r}: a Minari dataset id is namespace/name-vN (e.g. {example})")
    if dataset_exists(dataset_id) and not overwrite:
        raise ValueError(f"dataset {dataset_id!r} exists already (in {_datasets_root()}); "
                         "choose another name or overwrite it")


def _datasets_root() -> str:
    from minari.storage import get_dataset_path

    return str(get_dataset_path())


def _saved_policy(policy, env_id: str, deterministic: bool):
    """The SavedPolicy `policy` is or names, which must have trained on `env_id`."""
    if hasattr(policy, "make_vec_env"):
        saved = policy
    else:
        from wadgym.agents import runfolder

        if not (Path(policy) / "config.yml").is_file():
            raise ValueError(f"policy {str(policy)!r}: unknown policy; valid: 'scripted', 'random' or a run "
                             "folder made by `wadgym train`")
        from wadgym.agents.config import run_backend

        if run_backend(runfolder.load_config(Path(policy))).multi_agent:
            raise ValueError(f"policy {str(policy)!r}: a self-play run plays a multi-agent env; datasets "
                             "record single-agent ids")
        from wadgym.agents.policies.policy import SavedPolicy

        saved = SavedPolicy(policy, deterministic=deterministic)
    if saved.env_id != env_id:
        raise ValueError(f"policy {str(saved.run)!r} trained on {saved.env_id}, not {env_id}; record {saved.env_id} "
                         "with it")
    return saved


# --- playing ---------------------------------------------------------------------------------------------------

def collector(env: gym.Env, step_hook: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
              drop_kwargs: tuple[str, ...] = ()):
    """Minari's DataCollector around `env`: raw arrays (no JPEG), HDF5 storage, the INFO_KEYS infos.
    `step_hook(step, info)` may change a step before it is stored (its "action", more infos), `info` being the
    env's whole info; `drop_kwargs`: env kwargs left out of the stored spec (what the recovered env must not get)."""
    import minari

    class KeptInfos(minari.StepDataCallback):
        def __call__(self, env, **kwargs):
            step = super().__call__(env, **kwargs)
            info = step["info"]
            step["info"] = _kept_infos(info)
            if step_hook is not None:
                step_hook(step, info)
            return step

    class EpisodeSummary(minari.EpisodeMetadataCallback):
        def __call__(self, episode):
            infos = episode["infos"]
            return {**super().__call__(episode),
                    **{key: np.asarray(infos[key])[-1].item() for key in INFO_KEYS if key in infos}}

    class Collector(minari.DataCollector):
        def drop_episode(self) -> None:
            """Forget the unfinished episode: Minari would write it as truncated at the next reset or save."""
            self._buffer = None

    return Collector(_StorableSpec(env, drop_kwargs), step_data_callback=KeptInfos,
                     episode_metadata_callback=EpisodeSummary, record_infos=True, data_format=DATA_FORMAT,
                     jpeg_encoding=False)


def _kept_infos(info: dict[str, Any]) -> dict[str, Any]:
    kept = {}
    if info.get("level_seed") is not None:
        kept["level_seed"] = int(info["level_seed"])
    if info.get("score") is not None:
        kept["score"] = float(info["score"])
    return kept


class _StorableSpec(gym.Wrapper):
    """The env as it is, with a spec Minari can store as JSON: the registered spec (id, entry point, every
    kwarg the env was made with but `drop_kwargs`) without its vector_entry_point, a function that gym.make does
    not use."""

    def __init__(self, env: gym.Env, drop_kwargs: tuple[str, ...] = ()):
        super().__init__(env)
        self.drop_kwargs = drop_kwargs

    @property
    def spec(self):
        spec = self.env.spec
        if spec is None:
            return None
        kwargs = {k: v for k, v in (spec.kwargs or {}).items() if k not in self.drop_kwargs}
        return dataclasses.replace(spec, kwargs=kwargs, vector_entry_point=None)


class _Recorder:
    """The env of a plan, its DataCollector, and its policy playing one seeded episode at a time: a run's policy
    on the one-env VecEnv its training observed (Minari's collector wrapping the env inside, so that the
    dataset holds the env's own observations), any other on the plain env."""

    def __init__(self, plan: _Plan):
        self.saved, self.venv, self.collector = plan.saved, None, None
        if self.saved is not None:
            from wadgym.agents.vec import close_vec_env

            self.venv = self.saved.make_vec_env(plan.env_kwargs)
            envs = self.venv.unwrapped.envs
            try:
                self.collector = envs[0] = collector(envs[0])
            except BaseException:
                close_vec_env(self.venv)
                raise
        else:
            from wadgym.agents.vec import gym_make

            env = gym_make(plan.env_id, plan.env_kwargs)
            try:
                self.collector = collector(env)
                self.reset, self.act = _actor(plan.policy, env)
            except BaseException:
                env.close()
                raise

    def play(self, seed: int, stop: StopOnSignal) -> dict[str, Any] | None:
        """One episode reset with `seed`: its summary, or None when `stop` came first (that unfinished
        episode is then dropped, not written)."""
        summary = self._play_vec(seed, stop) if self.venv is not None else self._play_plain(seed, stop)
        if summary is None:
            self.collector.drop_episode()
        return summary

    def _play_plain(self, seed: int, stop: StopOnSignal) -> dict[str, Any] | None:
        observation, info = self.collector.reset(seed=seed)
        self.reset(seed)
        total, length = 0.0, 0
        while stop.signum is None:
            observation, reward, terminated, truncated, info = self.collector.step(self.act(observation))
            total, length = total + float(reward), length + 1
            if terminated or truncated:
                return _summary(info, total, length)
        return None

    def _play_vec(self, seed: int, stop: StopOnSignal) -> dict[str, Any] | None:
        """As evaluate_policy plays it (a recurrent policy's state kept between steps), torch seeded with
        `seed` so that sampled actions repeat."""
        from stable_baselines3.common.utils import set_random_seed

        set_random_seed(seed)
        self.venv.seed(seed)
        observations = self.venv.reset()
        self.saved.reset(seed)
        state, starts = None, np.ones((1,), dtype=bool)
        total, length = 0.0, 0
        while stop.signum is None:
            actions, state = self.saved.predict(observations, state=state, episode_start=starts)
            observations, rewards, starts, infos = self.venv.step(actions)
            total, length = total + float(rewards[0]), length + 1
            if starts[0]:
                return _summary(infos[0], total, length)
        return None

    def close(self) -> None:
        """Close the env, and with it the collector (its temporary folder removed)."""
        if self.venv is not None:
            from wadgym.agents.vec import close_vec_env

            close_vec_env(self.venv)
        elif self.collector is not None:
            self.collector.close()


def _actor(policy, env: gym.Env):
    """`policy` as (reset(seed), act(observation) -> action) on the plain env."""
    from wadgym.agents.episodes import RandomPolicy, ScriptedPolicy

    if isinstance(policy, str) and policy in NAMED_POLICIES:
        chosen = ScriptedPolicy(env) if policy == "scripted" else RandomPolicy(env.action_space)
        return chosen.reset, lambda observation: chosen.predict(observation)[0][0]
    return getattr(policy, "reset", lambda seed: None), policy


def _summary(info: dict[str, Any], total: float, length: int) -> dict[str, Any]:
    return {"level_seed": info.get("level_seed"), "score": info.get("score", total), "return": total,
            "length": length}


class StopOnSignal:
    """While entered: SIGINT and SIGTERM set `signum` (recording stops after the step) instead of raising;
    off the main thread, where Python cannot take signals, it does nothing."""

    signum: int | None = None

    def __enter__(self):
        self._previous = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._ask_to_stop)
        return self

    def _ask_to_stop(self, signum, frame) -> None:
        self.signum = signum

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)


def _progress_bar(episodes: int, progress: bool):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=episodes, unit="episode", desc="recording", dynamic_ncols=True)


def _show(bar, played: list[dict[str, Any]]) -> None:
    if bar is None:
        return
    scores = [float(p["score"]) for p in played if p["score"] is not None]
    bar.set_postfix(steps=sum(p["length"] for p in played), score=f"{np.mean(scores):.2f}" if scores else "-",
                    refresh=False)
    bar.update(1)


# --- writing ---------------------------------------------------------------------------------------------------

def _write(collector, plan: _Plan, played: list[dict[str, Any]], interrupted: bool):
    """The dataset of the episodes written so far (the one there before, with plan.overwrite, replaced), with
    wadgym's metadata."""
    from wadgym.agents.evaluate import trained_kwargs

    if not played:  # stopped before the first episode ended: nothing to write
        raise KeyboardInterrupt
    levels = _level_range(trained_kwargs(plan.env_id, plan.env_kwargs))
    return write_dataset(
        collector, plan.dataset_id, plan.overwrite, env_id=plan.env_id, algorithm_name=plan.policy_info["name"],
        author=plan.author,
        description=plan.description or (
            f"{len(played)} episodes of {plan.env_id} on its {plan.levels} levels ({levels}) played by "
            f"{plan.policy_info['name']}; episode i reset with seed {plan.seed} + i. Recorded by `wadgym record`."),
        metadata={"env_kwargs": plan.env_kwargs, "levels": plan.levels, "level_seeds": levels,
                  "policy": plan.policy_info, "seed": plan.seed,
                  "episode_seeds": [plan.seed, plan.seed + len(played) - 1], "episodes_requested": plan.episodes,
                  "interrupted": interrupted, "step_infos": list(INFO_KEYS)})


def write_dataset(collector, dataset_id: str, overwrite: bool, *, env_id: str, algorithm_name: str, author: str,
                  description: str, metadata: dict[str, Any]):
    """The collector's finished episodes as the Minari dataset `dataset_id` (the one there before replaced with
    `overwrite`), its metadata["wadgym"] `metadata` with the env id, its score's name, wadgym's version and
    commit, and vizdoom's version. Returns Minari's dataset."""
    from minari.storage import get_dataset_path

    from wadgym import __version__
    from wadgym.agents.system import git_info, installed_versions
    from wadgym.envs.registration import score_name

    if overwrite and dataset_exists(dataset_id):
        shutil.rmtree(get_dataset_path(dataset_id))
    git = git_info()
    versions = installed_versions(("vizdoom",))
    with warnings.catch_warnings():  # author_email and eval_env: none to give (the env is the one recorded)
        warnings.filterwarnings("ignore", message=".*is set to None", category=UserWarning)
        dataset = collector.create_dataset(
            dataset_id=dataset_id, algorithm_name=algorithm_name, author=author,
            code_permalink=f"wadgym {__version__}, commit {git['commit'] or 'unknown'}"
                           f"{' (uncommitted changes)' if git['dirty'] else ''}",
            description=description,
            requirements=[f"wadgym=={__version__}", *(f"vizdoom=={v}" for v in versions.values() if v)],
        )
    dataset.storage.update_metadata({"wadgym": {
        "env_id": env_id, **metadata, "score_name": score_name(env_id), "wadgym_version": __version__,
        "commit": git["commit"], "uncommitted_changes": git["dirty"], "vizdoom_version": versions["vizdoom"]}})
    return dataset


def _level_range(env_kwargs: dict[str, Any]) -> str:
    """The level seeds a split's kwargs play, in words ("0..199", "10000 on")."""
    first, count = int(env_kwargs.get("start_level", 0)), int(env_kwargs.get("num_levels", 0))
    return f"{first}..{first + count - 1}" if count else f"{first} on"
