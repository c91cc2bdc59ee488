"""Train PPO or RecurrentPPO (Stable-Baselines3, sb3-contrib; agents.algos) into a run folder: the SB3
backend of wadgym.agents.train.

The configuration is resolved before (wadgym.agents.resolve_config: what config.yml stores); the session's
life (command line, meta.json, resume point, failure message, learning curve) is wadgym.agents.runs.lifecycle's
train_session, which drives `SB3Trainer` (its lifecycle.Trainer: the model, its envs and callbacks).
Ctrl-C saves a checkpoint and a resumed run continues it; if an env fails, training stops, meta.json
records the error and the latest checkpoint stays the point to resume from.

The envs are stepped by wadgym's vector env (one process, threads stepping the envs) unless the
configuration's vec_env says otherwise; config.yml records which, and a resumed run keeps it.
"""

from __future__ import annotations

import dataclasses
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wadgym.agents.runs.lifecycle import SessionOptions, TrainResult

if TYPE_CHECKING:
    from wadgym.agents.config import TrainConfig


def train(run_dir: Path, config: dict[str, Any], resume: bool = False, save_freq: int = 25_000,
          progress: bool = True, callbacks: Sequence[Any] = ()) -> TrainResult:
    """Train (or resume) the run in `run_dir` (its resolved configuration `config`); writes model, meta,
    the session's Monitor file (every episode) and learning curve, a checkpoint every `save_freq` steps.
    `callbacks`: more SB3 callbacks for model.learn (experiment tracking: runs.tracking.runs.Tracker.sb3_callback).
    A new run whose configuration has init_from (agents.runs.tracking.lineage.resolve_init_from) starts from that run's
    weights; one with pretrain (agents.datasets.pretrain) first clones its dataset's actions (algo bc: and stops there).
    An error while training raises lifecycle.TrainingFailed once the envs are closed and meta.json says why."""
    from wadgym.agents.backends import BACKENDS
    from wadgym.agents.runs.lifecycle import train_session

    options = SessionOptions(save_freq, progress, callbacks=callbacks)
    return train_session(Path(run_dir), config, BACKENDS["sb3"], options, resume)


