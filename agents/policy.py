"""A trained run's policy acting on raw env observations, one step at a time.

`SavedPolicy` applies the same preprocessing as training (frame stacking like VecFrameStack,
channel-first like VecTransposeImage, VecNormalize statistics if the run used them), so a single
env (evaluation, `wadgym rollout`) made as training makes its envs (agents.vec.make_env) can be
driven by it.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

from wadgym.agents import runfolder


class SavedPolicy:
    """policy.reset() before each episode, then action = policy(observation) for every observation."""

    def __init__(self, run: str | Path, device: str = "cpu", deterministic: bool = False,
                 model_file: Path | None = None):
        from stable_baselines3 import PPO

        self.run = runfolder.require_run(run)
        self.config = runfolder.load_config(self.run)
        self.model_file = Path(model_file) if model_file else runfolder.model_path(self.run)
        if self.config.get("backend") == "rllib":  # the same network, from an RLlib checkpoint
            from wadgym.agents.rllib.policy import load_model

            self.model, self.vec_normalize = load_model(self.model_file, device), None
        else:
            self.model = PPO.load(self.model_file, device=device, custom_objects=_custom_objects())
            self.vec_normalize = _load_vecnormalize(runfolder.vecnormalize_path(self.model_file))
        self.deterministic = deterministic
        self.frame_stack = int(self.config["hyperparams"].get("frame_stack") or 0)
        self._stack = None
        self.on_input = None  # called with each network input (see recorded_inputs)

    @property
    def env_id(self) -> str:
        return self.config["env"]

    @property
    def env_kwargs(self) -> dict[str, Any]:
        return dict(self.config["hyperparams"].get("env_kwargs") or {})

    def make_env(self, render_mode: str | None = None):
        """The env this policy was trained on (its id and env kwargs), as the policy sees it."""
        from wadgym.agents.vec import make_env

        env = make_env(self.env_id, self.env_kwargs, render_mode)
        self.check_env(env)
        return env

    def check_env(self, env) -> SavedPolicy:
        """Raise a ValueError unless `env` gives the observations and actions this policy was trained on."""
        stacked, model_height, model_width = self.model.observation_space.shape
        space = env.observation_space
        frame = (model_height, model_width, stacked // max(self.frame_stack, 1))  # (H, W, C) of one frame
        if tuple(space.shape or ()) != frame or env.action_space != self.model.action_space:
            raise ValueError(
                f"the policy in {self.run} was trained on {self.env_id} with env kwargs {self.env_kwargs} "
                f"(frames {model_height}x{model_width}, {self.model.action_space}); this env gives "
                f"{space} observations and {env.action_space}: make it with the same env kwargs"
            )
        return self

    def preprocess(self, stacked_hwc: np.ndarray) -> np.ndarray:
        """(N, H, W, C*stack) uint8 -> (N, C*stack, H, W), what the network takes."""
        return np.ascontiguousarray(np.transpose(stacked_hwc, (0, 3, 1, 2)))

    def reset(self, seed: int | None = None) -> None:
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

    def act(self, network_inputs: np.ndarray) -> np.ndarray:
        """Actions for a batch of network inputs (N, C*stack, H, W): VecNormalize statistics applied
        first when the run used them, as in training."""
        if self.vec_normalize is not None:
            network_inputs = self.vec_normalize.normalize_obs(network_inputs)
        actions, _ = self.model.predict(network_inputs, deterministic=self.deterministic)
        return np.asarray(actions).reshape(-1)

    def __call__(self, observation: np.ndarray) -> int:
        """The action for this observation (call reset() before each episode's first one)."""
        network_input = self.network_input(observation)
        if self.on_input is not None:
            self.on_input(network_input)
        return int(self.act(network_input)[0])

    def recorded_inputs(self, seed: int) -> np.ndarray:
        """The network inputs (N, C*stack, H, W) this policy sees while it plays the episode of `seed`:
        real observations for export checks and latency benchmarks."""
        from wadgym.agents.episodes import play_episode

        inputs: list[np.ndarray] = []
        env = self.make_env()
        self.on_input = lambda network_input: inputs.append(network_input[0].copy())
        try:
            play_episode(env, self, seed)
        finally:
            self.on_input = None
            env.close()
        return np.stack(inputs)


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
