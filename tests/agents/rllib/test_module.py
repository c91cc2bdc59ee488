"""The network RLlib trains is exactly the one an SB3 run of the same hyperparameters builds."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch


def test_the_rllib_module_is_the_sb3_policy_network():
    from ray.rllib.core.columns import Columns
    from stable_baselines3 import PPO

    from wadgym.agents.backends.rllib.module import SB3PolicyModule
    from wadgym.agents.config import parse_policy_kwargs, resolve

    hp = resolve("DoomItems-v0")  # the default: SmallCNN, pi/vf heads of 64, 2 stacked 60x80 gray frames
    frames = gym.spaces.Box(0, 255, (60, 80, hp["frame_stack"]), np.uint8)  # what RLlib's frame stacking gives
    actions = gym.spaces.Discrete(5)
    module = SB3PolicyModule(observation_space=frames, action_space=actions,
                             model_config={"policy": hp["policy"], "policy_kwargs": hp["policy_kwargs"]})
    sb3 = PPO.policy_aliases[hp["policy"]](gym.spaces.Box(0, 255, (hp["frame_stack"], 60, 80), np.uint8), actions,
                                           lambda _: 0.0, **parse_policy_kwargs(hp["policy_kwargs"]))
    assert str(module.policy) == str(sb3)
    assert sum(p.numel() for p in module.parameters()) == sum(p.numel() for p in sb3.parameters())

    module.policy.load_state_dict(sb3.state_dict())
    batch = torch.as_tensor(np.random.default_rng(0).integers(0, 256, (4, *frames.shape), dtype=np.uint8))
    with torch.no_grad():
        logits = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
        values = module.compute_values({Columns.OBS: batch})
        channel_first = batch.permute(0, 3, 1, 2)
        expected = sb3.get_distribution(channel_first).distribution.logits
        expected_values = sb3.predict_values(channel_first).squeeze(-1)
    # SB3's Categorical normalises its logits; the softmax is what both sample from
    assert torch.allclose(torch.softmax(logits, -1), torch.softmax(expected, -1), atol=1e-6)
    assert torch.allclose(values, expected_values, atol=1e-6)