class SB3Trainer:
    """The SB3 backend (agents.backends; a lifecycle.Trainer). A session: the model (new, or the checkpoint it
    resumes) on fresh vectorised envs, learning with RunCallback (checkpoints, signals, restarts), the
    curriculum's callback and the session's own callbacks. agents.backends.selfplay's trainer is this one on
    multi-agent games."""

    @classmethod
    def resolve(cls, config: TrainConfig, hyperparams: dict[str, Any]) -> dict[str, Any]:
        """config.yml's vec_env; the env made once and closed (bad env kwargs fail here, not in a worker), and
        each curriculum stage's."""
        from wadgym.agents.backends.curriculum import check_stage_envs
        from wadgym.agents.vec import make_env

        make_env(config.env, hyperparams["env_kwargs"]).close()
        if hyperparams.get("curriculum"):
            check_stage_envs(config.env, hyperparams)
        return {"vec_env": config.vec_env or "thread"}

    @classmethod
    def evaluate(cls, run_dir: Path, episodes: int, seed: int, video: bool) -> dict[str, Any]:
        """Trained, random and scripted on test and training levels (lifecycle.evaluate_run)."""
        from wadgym.agents.runs.lifecycle import evaluate_run

        return evaluate_run(run_dir, episodes, seed, video)["eval"]

    def __init__(self, run_dir: Path, config: dict[str, Any], saved: Path | None, options: SessionOptions):
        from wadgym.agents.system import select_device

        self.run_dir, self.config, self.saved, self.options = run_dir, config, saved, options
        self.hp = config["hyperparams"]
        self.device = select_device(config["device"])
        self.model = self.venv = None  # venv: the envs made before the model (closed with it)
        self.callback = None  # the RunCallback
        self.callbacks: list[Any] = []  # the others: the session's, the curriculum's

    def describe(self) -> str:
        from wadgym.agents.algos import algo_class, algo_of

        hp, config = self.hp, self.config
        return (f"{'resuming' if self.saved is not None else 'training'} {algo_class(algo_of(config)).__name__} on "
                f"{config['env']}: {hp['n_timesteps']} steps, {hp['n_envs']} envs, device {self.device}, "
                f"seed {config['seed']}; run folder {self.run_dir}")

    def __enter__(self) -> SB3Trainer:
        import torch

        print(self.describe(), flush=True)
        if self.device == "cpu" and self.hp.get("torch_threads", "auto") != "auto":
            torch.set_num_threads(int(self.hp["torch_threads"]))
        self._failure_dir = tempfile.TemporaryDirectory(prefix="wadgym-workers-")  # env workers' failure reports
        self.failure_dir = self._failure_dir.name
        return self

    def __exit__(self, *exc_info) -> None:
        from wadgym.agents.vec import close_vec_env

        envs = self.model.get_env() if self.model is not None else self.venv  # a curriculum's: the stage's
        try:  # whatever happened, no worker or engine outlives this (workers ignore SIGTERM: close them)
            if envs is not None:
                close_vec_env(envs)
        finally:
            self._failure_dir.cleanup()

    @property
    def steps(self) -> int:
        return self.model.num_timesteps if self.model is not None else 0

    @property
    def stopped(self) -> bool:
        return self.callback is not None and self.callback.stop_signal is not None

    def start(self, meta: dict[str, Any], session: dict[str, Any]) -> None:
        """The model on its envs, behaviour cloning of a new run's dataset first (agents.datasets.pretrain), then the
        callbacks: RunCallback, the session's own, the tracker's, the exploration bonus's and the curriculum's."""
        from wadgym.agents.backends.callbacks import RunCallback
        from wadgym.agents.restart import RestartPolicy

        self.model = self.make_model(session)
        if self.config.get("pretrain") and self.saved is None:
            from wadgym.agents.datasets.pretrain import behaviour_clone

            session["pretrain"] = behaviour_clone(self.model, self.config, self.run_dir)
        self.callback = RunCallback(self.run_dir, self.options.save_freq,
                                    restarts=RestartPolicy.from_config(self.config.get("restart")))
        explore = _explore_callback(self.config, self.saved)  # the exploration bonus (exploration.bonuses), if any
        self.callback.explore = explore  # its state is saved with each checkpoint
        self.callbacks = [*self.options.callbacks, *self.tracking_callbacks(), *([explore] if explore else []),
                          *self.curriculum_callbacks()]
        return None

    def make_model(self, session: dict[str, Any]):
        """A new model (the run's algorithm) on fresh envs, or the checkpoint it resumes, with the update
        settings applied (the session records them: bf16 and layout choices)."""
        model, settings = _make_model(self.run_dir, self.config, self.device, self.saved, self.failure_dir)
        session["update_settings"] = dataclasses.asdict(settings)
        return model

    def curriculum_callbacks(self) -> list[Any]:
        """The CurriculumCallback of a run whose hyperparameters hold a curriculum (agents.backends.curriculum)."""
        curriculum = _curriculum_callback(self.run_dir, self.config, self.failure_dir,
                                          _saved_steps(self.run_dir, self.saved, self.hp))
        return [curriculum] if curriculum is not None else []

    def tracking_callbacks(self) -> list[Any]:
        """The MLflow tracker's SB3 callback, when the session is tracked."""
        return [self.options.tracker.sb3_callback()] if self.options.tracker is not None else []

    def learn(self) -> dict[str, str] | None:
        return _learn(self.model, self.callback, self.hp["n_timesteps"] - self.model.num_timesteps,
                      self.options.progress, self.failure_dir, self.callbacks)

    def save(self, final: bool) -> None:
        _save_results(self.run_dir, self.model, self.callback, final)


