"""What a world-model recording is asked to do (WorldModelConfig, what `wadgym worldmodel` fills in) and every
check of it, made before any engine starts: `resolve` turns a config into a Plan or raises a ValueError of one
line naming what is wrong and what is valid."""

from __future__ import annotations

import dataclasses
import inspect
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wadgym.agents.datasets.worldmodel import shards
from wadgym.agents.datasets.worldmodel.images import normal_format, parse_format

NAMED_POLICIES = ("scripted", "random")
DEFAULT_RESOLUTION = "160x120"
RESOLUTIONS = ("160x120", "320x240", "640x480")  # the ones documented; any ViZDoom resolution the policy's
# observation is reachable from is accepted (wadgym.envs.frames)
MAX_ENVS = 64


@dataclasses.dataclass(frozen=True)
class WorldModelConfig:
    """A recording of `env` into the folder `out`.

    policies: (policy, weight) pairs, the weights summing to 1: each episode's policy is drawn from them (a
    policy is "scripted", "random" or a run folder made by `wadgym train` for `env`); epsilon: the chance that a
    step's action is replaced by a uniform random one (recorded per step). episodes / test_episodes: how many
    episodes of the training levels (those the policy trains on) and of the held-out test levels. resolution:
    the engine's screen ("160x120", "320x240", "640x480", ...), recorded in RGB whatever the policy observes;
    buffers: any of "depth", "labels", and one of "automap", "automap_seen"; variables: GameVariable names
    recorded per step. seed: episode i of a split is reset with seed + i. n_envs: engines stepped at once (the
    data does not depend on it). chunk: steps per stored chunk; shard_mb: a shard is closed after the episode
    that takes it past this many MB; png_level: the images' deflate level (1, default: the fastest that
    compresses; 0 stores them, about 5x the bytes for the least CPU; up to 9); image_format: how the colour
    images (rgb, automap) are stored: "png" (lossless, default) or "jpeg" / "jpeg:QUALITY" (1-95, default 95:
    about a fifth of PNG's CPU, slightly lossy; depth and labels stay PNG; images.py). resume: continue the unfinished
    recording in `out` (or re-record the damaged shards of a finished one). env_kwargs: the env kwargs before
    the split, instead of those the policy trains with (the shipped hyperparameters' or the run's)."""

    env: str
    out: str | os.PathLike
    policies: Sequence[tuple[Any, float]] = (("scripted", 1.0),)
    epsilon: float = 0.0
    episodes: int = 10
    test_episodes: int = 0
    resolution: str = DEFAULT_RESOLUTION
    buffers: Sequence[str] = ()
    variables: Sequence[str] = ()
    seed: int = 0
    n_envs: int = 2
    chunk: int = 32
    shard_mb: float = 64.0
    png_level: int = 1
    image_format: str = "png"
    deterministic: bool = False
    resume: bool = False
    progress: bool = False
    env_kwargs: dict[str, Any] | None = None


@dataclasses.dataclass
class Plan:
    """A checked config: the env kwargs of each split (split -> kwargs, those with episodes to record), the
    loaded policies (name -> "scripted", "random" or a SavedPolicy), what index.json stores of the settings (the
    recording's identity: the same settings, the same data), and the index found in `out` when resuming."""

    config: WorldModelConfig
    out: Path
    split_kwargs: dict[str, dict[str, Any]]
    episodes: dict[str, int]
    weights: list[float]
    policies: list[Any]
    policy_info: list[dict[str, Any]]
    settings: dict[str, Any]
    index: dict[str, Any] | None


