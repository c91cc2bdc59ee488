"""Training configuration in rl-baselines3-zoo's format: per-env-id hyperparameters in YAML.

A resolved configuration is plain data (the YAML values, overrides applied) and is what a run
folder stores; `ppo_kwargs` turns it into the objects PPO's constructor takes.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import yaml

from wadgym.envs.registration import DEFAULT_ENV  # noqa: F401  (the env `wadgym train` trains by default)

DEFAULT_HYPERPARAMS = Path(__file__).parent / "hyperparams" / "ppo.yml"

# Keys the zoo (and wadgym) read themselves; every other key goes to PPO(...).
ZOO_KEYS = {
    "n_envs": "number of parallel environments (stepped as `wadgym train --vec-env` says)",
    "n_timesteps": "total environment steps to train",
    "policy": "SB3 policy name, e.g. CnnPolicy",
    "frame_stack": "number of frames stacked (VecFrameStack); 0 or 1 for none",
    "normalize": "VecNormalize: true, false, or a dict string such as \"{'norm_obs': False, 'norm_reward': True}\"",
    "env_kwargs": "keyword arguments for gym.make (part of the resolved config)",
    "torch_threads": "torch.set_num_threads on CPU ('auto' keeps torch's default)",
}

# PPO arguments a config may not set: wadgym supplies them from the command line or the run.
RESERVED_PPO_ARGS = {"self", "env", "policy", "device", "seed", "tensorboard_log", "verbose", "_init_setup_model"}


def valid_keys() -> dict[str, str]:
    """Every key a hyperparameter entry may hold, with a short description."""
    from stable_baselines3 import PPO

    keys = dict(ZOO_KEYS)
    for name in inspect.signature(PPO.__init__).parameters:
        if name not in RESERVED_PPO_ARGS:
            keys[name] = "PPO argument"
    return keys


def load_hyperparams(env_id: str, path: str | Path | None = None) -> dict[str, Any]:
    """The entry for `env_id` in the YAML file (the default one when `path` is None)."""
    path = Path(path) if path is not None else DEFAULT_HYPERPARAMS
    if not path.is_file():
        raise ValueError(f"hyperparameter file {str(path)!r} does not exist")
    with open(path) as f:
        table = yaml.safe_load(f) or {}
    if not isinstance(table, dict):
        raise ValueError(f"{path}: expected a mapping of env id -> hyperparameters")
    if env_id not in table:
        raise ValueError(
            f"{path}: no hyperparameters for env {env_id!r}; env ids in this file: {', '.join(sorted(table))}"
        )
    entry = dict(table[env_id] or {})
    check_keys(entry, where=f"{path} [{env_id}]")
    return entry


def check_keys(entry: dict[str, Any], where: str) -> None:
    unknown = sorted(set(entry) - set(valid_keys()))
    if unknown:
        raise ValueError(
            f"{where}: unknown hyperparameter(s) {', '.join(unknown)}; valid keys: {', '.join(sorted(valid_keys()))}"
        )


def resolve(
    env_id: str,
    hyperparams_path: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """YAML entry for `env_id` with command-line overrides applied; env kwargs merged over the YAML's."""
    hp = load_hyperparams(env_id, hyperparams_path)
    overrides = dict(overrides or {})
    check_keys(overrides, where="--hp")
    merged_env_kwargs = {**(hp.get("env_kwargs") or {}), **(overrides.pop("env_kwargs", None) or {}), **(env_kwargs or {})}
    hp.update(overrides)
    hp["env_kwargs"] = merged_env_kwargs
    hp.setdefault("policy", "CnnPolicy")
    hp.setdefault("n_envs", 1)
    hp.setdefault("frame_stack", 0)
    hp.setdefault("normalize", False)
    if "n_timesteps" not in hp:
        raise ValueError(f"hyperparameters for {env_id!r} need n_timesteps (or pass --timesteps)")
    hp["n_timesteps"] = int(float(hp["n_timesteps"]))
    hp["n_envs"] = int(hp["n_envs"])
    if hp["n_envs"] < 1:
        raise ValueError(f"n_envs must be >= 1, got {hp['n_envs']}")
    return hp


def schedule(value: Any) -> Any:
    """zoo schedules: 'lin_2.5e-4' -> a linear decay from 2.5e-4 to 0; numbers pass through."""
    if isinstance(value, str):
        if not value.startswith("lin_"):
            raise ValueError(f"schedule {value!r}: expected a number or 'lin_<start>' (e.g. lin_2.5e-4)")
        start = float(value[len("lin_"):])
        return LinearSchedule(start)
    return float(value)


class LinearSchedule:
    """progress_remaining (1 -> 0) times the start value; a class so a saved model pickles it by name."""

    def __init__(self, start: float):
        self.start = start

    def __call__(self, progress_remaining: float) -> float:
        return progress_remaining * self.start

    def __repr__(self) -> str:
        return f"lin_{self.start}"


def parse_policy_kwargs(text: Any) -> dict[str, Any]:
    """zoo-style policy_kwargs: a Python dict expression, where names of torch.nn and of registered
    feature extractors (e.g. SmallCNN) are in scope."""
    if text is None:
        return {}
    if isinstance(text, dict):
        kwargs = dict(text)
    else:
        import torch.nn as nn

        from wadgym.agents.features import EXTRACTORS

        scope = {"dict": dict, "nn": nn, **EXTRACTORS}
        try:
            kwargs = eval(str(text), {"__builtins__": {}}, scope)  # zoo habit: policy_kwargs is a dict expression
        except Exception as exc:
            raise ValueError(
                f"policy_kwargs {text!r} is not a valid dict expression ({exc}); names in scope: {', '.join(sorted(scope))}"
            ) from None
    extractor = kwargs.get("features_extractor_class")
    if isinstance(extractor, str):
        from wadgym.agents.features import get_extractor

        kwargs["features_extractor_class"] = get_extractor(extractor)
    return kwargs


def ppo_kwargs(hp: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments PPO(...) gets from a resolved config (schedules and policy_kwargs built)."""
    kwargs = {k: v for k, v in hp.items() if k not in ZOO_KEYS}
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        if kwargs.get(key) is not None:
            kwargs[key] = schedule(kwargs[key])
    if "policy_kwargs" in kwargs:
        kwargs["policy_kwargs"] = parse_policy_kwargs(kwargs["policy_kwargs"])
    return kwargs


def normalize_kwargs(hp: dict[str, Any]) -> dict[str, Any] | None:
    """VecNormalize kwargs for the zoo's `normalize` key, or None when off."""
    value = hp.get("normalize", False)
    if isinstance(value, str):
        value = eval(value, {"__builtins__": {}}, {"True": True, "False": False})  # zoo habit: a dict string
    if value is True:
        return {}
    if not value:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"normalize: expected true, false or a dict, got {value!r}")
    return dict(value)