def _learn(model, callback, steps: int, progress_bar: bool, failure_dir: str,
           callbacks: Sequence[Any] = ()) -> dict[str, str] | None:
    """PPO.learn for `steps` more steps; None when it ends (done, or stopped by a signal), else the
    failure: {"error": its last line, "traceback": the env worker's when a worker failed, else ours}."""
    from wadgym.agents.vec import worker_deaths, worker_failures

    callback.install_signal_handlers()
    try:
        if steps > 0:
            model.learn(steps, callback=[callback, *callbacks], progress_bar=progress_bar, tb_log_name="PPO",
                        reset_num_timesteps=False)
        else:  # a resumed run that had already reached its steps: nothing to learn, still save
            callback.init_callback(model)
    except KeyboardInterrupt:  # a second Ctrl-C: stop at once, still save
        callback.stop_signal = callback.stop_signal or 2
    except Exception:  # a worker's failure reaches us as a closed pipe (EOFError): its report says what
        reports = worker_failures(failure_dir)
        text = (reports[0] if reports else traceback.format_exc()).strip()
        if not reports:  # a worker killed outright (the OOM killer's SIGKILL) wrote nothing: say how it ended
            text = "\n".join([text, *worker_deaths(model.get_env())])
        return {"error": text.splitlines()[-1], "traceback": text}
    finally:
        callback.restore_process_state()
    return None


def _make_model(run_dir: Path, config: dict[str, Any], device: str, saved: Path | None, failure_dir: str):
    """A new model (PPO, or the run's --algo) on fresh vectorised envs, or the saved one (with its VecNormalize
    statistics) to resume, and the update settings applied to it; either starts from the envs' first (seeded)
    reset. With a curriculum, the envs are those of the stage the model's steps are in (agents.backends.curriculum)."""
    from wadgym.agents import runfolder
    from wadgym.agents.algos import algo_class, algo_of, apply_update_settings, policy_name
    from wadgym.agents.backends.curriculum import env_kwargs_at
    from wadgym.agents.config import normalize_kwargs, ppo_kwargs
    from wadgym.agents.restart import RestartPolicy
    from wadgym.agents.vec import make_vec_env

    hp = config["hyperparams"]
    algo = algo_class(algo_of(config))
    env_kwargs = env_kwargs_at(hp, _saved_steps(run_dir, saved, hp))
    venv, observations = make_vec_env(
        config["env"], env_kwargs, hp["n_envs"], config["seed"], hp["frame_stack"], normalize_kwargs(hp),
        normalize_stats=runfolder.vecnormalize_path(saved) if saved is not None else None, failure_dir=failure_dir,
        vec_env=config.get("vec_env", "subproc"),  # runs from before --vec-env used SubprocVecEnv
        monitor=runfolder.monitor_file(run_dir), restart=RestartPolicy.from_config(config.get("restart")).enabled)
    if saved is not None:
        # the schedules from the run's configuration: a checkpoint's pickled ones may name classes of an older wadgym
        schedules = {key: value for key, value in ppo_kwargs(hp).items() if key in ("learning_rate", "clip_range")}
        model = algo.load(saved, env=venv, device=device, tensorboard_log=str(run_dir / "tb"), custom_objects=schedules)
    else:
        model = algo(policy_name(algo_of(config), hp["policy"]), venv, device=device, seed=config["seed"],
                     tensorboard_log=str(run_dir / "tb"), verbose=0, **ppo_kwargs(hp))
        if config.get("init_from"):  # fine-tuning, curricula: another run's weights (agents.runs.tracking)
            init_weights(model, config["init_from"], device)
    settings = apply_update_settings(model)  # CPU-only layout, optimizer and bf16 choices; other devices: defaults
    # What PPO.learn does when it has no observations (or is told to reset): a second reset would count
    # the first frames twice in VecNormalize, and a loaded model's saved observations are stale.
    model._last_obs = observations
    model._last_episode_starts = np.ones(venv.num_envs, dtype=bool)
    if model.get_vec_normalize_env() is not None:
        model._last_original_obs = model.get_vec_normalize_env().get_original_obs()
    return model, settings