def resolve(config: WorldModelConfig) -> Plan:
    """Every input checked, nothing started: a Plan, or a ValueError naming what is wrong."""
    from wadgym.agents.evaluate import split_kwargs

    _check_numbers(config)
    spec, env_class = _spec(config.env)
    weights = _check_mixture(config.policies)
    policies, infos, base_kwargs = [], [], None
    for policy, _ in config.policies:
        loaded, info, kwargs = _policy(policy, config.env, env_class, config.deterministic)
        if kwargs is not None and base_kwargs is not None and kwargs != base_kwargs:
            raise ValueError(f"policy {info['run']!r} trained with env kwargs {kwargs}, another run of the mixture "
                             f"with {base_kwargs}: a mixture's runs must observe the same env")
        base_kwargs = kwargs if kwargs is not None else base_kwargs
        policies.append(loaded)
        infos.append(info)
    if base_kwargs is None:
        base_kwargs = training_kwargs(config.env)
    if config.env_kwargs is not None:
        if not isinstance(config.env_kwargs, dict):
            raise ValueError(f"env_kwargs={config.env_kwargs!r}: give a dict of the env's keyword arguments")
        base_kwargs = dict(config.env_kwargs)
    buffers = _check_buffers(config.buffers)
    engine_buffers = _engine_buffers(buffers, base_kwargs)
    variables = _check_variables(config.variables)
    episodes = {"train": config.episodes, "test": config.test_episodes}
    kwargs = {}
    for split, count in episodes.items():
        if count:
            recorded = {**split_kwargs(config.env, base_kwargs, split), "render_resolution": config.resolution,
                        "render_mode": "rgb_array", "buffers": engine_buffers}
            kwargs[split] = recorded
    _check_resolution(config.resolution, spec, env_class, base_kwargs)
    _check_image_format(config.image_format, config.resolution)
    settings = {
        "env": config.env, "env_kwargs": kwargs, "episodes": episodes, "seed": config.seed,
        "policies": [{**info, "weight": weight} for info, weight in zip(infos, weights)], "epsilon": config.epsilon,
        "deterministic": bool(config.deterministic), "resolution": config.resolution, "buffers": list(buffers),
        "variables": list(variables), "chunk": config.chunk, "shard_mb": config.shard_mb,
        "png_level": config.png_level, "image_format": normal_format(config.image_format),
    }
    out = Path(config.out).expanduser()
    index = _check_out(out, settings, config.resume)
    return Plan(config=config, out=out, split_kwargs=kwargs, episodes=episodes, weights=weights, policies=policies,
                policy_info=infos, settings=settings, index=index)


def training_kwargs(env_id: str) -> dict[str, Any]:
    """The env kwargs `env_id` trains with (the shipped hyperparameters' env_kwargs, e.g. its 200 training
    levels; {} when it has no entry): what the train split plays for a scripted or random policy."""
    from wadgym.agents.config import DEFAULT_HYPERPARAMS, read_yaml

    entry = (read_yaml(DEFAULT_HYPERPARAMS) or {}).get(env_id) or {}
    return dict(entry.get("env_kwargs") or {})


def parse_policy(text: str) -> tuple[str, float | None]:
    """"NAME" or "NAME=WEIGHT" (the weight after the last "=", when it is a number) -> (NAME, weight or None)."""
    name, sep, weight = text.rpartition("=")
    if sep:
        try:
            return name, float(weight)
        except ValueError:
            pass
    return text, None


def mixture(specs: Sequence[str]) -> list[tuple[str, float]]:
    """`--policy` values ("NAME" or "NAME=WEIGHT") as (policy, weight) pairs: one policy alone weighs 1; a
    mixture must weigh each of its policies (resolve checks that they sum to 1)."""
    parsed = [parse_policy(s) for s in specs] or [("scripted", None)]
    if len(parsed) == 1 and parsed[0][1] is None:
        return [(parsed[0][0], 1.0)]
    unweighted = [name for name, weight in parsed if weight is None]
    if unweighted:
        raise ValueError(f"policy mixture: give every policy a weight (NAME=WEIGHT, the weights summing to 1); "
                         f"{', '.join(map(repr, unweighted))} has none")
    return [(name, float(weight)) for name, weight in parsed]


# --- the checks ----------------------------------------------------------------------------------------------------

def _whole(name: str, value, lo: int, hi: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name}={value!r}: must be a whole number from {lo}" + (f" to {hi}" if hi else " on"))


