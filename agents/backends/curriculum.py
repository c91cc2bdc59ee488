"""A curriculum over a family's own difficulty parameters: the training envs' kwargs change at step thresholds.

A hyperparameter entry's `curriculum` is a list of stages, each `{until: STEPS, env_kwargs: {...}}` in
rising order of `until`; until a stage's step count the training envs play with its env_kwargs merged over
the entry's own, and from the last stage's `until` on with the entry's own. For example, mazes of 2 x 2
rooms first, then 3 x 3, then the id's own:

    curriculum:
      - {until: 200000, env_kwargs: {rows: 2, cols: 2}}
      - {until: 400000, env_kwargs: {rows: 3, cols: 3}}

The levels a run is tested on are never a stage's: evaluation plays the entry's own env_kwargs (the run's
config), and a stage may not name the level range (num_levels, start_level) nor change what the policy
sees or does (its observations and actions must stay those of the entry's own env).

`CurriculumCallback` switches stages between rollouts (after an update, before the next collection): it
builds the next stage's envs, carries the VecNormalize statistics over, starts a fresh Monitor file and
closes the old envs; a resumed run starts in the stage its steps are in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

# The schedule's check is wadgym.agents.config's (a hyperparameter entry's `curriculum` is checked with the rest).
from wadgym.agents.config import LEVEL_KWARGS  # noqa: F401  (the env kwargs a stage may not set)
from wadgym.agents.config import check_curriculum as check_schedule


def env_kwargs_at(hp: dict[str, Any], steps: int) -> dict[str, Any]:
    """The training envs' kwargs at `steps`: the first stage whose `until` lies beyond, merged over the
    entry's own; the entry's own once past every stage (or without a curriculum)."""
    own = dict(hp.get("env_kwargs") or {})
    for stage in check_schedule(hp.get("curriculum")):
        if steps < stage["until"]:
            return {**own, **stage["env_kwargs"]}
    return own


def stage_at(hp: dict[str, Any], steps: int) -> int:
    """The index of the stage at `steps` (len(stages): the entry's own kwargs)."""
    stages = check_schedule(hp.get("curriculum"))
    return next((k for k, stage in enumerate(stages) if steps < stage["until"]), len(stages))


def check_stages(hp: dict[str, Any], interface: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Check each curriculum stage before training: `interface(env_kwargs)` makes an env (or a multi-agent
    game) with those kwargs, closes it and returns what every stage must keep as the entry's own kwargs give
    it, by name (observations, actions, ...). A bad kwarg, or a stage that changes one of those, is a
    ValueError naming the stage."""
    own = interface(hp.get("env_kwargs") or {})
    for k, stage in enumerate(check_schedule(hp.get("curriculum"))):
        where = f"curriculum[{k}] (until {stage['until']})"
        try:
            theirs = interface(env_kwargs_at(hp, stage["until"] - 1))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if theirs != own:
            raise ValueError(f"{where}: env kwargs {stage['env_kwargs']} give {_listed(theirs)}; the entry's own "
                             f"give {_listed(own)}: a stage may change the task, not the {_joined(list(own))}")


def _listed(parts: dict[str, Any]) -> str:
    """'observations Box(...), actions Discrete(5) and 2 players': a count before its name, a space after."""
    return _joined([f"{value} {name}" if isinstance(value, int) else f"{name} {value}"
                    for name, value in parts.items()])


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def check_stage_envs(env_id: str, hp: dict[str, Any]) -> None:
    """check_stages for a single-agent env: each stage's env observes and acts as the entry's own does."""
    from wadgym.agents.vec import make_env

    def interface(env_kwargs: dict[str, Any]) -> dict[str, Any]:
        env = make_env(env_id, env_kwargs)
        try:
            return {"observations": env.observation_space, "actions": env.action_space}
        finally:
            env.close()

    check_stages(hp, interface)


class CurriculumCallback(BaseCallback):
    """Switches the model's training envs to the stage its steps are in, between rollouts.

    `make_envs(env_kwargs, stage)` returns (vec env, first observations) as agents.vec.make_vec_env does;
    `stage` is the stage the model's current envs play (see stage_at)."""

    def __init__(self, hp: dict[str, Any], make_envs: Callable[[dict[str, Any], int], tuple[Any, Any]], stage: int):
        super().__init__()
        self.hp = hp
        self.make_envs = make_envs
        self.stage = stage
        self.switches: list[tuple[int, int]] = []   # (steps, stage) of each switch made

    def _on_training_start(self) -> None:
        self._switch_if_due()

    def _on_rollout_end(self) -> None:
        # The rollout's returns and advantages are computed: the next collection may start on new envs
        # (none follows the last rollout).
        if self.model.num_timesteps < self.model._total_timesteps:
            self._switch_if_due()

    def _on_step(self) -> bool:
        return True

    def _switch_if_due(self) -> None:
        import copy

        import numpy as np

        from wadgym.agents.vec import close_vec_env

        due = stage_at(self.hp, self.model.num_timesteps)
        if due == self.stage:
            return
        old = self.model.get_env()
        venv, observations = self.make_envs(env_kwargs_at(self.hp, self.model.num_timesteps), due)
        old_norm, new_norm = self.model.get_vec_normalize_env(), None
        try:
            if old_norm is not None:
                from stable_baselines3.common.vec_env import unwrap_vec_normalize

                new_norm = unwrap_vec_normalize(venv)
                new_norm.obs_rms, new_norm.ret_rms = copy.deepcopy(old_norm.obs_rms), copy.deepcopy(old_norm.ret_rms)
                observations = new_norm.normalize_obs(new_norm.get_original_obs())
            self.model.set_env(venv, force_reset=False)
        except BaseException:
            close_vec_env(venv)
            raise
        close_vec_env(old)
        # As agents.backends.sb3 does for a new model: the stage's first observations, every env at an episode start.
        self.model._last_obs = observations
        self.model._last_episode_starts = np.ones(venv.num_envs, dtype=bool)
        if new_norm is not None:
            self.model._last_original_obs = new_norm.get_original_obs()
        self.switches.append((self.model.num_timesteps, due))
        self.stage = due
        print(f"curriculum: stage {due} from step {self.model.num_timesteps} "
                  f"(env kwargs {env_kwargs_at(self.hp, self.model.num_timesteps)})", flush=True)
