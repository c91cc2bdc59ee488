"""The training callback: per-episode stats to TensorBoard and episodes.csv, periodic checkpoints,
and a clean stop on Ctrl-C (SIGINT) or SIGTERM."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from wadgym.agents import runfolder
from wadgym.files import atomic_path


class RunCallback(BaseCallback):
    """Records every finished episode (score, return, length), logs their means and steps per second
    at each rollout's end, saves a checkpoint every `save_freq` steps, and stops when a signal asks."""

    def __init__(self, run: Path, save_freq: int, episodes: list[dict[str, Any]] | None = None):
        super().__init__()
        self.run = Path(run)
        self.save_freq = max(int(save_freq), 1)
        self.episodes: list[dict[str, Any]] = list(episodes or [])
        self.stop_signal: int | None = None
        self._last_checkpoint = 0
        self._rollout_start = (time.perf_counter(), 0)
        self._recent: list[dict[str, Any]] = []

    # --- signals ---------------------------------------------------------------------------
    def install_signal_handlers(self) -> None:
        def ask_to_stop(signum, frame):
            if self.stop_signal is not None:  # a second Ctrl-C: stop now, the checkpoint is still written
                raise KeyboardInterrupt
            self.stop_signal = signum
            print(f"\n{signal.Signals(signum).name}: stopping after this step, saving a checkpoint ...", flush=True)

        self._previous_handlers = {s: signal.signal(s, ask_to_stop) for s in (signal.SIGINT, signal.SIGTERM)}

    def restore_signal_handlers(self) -> None:
        for s, handler in getattr(self, "_previous_handlers", {}).items():
            signal.signal(s, handler)

    # --- SB3 hooks ---------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        self._last_checkpoint = self.num_timesteps
        self._rollout_start = (time.perf_counter(), self.num_timesteps)

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            episode = info.get("episode")
            if episode is not None:
                record = {
                    "timesteps": self.num_timesteps,
                    "score": info.get("score"),
                    "return": float(episode["r"]),
                    "length": int(episode["l"]),
                }
                self.episodes.append(record)
                self._recent.append(record)
        if self.num_timesteps - self._last_checkpoint >= self.save_freq:
            self.save_checkpoint()
        return self.stop_signal is None

    def _on_rollout_end(self) -> None:
        start, start_steps = self._rollout_start
        now = time.perf_counter()
        # measured from one rollout's end to the next, so it includes the PPO update
        if self.num_timesteps > start_steps:
            self.logger.record("time/steps_per_second", (self.num_timesteps - start_steps) / max(now - start, 1e-9))
        self._rollout_start = (now, self.num_timesteps)
        scores = [e["score"] for e in self._recent if e["score"] is not None]
        if scores:
            self.logger.record("rollout/ep_score_mean", float(np.mean(scores)))
        self._recent = []

    # --- checkpoints -------------------------------------------------------------------------
    def save_checkpoint(self) -> Path:
        """model_<steps>_steps.zip (+ VecNormalize stats) and episodes.csv; older checkpoints removed."""
        steps = self.num_timesteps
        model_file, norm_file = runfolder.checkpoint_paths(self.run, steps)
        save_model(self.model, model_file)
        if self.model.get_vec_normalize_env() is not None:
            save_vecnormalize(self.model.get_vec_normalize_env(), norm_file)
        runfolder.write_episodes(self.run, self.episodes)
        for old in model_file.parent.glob("*_steps.*"):
            if old not in (model_file, norm_file):
                old.unlink(missing_ok=True)
        self._last_checkpoint = steps
        return model_file


def save_model(model, path: Path) -> None:
    """model.save, atomically."""
    with atomic_path(path) as temporary:
        model.save(temporary)


def save_vecnormalize(vec_normalize, path: Path) -> None:
    with atomic_path(path) as temporary:
        vec_normalize.save(temporary)