def _check_numbers(config: WorldModelConfig) -> None:
    _whole("episodes", config.episodes, 0)
    _whole("test_episodes", config.test_episodes, 0)
    if config.episodes + config.test_episodes == 0:
        raise ValueError("episodes=0 and test_episodes=0: nothing to record")
    _whole("seed", config.seed, 0)
    _whole("n_envs", config.n_envs, 1, MAX_ENVS)
    _whole("chunk", config.chunk, 1, 4096)
    if isinstance(config.png_level, bool) or not isinstance(config.png_level, int) or not 0 <= config.png_level <= 9:
        raise ValueError(f"png_level={config.png_level!r}: must be a whole number from 0 (stored) to 9")
    if isinstance(config.shard_mb, bool) or not isinstance(config.shard_mb, (int, float)) or \
            not math.isfinite(config.shard_mb) or config.shard_mb <= 0:
        raise ValueError(f"shard_mb={config.shard_mb!r}: must be a number above 0 (MB a shard reaches)")
    if isinstance(config.epsilon, bool) or not isinstance(config.epsilon, (int, float)) or \
            not 0 <= config.epsilon <= 1:
        raise ValueError(f"epsilon={config.epsilon!r}: must be a number from 0 to 1 (the chance of a random action)")


def _spec(env_id: str):
    """The registered spec of a single-agent wadgym id and its env class (a DoomEnv subclass)."""
    import gymnasium as gym
    from gymnasium.envs.registration import load_env_creator

    from wadgym.agents.vec import register_envs
    from wadgym.envs.doom_env import DoomEnv
    from wadgym.envs.registration import ENVS, MULTI_ENVS

    if not isinstance(env_id, str):
        raise ValueError(f"env {env_id!r}: give a registered env id, e.g. DoomItems-v1")
    if env_id in MULTI_ENVS:
        raise ValueError(f"{env_id} is a multi-agent env; world-model datasets record single-agent ids")
    register_envs(env_id)
    if env_id not in gym.registry:
        raise ValueError(f"unknown env {env_id!r}; wadgym's envs: {', '.join(sorted(ENVS))}")
    spec = gym.spec(env_id)
    creator = load_env_creator(spec.entry_point) if isinstance(spec.entry_point, str) else spec.entry_point
    if not (isinstance(creator, type) and issubclass(creator, DoomEnv)):
        raise ValueError(f"{env_id} is not one of wadgym's generated-level envs; valid: {', '.join(sorted(ENVS))}")
    return spec, creator


def _check_mixture(policies) -> list[float]:
    if isinstance(policies, (str, os.PathLike)) or not isinstance(policies, Sequence) or not policies:
        raise ValueError(f"policies={policies!r}: give (policy, weight) pairs, e.g. [('scripted', 0.8), "
                         f"('random', 0.2)]")
    weights, names = [], []
    for pair in policies:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"policies: {pair!r} is not a (policy, weight) pair")
        policy, weight = pair
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 1:
            raise ValueError(f"policy {str(policy)!r}: weight {weight!r} must be a number from 0 to 1")
        names.append(str(policy))
        weights.append(float(weight))
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"policy mixture: {', '.join(map(repr, duplicates))} given twice; give each policy once")
    if abs(sum(weights) - 1) > 1e-6:
        raise ValueError(f"policy mixture: the weights {' + '.join(f'{w:g}' for w in weights)} sum to "
                         f"{sum(weights):g}, not 1")
    return weights


def _has_scripted(env_class) -> bool:
    from wadgym.envs.doom_env import DoomEnv

    return env_class.reference_action is not DoomEnv.reference_action


