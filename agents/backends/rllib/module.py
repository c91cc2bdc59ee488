"""The network RLlib trains: the very SB3 actor-critic policy `wadgym train` builds (same feature
extractor, heads, initialisation and image scaling, from the same `policy` and `policy_kwargs`
hyperparameters), wrapped as an RLlib RLModule for PPO on RLlib's current API stack.

RLlib hands the module channel-last frames, stacked on the last axis oldest first (its frame-stacking
connector); the module makes them channel-first, which is exactly the input of an SB3 run's network.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule


def sb3_policy(observation_space: gym.spaces.Box, action_space: gym.Space, policy: str,
               policy_kwargs: Any):
    """The SB3 ActorCriticPolicy PPO(policy, ..., policy_kwargs=...) would build for channel-first
    `observation_space` (its optimizer is never used: RLlib's learner owns the optimisation)."""
    from stable_baselines3 import PPO

    from wadgym.agents.config import parse_policy_kwargs

    if policy not in PPO.policy_aliases:
        raise ValueError(f"policy {policy!r}: expected one of {', '.join(sorted(PPO.policy_aliases))}")
    return PPO.policy_aliases[policy](observation_space, action_space, lambda _: 0.0,
                                      **parse_policy_kwargs(policy_kwargs))


def channel_first_space(space: gym.spaces.Box) -> gym.spaces.Box:
    """(H, W, C) uint8 frames -> the (C, H, W) space an SB3 CNN policy is built for."""
    height, width, channels = space.shape
    return gym.spaces.Box(0, 255, (channels, height, width), np.uint8)


class SB3PolicyModule(TorchRLModule, ValueFunctionAPI):
    """model_config: {"policy": "CnnPolicy", "policy_kwargs": the YAML's policy_kwargs string}."""

    def setup(self):
        self.policy = sb3_policy(channel_first_space(self.observation_space), self.action_space,
                                 self.model_config.get("policy", "CnnPolicy"),
                                 self.model_config.get("policy_kwargs"))
        self.policy.optimizer = None  # RLlib's learner optimises these parameters

    def _features(self, batch: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        """(policy features, value features): one tensor twice when the extractor is shared (SB3's default)."""
        frames = batch[Columns.OBS].permute(0, 3, 1, 2)
        features = self.policy.extract_features(frames)
        return features if isinstance(features, tuple) else (features, features)

    def _logits(self, pi_features: torch.Tensor) -> torch.Tensor:
        return self.policy.action_net(self.policy.mlp_extractor.forward_actor(pi_features))

    def _forward(self, batch, **kwargs):
        pi_features, _ = self._features(batch)
        return {Columns.ACTION_DIST_INPUTS: self._logits(pi_features)}

    def _forward_train(self, batch, **kwargs):
        pi_features, vf_features = self._features(batch)
        return {Columns.ACTION_DIST_INPUTS: self._logits(pi_features), Columns.EMBEDDINGS: vf_features}

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            _, embeddings = self._features(batch)
        return self.policy.value_net(self.policy.mlp_extractor.forward_critic(embeddings)).squeeze(-1)
