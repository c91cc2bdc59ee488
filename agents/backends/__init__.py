"""The backends a run trains with, as a table: a new backend is one entry of BACKENDS and its Trainer class.

    sb3       Stable-Baselines3 on this machine (agents.backends.sb3)                --backend sb3, the default
    rllib     Ray RLlib, here or on a cluster (agents.backends.rllib.train)          --backend rllib
    selfplay  one shared SB3 policy playing every player (agents.backends.selfplay)  a multi-agent env

This package is the backends' room too: sb3.py (with its training callback, callbacks.py, and the curriculum
callback, curriculum.py), selfplay.py (with slots.py, the multi-agent VecEnv) and rllib/. This module, the table,
imports none of them (wadgym.agents.config reads it), only names them.

A new run's backend is `backend_for(env_id, option)`: the entry that `--backend OPTION` picks for that kind of
env; a run folder's is `backend_of(settings)`, read from the keys of config.yml that the entry's `record`
names (`backend: rllib`, `selfplay: true`; neither: sb3, as in runs from before --backend). Each entry names
its Trainer class (lifecycle.Trainer, imported only when a run trains with it), which resolves the backend's
part of a new run's configuration, runs its sessions and evaluates a finished run; what the backend cannot do
(resume, a curriculum, --init-from, --pretrain, an algorithm: agents.algos.ALGOS) is refused before anything
starts, in the entry's own words.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from typing import Any


@dataclasses.dataclass(frozen=True)
class Backend:
    """One way of training a run.

    name: its key in BACKENDS. trainer: "module:Class" of its lifecycle.Trainer.
    option: the `--backend` value (TrainConfig.backend) that picks it. multi_agent: it trains the multi-agent
        envs (wadgym.envs.multi) and only those; the others train the single-agent ones.
    record: what config.yml holds to say a run is this backend's (beside the backend's own entries).
    curve_title: how the learning curve's title names the training, e.g. "PPO, RLlib".
    resume, curriculum, init_from, pretrain, explore: whether it resumes runs, trains a hyperparameter entry's
        curriculum, starts from another run's weights, clones a dataset first (agents.datasets.pretrain), adds an
        exploration bonus to the rewards (agents.exploration.explore).
    refusal: what it says of an option it cannot take: "{what}" is the option.
    """

    name: str
    trainer: str
    option: str
    curve_title: str
    refusal: str
    multi_agent: bool = False
    record: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    resume: bool = True
    curriculum: bool = True
    init_from: bool = True
    pretrain: bool = True
    explore: bool = True

    def trainer_class(self):
        """Its Trainer class (imported now: a backend's packages load only when a run trains with it)."""
        module, _, name = self.trainer.partition(":")
        return getattr(importlib.import_module(module), name)

    def refuse(self, what: str) -> ValueError:
        """The error for an option (or algorithm) this backend cannot take."""
        return ValueError(self.refusal.format(what=what))


BACKENDS: dict[str, Backend] = {
    "sb3": Backend("sb3", "wadgym.agents.backends.sb3:SB3Trainer", option="sb3", curve_title="PPO",
                   refusal="{what} is not supported by the sb3 backend"),
    "rllib": Backend("rllib", "wadgym.agents.backends.rllib.train:RLlibTrainer", option="rllib",
                     curve_title="PPO, RLlib",
                     record={"backend": "rllib"}, curriculum=False, init_from=False, pretrain=False,
                     explore=False,
                     refusal="{what} trains with the sb3 backend only, not --backend rllib"),
    "selfplay": Backend("selfplay", "wadgym.agents.backends.selfplay:SelfPlayTrainer", option="sb3", multi_agent=True,
                        curve_title="self-play PPO", record={"selfplay": True}, resume=False, pretrain=False,
                        explore=False,
                        refusal="{what} is not supported for multi-agent envs (self-play)"),
}

OPTIONS = tuple(dict.fromkeys(backend.option for backend in BACKENDS.values()))  # --backend's choices
DEFAULT_OPTION = "sb3"


def backend_for(env_id: str, option: str = DEFAULT_OPTION) -> Backend:
    """The backend of a new run of `env_id` that `--backend option` asks for; a ValueError when none trains
    that kind of env with that option."""
    from wadgym.envs.registration import MULTI_ENVS

    multi_agent = env_id in MULTI_ENVS
    for backend in BACKENDS.values():
        if backend.option == option and backend.multi_agent == multi_agent:
            return backend
    kind = "multi-agent" if multi_agent else "single-agent"
    fits = [f"--backend {b.option}" for b in BACKENDS.values() if b.multi_agent == multi_agent]
    if option not in OPTIONS:
        raise ValueError(f"backend={option!r} is not valid; choose {' or '.join(OPTIONS)}")
    raise ValueError(f"--backend {option} does not train {kind} envs such as {env_id}; use {' or '.join(fits)}")


def backend_of(settings: Mapping[str, Any]) -> Backend:
    """The backend of a run, from its configuration (config.yml): the entry whose `record` it holds."""
    for backend in sorted(BACKENDS.values(), key=lambda b: -len(b.record)):  # an entry recorded by nothing: last
        if all(settings.get(key) == value for key, value in backend.record.items()):
            return backend
    raise ValueError(f"no backend trains a run recorded as {dict(settings)}")  # unreachable while sb3 has no record