def _policy(policy, env_id: str, env_class, deterministic: bool):
    """(the policy as the recorder plays it, what the dataset records of it, the env kwargs it trained with or
    None); a ValueError when it cannot play `env_id`."""
    if isinstance(policy, str) and policy in NAMED_POLICIES:
        if policy == "scripted" and not _has_scripted(env_class):
            raise ValueError(f"policy 'scripted': {env_id} has no scripted reference policy (reference_action); "
                             f"use 'random' or a run folder")
        name = ("the env's scripted reference (reference_action)" if policy == "scripted"
                else "uniform random actions, drawn from the episode's generator")
        return policy, {"kind": policy, "name": name}, None
    if not isinstance(policy, (str, os.PathLike)) and not hasattr(policy, "make_vec_env"):
        raise ValueError(f"policy {policy!r}: expected 'scripted', 'random' or a run folder made by `wadgym train`")
    saved = _saved_policy(policy, env_id, deterministic)
    from wadgym.agents.runfolder import read_json

    meta = {}
    if (saved.run / "meta.json").is_file():
        try:
            meta = read_json(saved.run / "meta.json")
        except (OSError, ValueError):
            meta = {}
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    from wadgym.agents.datasets.worldmodel.shards import sha256_of

    info = {"kind": "run", "name": f"the {saved.config.get('algo', 'ppo')} policy of run {saved.run}",
            "run": str(saved.run), "model": str(saved.model_file),
            "model_sha256": sha256_of(saved.model_file) if saved.model_file.is_file() else None,
            "commit": git.get("commit", meta.get("commit")), "deterministic": bool(deterministic)}
    return saved, info, saved.env_kwargs


def _saved_policy(policy, env_id: str, deterministic: bool):
    """The SavedPolicy `policy` names: trained on `env_id`, a feed-forward Stable-Baselines3 policy whose action
    probabilities the recorder can draw from per episode."""
    if hasattr(policy, "make_vec_env"):
        saved = policy
    else:
        if not (Path(policy) / "config.yml").is_file():
            raise ValueError(f"policy {str(policy)!r}: unknown policy; valid: 'scripted', 'random' or a run folder "
                             f"made by `wadgym train` (one with config.yml)")
        from wadgym.agents import runfolder
        from wadgym.agents.config import run_backend

        trained = runfolder.load_config(Path(policy))
        if run_backend(trained).multi_agent:
            raise ValueError(f"policy {str(policy)!r}: a self-play run plays a multi-agent env; world-model "
                             f"datasets record single-agent ids")
        if trained["env"] != env_id:  # before its model loads
            raise ValueError(f"policy {str(policy)!r} trained on {trained['env']}, not {env_id}; record "
                             f"{trained['env']} with it")
        from wadgym.agents.policies.policy import SavedPolicy

        saved = SavedPolicy(policy, deterministic=deterministic)
    if saved.env_id != env_id:
        raise ValueError(f"policy {str(saved.run)!r} trained on {saved.env_id}, not {env_id}; record "
                         f"{saved.env_id} with it")
    if saved.backend.name == "rllib" or not hasattr(getattr(saved.model, "policy", None), "get_distribution"):
        raise ValueError(f"policy {str(saved.run)!r}: the recorder draws from a Stable-Baselines3 policy's action "
                         f"probabilities; this run's model has none (an RLlib run)")
    if saved.recurrent:
        raise ValueError(f"policy {str(saved.run)!r} is recurrent (RecurrentPPO): the world-model recorder plays "
                         f"feed-forward policies; record it with `wadgym record` (Minari)")
    return saved


def _engine_buffers(buffers: tuple[str, ...], env_kwargs: dict[str, Any]) -> list[str]:
    """The buffers the engines render: those recorded, then those the policies' env kwargs ask for (a run trained
    on the screen with buffers as more channels sees them), each once; a ValueError where the two ask for both
    automaps (the engine has one)."""
    from wadgym.envs.runtime.engine import automap_of

    own = list(env_kwargs.get("buffers") or [])
    engine = [*buffers, *(name for name in own if name not in buffers)]
    try:
        automap_of(engine)
    except ValueError:
        raise ValueError(f"buffers={list(buffers)!r}: the policies observe buffers={own!r}, and the engine has one "
                         "automap; record the one they observe or none") from None
    return engine


