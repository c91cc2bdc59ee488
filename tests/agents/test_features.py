"""Feature extractors named from YAML: the IMPALA residual encoder beside SmallCNN."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch

from wadgym.agents.config import parse_policy_kwargs
from wadgym.agents.features import ImpalaCNN, SmallCNN


def test_impala_cnn_is_nameable_from_yaml_and_encodes_a_frame_stack():
    kwargs = parse_policy_kwargs("dict(features_extractor_class=ImpalaCNN, "
                                 "features_extractor_kwargs=dict(features_dim=64, channels=(8, 16)))")
    assert kwargs["features_extractor_class"] is ImpalaCNN
    space = gym.spaces.Box(0, 255, (4, 60, 80), np.uint8)
    net = ImpalaCNN(space, **kwargs["features_extractor_kwargs"])
    features = net(torch.rand(3, 4, 60, 80))
    assert features.shape == (3, 64) and (features >= 0).all()
    # two pooling stages of stride 2: 60x80 -> 15x20, 16 channels into the linear layer
    assert net.linear[0].in_features == 16 * 15 * 20
    residuals = [m for m in net.modules() if type(m).__name__ == "ResidualBlock"]
    assert len(residuals) == 4   # two per stage, as procgen's IMPALA network
    assert sum(p.numel() for p in net.parameters()) > sum(p.numel() for p in SmallCNN(space, 64).parameters())
