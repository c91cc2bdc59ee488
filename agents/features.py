"""Feature extractors that YAML can name in policy_kwargs (e.g. `features_extractor_class=SmallCNN`)."""

from __future__ import annotations

import gymnasium as gym
import torch
import torch.nn as nn
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, NatureCNN


class SmallCNN(BaseFeaturesExtractor):
    """A CNN for small (about 64x48) channel-first frames: three strided convs and one linear layer.

    Several times cheaper than NatureCNN on a CPU, which matters because on 2 cores the PPO update,
    not the game, is what limits training speed.
    """

    def __init__(self, observation_space: gym.spaces.Box, features_dim: int = 128, channels: tuple = (16, 32, 32)):
        super().__init__(observation_space, features_dim)
        n_input = observation_space.shape[0]
        c1, c2, c3 = channels
        self.cnn = nn.Sequential(
            nn.Conv2d(n_input, c1, kernel_size=5, stride=2, padding=2),
            nn.ReLU(),
            nn.Conv2d(c1, c2, kernel_size=3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(c2, c3, kernel_size=3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            n_flat = self.cnn(torch.as_tensor(observation_space.sample()[None]).float()).shape[1]
        self.linear = nn.Sequential(nn.Linear(n_flat, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations))


class ResidualBlock(nn.Module):
    """x + conv(relu(conv(relu(x)))), both 3x3 with the input's channels (IMPALA's residual block)."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv0 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
        self.conv1 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv1(torch.relu(self.conv0(torch.relu(x))))


class ImpalaCNN(BaseFeaturesExtractor):
    """The residual encoder of IMPALA (Espeholt et al. 2018) that procgen's baselines use: per stage a 3x3
    conv, a 3x3 max-pool of stride 2 and two residual blocks; then ReLU, one linear layer and ReLU.

    `channels` gives each stage's width (procgen: 16, 32, 32). Deeper than SmallCNN and about 3-5x its
    update cost on a CPU; meant for tasks where SmallCNN's features fall short (mazes, many rooms)."""

    def __init__(self, observation_space: gym.spaces.Box, features_dim: int = 256, channels: tuple = (16, 32, 32)):
        super().__init__(observation_space, features_dim)
        layers: list[nn.Module] = []
        n_input = observation_space.shape[0]
        for width in channels:
            layers += [nn.Conv2d(n_input, width, kernel_size=3, padding=1),
                       nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
                       ResidualBlock(width), ResidualBlock(width)]
            n_input = width
        self.cnn = nn.Sequential(*layers, nn.ReLU(), nn.Flatten())
        with torch.no_grad():
            n_flat = self.cnn(torch.as_tensor(observation_space.sample()[None]).float()).shape[1]
        self.linear = nn.Sequential(nn.Linear(n_flat, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations))


# name -> class; policy_kwargs strings see these names.
EXTRACTORS: dict[str, type[BaseFeaturesExtractor]] = {"SmallCNN": SmallCNN, "NatureCNN": NatureCNN,
                                                      "ImpalaCNN": ImpalaCNN}


def get_extractor(name: str) -> type[BaseFeaturesExtractor]:
    if name not in EXTRACTORS:
        raise ValueError(f"unknown features extractor {name!r}; registered: {', '.join(sorted(EXTRACTORS))}")
    return EXTRACTORS[name]
