"""Training and evaluating agents on wadgym's envs: `wadgym train` from Python.

    from wadgym.agents import TrainConfig, train

    result = train(TrainConfig(env="DoomItems-v1", timesteps=50_000))
    print(result.run_dir, result.timesteps, result.evaluation["trained"]["score_mean"])

`train(config)` does what `wadgym train` does with the same options (TrainConfig's fields are the
command's options; see wadgym.agents.config). Every run takes one path:

    train(config)                     a new run, or (config.resume) the next session of a run folder
      resolve_config(config)          the configuration as config.yml stores it; bad input is a ValueError
                                      before any folder or engine exists
      train_resolved(settings, config)  the run folder and its config.yml
        _run(run_dir, settings, ...)  with MLflow tracking when asked:
          lifecycle.train_session     one session of the run's backend (agents.backends: Stable-Baselines3,
                                      backends.sb3; Ray RLlib, backends.rllib; a multi-agent env: self-play,
                                      backends.selfplay), drawn from the tables of backends and algorithms
          the backend's evaluation    the trained agent beside a random one and the env's scripted reference
                                      (with a video of one episode); self-play: head to head

and returns a TrainResult. A resumed run skips resolve_config and train_resolved: its config.yml is its
configuration. A failure while training raises TrainingFailed (meta.json says why; the latest checkpoint
stays the point to resume from with TrainConfig(resume=run_dir)); Ctrl-C stops training at a checkpoint
(result.status "interrupted"). TrainConfig(track=True) logs the run to MLflow as well (agents.runs.tracking;
docs/tracking.md), and `train_resolved(settings, config)` trains a configuration resolved before (another
run's config.yml, as `wadgym train --reproduce` does).

Nothing heavy is imported until `train` is called: `import wadgym.agents` needs no training extra.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from wadgym.agents.config import RLlibConfig, TrainConfig
from wadgym.agents.runs.lifecycle import TrainingFailed, TrainResult

__all__ = ["RLlibConfig", "TrainConfig", "TrainResult", "TrainingFailed", "resolve_config", "train", "train_resolved"]


def train(config: TrainConfig) -> TrainResult:
    """Train as `config` says, into a new run folder (config.run_dir, else runs/<env>_<time>) or, with
    config.resume, on in that run's folder with its own configuration; then, when training finished and
    config.eval_episodes > 0, evaluate it (metrics.json; result.evaluation). With config.track (or resuming
    a tracked run) the run goes to MLflow as well (agents.runs.tracking), uploaded at the end whatever happened.

    Raises ValueError for bad input (nothing is created then), TrainingFailed when training fails."""
    from wadgym.agents import runfolder
    from wadgym.agents.backends import backend_of

    if not isinstance(config, TrainConfig):
        raise TypeError(f"train takes a TrainConfig, not {type(config).__name__}")
    if config.resume:
        run_dir = runfolder.require_run(config.resume)
        settings = runfolder.load_config(run_dir)
        if not backend_of(settings).resume:
            raise backend_of(settings).refuse("--resume")
        if config.restart_overridden():  # this session's restart settings; config.yml keeps the run's own
            settings = {**settings, "restart": config.restart_settings(settings.get("restart"))}
        return _run(run_dir, settings, config, resume=True)
    return train_resolved(resolve_config(config), config)  # bad input fails in resolve_config, before any folder


def train_resolved(settings: dict[str, Any], config: TrainConfig | None = None) -> TrainResult:
    """Train a new run whose configuration is already resolved: `settings` is what a run folder's config.yml
    stores (resolve_config's result, or another run's configuration to train again, as `wadgym train
    --reproduce` does), trained as `train` trains a new run. Of `config` (default TrainConfig()) only the
    options of the session are read: run_dir, save_freq, progress, eval_episodes, eval_seed, eval_video,
    rllib.address, track and tracking_uri; the settings give the rest.

    Raises ValueError for bad input (nothing is created then), TrainingFailed when training fails."""
    from wadgym.agents import runfolder
    from wadgym.agents.runs import lifecycle

    config = TrainConfig() if config is None else config
    if config.resume:
        raise ValueError("train_resolved trains a new run; resume a run with train(TrainConfig(resume=...))")
    if config.track:  # an unreachable store fails now, before the run folder exists
        from wadgym.agents.runs.tracking.store import check_new_run_store

        check_new_run_store(config.run_dir, config.tracking_uri)
    run_dir = Path(config.run_dir) if config.run_dir else runfolder.new_run_dir(settings["env"])
    lifecycle.prepare_run_dir(run_dir, settings)
    return _run(run_dir, settings, config, resume=False)


def _run(run_dir: Path, settings: dict[str, Any], config: TrainConfig, resume: bool) -> TrainResult:
    """A session of the run folder with the backend its settings name (agents.backends), tracked when asked
    (or when resuming a tracked run), then the backend's evaluation of a finished run."""
    from wadgym.agents.backends import backend_of
    from wadgym.agents.runs import lifecycle
    from wadgym.agents.runs.tracking.runs import begin
    from wadgym.agents.runs.tracking.store import TRACKING_FILE

    backend = backend_of(settings)
    tracker = None
    if config.track or (resume and (run_dir / TRACKING_FILE).is_file()):  # resuming a tracked run tracks it
        tracker = begin(run_dir, settings, config.tracking_uri, resume)
    try:
        options = lifecycle.SessionOptions(config.save_freq, config.progress, address=config.rllib.address,
                                           tracker=tracker)
        result = lifecycle.train_session(run_dir, settings, backend, options, resume)
        if result.status == "finished" and config.eval_episodes > 0:
            evaluation = backend.trainer_class().evaluate(run_dir, config.eval_episodes, config.eval_seed,
                                                          config.eval_video)
            result = dataclasses.replace(result, evaluation=evaluation)
        return result
    finally:
        if tracker is not None:  # the evaluation joins the MLflow run; a store gone away: a message, the folder whole
            tracker.end()