def init_weights(model, init_from: dict[str, Any], device: str, close_env: bool = True) -> None:
    """The policy (and optimizer state) of the run `init_from` names; a ValueError when they do not fit (the
    model's env closed first, unless `close_env` is False: its caller closes it)."""
    from wadgym.agents.runs.tracking.lineage import parent_model
    from wadgym.agents.vec import close_vec_env

    try:
        with parent_model(init_from) as path:
            model.set_parameters(str(path), exact_match=True, device=device)
    except (ValueError, RuntimeError, KeyError, OSError) as exc:
        if close_env:
            close_vec_env(model.get_env())
        raise ValueError(f"--init-from {init_from.get('run')}: its weights do not fit this run's policy "
                         f"({str(exc).strip().splitlines()[0][:300]})") from None


def _explore_callback(config: dict[str, Any], saved: Path | None):
    """The ExploreCallback of a run whose hyperparameters hold `explore` (else None), continuing the state saved
    with the checkpoint `saved` when there is one (agents.exploration.bonuses)."""
    setting = config["hyperparams"].get("explore")
    if not setting:
        return None
    from wadgym.agents.exploration.bonuses import ExploreCallback
    from wadgym.agents.runfolder import explore_path

    state = explore_path(saved) if saved is not None else None
    return ExploreCallback(setting, frame_stack=config["hyperparams"].get("frame_stack", 1), seed=config["seed"],
                           state=state if state is not None and state.is_file() else None)


def _saved_steps(run_dir: Path, saved: Path | None, hp: dict[str, Any]) -> int:
    """The steps of the model a run starts from (0 when new; a final model without checkpoints: all of them):
    which curriculum stage _make_model builds the envs of."""
    from wadgym.agents import runfolder

    if saved is None:
        return 0
    latest = runfolder.latest_checkpoint(run_dir)
    return latest[0] if latest and latest[1] == saved else int(hp["n_timesteps"])


def _curriculum_callback(run_dir: Path, config: dict[str, Any], failure_dir: str, built_at: int):
    """The CurriculumCallback of a run whose hyperparameters hold a curriculum (else None): it builds each
    stage's envs as _make_model builds the first (same seeding, wrappers and vector env; a new Monitor file);
    the envs _make_model built are those of step `built_at`'s stage."""
    hp = config["hyperparams"]
    if not hp.get("curriculum"):
        return None
    from wadgym.agents import runfolder
    from wadgym.agents.backends.curriculum import CurriculumCallback, stage_at
    from wadgym.agents.config import normalize_kwargs
    from wadgym.agents.vec import make_vec_env

    def make_envs(env_kwargs: dict[str, Any], stage: int):
        return make_vec_env(config["env"], env_kwargs, hp["n_envs"], config["seed"] + 1000 * stage,
                            hp["frame_stack"], normalize_kwargs(hp), failure_dir=failure_dir,
                            vec_env=config.get("vec_env", "subproc"), monitor=runfolder.monitor_file(run_dir))

    return CurriculumCallback(hp, make_envs, stage_at(hp, built_at))


def _save_results(run_dir: Path, model, callback, final: bool) -> None:
    """A checkpoint always; the final model (and VecNormalize statistics) when training finished."""
    from wadgym.agents.backends.callbacks import save_model, save_vecnormalize

    callback.save_checkpoint()
    if final:
        if callback.explore is not None and callback.explore.bonuses is not None:
            from wadgym.agents.runfolder import explore_path

            callback.explore.save(explore_path(run_dir / "model.zip"))
        save_model(model, run_dir / "model.zip")
        if model.get_vec_normalize_env() is not None:
            save_vecnormalize(model.get_vec_normalize_env(), run_dir / "vecnormalize.pkl")
