"""The training callback: SB3's CheckpointCallback (with the VecNormalize statistics), the episodes' mean
score to TensorBoard, a clean stop on Ctrl-C (SIGINT) or SIGTERM with a checkpoint, one torch thread
while rollouts are collected on the CPU, and the record of engine restarts (agents.restart). The episodes
themselves are recorded by the VecMonitor of agents.vec.make_vec_env."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import numpy as np
import torch
from stable_baselines3.common.callbacks import CheckpointCallback

from wadgym.agents.restart import INFO_KEY, SCALAR, RestartLog, RestartPolicy
from wadgym.files import atomic_path


class RunCallback(CheckpointCallback):
    """Logs the mean score of the episodes that finished (info["episode"]["score"], from VecMonitor's
    info_keywords) and steps per second at each rollout's end, saves a checkpoint every `save_freq` env
    steps and when a signal asks to stop, then stops.

    Checkpoints are SB3's CheckpointCallback's (checkpoints/model_<steps>_steps.zip and, with
    VecNormalize, model_vecnormalize_<steps>_steps.pkl); it counts calls (n_envs steps each), so it is
    run when `save_freq` env steps have passed or a signal came. Only the latest checkpoint is kept.

    While a rollout is collected by a policy on the CPU, torch runs on one thread (`collect_threads`);
    the update gets its threads back. torch's OpenMP threads busy-wait for a while after each parallel
    region, so after every batched forward pass they spin on the very CPUs the games then need for
    their step: measured with 8 envs on 2 cores, a vector env step took 2.7 ms per batch with 2 torch
    threads and 1.6 ms with one (bench/train_speed.py). The forward pass of a batch of a few frames
    gains little from a second thread.

    A checkpoint is written file by file atomically, the model last (the VecNormalize statistics and the
    Monitor files' lengths, model_<steps>_steps.monitor.json, before it): a checkpoint whose model is
    there is whole, and a write that fails (a full disk) leaves the previous checkpoint as it was and
    raises an OSError naming the file.

    An engine restart an env reports (info["engine_restart"], see agents.restart) is recorded with the
    env's index and the step (engine_restarts.json, then meta.json; engine/restarts in TensorBoard); more
    of them than `restarts` allows within its window raise RestartLimitReached, which stops the run as
    any env failure does. `restarts` None: the run's config.yml says (restarts on by default)."""

    def __init__(self, run: Path, save_freq: int, collect_threads: int | None = 1,
                 restarts: RestartPolicy | None = None):
        super().__init__(save_freq=1, save_path=str(Path(run) / "checkpoints"), name_prefix="model",
                         save_vecnormalize=True)
        self.run = Path(run)
        self.restarts = RestartLog(self.run, restarts if restarts is not None else _run_policy(self.run))
        self.threads = CollectionThreads(collect_threads)
        self.save_every = max(int(save_freq), 1)
        self.stop_signal: int | None = None
        self._last_checkpoint = 0
        self._rollout_start = (time.perf_counter(), 0)
        self._scores: list[float] = []
        self.explore = None  # the run's ExploreCallback (exploration.bonuses): its state is saved with each checkpoint

    # --- signals ---------------------------------------------------------------------------
    def install_signal_handlers(self) -> None:
        def ask_to_stop(signum, frame):
            if self.stop_signal is not None:  # a second Ctrl-C: stop now, the checkpoint is still written
                raise KeyboardInterrupt
            self.stop_signal = signum
            print(f"\n{signal.Signals(signum).name}: stopping after this step, saving a checkpoint ...", flush=True)

        self._previous_handlers = {s: signal.signal(s, ask_to_stop) for s in (signal.SIGINT, signal.SIGTERM)}

    def restore_process_state(self) -> None:
        """The signal handlers from before install_signal_handlers, and torch's threads from before
        training (a rollout interrupted by an error leaves them at `collect_threads`)."""
        for s, handler in getattr(self, "_previous_handlers", {}).items():
            signal.signal(s, handler)
        self.threads.restore()

    # --- SB3 hooks ---------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        self._last_checkpoint = self.num_timesteps
        self._rollout_start = (time.perf_counter(), self.num_timesteps)
        self.threads.start(self.model)

    def _on_rollout_start(self) -> None:
        self.threads.collecting()

    def _on_training_end(self) -> None:
        self.threads.restore()

    def _on_step(self) -> bool:
        for index, info in enumerate(self.locals.get("infos", ())):
            score = info.get("episode", {}).get("score")
            if score is not None:
                self._scores.append(float(score))
            if info.get(INFO_KEY):
                self.restarts.record(index, info[INFO_KEY], self.num_timesteps)
        if self.num_timesteps - self._last_checkpoint >= self.save_every:
            self.save_checkpoint()
        return self.stop_signal is None

    def _on_rollout_end(self) -> None:
        self.threads.restore()
        start, start_steps = self._rollout_start
        now = time.perf_counter()
        # measured from one rollout's end to the next, so it includes the PPO update
        if self.num_timesteps > start_steps:
            self.logger.record("time/steps_per_second", (self.num_timesteps - start_steps) / max(now - start, 1e-9))
        self._rollout_start = (now, self.num_timesteps)
        if self._scores:
            self.logger.record("rollout/ep_score_mean", float(np.mean(self._scores)))
        self._scores = []
        self.logger.record(SCALAR, self.restarts.count)

    # --- checkpoints -------------------------------------------------------------------------
    def save_checkpoint(self) -> Path:
        """A checkpoint now, named as CheckpointCallback names them: the VecNormalize statistics, the
        exploration bonuses' state, the Monitor files' lengths, then the model, each atomically; then the older
        checkpoints are removed."""
        from wadgym.agents.runfolder import monitor_marker, write_monitor_marker

        model_file = Path(self._checkpoint_path(extension="zip"))
        keep = {model_file, Path(self._checkpoint_path("vecnormalize_", extension="pkl")), monitor_marker(model_file)}
        vec_normalize = self.model.get_vec_normalize_env()
        if vec_normalize is not None:
            save_vecnormalize(vec_normalize, Path(self._checkpoint_path("vecnormalize_", extension="pkl")))
        if self.explore is not None and self.explore.bonuses is not None:
            explore_file = Path(self._checkpoint_path("explore_", extension="pt"))
            self.explore.save(explore_file)
            keep.add(explore_file)
        write_monitor_marker(self.run, model_file, _running_lengths(self.training_env))
        save_model(self.model, model_file)
        for old in model_file.parent.glob("*_steps.*"):
            if old not in keep:
                old.unlink(missing_ok=True)
        self._last_checkpoint = self.num_timesteps
        return model_file


class CollectionThreads:
    """torch's thread count: `threads` while rollouts are collected by a model on the CPU (see
    RunCallback), what it was before otherwise. None: left alone."""

    def __init__(self, threads: int | None):
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"collect_threads must be a whole number >= 1 or None, got {threads!r}")
        self.threads = threads
        self.before: int | None = None

    def start(self, model) -> None:
        on_cpu = model.device.type == "cpu"
        self.before = torch.get_num_threads() if on_cpu and self.threads is not None else None

    def collecting(self) -> None:
        if self.before is not None:
            torch.set_num_threads(self.threads)

    def restore(self) -> None:
        if self.before is not None:
            torch.set_num_threads(self.before)


def _run_policy(run: Path) -> RestartPolicy:
    from wadgym.agents.config import read_yaml

    config = read_yaml(run / "config.yml") if (run / "config.yml").is_file() else None
    return RestartPolicy.from_config(config.get("restart") if isinstance(config, dict) else None)


def _running_lengths(venv) -> list[int]:
    """The steps so far of each env's episode, from the VecMonitor among `venv`'s wrappers ([] without one)."""
    from stable_baselines3.common.vec_env import VecMonitor

    while venv is not None and not isinstance(venv, VecMonitor):
        venv = getattr(venv, "venv", None)
    return [] if venv is None else [int(n) for n in venv.episode_lengths]


def save_model(model, path: Path) -> None:
    """model.save, atomically."""
    with atomic_path(path) as temporary:
        model.save(temporary)


def save_vecnormalize(vec_normalize, path: Path) -> None:
    with atomic_path(path) as temporary:
        vec_normalize.save(temporary)