def resolve_config(config: TrainConfig) -> dict[str, Any]:
    """The whole configuration of a new run, as plain data (what its config.yml stores): env, seed,
    device, the resolved hyperparameters, the backend's entries, the engine restarts allowed (`restart`).
    Every value is checked, the env made once and closed (bad env kwargs, and each curriculum stage's, fail
    here), so that a ValueError comes before anything starts. The backend is the one TrainConfig.backend
    picks for the env (agents.backends); what it or the algorithm (agents.algos) cannot train is refused here.
    "algo" is the hyperparameters' (TrainConfig.algo, else the entry's), else ppo. With TrainConfig.pretrain
    (or an algorithm that clones, bc), "pretrain" describes its dataset, checked against the run
    (agents.datasets.pretrain); an algorithm without PPO steps (bc: cloning alone) sets n_timesteps to 0."""
    from wadgym.agents.algos import ALGOS, algo_of
    from wadgym.agents.backends import backend_for
    from wadgym.agents.config import resolve_hyperparams
    from wadgym.agents.system import select_device
    from wadgym.agents.vec import VEC_ENVS

    if config.vec_env is not None and config.vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env={config.vec_env!r} is not valid; choose one of {', '.join(VEC_ENVS)}")
    backend = backend_for(config.env, config.backend)
    hyperparams = resolve_hyperparams(config)
    restart = config.restart_settings()
    select_device(config.device)  # fail now, not after the envs started
    algo = ALGOS[algo_of(hyperparams)]
    for what, used, supported in ((f"algo={algo.name}", True, backend.name in algo.backends),
                                  ("a curriculum", bool(hyperparams.get("curriculum")), backend.curriculum),
                                  ("--init-from", config.init_from is not None, backend.init_from),
                                  ("--pretrain", config.pretrain is not None, backend.pretrain),
                                  ("--explore", bool(hyperparams.get("explore")), backend.explore)):
        if used and not supported:
            raise backend.refuse(what)
    if hyperparams.get("explore"):
        _check_explore(hyperparams["explore"], algo, config.env, hyperparams["env_kwargs"])
    pretrain = None
    if config.pretrain is not None or algo.clones:  # behaviour cloning first: its dataset checked (datasets.pretrain)
        from wadgym.agents.config import check_pretrain_options
        from wadgym.agents.datasets.pretrain import pretrain_settings

        check_pretrain_options(config.pretrain, config.pretrain_epochs, algo.name, None, None)
        pretrain = pretrain_settings(config.pretrain, config.pretrain_epochs, config.env, hyperparams, algo.name,
                                     config.timesteps is not None)
        if not algo.ppo_steps:  # cloning alone
            hyperparams["n_timesteps"] = 0
    own = backend.trainer_class().resolve(config, hyperparams)  # its entries; the env made once (and each stage's)
    init_from = None
    if config.init_from:  # another run's weights: its model found now (agents.runs.tracking.lineage)
        from wadgym.agents.runs.tracking.lineage import resolve_init_from

        init_from = resolve_init_from(os.fspath(config.init_from), config.tracking_uri)
    return {
        "env": config.env,
        "algo": algo.name,
        "seed": config.seed,
        "device": config.device,
        "hyperparams_file": config.hyperparams_file(),
        "hyperparams": hyperparams,
        **backend.record,
        **own,
        "restart": restart,
        **({"init_from": init_from} if init_from else {}),
        **({"pretrain": pretrain} if pretrain else {}),
    }


def _check_explore(setting: dict[str, Any], algo, env_id: str, env_kwargs: dict[str, Any]) -> None:
    """A ValueError, before any engine starts, where the exploration bonus `setting` (agents.exploration.explore) cannot
    train: an algorithm that takes none (its ALGOS entry: bc clones a dataset, no PPO step), or a kind that reads
    the player's position on an env that gives none (ViZDoom's own Gymnasium ids)."""
    from wadgym.agents.algos import ALGOS
    from wadgym.agents.exploration.explore import describe, needs_position
    from wadgym.agents.vec import make_env

    if not algo.explore:
        takes = " or ".join(name for name, other in ALGOS.items() if other.explore)
        raise ValueError(f"--explore {describe(setting)}: --algo {algo.name} trains no PPO step to add a bonus to; "
                         f"explore works with --algo {takes}")
    kinds = needs_position(setting)
    if kinds:
        env = make_env(env_id, env_kwargs)  # made, not reset
        try:
            if not hasattr(env.unwrapped, "player_position"):
                raise ValueError(f"--explore {', '.join(kinds)} reads the player's position (info['position']), "
                                 f"which {env_id} does not give; use e3b or rnd")
        finally:
            env.close()
