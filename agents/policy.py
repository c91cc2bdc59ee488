"""A trained run's policy acting on raw env observations, one step at a time.

`SavedPolicy` applies the same preprocessing as training (frame stacking like VecFrameStack,
channel-first like VecTransposeImage, VecNormalize statistics if the run used them), so a plain
`gym.make` env (evaluation, `wadgym rollout`) can be driven by it.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

from wadgym.agents import runfolder


class SavedPolicy:
    """policy.reset() before each episode, then action = policy(observation) for every observation."""

    def __init__(self, run: str | Path, device: str = "cpu", deterministic: bool = False, model_file: Path | None = None):
        from stable_baselines3 import PPO

        self.run = runfolder.require_run(run)
        self.config = runfolder.load_config(self.run)
        self.model_file = Path(model_file) if model_file else runfolder.model_path(self.run)
        self.model = PPO.load(self.model_file, device=device, custom_objects=_custom_objects())
        self.deterministic = deterministic
        self.frame_stack = int(self.config["hyperparams"].get("frame_stack") or 0)
        self.vec_normalize = _load_vecnormalize(runfolder.vecnormalize_path(self.model_file))
        self._stack = None

    @property
    def env_id(self) -> str:
        return self.config["env"]

    @property
    def env_kwargs(self) -> dict[str, Any]:
        return dict(self.config["hyperparams"].get("env_kwargs") or {})

    def check_env(self, env) -> "SavedPolicy":
        """Raise a ValueError unless `env` gives the observations and actions this policy was trained on."""
        height, width, channels = env.observation_space.shape
        stacked, model_height, model_width = self.model.observation_space.shape
        same = (height, width, channels * max(self.frame_stack, 1)) == (model_height, model_width, stacked)
        if not same or env.action_space != self.model.action_space:
            raise ValueError(
                f"the policy in {self.run} was trained on {self.env_id} with env kwargs {self.env_kwargs} "
                f"(frames {model_height}x{model_width}, {self.model.action_space}); this env gives "
                f"{env.observation_space.shape} frames and {env.action_space}: make it with the same env kwargs"
            )
        return self

    def preprocess(self, stacked_hwc: np.ndarray) -> np.ndarray:
        """(N, H, W, C*stack) uint8 -> (N, C*stack, H, W), what the network takes."""
        return np.ascontiguousarray(np.transpose(stacked_hwc, (0, 3, 1, 2)))

    def reset(self) -> None:
        """Forget the frame stack: the next observation starts a new episode."""
        self._stack = None

    def network_input(self, observation: np.ndarray) -> np.ndarray:
        """Push one raw (H, W, C) frame; returns the stacked, channel-first (1, C*stack, H, W) uint8 input."""
        from gymnasium import spaces
        from stable_baselines3.common.vec_env.stacked_observations import StackedObservations

        if self._stack is None:
            space = spaces.Box(0, 255, observation.shape, np.uint8)
            self._stack = StackedObservations(1, max(self.frame_stack, 1), space, channels_order="last")
            stacked = self._stack.reset(observation[None])
        else:
            stacked, _ = self._stack.update(observation[None], np.array([False]), [{}])
        return self.preprocess(stacked)

    def __call__(self, observation: np.ndarray) -> int:
        """The action for this observation (call reset() before each episode's first one)."""
        net_input = self.network_input(observation)
        if self.vec_normalize is not None:
            net_input = self.vec_normalize.normalize_obs(net_input)
        action, _ = self.model.predict(net_input, deterministic=self.deterministic)
        return int(np.asarray(action).reshape(-1)[0])


def _custom_objects() -> dict[str, Any]:
    # Schedules are only needed to keep training; loading for inference must not depend on them.
    return {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}


def _load_vecnormalize(path: Path):
    if not path.is_file():
        return None
    with open(path, "rb") as f:
        vec_normalize = pickle.load(f)
    vec_normalize.training = False
    return vec_normalize if vec_normalize.norm_obs else None