def _check_buffers(buffers) -> tuple[str, ...]:
    from wadgym.envs.doom_env import BUFFERS, check_names
    from wadgym.envs.runtime.engine import automap_of

    buffers = check_names("buffers", list(buffers) if isinstance(buffers, tuple) else buffers, BUFFERS, "buffers")
    automap_of(buffers)
    if len(set(buffers)) != len(buffers):
        raise ValueError(f"buffers={list(buffers)!r}: each buffer once")
    return buffers


def _check_variables(variables) -> tuple[str, ...]:
    from wadgym.envs.doom_env import GAME_VARIABLES, check_names

    return check_names("variables", list(variables) if isinstance(variables, tuple) else variables,
                       GAME_VARIABLES, "GameVariable names")


def _check_resolution(resolution: str, spec, env_class, base_kwargs: dict[str, Any]) -> None:
    """The engine resolution must be ViZDoom's and reach the policy's observation by f x f blocks."""
    from wadgym.envs.doom_env import DoomEnv
    from wadgym.envs.frames import ENGINE_RESOLUTIONS, parse_engine_resolution, valid_observation_sizes

    kwargs = {**(spec.kwargs or {}), **base_kwargs}
    observed = tuple(kwargs.get("resolution", inspect.signature(DoomEnv.__init__).parameters["resolution"].default))
    reaching = [r for r in ENGINE_RESOLUTIONS
                if observed in valid_observation_sizes(*(int(v) for v in r.split("x")))]
    if not isinstance(resolution, str) or resolution.lower() not in ENGINE_RESOLUTIONS:
        raise ValueError(f"resolution={resolution!r} is not a ViZDoom resolution; valid here: {', '.join(reaching)}")
    width, height, _ = parse_engine_resolution(resolution.lower())
    if observed not in valid_observation_sizes(width, height):
        raise ValueError(f"resolution={resolution!r}: the policy observes {observed[1]}x{observed[0]} frames, "
                         f"which {resolution} does not reach by whole blocks; valid here: {', '.join(reaching)}")


def _check_image_format(image_format, resolution: str) -> None:
    """JPEG's 8x8 blocks must not straddle two frames of a chunk's strip: the frame's height a multiple of 8."""
    name, _ = parse_format(image_format)
    height = int(resolution.lower().split("x")[1])
    if name == "jpeg" and height % 8:
        raise ValueError(f"image_format={image_format!r} at resolution {resolution}: JPEG needs a frame height that "
                         f"is a multiple of 8 (e.g. 160x120, 320x240, 640x480); or give image_format='png'")


def _check_out(out: Path, settings: dict[str, Any], resume: bool) -> dict[str, Any] | None:
    """The folder `out`: new or empty (None), or, with resume, an unfinished recording of these very settings
    (its index). Anything else is refused."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"out={str(out)!r} is a file; give a folder for the dataset")
    if not out.exists() or not any(out.iterdir()):
        if resume:
            raise ValueError(f"--resume: {out} holds no recording to resume; leave --resume out to start one")
        return None
    if not (out / shards.INDEX).is_file():
        raise ValueError(f"{out} is not empty and holds no wadgym world-model dataset; choose an empty or new folder")
    index = shards.read_index(out)
    recorded = {"image_format": "png", **(index.get("settings") or {})}  # format 1 recorded PNG images only
    if recorded != settings:
        differing = sorted(k for k in set(settings) | set(recorded) if settings.get(k) != recorded.get(k))
        raise ValueError(f"{out} holds another dataset (settings that differ from this command's: "
                         f"{', '.join(differing)}); choose another folder")
    if index.get("complete") and not (resume and shards.damaged_shards(out, index)):
        raise ValueError(f"{out} holds this dataset already, complete ({len(index.get('shards', []))} shards, "
                         f"none damaged); nothing to record")
    if not resume:
        raise ValueError(f"{out} holds an unfinished recording of this command: add --resume to continue it")
    return index
