"""A training run's life in its folder, the same for every backend (agents.backends: agents.backends.sb3,
agents.backends.rllib.train, agents.backends.selfplay): one session of any of them is `train_session`:

    train_session(run_dir, settings, backend, options, resume)
        saved = resume_point(run_dir)         the checkpoint (or final model) a --resume continues from
        with backend's Trainer(run_dir, settings, saved, options) as trainer:
            meta, session = start_session(run_dir, trainer.device, resume)
                                              command.txt gets this command line; meta.json this session's start
            trainer.start(meta, session)      the model and its envs (a failure here is the session's)
            trainer.learn()                   until the step budget, a signal or a failure
            trainer.save(final)               a checkpoint; the final model when it finished
        finish_session(run_dir, meta, session, from_steps, to_steps, wall, status, failure=None)
                                              meta.json: the session appended, the run's status, steps and speed
        raise TrainingFailed(failure_message(run_dir, steps, error))   when it failed
        the learning curve, and a TrainResult

A backend is a `Trainer` class (the steps that differ: what it trains with and how); the rest is here.

    prepare_run_dir(run_dir, config)      the folder and its config.yml, refused if it holds a run
    evaluate_run(run_dir, episodes, seed, video)
                                          trained, random and scripted on test and training levels into
                                          metrics.json, and an episode's video (a finished SB3 or RLlib run)

Nothing here imports a backend, and no backend imports another's insides.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from wadgym.agents.backends import Backend
    from wadgym.agents.config import TrainConfig

STATUSES = ("finished", "interrupted", "failed")


class TrainingFailed(Exception):
    """Training stopped on an error: meta.json records it, model.zip is not written, checkpoints are kept."""


@dataclasses.dataclass(frozen=True)
class TrainResult:
    """What a training session did (wadgym.agents.train's return value).

    run_dir: the run folder; status: "finished" or "interrupted" (a signal stopped it; the latest
    checkpoint is where --resume continues); timesteps: the run's env steps (agent steps in self-play)
    at the end; wall_time_s and steps_per_second: this session's; device: where the network trained;
    evaluation: the final evaluation (what metrics.json holds under "eval"), None when there was none;
    selfplay: whether one shared policy played every player of a multi-agent env.
    """

    run_dir: Path
    status: str
    timesteps: int
    wall_time_s: float
    device: str
    steps_per_second: float
    evaluation: dict[str, Any] | None = None
    selfplay: bool = False

    @property
    def interrupted(self) -> bool:
        return self.status == "interrupted"


def prepare_run_dir(run_dir: Path, config: dict[str, Any]) -> None:
    """Create `run_dir` (if needed) and write config.yml; a ValueError if it is a file or holds a run."""
    from wadgym.agents import runfolder

    if run_dir.exists() and not run_dir.is_dir():
        raise ValueError(f"--run-dir {run_dir} is a file, not a folder")
    if (run_dir / "config.yml").exists():
        raise ValueError(f"{run_dir} already holds a run; use --resume {run_dir} or another --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    runfolder.write_yaml(run_dir / "config.yml", config)


def resume_point(run_dir: Path) -> Path | None:
    """The latest checkpoint, else the final model (checkpoints deleted by hand), else None."""
    from wadgym.agents import runfolder

    latest = runfolder.latest_checkpoint(run_dir)
    if latest is not None:
        return latest[1]
    finals = [path for path in (run_dir / "model.zip", run_dir / "model") if path.exists()]  # SB3, RLlib
    return finals[0] if finals else None


def append_command(run_dir: Path) -> None:
    """command.txt: this process's command line after those of the run's earlier sessions."""
    from wadgym.agents import runfolder
    from wadgym.agents.system import command_line

    path = run_dir / "command.txt"
    previous = path.read_text() if path.is_file() else ""
    runfolder.write_text_atomic(path, previous + command_line() + "\n")


def start_session(run_dir: Path, device: str, resume: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """A session starts: its command line into command.txt; meta.json as it stands now, and the
    session's own record (code, versions, device). The run's top-level versions, git and device stay
    those of its first session."""
    from wadgym.agents import runfolder
    from wadgym.agents.system import device_description, git_info, system_info

    append_command(run_dir)
    meta = runfolder.read_json(run_dir / "meta.json") if resume and (run_dir / "meta.json").is_file() else {}
    session = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "versions": system_info(), "git": git_info(),
               "device": device_description(device)}
    for key in ("versions", "git", "device", "started"):
        meta.setdefault(key, session[key])
    meta.setdefault("sessions", [])
    runfolder.write_json(run_dir / "meta.json", meta)
    return meta, session


def finish_session(run_dir: Path, meta: dict[str, Any], session: dict[str, Any], from_steps: int, to_steps: int,
                   wall: float, status: str, failure: dict[str, str] | None = None) -> None:
    """Append the session to meta.json; status is "finished", "interrupted" or "failed" (then with the
    failure: {"error": its last line, "traceback": ...})."""
    from wadgym.agents import runfolder
    from wadgym.agents.restart import read_restarts
    from wadgym.agents.system import command_line

    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of {', '.join(STATUSES)}")
    session.update(command=command_line(), from_steps=from_steps, to_steps=to_steps, wall_time_s=round(wall, 2),
                   status=status, **({"error": failure["error"]} if failure else {}))
    meta["sessions"].append(session)
    meta["engine_restarts"] = read_restarts(run_dir)
    for key in ("error", "traceback"):  # a failure of an earlier session was resumed from
        meta.pop(key, None)
    meta.update(timesteps=to_steps, status=status, finished=status == "finished", **(failure or {}),
                wall_time_s=round(sum(s["wall_time_s"] for s in meta["sessions"]), 2),
                ended=time.strftime("%Y-%m-%dT%H:%M:%S"),
                steps_per_second=round((to_steps - from_steps) / wall, 1) if wall > 0 else None)
    runfolder.write_json(run_dir / "meta.json", meta)


def failure_message(run_dir: Path, steps: int, error: str, resumable: bool = True) -> str:
    """What a failed session tells its user: the error, and where to continue from (a run of a backend that
    cannot resume: only that its checkpoint is kept)."""
    from wadgym.agents import runfolder

    latest = runfolder.latest_checkpoint(run_dir)
    resume = f"; continue from it with: wadgym train --resume {run_dir}" if resumable else ""
    kept = (f"the latest checkpoint ({latest[1]}, {latest[0]} steps) is kept{resume}" if latest
            else "no checkpoint had been saved")
    return (f"training failed at step {steps}: {error}\n"
            f"  model.zip was not written; {kept}; meta.json holds the error and its traceback")


@dataclasses.dataclass(frozen=True)
class SessionOptions:
    """What a session is asked beside the run's configuration (TrainConfig's session fields): a checkpoint
    every `save_freq` env steps, a progress bar, the Ray cluster to join (`address`, the RLlib backend), an
    MLflow tracker (agents.runs.tracking.Tracker: its SB3 callback, or the RLlib iterations' scalars) and more SB3
    callbacks for model.learn (the SB3 backends)."""

    save_freq: int = 25_000
    progress: bool = True
    address: str | None = None
    tracker: Any = None
    callbacks: Sequence[Any] = ()


class Trainer(Protocol):
    """A backend (agents.backends): how it resolves a new run's configuration and evaluates a finished run
    (class methods), and one session of it, made as `Trainer(run_dir, settings, saved, options)` (settings:
    the run's config.yml; saved: the checkpoint a resumed run starts from, else None; options:
    SessionOptions) and used by train_session as a context manager, whose exit closes whatever the session
    started (envs, workers, engines, Ray).

    device: where the network trains (the session's record; TrainResult.device when it ends).
    steps: the run's env steps so far (once started: those it starts from).
    stopped: whether a signal asked training to stop (the session then ends "interrupted", checkpointed).
    """

    device: str
    steps: int
    stopped: bool

    @classmethod
    def resolve(cls, config: TrainConfig, hyperparams: dict[str, Any]) -> dict[str, Any]:
        """The backend's own entries of a new run's config.yml, its options checked and the env made once
        (a ValueError names what is wrong, before anything starts); may adjust `hyperparams` (RLlib: n_envs)."""

    @classmethod
    def evaluate(cls, run_dir: Path, episodes: int, seed: int, video: bool) -> dict[str, Any]:
        """The final evaluation of a finished run (written to metrics.json); what TrainResult.evaluation holds."""

    def __enter__(self) -> Trainer:
        """Say what is trained, start what must run before the session's record (a Ray cluster)."""

    def __exit__(self, *exc_info) -> None:
        """Close whatever the session started, whatever happened."""

    def start(self, meta: dict[str, Any], session: dict[str, Any]) -> dict[str, str] | None:
        """Make the model and its envs (and whatever runs before learning: behaviour cloning); may add to
        meta.json's `meta` and the `session` record. A failure ({"error", "traceback"}) ends the session
        failed; bad input raises (ValueError) after the envs are closed."""

    def learn(self) -> dict[str, str] | None:
        """Train until the step budget or a signal (None), or until a failure: {"error", "traceback"}."""

    def save(self, final: bool) -> None:
        """A checkpoint; with `final` also the final model (model.zip, or the RLlib model/ folder)."""


def train_session(run_dir: Path, settings: dict[str, Any], backend: Backend, options: SessionOptions,
                  resume: bool) -> TrainResult:
    """One training session of the run in `run_dir` (its configuration `settings`) by `backend`'s Trainer,
    from scratch or (`resume`) from the run's latest checkpoint, as the module says: meta.json records it, a
    failure raises TrainingFailed once everything is closed, the learning curve is drawn."""
    from wadgym.agents import runfolder
    from wadgym.agents.runs.plots import plot_learning_curve
    from wadgym.envs.registration import score_name

    saved = resume_point(run_dir) if resume else None
    if resume and saved is None:
        raise ValueError(f"{run_dir} has no checkpoint to resume from")
    if saved is not None:
        runfolder.rewind_monitors(run_dir, saved)  # episodes recorded after the checkpoint are trained again
    with backend.trainer_class()(run_dir, settings, saved, options) as trainer:
        meta, session = start_session(run_dir, trainer.device, resume)
        start_time = time.perf_counter()
        failure = trainer.start(meta, session)
        start_steps = trainer.steps
        if failure is None:
            start_time = time.perf_counter()  # the session's speed is its learning's
            failure = trainer.learn()
        wall = time.perf_counter() - start_time
        status = "failed" if failure is not None else "interrupted" if trainer.stopped else "finished"
        if failure is None:  # after a failure the latest checkpoint stays the resume point: the model may have failed
            trainer.save(final=status == "finished")
    finish_session(run_dir, meta, session, start_steps, trainer.steps, wall, status, failure)
    if failure is not None:
        raise TrainingFailed(failure_message(run_dir, trainer.steps, failure["error"], backend.resume))
    env_id = settings["env"]
    plot_learning_curve(runfolder.read_episodes(run_dir), run_dir / "learning_curve.png",
                        title=f"{env_id} {backend.curve_title} ({run_dir.name})", score_name=score_name(env_id))
    return TrainResult(run_dir=run_dir, status=status, timesteps=trainer.steps, wall_time_s=wall,
                       device=trainer.device, steps_per_second=meta["steps_per_second"] or 0.0,
                       selfplay=backend.multi_agent)


def evaluate_run(run_dir: Path, episodes: int, seed: int, video: bool = True) -> dict[str, Any]:
    """Trained, random and scripted (where the family wrote one) on fixed seeds of the test and training
    levels (agents.evaluate.final_evaluation; one split where the run has no separate one); the result goes
    into metrics.json, and the random policy's level into the learning curve. With `video`, one more
    episode of the trained policy, the first seed of the headline split, is recorded to VIDEO_FILE (a
    failure to write it is a warning: the evaluation stands)."""
    from wadgym.agents import runfolder
    from wadgym.agents.evaluate import final_evaluation
    from wadgym.agents.policies.policy import SavedPolicy
    from wadgym.agents.runs.plots import plot_learning_curve

    meta = runfolder.read_json(run_dir / "meta.json")
    policy = SavedPolicy(run_dir)
    evaluation = final_evaluation(policy, episodes, seed)
    metrics = {
        "env": evaluation["env"],
        "timesteps": meta.get("timesteps"),
        "wall_time_s": meta.get("wall_time_s"),
        "steps_per_second": meta.get("steps_per_second"),
        "device": meta.get("device"),
        "eval": evaluation,
    }
    if video:
        metrics["video"] = record_video(policy, run_dir / VIDEO_FILE, evaluation["levels"], seed)
    else:  # a video of an earlier session's model is not this evaluation's
        (run_dir / VIDEO_FILE).unlink(missing_ok=True)
    runfolder.write_json(run_dir / "metrics.json", metrics)
    plot_learning_curve(runfolder.read_episodes(run_dir), run_dir / "learning_curve.png",
                        title=f"{evaluation['env']} PPO ({run_dir.name})",
                        random_level=evaluation["random"]["score_mean"], score_name=evaluation["score_name"])
    return metrics


VIDEO_FILE = "eval.mp4"  # the final evaluation's video, in the run folder


def record_video(policy, path: Path, levels: str, seed: int) -> dict[str, Any]:
    """One episode of `policy` on seed `seed` of the `levels` split, recorded to `path`: what metrics.json
    says of it (file, levels, seed, score, length; or the error that kept it from being written)."""
    import sys

    from wadgym.agents.evaluate import run_episodes, split_kwargs

    try:
        episode, = run_episodes(policy.env_id, split_kwargs(policy.env_id, policy.env_kwargs, levels), [seed],
                                policy, video=path)
    except Exception as exc:  # noqa: BLE001 - the run and its evaluation are whole without it
        error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        print(f"wadgym: the evaluation video was not written ({error})", file=sys.stderr, flush=True)
        return {"file": None, "error": error}
    return {"file": path.name, "levels": levels, "seed": seed, "score": episode["score"], "length": episode["length"]}
